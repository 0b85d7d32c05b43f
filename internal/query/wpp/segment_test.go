package wpp

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

// segmented is s with its goroutines' streams cut every n events
// (segmentedSource), as FileSource cuts long ones at chunks.
type segmented struct {
	*memSource
	n int
}

func (s segmented) Segments(g uint64) []func(fn func(*profile.WPPEvent) error) error {
	evs := s.gs[g]
	var segs []func(fn func(*profile.WPPEvent) error) error
	for i := 0; i == 0 || i < len(evs); i += s.n {
		part := evs[i:min(i+s.n, len(evs))]
		segs = append(segs, func(fn func(*profile.WPPEvent) error) error {
			for _, e := range part {
				if err := fn(&e); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return segs
}

// nodeSignatures returns a digest of each node of tw that does not
// depend on how nodes are numbered: its function, its trace's paths,
// whether it is open, its calls, and its items, with the digests of the
// nodes they call, sorted.
func nodeSignatures(tw *TWPP) []string {
	sig := make([]string, len(tw.Nodes))
	var of func(i int) string
	of = func(i int) string {
		if sig[i] != "" {
			return sig[i]
		}
		n := tw.Nodes[i]
		f := tw.Funcs[n.Func]
		h := sha256.New()
		fmt.Fprintf(h, "%s %v %v %d;", f.Key, f.Traces[n.Trace].Paths, n.Open, n.Calls)
		for _, it := range n.Items {
			if it.Kind == ItemCall {
				fmt.Fprintf(h, "c%d %s;", it.At, of(int(it.Node)))
			} else {
				fmt.Fprintf(h, "%d %d %d %d;", it.Kind, it.At, it.Up, it.Node)
			}
		}
		sig[i] = fmt.Sprintf("%x", h.Sum(nil))
		return sig[i]
	}
	for i := range tw.Nodes {
		of(i)
	}
	return slices.Sorted(slices.Values(sig))
}

// funcTraces returns each function's traces with their calls, by key,
// in the order of their paths (the order of traces, like that of nodes,
// is the order they were made in).
func funcTraces(tw *TWPP) map[FuncKey][]string {
	out := make(map[FuncKey][]string)
	for _, f := range tw.Funcs {
		for _, tr := range f.Traces {
			out[f.Key] = append(out[f.Key], fmt.Sprint(tr.Paths, tr.Calls))
		}
		slices.Sort(out[f.Key])
	}
	return out
}

// mutate damages some of s's streams, or not: an event put at a random
// place, of the kinds that make a stream wrong (a return or a spawn
// outside any call, a path or memory access of a call that is not open,
// a start after others, an event after the stop, a package the file
// does not name), or not, depending on where.
func mutate(s *memSource, seed uint64) *memSource {
	r := rand.New(rand.NewPCG(seed, 11))
	out := *s
	out.gs = make(map[uint64][]profile.WPPEvent)
	for g, evs := range s.gs {
		evs = slices.Clone(evs)
		for range r.IntN(3) {
			var e profile.WPPEvent
			switch r.IntN(8) {
			case 0:
				e = profile.WPPEvent{Kind: profile.WPPReturn}
			case 1:
				e = profile.WPPEvent{Kind: profile.WPPPath, Up: uint32(r.IntN(6)), Path: 1}
			case 2:
				e = profile.WPPEvent{Kind: profile.WPPMemory, Up: uint32(r.IntN(6))}
			case 3:
				e = profile.WPPEvent{Kind: profile.WPPValue, Up: uint32(r.IntN(6))}
			case 4:
				e = profile.WPPEvent{Kind: profile.WPPSpawn, Spawn: 7}
			case 5:
				e = profile.WPPEvent{Kind: profile.WPPStart}
			case 6:
				e = profile.WPPEvent{Kind: profile.WPPStop}
			case 7:
				e = profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 9}
			}
			evs = slices.Insert(evs, r.IntN(len(evs)+1), e)
		}
		out.gs[g] = evs
	}
	return &out
}

// TestCompactSegments: compacting goroutines' streams in segments, cut
// anywhere, makes the TWPP that compacting them whole makes (the same
// events expanded, traces, nodes up to their numbering, roots and
// statistics), and fails with the same error on the same wrong streams;
// and the file is the same whatever the number of workers.
func TestCompactSegments(t *testing.T) {
	for seed := range uint64(300) {
		whole := []Source{randomSource(seed), mutate(randomSource(seed+1000), seed)}
		if seed%2 == 0 {
			whole[1] = randomSource(seed + 1000)
		}
		want, wantErr := compactWith(whole, 1)
		for _, n := range []int{1, 2, 3, 5, 8, 13} {
			var cut []Source
			for _, s := range whole {
				cut = append(cut, segmented{s.(*memSource), n})
			}
			got, err := compactWith(cut, 2)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("seed %d, segments of %d events: error %v, whole: %v", seed, n, err, wantErr)
			}
			if err != nil {
				continue
			}
			if !reflect.DeepEqual(expandAll(t, got), expandAll(t, want)) {
				t.Fatalf("seed %d, segments of %d events: the events expanded differ", seed, n)
			}
			if !reflect.DeepEqual(funcTraces(got), funcTraces(want)) {
				t.Fatalf("seed %d, segments of %d events: the traces differ", seed, n)
			}
			if !slices.Equal(nodeSignatures(got), nodeSignatures(want)) {
				t.Fatalf("seed %d, segments of %d events: the nodes differ", seed, n)
			}
			if !reflect.DeepEqual(got.Stats(), want.Stats()) {
				t.Fatalf("seed %d, segments of %d events: stats %+v, whole %+v", seed, n, got.Stats(), want.Stats())
			}
			if seed%10 == 0 {
				one := compactedFile(t, cut, 1)
				if !bytes.Equal(compactedFile(t, cut, 3), one) {
					t.Fatalf("seed %d, segments of %d events: 3 workers make another TWPP than one", seed, n)
				}
			}
		}
	}
}

// TestCompactSegmentsRoundTrip: segmented, the round trip raw → TWPP →
// file → TWPP → raw stays exact.
func TestCompactSegmentsRoundTrip(t *testing.T) {
	for seed := range uint64(100) {
		for _, n := range []int{1, 4, 9} {
			a, b := randomSource(seed), randomSource(seed+1000)
			roundTripSources(t, []Source{segmented{a, n}, segmented{b, n}}, []*memSource{a, b})
		}
	}
}

// FuzzCompactSegments: any cut of any random recording, damaged or not.
func FuzzCompactSegments(f *testing.F) {
	f.Add(uint64(1), uint8(1), false)
	f.Add(uint64(7), uint8(3), true)
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, damage bool) {
		s := randomSource(seed)
		if damage {
			s = mutate(s, seed)
		}
		want, wantErr := compactWith([]Source{s}, 1)
		got, err := compactWith([]Source{segmented{s, 1 + int(n)}}, 2)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("error %v, whole: %v", err, wantErr)
		}
		if err == nil && (!reflect.DeepEqual(expandAll(t, got), expandAll(t, want)) || !slices.Equal(nodeSignatures(got), nodeSignatures(want))) {
			t.Fatal("the TWPPs differ")
		}
	})
}

// smallSegments is a FileSource that cuts every stream, at chunks.
type smallSegments struct{ FileSource }

func (s smallSegments) Segments(g uint64) []func(fn func(*profile.WPPEvent) error) error {
	return s.FileSource.segments(g, 1)
}

// longStream is a goroutine of one call that loops, as a test does: each
// round calls a few functions, some of which call on or complete a path
// of the loop's call up; it ends with calls still open.
func longStream(seed uint64, rounds int) []profile.WPPEvent {
	r := rand.New(rand.NewPCG(seed, 13))
	evs := []profile.WPPEvent{{Kind: profile.WPPStart, Parent: seed}, {Kind: profile.WPPEnter, Pkg: 1, Func: 0}}
	for range rounds {
		evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Path: uint64(r.IntN(3))})
		depth := 0
		for range 1 + r.IntN(3) {
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: uint32(1 + r.IntN(2)), Func: uint32(1 + r.IntN(5))})
			depth++
			switch r.IntN(6) {
			case 0:
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Up: uint32(depth), Path: 7})
			case 1:
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPSpawn, Spawn: r.Uint64N(50)})
			}
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Path: uint64(r.IntN(4))})
			if r.IntN(2) == 0 {
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
				depth--
			}
		}
		for ; depth > 0; depth-- {
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
		}
	}
	return append(evs, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 2, Func: 3}, profile.WPPEvent{Kind: profile.WPPPath, Path: 1})
}

// TestCompactFileSegments: a WPP file whose streams span many chunks,
// compacted with each stream cut at every chunk, gives the TWPP of the
// streams compacted whole.
func TestCompactFileSegments(t *testing.T) {
	streams := map[uint64][]profile.WPPEvent{1: longStream(1, 200000), 2: longStream(2, 60000), 3: randomSource(4).gs[1]}
	var buf bytes.Buffer
	if err := profile.WriteWPP(&buf, profile.WPPHeader{PID: 5, Limit: 1 << 30}, []string{testHashes[1], testHashes[2]}, streams); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "pathcover.5.1.wpp")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := profile.OpenWPP(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := len(smallSegments{FileSource{f}}.Segments(1)); n < 3 {
		t.Fatalf("the long stream is %d segments", n)
	}
	want, err := compactWith([]Source{&memSource{name: name, h: f.Header, pkgs: f.Packages, gs: streams}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := compactWith([]Source{smallSegments{FileSource{f}}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(expandAll(t, got), expandAll(t, want)) || !reflect.DeepEqual(expandAll(t, got)[0], streams) {
		t.Fatal("the events expanded differ")
	}
	if !slices.Equal(nodeSignatures(got), nodeSignatures(want)) || !reflect.DeepEqual(funcTraces(got), funcTraces(want)) || !reflect.DeepEqual(got.Stats(), want.Stats()) {
		t.Fatal("the TWPPs differ")
	}
}

// TestCompactBatches: goroutines compacted in batches of any size make
// the TWPP file that compacting them one by one makes, byte for byte,
// and fail with the same error.
func TestCompactBatches(t *testing.T) {
	for seed := range uint64(200) {
		s := randomSource(seed)
		for g := range uint64(6) {
			s.gs[10+g] = randomSource(seed*7 + g).gs[1]
		}
		srcs := []Source{s, randomSource(seed + 500)}
		if seed%3 == 0 {
			srcs[1] = mutate(randomSource(seed+500), seed)
		}
		file := func(batch int) ([]byte, error) {
			tw, err := compactBatched(srcs, 2, batch)
			if err != nil {
				return nil, err
			}
			var buf bytes.Buffer
			if err := tw.Write(&buf); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes(), nil
		}
		one, oneErr := file(1)
		for _, batch := range []int{2, 3, maxBatch} {
			got, err := file(batch)
			if fmt.Sprint(err) != fmt.Sprint(oneErr) || !bytes.Equal(got, one) {
				t.Fatalf("seed %d: batches of %d: %d bytes (%v), one by one %d bytes (%v)", seed, batch, len(got), err, len(one), oneErr)
			}
		}
	}
}

// TestCompactSegmentsDeepUp: a damaged path of a call 2^31 levels up, in
// a segment after the first, is refused with the error of the stream read
// whole, and holds nothing the size of the number it names; a deep
// recursion's path many levels up, and returns down to it, compact as
// they do whole.
func TestCompactSegmentsDeepUp(t *testing.T) {
	bad := &memSource{name: "/p/pathcover.1.wpp", pkgs: testHashes, gs: map[uint64][]profile.WPPEvent{1: {
		{Kind: profile.WPPStart}, {Kind: profile.WPPEnter, Pkg: 1, Func: 1}, {Kind: profile.WPPPath, Path: 1},
		{Kind: profile.WPPPath, Up: 1 << 31, Path: 2}, {Kind: profile.WPPReturn},
	}}}
	_, wantErr := compactWith([]Source{bad}, 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := compactWith([]Source{segmented{bad, 1}}, 2)
	runtime.ReadMemStats(&after)
	if wantErr == nil || fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("error %v, whole: %v", err, wantErr)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Fatalf("the segments allocated %d bytes", grown)
	}

	// 3,000 calls deep, then a path of the outermost, then returns.
	deep := []profile.WPPEvent{{Kind: profile.WPPStart}}
	for i := range 3000 {
		deep = append(deep, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1, Func: uint32(i % 7)}, profile.WPPEvent{Kind: profile.WPPPath, Path: uint64(i % 3)})
	}
	deep = append(deep, profile.WPPEvent{Kind: profile.WPPPath, Up: 2999, Path: 5})
	for i := range 3000 {
		deep = append(deep, profile.WPPEvent{Kind: profile.WPPPath, Path: uint64(i % 2)}, profile.WPPEvent{Kind: profile.WPPReturn})
		if i == 1500 {
			deep = append(deep, profile.WPPEvent{Kind: profile.WPPPath, Up: 1400, Path: 6})
		}
	}
	s := &memSource{name: "/p/pathcover.2.wpp", pkgs: testHashes, gs: map[uint64][]profile.WPPEvent{1: deep}}
	want, err := compactWith([]Source{s}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 7, 6001, 6003} {
		got, err := compactWith([]Source{segmented{s, n}}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(expandAll(t, got), expandAll(t, want)) || !slices.Equal(nodeSignatures(got), nodeSignatures(want)) {
			t.Fatalf("segments of %d events: the TWPPs differ", n)
		}
	}
}
