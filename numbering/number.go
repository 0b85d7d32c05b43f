package numbering

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
)

// DefaultMaxPaths is the default of Options.MaxPaths, and its largest value.
// Keeping ids below 2^63 leaves math.MaxUint64 free as a marker of no path.
const DefaultMaxPaths = 1 << 63

// Options control Number.
type Options struct {
	// MaxPaths is the largest number of paths N allowed, so ids lie in
	// [0, MaxPaths). When the DAG has more, Number cuts it at further blocks
	// until N fits. Zero means DefaultMaxPaths; larger values are an error.
	MaxPaths uint64
	// Preferred names edges to cut first when they lie on a cycle, so that
	// paths end where a reader expects them to: the Go CFG names the edges
	// into a for loop's post statement. Preferred edges on no cycle are not
	// cut. Every cycle left is broken by a depth-first search.
	Preferred []EdgeID
	// Keep names edges that a cut made to bring N under MaxPaths must not
	// end paths at: no block that a kept edge enters is cut, so the paths
	// along kept edges stay whole. Interprocedural PPP keeps the edges of
	// the interesting segments of a supergraph (thesis 3.4.4, step 5).
	// Cycles are broken as ever: a kept edge that closes a cycle is cut.
	Keep []EdgeID
}

// A Numbering is a function's DAG with Ball-Larus path ids (thesis Fig. 3.1).
// It is immutable and safe for concurrent use.
type Numbering struct {
	*dag
	adj       *adjacency
	reachable []bool
	weight    []uint64 // Ball-Larus weight per DAG edge
	numPaths  []uint64 // per node: paths from it to the exit
	total     *big.Int // paths of the DAG before limit cuts
	cuts      []Cut
}

// Number converts g into a DAG and numbers its paths. opts may be nil.
//
// It returns an error wrapping ErrInvalidGraph for a malformed graph,
// ErrNoPath when no path leads from the entry to the exit, ErrBadOptions
// for bad options, an *UnprobedCycleError when edges without probes form a
// cycle, and ErrTooManyPaths when no cut brings N under MaxPaths.
func Number(g *Graph, opts *Options) (*Numbering, error) {
	if opts == nil {
		opts = &Options{}
	}
	maxPaths := opts.MaxPaths
	if maxPaths == 0 {
		maxPaths = DefaultMaxPaths
	}
	if maxPaths > DefaultMaxPaths {
		return nil, fmt.Errorf("%w: MaxPaths %d is above 2^63", ErrBadOptions, opts.MaxPaths)
	}
	a, err := check(g)
	if err != nil {
		return nil, err
	}
	for _, id := range opts.Preferred {
		if id < 0 || int(id) >= len(g.Edges) {
			return nil, fmt.Errorf("%w: preferred cut e%d is not an edge (graph has %d)", ErrBadOptions, id, len(g.Edges))
		}
	}
	keep := make([]bool, len(g.Edges))
	for _, id := range opts.Keep {
		if id < 0 || int(id) >= len(g.Edges) {
			return nil, fmt.Errorf("%w: kept edge e%d is not an edge (graph has %d)", ErrBadOptions, id, len(g.Edges))
		}
		keep[id] = true
	}
	reachable := reach(a)
	cutKinds, err := breakCycles(a, reachable, opts.Preferred)
	if err != nil {
		return nil, err
	}
	if err := checkExits(a, reachable, cutKinds); err != nil {
		return nil, err
	}
	d, err := buildDAG(a, reachable, cutKinds)
	if err != nil {
		return nil, err
	}
	n := &Numbering{dag: d, adj: a, reachable: reachable}
	n.total = countPathsBig(d)
	if n.total.Cmp(new(big.Int).SetUint64(maxPaths)) > 0 {
		if n.dag, err = limitPaths(a, reachable, d, maxPaths, keep); err != nil {
			return nil, err
		}
	}
	n.numberBallLarus()
	for id, k := range n.cutKinds {
		if k != notCut && reachable[g.Edges[id].Src] {
			n.cuts = append(n.cuts, Cut{Edge: EdgeID(id), Kind: k})
		}
	}
	return n, nil
}

// reach returns the blocks reachable from the entry, and the exit, which is
// a node of the DAG even when only cut edges lead to it.
func reach(a *adjacency) []bool {
	g := a.g
	reachable := make([]bool, g.NumBlocks)
	work := []BlockID{g.Entry}
	reachable[g.Entry] = true
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, id := range a.out[v] {
			if w := g.Edges[id].Dst; !reachable[w] {
				reachable[w] = true
				work = append(work, w)
			}
		}
	}
	reachable[g.Exit] = true
	return reachable
}

// checkExits reports a reachable block that no path of the DAG leads from to
// the exit: it reaches neither the exit nor the source of a cut edge (whose
// end edge goes to the exit). An infinite loop is fine; a block that just
// stops is not.
func checkExits(a *adjacency, reachable []bool, cutKinds []CutKind) error {
	g := a.g
	ok := make([]bool, g.NumBlocks)
	work := []BlockID{g.Exit}
	ok[g.Exit] = true
	for id, e := range g.Edges {
		if cutKinds[id] != notCut && reachable[e.Src] && !ok[e.Src] {
			ok[e.Src] = true
			work = append(work, e.Src)
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, id := range a.in[v] {
			if u := g.Edges[id].Src; cutKinds[id] == notCut && reachable[u] && !ok[u] {
				ok[u] = true
				work = append(work, u)
			}
		}
	}
	if !ok[g.Entry] {
		return fmt.Errorf("%w: exit b%d cannot be reached from entry b%d", ErrNoPath, g.Exit, g.Entry)
	}
	for v := range g.NumBlocks {
		if reachable[v] && !ok[v] {
			return fmt.Errorf("%w: block b%d is reachable from the entry but leads neither to the exit nor around a loop; give it an edge to the exit", ErrInvalidGraph, v)
		}
	}
	return nil
}

// countPathsBig returns the exact number of paths of d.
func countPathsBig(d *dag) *big.Int {
	counts := make([]*big.Int, len(d.out))
	one := big.NewInt(1)
	for i := len(d.topo) - 1; i >= 0; i-- {
		v := d.topo[i]
		if v == d.g.Exit {
			counts[v] = one
			continue
		}
		c := new(big.Int)
		for _, id := range d.out[v] {
			c.Add(c, counts[d.edges[id].Dst])
		}
		counts[v] = c
	}
	return counts[d.root]
}

// SatAdd adds with saturation at math.MaxUint64: counts that would wrap
// round stay at the largest value, which reports show as such.
func SatAdd(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return math.MaxUint64
	}
	return s
}

// numberBallLarus assigns the Ball-Larus weights (thesis Fig. 3.1): in
// reverse topological order, each out edge of v gets the number of paths
// from v's earlier out edges to the exit.
func (n *Numbering) numberBallLarus() {
	d := n.dag
	n.weight = make([]uint64, len(d.edges))
	n.numPaths = make([]uint64, len(d.out))
	for i := len(d.topo) - 1; i >= 0; i-- {
		v := d.topo[i]
		if v == d.g.Exit {
			n.numPaths[v] = 1
			continue
		}
		var sum uint64
		for _, id := range d.out[v] {
			n.weight[id] = sum
			sum += n.numPaths[d.edges[id].Dst] // cannot wrap: N ≤ 2^63
		}
		n.numPaths[v] = sum
	}
}

// limitPaths cuts the DAG at further blocks until it has at most maxPaths
// paths. A cut at block v turns every real edge into v into a cut edge: the
// path ends there and a new one starts at v.
//
// For a threshold T it walks the DAG bottom up and cuts at every block with
// more than T paths to the exit where a cut can go; it halves T until the
// total fits. Large T first keeps the cuts few and the paths long.
func limitPaths(a *adjacency, reachable []bool, d *dag, maxPaths uint64, keep []bool) (*dag, error) {
	g := a.g
	cuttable := make([]bool, g.NumBlocks)
	for v := range g.NumBlocks {
		if !reachable[v] || BlockID(v) == g.Exit {
			continue
		}
		ok, real := true, 0
		for _, id := range d.in[v] {
			if d.edges[id].Kind == RealEdge {
				real++
				ok = ok && g.Edges[id].Probe && !keep[id]
			}
		}
		cuttable[v] = ok && real > 0
	}
	paths := make([]uint64, len(d.out))
	cut := make([]bool, g.NumBlocks)
	for threshold := maxPaths; threshold > 0; threshold /= 2 {
		clear(cut)
		var extra uint64 // paths from new start blocks
		for i := len(d.topo) - 1; i >= 1; i-- {
			v := d.topo[i]
			if v == g.Exit {
				paths[v] = 1
				continue
			}
			var sum uint64
			for _, id := range d.out[v] {
				w := d.edges[id].Dst
				if int(w) < len(cut) && cut[w] {
					sum = SatAdd(sum, 1) // the edge becomes an end edge
				} else {
					sum = SatAdd(sum, paths[w])
				}
			}
			paths[v] = sum
			if sum > threshold && cuttable[v] {
				cut[v] = true
				if d.start[v] == NoEdge {
					extra = SatAdd(extra, sum)
				}
			}
		}
		total := extra
		for _, id := range d.out[d.root] {
			total = SatAdd(total, paths[d.edges[id].Dst])
		}
		if total > maxPaths {
			continue
		}
		cutKinds := make([]CutKind, len(g.Edges))
		copy(cutKinds, d.cutKinds)
		for id, e := range g.Edges {
			if cutKinds[id] == notCut && reachable[e.Src] && cut[e.Dst] {
				cutKinds[id] = CutLimit
			}
		}
		return buildDAG(a, reachable, cutKinds)
	}
	kept := ""
	if slices.Contains(keep, true) {
		kept = " but at blocks that kept edges enter"
	}
	return nil, fmt.Errorf("%w: %s paths, more than the limit of %d, and no cut%s brings them under it", ErrTooManyPaths, countPathsBig(d), maxPaths, kept)
}

// Graph returns the graph that was numbered.
func (n *Numbering) Graph() *Graph { return n.g }

// NumPaths returns N, the number of paths of the DAG: ids lie in [0, N).
func (n *Numbering) NumPaths() uint64 { return n.numPaths[n.root] }

// Total returns the exact number of acyclic paths before limit cuts, which is
// the function's path count for reports. It equals NumPaths unless Cuts has
// a CutLimit.
func (n *Numbering) Total() *big.Int { return new(big.Int).Set(n.total) }

// Cuts returns the cut edges of the graph, in edge id order.
func (n *Numbering) Cuts() []Cut { return append([]Cut(nil), n.cuts...) }

// CutKind returns why edge id was cut, and false if it was not.
func (n *Numbering) CutKind(id EdgeID) (CutKind, bool) {
	if id < 0 || int(id) >= len(n.cutKinds) || !n.reachable[n.g.Edges[id].Src] {
		return notCut, false
	}
	k := n.cutKinds[id]
	return k, k != notCut
}

// Root returns the DAG's virtual root, the source of every start edge. It is
// not a block of the graph: its id is Graph.NumBlocks.
func (n *Numbering) Root() BlockID { return n.root }

// Reachable reports whether block b is reachable from the entry. Blocks that
// are not are on no path and carry no probe.
func (n *Numbering) Reachable(b BlockID) bool {
	return b >= 0 && int(b) < len(n.reachable) && n.reachable[b]
}

// NumDAGEdges returns the number of edge ids: the graph's edges followed by
// the dummy edges. Ids of cut and unreachable graph edges are not in the DAG.
func (n *Numbering) NumDAGEdges() int { return len(n.edges) }

// Edge returns DAG edge id. For a graph edge that is not in the DAG it
// returns the edge as a RealEdge; check InDAG.
func (n *Numbering) Edge(id EdgeID) DAGEdge { return n.edges[id] }

// InDAG reports whether id is an edge of the DAG.
func (n *Numbering) InDAG(id EdgeID) bool {
	return id >= 0 && int(id) < len(n.inDAG) && n.inDAG[id]
}

// Out returns the DAG edges leaving node v (a block or the root) in
// numbering order. The caller must not modify the slice.
func (n *Numbering) Out(v BlockID) []EdgeID { return n.out[v] }

// In returns the DAG edges entering node v. The caller must not modify it.
func (n *Numbering) In(v BlockID) []EdgeID { return n.in[v] }

// Start returns the start edge of block b, or NoEdge if no path begins at b.
func (n *Numbering) Start(b BlockID) EdgeID { return n.start[b] }

// End returns the end edge that stands for cut edge id, or NoEdge.
func (n *Numbering) End(id EdgeID) EdgeID { return n.end[id] }

// Weight returns the Ball-Larus weight of DAG edge id (thesis Fig. 3.1):
// the sum of the weights along a path is its id.
func (n *Numbering) Weight(id EdgeID) uint64 { return n.weight[id] }

// Topo returns the DAG's nodes in topological order, root first. The caller
// must not modify the slice.
func (n *Numbering) Topo() []BlockID { return n.topo }

// TopoIndex returns v's index in Topo, or -1 for a block that is not
// reachable.
func (n *Numbering) TopoIndex(v BlockID) int {
	if v < 0 || int(v) >= len(n.topoAt) {
		return -1
	}
	return n.topoAt[v]
}
