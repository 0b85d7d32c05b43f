package slice

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/static/control"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A Graph is a run's dynamic dependence graph with every dependence
// instance explicit (the paper's FP): one node per statement instance,
// each with the instances it depends on.
type Graph struct {
	// Funcs are the functions that ran, by their order of first call.
	Funcs []*Func
	// Nodes are the statement instances, goroutine by goroutine (in the
	// order the recordings list them), in the order each ran.
	Nodes []Node
	// Goroutines are, per goroutine, the file, its id and its first node.
	Goroutines []Goroutine
	// Problems are what the replay could not follow exactly: calls it could
	// not match to a call site, paths of functions without dependence
	// information.
	Problems []string
}

// A Goroutine is where one goroutine's nodes begin in Graph.Nodes.
type Goroutine struct {
	File      string
	ID        uint64
	FirstNode int
}

// A Func is a function of the run with its static dependence information.
type Func struct {
	Package string // import path, without a test variant's suffix
	Meta    *profile.Meta
	Func    *profile.Func
	Deps    *profile.Deps
	n       *numbering.Numbering
	control *control.Deps
	key     funcKey // where the metadata has it
	// blocks caches the blocks of each path id; tails its tail
	// (profile.Func.Tail).
	blocks map[uint64][]numbering.BlockID
	tails  map[uint64]map[int32]bool
	// accessed has a bit for each statement that a memory access of the
	// run (or a value's word) was placed at, by OPT's build: the nodes
	// of the others have no labels to look up.
	accessed []uint64
	// pot are the predicate blocks each statement's uses may potentially
	// depend on (potentialsOf), worked out once.
	potOnce sync.Once
	pot     [][]potCand
}

// markAccessed notes that an access was placed at an execution of
// statement si.
func (f *Func) markAccessed(si int32) {
	if w := int(si >> 6); w >= len(f.accessed) {
		f.accessed = slices.Grow(f.accessed, w+1-len(f.accessed))[:w+1]
	}
	f.accessed[si>>6] |= 1 << (si & 63)
}

// wasAccessed reports whether markAccessed noted statement si.
func (f *Func) wasAccessed(si int32) bool {
	w := int(si >> 6)
	return w < len(f.accessed) && f.accessed[w]&(1<<(si&63)) != 0
}

// Name is the function's name with its package.
func (f *Func) Name() string { return f.Package + "." + f.Func.Name }

// A Node is a statement instance.
type Node struct {
	Func int32 // index in Graph.Funcs
	Stmt int32 // index in the function's Deps.Stmts
	// Data are the nodes whose values it read: the last definitions of the
	// variables it uses, the return statements of the calls whose results
	// it uses, the arguments of a call whose callee is not instrumented;
	// for a function's entry, the arguments of its call.
	Data []int32
	// Control is the predicate instance it is control dependent on, or -1.
	Control int32
	// Defs are, for each of the statement's Uses, the node that defined
	// the variable, or -1 (also in Data).
	Defs []int32
	// Memory are the nodes that last wrote the memory it read (a -deps
	// build's recorded accesses; see memory.go).
	Memory []int32
	// Call is, for a function's entry, the statement that called it, or
	// -1: a slice that reaches the entry takes the call statement and its
	// control dependence, not the results it goes on to use.
	Call int32
	// Potential are the predicate executions its uses potentially depend
	// on (potential.go), use by use: each use's list ended by -1, the
	// lists of the uses after the last that has one left out.
	Potential []int32
}

// DefaultMaxNodes is Load's default limit on a graph's nodes: a graph of
// that many takes a few gigabytes.
const DefaultMaxNodes = 20_000_000

// ErrTooLarge is wrapped by Load's error for a run with more statement
// executions than its limit.
var ErrTooLarge = errors.New("too many statement executions")

// recordDeps says how to make a recording the slicer reads.
const recordDeps = "record one with pathcover test -deps or pppexec -deps"

// Load replays the recordings of a -deps build in dir (its metadata and
// whole program paths) into a dependence graph of at most maxNodes nodes
// (DefaultMaxNodes if 0): a larger run is an error wrapping ErrTooLarge,
// found as soon as the replay passes the limit, so that the machine is
// not swamped.
func Load(dir string, maxNodes int) (*Graph, error) {
	if maxNodes <= 0 {
		maxNodes = DefaultMaxNodes
	}
	p := profile.New()
	problems, err := p.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names, err := profile.Need(dir, profile.KindWPP, recordDeps)
	if err != nil {
		return nil, err
	}
	g := &Graph{}
	for _, e := range problems {
		g.Problems = append(g.Problems, e.Error())
	}
	b := &builder{g: g, p: p, funcs: make(map[funcKey]int32), maxNodes: maxNodes}
	for _, name := range names {
		f, err := profile.OpenWPP(name)
		if err != nil {
			return nil, err
		}
		err = b.file(f)
		b.proc++
		f.Close()
		if err != nil {
			return nil, err
		}
		if b.tooLarge {
			return nil, fmt.Errorf("%s: %w: more than %d; slice a smaller run (pathcover test -deps -run TestX) or raise the limit", dir, ErrTooLarge, maxNodes)
		}
	}
	if !b.anyDeps {
		return nil, fmt.Errorf("%s was not recorded by a -deps build: its metadata has no statements (record with pathcover test -deps or pppexec -deps)", dir)
	}
	b.replayMemory()
	return g, nil
}

type funcKey struct {
	hash  string
	index uint32
}

type builder struct {
	g       *Graph
	p       *profile.Profile
	funcs   map[funcKey]int32
	anyDeps bool
	// goroutine is the index of the goroutine being replayed, and accesses
	// the memory accesses of all goroutines, placed (memory.go).
	goroutine int32
	accesses  []access
	// proc is the index of the recording (the process) being replayed.
	proc int32
	// spawned gives the node of the go statement of each spawn of the file
	// being replayed; started are its goroutines' first calls.
	spawned map[uint64]int32
	started []started
	// maxNodes is the limit on nodes; tooLarge says the replay passed it
	// and stopped.
	maxNodes int
	tooLarge bool
}

// fn returns the index of a function, adding it.
func (b *builder) fn(k funcKey) (int32, error) {
	if i, ok := b.funcs[k]; ok {
		return i, nil
	}
	f, err := newFunc(b.p, k)
	if err != nil {
		return 0, err
	}
	b.anyDeps = b.anyDeps || f.Deps != nil
	i := int32(len(b.g.Funcs))
	b.g.Funcs = append(b.g.Funcs, f)
	b.funcs[k] = i
	return i, nil
}

// A memAccess is a memory event of a call, and the index of the path in
// which it was made: a path is acyclic, so a statement runs at most once in
// it, and the accesses of one path and statement are one execution's.
type memAccess struct {
	profile.WPPEvent
	path int
}

// errStop stops a walk of events.
var errStop = errors.New("stop")

// A call is one call of a goroutine's stream: its paths and the calls it
// made, in order.
type call struct {
	fn       int32
	paths    []uint64
	children []*call
	// mem are its memory accesses, in order, each with the index of the
	// path it was made in (the paths recorded before it).
	mem []memAccess
	// entry is its entry node once replayed, or -1.
	entry int32
	// spawns are the goroutines it started, in order.
	spawns []uint64
}

// entryOf returns the entry node of a replayed call.
func (b *builder) entryOf(c *call) int32 { return c.entry }

// file replays every goroutine of one recording.
func (b *builder) file(f *profile.WPPFile) error {
	base := filepath.Base(f.Name)
	b.spawned = make(map[uint64]int32)
	for _, gid := range f.Goroutines() {
		var spawn uint64
		roots, err := b.calls(f, gid, &spawn)
		if b.tooLarge {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: goroutine %d: %v", base, gid, err)
		}
		b.g.Goroutines = append(b.g.Goroutines, Goroutine{File: base, ID: gid, FirstNode: len(b.g.Nodes)})
		b.goroutine = int32(len(b.g.Goroutines) - 1)
		for _, c := range roots {
			if b.tooLarge {
				return nil
			}
			b.replay(c, nil, -1)
		}
		if spawn != 0 && len(roots) > 0 && roots[0].entry >= 0 {
			b.started = append(b.started, started{spawn, roots[0].entry})
		}
	}
	// A goroutine's first call depends on the go statement that started
	// it, and on what that statement read (the function and arguments).
	for _, s := range b.started {
		if n, ok := b.spawned[s.spawn]; ok {
			entry := &b.g.Nodes[s.entry]
			entry.Call = n
			entry.Data = dedupNodes(append(entry.Data, b.g.Nodes[n].Data...))
		}
	}
	b.started, b.spawned = nil, nil
	return nil
}

// started is a goroutine's first call, and the spawn that started it.
type started struct {
	spawn uint64
	entry int32
}

// calls splits a goroutine's stream into its calls (wpp.Walk).
func (b *builder) calls(f *profile.WPPFile, gid uint64, start *uint64) ([]*call, error) {
	var roots []*call
	var seq uint64
	events := 0
	enter := func(hash string, fn uint32, caller *call, hasCaller bool) (*call, error) {
		fi, err := b.fn(funcKey{hash, fn})
		if err != nil {
			return nil, err
		}
		c := &call{fn: fi, entry: -1}
		if hasCaller {
			caller.children = append(caller.children, c)
		} else {
			roots = append(roots, c)
		}
		return c, nil
	}
	_, err := wpp.Walk(wpp.FileSource{WPPFile: f}, gid, enter, func(st *wpp.Step[*call]) error {
		// A call's events are held until it is replayed: about as many
		// as nodes.
		if events++; events > b.maxNodes {
			b.tooLarge = true
			return errStop
		}
		switch st.Kind {
		case profile.WPPMemory:
			seq += st.Seq
			e := *st.WPPEvent
			e.Seq = seq                                                         // from here on, the access's number in the process
			st.Call.mem = append(st.Call.mem, memAccess{e, len(st.Call.paths)}) // Up levels below: a range-over-func body's caller
		case profile.WPPPath:
			st.Call.paths = append(st.Call.paths, st.Path)
		case profile.WPPSpawn:
			st.Call.spawns = append(st.Call.spawns, st.Spawn)
		case profile.WPPStart:
			*start = st.Spawn
		}
		return nil
	})
	return roots, err
}

// A frame is the state of a call being replayed.
type frame struct {
	fn      *Func
	fi      int32
	lastDef map[int32]int32 // variable → the node that last defined it
	// lastBlock is, per block, the last node of its latest execution: the
	// predicate instance that blocks control dependent on it depend on.
	lastBlock map[numbering.BlockID]int32
	entry     int32
	ret       int32 // the last return statement's node, or -1
}

// A site is one call that a call's statements make, in order.
type site struct {
	call *profile.DepCall
	// caller is the node of the statement that makes the call, and ctl
	// its control dependence: a deferred call runs later, but still
	// depends on the defer statement.
	caller, ctl int32
	// deferred calls run at the function's exit.
	deferred bool
	// args are, per argument, the nodes its values come from.
	args [][]int32
	// result is what the call's result depends on: the callee's return
	// node, or, for a callee that is not instrumented, its arguments'.
	result []int32
}

// replay adds the nodes of call c, whose entry depends on args (one list
// per parameter, nil for a root call), and returns its return node (-1 for
// none).
func (b *builder) replay(c *call, args [][]int32, ctl int32) int32 {
	f := b.g.Funcs[c.fn]
	if f.Deps == nil {
		// Not described: its callees are replayed on their own.
		b.g.Problems = appendOnce(b.g.Problems, fmt.Sprintf("%s has no statements in the metadata (not a -deps build)", f.Name()))
		for _, child := range c.children {
			b.replay(child, nil, -1)
		}
		return -1
	}
	fr := &frame{fn: f, fi: c.fn, lastDef: make(map[int32]int32), lastBlock: make(map[numbering.BlockID]int32), ret: -1}
	var entryData []int32
	for _, a := range args {
		entryData = append(entryData, a...)
	}
	fr.entry = b.node(fr, 0, dedupNodes(entryData), ctl)
	c.entry = fr.entry
	for _, v := range f.Deps.Stmts[0].Defs {
		fr.lastDef[v] = fr.entry
	}
	// The statements the call ran, in order, with their blocks and the
	// index of the path of each.
	var seq []numbering.BlockID
	var seqPath []int
	for k, id := range c.paths {
		blocks, err := f.pathBlocks(id)
		if err != nil {
			b.g.Problems = appendOnce(b.g.Problems, err.Error())
			break
		}
		seq = append(seq, blocks...)
		for range blocks {
			seqPath = append(seqPath, k)
		}
	}
	// The memory accesses by path. An access is recorded after the paths
	// before it, but a path's record is made where it is counted, and its
	// statements after that (its tail: a store after a loop's branches, a
	// return statement) run after the record: the first accesses after a
	// path's record that its tail made are that path's (profile.InTail).
	byPath := make([][]profile.WPPEvent, len(c.paths))
	left := 0
	for i := 0; i < len(c.mem); {
		k, j := c.mem[i].path, i
		for j < len(c.mem) && c.mem[j].path == k {
			j++
		}
		run := c.mem[i:j]
		i = j
		inTail := 0
		if k > 0 && k <= len(c.paths) {
			tail, err := f.tail(c.paths[k-1])
			if err != nil {
				b.g.Problems = appendOnce(b.g.Problems, err.Error())
			}
			inTail = profile.InTail(tail, len(run), func(i int) int32 { return int32(run[i].Stmt) })
			for _, a := range run[:inTail] {
				byPath[k-1] = append(byPath[k-1], a.WPPEvent)
			}
		}
		if k >= len(byPath) {
			left += len(run) - inTail // a path cut short by a panic
			continue
		}
		for _, a := range run[inTail:] {
			byPath[k] = append(byPath[k], a.WPPEvent)
		}
	}
	m := &matcher{b: b, children: c.children}
	for _, blk := range seq {
		for _, si := range f.Deps.Blocks[blk] {
			for k := range f.Deps.Stmts[si].Calls {
				m.sites = append(m.sites, &f.Deps.Stmts[si].Calls[k])
			}
		}
	}
	var deferred []*site
	for bi, blk := range seq {
		if b.tooLarge {
			break
		}
		events := &byPath[seqPath[bi]]
		ctl := fr.controlOf(blk)
		stmts := f.Deps.Blocks[blk]
		for _, si := range stmts {
			st := &f.Deps.Stmts[si]
			var data []int32
			var defs []int32
			for _, v := range st.Uses {
				d, ok := fr.lastDef[v]
				if !ok {
					d = -1
				} else {
					data = append(data, d)
				}
				defs = append(defs, d)
			}
			// The statement's node comes before its callees' nodes, which
			// name it as their call.
			n := b.node(fr, si, nil, ctl)
			// The calls, in order; the statement depends on the results
			// of those whose results no other call takes.
			sites := make([]*site, len(st.Calls))
			passed := make([]bool, len(st.Calls))
			for k := range st.Calls {
				dc := &st.Calls[k]
				s := &site{call: dc, deferred: st.Defer && k == len(st.Calls)-1, caller: n, ctl: ctl}
				for ai := range max(len(dc.Args), len(dc.ArgCalls)) {
					var from []int32
					if ai < len(dc.Args) {
						for _, v := range dc.Args[ai] {
							if d, ok := fr.lastDef[v]; ok {
								from = append(from, d)
							}
						}
					}
					if ai < len(dc.ArgCalls) {
						for _, ci := range dc.ArgCalls[ai] {
							from = append(from, sites[ci].result...)
							passed[ci] = true
						}
					}
					s.args = append(s.args, from)
				}
				sites[k] = s
				if s.deferred {
					deferred = append(deferred, s)
					m.next++
					continue
				}
				m.run(s)
			}
			for k, s := range sites {
				if !passed[k] && !s.deferred {
					data = append(data, s.result...)
				}
			}
			b.g.Nodes[n].Data = dedupNodes(data)
			b.g.Nodes[n].Defs = defs
			if cands := f.potentialsOf(si); len(cands) > 0 {
				b.g.Nodes[n].Potential = appendPotential(cands, st.Uses, fr, nil)
			}
			*events = slices.DeleteFunc(*events, func(e profile.WPPEvent) bool {
				if e.Stmt != uint32(si) {
					return false
				}
				b.place(e, n)
				return true
			})
			for _, v := range st.Defs {
				fr.lastDef[v] = n
			}
			if st.Return {
				fr.ret = n
			}
			if st.Go && len(c.spawns) > 0 {
				b.spawned[c.spawns[0]] = n
				c.spawns = c.spawns[1:]
			}
			fr.lastBlock[blk] = n
		}
		if len(stmts) == 0 && ctl >= 0 {
			// An empty block passes its control dependence on.
			fr.lastBlock[blk] = ctl
		}
	}
	// Deferred calls run last in, first out.
	for i := len(deferred) - 1; i >= 0; i-- {
		m.run(deferred[i])
	}
	// The entry's accesses (parameters kept in memory) and any left over
	// (a path cut short by a panic) are not placed.
	for _, evs := range byPath {
		left += len(evs)
	}
	if left > 0 {
		b.g.Problems = appendOnce(b.g.Problems, fmt.Sprintf("%s: memory accesses (or values) after the last statement its paths show (a panic?) are left out", f.Name()))
	}
	// Calls left: made from code the paths do not show (a path cut short by
	// a panic, callbacks from code that is not instrumented).
	for _, child := range m.children {
		b.replay(child, nil, -1)
	}
	return fr.ret
}

// node adds a node.
func (b *builder) node(fr *frame, stmt int32, data []int32, ctl int32) int32 {
	if len(b.g.Nodes) >= b.maxNodes {
		b.tooLarge = true
	}
	b.g.Nodes = append(b.g.Nodes, Node{Func: fr.fi, Stmt: stmt, Data: data, Control: ctl, Call: -1})
	return int32(len(b.g.Nodes) - 1)
}

// lastDefOf returns the node that last defined variable v in the call, or
// -1.
func (fr *frame) lastDefOf(v int32) int32 {
	if d, ok := fr.lastDef[v]; ok {
		return d
	}
	return -1
}

// lastBlockOf returns the last node of block b's latest execution in the
// call, or -1.
func (fr *frame) lastBlockOf(b numbering.BlockID) int32 {
	if n, ok := fr.lastBlock[b]; ok {
		return n
	}
	return -1
}

// controlOf returns the predicate instance block blk depends on: among the
// branches it is control dependent on, the one whose block ran last; the
// call's entry if none ran.
func (fr *frame) controlOf(blk numbering.BlockID) int32 {
	best := int32(-1)
	for _, e := range fr.fn.control.Of(blk) {
		src := fr.fn.Func.Edges[e].Src
		if n, ok := fr.lastBlock[numbering.BlockID(src)]; ok && n > best {
			best = n
		}
	}
	if best < 0 {
		return fr.entry
	}
	return best
}

// newFunc returns the slicer's view of function k of profile p, its
// numbering and control dependences made if it has statements.
func newFunc(p *profile.Profile, k funcKey) (*Func, error) {
	m := p.Metas[k.hash]
	if m == nil {
		return nil, fmt.Errorf("a call of a function of metadata %s, which the directory lacks", k.hash)
	}
	if int(k.index) >= len(m.Funcs) {
		return nil, fmt.Errorf("a call of function %d of %s, which has %d", k.index, m.Package, len(m.Funcs))
	}
	mf := &m.Funcs[k.index]
	f := &Func{Package: profile.PackagePath(m.Package), Meta: m, Func: mf, Deps: mf.Deps, key: k, blocks: make(map[uint64][]numbering.BlockID), tails: make(map[uint64]map[int32]bool)}
	if f.Deps == nil {
		return f, nil
	}
	n, err := mf.Numbering()
	if err != nil {
		return nil, err
	}
	f.n = n
	cd, err := control.ControlDeps(mf.Graph())
	if err != nil {
		return nil, fmt.Errorf("function %s: %v", mf.Name, err)
	}
	f.control = cd
	return f, nil
}

// tail returns the statements of path id that run after its record.
func (f *Func) tail(id uint64) (map[int32]bool, error) {
	if t, ok := f.tails[id]; ok {
		return t, nil
	}
	t, err := f.Func.Tail(id)
	if err != nil {
		return nil, fmt.Errorf("%s: path %d: %v", f.Name(), id, err)
	}
	f.tails[id] = t
	return t, nil
}

// pathBlocks returns the blocks of path id in order.
func (f *Func) pathBlocks(id uint64) ([]numbering.BlockID, error) {
	if bs, ok := f.blocks[id]; ok {
		return bs, nil
	}
	edges, err := f.n.Decode(id)
	if err != nil {
		return nil, fmt.Errorf("%s: path %d: %v", f.Name(), id, err)
	}
	bs := f.n.Blocks(edges)
	f.blocks[id] = bs
	return bs, nil
}

// A matcher gives a call's sites the calls the recording shows it made.
type matcher struct {
	b        *builder
	children []*call
	// sites are the call's sites in the order of its statements, and next
	// the index of the first not yet run.
	sites []*profile.DepCall
	next  int
}

// lookahead is how many sites a call back from code that is not
// instrumented is checked against (see callback).
const lookahead = 64

// run matches site s with the next call of the recording if it called
// that function, replaying the callee; otherwise the callee was not
// instrumented (or the site called a function value that was not), and
// its result depends on its arguments.
func (m *matcher) run(s *site) {
	m.next++
	if len(m.children) > 0 && m.matches(m.children[0], s.call) {
		child := m.children[0]
		m.children = m.children[1:]
		ret := m.b.replay(child, s.args, s.ctl)
		if e := m.b.entryOf(child); e >= 0 {
			m.b.g.Nodes[e].Call = s.caller
		}
		if ret >= 0 {
			s.result = []int32{ret}
		}
		return
	}
	// Calls back from code that is not instrumented (sort.Slice's less)
	// are replayed on their own, with no arguments known.
	for len(m.children) > 0 && !m.instrumented(s.call) && m.callback(m.children[0]) {
		child := m.children[0]
		m.children = m.children[1:]
		m.b.replay(child, nil, s.ctl)
	}
	for _, a := range s.args {
		s.result = append(s.result, a...)
	}
}

// matches reports whether call c can be the call of site dc.
func (m *matcher) matches(c *call, dc *profile.DepCall) bool {
	f := m.b.g.Funcs[c.fn]
	switch {
	case dc.Func != "":
		return dc.Func == f.Func.Name && dc.Package == f.Package
	case dc.Method != "":
		return strings.HasSuffix(f.Func.Name, "."+dc.Method)
	}
	return true // a function value may be any function
}

// instrumented reports whether a site's callee is known to be in an
// instrumented package.
func (m *matcher) instrumented(dc *profile.DepCall) bool {
	if dc.Func == "" {
		return false
	}
	for _, f := range m.b.g.Funcs {
		if f.Package == dc.Package {
			return true
		}
	}
	for _, meta := range m.b.p.Metas {
		if profile.PackagePath(meta.Package) == dc.Package {
			return true
		}
	}
	return false
}

// callback reports whether c, which the current site did not call, is a
// call back from the code the site called: no site of the next lookahead
// can have called it.
func (m *matcher) callback(c *call) bool {
	for j := m.next; j < len(m.sites) && j < m.next+lookahead; j++ {
		if m.matches(c, m.sites[j]) {
			return false
		}
	}
	return true
}

func dedupNodes(ns []int32) []int32 {
	if len(ns) == 0 {
		return nil
	}
	slices.Sort(ns)
	return slices.Compact(ns)
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Bytes returns what the graph holds, in bytes, but the metadata: its
// nodes, each with its lists of dependences, and its goroutines.
func (g *Graph) Bytes() int64 {
	n := int64(cap(g.Nodes))*int64(unsafe.Sizeof(Node{})) + int64(cap(g.Goroutines))*int64(unsafe.Sizeof(Goroutine{}))
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		n += 4 * int64(cap(nd.Data)+cap(nd.Defs)+cap(nd.Memory))
	}
	return n
}
