package numbering

import (
	"fmt"
	"math"
)

// Counts are execution counts of a graph's edges and blocks.
type Counts struct {
	Edges  []uint64 // per graph edge, cut edges included
	Blocks []uint64 // per block
	// Calls is the number of times the function was entered: the entry's
	// count less the cut edges into the entry (0 if that is negative, which
	// a killed process can cause).
	Calls uint64
	// Paths is the number of paths run.
	Paths uint64
	// Saturated says that a count reached math.MaxUint64 and stopped
	// there (SatAdd) instead of wrapping round.
	Saturated bool
}

// CountsFromPaths derives edge and block counts from a path profile: a count
// per Ball-Larus id. Block coverage from a path profile is therefore exact.
// An id out of range is an error wrapping ErrBadPath.
func (n *Numbering) CountsFromPaths(paths map[uint64]uint64) (*Counts, error) {
	dag := make([]uint64, len(n.edges))
	var total uint64
	for id, c := range paths {
		path, err := n.Decode(id)
		if err != nil {
			return nil, err
		}
		for _, e := range path {
			dag[e] = SatAdd(dag[e], c)
		}
		total = SatAdd(total, c)
	}
	counts := n.countsFromDAG(dag)
	counts.Paths = total
	counts.Saturated = counts.Saturated || total == math.MaxUint64
	return counts, nil
}

// countsFromDAG maps counts of DAG edges onto the graph: a cut edge ran as
// often as its end edge, and a block as often as the DAG edges into it.
func (n *Numbering) countsFromDAG(dag []uint64) *Counts {
	g := n.g
	c := &Counts{Edges: make([]uint64, len(g.Edges)), Blocks: make([]uint64, g.NumBlocks)}
	for id := range g.Edges {
		switch {
		case n.inDAG[id]:
			c.Edges[id] = dag[id]
		case n.end[id] != NoEdge:
			c.Edges[id] = dag[n.end[id]]
		}
	}
	for id, e := range n.edges {
		if n.inDAG[id] && e.Kind != EndEdge {
			c.Blocks[e.Dst] = SatAdd(c.Blocks[e.Dst], dag[id])
		}
	}
	var restarts uint64
	for _, id := range n.adj.in[g.Entry] {
		restarts = SatAdd(restarts, c.Edges[id])
	}
	for _, b := range c.Blocks {
		c.Saturated = c.Saturated || b == math.MaxUint64
	}
	// A process killed between a cut edge into the entry and the end of the
	// next path has counted the one but not the other.
	if c.Blocks[g.Entry] > restarts {
		c.Calls = c.Blocks[g.Entry] - restarts
	}
	return c
}

// CountsFromChords derives every count from the counts of the chords alone
// (Ball-Larus 1994 §3.1): flow is conserved at every node of the DAG plus
// exit→root, and the tree edges form a tree, so peeling its leaves one at a
// time fixes each tree edge's count from the known edges at the leaf.
// chords maps each chord (see Placement.Chords) to its count; a missing chord
// counts 0. Counts that no execution can produce are an error wrapping
// ErrBadCounts.
func (p *Placement) CountsFromChords(chords map[EdgeID]uint64) (*Counts, error) {
	nodes := len(p.out)
	dag := make([]uint64, len(p.edges))
	// balance[v] = known inflow − known outflow, wrapping; exact at the end.
	balance := make([]uint64, nodes)
	for id, c := range chords {
		if !p.InDAG(id) || p.inTree[id] {
			return nil, fmt.Errorf("%w: e%d is not a chord", ErrBadCounts, id)
		}
		dag[id] = c
		e := p.edges[id]
		balance[e.Dst] += c
		balance[e.Src] -= c
	}
	// Unknown tree edges per node; the seed exit→root (the number of paths)
	// is one of them at the root and at the exit.
	const seed = -1
	type treeEdge struct {
		id       EdgeID // seed for exit→root
		src, dst BlockID
	}
	unknown := make([][]treeEdge, nodes)
	addUnknown := func(t treeEdge) {
		unknown[t.src] = append(unknown[t.src], t)
		unknown[t.dst] = append(unknown[t.dst], t)
	}
	addUnknown(treeEdge{seed, p.g.Exit, p.root})
	for id, e := range p.edges {
		if p.inDAG[id] && p.inTree[id] {
			addUnknown(treeEdge{EdgeID(id), e.Src, e.Dst})
		}
	}
	done := make(map[EdgeID]bool)
	left := make([]int, nodes)
	var work []BlockID
	for v := range nodes {
		left[v] = len(unknown[v])
		if left[v] == 1 {
			work = append(work, BlockID(v))
		}
	}
	var paths uint64
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if left[v] != 1 {
			continue
		}
		var t treeEdge
		for _, u := range unknown[v] {
			if !done[u.id] {
				t = u
				break
			}
		}
		// Flow conservation at v fixes t's count.
		var c uint64
		if t.dst == v {
			c = -balance[v]
		} else {
			c = balance[v]
		}
		if c > 1<<63 {
			return nil, fmt.Errorf("%w: the flow at b%d comes out negative", ErrBadCounts, v)
		}
		done[t.id] = true
		if t.id == seed {
			paths = c
		} else {
			dag[t.id] = c
		}
		balance[t.dst] += c
		balance[t.src] -= c
		for _, w := range []BlockID{t.src, t.dst} {
			if left[w]--; left[w] == 1 {
				work = append(work, w)
			}
		}
	}
	for v := range nodes {
		if balance[v] != 0 {
			return nil, fmt.Errorf("%w: flow is not conserved at b%d", ErrBadCounts, v)
		}
	}
	counts := p.countsFromDAG(dag)
	counts.Paths = paths
	return counts, nil
}

// A ProbeCost is the cost of a placement's code: statically, edges with code;
// dynamically, for given edge frequencies, the ops they execute.
type ProbeCost struct {
	// Increments counts register arithmetic: r += c, and r = c with c ≠ 0
	// (an initialisation merged with an increment).
	Increments float64
	// Inits counts r = 0.
	Inits float64
	// Updates counts counter updates, one per path.
	Updates float64
}

// Cost compares this placement with naive Ball-Larus instrumentation: r = 0
// at each path start, r += W on every edge with a nonzero Ball-Larus weight,
// count[r]++ at each path end. With freq nil it gives static costs (each edge
// weighs 1); otherwise freq gives edge frequencies, as for Place.
func (p *Placement) Cost(freq Weights) (naive, optimized ProbeCost) {
	var dw []float64
	if freq != nil {
		dw = p.dagWeights(freq)
	}
	weigh := func(id int) float64 {
		if dw == nil {
			return 1
		}
		return dw[id]
	}
	for id, e := range p.edges {
		if !p.inDAG[id] {
			continue
		}
		f := weigh(id)
		if p.weight[id] != 0 {
			naive.Increments += f
		}
		if e.Kind == StartEdge {
			naive.Inits += f
		}
		if e.Dst == p.g.Exit {
			naive.Updates += f
		}
		switch p.ops[id] {
		case OpAdd:
			if p.inc[id] != 0 {
				optimized.Increments += f
			}
		case OpSet:
			if p.inc[id] != 0 {
				optimized.Increments += f
			} else {
				optimized.Inits += f
			}
		case OpCount, OpCountConst:
			optimized.Updates += f
		}
	}
	return naive, optimized
}
