package numbering

import "fmt"

// A BlockID names a block of a [Graph]: 0 ≤ id < Graph.NumBlocks.
type BlockID int32

// An EdgeID names an edge of a [Graph] (0 ≤ id < Graph.NumEdges()) or a
// dummy edge of a [Numbering]'s DAG (ids from Graph.NumEdges() up).
type EdgeID int32

// NoEdge is the EdgeID of no edge.
const NoEdge EdgeID = -1

// An Edge is a transfer of control from Src to Dst.
type Edge struct {
	Src, Dst BlockID
	// Probe reports whether profiling code can be placed on the edge. Edges
	// that cannot hold a probe are forced into the spanning tree, so they
	// never carry an increment, a register initialisation or a counter
	// update; a cycle-breaking cut never falls on them.
	Probe bool
}

// A Graph is the control-flow graph of one function.
//
// The zero Graph is empty; build one with [Graph.AddBlock] and
// [Graph.AddEdge] and set Entry and Exit. Nothing is checked until [Number]
// is called, which reports a malformed graph as an error. Edge ids are
// stable: an edge's id is its index in Edges.
type Graph struct {
	NumBlocks int
	Edges     []Edge
	// Entry is where the function starts. It may have incoming edges (a loop
	// back to the first block); they are cut like any other back edge.
	Entry BlockID
	// Exit is the single block every return, panic and other path end leads
	// to. It must have no outgoing edges.
	Exit BlockID
}

// AddBlock adds a block and returns its id.
func (g *Graph) AddBlock() BlockID {
	g.NumBlocks++
	return BlockID(g.NumBlocks - 1)
}

// AddEdge adds an edge and returns its id.
func (g *Graph) AddEdge(src, dst BlockID, probe bool) EdgeID {
	g.Edges = append(g.Edges, Edge{Src: src, Dst: dst, Probe: probe})
	return EdgeID(len(g.Edges) - 1)
}

// NumEdges returns the number of edges.
func (g *Graph) NumEdges() int { return len(g.Edges) }

// adjacency is the checked form of a Graph: out and in edge lists per block.
type adjacency struct {
	g       *Graph
	out, in [][]EdgeID
}

// maxGraphSize bounds blocks and edges so that ids, including dummy edges and
// the virtual root, fit in int32.
const maxGraphSize = 1 << 28

// check validates the structure of g (ids in range, entry and exit sound) and
// builds its adjacency lists.
func check(g *Graph) (*adjacency, error) {
	if g == nil {
		return nil, fmt.Errorf("%w: nil graph", ErrInvalidGraph)
	}
	if g.NumBlocks < 2 {
		return nil, fmt.Errorf("%w: %d blocks; a graph needs at least an entry and an exit", ErrInvalidGraph, g.NumBlocks)
	}
	if g.NumBlocks > maxGraphSize || len(g.Edges) > maxGraphSize {
		return nil, fmt.Errorf("%w: %d blocks and %d edges is more than the limit of %d", ErrInvalidGraph, g.NumBlocks, len(g.Edges), maxGraphSize)
	}
	if !g.valid(g.Entry) || !g.valid(g.Exit) {
		return nil, fmt.Errorf("%w: entry b%d or exit b%d is not a block (graph has %d)", ErrInvalidGraph, g.Entry, g.Exit, g.NumBlocks)
	}
	if g.Entry == g.Exit {
		return nil, fmt.Errorf("%w: entry and exit are the same block b%d", ErrInvalidGraph, g.Entry)
	}
	a := &adjacency{g: g, out: make([][]EdgeID, g.NumBlocks), in: make([][]EdgeID, g.NumBlocks)}
	for i, e := range g.Edges {
		if !g.valid(e.Src) || !g.valid(e.Dst) {
			return nil, fmt.Errorf("%w: edge e%d (b%d→b%d) is dangling: the graph has blocks b0..b%d", ErrInvalidGraph, i, e.Src, e.Dst, g.NumBlocks-1)
		}
		if e.Src == g.Exit {
			return nil, fmt.Errorf("%w: edge e%d leaves the exit block b%d", ErrInvalidGraph, i, g.Exit)
		}
		a.out[e.Src] = append(a.out[e.Src], EdgeID(i))
		a.in[e.Dst] = append(a.in[e.Dst], EdgeID(i))
	}
	return a, nil
}

func (g *Graph) valid(b BlockID) bool { return b >= 0 && int(b) < g.NumBlocks }

// edgeString formats an edge as "e3 (b1→b2)" for error messages and dumps.
func (g *Graph) edgeString(id EdgeID) string {
	e := g.Edges[id]
	return fmt.Sprintf("e%d (b%d→b%d)", id, e.Src, e.Dst)
}
