package wet

import (
	"fmt"
	"slices"
	"sort"

	"github.com/pathcover/pathcover/internal/query/wet/bidi"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/profile"
)

// An Event is one symbol of a goroutine's trace, decoded: Kind is one of
// the Sym constants.
type Event struct {
	Kind  int
	Pos   int    // its position in the goroutine's trace
	Func  int    // enter; path: the function of the path's node
	Node  int    // path
	Path  uint64 // path: the Ball-Larus id
	T     uint64 // path: its timestamp
	Up    uint64 // up: how many calls below the current one
	Spawn uint64 // spawn
}

// A Cursor walks a goroutine's trace both ways, knowing the timestamp of
// the next path. It has its own copy of the trace's stream, so cursors
// walk apart.
type Cursor struct {
	w     *WET
	g     int
	trace *bidi.Stream
	t     uint64 // the timestamp of the next path forwards
}

// Cursor returns a cursor at the start of goroutine g's trace.
func (w *WET) Cursor(g int) (*Cursor, error) {
	if g < 0 || g >= len(w.Goroutines) {
		return nil, fmt.Errorf("no goroutine %d (the WET has %d)", g, len(w.Goroutines))
	}
	gr := &w.Goroutines[g]
	tr := gr.Trace.Clone()
	tr.Seek(0)
	return &Cursor{w: w, g: g, trace: tr, t: gr.Start}, nil
}

// Pos returns the cursor's position in the trace.
func (c *Cursor) Pos() int { return c.trace.Pos() }

func (c *Cursor) decode(sym uint64, pos int) Event {
	e := Event{Kind: int(sym & 7), Pos: pos}
	switch e.Kind {
	case SymPath:
		e.Node = int(sym >> 3)
		n := c.w.Nodes[e.Node]
		e.Func, e.Path = n.Func, n.Path
	case SymEnter:
		e.Func = int(sym >> 3)
	case SymSpawn:
		e.Spawn = sym >> 3
	case SymUp:
		e.Up = sym >> 3
	}
	return e
}

// Next returns the event at the cursor and moves past it; false at the
// end.
func (c *Cursor) Next() (Event, bool) {
	s := c.trace
	pos := s.Pos()
	sym, ok := s.Next()
	if !ok {
		return Event{}, false
	}
	e := c.decode(sym, pos)
	if e.Kind == SymPath {
		e.T = c.t
		c.t++
	}
	return e, true
}

// Prev moves the cursor back one event and returns it; false at the
// start.
func (c *Cursor) Prev() (Event, bool) {
	s := c.trace
	sym, ok := s.Prev()
	if !ok {
		return Event{}, false
	}
	e := c.decode(sym, s.Pos())
	if e.Kind == SymPath {
		c.t--
		e.T = c.t
	}
	return e, true
}

// SeekTime moves the cursor to the path of timestamp t, which the
// goroutine must have: Next then returns it.
func (c *Cursor) SeekTime(t uint64) error {
	g := &c.w.Goroutines[c.g]
	if t < g.Start || t >= g.End {
		return fmt.Errorf("goroutine %d has the timestamps [%d, %d), not %d", c.g, g.Start, g.End, t)
	}
	for c.t > t {
		c.Prev()
	}
	for {
		pos := c.trace.Pos()
		e, ok := c.Next()
		if !ok {
			return fmt.Errorf("timestamp %d not in goroutine %d's trace", t, c.g)
		}
		if e.Kind == SymPath && e.T == t {
			c.trace.Seek(pos)
			c.t = t
			return nil
		}
	}
}

// Goroutine returns the index of the goroutine whose paths include
// timestamp t.
func (w *WET) Goroutine(t uint64) (int, bool) {
	i := sort.Search(len(w.Goroutines), func(i int) bool { return w.Goroutines[i].End > t })
	if i < len(w.Goroutines) && w.Goroutines[i].Start <= t {
		return i, true
	}
	return 0, false
}

// A Value is one value recorded at a site: the timestamp of the path it
// was recorded in, and its words.
type Value struct {
	T     uint64
	Words []uint64
}

// ValuesOf returns the values of value site l, in the order recorded.
func (w *WET) ValuesOf(l *ValueLabel) []Value {
	out := make([]Value, 0, w.ValueGroups[l.Group].count())
	w.EachValue(l, nil, func(v Value) error {
		out = append(out, Value{T: v.T, Words: slices.Clone(v.Words)})
		return nil
	})
	return out
}

// An Access is one access to memory by a statement.
type Access struct {
	T, Seq          uint64
	Kind            profile.WPPAccess
	Addr, Size, Src uint64
	Flags           uint8
}

// AccessesOf returns the accesses of label l, in the order made.
func (w *WET) AccessesOf(l *AccessLabel) []Access {
	out := make([]Access, 0, l.count())
	w.EachAccess(l, nil, func(a Access) error {
		out = append(out, a)
		return nil
	})
	return out
}

// A Writer is the access that last wrote a byte before another access:
// its label and the access.
type Writer struct {
	Label  *AccessLabel
	Access Access
}

// LastWriter returns the last access of process p, before the access
// numbered seq, that wrote the byte at addr (a distance below the stack's
// top, of goroutine g, if stack): a store, an update, a copy into it, or
// an allocation. Map entries and channels are not bytes (LastMapWrite).
func (w *WET) LastWriter(p int, addr uint64, stack bool, g int, seq uint64) (Writer, bool) {
	return w.last(p, seq, func(l *AccessLabel) bool {
		return l.Access == profile.WPPStore || l.Access == profile.WPPUpdate || l.Access == profile.WPPCopy
	}, func(a Access, ag int) bool {
		return (a.Flags&profile.WPPStackAddr != 0) == stack && covers(a.Addr, a.Size, addr, stack) && (!stack || ag == g)
	})
}

// LastMapWrite returns the last access of process p, before the access
// numbered seq, that set or deleted the key numbered key (AccessLabel) of
// the map at m (a distance below the stack's top, of goroutine g, if
// stack).
func (w *WET) LastMapWrite(p int, m, key uint64, stack bool, g int, seq uint64) (Writer, bool) {
	return w.last(p, seq, func(l *AccessLabel) bool { return l.Access == profile.WPPMapWrite },
		func(a Access, ag int) bool {
			return a.Addr == m && a.Size == key && (a.Flags&profile.WPPStackAddr != 0) == stack && (!stack || ag == g)
		})
}

// last returns the last access of process p before the access numbered
// seq of the labels that label accepts that access accepts (given its
// goroutine).
func (w *WET) last(p int, seq uint64, label func(*AccessLabel) bool, access func(a Access, g int) bool) (Writer, bool) {
	var best Writer
	found := false
	for i := range w.Accesses {
		l := &w.Accesses[i]
		if !label(l) {
			continue
		}
		w.EachAccess(l, nil, func(a Access) error {
			if a.Seq >= seq || (found && a.Seq <= best.Access.Seq) {
				return nil
			}
			ag, ok := w.Goroutine(a.T)
			if !ok || w.Goroutines[ag].Process != p || !access(a, ag) {
				return nil
			}
			best, found = Writer{l, a}, true
			return nil
		})
	}
	return best, found
}

// covers reports whether an access at addr of size bytes covers the byte
// at q. On the stack both are distances below the top: the access covers
// the distances (addr-size, addr].
func covers(addr, size, q uint64, stack bool) bool {
	if stack {
		return q <= addr && addr-q < size
	}
	return q >= addr && q-addr < size
}

// check reports whether e's skips index executions 0 to execs-1 only,
// which execTimes needs.
func (e *Execs) check(execs int) error {
	var skips []uint64
	if e.Skips != nil {
		skips = e.Skips.Values()
	}
	j := 0
	for i := range e.N {
		s := e.SkipConstant
		if skips != nil {
			s = skips[i]
		}
		j += int(int64(s>>1) ^ -int64(s&1))
		if j < 0 || j >= execs {
			return fmt.Errorf("entry %d at execution %d of %d", i, j, execs)
		}
	}
	return nil
}

// TestGoroutines returns the goroutines (their indexes in w.Goroutines)
// that ran test name or a test under it (name/...), and those they
// started, directly or not, as the recording's test chunks say. It
// fails, naming the tests recorded, if none ran test name.
func (w *WET) TestGoroutines(name string) (map[int]bool, error) {
	in := make(map[int]bool)
	var all [][]profile.WPPTest
	for pi, p := range w.Processes {
		all = append(all, p.Tests)
		children := make(map[uint64][]uint64)
		for _, g := range w.Goroutines {
			if g.Process == pi && g.Parent != 0 {
				children[g.Parent] = append(children[g.Parent], g.ID)
			}
		}
		ids := wpp.TestClosure(p.Tests, name, children)
		for gi, g := range w.Goroutines {
			if g.Process == pi && ids[g.ID] {
				in[gi] = true
			}
		}
	}
	if len(in) == 0 {
		return nil, wpp.NoSuchTest(name, all)
	}
	return in, nil
}

// TestGoroutine returns the goroutine (its index in w.Goroutines) that
// ran test name itself, the first if several processes ran it.
func (w *WET) TestGoroutine(name string) (int, error) {
	var all [][]profile.WPPTest
	for pi, p := range w.Processes {
		all = append(all, p.Tests)
		for _, t := range p.Tests {
			if t.Name != name {
				continue
			}
			for gi, g := range w.Goroutines {
				if g.Process == pi && g.ID == t.Goroutine {
					return gi, nil
				}
			}
		}
	}
	return 0, wpp.NoSuchTest(name, all)
}
