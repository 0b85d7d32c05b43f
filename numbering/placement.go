package numbering

import (
	"cmp"
	"fmt"
	"slices"
)

// An OpKind is one kind of profiling code on an edge. r is the path register.
type OpKind uint8

const (
	// OpAdd is r += Inc. Every chord past the register's initialisation
	// has one; code for a register whose increment is 0 can be left out.
	OpAdd OpKind = iota + 1
	// OpSet is r = Inc: the register's initialisation, pushed down to the
	// first edge that needs it and merged with that edge's increment.
	OpSet
	// OpCount is count[r+Inc]++: the path is complete (no later edge
	// changes r) and the last increment is merged into the update.
	OpCount
	// OpCountConst is count[Inc]++: the path is known with no register.
	OpCountConst
)

func (k OpKind) String() string {
	switch k {
	case OpAdd:
		return "add"
	case OpSet:
		return "set"
	case OpCount:
		return "count"
	case OpCountConst:
		return "countconst"
	}
	return fmt.Sprintf("OpKind(%d)", k)
}

// An Op is the profiling code of one DAG edge.
type Op struct {
	Kind OpKind
	// Edge is the DAG edge the op belongs to; [PPP.Inc] gives the PPP
	// register's increment for it.
	Edge EdgeID
	// Inc is the Ball-Larus increment (wrapping; it may stand for a negative
	// number).
	Inc uint64
}

// A Placement puts the increments of a Numbering on the chords of a maximum
// spanning tree (Ball-Larus 1994 §3; thesis §3.6, counter optimizations).
type Placement struct {
	*Numbering
	inTree []bool
	inc    []uint64 // Ball-Larus increment per DAG edge; 0 on tree edges
	ops    []OpKind // per DAG edge; 0 for none
	dw     []float64
}

// Place chooses where the increments go for edge frequencies w, which may be
// nil for StaticWeights.
//
// The spanning tree spans the DAG plus an edge exit→root. It is seeded with
// that edge, so that every path meets a chord or is the only path; then come
// the edges that cannot hold a probe, which must not carry code; then the
// rest, heaviest first. The chords, the edges left out, are the cheapest set
// that determines every path: chord increments are chosen so that their sum
// along a path is its id.
//
// The register is initialised at the first edge where some path's prefix
// has a chord and merged with its increment; the counter update goes on the
// first edge after which no path has a chord, merged with its increment.
// An edge that cannot hold a probe never receives either: the
// initialisation moves up, the update moves down.
//
// It returns an *UnprobedCycleError if the edges without probes close a cycle
// of the tree, and an error wrapping ErrInvalidGraph if a path's end cannot
// hold the counter update.
func (n *Numbering) Place(w Weights) (*Placement, error) {
	return n.PlaceOpen(w, nil)
}

// PlaceOpen is Place with the blocks open kept open: never in the region
// where the register need not be set yet, nor in the region where the path
// id is already known. So the ops on an edge between two open blocks are
// only OpAdd, the end edge of a cut that leaves an open block always has
// OpCount and the start edge of a cut that enters one always has OpSet,
// whatever the placement does elsewhere: the kind of code in a region of
// open blocks does not depend on the graph around it, only the increments
// do. A supergraph keeps a callee's copy open so that the callee's sites
// can share one clone, which reads each site's increments from a table
// (internal/instrument's shared.go). The register's set and count move out
// of the region, which can cost an op or two elsewhere.
func (n *Numbering) PlaceOpen(w Weights, open []BlockID) (*Placement, error) {
	for _, v := range open {
		if !n.g.valid(v) || v == n.root || v == n.g.Exit {
			return nil, fmt.Errorf("%w: open block b%d is not one of the graph's inner blocks", ErrBadOptions, v)
		}
	}
	if w == nil {
		w = n.StaticWeights()
	} else if len(w) != len(n.g.Edges) {
		return nil, fmt.Errorf("%w: %d weights for %d edges", ErrBadOptions, len(w), len(n.g.Edges))
	}
	p := &Placement{Numbering: n, dw: n.dagWeights(w)}
	if err := p.spanningTree(); err != nil {
		return nil, err
	}
	p.inc = p.chordIncrements(func(id EdgeID) uint64 { return n.weight[id] })
	if err := p.placeOps(open); err != nil {
		return nil, err
	}
	return p, nil
}

// probe reports whether DAG edge id can hold code. Dummy edges stand for cut
// edges, which were only cut where they can.
func (p *Placement) probe(id EdgeID) bool {
	return p.edges[id].Kind != RealEdge || p.g.Edges[id].Probe
}

// spanningTree computes the maximum spanning tree with Kruskal's algorithm.
func (p *Placement) spanningTree() error {
	nodes := len(p.out)
	parent := make([]int32, nodes)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b BlockID) bool {
		ra, rb := find(int32(a)), find(int32(b))
		if ra == rb {
			return false
		}
		parent[ra] = rb
		return true
	}
	p.inTree = make([]bool, len(p.edges))
	union(p.g.Exit, p.root) // the seed exit→root

	var forced, rest []EdgeID
	for id := range p.edges {
		if !p.inDAG[id] {
			continue
		}
		if p.probe(EdgeID(id)) {
			rest = append(rest, EdgeID(id))
		} else {
			forced = append(forced, EdgeID(id))
		}
	}
	for i, id := range forced {
		e := p.edges[id]
		if !union(e.Src, e.Dst) {
			return &UnprobedCycleError{Edges: p.forcedCycle(forced[:i], id), g: p.g}
		}
		p.inTree[id] = true
	}
	slices.SortStableFunc(rest, func(a, b EdgeID) int { return cmp.Compare(p.dw[b], p.dw[a]) })
	for _, id := range rest {
		e := p.edges[id]
		if union(e.Src, e.Dst) {
			p.inTree[id] = true
		}
	}
	return nil
}

// forcedCycle returns the cycle that edge id closes among the tree edges
// forced so far and the seed exit→root: id, then the tree path between its
// ends. The seed is not named, as it is not an edge of the graph.
func (p *Placement) forcedCycle(forced []EdgeID, id EdgeID) []EdgeID {
	type link struct {
		edge  EdgeID // NoEdge for the seed
		other BlockID
	}
	adj := make(map[BlockID][]link)
	for _, f := range forced {
		e := p.edges[f]
		adj[e.Src] = append(adj[e.Src], link{f, e.Dst})
		adj[e.Dst] = append(adj[e.Dst], link{f, e.Src})
	}
	adj[p.g.Exit] = append(adj[p.g.Exit], link{NoEdge, p.root})
	adj[p.root] = append(adj[p.root], link{NoEdge, p.g.Exit})

	from, to := p.edges[id].Src, p.edges[id].Dst
	via := map[BlockID]link{from: {NoEdge, from}} // how each node was reached
	for work := []BlockID{from}; len(work) > 0; work = work[1:] {
		for _, l := range adj[work[0]] {
			if _, seen := via[l.other]; !seen {
				via[l.other] = link{l.edge, work[0]}
				work = append(work, l.other)
			}
		}
	}
	cycle := []EdgeID{id}
	for v := to; v != from; v = via[v].other {
		if e := via[v].edge; e != NoEdge {
			cycle = append(cycle, e)
		}
	}
	return cycle
}

// chordIncrements turns edge weights W into increments on the chords with the
// same sum along every path: with a potential φ that is constant across tree
// edges (φ(dst) = φ(src) + W), a chord u→v gets W + φ(u) − φ(v). The sum
// along a path from root to exit telescopes to ΣW + φ(root) − φ(exit), and
// the tree edge exit→root of weight 0 makes φ(root) = φ(exit).
func (p *Placement) chordIncrements(weight func(EdgeID) uint64) []uint64 {
	nodes := len(p.out)
	phi := make([]uint64, nodes)
	seen := make([]bool, nodes)
	// Tree adjacency, walked from the root; the seed exit→root has weight 0.
	seen[p.root] = true
	work := []BlockID{p.root}
	visit := func(v BlockID, val uint64) {
		if !seen[v] {
			seen[v] = true
			phi[v] = val
			work = append(work, v)
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if v == p.root {
			visit(p.g.Exit, phi[v])
		}
		if v == p.g.Exit {
			visit(p.root, phi[v])
		}
		for _, id := range p.out[v] {
			if p.inTree[id] {
				visit(p.edges[id].Dst, phi[v]+weight(id))
			}
		}
		for _, id := range p.in[v] {
			if p.inTree[id] {
				visit(p.edges[id].Src, phi[v]-weight(id))
			}
		}
	}
	inc := make([]uint64, len(p.edges))
	for id, e := range p.edges {
		if p.inDAG[id] && !p.inTree[id] {
			inc[id] = weight(EdgeID(id)) + phi[e.Src] - phi[e.Dst]
		}
	}
	return inc
}

// placeOps decides the op of every DAG edge.
//
// clean(v): every path from the root to v has only tree edges, so the
// register would still hold 0 and need not be set yet. final(v): every path
// from v to the exit has only tree edges, so the path id is known at v. A
// path's ops are then: nothing while clean, OpSet on the edge that leaves
// the clean region (or OpCountConst if it also enters the final region),
// OpAdd on chords, OpCount on the edge that enters the final region, and
// nothing after. The open blocks are forced to be neither clean nor final.
func (p *Placement) placeOps(open []BlockID) error {
	nodes := len(p.out)
	notClean := make([]bool, nodes) // forced: the register must be set above v
	notFinal := make([]bool, nodes) // forced: the update must go below v
	for _, v := range open {
		notClean[v], notFinal[v] = true, true
	}
	clean := make([]bool, nodes)
	final := make([]bool, nodes)
	for {
		for _, v := range p.topo {
			clean[v] = v == p.root
			if v == p.root || notClean[v] {
				continue
			}
			c := len(p.in[v]) > 0
			for _, id := range p.in[v] {
				c = c && p.inTree[id] && clean[p.edges[id].Src]
			}
			clean[v] = c
		}
		changed := false
		for id, e := range p.edges {
			if p.inDAG[id] && clean[e.Src] && !clean[e.Dst] && !p.probe(EdgeID(id)) {
				// Tree edge without a probe leaving the clean region: set the
				// register above it instead.
				notClean[e.Src] = true
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for {
		for i := len(p.topo) - 1; i >= 0; i-- {
			v := p.topo[i]
			final[v] = v == p.g.Exit && !notFinal[v]
			if v == p.g.Exit || notFinal[v] {
				continue
			}
			f := len(p.out[v]) > 0
			for _, id := range p.out[v] {
				f = f && p.inTree[id] && final[p.edges[id].Dst]
			}
			final[v] = f
		}
		changed := false
		for id, e := range p.edges {
			if p.inDAG[id] && final[e.Dst] && (!final[e.Src] || e.Src == p.root) && !p.probe(EdgeID(id)) {
				if e.Dst == p.g.Exit {
					return fmt.Errorf("%w: %s ends a path but cannot hold the counter update", ErrInvalidGraph, p.g.edgeString(EdgeID(id)))
				}
				notFinal[e.Dst] = true
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	p.ops = make([]OpKind, len(p.edges))
	for id, e := range p.edges {
		if !p.inDAG[id] {
			continue
		}
		chord := !p.inTree[id]
		switch {
		case final[e.Src] && e.Src != p.root:
			// counted on an earlier edge
		case final[e.Dst] && clean[e.Src]:
			p.ops[id] = OpCountConst
		case final[e.Dst]:
			p.ops[id] = OpCount
		case clean[e.Src] && !clean[e.Dst]:
			p.ops[id] = OpSet
		case !clean[e.Src] && chord:
			// Even with a Ball-Larus increment of 0: the PPP register
			// shares the chords and may need it.
			p.ops[id] = OpAdd
		}
	}
	return nil
}

// InTree reports whether DAG edge id is in the spanning tree (carries no
// increment).
func (p *Placement) InTree(id EdgeID) bool { return p.inTree[id] }

// Inc returns the Ball-Larus increment of DAG edge id: nonzero only on
// chords, and summing to the path id along every path.
func (p *Placement) Inc(id EdgeID) uint64 { return p.inc[id] }

// Chords returns the DAG edges that are not in the spanning tree.
func (p *Placement) Chords() []EdgeID {
	var c []EdgeID
	for id := range p.edges {
		if p.inDAG[id] && !p.inTree[id] {
			c = append(c, EdgeID(id))
		}
	}
	return c
}

// Op returns the op of DAG edge id, and false if it has none.
func (p *Placement) Op(id EdgeID) (Op, bool) {
	k := p.ops[id]
	return Op{Kind: k, Edge: id, Inc: p.inc[id]}, k != 0
}

// EntryOps returns the code at the function's start (the entry's start edge).
func (p *Placement) EntryOps() []Op {
	return p.appendOp(nil, p.start[p.g.Entry])
}

// EdgeOps returns the code for graph edge id, in order. A cut edge runs its
// end edge's op (the path ends) and then its target's start edge's op (the
// next path begins). Unreachable edges have none.
func (p *Placement) EdgeOps(id EdgeID) []Op {
	if p.inDAG[id] {
		return p.appendOp(nil, id)
	}
	if end := p.end[id]; end != NoEdge {
		return p.appendOp(p.appendOp(nil, end), p.start[p.g.Edges[id].Dst])
	}
	return nil
}

func (p *Placement) appendOp(ops []Op, id EdgeID) []Op {
	if op, ok := p.Op(id); ok {
		ops = append(ops, op)
	}
	return ops
}

// LikelyPath returns the id of the path most likely counted at DAG edge
// id, for a count with a register (OpCount): the register's value on the
// heaviest path from the root to the edge's source, found greedily
// backwards (at each node the incoming edge of greatest weight, the first
// of equal ones), plus the edge's own increment. The edges before the
// register's initialisation are tree edges and add nothing, so the sum is
// what the register holds on that path, and the path continues from the
// count in the one way the count's place leaves it. Instrumentation tests
// for this id to count it at a constant address (see internal/instrument's
// likelyIncStmt). It returns false for an edge that is not reachable.
func (p *Placement) LikelyPath(id EdgeID) (uint64, bool) {
	reached := func(v BlockID) bool { return v == p.root || p.Reachable(v) }
	if !p.inDAG[id] || !reached(p.edges[id].Src) {
		return 0, false
	}
	r := p.inc[id]
	for v := p.edges[id].Src; v != p.root; {
		best := NoEdge
		for _, in := range p.in[v] {
			if reached(p.edges[in].Src) && (best == NoEdge || p.dw[in] > p.dw[best]) {
				best = in
			}
		}
		if best == NoEdge {
			return 0, false
		}
		r += p.inc[best]
		v = p.edges[best].Src
	}
	return r, true
}

// DAGWeight returns the weight of DAG edge id that the tree was built with.
func (p *Placement) DAGWeight(id EdgeID) float64 { return p.dw[id] }
