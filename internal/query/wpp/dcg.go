package wpp

// The calls section of a TWPP file: the dynamic call graph and the
// processes with their goroutines (doc.go says why it is built so;
// format.go draws it).
//
// A node referenced once in the whole graph (by one item of one node, or
// as one root of one goroutine) is private: it is written where it is
// used, after its user, and its user's item says only "a private call
// here". A node referenced more than once is shared: the shared nodes are
// written first, each numbered, children first, and items name them by
// number. So a chain of distinct calls, each of which made the next (a
// deep recursion), writes the same bytes at each level, however long it
// is, and the shared nodes keep their numbers wherever they are used.
//
// Each item is a terminal: its kind, its payload (the shared node, the
// spawn, the levels up) and the paths of the caller completed since the
// item before (not since the call's start), so that each round of a loop
// gives the same terminals. A node's items, and a goroutine's roots, are
// then sequences of terminals, which a grammar (grammar.go) shares
// between them all: a node's body, as written, is a sequence of terminals
// and rules.

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/pathcover/pathcover/internal/wire"
	"github.com/pathcover/pathcover/profile"
)

// Terminal kinds, in a terminal's first number.
const (
	termShared  = 0 // a call of a shared node: payload is its number
	termSpawn   = 1 // payload is the spawn id
	termUp      = 2 // payload is the levels up
	termPrivate = 3 // a call of a private node, written after its user
)

// maxItems bounds the items (calls, spawns, paths up) of all the nodes
// and roots a reader expands, each 16 bytes in memory (Item); the writer writes
// no more. (The largest recording of the bench, compress/flate's tests,
// has 21 million.)
const maxItems = 1 << 27

type terminal struct {
	kind         uint8
	payload, dAt uint64
}

// hash is tm's hash for a hashIndex (which takes its high bits).
func (tm terminal) hash() uint64 {
	h := (tm.payload ^ uint64(tm.kind)<<56) * 0x9e3779b97f4a7c15
	h = (h ^ h>>29 ^ tm.dAt) * 0xbf58476d1ce4e5b9
	return h ^ h>>31
}

// encodeCalls writes the calls section. traceBase[f] is the number of the
// first trace of function f, counting the traces of all functions in
// order.
func (t *TWPP) encodeCalls(pkgIndex map[string]int, traceBase []int) ([]byte, error) {
	refs := make([]int, len(t.Nodes))
	for _, n := range t.Nodes {
		for _, it := range n.Items {
			if it.Kind == ItemCall {
				refs[it.Node]++
			}
		}
	}
	for _, p := range t.Processes {
		for _, g := range p.Goroutines {
			for _, r := range g.Roots {
				refs[r]++
			}
		}
	}
	shared := make([]int, len(t.Nodes)) // node → its number if shared, else -1
	nShared := 0
	for i, r := range refs {
		shared[i] = -1
		if r != 1 {
			shared[i] = nShared
			nShared++
		}
	}

	// The terminals, and the sequences: each node's, then each
	// goroutine's roots.
	// (A map keyed by terminal, hashing 24 bytes a lookup, was a
	// quarter of encodeCalls's time on regexp's suite.)
	var termIndex hashIndex
	var terms []terminal
	intern := func(tm terminal) uint32 {
		h := tm.hash()
		i, ok := termIndex.find(h, func(i int) bool { return terms[i] == tm })
		if !ok {
			i = len(terms)
			termIndex.add(h)
			terms = append(terms, tm)
		}
		return uint32(i)
	}
	call := func(n int, dAt uint64) terminal {
		if shared[n] < 0 {
			return terminal{termPrivate, 0, dAt}
		}
		return terminal{termShared, uint64(shared[n]), dAt}
	}
	var items uint64
	for _, n := range t.Nodes {
		items += uint64(len(n.Items))
	}
	for _, p := range t.Processes {
		for _, g := range p.Goroutines {
			items += uint64(len(g.Roots))
		}
	}
	if items > maxItems {
		return nil, fmt.Errorf("the call graph has %d calls, spawns and paths up, more than a TWPP file holds (%d)", items, maxItems)
	}
	seqs := make([][]uint32, 0, len(t.Nodes))
	for _, n := range t.Nodes {
		s := make([]uint32, len(n.Items))
		var at uint64
		for j, it := range n.Items {
			if uint64(it.At) < at {
				return nil, fmt.Errorf("an item at path %d after one at %d", it.At, at)
			}
			dAt := uint64(it.At) - at
			at = uint64(it.At)
			var tm terminal
			switch it.Kind {
			case ItemCall:
				tm = call(int(it.Node), dAt)
			case ItemSpawn:
				tm = terminal{termSpawn, it.Spawn(), dAt}
			case ItemUp:
				tm = terminal{termUp, uint64(it.Up), dAt}
			default:
				return nil, fmt.Errorf("an item of kind %d", it.Kind)
			}
			s[j] = intern(tm)
		}
		seqs = append(seqs, s)
	}
	for _, p := range t.Processes {
		for _, g := range p.Goroutines {
			s := make([]uint32, len(g.Roots))
			for j, r := range g.Roots {
				s[j] = intern(call(int(r), 0))
			}
			seqs = append(seqs, s)
		}
	}
	if uint64(len(terms)) >= 1<<31 {
		return nil, fmt.Errorf("%d distinct items", len(terms))
	}
	nTerm := uint32(len(terms))
	g := buildGrammar(seqs, nTerm)
	if uint64(len(g.rules)) >= 1<<31-uint64(nTerm) {
		return nil, fmt.Errorf("%d rules", len(g.rules))
	}

	// Terminals are numbered again, the most used first, so that they
	// take the fewest bytes.
	uses := make([]int, nTerm)
	for _, s := range seqs {
		for _, v := range s {
			if v < nTerm {
				uses[v]++
			}
		}
	}
	for _, r := range g.rules {
		for _, v := range r.body {
			if v < nTerm {
				uses[v]++
			}
		}
	}
	order := make([]uint32, nTerm)
	for i := range order {
		order[i] = uint32(i)
	}
	sort.SliceStable(order, func(a, b int) bool { return uses[order[a]] > uses[order[b]] })
	renum := make([]uint32, nTerm)
	for i, v := range order {
		renum[v] = uint32(i)
	}
	var b []byte
	sym := func(v uint32) {
		if v < nTerm {
			b = binary.AppendUvarint(b, uint64(renum[v])<<1)
		} else {
			b = binary.AppendUvarint(b, uint64(v-nTerm)<<1|1)
		}
	}
	b = binary.AppendUvarint(b, uint64(nTerm))
	for _, v := range order {
		tm := terms[v]
		b = binary.AppendUvarint(b, tm.dAt<<2|uint64(tm.kind))
		if tm.kind != termPrivate {
			b = binary.AppendUvarint(b, tm.payload)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(g.rules)))
	for _, r := range g.rules {
		if r.run != 0 {
			b = binary.AppendUvarint(b, r.run<<1|1)
			sym(r.body[0])
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(r.body))<<1)
		for _, v := range r.body {
			sym(v)
		}
	}

	// tree writes node n and, after it, its private callees' trees, in
	// the order of its items (pre-order).
	var stack []int
	tree := func(n int) {
		stack = append(stack[:0], n)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			nd := t.Nodes[n]
			b = binary.AppendUvarint(b, uint64(traceBase[nd.Func]+nd.Trace)<<1|boolUint(nd.Open))
			b = binary.AppendUvarint(b, uint64(len(seqs[n])))
			for _, v := range seqs[n] {
				sym(v)
			}
			for j := len(nd.Items) - 1; j >= 0; j-- {
				if it := nd.Items[j]; it.Kind == ItemCall && shared[it.Node] < 0 {
					stack = append(stack, int(it.Node))
				}
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(nShared))
	for n := range t.Nodes {
		if shared[n] >= 0 {
			tree(n)
		}
	}

	b = binary.AppendUvarint(b, uint64(len(t.Processes)))
	gi := len(t.Nodes)
	for _, p := range t.Processes {
		b = binary.AppendUvarint(b, p.PID)
		b = binary.AppendUvarint(b, uint64(p.Start.UnixNano()))
		b = binary.AppendUvarint(b, uint64(len(p.Packages)))
		for _, n := range slices.Sorted(func(yield func(uint32) bool) {
			for n := range p.Packages {
				if !yield(n) {
					return
				}
			}
		}) {
			b = binary.AppendUvarint(b, uint64(n))
			b = binary.AppendUvarint(b, uint64(pkgIndex[p.Packages[n]]))
		}
		b = binary.AppendUvarint(b, uint64(len(p.Goroutines)))
		for _, g := range p.Goroutines {
			for _, v := range []uint64{g.ID, g.Parent, g.Spawn, boolUint(g.Stopped)} {
				b = binary.AppendUvarint(b, v)
			}
			b = binary.AppendUvarint(b, uint64(len(seqs[gi])))
			for _, v := range seqs[gi] {
				sym(v)
			}
			gi++
			for _, r := range g.Roots {
				if shared[r] < 0 {
					tree(int(r))
				}
			}
		}
		b = binary.AppendUvarint(b, uint64(len(p.Tests)))
		for _, t := range p.Tests {
			b = binary.AppendUvarint(b, t.Goroutine)
			b = appendString(b, t.Name)
			b = appendString(b, t.Parent)
			b = binary.AppendUvarint(b, boolUint(t.Ended))
		}
	}
	return b, nil
}

// appendString appends s, its length first.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// A callsReader reads a calls section into t, whose functions are read.
type callsReader struct {
	t         *TWPP
	d         *wire.Decoder
	traceBase []int // the number of function i's first trace; the traces last
	terms     []terminal
	rules     []gRule
	ruleLen   []uint64   // items of each rule's expansion, at most maxItems+1
	flat      [][]uint32 // rules of at most maxFlat items, expanded (expand)
	flatAll   uint64     // terminals in flat
	shared    []int      // shared node number → node
	// … → its calls (Node.Calls: the nodes themselves are scattered
	// in memory, and compress/flate's 21 M items each call one)
	sharedCalls []uint64
	rootOf      []int  // terminal → the root it stands for (root)
	nodeArena   []Node // allocNode's chunk
	itemArena   []Item // allocItems's
	budget      uint64 // items left to expand
	tests       bool   // processes list their tests (version 4)
}

// A pendingNode is a node being read: its items expanded, with the
// positions of its private calls, whose trees come next in the section,
// and the calls of its subtree so far (Node.Calls, counted as the items
// are made: a pass over them all costs as much as a tenth of the read).
type pendingNode struct {
	node    *Node
	private []int
	next    int
	calls   uint64
}

// decodeCalls reads the calls section: the nodes and processes of t,
// whose functions are read.
func (t *TWPP) decodeCalls(d *wire.Decoder, pkgs []string, procs []fileProcess, tests bool) {
	r := &callsReader{t: t, d: d, budget: maxItems, traceBase: make([]int, len(t.Funcs)+1), tests: tests}
	for i, f := range t.Funcs {
		r.traceBase[i+1] = r.traceBase[i] + len(f.Traces)
	}
	nt := d.Count("elements", 1) // a private call's terminal is one byte
	for range nt {
		x := d.Uvarint("")
		tm := terminal{kind: uint8(x & 3), dAt: x >> 2}
		if tm.kind != termPrivate {
			tm.payload = d.Uvarint("")
		}
		if d.Err != nil {
			return
		}
		if tm.kind == termUp && (tm.payload == 0 || tm.payload > 1<<32-1) {
			d.Fail("a path %d calls up", tm.payload)
			return
		}
		r.terms = append(r.terms, tm)
	}
	nr := d.Count("elements", 2)
	for i := range nr {
		x := d.Uvarint("")
		var rule gRule
		var n uint64
		if x&1 == 1 {
			rule.run = x >> 1
			if d.Err == nil && rule.run < 2 {
				d.Fail("a run of %d", rule.run)
			}
			rule.body = []uint32{r.symbol(i)}
			if d.Err != nil {
				return
			}
			n = satMul(r.symLen(rule.body[0]), rule.run)
		} else {
			l := x >> 1
			if d.Err == nil && (l < 2 || l > uint64(len(d.B)-d.Pos)) {
				d.Fail("a rule of %d symbols", l)
			}
			if d.Err != nil {
				return
			}
			rule.body = make([]uint32, l)
			for j := range rule.body {
				if rule.body[j] = r.symbol(i); d.Err != nil {
					return
				}
				n = satAdd(n, r.symLen(rule.body[j]))
			}
		}
		if d.Err != nil {
			return
		}
		r.rules = append(r.rules, rule)
		r.ruleLen = append(r.ruleLen, min(n, maxItems+1))
	}
	ns := d.Count("elements", 2)
	for range ns {
		n := r.tree()
		if d.Err != nil {
			return
		}
		r.shared = append(r.shared, n)
		r.sharedCalls = append(r.sharedCalls, t.Nodes[n].Calls)
	}
	np := d.Count("elements", 4)
	if d.Err == nil && np != len(procs) {
		d.Fail("%d processes, but the header names %d", np, len(procs))
	}
	for i := range np {
		p := r.process(pkgs)
		if d.Err != nil {
			return
		}
		p.File, p.ProcessEnd = procs[i].name, procs[i].end
		t.Processes = append(t.Processes, p)
	}
}

// symbol reads a symbol of rule i (of a node's or goroutine's body if i
// < 0): a terminal, or a rule before i.
func (r *callsReader) symbol(i int) uint32 {
	v := r.d.Uvarint("")
	if r.d.Err != nil {
		return 0
	}
	if v&1 == 0 {
		if v>>1 >= uint64(len(r.terms)) {
			r.d.Fail("terminal %d out of range [0,%d)", v>>1, len(r.terms))
			return 0
		}
		return uint32(v >> 1)
	}
	limit := len(r.rules)
	if i >= 0 {
		limit = i
	}
	if v>>1 >= uint64(limit) {
		r.d.Fail("rule %d out of range [0,%d)", v>>1, limit)
		return 0
	}
	return uint32(len(r.terms)) + uint32(v>>1)
}

// symLen is the number of items symbol v expands to.
func (r *callsReader) symLen(v uint32) uint64 {
	if v < uint32(len(r.terms)) {
		return 1
	}
	return r.ruleLen[v-uint32(len(r.terms))]
}

// syms reads a sequence of symbols, a node's or a goroutine's body,
// and takes the items it expands to from the budget: total.
func (r *callsReader) syms() (syms []uint32, total uint64) {
	d := r.d
	n := d.Count("elements", 1)
	if d.Err != nil {
		return nil, 0
	}
	syms = make([]uint32, n)
	for i := range syms {
		if syms[i] = r.symbol(-1); d.Err != nil {
			return nil, 0
		}
		total = satAdd(total, r.symLen(syms[i]))
	}
	if total > r.budget {
		d.Fail("more than %d calls, spawns and paths up in all", maxItems)
		return nil, 0
	}
	r.budget -= total
	return syms, total
}

// maxFlat bounds the expansions of rules that expand keeps: a rule of
// at most this many items is expanded once, into its terminals, and
// copied where it is used (a test's loop calls into the package through
// a run of millions of one rule: math/big's suite, 11 M roots), until
// they hold maxFlatAll terminals in all (64 MB).
const (
	maxFlat    = 1 << 12
	maxFlatAll = 1 << 24
)

// expand calls terms with the terminals that syms expands to, in order
// and a run at a time, until terms returns false.
func (r *callsReader) expand(syms []uint32, terms func(run []uint32) bool) {
	nt := uint32(len(r.terms))
	if r.flat == nil {
		r.flat = make([][]uint32, len(r.rules))
	}
	var flatten func(v uint32) []uint32
	flatten = func(v uint32) []uint32 {
		ri := v - nt
		if f := r.flat[ri]; f != nil || r.ruleLen[ri] > maxFlat || r.ruleLen[ri] > maxFlatAll-r.flatAll {
			return f
		}
		r.flatAll += r.ruleLen[ri]
		rule := r.rules[ri]
		for _, w := range rule.body {
			if w >= nt {
				flatten(w)
			}
		}
		f := make([]uint32, 0, r.ruleLen[ri])
		for range max(rule.run, 1) {
			for _, w := range rule.body {
				f = r.appendExpansion(f, w)
			}
		}
		r.flat[ri] = f
		return f
	}
	// A frame expands body reps times, its symbols in turn.
	type frame struct {
		body []uint32
		i    int
		reps uint64
	}
	stack := []frame{{body: syms, reps: 1}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i == len(top.body) {
			top.i = 0
			if top.reps--; top.reps == 0 {
				stack = stack[:len(stack)-1]
				continue
			}
		}
		v := top.body[top.i]
		if v < nt {
			// The terminals that follow, as one run.
			j := top.i + 1
			for j < len(top.body) && top.body[j] < nt {
				j++
			}
			run := top.body[top.i:j]
			top.i = j
			if !terms(run) {
				return
			}
			continue
		}
		top.i++
		if f := flatten(v); f != nil {
			if !terms(f) {
				return
			}
			continue
		}
		rule := r.rules[v-nt]
		stack = append(stack, frame{body: rule.body, reps: max(rule.run, 1)})
	}
}

// appendExpansion appends the terminals that symbol v expands to, of a
// rule of at most maxFlat items.
func (r *callsReader) appendExpansion(f []uint32, v uint32) []uint32 {
	nt := uint32(len(r.terms))
	if v < nt {
		return append(f, v)
	}
	if fl := r.flat[v-nt]; fl != nil {
		return append(f, fl...)
	}
	rule := r.rules[v-nt]
	for range max(rule.run, 1) {
		for _, w := range rule.body {
			f = r.appendExpansion(f, w)
		}
	}
	return f
}

// body reads a sequence of symbols and expands it into items, with the
// positions of the private calls among them (whose Node is left to
// fill), and the calls of the shared nodes they call (Node.Calls). Each item's At is the one's before plus its terminal's dAt, and
// must stay at most tlen (at most maxTracePaths: an Item's At holds it).
func (r *callsReader) body(tlen uint64) (items []Item, private []int, calls uint64) {
	d := r.d
	syms, total := r.syms()
	if d.Err != nil {
		return nil, nil, 0
	}
	items = r.allocItems(total)
	var at uint64
	r.expand(syms, func(run []uint32) bool {
		for _, v := range run {
			tm := &r.terms[v]
			if tm.dAt > tlen-at {
				d.Fail("an item at path %d+%d of a trace of %d", at, tm.dAt, tlen)
				return false
			}
			at += tm.dAt
			it := Item{At: uint32(at)}
			switch tm.kind {
			case termShared:
				if tm.payload >= uint64(len(r.shared)) {
					d.Fail("a call of shared node %d, not before shared node %d", tm.payload, len(r.shared))
					return false
				}
				it.Node = int32(r.shared[tm.payload])
				calls = satAdd(calls, r.sharedCalls[tm.payload])
			case termPrivate:
				private = append(private, len(items))
			case termSpawn:
				it = spawnItem(uint32(at), tm.payload)
			case termUp:
				it.Kind, it.Up = ItemUp, uint32(tm.payload)
			}
			items = append(items, it)
		}
		return true
	})
	if d.Err != nil {
		return nil, nil, 0
	}
	return items, private, calls
}

// roots reads a goroutine's roots: a sequence of symbols that expands
// into calls, at path 0. A private root's node is left to fill (-1).
func (r *callsReader) roots() []int32 {
	d := r.d
	syms, total := r.syms()
	if d.Err != nil {
		return nil
	}
	roots := make([]int32, 0, total)
	if r.rootOf == nil {
		r.rootOf = make([]int, len(r.terms))
		for i := range r.rootOf {
			r.rootOf[i] = rootUnknown
		}
	}
	r.expand(syms, func(run []uint32) bool {
		for _, v := range run {
			x := r.rootOf[v]
			if x == rootUnknown {
				x = r.root(v, false)
				r.rootOf[v] = x
			}
			if x == rootNone {
				r.root(v, true)
				return false
			}
			roots = append(roots, int32(x))
		}
		return true
	})
	if d.Err != nil {
		return nil
	}
	return roots
}

// What rootOf holds for a terminal that is not a node: a private root's
// (which the reader fills after), one that is no root, one not yet
// looked at.
const (
	rootPrivate = -1
	rootNone    = -2
	rootUnknown = -3
)

// root returns the root that terminal v stands for in a goroutine's
// roots: a shared node, rootPrivate, or rootNone, and fails then, if
// fail. (roots reads millions of them, of a few terminals: rootOf keeps
// each one's.)
func (r *callsReader) root(v uint32, fail bool) int {
	d := r.d
	switch tm := &r.terms[v]; {
	case tm.kind == termShared && tm.dAt == 0:
		if tm.payload < uint64(len(r.shared)) {
			return r.shared[tm.payload]
		}
		if fail {
			d.Fail("a call of shared node %d, not before shared node %d", tm.payload, len(r.shared))
		}
	case tm.kind == termPrivate && tm.dAt == 0:
		return rootPrivate
	case tm.dAt != 0:
		if fail {
			d.Fail("an item at path %d of a goroutine's roots", tm.dAt)
		}
	default:
		if fail {
			d.Fail("a goroutine's root of kind %d", tm.kind)
		}
	}
	return rootNone
}

// The nodes and their items are allocated in chunks (allocNode,
// allocItems): one allocation each cost math/big's 338 k nodes more
// than their items, and scattered them in memory, which the queries
// then read in order, Hot many times.
const (
	nodeChunk = 1 << 10
	itemChunk = 1 << 16
)

// allocNode returns a new node.
func (r *callsReader) allocNode() *Node {
	if len(r.nodeArena) == cap(r.nodeArena) {
		r.nodeArena = make([]Node, 0, nodeChunk)
	}
	r.nodeArena = r.nodeArena[:len(r.nodeArena)+1]
	return &r.nodeArena[len(r.nodeArena)-1]
}

// allocItems returns an empty slice of room for n items, which only
// appending to it may use.
func (r *callsReader) allocItems(n uint64) []Item {
	if n == 0 {
		return []Item{} // (not nil, as make made it)
	}
	if n > itemChunk/8 {
		return make([]Item, 0, n)
	}
	if uint64(cap(r.itemArena)-len(r.itemArena)) < n {
		r.itemArena = make([]Item, 0, itemChunk)
	}
	at := len(r.itemArena)
	r.itemArena = r.itemArena[:at+int(n)]
	return r.itemArena[at : at : at+int(n)]
}

// node reads a node's header and body.
func (r *callsReader) node() *pendingNode {
	d := r.d
	x := d.Uvarint("")
	if d.Err != nil {
		return nil
	}
	tr := x >> 1
	if tr >= uint64(r.traceBase[len(r.t.Funcs)]) {
		d.Fail("trace %d out of range [0,%d)", tr, r.traceBase[len(r.t.Funcs)])
		return nil
	}
	f := sort.Search(len(r.t.Funcs), func(i int) bool { return uint64(r.traceBase[i+1]) > tr })
	n := r.allocNode()
	*n = Node{Func: f, Trace: int(tr) - r.traceBase[f], Open: x&1 != 0}
	tlen := uint64(len(r.t.Funcs[f].Traces[n.Trace].Paths))
	var p pendingNode
	n.Items, p.private, p.calls = r.body(tlen)
	if d.Err != nil {
		return nil
	}
	p.node = n
	return &p
}

// tree reads a node and its private callees' trees after it, and returns
// the node's index; each node is added to t.Nodes after its callees.
func (r *callsReader) tree() int {
	var stack []*pendingNode
	push := func() bool {
		p := r.node()
		if p == nil {
			return false
		}
		stack = append(stack, p)
		return true
	}
	if !push() {
		return -1
	}
	for {
		top := stack[len(stack)-1]
		if top.next < len(top.private) {
			if !push() {
				return -1
			}
			continue
		}
		idx := r.add(top.node, top.calls)
		if idx < 0 {
			return -1
		}
		stack = stack[:len(stack)-1]
		if len(stack) == 0 {
			return idx
		}
		parent := stack[len(stack)-1]
		parent.node.Items[parent.private[parent.next]].Node = int32(idx)
		parent.calls = satAdd(parent.calls, top.node.Calls)
		parent.next++
	}
}

// add adds a node whose callees are all read, and whose callees' calls
// are calls, or returns -1 if there are as many nodes as an Item can
// name.
func (r *callsReader) add(n *Node, calls uint64) int {
	if len(r.t.Nodes) == maxNodes {
		r.d.Fail("more than %d nodes", maxNodes)
		return -1
	}
	n.Calls = satAdd(calls, 1)
	r.t.Nodes = append(r.t.Nodes, n)
	return len(r.t.Nodes) - 1
}

// process reads a process with its packages and goroutines.
func (r *callsReader) process(pkgs []string) *Process {
	d := r.d
	p := &Process{PID: d.Uvarint("")}
	p.Start = time.Unix(0, int64(d.Uvarint("")))
	p.Packages = make(map[uint32]string)
	npk := d.Count("elements", 2)
	for range npk {
		num := d.Uvarint("")
		pkg := d.Index("package", len(pkgs))
		if d.Err == nil && (num == 0 || num > 1<<32-1) {
			d.Fail("package number %d", num)
		}
		if _, dup := p.Packages[uint32(num)]; dup && d.Err == nil {
			d.Fail("package %d twice", num)
		}
		if d.Err != nil {
			return nil
		}
		p.Packages[uint32(num)] = pkgs[pkg]
	}
	ng := d.Count("elements", 5)
	for range ng {
		g := &Goroutine{ID: d.Uvarint(""), Parent: d.Uvarint(""), Spawn: d.Uvarint(""), Stopped: d.Uvarint("") != 0}
		if d.Err != nil {
			return nil
		}
		if g.Roots = r.roots(); d.Err != nil {
			return nil
		}
		for i, n := range g.Roots {
			if n < 0 {
				if g.Roots[i] = int32(r.tree()); d.Err != nil {
					return nil
				}
			}
		}
		p.Goroutines = append(p.Goroutines, g)
	}
	if !r.tests {
		return p
	}
	nt := d.Count("elements", 4)
	for range nt {
		t := profile.WPPTest{Goroutine: d.Uvarint("")}
		t.Name = string(d.Bytes(d.Count("bytes", 1)))
		t.Parent = string(d.Bytes(d.Count("bytes", 1)))
		t.Ended = d.Uvarint("") != 0
		if d.Err != nil {
			return nil
		}
		p.Tests = append(p.Tests, t)
	}
	return p
}
