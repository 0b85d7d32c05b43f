package slice

import (
	"slices"
	"sort"
)

// A cursor gives OPT its nodes without locating each one, and, for calls
// whose shape has a template (shape.go), without replaying or caching
// anything per call. A slice asks for nodes going down the run
// (markSlice): a call's own nodes from its last, its children's subtrees
// between them, its entry, then its caller's nodes below it. So the
// cursor keeps a stack of the calls it is in (levels; each level's call
// an ancestor of the one above it, most often its parent) and answers
// from the top level, or goes down into the child whose subtree holds the
// node, or pops to the level that holds it. A level is either its call's
// template with the node numbers of this call put in (where its own nodes
// are between its children's subtrees, and its children's return nodes),
// or, for a call without a template (a test's body, a main's loop: calls
// of many windows), the window of the call's replay that holds the node,
// from the replay cache. Where it cannot answer (a call of code without
// statements in the metadata between two levels, a goroutine's first
// entry, which depends on another goroutine), OPT asks the replay cache
// (replayed.go) alone, which gives the same nodes: the cursor only skips
// work.
type cursor struct {
	rc     *replayCache
	t      *funcTable
	g      *gor
	gi     int32
	levels []callView // levels[:depth] are in use
	depth  int
	// data and defs hold the lists of the node given last.
	data, defs, pot []int32
	chain           []int32 // pushChain's
	// answered counts the nodes the cursor gave (tests check that it
	// answers).
	answered int
}

// A callView is a level of a cursor: call c of the cursor's goroutine,
// of template t, or, if t is nil, its window w (d) of the replay cache.
type callView struct {
	c, fn, parent int32
	first, end    int32 // its subtree's nodes
	// parentDeps says that its parent has statements in the metadata:
	// its entry depends on what the parent's replay gave it.
	parentDeps bool
	// ordinal is its index among its parent's children when the level
	// below is its parent, of a template, else -1.
	ordinal int32
	t       *shapeTemplate
	// kids are its children (a window's: those it matched).
	kids callKids
	// ids are its own nodes' numbers (a window's: d.ids, the cache's;
	// a template's in idsBuf); shift[j] is how many nodes the subtrees of
	// children 0..j-1 hold (templates only).
	ids, idsBuf, shift []int32
	// A window: d, the w-th of the call, from node wFirst to wEnd; cps
	// the call's checkpoints.
	d            *callDeps
	w            int
	wFirst, wEnd int32
	cps          []checkpoint
}

// ref returns the node a template's ref names in v.
func (v *callView) ref(r int32) int32 {
	switch {
	case r >= 0:
		return v.ids[r]
	case r == -1:
		return -1
	}
	return v.kids.ret[-2-r]
}

// own returns the index of node n among v's own nodes, or -1 and the
// child whose subtree holds n (-1 if neither: the caller asks the replay
// cache). n is in v's subtree; v's window holds it.
func (v *callView) own(n int32) (k, child int) {
	// j: how many children begin at or before n.
	lo, hi := 0, len(v.kids.first)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if v.kids.first[m] <= n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	j := lo
	if j > 0 && n < v.kids.end[j-1] {
		return -1, j - 1
	}
	if v.t == nil {
		if k, ok := slices.BinarySearch(v.ids, n); ok {
			return k, -1
		}
		return -1, -1
	}
	k = int(n - v.first - v.shift[j])
	if k < 0 || k >= len(v.ids) || v.ids[k] != n {
		return -1, -1 // cannot be: the template does not fit the call
	}
	return k, -1
}

// push makes call c of the cursor's goroutine its top level, ordinal its
// index among the children of the level below (-1 if that is not its
// parent, or not a template), and reports whether it could: c has
// statements in the metadata.
func (cu *cursor) push(c, ordinal int32) bool {
	g := cu.g
	cc := g.call(c)
	if cu.t.funcs[cc.fn].Deps == nil {
		return false
	}
	t := cu.rc.template(cc.shape)
	if cc.shape > 0 && t == nil {
		// Its shape's first call: replaying it makes the template.
		cu.rc.first(g, partRef{cu.gi, c, 0})
		t = cu.rc.template(cc.shape)
	}
	if cc.shape == 0 || t == notOneWindow {
		t = nil
	}
	if cu.depth == len(cu.levels) {
		cu.levels = append(cu.levels, callView{})
	}
	v := &cu.levels[cu.depth]
	v.c, v.fn, v.parent, v.first, v.end, v.ordinal, v.t = c, cc.fn, cc.parent, cc.first, cc.end, ordinal, t
	switch {
	case cc.parent < 0:
		v.parentDeps = false
	case cu.depth > 0 && cu.levels[cu.depth-1].c == cc.parent:
		v.parentDeps = true // a level has statements
	default:
		v.parentDeps = cu.t.funcs[g.call(cc.parent).fn].Deps != nil
	}
	v.d, v.cps, v.ids = nil, nil, nil
	if t == nil {
		v.ordinal = -1
		v.cps = cu.rc.checkpoints(g, cu.gi, c)
		v.w = -1 // no window yet (window)
		cu.depth++
		return true
	}
	if !t.fits(kidsBetween(g, c+1, cc.next, &v.kids)) {
		return false
	}
	v.shift = append(v.shift[:0], 0)
	for j := range v.kids.ch {
		v.shift = append(v.shift, v.shift[j]+v.kids.end[j]-v.kids.first[j])
	}
	v.idsBuf = v.idsBuf[:0]
	next, j := cc.first, 0
	for k := range t.nodes {
		for j < len(t.kidPos) && t.kidPos[j] == int32(k) {
			next = v.kids.end[j]
			j++
		}
		v.idsBuf = append(v.idsBuf, next)
		next++
	}
	v.ids = v.idsBuf
	cu.depth++
	return true
}

// window makes v, a level without a template, hold the window of its
// call that holds node n.
func (cu *cursor) window(v *callView, n int32) {
	if v.w >= 0 && n >= v.wFirst && n < v.wEnd {
		return
	}
	w := sort.Search(len(v.cps), func(i int) bool { return v.cps[i].node > n })
	v.w, v.wFirst, v.wEnd = w, v.first, v.end
	if w > 0 {
		v.wFirst = v.cps[w-1].node
	}
	if w < len(v.cps) {
		v.wEnd = v.cps[w].node
	}
	v.d = cu.rc.window(cu.g, partRef{cu.gi, v.c, int32(w)})
	v.ids = v.d.ids
	k := &v.kids
	k.ch, k.first, k.end, k.ret = k.ch[:0], k.first[:0], k.end[:0], k.ret[:0]
	for _, kd := range v.d.kids {
		kc := cu.g.call(kd.ch)
		k.ch = append(k.ch, kd.ch)
		k.first = append(k.first, kc.first)
		k.end = append(k.end, kc.end)
		k.ret = append(k.ret, kc.ret)
	}
}

// maxChain bounds the ancestors pushChain pushes.
const maxChain = 64

// pushChain makes call c the top level, on the levels of its ancestors
// (up to maxChain, and to the first without statements in the
// metadata), so that its entry, and those of the calls that follow, find
// their parents' replays below them; it reports whether c could be.
func (cu *cursor) pushChain(c int32) bool {
	chain := append(cu.chain[:0], c)
	for p := cu.g.call(c).parent; p >= 0 && len(chain) < maxChain; p = cu.g.call(p).parent {
		if cu.t.funcs[cu.g.call(p).fn].Deps == nil {
			break
		}
		chain = append(chain, p)
	}
	cu.chain = chain
	cu.depth = 0
	for i := len(chain) - 1; i >= 0; i-- {
		if !cu.push(chain[i], cu.ordinal(chain[i])) {
			cu.depth = 0
		}
	}
	return cu.depth > 0 && cu.levels[cu.depth-1].c == c
}

// ordinal returns the index of call c among the children of the top
// level, if it is c's parent and a template, or -1.
func (cu *cursor) ordinal(c int32) int32 {
	if cu.depth == 0 {
		return -1
	}
	pv := &cu.levels[cu.depth-1]
	if pv.t == nil {
		return -1
	}
	if j, ok := slices.BinarySearch(pv.kids.ch, c); ok {
		return int32(j)
	}
	return -1
}

// node returns node n if a level of the cursor, or a call below one,
// holds it; locate finds the goroutine and the call of a node none
// holds. The node's lists are valid until node is called again.
func (cu *cursor) node(n int32, locate func(int32) (int32, int32, error), gors []*gor) (Node, bool) {
	for {
		for cu.depth > 0 {
			v := &cu.levels[cu.depth-1]
			if n >= v.first && n < v.end {
				break
			}
			cu.depth--
		}
		if cu.depth == 0 {
			gi, c, err := locate(n)
			if err != nil {
				return Node{}, false
			}
			cu.g, cu.gi = gors[gi], gi
			if !cu.pushChain(c) {
				return Node{}, false
			}
		}
		v := &cu.levels[cu.depth-1]
		if v.t == nil {
			cu.window(v, n)
		}
		k, child := v.own(n)
		if k >= 0 {
			nd, ok := cu.nodeOf(v, k)
			if ok {
				cu.answered++
			}
			return nd, ok
		}
		if child < 0 || !cu.push(v.kids.ch[child], cu.ordinal(v.kids.ch[child])) {
			return Node{}, false
		}
	}
}

// nodeOf returns own node k of v, the top level.
func (cu *cursor) nodeOf(v *callView, k int) (Node, bool) {
	var nd Node
	if v.t == nil {
		nd = v.d.node(k)
	} else {
		tn := &v.t.nodes[k]
		cu.data, cu.defs, cu.pot = cu.data[:0], cu.defs[:0], cu.pot[:0]
		for _, w := range v.t.words[tn.off : tn.off+tn.data] {
			cu.data = append(cu.data, v.ref(w))
		}
		end := tn.off + tn.data + tn.defs
		for _, w := range v.t.words[tn.off+tn.data : end] {
			cu.defs = append(cu.defs, v.ref(w))
		}
		for _, w := range v.t.words[end : end+tn.pot] {
			cu.pot = append(cu.pot, v.ref(w))
		}
		nd = Node{Func: v.fn, Stmt: tn.stmt, Control: v.ref(tn.ctl), Call: -1}
		if tn.data > 0 {
			nd.Data = cu.data
		}
		if tn.defs > 0 {
			nd.Defs = cu.defs
		}
		if tn.pot > 0 {
			nd.Potential = cu.pot
		}
	}
	if k != 0 || (v.t == nil && v.w != 0) {
		return nd, true
	}
	// The entry depends on what its caller's replay gave it
	// (replayCache.nodeOf).
	if v.parent < 0 {
		if v.c == 0 && cu.g.start >= 0 {
			return Node{}, false // on its go statement, in another goroutine
		}
		return nd, true
	}
	if !v.parentDeps {
		return nd, true
	}
	var kd kidDeps
	switch pv := cu.below(); {
	case pv != nil && pv.t != nil && v.ordinal >= 0:
		tk := &pv.t.kids[v.ordinal]
		cu.data = cu.data[:0]
		for _, w := range pv.t.words[tk.off : tk.off+tk.n] {
			cu.data = append(cu.data, pv.ref(w))
		}
		if tk.n > 0 {
			kd.data = cu.data
		}
		kd.ctl, kd.caller = pv.ref(tk.ctl), pv.ref(tk.caller)
	case pv != nil && pv.t == nil:
		cu.window(pv, v.first) // the window that matched it
		var ok bool
		if kd, ok = pv.d.kid(v.c); !ok {
			kd = cu.rc.kid(cu.g, cu.gi, v.parent, v.c)
		}
	default:
		kd = cu.rc.kid(cu.g, cu.gi, v.parent, v.c)
	}
	nd.Data, nd.Control, nd.Call = kd.data, kd.ctl, kd.caller
	return nd, true
}

// below returns the level below the top if it is the top's parent.
func (cu *cursor) below() *callView {
	if cu.depth < 2 {
		return nil
	}
	v, pv := &cu.levels[cu.depth-1], &cu.levels[cu.depth-2]
	if pv.c != v.parent {
		return nil
	}
	return pv
}
