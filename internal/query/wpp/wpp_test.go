package wpp

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pathcover/pathcover/profile"
)

// memSource is a recording in memory.
type memSource struct {
	name  string
	h     profile.WPPHeader
	pkgs  map[uint32]string
	gs    map[uint64][]profile.WPPEvent
	tests []profile.WPPTest
}

func (s *memSource) TestRuns() []profile.WPPTest { return s.tests }

func (s *memSource) Header() profile.WPPHeader   { return s.h }
func (s *memSource) Name() string                { return s.name }
func (s *memSource) Packages() map[uint32]string { return s.pkgs }
func (s *memSource) Goroutines() []uint64 {
	var ids []uint64
	for g := range s.gs {
		ids = append(ids, g)
	}
	slices.Sort(ids)
	return ids
}
func (s *memSource) Events(g uint64, fn func(*profile.WPPEvent) error) error {
	for _, e := range s.gs[g] {
		if err := fn(&e); err != nil {
			return err
		}
	}
	return nil
}

var testHashes = map[uint32]string{1: strings.Repeat("ab", 16), 2: strings.Repeat("cd", 16)}

// randomSource makes a recording from seed as rt writes them: a start
// event first, calls nested, paths of the current call and of callers
// below it, spawns, loops that repeat paths and calls (so that traces and
// subtrees repeat), calls left open, and sometimes a stop.
func randomSource(seed uint64) *memSource {
	r := rand.New(rand.NewPCG(seed, 3))
	s := &memSource{name: fmt.Sprintf("/p/pathcover.%d.wpp", seed), h: profile.WPPHeader{PID: seed, Start: time.Unix(0, int64(seed)*1000), LimitReached: seed%5 == 0, WriteFailed: seed%7 == 0, Ended: seed%3 != 0, Limit: seed << 20}, pkgs: testHashes, gs: make(map[uint64][]profile.WPPEvent)}
	if s.h.WriteFailed {
		s.h.WriteErrno = 28 // ENOSPC
	}
	for g := range 1 + r.IntN(3) {
		evs := []profile.WPPEvent{{Kind: profile.WPPStart, Parent: uint64(g), Spawn: r.Uint64N(3)}}
		var gen func(depth int)
		gen = func(depth int) {
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: uint32(1 + r.IntN(2)), Func: uint32(r.IntN(6))})
			for range r.IntN(8) {
				switch k := r.IntN(10); {
				case k < 5:
					p := uint64(r.IntN(4))
					for range 1 + r.IntN(3) {
						evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Path: p})
					}
				case k < 8 && depth < 4:
					gen(depth + 1)
				case k == 8:
					evs = append(evs, profile.WPPEvent{Kind: profile.WPPSpawn, Spawn: r.Uint64N(1000)})
				case depth > 0:
					evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Up: uint32(1 + r.IntN(depth)), Path: uint64(r.IntN(3))})
				}
			}
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
		}
		for range 1 + r.IntN(4) {
			gen(0)
		}
		if r.IntN(3) == 0 {
			// Cut the stream short: calls left open, perhaps a stop.
			evs = evs[:1+r.IntN(len(evs))]
			if r.IntN(2) == 0 {
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPStop})
			}
		}
		s.gs[uint64(g+1)] = evs
	}
	// Tests on some goroutines (from a generator of their own, so that
	// the events of a seed stay what they were).
	rt := rand.New(rand.NewPCG(seed, 5))
	for g := range uint64(len(s.gs)) {
		if rt.IntN(2) == 0 {
			t := []profile.WPPTest{{Name: "TestA"}, {Name: "TestA/x", Parent: "TestA"}, {Name: "TestB"}}[rt.IntN(3)]
			t.Goroutine, t.Ended = g+1, rt.IntN(4) != 0
			s.tests = append(s.tests, t)
		}
	}
	return s
}

// expandAll expands every process of t into streams per goroutine.
func expandAll(t *testing.T, tw *TWPP) []map[uint64][]profile.WPPEvent {
	t.Helper()
	var out []map[uint64][]profile.WPPEvent
	for _, p := range tw.Processes {
		gs := make(map[uint64][]profile.WPPEvent)
		err := tw.Expand(p, func(g *Goroutine, e profile.WPPEvent) error {
			gs[g.ID] = append(gs[g.ID], e)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", p.File, err)
		}
		out = append(out, gs)
	}
	return out
}

// roundTrip compacts sources, writes, reads back, expands, and compares
// with the input.
func roundTrip(t *testing.T, sources []*memSource) *TWPP {
	t.Helper()
	var src []Source
	for _, s := range sources {
		src = append(src, s)
	}
	return roundTripSources(t, src, sources)
}

// roundTripSources is roundTrip of src, whose recordings are sources.
func roundTripSources(t *testing.T, src []Source, sources []*memSource) *TWPP {
	t.Helper()
	tw, err := Compact(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tw.Write(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := NewFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if h, tr, c := f.Sizes(); h+tr+c != int64(buf.Len()) {
		t.Fatalf("header %d, traces %d, calls %d bytes: not the file's %d", h, tr, c, buf.Len())
	}
	back, err := f.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// The header alone says which recordings are cut short, and why.
	var cut []string
	for _, s := range sources {
		for _, why := range s.h.Cut() {
			cut = append(cut, filepath.Base(s.name)+": "+why)
		}
	}
	if !reflect.DeepEqual(f.Cut(), cut) || !reflect.DeepEqual(back.Cut(), cut) {
		t.Fatalf("Cut() = %q from the header, %q from the calls, want %q", f.Cut(), back.Cut(), cut)
	}
	for _, tw := range []*TWPP{tw, back} {
		got := expandAll(t, tw)
		for i, s := range sources {
			if !reflect.DeepEqual(got[i], s.gs) {
				t.Fatalf("%s: expanded events differ from the recording", s.name)
			}
			p := tw.Processes[i]
			if p.PID != s.h.PID || !p.Start.Equal(s.h.Start) || !reflect.DeepEqual(p.Cut(), s.h.Cut()) || !reflect.DeepEqual(p.Packages, s.pkgs) || !reflect.DeepEqual(p.Tests, s.tests) {
				t.Fatalf("process %+v, header %+v", p, s.h)
			}
		}
	}
	// One function's section alone gives its traces.
	for _, k := range f.Funcs() {
		fn, err := f.ReadFunc(k)
		if err != nil {
			t.Fatal(err)
		}
		if want := tw.Func(k); !reflect.DeepEqual(tracesOf(fn), tracesOf(want)) {
			t.Fatalf("%s: ReadFunc differs", k)
		}
	}
	return tw
}

func tracesOf(f *Func) []Trace {
	var out []Trace
	for _, tr := range f.Traces {
		out = append(out, Trace{Paths: tr.Paths, Calls: tr.Calls}) // not Compact's encoding
	}
	return out
}

// TestRoundTrip: raw → TWPP → file → TWPP → raw is exact on random
// recordings.
func TestRoundTrip(t *testing.T) {
	for seed := range uint64(200) {
		roundTrip(t, []*memSource{randomSource(seed), randomSource(seed + 1000)})
	}
}

// FuzzRoundTrip is TestRoundTrip on the fuzzer's seeds.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		roundTrip(t, []*memSource{randomSource(a), randomSource(b)})
	})
}

// TestTraceCounts checks the traces against a count made on the raw
// streams by another method: each call's paths collected with an explicit
// stack.
func TestTraceCounts(t *testing.T) {
	for seed := range uint64(100) {
		s := randomSource(seed)
		tw := roundTrip(t, []*memSource{s})
		var streams [][]profile.WPPEvent
		for _, evs := range s.gs {
			streams = append(streams, evs)
		}
		want := callCounts(streams)
		got := make(map[string]uint64)
		for _, f := range tw.Funcs {
			for _, tr := range f.Traces {
				var ps []string
				for _, p := range tr.Paths {
					ps = append(ps, fmt.Sprint(p))
				}
				got[f.Key.String()+"|"+strings.Join(ps, ",")] += tr.Calls
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: traces %v, want %v", seed, got, want)
		}
	}
}

// callCounts counts, on raw streams, the calls of each function with each
// trace (func|paths → calls), collecting each call's paths with an
// explicit stack: not as Compact does.
func callCounts(streams [][]profile.WPPEvent) map[string]uint64 {
	want := make(map[string]uint64)
	for _, evs := range streams {
		type call struct {
			key   string
			paths []string
		}
		var stack []*call
		flush := func(c *call) { want[c.key+"|"+strings.Join(c.paths, ",")]++ }
		for _, e := range evs {
			switch e.Kind {
			case profile.WPPEnter:
				stack = append(stack, &call{key: fmt.Sprintf("%s/%d", testHashes[e.Pkg], e.Func)})
			case profile.WPPPath:
				c := stack[len(stack)-1-int(e.Up)]
				c.paths = append(c.paths, fmt.Sprint(e.Path))
			case profile.WPPReturn:
				flush(stack[len(stack)-1])
				stack = stack[:len(stack)-1]
			}
		}
		for _, c := range stack {
			flush(c)
		}
	}
	return want
}

// TestTracesIn checks the traces of one test's goroutines (TracesIn) on
// random recordings against callCounts of the streams of the goroutines
// that ran the test, or a subtest, and of those they started, found by
// following the streams' start events.
func TestTracesIn(t *testing.T) {
	scoped := 0
	for seed := range uint64(150) {
		s := randomSource(seed)
		tw := roundTrip(t, []*memSource{s})
		for _, name := range []string{"TestA", "TestA/x", "TestB"} {
			in := testGoroutines(s, name)
			gs, err := tw.TestGoroutines(name)
			if len(in) == 0 {
				if err == nil {
					t.Fatalf("seed %d: %s ran in no goroutine, TestGoroutines gives %v", seed, name, gs)
				}
				continue
			}
			if err != nil {
				t.Fatalf("seed %d: %s: %v", seed, name, err)
			}
			var streams [][]profile.WPPEvent
			for g := range in {
				streams = append(streams, s.gs[g])
			}
			want := callCounts(streams)
			got := make(map[string]uint64)
			for _, f := range tw.Funcs {
				ts, err := tw.TracesIn(f.Key, gs, "", nil)
				if err != nil {
					t.Fatal(err)
				}
				if ts == nil {
					continue
				}
				for _, tr := range ts.Traces {
					var ps []string
					for _, p := range tr.Paths {
						ps = append(ps, fmt.Sprint(p))
					}
					got[f.Key.String()+"|"+strings.Join(ps, ",")] += tr.Calls
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, %s (goroutines %v): traces %v, want %v", seed, name, in, got, want)
			}
			scoped++
		}
	}
	if scoped < 100 {
		t.Fatalf("only %d recordings ran a test", scoped)
	}
}

// TestPaperDBB uses the paper's example (Figs. 1-3), with basic blocks as
// the symbols: main's trace and f's two distinct traces, and their
// dictionaries.
func TestPaperDBB(t *testing.T) {
	for _, c := range []struct {
		trace string
		dict  []string
		seq   string
	}{
		{"1.2.3.4.2.3.4.2.3.4.2.3.4.2.3.4.6", []string{"1", "2.3.4", "6"}, "0.1.1.1.1.1.2"},
		{"1.2.3.4.5.6.2.3.4.5.6.2.3.4.5.6.10", []string{"1", "2.3.4.5.6", "10"}, "0.1.1.1.2"},
		{"1.2.7.8.9.6.2.7.8.9.6.2.7.8.9.6.10", []string{"1", "2.7.8.9.6", "10"}, "0.1.1.1.2"},
	} {
		dict, seq := new(traceEncoder).dbbs(parseDots(c.trace))
		var gotDict []string
		for _, d := range dict {
			gotDict = append(gotDict, dots(d))
		}
		var s []uint64
		for _, d := range seq {
			s = append(s, uint64(d))
		}
		if !reflect.DeepEqual(gotDict, c.dict) || dots(s) != c.seq {
			t.Errorf("%s: dictionary %v, trace %s; want %v, %s", c.trace, gotDict, dots(s), c.dict, c.seq)
		}
	}
}

// toSeries writes increasing positions as series, as the timestamped
// form makes them (series.add).
func toSeries(pos []uint64) []series {
	var out []series
	var cur series
	for _, p := range pos {
		var done bool
		if cur, done = cur.add(p); done {
			out = append(out, cur.flush())
			cur = series{lo: p, n: 1}
		}
	}
	if cur.n > 0 {
		out = append(out, cur.flush())
	}
	return out
}

// TestPaperTimestamps uses Fig. 10: the WPP of one call, one statement a
// symbol, and each statement's timestamps (the paper's count from 1).
func TestPaperTimestamps(t *testing.T) {
	wpp := parseDots("1.2.3.4.5.6.7.9.10.11.12.4.5.6.8.9.10.11.12.4.5.6.7.9.10.11.12.4.13.14")
	want := map[uint64]string{1: "1", 2: "2", 3: "3", 4: "4:28:8", 5: "5:21:8", 6: "6:22:8", 7: "7 23", 8: "15", 9: "8:24:8", 10: "9:25:8", 11: "10:26:8", 12: "11:27:8", 13: "29", 14: "30"}
	pos := make(map[uint64][]uint64)
	for i, s := range wpp {
		pos[s] = append(pos[s], uint64(i+1))
	}
	for s, w := range want {
		var parts []string
		for _, se := range toSeries(pos[s]) {
			switch {
			case se.n == 1:
				parts = append(parts, fmt.Sprint(se.lo))
			case se.n == 2:
				parts = append(parts, fmt.Sprint(se.lo), fmt.Sprint(se.lo+se.stride))
			default:
				parts = append(parts, fmt.Sprintf("%d:%d:%d", se.lo, se.lo+(se.n-1)*se.stride, se.stride))
			}
		}
		if got := strings.Join(parts, " "); got != w {
			t.Errorf("statement %d: %s, want %s", s, got, w)
		}
	}
}

// FuzzDBB checks the dictionary's invariants on any trace: it expands back
// to the trace, every chain is followed and preceded as it claims, and the
// chains are maximal.
func FuzzDBB(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 2, 3, 4, 6})
	f.Add([]byte{1, 1, 1, 2, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		trace := make([]uint64, len(b))
		for i, x := range b {
			trace[i] = uint64(x % 8)
		}
		dict, seq := new(traceEncoder).dbbs(trace)
		var back []uint64
		for _, d := range seq {
			back = append(back, dict[d]...)
		}
		if !slices.Equal(back, trace) {
			t.Fatalf("%v: expands to %v", trace, back)
		}
		heads := make(map[uint64]bool)
		for _, d := range dict {
			if heads[d[0]] {
				t.Fatalf("%v: two chains start with %d", trace, d[0])
			}
			heads[d[0]] = true
		}
		// Maximal: no two chains c1, c2 such that c1 is always followed
		// by c2 and c2 always preceded by c1 in seq.
		for i := range int32(len(dict)) {
			follows := map[int32]bool{}
			atEnd := false
			for j, d := range seq {
				if d == i {
					if j+1 == len(seq) {
						atEnd = true
					} else {
						follows[seq[j+1]] = true
					}
				}
			}
			if atEnd || len(follows) != 1 {
				continue
			}
			var next int32
			for k := range follows {
				next = k
			}
			if next == i || seq[0] == next {
				continue
			}
			alone := true
			for j := 1; j < len(seq); j++ {
				if seq[j] == next && seq[j-1] != i {
					alone = false
				}
			}
			if alone {
				t.Fatalf("%v: chains %v and %v could be one (dictionary %v)", trace, dict[i], dict[next], dict)
			}
		}
		// The series of each DBB's positions give back the sequence.
		got := make([]int32, len(seq))
		ss, _ := new(traceEncoder).timestamps(seq, len(dict), -1)
		for d, ss := range ss {
			for _, s := range ss {
				for k := uint64(0); k < s.n; k++ {
					got[s.lo+k*s.stride] = int32(d)
				}
			}
		}
		if !slices.Equal(got, seq) {
			t.Fatalf("timestamps give %v, want %v", got, seq)
		}
	})
}

// FuzzReadTWPP reads any bytes as a TWPP file: an error or a TWPP that
// expands without failing, never a panic.
func FuzzReadTWPP(f *testing.F) {
	// Random recordings, and one whose sections are deflated, with runs,
	// rules, and shared and private nodes.
	for _, s := range []*memSource{randomSource(0), randomSource(1), randomSource(2), loopSource(50, 20)} {
		tw, err := Compact([]Source{s})
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		tw.Write(&buf)
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		queryAll(data)
		// Again behind the checksums, which the fuzzer rarely gets past.
		verifySums = false
		defer func() { verifySums = true }()
		queryAll(data)
	})
}

// queryAll reads a TWPP file from memory and runs every query on it.
func queryAll(data []byte) {
	file, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return
	}
	for _, k := range file.Funcs() {
		file.ReadFunc(k)
	}
	tw, err := file.ReadAll()
	if err != nil {
		return
	}
	for _, p := range tw.Processes {
		tw.Expand(p, func(*Goroutine, profile.WPPEvent) error { return nil })
	}
	tw.Hot(5, 3, nil)
	for id := range CallID(20) {
		tw.Call(id, nil)
	}
}

// TestBitFlips flips each bit of TWPP files, one at a time: the reader
// says the file is corrupt, or reads exactly the TWPP written, never
// another.
func TestBitFlips(t *testing.T) {
	for _, s := range []*memSource{randomSource(3), loopSource(20, 5)} {
		tw, err := Compact([]Source{s})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := tw.Write(&buf); err != nil {
			t.Fatal(err)
		}
		good := buf.Bytes()
		want, err := readBytes(good)
		if err != nil {
			t.Fatal(err)
		}
		for bit := range 8 * len(good) {
			bad := bytes.Clone(good)
			bad[bit/8] ^= 1 << (bit % 8)
			got, err := readBytes(bad)
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("bit %d of %d flipped: read another TWPP with no error", bit, 8*len(good))
			}
		}
	}
}

// TestCall numbers calls in pre-order and checks each call's function,
// trace and callers against a walk of the raw stream.
func TestCall(t *testing.T) {
	for seed := range uint64(50) {
		s := randomSource(seed)
		tw := roundTrip(t, []*memSource{s})
		type call struct {
			fn      string
			paths   []uint64
			callers []CallID
		}
		var calls []*call
		for _, g := range s.Goroutines() {
			var stack []CallID
			for _, e := range s.gs[g] {
				switch e.Kind {
				case profile.WPPEnter:
					calls = append(calls, &call{fn: fmt.Sprintf("%s/%d", testHashes[e.Pkg], e.Func), callers: slices.Clone(stack)})
					stack = append(stack, CallID(len(calls)-1))
				case profile.WPPPath:
					c := calls[stack[len(stack)-1-int(e.Up)]]
					c.paths = append(c.paths, e.Path)
				case profile.WPPReturn:
					stack = stack[:len(stack)-1]
				}
			}
		}
		for id, want := range calls {
			got, err := tw.Call(CallID(id), nil)
			if err != nil {
				t.Fatal(err)
			}
			var callers []CallID
			for _, r := range got.Callers {
				callers = append(callers, r.ID)
			}
			slices.Reverse(callers)
			if got.Func.String() != want.fn || !slices.Equal(got.Paths, want.paths) || !slices.Equal(callers, want.callers) {
				t.Fatalf("seed %d call %d: %s %v %v, want %s %v %v", seed, id, got.Func, got.Paths, callers, want.fn, want.paths, want.callers)
			}
		}
		if _, err := tw.Call(CallID(len(calls)), nil); err == nil {
			t.Errorf("call %d of %d found", len(calls), len(calls))
		}
	}
}

// TestHot checks every sequence Hot counts, within calls and across
// them, against brute force over the raw streams: each call's paths
// collected with an explicit stack, and each goroutine's paths in the
// order they ran, each with the call it belongs to.
func TestHot(t *testing.T) {
	for seed := range uint64(300) {
		checkHot(t, []*memSource{randomSource(seed), randomSource(seed + 1000)}, 2+int(seed%5))
	}
}

// TestHotLoops is TestHot on loops: bodies of a few paths and calls
// repeated, now and then with a round that differs, nested, and with
// paths up, so that Hot's periods (a stream whose positions repeat the
// windows of the last few) start, stop and are counted at every length.
func TestHotLoops(t *testing.T) {
	for seed := range uint64(150) {
		checkHot(t, []*memSource{randomLoops(seed)}, 2+int(seed%6))
	}
}

// randomLoops makes goroutines whose calls loop: each repeats a body of
// 1 to 9 items (paths, calls of one or two paths, paths up, nested
// loops) a random number of times, a round changed now and then.
func randomLoops(seed uint64) *memSource {
	r := rand.New(rand.NewPCG(seed, 11))
	s := &memSource{name: fmt.Sprintf("/p/pathcover.%d.wpp", seed), h: profile.WPPHeader{PID: seed, Start: time.Unix(0, int64(seed)*1000), Ended: true}, pkgs: testHashes, gs: make(map[uint64][]profile.WPPEvent)}
	for g := range 1 + r.IntN(2) {
		evs := []profile.WPPEvent{{Kind: profile.WPPStart, Parent: uint64(g)}}
		var loop func(depth int)
		loop = func(depth int) {
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: uint32(1 + r.IntN(2)), Func: uint32(r.IntN(4))})
			body := make([]int, 1+r.IntN(9))
			for i := range body {
				body[i] = r.IntN(10)
			}
			for range r.IntN(30 >> (2 * depth)) {
				changed := r.IntN(8) == 0
				for i, k := range body {
					if changed && i == 0 {
						k = r.IntN(10)
					}
					switch {
					case k < 4:
						evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Path: uint64(k % 3)})
					case k < 8:
						evs = append(evs, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1, Func: uint32(4 + k%2)})
						for range 1 + k%2 {
							evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Path: uint64(k % 3)})
						}
						if depth > 0 && k == 7 {
							evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Up: 1, Path: 1})
						}
						evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
					case k == 8 && depth < 2:
						loop(depth + 1)
					default:
						evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Path: 2})
					}
				}
			}
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
		}
		for range 1 + r.IntN(3) {
			loop(0)
		}
		s.gs[uint64(g+1)] = evs
	}
	return s
}

// TestHotRoots is TestHot on goroutines of many roots, as a test's loop
// makes calling into the package: a few kinds of root (no path, one, a
// few, a call inside) in repeating orders, so that Hot's contexts of
// roots (acrossRoots) repeat, and reach back over one root or several.
func TestHotRoots(t *testing.T) {
	for seed := range uint64(150) {
		checkHot(t, []*memSource{randomRoots(seed)}, 2+int(seed%6))
	}
}

// randomRoots makes goroutines of up to 400 roots, each one of 1 to 5
// kinds, in a random order or repeating a random pattern of kinds.
func randomRoots(seed uint64) *memSource {
	r := rand.New(rand.NewPCG(seed, 12))
	s := &memSource{name: fmt.Sprintf("/p/pathcover.%d.wpp", seed), h: profile.WPPHeader{PID: seed, Start: time.Unix(0, int64(seed)*1000), Ended: true}, pkgs: testHashes, gs: make(map[uint64][]profile.WPPEvent)}
	type kind struct {
		fn    uint32
		paths []uint64
		inner int // paths before a call inside, or -1
	}
	kinds := make([]kind, 1+r.IntN(5))
	for i := range kinds {
		k := kind{fn: uint32(r.IntN(3)), inner: -1}
		for range r.IntN(4) {
			k.paths = append(k.paths, uint64(r.IntN(3)))
		}
		if r.IntN(4) == 0 {
			k.inner = r.IntN(len(k.paths) + 1)
		}
		kinds[i] = k
	}
	for g := range 1 + r.IntN(2) {
		evs := []profile.WPPEvent{{Kind: profile.WPPStart, Parent: uint64(g)}}
		pattern := make([]int, 1+r.IntN(4))
		for i := range pattern {
			pattern[i] = r.IntN(len(kinds))
		}
		random := r.IntN(3) == 0
		for i := range r.IntN(400) {
			k := kinds[pattern[i%len(pattern)]]
			if random || r.IntN(20) == 0 {
				k = kinds[r.IntN(len(kinds))]
			}
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1, Func: k.fn})
			for j, p := range k.paths {
				if j == k.inner {
					evs = append(evs, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 2, Func: 5}, profile.WPPEvent{Kind: profile.WPPPath, Path: 1}, profile.WPPEvent{Kind: profile.WPPReturn})
				}
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Path: p})
			}
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
		}
		s.gs[uint64(g+1)] = evs
	}
	return s
}

// TestHotLengths: Hot refuses sequences shorter than 2 paths or longer
// than MaxHotLen, whose summaries it would keep for every subtree.
func TestHotLengths(t *testing.T) {
	tw := roundTrip(t, []*memSource{randomSource(4)})
	for _, l := range []int{-1, 0, 1, MaxHotLen + 1, 1 << 40} {
		if _, err := tw.Hot(10, l, nil); err == nil {
			t.Errorf("Hot of sequences of %d paths: no error", l)
		}
	}
	if _, err := tw.Hot(10, MaxHotLen, nil); err != nil {
		t.Errorf("Hot of sequences of %d paths: %v", MaxHotLen, err)
	}
}

// FuzzHot is TestHot on the fuzzer's seeds.
func FuzzHot(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(3))
	f.Fuzz(func(t *testing.T, a, b uint64, maxLen uint8) {
		checkHot(t, []*memSource{randomSource(a), randomSource(b)}, 2+int(maxLen%6))
	})
}

func checkHot(t *testing.T, srcs []*memSource, maxLen int) {
	t.Helper()
	tw := roundTrip(t, srcs)
	hot, err := tw.Hot(1<<30, maxLen, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]uint64)
	for i, h := range hot {
		got[fmt.Sprint(h.Interprocedural, h.Steps)] = h.Count
		if h.Weight != h.Count*uint64(len(h.Steps)) {
			t.Errorf("%v: weight %d, count %d", h.Steps, h.Weight, h.Count)
		}
		if i > 0 && hot[i-1].Weight < h.Weight {
			t.Errorf("%v (weight %d) after one of weight %d", h.Steps, h.Weight, hot[i-1].Weight)
		}
	}
	want := make(map[string]uint64)
	type call struct {
		fn    FuncKey
		paths []uint64
	}
	window := func(steps []HotStep) []HotStep { return slices.Clone(steps) }
	for _, s := range srcs {
		for _, evs := range s.gs {
			var stack []*call
			count := func(c *call) {
				for i := range c.paths {
					for l := 2; l <= maxLen && i+l <= len(c.paths); l++ {
						var steps []HotStep
						for _, p := range c.paths[i : i+l] {
							steps = append(steps, HotStep{Func: c.fn, Path: p})
						}
						want[fmt.Sprint(false, steps)]++
					}
				}
			}
			var run []HotStep // the goroutine's paths in order
			var of []*call    // the call of each
			for _, e := range evs {
				switch e.Kind {
				case profile.WPPEnter:
					stack = append(stack, &call{fn: FuncKey{testHashes[e.Pkg], e.Func}})
				case profile.WPPPath:
					c := stack[len(stack)-1-int(e.Up)]
					c.paths = append(c.paths, e.Path)
					run, of = append(run, HotStep{Func: c.fn, Path: e.Path}), append(of, c)
					for l := 2; l <= maxLen && l <= len(run); l++ {
						calls := of[len(of)-l:]
						if slices.ContainsFunc(calls, func(c *call) bool { return c != calls[0] }) {
							want[fmt.Sprint(true, window(run[len(run)-l:]))]++
						}
					}
				case profile.WPPReturn:
					count(stack[len(stack)-1])
					stack = stack[:len(stack)-1]
				}
			}
			for _, c := range stack {
				count(c)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: got %d, want %d", k, got[k], v)
			}
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: got %d, want none", k, v)
			}
		}
		t.FailNow()
	}
}

func parseDots(s string) []uint64 {
	var out []uint64
	for _, f := range strings.Split(s, ".") {
		var v uint64
		fmt.Sscan(f, &v)
		out = append(out, v)
	}
	return out
}

func dots(s []uint64) string {
	var parts []string
	for _, v := range s {
		parts = append(parts, fmt.Sprint(v))
	}
	return strings.Join(parts, ".")
}

// TestCompactWorkers checks that the goroutines compacted in parallel and
// merged make the same TWPP, byte for byte, as one worker compacting them
// in turn, and that a goroutine's error is the first in order whatever
// the workers.
func TestCompactWorkers(t *testing.T) {
	write := func(srcs []Source, workers int) []byte { return compactedFile(t, srcs, workers) }
	for seed := range uint64(100) {
		srcs := []Source{randomSource(seed), randomSource(seed + 500), randomSource(seed + 1000)}
		one := write(srcs, 1)
		for _, w := range []int{2, 5} {
			if !bytes.Equal(write(srcs, w), one) {
				t.Fatalf("seed %d: %d workers make another TWPP than one", seed, w)
			}
		}
	}
	bad := randomSource(3)
	for g := range bad.gs {
		bad.gs[g] = append(bad.gs[g], profile.WPPEvent{Kind: profile.WPPStart})
	}
	var want string
	for _, w := range []int{1, 2, 5, 0} {
		_, err := compactWith([]Source{randomSource(1), bad}, w)
		if err == nil {
			t.Fatal("a start event after others compacted")
		}
		if w == 1 {
			want = err.Error()
		} else if err.Error() != want {
			t.Errorf("%d workers: %v, want %s", w, err, want)
		}
	}
}

// compactedFile is the TWPP file that workers compacting srcs write.
func compactedFile(t *testing.T, srcs []Source, workers int) []byte {
	t.Helper()
	tw, err := compactWith(srcs, workers)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tw.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestHotBound: Hot stops with an error naming its bound, not with the
// machine swamped, when the windows and contexts it would keep hold
// more paths than maxHotSteps (sort's suite with sequences of 64 paths:
// 24 GB), and counts as before below it.
func TestHotBound(t *testing.T) {
	tw := roundTrip(t, []*memSource{randomLoops(3), randomSource(7)})
	want, err := tw.Hot(1<<30, 6, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { maxHotSteps = n }(maxHotSteps)
	for _, bound := range []int{0, 1, 10, 100} {
		maxHotSteps = bound
		got, err := tw.Hot(10, 6, nil)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d paths", bound)) || !strings.Contains(err.Error(), "-len") {
			t.Errorf("Hot with at most %d paths kept: %v, %d sequences; want an error naming the bound and -len", bound, err, len(got))
		}
	}
	maxHotSteps = 1 << 20
	got, err := tw.Hot(1<<30, 6, nil)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Hot with at most %d paths kept: %v, %d sequences; want %d as with the default bound", maxHotSteps, err, len(got), len(want))
	}
}

// TestBackgroundEncoding: the traces Compact encodes while it compacts
// (Trace.enc) are the bytes Write makes of their paths.
func TestBackgroundEncoding(t *testing.T) {
	background := 0
	for seed := range uint64(40) {
		srcs := []Source{randomLoops(seed), randomSource(seed)}
		tw, err := Compact(srcs)
		if err != nil {
			t.Fatal(err)
		}
		var withEnc, without bytes.Buffer
		if err := tw.Write(&withEnc); err != nil {
			t.Fatal(err)
		}
		for _, f := range tw.Funcs {
			for _, tr := range f.Traces {
				if tr.enc != nil {
					background++
				}
				if (tr.enc != nil) != (len(tr.Paths) >= minBackgroundPaths) {
					t.Fatalf("a trace of %d paths: encoded in the background %v", len(tr.Paths), tr.enc != nil)
				}
				tr.enc = nil
			}
		}
		if err := tw.Write(&without); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(withEnc.Bytes(), without.Bytes()) {
			t.Fatalf("seed %d: the file differs when the traces are encoded in the background", seed)
		}
	}
	if background == 0 {
		t.Fatalf("no trace of %d paths or more: the test checks nothing", minBackgroundPaths)
	}
	t.Logf("%d traces encoded in the background", background)
}

// TestTraceTests checks which tests took each trace (TraceTests) on
// random recordings against the traces of the streams of each top-level
// test's goroutines and those they started (callCounts, as TestTracesIn).
func TestTraceTests(t *testing.T) {
	told := 0
	for seed := range uint64(150) {
		s := randomSource(seed)
		tw := roundTrip(t, []*memSource{s})
		testsOf, err := tw.TraceTests()
		if err != nil {
			t.Fatal(err)
		}
		want := make(map[string][]string) // function|paths: tests
		for _, name := range []string{"TestA", "TestB"} {
			in := testGoroutines(s, name)
			var streams [][]profile.WPPEvent
			for g := range in {
				streams = append(streams, s.gs[g])
			}
			for k := range callCounts(streams) {
				want[k] = append(want[k], name)
			}
		}
		if len(want) > 0 && testsOf == nil {
			t.Fatalf("seed %d: tests ran, TraceTests gives none", seed)
		}
		got := make(map[string][]string)
		for _, f := range tw.Funcs {
			for i, tr := range f.Traces {
				var ps []string
				for _, p := range tr.Paths {
					ps = append(ps, fmt.Sprint(p))
				}
				if testsOf == nil {
					continue
				}
				if names := testsOf(f.Key, i); len(names) > 0 {
					got[f.Key.String()+"|"+strings.Join(ps, ",")] = names
					told++
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: tests of the traces %v, want %v", seed, got, want)
		}
	}
	if told < 100 {
		t.Fatalf("only %d traces were given tests", told)
	}
}

// testGoroutines returns the goroutines of s that ran test name or one
// under it, and those they started, directly or not, found by following
// the streams' start events.
func testGoroutines(s *memSource, name string) map[uint64]bool {
	in := make(map[uint64]bool)
	for _, ts := range s.tests {
		if ts.Name == name || strings.HasPrefix(ts.Name, name+"/") {
			in[ts.Goroutine] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for g, evs := range s.gs {
			if len(evs) > 0 && in[evs[0].Parent] && !in[g] {
				in[g], changed = true, true
			}
		}
	}
	return in
}

// TestWideCalls: calls of more items than a frame's block
// (itemBlock) round-trip, equal ones are one node and ones that differ
// in one item, in the first block or the last, are not; the frames and
// blocks a worker reuses from goroutine to goroutine carry nothing over.
func TestWideCalls(t *testing.T) {
	// wide is a call of function 0 that makes n calls of function 1
	// (path p each), with a spawn and a path up now and then, the
	// item at index odd made different.
	wide := func(n, odd int) []profile.WPPEvent {
		evs := []profile.WPPEvent{{Kind: profile.WPPEnter, Pkg: 1, Func: 0}}
		for i := range n {
			p := uint64(i % 3)
			if i == odd {
				p = 7
			}
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1, Func: 1}, profile.WPPEvent{Kind: profile.WPPPath, Path: p})
			if i%1000 == 999 {
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Up: 1, Path: 2})
			}
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
			if i%777 == 0 {
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPSpawn, Spawn: uint64(i)})
			}
			if i%5 == 0 {
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Path: 1})
			}
		}
		return append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
	}
	n := 2*itemBlock + 123
	g1 := slices.Concat([]profile.WPPEvent{{Kind: profile.WPPStart}}, wide(n, -1), wide(n, -1), wide(n, 5), wide(n, n-1))
	// A goroutine whose wide call is left open, and one after it that
	// makes only short calls, in frames the wide ones used.
	g2 := slices.Concat([]profile.WPPEvent{{Kind: profile.WPPStart}}, wide(n, 17)[:n])
	g3 := []profile.WPPEvent{{Kind: profile.WPPStart}, {Kind: profile.WPPEnter, Pkg: 1, Func: 0}, {Kind: profile.WPPPath, Path: 3}, {Kind: profile.WPPReturn}}
	s := &memSource{name: "/p/pathcover.1.wpp", h: profile.WPPHeader{PID: 1, Start: time.Unix(0, 1000), Ended: true}, pkgs: testHashes, gs: map[uint64][]profile.WPPEvent{1: g1, 2: g2, 3: g3}}
	for _, workers := range []int{1, 2} {
		tw, err := compactWith([]Source{s}, workers)
		if err != nil {
			t.Fatal(err)
		}
		roots := tw.Processes[0].Goroutines[0].Roots
		if len(roots) != 4 || roots[0] != roots[1] || roots[2] == roots[0] || roots[3] == roots[0] || roots[2] == roots[3] {
			t.Fatalf("%d workers: the wide calls' nodes are %v, want the first two the same and the others apart", workers, roots)
		}
		if got := len(tw.Nodes[roots[0]].Items); got <= 2*itemBlock {
			t.Fatalf("%d workers: a wide call has %d items, want more than %d", workers, got, 2*itemBlock)
		}
	}
	roundTrip(t, []*memSource{s})
}

// TestFrameItems: a frame's items, kept in blocks, are equal to exactly
// the slices that hold them in order (Compact compares them only when
// two nodes' hashes are the same, which TestWideCalls cannot arrange).
func TestFrameItems(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var c compactor
	for range 50 {
		f := c.newFrame(0, 0)
		var want []Item
		for range r.IntN(3 * itemBlock) {
			it := Item{At: uint32(r.IntN(4)), Node: int32(r.IntN(4)), Kind: ItemCall}
			c.addItem(f, it)
			want = append(want, it)
		}
		if got := f.cloneItems(); !slices.Equal(got, want) || f.nItems() != len(want) || !f.itemsEqual(want) {
			t.Fatalf("a frame of %d items holds %d, or is not equal to them", len(want), f.nItems())
		}
		if len(want) == 0 {
			continue
		}
		other := slices.Clone(want)
		other[r.IntN(len(other))].At += 10
		if f.itemsEqual(other) || f.itemsEqual(want[:len(want)-1]) || f.itemsEqual(append(slices.Clone(want), want[0])) {
			t.Fatalf("a frame of %d items is equal to other items", len(want))
		}
	}
}
