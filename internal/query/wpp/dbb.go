package wpp

import "slices"

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

// dbbs returns the dictionary of trace's dynamic basic blocks, each a
// chain of paths, and the trace as indexes into it.
func dbbs(trace []uint64) (dict [][]uint64, seq []int) {
	if len(trace) == 0 {
		return nil, nil
	}
	type node struct {
		succ, pred     uint64
		nsucc, npred   int // distinct successors and predecessors, up to 2
		atEnd, atStart bool
	}
	// Path ids are small in most functions: their nodes, and the chains
	// by head below, are then found by index, not by hashing (a
	// benchmark's loop makes traces of millions of paths), where the
	// tables by id are not much larger than the trace (a function has
	// thousands of short traces as often as one long one).
	maxPath := slices.Max(trace)
	dense := maxPath < 1<<16 && maxPath < 4*uint64(len(trace))+64
	var byID []node
	var nodes map[uint64]*node
	if dense {
		byID = make([]node, maxPath+1)
	} else {
		nodes = make(map[uint64]*node)
	}
	get := func(p uint64) *node {
		if dense {
			return &byID[p]
		}
		n := nodes[p]
		if n == nil {
			n = &node{}
			nodes[p] = n
		}
		return n
	}
	get(trace[0]).atStart = true
	get(trace[len(trace)-1]).atEnd = true
	for i := 0; i+1 < len(trace); i++ {
		a, b := get(trace[i]), get(trace[i+1])
		if a.nsucc == 0 || (a.nsucc == 1 && a.succ != trace[i+1]) {
			a.nsucc++
			a.succ = trace[i+1]
		}
		if b.npred == 0 || (b.npred == 1 && b.pred != trace[i]) {
			b.npred++
			b.pred = trace[i]
		}
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
	var index map[uint64]int // chain head → index in dict
	var indexByID []int32    // or, dense, index+1 by head
	if dense {
		indexByID = make([]int32, maxPath+1)
	} else {
		index = make(map[uint64]int)
	}
	for i := 0; i < len(trace); {
		head := trace[i]
		var d int
		var ok bool
		if dense {
			d, ok = int(indexByID[head])-1, indexByID[head] > 0
		} else {
			d, ok = index[head]
		}
		if !ok {
			chain := []uint64{head}
			for p := head; ; {
				q, ok := linked(p)
				if !ok || q == head {
					break
				}
				chain = append(chain, q)
				p = q
			}
			d = len(dict)
			if dense {
				indexByID[head] = int32(d) + 1
			} else {
				index[head] = d
			}
			dict = append(dict, chain)
		}
		seq = append(seq, d)
		i += len(dict[d])
	}
	return dict, seq
}

// A series is the arithmetic series lo, lo+stride, …, of n terms.
type series struct {
	lo, stride, n uint64
}

// toSeries writes increasing positions as series, greedily: each series
// takes as many of the next positions as keep its stride.
func toSeries(pos []uint64) []series {
	var out []series
	for i := 0; i < len(pos); {
		s := series{lo: pos[i], n: 1}
		if i+1 < len(pos) {
			s.stride = pos[i+1] - pos[i]
			for s.n < uint64(len(pos)-i) && pos[i+int(s.n)]-pos[i+int(s.n)-1] == s.stride {
				s.n++
			}
		}
		if s.n == 1 {
			s.stride = 0
		}
		out = append(out, s)
		i += int(s.n)
	}
	return out
}

// timestamps returns, for each DBB of seq (indexes below n), the
// positions where it occurs, as series.
func timestamps(seq []int, n int) [][]series {
	pos := make([][]uint64, n)
	for t, d := range seq {
		pos[d] = append(pos[d], uint64(t))
	}
	out := make([][]series, n)
	for d, p := range pos {
		out[d] = toSeries(p)
	}
	return out
}
