package wpp

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// Dynamic basic blocks and timestamps: how one trace is stored.
//
// A dynamic basic block (DBB) of a trace is a chain of paths p1 … pk such
// that, in that trace, every occurrence of pi (i < k) is followed by
// pi+1 and every occurrence of pi+1 is preceded by pi: the trace enters
// the chain only at p1 and leaves it only after pk. (The paper defines
// DBBs over basic blocks; here the symbols are Ball-Larus paths, each of
// which already stands for a run of blocks.) dbbs finds the maximal chains
// in the trace's dynamic graph, whose nodes are its distinct paths and
// whose edges are the pairs of paths adjacent in it, with the trace's
// start and end as one more predecessor and successor: a path at the end
// of the trace has no unique successor, one at its start no unique
// predecessor, and a path that follows itself is a chain of its own. Each
// occurrence of a chain is then one symbol of the compacted trace.
//
// The compacted trace is stored in one of two forms, whichever is smaller:
// as its sequence of DBBs, or, the paper's timestamped form, as each DBB
// with the positions (timestamps, from 0) where it occurs, written as
// arithmetic series lo:hi:stride. A loop that repeats the same DBB n times
// costs one series, not n symbols.

// A traceEncoder is the scratch that encoding a function's traces reuses
// from trace to trace: a benchmark's loop makes thousands of traces of
// thousands of paths each (fastjson's suite: 50 M paths in 36 k traces),
// and making each one's tables anew was most of the compaction's time.
type traceEncoder struct {
	byID     []dbbNode
	headByID []int32 // dense: the chain of each head, index+1
	dict     [][]uint64
	seq      []int32
	series   [][]series
	open     []series // the series each DBB is making
}

// A dbbNode is a path of a trace's dynamic graph: its successor and
// predecessor if it has one each.
type dbbNode struct {
	succ, pred     uint64
	nsucc, npred   uint8 // distinct successors and predecessors, up to 2
	atEnd, atStart bool
}

// dbbs returns the dictionary of trace's dynamic basic blocks, each a
// chain of paths, and the trace as indexes into it. Both are e's scratch,
// valid until e is used again, and dict's chains are slices of trace (a
// chain's first occurrence is the chain itself, since every path of it
// is always followed by the next).
func (e *traceEncoder) dbbs(trace []uint64) (dict [][]uint64, seq []int32) {
	if len(trace) == 0 {
		return nil, nil
	}
	// Path ids are small in most functions: their nodes, and the chains
	// by head below, are then found by index, not by hashing (a
	// benchmark's loop makes traces of millions of paths), where the
	// tables by id are not much larger than the trace (a function has
	// thousands of short traces as often as one long one).
	maxPath := slices.Max(trace)
	dense := maxPath < 1<<16 && maxPath < 4*uint64(len(trace))+64
	var nodes map[uint64]*dbbNode
	var byID []dbbNode
	if dense {
		e.byID = grow(e.byID, int(maxPath)+1)
		byID = e.byID
	} else {
		nodes = make(map[uint64]*dbbNode)
	}
	get := func(p uint64) *dbbNode {
		if dense {
			return &byID[p]
		}
		n := nodes[p]
		if n == nil {
			n = &dbbNode{}
			nodes[p] = n
		}
		return n
	}
	get(trace[0]).atStart = true
	get(trace[len(trace)-1]).atEnd = true
	// Each path's node is found once, and carried to the next pair.
	a := get(trace[0])
	for i := 1; i < len(trace); i++ {
		p, q := trace[i-1], trace[i]
		b := get(q)
		if a.nsucc == 0 {
			a.nsucc, a.succ = 1, q
		} else if a.nsucc == 1 && a.succ != q {
			a.nsucc = 2
		}
		if b.npred == 0 {
			b.npred, b.pred = 1, p
		} else if b.npred == 1 && b.pred != p {
			b.npred = 2
		}
		a = b
	}
	// linked reports whether a is always followed by b and b always
	// preceded by a.
	linked := func(a uint64) (uint64, bool) {
		n := get(a)
		if n.atEnd || n.nsucc != 1 || n.succ == a {
			return 0, false
		}
		m := get(n.succ)
		return n.succ, !m.atStart && m.npred == 1
	}
	var index map[uint64]int32 // chain head → index in dict
	var headByID []int32       // or, dense, index+1 by head
	if dense {
		e.headByID = grow(e.headByID, int(maxPath)+1)
		headByID = e.headByID
	} else {
		index = make(map[uint64]int32)
	}
	dict, seq = e.dict[:0], e.seq[:0]
	for i := 0; i < len(trace); {
		head := trace[i]
		var d int32
		var ok bool
		if dense {
			d, ok = headByID[head]-1, headByID[head] > 0
		} else {
			d, ok = index[head]
		}
		if !ok {
			n := 1
			for p := head; ; n++ {
				q, ok := linked(p)
				if !ok || q == head {
					break
				}
				p = q
			}
			d = int32(len(dict))
			if dense {
				headByID[head] = d + 1
			} else {
				index[head] = d
			}
			dict = append(dict, trace[i:i+n:i+n])
		}
		seq = append(seq, d)
		i += len(dict[d])
	}
	e.dict, e.seq = dict, seq
	return dict, seq
}

// grow returns s with n zero elements, reusing its array if it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// A series is the arithmetic series lo, lo+stride, …, of n terms.
type series struct {
	lo, stride, n uint64
}

// add extends s, the series being made, with position p, the next: it
// reports done, and leaves s as it was, if p does not keep s's stride.
// Series are made greedily: each takes as many of the next positions as
// keep its stride.
func (s series) add(p uint64) (_ series, done bool) {
	switch {
	case s.n == 0:
		return series{lo: p, n: 1}, false
	case s.n == 1:
		return series{lo: s.lo, stride: p - s.lo, n: 2}, false
	case p-(s.lo+(s.n-1)*s.stride) == s.stride:
		s.n++
		return s, false
	}
	return s, true
}

// flush is s as written: a series of one term has stride 0.
func (s series) flush() series {
	if s.n == 1 {
		s.stride = 0
	}
	return s
}

// timestamps returns, for each DBB of seq (indexes below n), the
// positions where it occurs, as series, made in one pass over seq; they
// are e's scratch, valid until e is used again. If limit is not
// negative, it stops with ok false as soon as their encoding
// (appendTimestamps) would take limit bytes or more: the caller then
// writes the sequence instead.
func (e *traceEncoder) timestamps(seq []int32, n int, limit int) (_ [][]series, ok bool) {
	if cap(e.series) < n {
		e.series = append(e.series[:cap(e.series)], make([][]series, n-cap(e.series))...)
	}
	out := e.series[:n]
	for d := range out {
		out[d] = out[d][:0]
	}
	open := grow(e.open, n) // the series each DBB is making
	e.open = open
	size := uvarintLen(1)
	for t, d := range seq {
		s, done := open[d].add(uint64(t))
		if done {
			s = s.flush()
			out[d] = append(out[d], s)
			if size += s.encodedLen(); limit >= 0 && size >= limit {
				return nil, false
			}
			s = series{lo: uint64(t), n: 1}
		}
		open[d] = s
	}
	for d, s := range open {
		if s.n > 0 {
			s = s.flush()
			out[d] = append(out[d], s)
			size += s.encodedLen()
		}
		size += uvarintLen(uint64(len(out[d])))
	}
	return out, limit < 0 || size < limit
}

// appendTimestamps appends the timestamped form of a trace whose DBBs'
// series are ss: for each DBB, its number of series, then each one's
// first position, stride and length.
func appendTimestamps(b []byte, ss [][]series) []byte {
	b = binary.AppendUvarint(b, 1)
	for _, s := range ss {
		b = binary.AppendUvarint(b, uint64(len(s)))
		for _, x := range s {
			b = binary.AppendUvarint(b, x.lo)
			b = binary.AppendUvarint(b, x.stride)
			b = binary.AppendUvarint(b, x.n)
		}
	}
	return b
}

// appendSequence appends the sequence form of a trace: its length, then
// each DBB's index.
func appendSequence(b []byte, seq []int32) []byte {
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, uint64(len(seq)))
	for _, d := range seq {
		b = binary.AppendUvarint(b, uint64(d))
	}
	return b
}

// sequenceLen is the length of appendSequence's encoding of seq.
func sequenceLen(seq []int32) int {
	n := uvarintLen(0) + uvarintLen(uint64(len(seq)))
	for _, d := range seq {
		n += uvarintLen(uint64(d))
	}
	return n
}

func (s series) encodedLen() int {
	return uvarintLen(s.lo) + uvarintLen(s.stride) + uvarintLen(s.n)
}

// uvarintLen is the length of binary.AppendUvarint's encoding of x.
func uvarintLen(x uint64) int {
	return (bits.Len64(x|1) + 6) / 7
}
