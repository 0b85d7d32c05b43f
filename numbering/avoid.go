package numbering

// Counting the paths that take sets of edges together: the paths of a
// function that an analysis proved infeasible, because every path through
// all the edges of one set cannot run, are the paths through any set.

// Takes reports whether a path, given as DAG edges, takes every edge of
// set: a graph edge as one of its real edges or as the cut edge that its
// end edge stands for, a start edge (of a block where a loop goes round
// again) as its first.
func (n *Numbering) Takes(path []EdgeID, set []EdgeID) bool {
	for _, g := range set {
		found := false
		for _, e := range path {
			d := n.edges[e]
			if ((d.Kind == RealEdge || d.Kind == StartEdge) && e == g) || (d.Kind == EndEdge && d.Cut == g) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// PathsThrough returns the number of numbered paths that take every edge
// of set, as Takes says (at most 64 edges; 0 for more).
func (n *Numbering) PathsThrough(set []EdgeID) uint64 {
	count, ok := n.countPaths([][]EdgeID{set}, 1<<16, true)
	if !ok {
		return 0
	}
	return count
}

// PathsTakingAny returns the number of numbered paths that take every edge
// of at least one of sets, and exact true; or, when the sets' edges are too
// many to count them exactly (more than 64, or more than maxStates
// combinations of them taken at one block), a lower bound: the most paths
// through any one set, and exact false.
func (n *Numbering) PathsTakingAny(sets [][]EdgeID, maxStates int) (count uint64, exact bool) {
	if len(sets) == 0 {
		return 0, true
	}
	if avoiding, ok := n.countPaths(sets, maxStates, false); ok {
		return n.NumPaths() - avoiding, true
	}
	var most uint64
	for _, s := range sets {
		most = max(most, n.PathsThrough(s))
	}
	return most, false
}

// countPaths counts, over the DAG in topological order, the paths from the
// root by the subset of the sets' edges they have taken so far (a bit per
// edge). With through, it returns the paths that took all of sets[0];
// otherwise those that took all of no set (a path is dropped once it has).
// It fails past 64 edges or maxStates subsets at a node.
func (n *Numbering) countPaths(sets [][]EdgeID, maxStates int, through bool) (uint64, bool) {
	bit := make(map[EdgeID]int)
	full := make([]uint64, len(sets))
	for i, s := range sets {
		for _, g := range s {
			b, ok := bit[g]
			if !ok {
				if len(bit) == 64 {
					return 0, false
				}
				b = len(bit)
				bit[g] = b
			}
			full[i] |= 1 << b
		}
	}
	// bits gives the set edges that DAG edge e takes.
	bits := func(e EdgeID) uint64 {
		d := n.edges[e]
		g := e
		if d.Kind == EndEdge {
			g = d.Cut
		}
		if b, ok := bit[g]; ok {
			return 1 << b
		}
		return 0
	}
	states := make(map[BlockID]map[uint64]uint64)
	states[n.root] = map[uint64]uint64{0: 1}
	var total uint64
	for _, v := range n.topo {
		in := states[v]
		delete(states, v)
		if v == n.g.Exit {
			for mask, c := range in {
				if !through || mask&full[0] == full[0] {
					total += c
				}
			}
			continue
		}
		for mask, c := range in {
			for _, e := range n.out[v] {
				m := mask | bits(e)
				if !through && takesAny(m, full) {
					continue
				}
				dst := n.edges[e].Dst
				out := states[dst]
				if out == nil {
					out = make(map[uint64]uint64)
					states[dst] = out
				}
				out[m] += c
				if len(out) > maxStates {
					return 0, false
				}
			}
		}
	}
	return total, true
}

func takesAny(mask uint64, full []uint64) bool {
	for _, f := range full {
		if mask&f == f {
			return true
		}
	}
	return false
}
