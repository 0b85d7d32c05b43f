package slice

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A replay replays the calls of a goroutine's compact form as Load does
// (builder.replay), in one of two modes. Numbering (build) replays a
// root call and, within it, every call of its subtree: it numbers their
// nodes, places memory accesses at them and notes the go statements, but
// computes no dependence. Local replays one numbered call alone, taking
// its children's subtrees as numbered: it gives each of its nodes the
// dependences Load gives it, and each child what its entry depends on.
// OPT's slicer infers every dependence but those through memory this
// way, from the call's paths, when it needs them.
type replay struct {
	t    *funcTable
	g    *gor
	gi   int32 // the goroutine's index in the run
	next int64 // the next node's number

	build bool
	// windowStmts, if not 0, replaces the constant in a local replay's
	// windows (tests replay in windows of a few statements).
	windowStmts int
	mem         *gorMem
	scratch     replayScratch // a local replay's buffers
	// place notes an access placed at a node; spawned the go statements'
	// nodes by spawn; problems are appended to once each.
	place func(a *rawAccess, node int32)
	// placeValue, if set, notes a word of a value placed at a node of
	// function fn (rawAccess of kind valueWord).
	placeValue func(a *rawAccess, fn, node int32)
	spawned    map[uint64]int32
	problems   *[]string
	// err is the first error reading the accesses back (build).
	err error
	// accStack holds the accesses of the calls being replayed (build).
	accStack []rawAccess
}

// replayScratch are a local replay's buffers, reused from call to call.
type replayScratch struct {
	lastDef, lastBlock, seqPath, data, defs, pot []int32
	seq                                          []numbering.BlockID
	sites                                        []*profile.DepCall
	// out is the window being replayed: its arrays grow here, and each
	// window is handed on copied to arrays of its size.
	out callDeps
}

// window returns a window of function fn to replay into, its arrays the
// buffers'.
func (sc *replayScratch) window(fn int32) *callDeps {
	o := &sc.out
	*o = callDeps{fn: fn, ids: o.ids[:0], nodes: o.nodes[:0], kids: o.kids[:0], words: o.words[:0]}
	return o
}

// done returns the window replayed into the buffers, copied.
func (sc *replayScratch) done() *callDeps {
	o := &sc.out
	return &callDeps{fn: o.fn, ids: slices.Clone(o.ids), nodes: slices.Clone(o.nodes), kids: slices.Clone(o.kids), words: slices.Clone(o.words)}
}

// reset returns the buffers of the last definition of each variable of
// deps and the last node of each of its blocks, all -1.
func (sc *replayScratch) reset(deps *profile.Deps) (lastDef, lastBlock []int32) {
	sc.lastDef = slices.Grow(sc.lastDef[:0], len(deps.Vars))[:len(deps.Vars)]
	sc.lastBlock = slices.Grow(sc.lastBlock[:0], len(deps.Blocks))[:len(deps.Blocks)]
	for i := range sc.lastDef {
		sc.lastDef[i] = -1
	}
	for i := range sc.lastBlock {
		sc.lastBlock[i] = -1
	}
	return sc.lastDef, sc.lastBlock
}

// callDeps is (a window of) a call replayed locally: its own nodes (not
// its callees'), in order, with their dependences but memory, and what
// each child's entry depends on. It holds no pointer but its arrays, so
// that the cache of millions of them costs the collector little.
type callDeps struct {
	fn    int32
	ids   []int32
	nodes []cnode
	kids  []ckid  // in the order of their calls
	words []int32 // each node's data then its defs, each kid's data
	size  int     // bytes, once replayed
}

// A cnode is a node of a callDeps: its statement and control dependence,
// and where its data, defs and potential dependences are in words (in
// that order, from off).
type cnode struct {
	stmt, ctl            int32
	off, data, defs, pot uint32
}

// A ckid is what child call ch's entry depends on: the arguments' nodes
// (n at off in words), the control dependence, the calling statement (-1
// for a call back from code that is not instrumented).
type ckid struct {
	ch, ctl, caller int32
	off, n          uint32
}

// kidDeps is what a child's entry depends on, as ckid says.
type kidDeps struct {
	data        []int32
	ctl, caller int32
}

// node returns node k of d, its lists in d's words.
func (d *callDeps) node(k int) Node {
	c := &d.nodes[k]
	var data, defs []int32
	if c.data > 0 {
		data = d.words[c.off : c.off+c.data : c.off+c.data]
	}
	end := c.off + c.data + c.defs
	if c.defs > 0 {
		defs = d.words[c.off+c.data : end : end]
	}
	var pot []int32
	if c.pot > 0 {
		pot = d.words[end : end+c.pot : end+c.pot]
	}
	return Node{Func: d.fn, Stmt: c.stmt, Data: data, Defs: defs, Control: c.ctl, Call: -1, Potential: pot}
}

// setDeps sets the data, defs and potential dependences of d's last node.
func (d *callDeps) setDeps(data, defs, pot []int32) {
	c := &d.nodes[len(d.nodes)-1]
	c.off, c.data, c.defs, c.pot = uint32(len(d.words)), uint32(len(data)), uint32(len(defs)), uint32(len(pot))
	d.words = append(d.words, data...)
	d.words = append(d.words, defs...)
	d.words = append(d.words, pot...)
}

// kid returns what child ch's entry depends on, if d matched it.
func (d *callDeps) kid(ch int32) (kidDeps, bool) {
	k, ok := slices.BinarySearchFunc(d.kids, ch, func(k ckid, ch int32) int { return cmp.Compare(k.ch, ch) })
	if !ok {
		return kidDeps{}, false
	}
	c := &d.kids[k]
	var data []int32
	if c.n > 0 {
		data = d.words[c.off : c.off+c.n : c.off+c.n]
	}
	return kidDeps{data, c.ctl, c.caller}, true
}

// bytes is what d holds.
func (d *callDeps) bytes() int {
	return 96 + 4*cap(d.ids) + int(unsafe.Sizeof(cnode{}))*cap(d.nodes) + int(unsafe.Sizeof(ckid{}))*cap(d.kids) + 4*cap(d.words)
}

// A rsite is one call a statement makes (as site).
type rsite struct {
	call        *profile.DepCall
	caller, ctl int32
	deferred    bool
	args        []int32 // the nodes its arguments depend on, all of them
	result      []int32
	ret         [1]int32 // result's array, for a callee's return
}

// A rmatcher gives a call's sites the calls it made (as matcher).
type rmatcher struct {
	r *replay
	// kid is the next child to match, end the end of the call's subtree.
	kid, end int32
	// sites are the call's sites, next the next one to run (local: of
	// the window's, which end with those the matcher looks ahead to).
	sites []*profile.DepCall
	next  int
}

func (r *replay) problem(s string) {
	if r.problems != nil {
		*r.problems = appendOnce(*r.problems, s)
	}
}

// node numbers a node of the call being replayed.
func (r *replay) node(out *callDeps, fn, stmt int32, data []int32, ctl int32) int32 {
	n := int32(r.next)
	if r.next < math.MaxInt32 {
		r.next++
	}
	if out != nil {
		out.ids = append(out.ids, n)
		out.nodes = append(out.nodes, cnode{stmt: stmt, ctl: ctl})
	}
	return n
}

// child replays (build) or skips (local) child call ch of the call being
// replayed, whose entry depends on data, ctl and caller, and returns its
// return node.
func (r *replay) child(out *callDeps, ch int32, data []int32, ctl, caller int32) int32 {
	if r.build {
		return r.call(ch)
	}
	data = dedupNodes(data)
	out.kids = append(out.kids, ckid{ch: ch, ctl: ctl, caller: caller, off: uint32(len(out.words)), n: uint32(len(data))})
	out.words = append(out.words, data...)
	c := r.g.call(ch)
	r.next = int64(c.end)
	return c.ret
}

// call replays (build) call c and, within it, its subtree, and returns
// its return node.
func (r *replay) call(c int32) int32 {
	cc := r.g.call(c)
	f := r.t.funcs[cc.fn]
	r.g.enter(c, int32(r.next))
	if f.Deps == nil {
		r.callWithoutDeps(c, f)
		return -1
	}
	deps := f.Deps
	r.node(nil, cc.fn, 0, nil, -1)
	// The statements the call ran, in order, with their blocks and the
	// index of the path of each.
	paths := r.g.pathIDs(c, nil)
	seq, seqPath := r.blocks(f, paths, nil, nil)
	var accs []rawAccess
	var byPath [][]int32
	left := 0
	if r.mem != nil {
		mark := len(r.accStack)
		defer func() { r.accStack = r.accStack[:mark] }()
		accs, byPath, left = r.accessesByPath(c, f, paths)
	}
	m := &rmatcher{r: r, kid: c + 1, end: cc.next, sites: callSites(deps, seq, nil)}
	var spawns []uint64
	if r.mem != nil {
		spawns = r.mem.spawns[c]
	}
	cr := &callReplay{r: r, f: f, fi: cc.fn, deps: deps, m: m, accs: accs, byPath: byPath, spawns: spawns, ret: -1}
	cr.stmts(seq, seqPath)
	cr.runDeferred()
	for _, list := range byPath {
		left += len(list)
	}
	r.leftOut(f, left)
	cr.matchRest()
	r.exit(c, cr.ret)
	return cr.ret
}

// exit notes that call c's replay (build) ended, with return node ret,
// and gives the call its shape's number.
func (r *replay) exit(c, ret int32) {
	var shape int32
	if r.t.shapes != nil {
		shape = r.t.shapes.of(r.t, r.g, c) // its children have returned
	}
	if err := r.g.exit(c, int32(r.next), ret, shape); err != nil && r.err == nil {
		r.err = err
	}
}

// runDeferred runs the call's deferred calls, last deferred first.
func (cr *callReplay) runDeferred() {
	for i := len(cr.deferred) - 1; i >= 0; i-- {
		cr.m.run(cr.out, cr.deferred[i])
	}
}

// matchRest matches the children left when the call ends: calls back
// from code that is not instrumented.
func (cr *callReplay) matchRest() {
	m := cr.m
	for ; m.kid < m.end; m.kid = m.r.g.call(m.kid).next {
		cr.r.child(cr.out, m.kid, nil, -1, -1)
	}
}

// windowStmts is about how many statements a window of a local replay
// holds, so that a call of millions of statements (a test's, a main's
// loop) is held and replayed a window at a time, each window again from
// its checkpoint alone.
const windowStmts = 1 << 14

// A checkpoint is the state of a call's local replay where one of its
// windows begins, after its first.
type checkpoint struct {
	// path is the index of the window's first path, off where its id is
	// in the call's path list.
	path, off int
	// node is the number of the window's first node, its own or a
	// child's.
	node int32
	// kid is the next child to match, the end of the call's subtree if
	// none is left.
	kid                int32
	ret                int32
	lastDef, lastBlock []int32
	deferred           []rsite
}

// localWindows replays call c of g alone, a window at a time, from
// checkpoint from (nil: the call's entry). Each window's replay is handed
// to each with the checkpoint of the window after it (nil after the
// last; only made if more is true), until each returns false.
func (r *replay) localWindows(g *gor, gi, c int32, from *checkpoint, more bool, each func(d *callDeps, next *checkpoint) bool) {
	r.g, r.gi = g, gi
	cc := g.call(c)
	f := r.t.funcs[cc.fn]
	if f.Deps == nil {
		each(&callDeps{fn: cc.fn}, nil)
		return
	}
	deps := f.Deps
	sc := &r.scratch
	lastDef, lastBlock := sc.reset(deps)
	m := &rmatcher{r: r, kid: c + 1, end: cc.next}
	cr := &callReplay{r: r, f: f, fi: cc.fn, deps: deps, local: true, entry: cc.first, lastDef: lastDef, lastBlock: lastBlock, m: m, ret: -1}
	n, list := g.pathList(c)
	path, off := 0, 0
	out := sc.window(cc.fn)
	if from == nil {
		r.next = int64(cc.first)
		r.node(out, cc.fn, 0, nil, -1)
		for _, v := range deps.Stmts[0].Defs {
			lastDef[v] = cc.first
		}
	} else {
		r.next = int64(from.node)
		path, off = from.path, from.off
		m.kid, cr.ret = from.kid, from.ret
		copy(lastDef, from.lastDef)
		copy(lastBlock, from.lastBlock)
		for i := range from.deferred {
			s := from.deferred[i]
			cr.deferred = append(cr.deferred, &s)
		}
	}
	window := cmp.Or(r.windowStmts, windowStmts)
	seq, seqPath, sites := sc.seq[:0], sc.seqPath[:0], sc.sites[:0]
	defer func() { sc.seq, sc.seqPath, sc.sites = seq, seqPath, sites }()
	for {
		// The window's paths, at least one, and the sites of the paths
		// after it that the matcher looks ahead to.
		seq, seqPath = seq[:0], seqPath[:0]
		for stmts := 0; path < n && (stmts < window || len(seq) == 0); path++ {
			blocks, k, err := decodePath(f, list[off:])
			if err != nil {
				r.problem(err.Error())
				n = path // a path that does not decode ends the call's
				break
			}
			off += k
			seq = append(seq, blocks...)
			for _, b := range blocks {
				stmts += len(deps.Blocks[b])
				seqPath = append(seqPath, int32(path))
			}
		}
		sites = callSites(deps, seq, sites[:0])
		own := len(sites)
		for p, o := path, off; p < n && len(sites) < own+lookahead; p++ {
			blocks, k, err := decodePath(f, list[o:])
			if err != nil {
				break
			}
			o += k
			sites = callSites(deps, blocks, sites)
		}
		m.sites, m.next = sites, 0
		cr.out = out
		cr.stmts(seq, seqPath)
		if path >= n {
			cr.runDeferred()
			cr.matchRest()
			each(sc.done(), nil)
			return
		}
		var next *checkpoint
		if more {
			next = &checkpoint{path: path, off: off, node: int32(r.next), kid: m.kid, ret: cr.ret,
				lastDef: slices.Clone(lastDef), lastBlock: slices.Clone(lastBlock)}
			for _, s := range cr.deferred {
				next.deferred = append(next.deferred, *s)
			}
		}
		if !each(sc.done(), next) {
			return
		}
		out = sc.window(cc.fn)
	}
}

// decodePath decodes the first path id of list, a function's, into its
// blocks, and says how many bytes it took.
func decodePath(f *Func, list []byte) ([]numbering.BlockID, int, error) {
	id, k := binary.Uvarint(list)
	if k <= 0 {
		return nil, 0, fmt.Errorf("%s: a path id does not decode", f.Name())
	}
	blocks, err := f.pathBlocks(id)
	return blocks, k, err
}

// run matches site s with the next call, as matcher.run.
func (m *rmatcher) run(out *callDeps, s *rsite) {
	r := m.r
	m.next++
	if m.kid < m.end && r.t.matches(r.g.call(m.kid).fn, s.call) {
		ch := m.kid
		m.kid = r.g.call(ch).next
		if ret := r.child(out, ch, s.args, s.ctl, s.caller); ret >= 0 {
			s.ret[0] = ret
			s.result = s.ret[:]
		}
		return
	}
	for m.kid < m.end && !r.t.instrumented(s.call) && m.callback(m.kid) {
		ch := m.kid
		m.kid = r.g.call(ch).next
		r.child(out, ch, nil, s.ctl, -1)
	}
	s.result = s.args
}

// callback reports whether call ch is a call back from the code the
// current site called (as matcher.callback).
func (m *rmatcher) callback(ch int32) bool {
	fn := m.r.g.call(ch).fn
	for j := m.next; j < len(m.sites) && j < m.next+lookahead; j++ {
		if m.r.t.matches(fn, m.sites[j]) {
			return false
		}
	}
	return true
}

// accessesByPath returns the memory accesses of call c, and their indexes
// by the index of the path they belong to, as Load places them: the first
// accesses after a path's record that its tail made are that path's
// (profile.InTail), the others the next path's; and how many come after
// the last path's record and its tail (a path cut short by a panic).
func (r *replay) accessesByPath(c int32, f *Func, paths []uint64) (accs []rawAccess, byPath [][]int32, left int) {
	// The calls being replayed take their accesses in turn, a child's
	// after its parent's: they share one stack (accStack), which call
	// pops.
	mark := len(r.accStack)
	stack, err := r.mem.take(c, r.accStack)
	if err != nil && r.err == nil {
		r.err = err
	}
	r.accStack = stack
	accs = stack[mark:len(stack):len(stack)]
	byPath = make([][]int32, len(paths))
	var run []int32
	for a := 0; a < len(accs); {
		k := accs[a].path
		run = run[:0]
		for ; a < len(accs) && accs[a].path == k; a++ {
			run = append(run, int32(a))
		}
		if k < 0 {
			left += len(run) // cannot be: an attributed access follows its path
			continue
		}
		inTail := 0
		if k > 0 && int(k) <= len(paths) && !r.mem.attributed {
			tail, err := f.tail(paths[k-1])
			if err != nil {
				r.problem(err.Error())
			}
			inTail = profile.InTail(tail, len(run), func(i int) int32 { return int32(accs[run[i]].stmt) })
			byPath[k-1] = append(byPath[k-1], run[:inTail]...)
		}
		if int(k) >= len(byPath) {
			left += len(run) - inTail
			continue
		}
		byPath[k] = append(byPath[k], run[inTail:]...)
	}
	return accs, byPath, left
}

// placeStmt places at node n, of function fn, the accesses (and the
// values' words) of list, indexes in accs, that statement si made, and
// returns the others.
func (r *replay) placeStmt(accs []rawAccess, list []int32, fn, si int32, n int32) []int32 {
	kept := list[:0]
	placed := false
	for _, a := range list {
		acc := &accs[a]
		switch {
		case acc.stmt != uint32(si):
			kept = append(kept, a)
			continue
		case acc.kind != valueWord:
			r.place(acc, n)
		case r.placeValue != nil:
			r.placeValue(acc, fn, n)
		}
		placed = true
	}
	if placed {
		r.t.funcs[fn].markAccessed(si)
	}
	return kept
}

// uses appends to data and defs the nodes that statement st's uses read,
// given the last definition of each variable (-1 for none): those
// defined, and one per use, -1 included.
func uses(st *profile.DepStmt, lastDef []int32, data, defs []int32) ([]int32, []int32) {
	for _, v := range st.Uses {
		d := lastDef[v]
		if d >= 0 {
			data = append(data, d)
		}
		defs = append(defs, d)
	}
	return data, defs
}

// args returns the nodes the arguments of call dc depend on: the last
// definitions of the variables they read and the results of the calls
// (earlier sites of its statement) whose results they pass, which are
// marked passed.
func args(dc *profile.DepCall, lastDef []int32, sites []*rsite, passed []bool) []int32 {
	var out []int32
	for _, vs := range dc.Args {
		for _, v := range vs {
			if d := lastDef[v]; d >= 0 {
				out = append(out, d)
			}
		}
	}
	for _, js := range dc.ArgCalls {
		for _, j := range js {
			out = append(out, sites[j].result...)
			passed[j] = true
		}
	}
	return out
}

// A callReplay is the state of replay.call through one call's
// statements.
type callReplay struct {
	r     *replay
	out   *callDeps
	f     *Func
	fi    int32
	deps  *profile.Deps
	local bool
	entry int32 // the call's entry node
	// lastDef and lastBlock are the last node that defined each variable
	// and the last of each block (local only).
	lastDef, lastBlock []int32
	m                  *rmatcher
	deferred           []*rsite
	// sites and passed are a statement's, reused from one to the next
	// (a call's statements do not nest).
	sites    []rsite
	sitePtrs []*rsite
	passed   []bool
	accs     []rawAccess // the call's accesses (build only)
	byPath   [][]int32   // those yet to place, by path
	spawns   []uint64    // the spawns yet to place (build only)
	ret      int32
}

// stmt replays statement si of block blk, run in the call's path of index
// path under control dependence ctl.
func (cr *callReplay) stmt(si int32, blk numbering.BlockID, path int32, ctl int32) {
	r, out, m := cr.r, cr.out, cr.m
	st := &cr.deps.Stmts[si]
	var data, defs []int32
	if cr.local {
		data, defs = uses(st, cr.lastDef, r.scratch.data[:0], r.scratch.defs[:0])
	}
	n := r.node(out, cr.fi, si, nil, ctl)
	nc := len(st.Calls)
	cr.sites = slices.Grow(cr.sites[:0], nc)[:nc]
	cr.sitePtrs = slices.Grow(cr.sitePtrs[:0], nc)[:nc]
	cr.passed = slices.Grow(cr.passed[:0], nc)[:nc]
	sites, passed := cr.sitePtrs, cr.passed
	clear(passed)
	for ci := range st.Calls {
		dc := &st.Calls[ci]
		s := &cr.sites[ci]
		*s = rsite{call: dc, deferred: st.Defer && ci == len(st.Calls)-1, caller: n, ctl: ctl}
		if cr.local {
			s.args = args(dc, cr.lastDef, sites, passed)
		}
		if s.deferred {
			// It runs when the call ends: it outlives the statement.
			s = &rsite{call: s.call, deferred: true, caller: n, ctl: ctl, args: s.args}
			cr.deferred = append(cr.deferred, s)
			sites[ci] = s
			m.next++
			continue
		}
		sites[ci] = s
		m.run(out, s)
	}
	if cr.local {
		for j, s := range sites {
			if !passed[j] && !s.deferred {
				data = append(data, s.result...)
			}
		}
		var pot []int32
		if cands := cr.f.potentialsOf(si); len(cands) > 0 {
			pot = appendPotential(cands, st.Uses, cr, r.scratch.pot[:0])
			r.scratch.pot = pot[:0]
		}
		out.setDeps(dedupNodes(data), defs, pot)
		r.scratch.data, r.scratch.defs = data[:0], defs[:0]
		for _, v := range st.Defs {
			cr.lastDef[v] = n
		}
		cr.lastBlock[blk] = n
	}
	if cr.byPath != nil {
		cr.byPath[path] = r.placeStmt(cr.accs, cr.byPath[path], cr.fi, si, n)
	}
	if st.Return {
		cr.ret = n
	}
	if st.Go && len(cr.spawns) > 0 {
		r.spawned[cr.spawns[0]] = n
		cr.spawns = cr.spawns[1:]
	}
}

// lastDefOf returns the node that last defined variable v in the call
// (local only), or -1.
func (cr *callReplay) lastDefOf(v int32) int32 { return cr.lastDef[v] }

// lastBlockOf returns the last node of block b in the call (local only),
// or -1.
func (cr *callReplay) lastBlockOf(b numbering.BlockID) int32 { return cr.lastBlock[b] }

// controlOf returns the node that block blk depends on: the last node of
// the blocks it is control dependent on, or the call's entry.
func (cr *callReplay) controlOf(blk numbering.BlockID) int32 {
	best := int32(-1)
	for _, e := range cr.f.control.Of(blk) {
		if n := cr.lastBlock[cr.f.Func.Edges[e].Src]; n > best {
			best = n
		}
	}
	if best < 0 {
		return cr.entry
	}
	return best
}

// blocks appends to seq the blocks of paths of f in order, and to seqPath
// the index of the path of each; a path that does not decode ends them.
func (r *replay) blocks(f *Func, paths []uint64, seq []numbering.BlockID, seqPath []int32) ([]numbering.BlockID, []int32) {
	for k, id := range paths {
		blocks, err := f.pathBlocks(id)
		if err != nil {
			r.problem(err.Error())
			break
		}
		seq = append(seq, blocks...)
		for range blocks {
			seqPath = append(seqPath, int32(k))
		}
	}
	return seq, seqPath
}

// callSites appends to sites the call sites of blocks seq, in order.
func callSites(deps *profile.Deps, seq []numbering.BlockID, sites []*profile.DepCall) []*profile.DepCall {
	for _, blk := range seq {
		for _, si := range deps.Blocks[blk] {
			for k := range deps.Stmts[si].Calls {
				sites = append(sites, &deps.Stmts[si].Calls[k])
			}
		}
	}
	return sites
}

// stmts replays the statements of blocks seq, run in the paths of index
// seqPath.
func (cr *callReplay) stmts(seq []numbering.BlockID, seqPath []int32) {
	for bi, blk := range seq {
		ctl := int32(-1)
		if cr.local {
			ctl = cr.controlOf(blk)
		}
		stmts := cr.deps.Blocks[blk]
		for _, si := range stmts {
			cr.stmt(si, blk, seqPath[bi], ctl)
		}
		if cr.local && len(stmts) == 0 && ctl >= 0 {
			cr.lastBlock[blk] = ctl
		}
	}
}

// callWithoutDeps replays (build) call c of f, which has no statements in
// the metadata: its subtree is numbered, and it has no node.
func (r *replay) callWithoutDeps(c int32, f *Func) {
	if r.build {
		r.problem(fmt.Sprintf("%s has no statements in the metadata (not a -deps build)", f.Name()))
		r.g.children(c, func(ch int32) { r.call(ch) })
		r.exit(c, -1)
	}
}

// leftOut notes that n accesses of a call of f were not placed.
func (r *replay) leftOut(f *Func, n int) {
	if n > 0 {
		r.problem(fmt.Sprintf("%s: memory accesses (or values) after the last statement its paths show (a panic?) are left out", f.Name()))
	}
}
