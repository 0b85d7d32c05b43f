package numbering

// Weights are edge frequencies of a Graph, indexed by EdgeID: measured
// counts, or the estimate of [Numbering.StaticWeights]. Counter placement
// puts increments on the edges of least total weight. The number of calls is
// not listed: it is read off the flow at the entry (out minus in).
type Weights []float64

// LoopIterations is how many times the static heuristic assumes a loop's
// back edges run for each entry into the loop (Ball-Larus 1994 §5.1).
const LoopIterations = 10

// StaticWeights estimates edge frequencies for one call of the function with
// the heuristic of Ball-Larus 1994 §5.1:
//
//   - each loop iterates LoopIterations times: its back edges run ten times
//     for each entry into it;
//   - if a loop is entered N times and has E exit edges, each exit edge gets
//     N/E (an edge that leaves several loops gets the smallest share);
//   - a block's remaining flow splits evenly among its other out edges.
//
// A loop is a block h entered by back edges of a depth-first search of the
// graph, with its body: the blocks reachable from h, without taking a back
// edge, that reach the source of a back edge into h. An exit edge leaves the
// body. Blocks that cannot get back to h are outside the body, so a return
// inside the loop makes the branch to it the exit edge, as in the paper.
func (n *Numbering) StaticWeights() Weights {
	g := n.g
	// The loops are the graph's own, found by the back edges of a
	// depth-first search: not the cuts, which for Go put the paths' ends at
	// a loop's post block, inside the loop.
	back := make([]CutKind, len(g.Edges))
	dfsBackEdges(n.adj, n.reachable, back, false)
	loopCut := func(id EdgeID) bool { return back[id] != notCut }
	// Topological order of the reachable graph without its back edges. The
	// search reached every block from the entry along the other edges, so
	// the entry is the only block without incoming ones.
	indeg := make([]int, g.NumBlocks)
	for id, e := range g.Edges {
		if n.reachable[e.Src] && !loopCut(EdgeID(id)) {
			indeg[e.Dst]++
		}
	}
	order := []BlockID{g.Entry}
	for i := 0; i < len(order); i++ {
		for _, id := range n.adj.out[order[i]] {
			if loopCut(id) {
				continue
			}
			w := g.Edges[id].Dst
			if indeg[w]--; indeg[w] == 0 {
				order = append(order, w)
			}
		}
	}

	// Loops: heads in order, and for each the share of each of its exits.
	type loop struct {
		head  BlockID
		share float64 // entries / exit edges, filled in when head is reached
		nexit int
	}
	var loops []*loop
	byHead := make(map[BlockID]*loop)
	latches := make(map[BlockID][]BlockID)
	for id, e := range g.Edges {
		if n.reachable[e.Src] && loopCut(EdgeID(id)) {
			if byHead[e.Dst] == nil {
				l := &loop{head: e.Dst}
				byHead[e.Dst] = l
				loops = append(loops, l)
			}
			latches[e.Dst] = append(latches[e.Dst], e.Src)
		}
	}
	// exitsOf[id] lists the loops that edge id leaves.
	exitsOf := make(map[EdgeID][]*loop)
	bodies := &loopBodies{mark: make([]uint32, g.NumBlocks)}
	for _, l := range loops {
		body := bodies.find(n, l.head, latches[l.head], loopCut)
		for _, v := range body {
			for _, id := range n.adj.out[v] {
				if !bodies.in(g.Edges[id].Dst) {
					exitsOf[id] = append(exitsOf[id], l)
					l.nexit++
				}
			}
		}
	}

	w := make(Weights, len(g.Edges))
	flow := make([]float64, g.NumBlocks)
	flow[g.Entry] = 1
	for _, v := range order {
		for _, id := range n.adj.in[v] {
			if !loopCut(id) {
				flow[v] += w[id]
			}
		}
		if l := byHead[v]; l != nil {
			entries := flow[v]
			if l.nexit > 0 {
				l.share = entries / float64(l.nexit)
			}
			flow[v] = entries * (1 + LoopIterations)
		}
		// Exit edges take their share; the rest splits evenly.
		var exits float64
		others := 0
		for _, id := range n.adj.out[v] {
			if ls := exitsOf[id]; ls != nil {
				s := ls[0].share
				for _, l := range ls[1:] {
					s = min(s, l.share)
				}
				w[id] = s
				exits += s
			} else {
				others++
			}
		}
		if exits > flow[v] {
			for _, id := range n.adj.out[v] {
				if exitsOf[id] != nil {
					w[id] *= flow[v] / exits
				}
			}
			exits = flow[v]
		}
		for _, id := range n.adj.out[v] {
			if exitsOf[id] == nil {
				w[id] = (flow[v] - exits) / float64(others)
			}
		}
	}
	return w
}

// loopBodies finds loop bodies with one array of marks for all of them: a
// block is in the set being built when its mark equals the current stamp.
// Nested loops make the bodies overlap, so maps rebuilt per loop would cost
// more than the rest of the numbering.
type loopBodies struct {
	mark  []uint32
	stamp uint32 // marks the backward set; stamp+1 marks the body
	list  []BlockID
}

func (lb *loopBodies) in(v BlockID) bool { return lb.mark[v] == lb.stamp+1 }

// find returns the blocks that h reaches without taking a loop cut edge
// and that reach one of latches without passing through h again. The
// result is valid until the next call.
func (lb *loopBodies) find(n *Numbering, h BlockID, latches []BlockID, loopCut func(EdgeID) bool) []BlockID {
	g := n.g
	lb.stamp += 2
	back, body := lb.stamp, lb.stamp+1
	// Backwards from the latches, stopping at h: for a reducible loop this is
	// already the natural loop. The search takes the back edges of the loops
	// inside: without them the blocks of a nested loop past its head would
	// be outside the outer body, and the edge into them taken for an exit
	// of the outer loop (which gave the nested loop's body the outer loop's
	// share of one call, a hundredth of its estimate).
	lb.mark[h] = back
	work := lb.list[:0]
	for _, u := range latches {
		if lb.mark[u] != back {
			lb.mark[u] = back
			work = append(work, u)
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, id := range n.adj.in[v] {
			if u := g.Edges[id].Src; n.reachable[u] && lb.mark[u] != back {
				lb.mark[u] = back
				work = append(work, u)
			}
		}
	}
	// Forwards from h within that set, which drops the blocks of an
	// irreducible region that reach a latch without being reached from h.
	lb.mark[h] = body
	list := append(work, h)
	for i := 0; i < len(list); i++ {
		for _, id := range n.adj.out[list[i]] {
			if w := g.Edges[id].Dst; !loopCut(id) && lb.mark[w] == back {
				lb.mark[w] = body
				list = append(list, w)
			}
		}
	}
	lb.list = list
	return list
}

// dagWeights maps graph edge weights onto the DAG: a start edge weighs its
// cut edges (plus the calls, for the entry), an end edge its cut edge.
func (n *Numbering) dagWeights(w Weights) []float64 {
	g := n.g
	dw := make([]float64, len(n.edges))
	var calls float64
	for _, id := range n.adj.out[g.Entry] {
		calls += w[id]
	}
	for _, id := range n.adj.in[g.Entry] {
		if n.reachable[g.Edges[id].Src] {
			calls -= w[id]
		}
	}
	dw[n.start[g.Entry]] = max(calls, 0)
	for id := range g.Edges {
		switch {
		case n.inDAG[id]:
			dw[id] = w[id]
		case n.end[id] != NoEdge:
			dw[n.end[id]] = w[id]
			dw[n.start[g.Edges[id].Dst]] += w[id]
		}
	}
	return dw
}
