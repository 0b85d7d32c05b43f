package numbering

import "fmt"

// A CallSite is a call made in a caller's block whose callee is inlined into
// the caller's graph for analysis (thesis §3.4.3, Fig. 3.12(b)).
type CallSite struct {
	// Block is the caller's block that makes the call. Sites that share a
	// block are inlined in the order given, which must be the order in
	// which the block makes its calls.
	Block BlockID
	// Callee is the called function's graph. For segments deeper than one
	// call, it is itself a supergraph's Graph.
	Callee *Graph
	// Preferred are the callee's preferred cuts (see [Options.Preferred]).
	Preferred []EdgeID
}

// A Supergraph is a caller's graph with the callees of some of its call
// sites inlined, so that an interprocedural path segment through those sites
// (a caller path, a callee path, the rest of the caller path) is one acyclic
// path of the supergraph. It is built for numbering only: the callee's code
// is not copied into the caller but runs as a clone that continues the
// caller's path register (thesis §3.4.5).
//
// Its first blocks and edges are the caller's, with the same ids, so that a
// numbering of the supergraph reads the caller's edges directly. A block
// with calls becomes a chain: the caller's block (up to the first call), the
// callee's blocks, a block for the code after the call, and so on; the
// caller block's outgoing edges leave from the last block of its chain.
// Each call adds two edges: the call, from the block before it to the
// callee's entry, and the return, from the callee's exit to the block
// after it. The call edge can hold a probe, whose code goes at the start of
// the callee's clone; the return edge cannot. A callee's panics reach its
// exit like its returns and so continue the caller's path; a path cut short
// by a panic is not counted, as within one function.
type Supergraph struct {
	Graph     Graph
	Preferred []EdgeID
	// Blocks and Edges say where each block and edge of Graph comes from.
	Blocks []BlockOrigin
	Edges  []EdgeOrigin
}

// A BlockOrigin places a supergraph block in the caller or a callee.
type BlockOrigin struct {
	// Site is the index of the call site whose callee holds the block, or
	// -1 for the caller.
	Site  int
	Block BlockID
	// After is, for a caller block split by calls, how many of its calls
	// come before this part of it.
	After int
}

// An EdgeOrigin places a supergraph edge in the caller or a callee.
type EdgeOrigin struct {
	// Site is the index of the call site whose callee holds the edge, or
	// -1 for the caller. The call and return edges of a site have the
	// site's index.
	Site int
	// Edge is the edge in that graph, or CallEdge or ReturnEdge.
	Edge EdgeID
}

// The Edge of an EdgeOrigin for the two edges a call site adds.
const (
	CallEdge   EdgeID = -2
	ReturnEdge EdgeID = -3
)

// Inline builds the supergraph of caller with the callees of sites inlined.
// It reports sites in the caller's exit block, out-of-range blocks and
// malformed callees as errors wrapping ErrInvalidGraph.
func Inline(caller *Graph, callerPreferred []EdgeID, sites []CallSite) (*Supergraph, error) {
	if _, err := check(caller); err != nil {
		return nil, err
	}
	for i, s := range sites {
		if !caller.valid(s.Block) || s.Block == caller.Exit {
			return nil, fmt.Errorf("%w: call site %d in block b%d, which is not a caller block that can call", ErrInvalidGraph, i, s.Block)
		}
		if _, err := check(s.Callee); err != nil {
			return nil, fmt.Errorf("call site %d's callee: %w", i, err)
		}
		for _, p := range s.Preferred {
			if p < 0 || int(p) >= len(s.Callee.Edges) {
				return nil, fmt.Errorf("%w: call site %d: preferred edge e%d is not the callee's", ErrInvalidGraph, i, p)
			}
		}
	}
	for _, p := range callerPreferred {
		if p < 0 || int(p) >= len(caller.Edges) {
			return nil, fmt.Errorf("%w: preferred edge e%d is not the caller's", ErrInvalidGraph, p)
		}
	}

	sg := &Supergraph{Preferred: append([]EdgeID(nil), callerPreferred...)}
	g := &sg.Graph
	g.NumBlocks, g.Entry, g.Exit = caller.NumBlocks, caller.Entry, caller.Exit
	g.Edges = append(g.Edges, caller.Edges...)
	for b := range caller.NumBlocks {
		sg.Blocks = append(sg.Blocks, BlockOrigin{Site: -1, Block: BlockID(b)})
	}
	for e := range caller.Edges {
		sg.Edges = append(sg.Edges, EdgeOrigin{Site: -1, Edge: EdgeID(e)})
	}

	// last[b] is the block of b's chain that its next call follows.
	last := make(map[BlockID]BlockID)
	calls := make(map[BlockID]int)
	addEdge := func(src, dst BlockID, probe bool, o EdgeOrigin) EdgeID {
		sg.Edges = append(sg.Edges, o)
		return g.AddEdge(src, dst, probe)
	}
	for i, s := range sites {
		before, ok := last[s.Block]
		if !ok {
			before = s.Block
		}
		off := BlockID(g.NumBlocks)
		for b := range s.Callee.NumBlocks {
			g.AddBlock()
			sg.Blocks = append(sg.Blocks, BlockOrigin{Site: i, Block: BlockID(b)})
		}
		firstEdge := EdgeID(len(g.Edges))
		for e, ce := range s.Callee.Edges {
			addEdge(off+ce.Src, off+ce.Dst, ce.Probe, EdgeOrigin{Site: i, Edge: EdgeID(e)})
		}
		for _, p := range s.Preferred {
			sg.Preferred = append(sg.Preferred, firstEdge+p)
		}
		calls[s.Block]++
		after := g.AddBlock()
		sg.Blocks = append(sg.Blocks, BlockOrigin{Site: -1, Block: s.Block, After: calls[s.Block]})
		addEdge(before, off+s.Callee.Entry, true, EdgeOrigin{Site: i, Edge: CallEdge})
		addEdge(off+s.Callee.Exit, after, false, EdgeOrigin{Site: i, Edge: ReturnEdge})
		last[s.Block] = after
	}
	// The caller block's own edges leave from the end of its chain.
	for e := range caller.Edges {
		if end, ok := last[caller.Edges[e].Src]; ok {
			g.Edges[e].Src = end
		}
	}
	return sg, nil
}

// A NestedSite is a call site of a tree of inlined calls: a call made in
// block Block of the caller (Parent -1) or of the callee of site Parent,
// which comes before it in the list.
type NestedSite struct {
	Parent    int
	Block     BlockID
	Callee    *Graph
	Preferred []EdgeID
}

// InlineNested builds the supergraph of caller with the callees of sites
// inlined, each with the callees of its own sites inlined in turn: the
// segments deeper than one call. The supergraph's origins name sites by
// their index in sites. Sites of one parent that share a block are inlined
// in the order given, which must be the order the block makes its calls.
func InlineNested(caller *Graph, callerPreferred []EdgeID, sites []NestedSite) (*Supergraph, error) {
	for i, s := range sites {
		if s.Parent < -1 || s.Parent >= i {
			return nil, fmt.Errorf("%w: site %d has parent %d, not an earlier site", ErrInvalidGraph, i, s.Parent)
		}
	}
	return inlineNested(-1, caller, callerPreferred, sites)
}

// inlineNested builds the supergraph of the function of site node (-1: the
// caller), whose graph is g, with its child sites inlined, their own sites
// inlined in turn.
func inlineNested(node int, g *Graph, pref []EdgeID, sites []NestedSite) (*Supergraph, error) {
	var kids []int
	for i, s := range sites {
		if s.Parent == node {
			kids = append(kids, i)
		}
	}
	subs := make([]*Supergraph, len(kids))
	calls := make([]CallSite, len(kids))
	for k, c := range kids {
		sub, err := inlineNested(c, sites[c].Callee, sites[c].Preferred, sites)
		if err != nil {
			return nil, err
		}
		subs[k] = sub
		calls[k] = CallSite{Block: sites[c].Block, Callee: &sub.Graph, Preferred: sub.Preferred}
	}
	sg, err := Inline(g, pref, calls)
	if err != nil {
		return nil, err
	}
	// Origins in a child's supergraph name the child's own sites by their
	// index in sites already; those of this level name kids.
	for i, o := range sg.Blocks {
		if o.Site < 0 {
			sg.Blocks[i].Site = node
		} else {
			sg.Blocks[i] = subs[o.Site].Blocks[o.Block]
		}
	}
	for i, o := range sg.Edges {
		switch {
		case o.Site < 0:
			sg.Edges[i].Site = node
		case o.Edge == CallEdge || o.Edge == ReturnEdge:
			sg.Edges[i].Site = kids[o.Site]
		default:
			sg.Edges[i] = subs[o.Site].Edges[o.Edge]
		}
	}
	return sg, nil
}
