package wet

import (
	"container/heap"
	"fmt"
	"slices"

	"github.com/pathcover/pathcover/internal/query/wet/bidi"
	"github.com/pathcover/pathcover/internal/spill"
)

// Reading a label whole. AccessesOf and ValuesOf return a label's
// entries as a slice; EachAccess and EachValue walk them one at a time,
// each stream with a cursor of its own, so that a label of hundreds of
// millions of entries is read in the memory of its compressed streams.
// A label whose timestamps are executions of its statement (Execs) reads
// them from the statement's executions, its nodes' labels merged in
// order (execRuns): held in memory if they are few, else merged into a
// column spilled to cols (a nil cols holds them in memory).

// spillRuns is how many executions execRuns holds in memory before it
// spills them (a variable for tests).
var spillRuns = 1 << 20

// execRuns are the timestamps of a statement's executions, in order.
type execRuns struct {
	mem []uint64
	col *spill.Column
	// buf holds the column's values from at on.
	buf []uint64
	at  int
}

// runsOf returns the executions of e's statement.
func (w *WET) runsOf(e *Execs, cols *spill.Columns) (*execRuns, error) {
	total := 0
	for _, n := range e.Nodes {
		total += w.Nodes[n].Times.Len()
	}
	if cols == nil || total <= spillRuns {
		var runs []uint64
		for _, n := range e.Nodes {
			runs = append(runs, w.Nodes[n].Times.Values()...)
		}
		slices.Sort(runs)
		return &execRuns{mem: runs}, nil
	}
	// Each node's timestamps increase: a k-way merge of their cursors.
	var h runHeap
	for _, n := range e.Nodes {
		c := w.Nodes[n].Times.Clone()
		c.Seek(0)
		if v, ok := c.Next(); ok {
			h = append(h, runCursor{v, c})
		}
	}
	heap.Init(&h)
	col := cols.New()
	for len(h) > 0 {
		col.Append(h[0].next)
		if v, ok := h[0].s.Next(); ok {
			h[0].next = v
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return &execRuns{col: col}, col.Err()
}

type runCursor struct {
	next uint64
	s    *bidi.Stream
}

type runHeap []runCursor

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return h[i].next < h[j].next }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(runCursor)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// get returns execution j (which Execs.check bounds).
func (r *execRuns) get(j int) (uint64, error) {
	if r.col == nil {
		return r.mem[j], nil
	}
	if j < r.at || j >= r.at+len(r.buf) {
		// Skips step by a few executions: read a chunk from j on.
		r.at = j
		if cap(r.buf) == 0 {
			r.buf = make([]uint64, 4096)
		}
		n, err := r.col.Read(j, r.buf[:cap(r.buf)])
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, fmt.Errorf("execution %d of %d", j, r.col.Len())
		}
		r.buf = r.buf[:n]
	}
	return r.buf[j-r.at], nil
}

// timesOf returns a function giving a label's timestamps one by one, from
// its stream s or, if s is nil, from executions e.
func (w *WET) timesOf(s *bidi.Stream, e *Execs, cols *spill.Columns) (func() (uint64, error), error) {
	if e == nil {
		c := s.Clone()
		c.Seek(0)
		return func() (uint64, error) { v, _ := c.Next(); return v, nil }, nil
	}
	runs, err := w.runsOf(e, cols)
	if err != nil {
		return nil, err
	}
	var skips *bidi.Stream
	if e.Skips != nil {
		skips = e.Skips.Clone()
		skips.Seek(0)
	}
	j := 0
	return func() (uint64, error) {
		s := e.SkipConstant
		if skips != nil {
			s, _ = skips.Next()
		}
		j += int(int64(s>>1) ^ -int64(s&1))
		return runs.get(j)
	}, nil
}

// fieldOf returns a function giving the entries of a field: its stream's,
// or its constant.
func fieldOf(s *bidi.Stream, constant uint64) func() uint64 {
	if s == nil {
		return func() uint64 { return constant }
	}
	c := s.Clone()
	c.Seek(0)
	return func() uint64 { v, _ := c.Next(); return v }
}

// EachAccess calls fn with each access of label l, in the order made,
// until fn returns an error, which it returns; cols holds the
// executions of a label given as executions (nil: memory).
func (w *WET) EachAccess(l *AccessLabel, cols *spill.Columns, fn func(Access) error) error {
	times, err := w.timesOf(l.Times, l.Execs, cols)
	if err != nil {
		return err
	}
	var fields [5]func() uint64
	for k, f := range l.fields() {
		fields[k] = fieldOf(*f, l.Constant[k])
	}
	for range l.count() {
		t, err := times()
		if err != nil {
			return err
		}
		a := Access{T: t, Seq: fields[0](), Kind: l.Access, Addr: fields[1](), Size: fields[2](), Src: fields[3](), Flags: uint8(fields[4]())}
		if err := fn(a); err != nil {
			return err
		}
	}
	return nil
}

// EachValue calls fn with each value of site l, in the order recorded,
// until fn returns an error, which it returns; the value's Words are
// valid only during the call. cols is as EachAccess's.
func (w *WET) EachValue(l *ValueLabel, cols *spill.Columns, fn func(Value) error) error {
	g := &w.ValueGroups[l.Group]
	times, err := w.timesOf(g.Times, g.Execs, cols)
	if err != nil {
		return err
	}
	member := g.Words[l.Member]
	words := make([]func() uint64, len(member))
	var tuples [][]uint64 // with a pattern: each word's distinct values, held
	var pattern *bidi.Stream
	if g.Pattern != nil {
		pattern = g.Pattern.Clone()
		pattern.Seek(0)
		for k := range member {
			tuples = append(tuples, g.wordValues(l.Member, k))
		}
	} else {
		for k, s := range member {
			words[k] = fieldOf(s, g.Constant[l.Member][k])
		}
	}
	v := Value{Words: make([]uint64, len(member))}
	for range g.count() {
		if v.T, err = times(); err != nil {
			return err
		}
		if pattern != nil {
			j, _ := pattern.Next() // the index of its tuple
			for k := range v.Words {
				v.Words[k] = tuples[k][j]
			}
		} else {
			for k := range v.Words {
				v.Words[k] = words[k]()
			}
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}
