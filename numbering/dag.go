package numbering

import (
	"fmt"
	"slices"
)

// An EdgeKind tells a real edge of the graph from the dummy edges that
// replace cut edges in the DAG.
type EdgeKind uint8

const (
	// RealEdge is an edge of the Graph that was not cut.
	RealEdge EdgeKind = iota
	// StartEdge goes from the virtual root to a block where paths begin: the
	// entry (the function's start) or the target of cut edges.
	StartEdge
	// EndEdge goes from the source of a cut edge to the exit: the path ends
	// when the cut edge is taken.
	EndEdge
)

func (k EdgeKind) String() string {
	switch k {
	case RealEdge:
		return "real"
	case StartEdge:
		return "start"
	case EndEdge:
		return "end"
	}
	return fmt.Sprintf("EdgeKind(%d)", k)
}

// A DAGEdge is an edge of a Numbering's DAG.
type DAGEdge struct {
	Src, Dst BlockID // Src is Numbering.Root() for a StartEdge
	Kind     EdgeKind
	// Cut is, for an EndEdge, the cut edge of the Graph that it ends the path
	// at; NoEdge otherwise.
	Cut EdgeID
}

// A CutKind says why an edge of the graph was cut.
type CutKind uint8

const (
	notCut CutKind = iota
	// CutPreferred: a caller-named edge that lies on a cycle (for Go, an edge
	// into a for loop's post statement).
	CutPreferred
	// CutBackEdge: a back edge of the depth-first search that breaks the
	// cycles left by the preferred cuts (goto, irreducible graphs).
	CutBackEdge
	// CutLimit: an edge into a block where the DAG was cut so that the
	// number of paths fits in Options.MaxPaths.
	CutLimit
)

func (k CutKind) String() string {
	switch k {
	case notCut:
		return "none"
	case CutPreferred:
		return "preferred"
	case CutBackEdge:
		return "back edge"
	case CutLimit:
		return "path limit"
	}
	return fmt.Sprintf("CutKind(%d)", k)
}

// A Cut is an edge of the graph that ends a path and starts the next one.
type Cut struct {
	Edge EdgeID
	Kind CutKind
}

// dag is the acyclic graph numbered by Ball-Larus: reachable blocks, a
// virtual root, the real edges that were not cut, and dummy edges.
type dag struct {
	g        *Graph
	root     BlockID    // virtual node, = g.NumBlocks
	edges    []DAGEdge  // indexed by EdgeID; real edges at their own id
	inDAG    []bool     // per edge id: part of the DAG
	out, in  [][]EdgeID // per node, including root
	topo     []BlockID  // topological order, root first
	topoAt   []int      // per node: its index in topo, -1 if unreachable
	start    []EdgeID   // per block: its start edge, or NoEdge
	end      []EdgeID   // per graph edge: the end edge of a cut edge, or NoEdge
	cutKinds []CutKind  // per graph edge
}

// buildDAG builds the DAG of the reachable part of a.g with the given cuts.
// The cuts must break every cycle; buildDAG reports an error if they do not.
func buildDAG(a *adjacency, reachable []bool, cutKinds []CutKind) (*dag, error) {
	g := a.g
	nb := g.NumBlocks
	d := &dag{
		g:        g,
		root:     BlockID(nb),
		edges:    make([]DAGEdge, len(g.Edges), len(g.Edges)+len(g.Edges)/4+2),
		inDAG:    make([]bool, len(g.Edges), len(g.Edges)+len(g.Edges)/4+2),
		out:      make([][]EdgeID, nb+1),
		in:       make([][]EdgeID, nb+1),
		start:    make([]EdgeID, nb),
		end:      make([]EdgeID, len(g.Edges)),
		cutKinds: cutKinds,
	}
	for i := range d.start {
		d.start[i] = NoEdge
	}
	for i, e := range g.Edges {
		d.edges[i] = DAGEdge{Src: e.Src, Dst: e.Dst, Kind: RealEdge, Cut: NoEdge}
		d.end[i] = NoEdge
	}
	add := func(e DAGEdge) EdgeID {
		id := EdgeID(len(d.edges))
		d.edges = append(d.edges, e)
		d.inDAG = append(d.inDAG, true)
		return id
	}
	// The function's start comes first, so paths from the entry get the
	// lowest ids.
	d.start[g.Entry] = add(DAGEdge{Src: d.root, Dst: g.Entry, Kind: StartEdge, Cut: NoEdge})
	for i, e := range g.Edges {
		if reachable[e.Src] && cutKinds[i] != notCut && d.start[e.Dst] == NoEdge {
			d.start[e.Dst] = add(DAGEdge{Src: d.root, Dst: e.Dst, Kind: StartEdge, Cut: NoEdge})
		}
	}
	for i, e := range g.Edges {
		if reachable[e.Src] && cutKinds[i] != notCut {
			d.end[i] = add(DAGEdge{Src: e.Src, Dst: g.Exit, Kind: EndEdge, Cut: EdgeID(i)})
		}
	}
	// Out lists: real edges in graph order, then end edges in graph order.
	// The order fixes the Ball-Larus numbering, so it must not depend on
	// anything but the graph.
	for v := range nb {
		if !reachable[v] {
			continue
		}
		for _, id := range a.out[v] {
			if cutKinds[id] == notCut {
				d.inDAG[id] = true
				d.out[v] = append(d.out[v], id)
			}
		}
		for _, id := range a.out[v] {
			if cutKinds[id] != notCut {
				d.out[v] = append(d.out[v], d.end[id])
			}
		}
	}
	for id := range d.edges {
		if !d.inDAG[id] {
			continue
		}
		e := d.edges[id]
		if e.Kind == StartEdge {
			d.out[d.root] = append(d.out[d.root], EdgeID(id))
		}
		d.in[e.Dst] = append(d.in[e.Dst], EdgeID(id))
	}
	// The root's out list must be in start-edge id order: entry first.
	slices.Sort(d.out[d.root])

	// Kahn's algorithm from the root gives the topological order and proves
	// the cuts broke every cycle.
	indeg := make([]int, nb+1)
	for v := range d.in {
		indeg[v] = len(d.in[v])
	}
	d.topo = make([]BlockID, 0, nb+1)
	d.topo = append(d.topo, d.root)
	for i := 0; i < len(d.topo); i++ {
		for _, id := range d.out[d.topo[i]] {
			w := d.edges[id].Dst
			indeg[w]--
			if indeg[w] == 0 {
				d.topo = append(d.topo, w)
			}
		}
	}
	nreach := 1 // the root
	for _, r := range reachable {
		if r {
			nreach++
		}
	}
	if len(d.topo) != nreach {
		return nil, fmt.Errorf("internal error: cuts left a cycle (%d of %d nodes ordered)", len(d.topo), nreach)
	}
	d.topoAt = make([]int, nb+1)
	for i := range d.topoAt {
		d.topoAt[i] = -1
	}
	for i, v := range d.topo {
		d.topoAt[v] = i
	}
	return d, nil
}

// breakCycles chooses the cut edges that turn the reachable part of the graph
// into a DAG: the preferred edges that lie on a cycle, then the back edges of
// a depth-first search. A back edge that cannot hold a probe is never cut;
// instead the search cuts the probe-capable edge of the cycle nearest to it
// and starts again.
func breakCycles(a *adjacency, reachable []bool, preferred []EdgeID) ([]CutKind, error) {
	g := a.g
	cutKinds := make([]CutKind, len(g.Edges))
	if len(preferred) > 0 {
		scc := components(a, reachable)
		for _, id := range preferred {
			e := g.Edges[id]
			if !reachable[e.Src] || scc[e.Src] != scc[e.Dst] {
				continue // not on a cycle: nothing to break
			}
			if !e.Probe {
				return nil, fmt.Errorf("%w: preferred cut %s cannot hold a probe", ErrBadOptions, g.edgeString(id))
			}
			cutKinds[id] = CutPreferred
		}
	}
	for {
		unprobed, treePath := dfsBackEdges(a, reachable, cutKinds, true)
		if unprobed == NoEdge {
			return cutKinds, nil
		}
		// treePath runs from the back edge's source up towards its target;
		// the first edge with a probe breaks this cycle. There is one: a
		// cycle of edges without probes was rejected before.
		cutAt := NoEdge
		for _, id := range treePath {
			if g.Edges[id].Probe {
				cutAt = id
				break
			}
		}
		if cutAt == NoEdge {
			return nil, &UnprobedCycleError{Edges: append(treePath, unprobed), Directed: true, g: g}
		}
		// A failed search marked nothing, so only this cut is new.
		cutKinds[cutAt] = CutBackEdge
	}
}

// dfsBackEdges runs a depth-first search from the entry (then from any
// reachable block not yet visited) over the edges that are not cut yet and
// marks its back edges CutBackEdge. If needProbe is set and one of them
// cannot hold a probe, it marks none of them and returns that edge with the
// tree path from its source up to its target (innermost edge first).
func dfsBackEdges(a *adjacency, reachable []bool, cutKinds []CutKind, needProbe bool) (EdgeID, []EdgeID) {
	g := a.g
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, g.NumBlocks)
	parent := make([]EdgeID, g.NumBlocks)
	type frame struct {
		v    BlockID
		next int
	}
	var back []EdgeID
	// A forest: blocks reached only through cut edges may hide cycles too.
	roots := []BlockID{g.Entry}
	for v := range g.NumBlocks {
		if reachable[v] {
			roots = append(roots, BlockID(v))
		}
	}
	for _, root := range roots {
		if color[root] != white {
			continue
		}
		stack := []frame{{v: root}}
		color[root] = grey
		parent[root] = NoEdge
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(a.out[top.v]) {
				color[top.v] = black
				stack = stack[:len(stack)-1]
				continue
			}
			id := a.out[top.v][top.next]
			top.next++
			if cutKinds[id] != notCut {
				continue
			}
			w := g.Edges[id].Dst
			switch color[w] {
			case white:
				color[w] = grey
				parent[w] = id
				stack = append(stack, frame{v: w})
			case grey:
				if needProbe && !g.Edges[id].Probe {
					var path []EdgeID
					for v := g.Edges[id].Src; v != w; v = g.Edges[parent[v]].Src {
						path = append(path, parent[v])
					}
					return id, path
				}
				back = append(back, id)
			}
		}
	}
	for _, id := range back {
		cutKinds[id] = CutBackEdge
	}
	return NoEdge, nil
}

// components returns the strongly connected component of every reachable
// block (Tarjan's algorithm, iterative).
func components(a *adjacency, reachable []bool) []int32 {
	g := a.g
	n := g.NumBlocks
	index := make([]int32, n)
	low := make([]int32, n)
	comp := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
		comp[i] = -1
	}
	var (
		counter int32
		ncomp   int32
		stack   []BlockID
	)
	type frame struct {
		v    BlockID
		next int
	}
	for root := range n {
		if !reachable[root] || index[root] >= 0 {
			continue
		}
		work := []frame{{v: BlockID(root)}}
		index[root], low[root] = counter, counter
		counter++
		stack = append(stack, BlockID(root))
		onStack[root] = true
		for len(work) > 0 {
			top := &work[len(work)-1]
			v := top.v
			if top.next < len(a.out[v]) {
				w := g.Edges[a.out[v][top.next]].Dst
				top.next++
				if index[w] < 0 {
					index[w], low[w] = counter, counter
					counter++
					stack = append(stack, w)
					onStack[w] = true
					work = append(work, frame{v: w})
				} else if onStack[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
			work = work[:len(work)-1]
			if len(work) > 0 {
				p := work[len(work)-1].v
				low[p] = min(low[p], low[v])
			}
		}
	}
	return comp
}
