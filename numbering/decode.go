package numbering

import (
	"fmt"
	"sort"
)

// Decode returns the path with Ball-Larus id: its DAG edges from the root to
// the exit. At each node it takes the out edge with the largest weight not
// above what is left of the id; weights grow along an out list by the number
// of paths behind each earlier edge, so that edge is the one the path took.
func (n *Numbering) Decode(id uint64) ([]EdgeID, error) {
	if id >= n.NumPaths() {
		return nil, fmt.Errorf("%w: id %d is not below the %d paths", ErrBadPath, id, n.NumPaths())
	}
	var path []EdgeID
	rest := id
	for v := n.root; v != n.g.Exit; {
		out := n.out[v]
		i := sort.Search(len(out), func(i int) bool { return n.weight[out[i]] > rest }) - 1
		e := out[i]
		path = append(path, e)
		rest -= n.weight[e]
		v = n.edges[e].Dst
	}
	return path, nil
}

// Encode returns the Ball-Larus id of a path given as DAG edges from the root
// to the exit, or an error wrapping ErrBadPath if it is not one.
func (n *Numbering) Encode(path []EdgeID) (uint64, error) {
	var id uint64
	at := n.root
	for i, e := range path {
		if !n.InDAG(e) {
			return 0, fmt.Errorf("%w: step %d: e%d is not an edge of the DAG", ErrBadPath, i, e)
		}
		if n.edges[e].Src != at {
			return 0, fmt.Errorf("%w: step %d: e%d leaves b%d, but the path is at b%d", ErrBadPath, i, e, n.edges[e].Src, at)
		}
		id += n.weight[e]
		at = n.edges[e].Dst
	}
	if at != n.g.Exit || len(path) == 0 {
		return 0, fmt.Errorf("%w: it stops at b%d, not at the exit b%d", ErrBadPath, at, n.g.Exit)
	}
	return id, nil
}

// Blocks returns the blocks a path of DAG edges runs through, in order: the
// target of each edge but an end edge. A path that ends at a cut edge does not
// reach the exit block.
func (n *Numbering) Blocks(path []EdgeID) []BlockID {
	blocks := make([]BlockID, 0, len(path))
	for _, e := range path {
		if n.edges[e].Kind != EndEdge {
			blocks = append(blocks, n.edges[e].Dst)
		}
	}
	return blocks
}

// GraphEdges returns the edges of the graph a path takes, in order: its real
// edges and, for a path ending at a cut edge, that edge.
func (n *Numbering) GraphEdges(path []EdgeID) []EdgeID {
	edges := make([]EdgeID, 0, len(path))
	for _, e := range path {
		switch n.edges[e].Kind {
		case RealEdge:
			edges = append(edges, e)
		case EndEdge:
			edges = append(edges, n.edges[e].Cut)
		}
	}
	return edges
}
