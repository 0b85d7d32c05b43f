package wet

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/query/wet/bidi"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/spill"
	"github.com/pathcover/pathcover/profile"
)

// memSource is a recording held in memory.
type memSource struct {
	name string
	h    profile.WPPHeader
	pkgs map[uint32]string
	gs   map[uint64][]profile.WPPEvent
}

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

// randomRecording makes a process's goroutines of random events of every
// kind: nested calls, paths (of calls below too), values of several
// words, memory accesses, spawns, and calls left open.
// endOf is how the recording named name ended: whole, or cut short by
// the size limit, a full disk, or a kill (from the name, so that the
// recordings' events stay those of their seeds).
func endOf(name string) profile.WPPHeader {
	k := 0
	for _, c := range name {
		k += int(c)
	}
	h := profile.WPPHeader{Limit: 1 << 30, Ended: k%5 != 0}
	switch k % 4 {
	case 0:
		h.LimitReached = true
	case 1:
		h.WriteFailed, h.WriteErrno = true, 28
	}
	return h
}

func randomRecording(r *rand.Rand, name string) *memSource {
	s := &memSource{name: name, h: endOf(name), pkgs: map[uint32]string{1: strings.Repeat("ab", 16), 2: strings.Repeat("cd", 16)}, gs: make(map[uint64][]profile.WPPEvent)}
	var seq uint64
	for g := range uint64(1 + r.IntN(4)) {
		evs := []profile.WPPEvent{{Kind: profile.WPPStart, Parent: r.Uint64N(4), Spawn: r.Uint64N(3)}}
		depth := 0
		for range r.IntN(400) {
			switch k := r.IntN(12); {
			case k < 3 || depth == 0:
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: uint32(1 + r.IntN(2)), Func: uint32(r.IntN(6))})
				depth++
			case k < 6:
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Path: r.Uint64N(9)})
			case k == 6 && depth > 1:
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Up: uint32(1 + r.IntN(depth-1)), Path: r.Uint64N(5)})
			case k == 7:
				site := uint32(r.IntN(4))
				for part := range 1 + int(site)%3 { // a site's values have one number of words
					evs = append(evs, profile.WPPEvent{Kind: profile.WPPValue, Site: site, Part: uint8(part), Value: r.Uint64N(1 << (8 * (part + 1)))})
				}
			case k == 8:
				d := r.Uint64N(3)
				seq += d
				e := profile.WPPEvent{Kind: profile.WPPMemory, Stmt: uint32(r.IntN(5)), Access: profile.WPPAccess(r.IntN(6)), Seq: d, Addr: 4096 + 8*r.Uint64N(16), Size: 8, Flags: uint8(r.IntN(2))}
				if e.Access == profile.WPPMapRead || e.Access == profile.WPPMapWrite {
					e.Size = (1 + r.Uint64N(5)) * 0x9e3779b97f4a7c15 // a key's hash: 64 bits
				}
				evs = append(evs, e)
			case k == 9:
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPSpawn, Spawn: r.Uint64N(100)})
			default:
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
				depth--
			}
		}
		s.gs[10*g+1] = evs
	}
	return s
}

// rawTimes gives each path event of a goroutine its timestamp, from t,
// and each value's first word and each memory event the timestamp of the
// next path that its call completes (found by searching forwards, at the
// same depth); one whose call completes no path after it is an orphan
// (it has the goroutine's next timestamp, or its end).
func rawTimes(evs []profile.WPPEvent, t uint64) (times []uint64, orphan []bool, end uint64) {
	times = make([]uint64, len(evs))
	orphan = make([]bool, len(evs))
	pathT := make([]uint64, len(evs))
	for i, e := range evs {
		if e.Kind == profile.WPPPath {
			pathT[i] = t
			times[i] = t
			t++
		}
	}
	for i, e := range evs {
		if e.Kind != profile.WPPValue && e.Kind != profile.WPPMemory {
			continue
		}
		times[i], orphan[i] = t, true // the goroutine's end, unless found below
		depth := 0
	search:
		for j := i + 1; j < len(evs); j++ {
			switch evs[j].Kind {
			case profile.WPPEnter:
				depth++
			case profile.WPPReturn:
				if depth == 0 {
					times[i] = t // the call returned first: the next timestamp after
					for k := j; k < len(evs); k++ {
						if evs[k].Kind == profile.WPPPath {
							times[i] = pathT[k]
							break
						}
					}
					break search
				}
				depth--
			case profile.WPPPath:
				if depth == int(evs[j].Up) {
					times[i], orphan[i] = pathT[j], false
					break search
				}
			}
		}
	}
	return times, orphan, t
}

// TestBuild builds WETs of random recordings and checks every label and
// every trace, walked both ways and through the file format, against the
// recordings themselves.
func TestBuild(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for seed := range 30 {
		src := randomRecording(r, fmt.Sprintf("p%d", seed))
		w, err := Build(nil, []wpp.Source{src}, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var buf bytes.Buffer
		if err := w.Write(&buf); err != nil {
			t.Fatal(err)
		}
		read, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("seed %d: reading it back: %v", seed, err)
		}
		for _, x := range []*WET{w, read} {
			checkWET(t, seed, src, x)
			// Which recordings cover only part of their run, and why.
			var cut []string
			for _, why := range src.h.Cut() {
				cut = append(cut, src.name+": "+why)
			}
			if !reflect.DeepEqual(x.Cut(), cut) {
				t.Fatalf("seed %d: Cut() = %q, want %q", seed, x.Cut(), cut)
			}
		}
	}
}

func checkWET(t *testing.T, seed int, src *memSource, w *WET) {
	t.Helper()
	var next uint64
	nodeTimes := make(map[[2]uint64][]uint64) // function index, path → timestamps
	values := make(map[[2]uint64][]Value)     // function, site
	orphans := make(map[[2]uint64][]bool)     // of each value
	accesses := make(map[[3]uint64][]Access)  // function, statement, kind
	for gi, g := range src.Goroutines() {
		evs := src.gs[g]
		times, orphan, end := rawTimes(evs, next)
		gr := w.Goroutines[gi]
		if gr.ID != g || gr.Start != next || gr.End != end {
			t.Fatalf("seed %d: goroutine %d: %+v, want id %d, timestamps [%d, %d)", seed, gi, gr, g, next, end)
		}
		next = end
		// The trace, forwards.
		c, _ := w.Cursor(gi)
		var stack []int
		var seq uint64
		var want []Event
		for i, e := range evs {
			var fn int
			if len(stack) > 0 {
				fn = stack[len(stack)-1]
			}
			switch e.Kind {
			case profile.WPPEnter:
				f := slices.IndexFunc(w.Funcs, func(f Func) bool { return f.Hash == src.pkgs[e.Pkg] && f.Index == e.Func })
				stack = append(stack, f)
				want = append(want, Event{Kind: SymEnter, Func: f})
			case profile.WPPPath:
				f := stack[len(stack)-1-int(e.Up)]
				if e.Up > 0 {
					want = append(want, Event{Kind: SymUp, Up: uint64(e.Up)})
				}
				want = append(want, Event{Kind: SymPath, Func: f, Path: e.Path, T: times[i]})
				nodeTimes[[2]uint64{uint64(f), e.Path}] = append(nodeTimes[[2]uint64{uint64(f), e.Path}], times[i])
			case profile.WPPReturn:
				stack = stack[:len(stack)-1]
				want = append(want, Event{Kind: SymReturn})
			case profile.WPPSpawn:
				want = append(want, Event{Kind: SymSpawn, Spawn: e.Spawn})
			case profile.WPPValue:
				// A value that no path of its call completes is dropped.
				k := [2]uint64{uint64(fn), uint64(e.Site)}
				if e.Part == 0 {
					orphans[k] = append(orphans[k], orphan[i])
					values[k] = append(values[k], Value{T: times[i]})
				}
				v := &values[k][len(values[k])-1]
				v.Words = append(v.Words, e.Value)
			case profile.WPPMemory:
				seq += e.Seq
				k := [3]uint64{uint64(fn), uint64(e.Stmt), uint64(e.Access)}
				a := Access{T: times[i], Seq: seq, Kind: e.Access, Addr: e.Addr, Size: e.Size, Src: e.Src, Flags: e.Flags}
				if orphan[i] {
					a.Flags |= AccessOrphan
				}
				accesses[k] = append(accesses[k], a)
			}
		}
		var got []Event
		for {
			e, ok := c.Next()
			if !ok {
				break
			}
			e.Pos, e.Node = 0, 0
			got = append(got, e)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: goroutine %d: trace differs (%d events, want %d)", seed, gi, len(got), len(want))
		}
		// Backwards, the same events in reverse.
		for i := len(want) - 1; i >= 0; i-- {
			e, ok := c.Prev()
			e.Pos, e.Node = 0, 0
			if !ok || e != want[i] {
				t.Fatalf("seed %d: goroutine %d: backwards at %d: %+v, want %+v", seed, gi, i, e, want[i])
			}
		}
		// From any path's timestamp.
		for _, e := range want {
			if e.Kind == SymPath && e.T%3 == 0 {
				if err := c.SeekTime(e.T); err != nil {
					t.Fatal(err)
				}
				if got, _ := c.Next(); got.T != e.T || got.Path != e.Path {
					t.Fatalf("seed %d: SeekTime(%d) then Next gave %+v", seed, e.T, got)
				}
			}
		}
	}
	for _, n := range w.Nodes {
		if got, want := n.Times.Values(), nodeTimes[[2]uint64{uint64(n.Func), n.Path}]; !slices.Equal(got, want) {
			t.Fatalf("seed %d: node %d/%d: times %v, want %v", seed, n.Func, n.Path, got, want)
		}
	}
	for k, vs := range values {
		kept := vs[:0]
		for j, v := range vs {
			if !orphans[k][j] {
				kept = append(kept, v)
			}
		}
		values[k] = kept
	}
	for i := range w.Values {
		l := &w.Values[i]
		if got, want := w.ValuesOf(l), values[[2]uint64{uint64(l.Func), uint64(l.Site)}]; len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: values of %d/%d: %v, want %v", seed, l.Func, l.Site, got, want)
		}
	}
	if len(w.Values) != len(values) {
		t.Fatalf("seed %d: %d value sites, want %d", seed, len(w.Values), len(values))
	}
	// A map access's Size is its key's number in the map, where the
	// recording has its hash: the numbers of a map's keys must be 1 to
	// its number of keys, one per hash.
	number := make(map[[2]uint64]uint64) // map, hash → number
	hash := make(map[[2]uint64]uint64)   // map, number → hash
	keys := make(map[uint64]uint64)      // map → its keys
	for i := range w.Accesses {
		l := &w.Accesses[i]
		if l.Access != profile.WPPMapRead && l.Access != profile.WPPMapWrite {
			continue
		}
		want := accesses[[3]uint64{uint64(l.Func), uint64(l.Stmt), uint64(l.Access)}]
		for j, a := range w.AccessesOf(l) {
			if j >= len(want) {
				break // the comparison below fails
			}
			h, m := want[j].Size, a.Addr
			if n, ok := number[[2]uint64{m, h}]; ok && n != a.Size {
				t.Fatalf("seed %d: key %#x of map %#x numbered %d and %d", seed, h, m, n, a.Size)
			}
			if x, ok := hash[[2]uint64{m, a.Size}]; ok && x != h {
				t.Fatalf("seed %d: keys %#x and %#x of map %#x both numbered %d", seed, x, h, m, a.Size)
			}
			if _, ok := number[[2]uint64{m, h}]; !ok {
				keys[m]++
			}
			number[[2]uint64{m, h}], hash[[2]uint64{m, a.Size}] = a.Size, h
			want[j].Size = a.Size
		}
	}
	for k, n := range number {
		if n < 1 || n > keys[k[0]] {
			t.Fatalf("seed %d: a key of map %#x numbered %d of %d", seed, k[0], n, keys[k[0]])
		}
	}
	for i := range w.Accesses {
		l := &w.Accesses[i]
		if got, want := w.AccessesOf(l), accesses[[3]uint64{uint64(l.Func), uint64(l.Stmt), uint64(l.Access)}]; !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: accesses of %d/%d: differ", seed, l.Func, l.Stmt)
		}
	}
	if len(w.Accesses) != len(accesses) {
		t.Fatalf("seed %d: %d access labels, want %d", seed, len(w.Accesses), len(accesses))
	}
}

// FuzzParse reads any bytes as a WET file: an error, or a WET whose every
// label and trace can be walked.
func FuzzParse(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for seed := range 4 {
		w, err := Build(nil, []wpp.Source{randomRecording(r, fmt.Sprint(seed))}, nil)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		w.Write(&buf)
		f.Add(buf.Bytes())
		x, _ := execsForm(f, w)
		buf.Reset()
		x.Write(&buf)
		f.Add(buf.Bytes())
	}
	// Streams written once and referred to (share.go).
	if w, err := Build(nil, []wpp.Source{sharedRecording(20)}, nil); err == nil {
		var buf bytes.Buffer
		w.Write(&buf)
		f.Add(buf.Bytes())
	}
	// Value groups: three sites recorded together, with and without a
	// pattern.
	for _, repeat := range []int{1, 3, 1000} {
		b := newBuilder(f.TempDir(), nil)
		b.w.Funcs = []Func{{Hash: "h"}}
		for site := range uint32(3) {
			var times []uint64
			words := [][]uint64{nil}
			for i := range 50 {
				times = append(times, uint64(2*i))
				words[0] = append(words[0], uint64(site)<<20|uint64(i%repeat))
			}
			b.w.Values = append(b.w.Values, ValueLabel{Site: site})
			b.addValues(times, words)
		}
		b.groupValues(nil, func(int) [][]uint32 { return [][]uint32{{0, 1, 2}} })
		b.cols.Close()
		var buf bytes.Buffer
		b.w.Write(&buf)
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		walkAll(data)
		// Again behind the checksums, which the fuzzer rarely gets past.
		verifySums = false
		defer func() { verifySums = true }()
		walkAll(data)
	})
}

// walkAll parses a WET file and walks its every label and trace.
func walkAll(data []byte) {
	w, err := Parse(data)
	if err != nil {
		return
	}
	for g := range w.Goroutines {
		c, _ := w.Cursor(g)
		for {
			if _, ok := c.Next(); !ok {
				break
			}
		}
	}
	for i := range w.Values {
		w.ValuesOf(&w.Values[i])
	}
	for i := range w.Accesses {
		w.AccessesOf(&w.Accesses[i])
	}
}

// TestBitFlips flips each bit of a WET file, one at a time: Parse says
// the file is corrupt, or reads exactly the WET written, never another.
func TestBitFlips(t *testing.T) {
	w, err := Build(nil, []wpp.Source{randomRecording(rand.New(rand.NewPCG(9, 10)), "flips")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := w.Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	want, err := Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	for bit := range 8 * len(good) {
		bad := bytes.Clone(good)
		bad[bit/8] ^= 1 << (bit % 8)
		if got, err := Parse(bad); err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("bit %d of %d flipped: read another WET with no error", bit, 8*len(good))
		}
	}
}

// TestDiff: a WET matches itself; a recording with one path changed
// diverges there, and one cut short diverges at its end.
func TestDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for seed := range 20 {
		src := randomRecording(r, fmt.Sprint(seed))
		a, err := Build(nil, []wpp.Source{src}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := Diff(&Run{W: a}, &Run{W: a}); err != nil || d != nil {
			t.Fatalf("seed %d: a WET differs from itself: %+v, %v", seed, d, err)
		}
		// Change the path of one path event of the first goroutine.
		g := src.Goroutines()[0]
		evs := src.gs[g]
		var paths []int
		for i, e := range evs {
			if e.Kind == profile.WPPPath {
				paths = append(paths, i)
			}
		}
		if len(paths) == 0 {
			continue
		}
		at := paths[r.IntN(len(paths))]
		changed := &memSource{name: src.name, pkgs: src.pkgs, gs: make(map[uint64][]profile.WPPEvent)}
		for k, v := range src.gs {
			changed.gs[k] = slices.Clone(v)
		}
		changed.gs[g][at].Path += 100
		b, err := Build(nil, []wpp.Source{changed}, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Diff(&Run{W: a}, &Run{W: b})
		if err != nil || d == nil {
			t.Fatalf("seed %d: no divergence found (%v)", seed, err)
		}
		// Events before it in the trace: those of the recording but
		// values, memory accesses and the start (which are not symbols).
		want := 0
		for _, e := range evs[:at] {
			switch e.Kind {
			case profile.WPPValue, profile.WPPMemory, profile.WPPStart:
			default:
				want++
				if e.Kind == profile.WPPPath && e.Up > 0 {
					want++ // its up symbol
				}
			}
		}
		if evs[at].Up > 0 {
			want++ // the up symbols match
		}
		if d.Goroutine != 0 || d.Matched != want || d.A.Event == nil || d.B.Event == nil || d.B.Event.Path != d.A.Event.Path+100 {
			t.Fatalf("seed %d: divergence %+v (A %+v, B %+v), want after %d events", seed, d, d.A.Event, d.B.Event, want)
		}
	}
}

// TestParseGoroutineOrder: a file whose goroutines skip a process, or
// whose timestamps overlap or leave a gap, is refused (readers find a
// timestamp's goroutine by binary search, and a process's by its index).
func TestParseGoroutineOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	var w *WET
	for seed := 0; w == nil || len(w.Goroutines) < 2; seed++ {
		var err error
		if w, err = Build(nil, []wpp.Source{randomRecording(r, fmt.Sprint(seed))}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		change func(g *Goroutine)
	}{
		{"a process skipped", func(g *Goroutine) { g.Process += 2 }},
		{"a huge process", func(g *Goroutine) { g.Process = 1 << 30 }},
		{"timestamps overlap", func(g *Goroutine) { g.Start--; g.End-- }},
		{"timestamps with a gap", func(g *Goroutine) { g.Start++; g.End++ }},
	} {
		bad := *w
		bad.Goroutines = slices.Clone(w.Goroutines)
		c.change(&bad.Goroutines[1])
		var buf bytes.Buffer
		if err := bad.Write(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "goroutine 1") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	var buf bytes.Buffer
	if err := w.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(buf.Bytes()); err != nil {
		t.Errorf("the file as built: %v", err)
	}
}

// execsForm returns a copy of w whose access labels and value groups
// give their timestamps as executions (Execs) where they can: of all the
// nodes of their function, whose timestamps hold every execution of the
// label's statement. The skips are a stream, or a constant when they are
// all the same and not 0.
func execsForm(t testing.TB, w *WET) (*WET, int) {
	t.Helper()
	out := *w
	out.Accesses = slices.Clone(w.Accesses)
	out.ValueGroups = slices.Clone(w.ValueGroups)
	converted := 0
	for i := range out.Accesses {
		a := &out.Accesses[i]
		if e := asExecs(w, a.Func, a.Times.Values()); e != nil {
			a.Times, a.Execs = nil, e
			converted++
		}
	}
	for i := range out.ValueGroups {
		g := &out.ValueGroups[i]
		if e := asExecs(w, g.Func, g.Times.Values()); e != nil {
			g.Times, g.Execs = nil, e
			converted++
		}
	}
	return &out, converted
}

// asExecs returns times as executions of the nodes of function fn, or nil
// if one is not.
func asExecs(w *WET, fn int, times []uint64) *Execs {
	var nodes []int
	var runs []uint64
	for n := range w.Nodes {
		if w.Nodes[n].Func == fn {
			nodes = append(nodes, n)
			runs = append(runs, w.Nodes[n].Times.Values()...)
		}
	}
	slices.Sort(runs)
	skips := make([]uint64, len(times))
	prev := 0
	if len(times) == 0 {
		return nil
	}
	for k, tm := range times {
		j, found := slices.BinarySearch(runs, tm)
		if !found {
			return nil
		}
		d := int64(j - prev)
		skips[k], prev = uint64(d<<1^d>>63), j
	}
	e := &Execs{N: len(times), Nodes: nodes}
	if c, same := constant(skips); same && c != 0 {
		e.SkipConstant = c
	} else {
		e.Skips = bidi.Compress(skips, nil)
	}
	return e
}

// TestExecs: access and value timestamps given as executions of their
// statement read back as the timestamps themselves, through the file.
func TestExecs(t *testing.T) {
	held := spillRuns
	t.Cleanup(func() { spillRuns = held })
	r := rand.New(rand.NewPCG(9, 9))
	total, groups := 0, 0
	for seed := range 20 {
		w, err := Build(nil, []wpp.Source{randomRecording(r, fmt.Sprint(seed))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		x, n := execsForm(t, w)
		total += n
		for _, g := range x.ValueGroups {
			if g.Execs != nil {
				groups++
			}
		}
		var buf bytes.Buffer
		if err := x.Write(&buf); err != nil {
			t.Fatal(err)
		}
		y, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for i := range w.Accesses {
			if got, want := y.AccessesOf(&y.Accesses[i]), w.AccessesOf(&w.Accesses[i]); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, label %d: %v, want %v", seed, i, got, want)
			}
		}
		for i := range w.Values {
			if got, want := y.ValuesOf(&y.Values[i]), w.ValuesOf(&w.Values[i]); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, value site %d: %v, want %v", seed, i, got, want)
			}
		}
		// And with the executions merged into a spilled column, as a
		// label of many is read.
		spillRuns = 0
		cols := spill.NewColumns(t.TempDir())
		for i := range w.Accesses {
			var got []Access
			if err := y.EachAccess(&y.Accesses[i], cols, func(a Access) error { got = append(got, a); return nil }); err != nil {
				t.Fatal(err)
			}
			if want := w.AccessesOf(&w.Accesses[i]); len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, label %d, spilled: %v, want %v", seed, i, got, want)
			}
		}
		for i := range w.Values {
			var got []Value
			if err := y.EachValue(&y.Values[i], cols, func(v Value) error {
				got = append(got, Value{T: v.T, Words: slices.Clone(v.Words)})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if want := w.ValuesOf(&w.Values[i]); len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, value site %d, spilled: %v, want %v", seed, i, got, want)
			}
		}
		cols.Close()
		spillRuns = held
	}
	if total == 0 || groups == 0 {
		t.Fatalf("%d labels could be given as executions, %d of them value groups", total, groups)
	}
}

// TestParseRejects: files that Build never writes, and that would make a
// reader allocate out of proportion to them or read a trace wrongly, are
// refused: an access label's nodes repeated, a value site of no word, an
// up of 0 calls, an up that no path follows.
func TestParseRejects(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	var w *WET
	for seed := 0; w == nil || len(w.ValueGroups) == 0 || len(w.Goroutines) == 0; seed++ {
		var err error
		if w, err = Build(nil, []wpp.Source{randomRecording(r, fmt.Sprint(seed))}, nil); err != nil {
			t.Fatal(err)
		}
	}
	x, n := execsForm(t, w)
	if n == 0 {
		t.Fatal("no label as executions")
	}
	withTrace := func(extra ...uint64) *WET {
		bad := *w
		bad.Goroutines = slices.Clone(w.Goroutines)
		g := &bad.Goroutines[0]
		g.Trace = bidi.Compress(append(g.Trace.Values(), extra...), nil)
		return &bad
	}
	for _, c := range []struct {
		name string
		bad  func() *WET
		msg  string
	}{
		{"nodes repeated", func() *WET {
			bad := *x
			bad.Accesses = slices.Clone(x.Accesses)
			for i := range bad.Accesses {
				if e := bad.Accesses[i].Execs; e != nil {
					e2 := *e
					e2.Nodes = append(slices.Clone(e.Nodes), e.Nodes[len(e.Nodes)-1])
					bad.Accesses[i].Execs = &e2
					break
				}
			}
			return &bad
		}, "nodes out of order"},
		{"no word", func() *WET {
			bad := *w
			bad.ValueGroups = slices.Clone(w.ValueGroups)
			g := &bad.ValueGroups[0]
			g.Words = slices.Clone(g.Words)
			g.Words[0] = nil
			return &bad
		}, "no word"},
		{"an up of 0", func() *WET { return withTrace(SymUp, SymPath) }, "0 calls up"},
		{"an up at the end", func() *WET { return withTrace(1<<3 | SymUp) }, "not followed by a path"},
		{"an up before a return", func() *WET { return withTrace(1<<3|SymUp, SymReturn) }, "not followed by a path"},
	} {
		var buf bytes.Buffer
		if err := c.bad().Write(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(buf.Bytes()); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.msg)
		}
	}
}

// TestSharedStreams: a pointer recorded as a value, the loads at it and at
// it plus 8, and a second copy of the value: the file holds the values
// once and the others as references (share.go), and every label reads
// back as recorded, through the file and by the reader's queries.
func TestSharedStreams(t *testing.T) {
	src := sharedRecording(300)
	w, err := Build(nil, []wpp.Source{src}, nil)
	if err != nil {
		t.Fatal(err)
	}

	deltas := make(map[uint64]int)
	n := 0
	for _, ref := range w.sharedStreams() {
		if ref != nil {
			deltas[ref.delta]++
			n++
		}
	}
	// Site 1 repeats site 0 (each site its own group: no metadata), and
	// so do the loads' addresses, one plus 8; the second load's access
	// numbers are the first's plus 1.
	if n != 4 || deltas[0] != 2 || deltas[8] != 1 || deltas[1] != 1 {
		t.Fatalf("references %v, want 4: two of the same values, one plus 8, one plus 1", deltas)
	}
	var buf bytes.Buffer
	if err := w.Write(&buf); err != nil {
		t.Fatal(err)
	}
	// The references cost the file what the stats say: each stream of
	// 300 random pointers takes hundreds of bytes, stored once.
	if int64(buf.Len()) > w.Stats.Tier2Bytes+200 {
		t.Errorf("a file of %d bytes, for %d bytes of labels", buf.Len(), w.Stats.Tier2Bytes)
	}
	read, err := Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	checkWET(t, 0, src, read)
	// Walking a reference does not move the stream it repeats.
	a, b := &read.Accesses[0], &read.Accesses[1]
	a.Addr.Seek(a.Addr.Len())
	if got := b.Addr.Values(); got[0] != a.Addr.Values()[0]+8 {
		t.Errorf("the second load's first address %#x, want the first's plus 8", got[0])
	}
	// The file again, from what was read: the same bytes.
	var again bytes.Buffer
	if err := read.Write(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Errorf("written again: %d bytes, first %d", again.Len(), buf.Len())
	}
}

// TestSharedLimit: references that would repeat a stream out of
// proportion to the file are refused.
func TestSharedLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	vals := make([]uint64, 4000)
	for i := range vals {
		vals[i] = r.Uint64()
	}
	big := bidi.Compress(vals, nil)
	w := &WET{Funcs: []Func{{Hash: "h"}}, Nodes: []Node{{}}}
	w.Goroutines = []Goroutine{{End: 0, Trace: bidi.Compress(nil, nil)}}
	g := ValueGroup{Times: bidi.Compress(make([]uint64, 4000), nil)}
	for range 200 {
		g.Sites = append(g.Sites, uint32(len(g.Sites)))
		g.Words = append(g.Words, []*bidi.Stream{big})
		g.Constant = append(g.Constant, []uint64{0})
	}
	w.ValueGroups = []ValueGroup{g}
	var buf bytes.Buffer
	if err := w.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "references repeat") {
		t.Errorf("200 references to a stream of 32 kB: %v, want an error", err)
	}
}

// sharedRecording is a goroutine of n rounds, each recording a random
// pointer as two values, and loading at it and at it plus 8.
func sharedRecording(n int) *memSource {
	r := rand.New(rand.NewPCG(11, 12))
	evs := []profile.WPPEvent{{Kind: profile.WPPStart}, {Kind: profile.WPPEnter, Pkg: 1}}
	for i := range n {
		p := 0xc000010000 + 16*r.Uint64N(1000) // random: no predictor finds it
		evs = append(evs,
			profile.WPPEvent{Kind: profile.WPPValue, Site: 0, Value: p},
			profile.WPPEvent{Kind: profile.WPPValue, Site: 1, Value: p},
			profile.WPPEvent{Kind: profile.WPPMemory, Stmt: 1, Access: profile.WPPLoad, Seq: 1, Addr: p, Size: 8},
			profile.WPPEvent{Kind: profile.WPPMemory, Stmt: 2, Access: profile.WPPLoad, Seq: 1, Addr: p + 8, Size: 8},
			profile.WPPEvent{Kind: profile.WPPPath, Path: uint64(i % 2)})
	}
	evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
	return &memSource{name: "shared", pkgs: map[uint32]string{1: strings.Repeat("ab", 16)}, gs: map[uint64][]profile.WPPEvent{1: evs}}
}

// constant returns the value of vals if they are all the same, and at
// least one.
func constant(vals []uint64) (uint64, bool) {
	if len(vals) == 0 {
		return 0, false
	}
	for _, v := range vals[1:] {
		if v != vals[0] {
			return 0, false
		}
	}
	return vals[0], true
}

// TestValueWordAcrossGoroutines: a goroutine whose first value event at
// a site is the value's second word (its first was recorded by no one:
// a recording cut or crafted) is an error, not a crash; the goroutine
// before left the site's values written. FuzzLoad in package slice
// found the crash.
func TestValueWordAcrossGoroutines(t *testing.T) {
	pkgs := map[uint32]string{1: strings.Repeat("ab", 16)}
	first := []profile.WPPEvent{{Kind: profile.WPPStart}, {Kind: profile.WPPEnter, Pkg: 1},
		{Kind: profile.WPPValue, Site: 0, Part: 0, Value: 7}, {Kind: profile.WPPValue, Site: 0, Part: 1, Value: 8},
		{Kind: profile.WPPPath, Path: 0}, {Kind: profile.WPPReturn}}
	second := []profile.WPPEvent{{Kind: profile.WPPStart}, {Kind: profile.WPPEnter, Pkg: 1},
		{Kind: profile.WPPValue, Site: 0, Part: 1, Value: 9},
		{Kind: profile.WPPPath, Path: 0}, {Kind: profile.WPPReturn}}
	src := &memSource{name: "words", pkgs: pkgs, gs: map[uint64][]profile.WPPEvent{1: first, 2: second}}
	_, err := Build(nil, []wpp.Source{src}, nil)
	if err == nil || !strings.Contains(err.Error(), "without its word 0") {
		t.Fatalf("Build: %v, want an error naming the word missing", err)
	}
}
