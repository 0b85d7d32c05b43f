package wpp

// A trace of wpp traces is a sequence of paths that many calls took; to
// look at one of those calls (wpp call ID: its callers, what it called),
// the user needs a call's id. FirstCalls gives each trace its first call,
// in the order of call ids (CallID: processes, goroutines, pre-order).
//
// The call tree is a DAG of shared subtrees: a subtree that a loop calls
// a million times is one node. The walk goes down the tree in pre-order
// counting ids, and a node met again is passed over by adding its calls
// (Node.Calls) to the id: every node's first occurrence is in the first
// expansion of the first node above it that is met for the first time,
// so each node is expanded once and the ids of its first occurrence are
// the smallest. The walk is linear in the nodes' items, not in the calls.

// NoCall is no call's id.
const NoCall = ^CallID(0)

// FirstCalls returns, for each trace of function k (by its index in
// Func(k).Traces), the id of the first call that took it; nil if k did
// not run.
func (t *TWPP) FirstCalls(k FuncKey) []CallID { return t.FirstCallsIn(k, nil) }

// FirstCallsIn is FirstCalls counting only the calls of goroutines in (as
// TestGoroutines gives them; nil: all), the ids still those of the whole
// TWPP; a trace that no call of theirs took has NoCall.
func (t *TWPP) FirstCallsIn(k FuncKey, in map[*Process]map[uint64]bool) []CallID {
	fi, ok := t.funcIndex[k]
	if !ok {
		return nil
	}
	first := make([]CallID, len(t.Funcs[fi].Traces))
	for i := range first {
		first[i] = NoCall
	}
	found := make([]bool, len(first))
	left := len(first)
	visited := make([]bool, len(t.Nodes))
	var id uint64
	visit := func(n int) {
		visited[n] = true
		if nd := t.Nodes[n]; nd.Func == fi && !found[nd.Trace] {
			first[nd.Trace], found[nd.Trace] = CallID(id), true
			left--
		}
		id++
	}
	type frame struct{ node, item int }
	var stack []frame
	for _, p := range t.Processes {
		for _, g := range p.Goroutines {
			if in != nil && !in[p][g.ID] {
				for _, r := range g.Roots {
					id += t.Nodes[r].Calls
				}
				continue
			}
			for _, r := range g.Roots {
				if left == 0 {
					return first
				}
				if visited[r] {
					id += t.Nodes[r].Calls
					continue
				}
				visit(int(r))
				stack = append(stack[:0], frame{node: int(r)})
				for len(stack) > 0 {
					top := &stack[len(stack)-1]
					items := t.Nodes[top.node].Items
					for top.item < len(items) && items[top.item].Kind != ItemCall {
						top.item++
					}
					if top.item == len(items) {
						stack = stack[:len(stack)-1]
						continue
					}
					c := int(items[top.item].Node)
					top.item++
					if visited[c] {
						id += t.Nodes[c].Calls
						continue
					}
					visit(c)
					stack = append(stack, frame{node: c})
				}
			}
		}
	}
	return first
}

// AddFirstCalls sets the first call of each of ts's traces (TraceInfo.
// FirstCall), of its function's calls in the goroutines in (nil: all).
func (t *TWPP) AddFirstCalls(ts *Traces, in map[*Process]map[uint64]bool) {
	f := t.Func(ts.Func)
	if f == nil {
		return
	}
	first := t.FirstCallsIn(ts.Func, in)
	byPaths := make(map[string]int, len(f.Traces))
	for i, tr := range f.Traces {
		byPaths[pathsKey(tr.Paths)] = i
	}
	for i := range ts.Traces {
		if j, ok := byPaths[pathsKey(ts.Traces[i].Paths)]; ok && first[j] != NoCall {
			id := first[j]
			ts.Traces[i].FirstCall = &id
		}
	}
}
