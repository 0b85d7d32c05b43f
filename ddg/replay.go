package ddg

import (
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
	mem   *gorMem
	// scratch are a local replay's buffers.
	scratch struct {
		lastDef, lastBlock, seqPath, kids []int32
		paths                             []uint64
		seq                               []numbering.BlockID
		sites                             []*profile.DepCall
	}
	// place notes an access placed at a node; spawned the go statements'
	// nodes by spawn; problems are appended to once each.
	place    func(a *rawAccess, node int32)
	spawned  map[uint64]int32
	problems *[]string
}

// callDeps is a call replayed locally: its own nodes (not its callees'),
// in order, with their dependences but memory, and what each child's
// entry depends on.
type callDeps struct {
	ids   []int32
	nodes []Node
	kids  map[int32]kidDeps
}

// kidDeps is what a child's entry depends on: the arguments' nodes, the
// control dependence, the calling statement (-1 for a call back from code
// that is not instrumented).
type kidDeps struct {
	data        []int32
	ctl, caller int32
}

// bytes is what d holds.
func (d *callDeps) bytes() int {
	n := 4*len(d.ids) + int(unsafe.Sizeof(Node{}))*len(d.nodes) + 64*len(d.kids)
	for i := range d.nodes {
		n += 4 * (len(d.nodes[i].Data) + len(d.nodes[i].Defs))
	}
	for _, k := range d.kids {
		n += 4 * len(k.data)
	}
	return n
}

// A rsite is one call a statement makes (as site).
type rsite struct {
	call        *profile.DepCall
	caller, ctl int32
	deferred    bool
	args        [][]int32
	result      []int32
}

// A rmatcher gives a call's sites the calls it made (as matcher).
type rmatcher struct {
	r     *replay
	kids  []int32
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
		out.nodes = append(out.nodes, Node{Func: fn, Stmt: stmt, Data: data, Control: ctl, Call: -1})
	}
	return n
}

// child replays (build) or skips (local) child call ch of the call being
// replayed, whose entry depends on data, ctl and caller, and returns its
// return node.
func (r *replay) child(out *callDeps, ch int32, data []int32, ctl, caller int32) int32 {
	if r.build {
		return r.call(ch, nil, -1, nil)
	}
	if out.kids == nil {
		out.kids = make(map[int32]kidDeps)
	}
	out.kids[ch] = kidDeps{dedupNodes(data), ctl, caller}
	c := r.g.call(ch)
	r.next = int64(c.end)
	return c.ret
}

// call replays call c. In local mode out receives its nodes, r.next is
// its first node and data and ctl are ignored (the entry's dependences
// come from its parent's replay).
func (r *replay) call(c int32, data []int32, ctl int32, out *callDeps) int32 {
	fi := r.g.call(c).fn
	f := r.t.funcs[fi]
	if r.build {
		r.g.calls[c].first = int32(r.next)
	}
	if f.Deps == nil {
		if r.build {
			r.problem(fmt.Sprintf("%s has no statements in the metadata (not a -deps build)", f.Name()))
			r.g.children(c, func(ch int32) { r.call(ch, nil, -1, nil) })
			r.g.calls[c].end = int32(r.next)
		}
		return -1
	}
	deps := f.Deps
	local := !r.build
	var lastDef, lastBlock []int32
	if local {
		sc := &r.scratch
		sc.lastDef = slices.Grow(sc.lastDef[:0], len(deps.Vars))[:len(deps.Vars)]
		lastDef = sc.lastDef
		for i := range lastDef {
			lastDef[i] = -1
		}
		sc.lastBlock = slices.Grow(sc.lastBlock[:0], len(deps.Blocks))[:len(deps.Blocks)]
		lastBlock = sc.lastBlock
		for i := range lastBlock {
			lastBlock[i] = -1
		}
	}
	entry := r.node(out, fi, 0, nil, -1)
	if local {
		for _, v := range deps.Stmts[0].Defs {
			lastDef[v] = entry
		}
	}
	// The statements the call ran, in order, with their blocks and the
	// index of the path of each.
	// A local replay does not recurse: it reuses its buffers.
	var paths []uint64
	var seq []numbering.BlockID
	var seqPath []int32
	var kids []int32
	var sites []*profile.DepCall
	if local {
		sc := &r.scratch
		paths, seq, seqPath, kids, sites = sc.paths[:0], sc.seq[:0], sc.seqPath[:0], sc.kids[:0], sc.sites[:0]
		defer func() {
			sc.paths, sc.seq, sc.seqPath, sc.kids, sc.sites = paths, seq, seqPath, kids, sites
		}()
	}
	paths = r.g.pathIDs(c, paths)
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
	if out != nil {
		n := 1
		for _, blk := range seq {
			n += len(deps.Blocks[blk])
		}
		out.ids = slices.Grow(out.ids, n)
		out.nodes = slices.Grow(out.nodes, n)
	}
	// The memory accesses by path, as Load places them.
	var byPath [][]int32
	left := 0
	if r.build && r.mem != nil {
		byPath = make([][]int32, len(paths))
		for a := r.mem.head[c]; a >= 0; a = r.mem.acc[a].next {
			if len(byPath) == 0 {
				left++
				continue
			}
			k := min(int(r.mem.acc[a].path), len(byPath)-1)
			byPath[k] = append(byPath[k], a)
		}
	}
	r.g.children(c, func(ch int32) { kids = append(kids, ch) })
	for _, blk := range seq {
		for _, si := range deps.Blocks[blk] {
			for k := range deps.Stmts[si].Calls {
				sites = append(sites, &deps.Stmts[si].Calls[k])
			}
		}
	}
	m := &rmatcher{r: r, kids: kids, sites: sites}
	controlOf := func(blk numbering.BlockID) int32 {
		best := int32(-1)
		for _, e := range f.control.Of(blk) {
			if n := lastBlock[f.Func.Edges[e].Src]; n > best {
				best = n
			}
		}
		if best < 0 {
			return entry
		}
		return best
	}
	var spawns []uint64
	if r.build && r.mem != nil {
		spawns = r.mem.spawns[c]
	}
	ret := int32(-1)
	var deferred []*rsite
	for bi, blk := range seq {
		ctl := int32(-1)
		if local {
			ctl = controlOf(blk)
		}
		stmts := deps.Blocks[blk]
		for _, si := range stmts {
			st := &deps.Stmts[si]
			var data, defs []int32
			if local {
				for _, v := range st.Uses {
					d := lastDef[v]
					if d >= 0 {
						data = append(data, d)
					}
					defs = append(defs, d)
				}
			}
			n := r.node(out, fi, si, nil, ctl)
			k := len(out.nodesOrNil()) - 1
			sites := make([]*rsite, len(st.Calls))
			passed := make([]bool, len(st.Calls))
			for ci := range st.Calls {
				dc := &st.Calls[ci]
				s := &rsite{call: dc, deferred: st.Defer && ci == len(st.Calls)-1, caller: n, ctl: ctl}
				if local {
					for ai := range max(len(dc.Args), len(dc.ArgCalls)) {
						var from []int32
						if ai < len(dc.Args) {
							for _, v := range dc.Args[ai] {
								if d := lastDef[v]; d >= 0 {
									from = append(from, d)
								}
							}
						}
						if ai < len(dc.ArgCalls) {
							for _, j := range dc.ArgCalls[ai] {
								from = append(from, sites[j].result...)
								passed[j] = true
							}
						}
						s.args = append(s.args, from)
					}
				}
				sites[ci] = s
				if s.deferred {
					deferred = append(deferred, s)
					m.next++
					continue
				}
				m.run(out, s)
			}
			if local {
				for j, s := range sites {
					if !passed[j] && !s.deferred {
						data = append(data, s.result...)
					}
				}
				out.nodes[k].Data = dedupNodes(data)
				out.nodes[k].Defs = defs
				for _, v := range st.Defs {
					lastDef[v] = n
				}
				lastBlock[blk] = n
			}
			if byPath != nil {
				list := byPath[seqPath[bi]]
				kept := list[:0]
				for _, a := range list {
					if r.mem.acc[a].stmt == uint32(si) {
						r.place(&r.mem.acc[a], n)
					} else {
						kept = append(kept, a)
					}
				}
				byPath[seqPath[bi]] = kept
			}
			if st.Return {
				ret = n
			}
			if st.Go && len(spawns) > 0 {
				r.spawned[spawns[0]] = n
				spawns = spawns[1:]
			}
		}
		if local && len(stmts) == 0 && ctl >= 0 {
			lastBlock[blk] = ctl
		}
	}
	for i := len(deferred) - 1; i >= 0; i-- {
		m.run(out, deferred[i])
	}
	for _, list := range byPath {
		left += len(list)
	}
	if left > 0 {
		r.problem(fmt.Sprintf("%s: memory accesses after the last statement its paths show (a panic?) are left out", f.Name()))
	}
	for _, ch := range m.kids {
		r.child(out, ch, nil, -1, -1)
	}
	if r.build {
		r.g.calls[c].end = int32(r.next)
		r.g.calls[c].ret = ret
	}
	return ret
}

// nodesOrNil returns d's nodes, nil for no d.
func (d *callDeps) nodesOrNil() []Node {
	if d == nil {
		return nil
	}
	return d.nodes
}

// run matches site s with the next call, as matcher.run.
func (m *rmatcher) run(out *callDeps, s *rsite) {
	r := m.r
	m.next++
	if len(m.kids) > 0 && r.t.matches(r.g.call(m.kids[0]).fn, s.call) {
		ch := m.kids[0]
		m.kids = m.kids[1:]
		var data []int32
		for _, a := range s.args {
			data = append(data, a...)
		}
		if ret := r.child(out, ch, data, s.ctl, s.caller); ret >= 0 {
			s.result = []int32{ret}
		}
		return
	}
	for len(m.kids) > 0 && !r.t.instrumented(s.call) && m.callback(m.kids[0]) {
		ch := m.kids[0]
		m.kids = m.kids[1:]
		r.child(out, ch, nil, s.ctl, -1)
	}
	for _, a := range s.args {
		s.result = append(s.result, a...)
	}
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
