package numbering

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Check verifies the numbering properties (invariant 3 of docs/design.md) on this
// function, for tests and for self-checks on real code: ids are unique and
// dense in [0, N); decoding an id gives its path back; the chord increments
// along a path sum to its id; and running a path's ops, as the instrumented
// code will, counts it exactly once under its id. With q, it also checks that
// interesting paths get unique PPP ids below Size that pass the alias check,
// and that no other path passes it.
//
// The paths are found on the graph itself, from the cut edges, not from the
// DAG: from the entry or a cut edge's target, along uncut edges, to the exit
// or through a cut edge. If there are more than limit, Check enumerates none
// and decodes limit random ids instead.
func (p *Placement) Check(q *PPP, limit int) error {
	paths, all := p.enumerate(limit)
	if all && uint64(len(paths)) != p.NumPaths() {
		return fmt.Errorf("%d paths on the graph, but N = %d", len(paths), p.NumPaths())
	}
	if !all {
		var err error
		if paths, err = p.samplePaths(limit); err != nil {
			return err
		}
	}
	seen := make(map[uint64]bool, len(paths))
	pppSeen := make(map[uint64]uint64)
	interesting := 0
	for _, gp := range paths {
		dp := gp.dagPath(p.Numbering)
		id, err := p.Encode(dp)
		if err != nil {
			return fmt.Errorf("path %v: %w", gp, err)
		}
		if seen[id] {
			return fmt.Errorf("two paths have id %d", id)
		}
		seen[id] = true
		back, err := p.Decode(id)
		if err != nil || !slices.Equal(back, dp) {
			return fmt.Errorf("Decode(%d) = %v, %v; want %v", id, back, err, dp)
		}
		var sum uint64
		for _, e := range dp {
			sum += p.inc[e]
		}
		if sum != id {
			return fmt.Errorf("the chord increments of path %d sum to %d", id, sum)
		}
		var r register
		if err := r.Run(p.appendOp(nil, p.start[gp.start]), q); err != nil {
			return err
		}
		for _, e := range gp.edges {
			if err := r.Run(p.EdgeOps(e), q); err != nil {
				return err
			}
		}
		if gp.cut != NoEdge {
			// Only the end op: the start op begins the next path.
			if err := r.Run(p.appendOp(nil, p.end[gp.cut]), q); err != nil {
				return err
			}
		}
		if len(r.counted) != 1 || r.counted[0].BL != id {
			return fmt.Errorf("running path %d counted %v", id, r.counted)
		}
		if q == nil {
			continue
		}
		c := r.counted[0]
		var wsum uint64
		for _, e := range dp {
			w, _ := q.Weight(e)
			wsum += uint64(w)
		}
		if wsum != c.PPP {
			return fmt.Errorf("the PPP increments of path %d sum to %d, its PPP weights to %d", id, c.PPP, wsum)
		}
		if want, ok := q.ID(id); ok {
			interesting++
			if c.PPP != want || c.PPP >= q.Size() || !q.accepts(c.PPP, c.BL) {
				return fmt.Errorf("interesting path %d ran with PPP id %d (want %d, size %d) and was not accepted", id, c.PPP, want, q.Size())
			}
			if other, dup := pppSeen[c.PPP]; dup {
				return fmt.Errorf("interesting paths %d and %d share PPP id %d", other, id, c.PPP)
			}
			pppSeen[c.PPP] = id
		} else if q.accepts(c.PPP, c.BL) {
			return fmt.Errorf("uninteresting path %d (PPP id %d) passes the alias check", id, c.PPP)
		}
	}
	if q != nil && all && interesting != q.Len() {
		return fmt.Errorf("%d interesting paths found on the graph, %d numbered", interesting, q.Len())
	}
	return nil
}

// register simulates the code the ops stand for: the Ball-Larus and PPP
// registers and the counter updates.
type register struct {
	BL, PPP uint64
	set     bool // some op initialised the registers on the running path
	counted []counted
}

// counted is one counter update: the registers' values.
type counted struct{ BL, PPP uint64 }

// Run runs ops; q may be nil for Ball-Larus alone. Reading the register
// before any op set it is an error.
func (r *register) Run(ops []Op, q *PPP) error {
	for _, op := range ops {
		var pinc uint64
		if q != nil {
			pinc = q.inc[op.Edge]
		}
		switch op.Kind {
		case OpAdd:
			if !r.set {
				return fmt.Errorf("%v on e%d reads the register before it is set", op.Kind, op.Edge)
			}
			r.BL += op.Inc
			r.PPP += pinc
		case OpSet:
			r.BL, r.PPP, r.set = op.Inc, pinc, true
		case OpCount:
			if !r.set {
				return fmt.Errorf("%v on e%d reads the register before it is set", op.Kind, op.Edge)
			}
			r.counted = append(r.counted, counted{r.BL + op.Inc, r.PPP + pinc})
			r.set = false
		case OpCountConst:
			r.counted = append(r.counted, counted{op.Inc, pinc})
			r.set = false
		default:
			return fmt.Errorf("bad op %v", op)
		}
	}
	return nil
}

// graphPath is a path found on the graph: where it starts, the uncut edges
// it takes, and the cut edge it ends with (NoEdge if it ends at the exit).
type graphPath struct {
	start BlockID
	edges []EdgeID
	cut   EdgeID
}

// dagPath spells a graph path as DAG edges.
func (gp graphPath) dagPath(n *Numbering) []EdgeID {
	p := append([]EdgeID{n.start[gp.start]}, gp.edges...)
	if gp.cut != NoEdge {
		p = append(p, n.end[gp.cut])
	}
	return p
}

// enumerate lists every path of the graph between path boundaries, or
// reports false past limit paths.
func (n *Numbering) enumerate(limit int) ([]graphPath, bool) {
	g := n.g
	cut := func(id EdgeID) bool { _, ok := n.CutKind(id); return ok }
	starts := []BlockID{g.Entry}
	seen := map[BlockID]bool{g.Entry: true}
	for id, e := range g.Edges {
		if cut(EdgeID(id)) && !seen[e.Dst] {
			seen[e.Dst] = true
			starts = append(starts, e.Dst)
		}
	}
	var paths []graphPath
	var walk func(start, v BlockID, edges []EdgeID) bool
	walk = func(start, v BlockID, edges []EdgeID) bool {
		if v == g.Exit {
			paths = append(paths, graphPath{start, slices.Clone(edges), NoEdge})
			return len(paths) <= limit
		}
		for _, id := range n.adj.out[v] {
			if cut(id) {
				paths = append(paths, graphPath{start, slices.Clone(edges), id})
				if len(paths) > limit {
					return false
				}
				continue
			}
			if !walk(start, g.Edges[id].Dst, append(edges, id)) {
				return false
			}
		}
		return true
	}
	for _, s := range starts {
		if !walk(s, s, nil) {
			return nil, false
		}
	}
	return paths, true
}

// samplePaths decodes count random ids into graph paths.
func (n *Numbering) samplePaths(count int) ([]graphPath, error) {
	rng := rand.New(rand.NewPCG(n.NumPaths(), uint64(count)))
	var paths []graphPath
	seen := map[uint64]bool{}
	for range count {
		id := rng.Uint64N(n.NumPaths())
		if seen[id] {
			continue
		}
		seen[id] = true
		dp, err := n.Decode(id)
		if err != nil {
			return nil, err
		}
		gp := graphPath{start: n.edges[dp[0]].Dst, cut: NoEdge}
		for _, e := range dp[1:] {
			switch n.edges[e].Kind {
			case RealEdge:
				gp.edges = append(gp.edges, e)
			case EndEdge:
				gp.cut = n.edges[e].Cut
			default:
				return nil, fmt.Errorf("decoded path %d has a start edge inside", id)
			}
		}
		paths = append(paths, gp)
	}
	return paths, nil
}
