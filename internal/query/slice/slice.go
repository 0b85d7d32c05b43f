package slice

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math/bits"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/profile"
)

// A Criterion says what to slice: the value of Var (all the statement
// reads, if empty) at an execution of the statement at File:Line (and Col,
// if not 0).
type Criterion struct {
	File string
	Line int
	Col  int
	Var  string
	// Instance is which execution: 0 for the last one, n ≥ 1 for the n-th
	// (goroutine by goroutine, in the order the recordings list them, each
	// goroutine's in the order it ran).
	Instance int
	// Scope, if set, keeps the executions of its goroutines alone: a
	// test's (TestScope). The slice itself goes wherever the dependences
	// lead.
	Scope *Scope
	// Potential makes the slice a relevant slice: the dynamic slice and
	// the predicate executions its uses potentially depend on (had one
	// gone another way, another definition could have reached the use;
	// potential.go), and what those depend on in turn.
	Potential bool
}

// A Scope is a set of goroutines of a run: those of one test (TestScope).
type Scope struct {
	Test       string
	goroutines map[scopeKey]bool
}

// A scopeKey is a goroutine: its recording's base name and its id.
type scopeKey struct {
	file string
	id   uint64
}

// TestScope returns the goroutines of the recordings of dir that ran test
// name or a test under it (name/...), and those they started: a -test
// build, or pathcover test, records the tests' goroutines. It fails,
// naming the tests recorded, if none ran test name.
func TestScope(dir, name string) (*Scope, error) {
	files, err := profile.Need(dir, profile.KindWPP, recordDeps)
	if err != nil {
		return nil, err
	}
	sc := &Scope{Test: name, goroutines: make(map[scopeKey]bool)}
	var tests []string
	for _, file := range files {
		f, err := profile.OpenWPP(file)
		if err != nil {
			return nil, err
		}
		in, err := wpp.TestGoroutines(f, name)
		for _, t := range f.Tests {
			if t.Parent == "" {
				tests = append(tests, t.Name)
			}
		}
		f.Close()
		if err != nil {
			return nil, err
		}
		for g := range in {
			sc.goroutines[scopeKey{filepath.Base(file), g}] = true
		}
	}
	if len(sc.goroutines) == 0 {
		if len(tests) == 0 {
			return nil, fmt.Errorf("%s records no test (record with pathcover test, which records the tests' boundaries)", dir)
		}
		slices.Sort(tests)
		return nil, fmt.Errorf("no recording of %s ran test %s; they ran %s", dir, name, strings.Join(slices.Compact(tests), ", "))
	}
	return sc, nil
}

// within returns the nodes of found that sc's goroutines ran; gr says
// which goroutine ran a node.
func (sc *Scope) within(gr graph, found []int32) []int32 {
	if sc == nil {
		return found
	}
	var in []int32
	for _, n := range found {
		file, id := gr.goroutineOf(n)
		if sc.goroutines[scopeKey{filepath.Base(file), id}] {
			in = append(in, n)
		}
	}
	return in
}

// A Slice is a backward dynamic slice. It is answered as statements, each
// with how many of its executions the slice holds, in memory bounded by
// the program, not by the run: its steps, one per statement execution,
// are not kept but walked again from the graph, in the same order, when
// they are asked for (Walk, Steps), a page at a time by those that print
// them.
type Slice struct {
	// Criterion is the node sliced from, Instance which execution of its
	// statement it is (from 1), and Instances how many the run had.
	Criterion int32
	Instance  int
	Instances int
	// Stmts are the slice's statements, in source order, and Execs how
	// many of each one's executions the slice holds.
	Stmts []Stmt
	Execs []int
	// Memory lists the reads through memory that the slice stops at,
	// whose writers a -deps build does not record.
	Memory []string

	numSteps int
	// valued says that some step's function records values (-wet).
	valued bool
	// walk walks the steps again (walkSlice) from the graph; a slice
	// made of steps (FromSteps) keeps them in steps instead.
	walk  func(fn func(st step) error) error
	steps []step
	vias  []string // the steps' Via, each once
}

// A step is a Step as a Slice walks it: stmt indexes Stmts, via vias.
type step struct {
	node, from, depth, stmt, via int32
}

// NumSteps returns how many steps the slice has: the statement executions
// it holds.
func (s *Slice) NumSteps() int { return s.numSteps }

// HasValues reports whether the run recorded values of some of the
// slice's steps (a -wet build): ValuesOf has none to give otherwise.
func (s *Slice) HasValues() bool { return s.valued }

// Walk calls fn with each step of the slice in order, from step 0, until
// fn returns an error, which Walk returns. The nodes of the slice, each
// with the dependence that brought it in, are numbered breadth first from
// the criterion (0), so that the first step of each statement is its
// shortest chain back to the criterion. Walking a slice costs about what
// slicing did: the graph is walked again.
func (s *Slice) Walk(fn func(i int, st Step) error) error {
	i := 0
	each := func(st step) error {
		err := fn(i, Step{Node: st.node, Stmt: s.Stmts[st.stmt], Depth: int(st.depth), From: int(st.from), Via: s.vias[st.via]})
		i++
		return err
	}
	if s.walk == nil {
		for _, st := range s.steps {
			if err := each(st); err != nil {
				return err
			}
		}
		return nil
	}
	return s.walk(each)
}

// Steps returns steps [from, to).
func (s *Slice) Steps(from, to int) ([]Step, error) {
	out := make([]Step, 0, max(0, min(to, s.numSteps)-from))
	err := s.Walk(func(i int, st Step) error {
		if i >= to {
			return errStop
		}
		if i >= from {
			out = append(out, st)
		}
		return nil
	})
	if err != nil && err != errStop {
		return nil, err
	}
	return out, nil
}

// FromSteps makes a Slice of steps (breadth first from the criterion, as
// Walk numbers them), of the last of instances executions, for tools and
// tests that make slices of their own.
func FromSteps(instances int, steps []Step, memory []string) *Slice {
	s := &Slice{Instance: instances, Instances: instances, Memory: memory, numSteps: len(steps)}
	if len(steps) > 0 {
		s.Criterion = steps[0].Node
	}
	byStmt := make(map[Stmt]int32)
	vias := make(map[string]int32)
	for _, st := range steps {
		if _, ok := byStmt[st.Stmt]; !ok {
			byStmt[st.Stmt] = int32(len(s.Stmts))
			s.Stmts = append(s.Stmts, st.Stmt)
		}
		if _, ok := vias[st.Via]; !ok {
			vias[st.Via] = int32(len(s.vias))
			s.vias = append(s.vias, st.Via)
		}
	}
	slices.SortFunc(s.Stmts, compareStmts)
	for i, st := range s.Stmts {
		byStmt[st] = int32(i)
	}
	s.Execs = make([]int, len(s.Stmts))
	for _, st := range steps {
		k := byStmt[st.Stmt]
		s.Execs[k]++
		s.steps = append(s.steps, step{node: st.Node, from: int32(st.From), depth: int32(st.Depth), stmt: k, via: vias[st.Via]})
	}
	return s
}

// compareStmts orders statements as the source does.
func compareStmts(x, y Stmt) int {
	return cmp.Or(cmp.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line), cmp.Compare(x.Col, y.Col), cmp.Compare(x.Func, y.Func), cmp.Compare(x.EndLine, y.EndLine), cmp.Compare(x.EndCol, y.EndCol))
}

// MarshalJSON writes the slice with all its steps; pathcover slice -json
// writes them a page at a time instead.
func (s *Slice) MarshalJSON() ([]byte, error) {
	steps, err := s.Steps(0, s.numSteps)
	if err != nil {
		return nil, err
	}
	return json.Marshal(sliceJSON{s.Criterion, s.Instance, s.Instances, s.Stmts, s.Execs, steps, s.Memory})
}

// sliceJSON is the JSON of a Slice.
type sliceJSON struct {
	Criterion int32
	Instance  int
	Instances int
	Stmts     []Stmt
	Execs     []int
	Steps     []Step
	Memory    []string
}

// A Stmt is a statement of the source.
type Stmt struct {
	File string
	// Func is the function's name with its package's path before it;
	// Package is that path.
	Func                       string
	Package                    string `json:",omitempty"`
	Line, Col, EndLine, EndCol int
	// Sum is the metadata's hash of File as it was compiled
	// (profile.Meta.Sums), which a shower of its source compares with
	// the file's content today.
	Sum string `json:"-"`
}

// A Step is a node of the slice and why it is there.
type Step struct {
	Node  int32
	Stmt  Stmt
	Depth int
	// From is the step that depends on this one (-1 for the criterion),
	// Via what carries the dependence: a variable's name, "control",
	// "argument" or "result".
	From int
	Via  string
	// Values are what the step's execution recorded, in a -wet build, if
	// asked for (ValuesOf; pathcover slice -why and -json).
	Values []Value `json:",omitempty"`
}

// Stmt returns node n's statement.
func (g *Graph) Stmt(n int32) Stmt {
	node := g.Nodes[n]
	return stmtOf(g.Funcs[node.Func], node.Stmt)
}

// stmtOf returns statement stmt of function f.
func stmtOf(f *Func, stmt int32) Stmt {
	st := f.Deps.Stmts[stmt]
	file, sum := "", ""
	if f.Func.File >= 0 && f.Func.File < len(f.Meta.Files) {
		file = f.Meta.Files[f.Func.File]
		if f.Func.File < len(f.Meta.Sums) {
			sum = f.Meta.Sums[f.Func.File]
		}
	}
	return Stmt{File: file, Func: f.Name(), Package: f.Package, Line: st.Line, Col: st.Col, EndLine: st.EndLine, EndCol: st.EndCol, Sum: sum}
}

// sameFile reports whether name, as a user gave it, names file: the same
// path, or a suffix of it after a slash.
func sameFile(name, file string) bool {
	name, file = filepath.ToSlash(name), filepath.ToSlash(file)
	return name == file || strings.HasSuffix(file, "/"+strings.TrimPrefix(name, "./"))
}

// Find returns the nodes of the statements at c's place, in order: those
// that read or set c.Var, if it names a local variable of theirs, or else
// all of them (c.Var may name memory, whose reads are not told apart).
func (g *Graph) Find(c Criterion) []int32 {
	found, _ := findOrAll(c, func(c Criterion) ([]int32, error) { return g.find(c), nil })
	return found
}

// findOrAll finds c's nodes with find: those that read or set c.Var, or,
// if there are none, all those of c's statements.
func findOrAll(c Criterion, find func(Criterion) ([]int32, error)) ([]int32, error) {
	found, err := find(c)
	if err == nil && len(found) == 0 && c.Var != "" {
		c.Var = ""
		found, err = find(c)
	}
	return found, err
}

func (g *Graph) find(c Criterion) []int32 {
	match := matchStmts(g.Funcs, c)
	if len(match) == 0 {
		return nil
	}
	var found []int32
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if match[n.Func][n.Stmt] {
			found = append(found, int32(i))
		}
	}
	return found
}

// matchStmts returns, by function, the statements at c's place that read
// or set c.Var, if it is not empty: the criterion's statements.
func matchStmts(funcs []*Func, c Criterion) map[int32]map[int32]bool {
	match := make(map[int32]map[int32]bool)
	for fi, f := range funcs {
		if f.Deps == nil || f.Func.File < 0 || f.Func.File >= len(f.Meta.Files) || !sameFile(c.File, f.Meta.Files[f.Func.File]) {
			continue
		}
		for si := 1; si < len(f.Deps.Stmts); si++ {
			st := &f.Deps.Stmts[si]
			if st.Line != c.Line || (c.Col != 0 && st.Col != c.Col) {
				continue
			}
			if c.Var != "" && varIndex(f, int32(si), c.Var) < 0 && !defines(f, int32(si), c.Var) {
				continue
			}
			if match[int32(fi)] == nil {
				match[int32(fi)] = make(map[int32]bool)
			}
			match[int32(fi)][int32(si)] = true
		}
	}
	return match
}

// varIndex returns the index in statement stmt's Uses of the variable
// named name, or -1.
func varIndex(f *Func, stmt int32, name string) int {
	for i, v := range f.Deps.Stmts[stmt].Uses {
		if f.Deps.Vars[v].Name == name {
			return i
		}
	}
	return -1
}

func defines(f *Func, stmt int32, name string) bool {
	for _, v := range f.Deps.Stmts[stmt].Defs {
		if f.Deps.Vars[v].Name == name {
			return true
		}
	}
	return false
}

// A nodeBits is a set of nodes, a bit each, in pages of 2^16 nodes made
// as they are first used: a slice's sets take a bit per node of the run
// at most, and little for a slice of a small part of it.
type nodeBits [][]uint64

const nodePage = 16

func (b nodeBits) has(n int32) bool {
	p := int(n >> nodePage)
	return p < len(b) && b[p] != nil && b[p][n>>6&(1<<(nodePage-6)-1)]&(1<<(n&63)) != 0
}

func (b *nodeBits) add(n int32) {
	p := int(n >> nodePage)
	if p >= len(*b) {
		*b = slices.Grow(*b, p+1-len(*b))[:p+1]
	}
	if (*b)[p] == nil {
		(*b)[p] = make([]uint64, 1<<(nodePage-6))
	}
	(*b)[p][n>>6&(1<<(nodePage-6)-1)] |= 1 << (n & 63)
}

func (b nodeBits) del(n int32) {
	if p := int(n >> nodePage); p < len(b) && b[p] != nil {
		b[p][n>>6&(1<<(nodePage-6)-1)] &^= 1 << (n & 63)
	}
}

// last returns the greatest node of b that is at most n, or -1.
func (b nodeBits) last(n int32) int32 {
	const words = 1 << (nodePage - 6)
	p := int(n >> nodePage)
	w, mask := int(n>>6)&(words-1), ^uint64(0)>>(63-uint(n&63))
	if p >= len(b) {
		p, w, mask = len(b)-1, words-1, ^uint64(0)
	}
	for ; p >= 0; p, w, mask = p-1, words-1, ^uint64(0) {
		page := b[p]
		if page == nil {
			continue
		}
		for ; w >= 0; w, mask = w-1, ^uint64(0) {
			if x := page[w] & mask; x != 0 {
				return int32(p)<<nodePage | int32(w)<<6 | int32(bits.Len64(x)-1)
			}
		}
	}
	return -1
}

// A graph is what a slice walks: FP, OPT or LP.
type graph interface {
	// nodeAt returns node n with its dependences, to be read before
	// nodeAt is called again (OPT and LP give the same Node each time).
	nodeAt(n int32) (*Node, error)
	funcAt(i int32) *Func
	// goroutineOf returns the recording and the id of the goroutine
	// that ran node n.
	goroutineOf(n int32) (file string, id uint64)
}

func (g *Graph) nodeAt(n int32) (*Node, error) { return &g.Nodes[n], nil }
func (g *Graph) funcAt(i int32) *Func          { return g.Funcs[i] }

func (g *Graph) goroutineOf(n int32) (string, uint64) {
	i := sort.Search(len(g.Goroutines), func(i int) bool { return g.Goroutines[i].FirstNode > int(n) }) - 1
	return g.Goroutines[i].File, g.Goroutines[i].ID
}

// Slice computes the backward slice of criterion c.
func (g *Graph) Slice(c Criterion) (*Slice, error) {
	return sliceOf(g, g.Find(c), c)
}

// sliceOf computes the slice of criterion c in gr, whose executions of the
// criterion's statements are found.
func sliceOf(gr graph, found []int32, c Criterion) (*Slice, error) {
	found = c.Scope.within(gr, found)
	if len(found) == 0 {
		if c.Scope != nil {
			return nil, fmt.Errorf("no statement at %s:%d ran in test %s", c.File, c.Line, c.Scope.Test)
		}
		return nil, fmt.Errorf("no statement at %s:%d ran in the recording", c.File, c.Line)
	}
	pick := len(found) - 1
	if c.Instance > 0 {
		if c.Instance > len(found) {
			return nil, fmt.Errorf("%s:%d ran %d times, there is no execution %d", c.File, c.Line, len(found), c.Instance)
		}
		pick = c.Instance - 1
	}
	s := &Slice{Criterion: found[pick], Instance: pick + 1, Instances: len(found)}
	// The statements in the order markSlice meets them, each with its
	// executions; their order in the source after.
	// index[fn][stmt] is a statement's index in stmts, plus one (0: not
	// met yet): looked up at every step, so not a map.
	var index [][]int32
	byStmt := make(map[Stmt]int32)
	var stmts []Stmt
	var execs []int
	memory := make(map[string]bool)
	vias := make(map[string]int32)
	viaOf := func(via string) int32 {
		v, ok := vias[via]
		if !ok {
			v = int32(len(s.vias))
			vias[via] = v
			s.vias = append(s.vias, via)
		}
		return v
	}
	err := markSlice(gr, s.Criterion, c.Var, c.Potential, func(n *Node) error {
		if int(n.Func) >= len(index) {
			index = slices.Grow(index, int(n.Func)+1-len(index))[:n.Func+1]
		}
		if index[n.Func] == nil {
			index[n.Func] = make([]int32, len(gr.funcAt(n.Func).Deps.Stmts))
		}
		k := index[n.Func][n.Stmt] - 1
		if k < 0 {
			// The statement's first step.
			f := gr.funcAt(n.Func)
			stmt := stmtOf(f, n.Stmt)
			var ok bool
			if k, ok = byStmt[stmt]; !ok {
				k = int32(len(stmts))
				byStmt[stmt] = k
				stmts = append(stmts, stmt)
				execs = append(execs, 0)
			}
			index[n.Func][n.Stmt] = k + 1
			s.valued = s.valued || len(f.Deps.Values) > 0
			ds := &f.Deps.Stmts[n.Stmt]
			for _, m := range ds.Memory {
				memory[fmt.Sprintf("%s:%d: %s", stmt.File, ds.Line, m)] = true
			}
		}
		execs[k]++
		s.numSteps++
		return nil
	})
	if err != nil {
		return nil, err
	}
	order := make([]int32, len(stmts))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return compareStmts(stmts[a], stmts[b]) })
	rank := make([]int32, len(stmts))
	s.Stmts, s.Execs = make([]Stmt, len(stmts)), make([]int, len(stmts))
	for r, k := range order {
		rank[k] = int32(r)
		s.Stmts[r], s.Execs[r] = stmts[k], execs[k]
	}
	for _, ks := range index {
		for i, k := range ks {
			if k > 0 {
				ks[i] = rank[k-1] + 1
			}
		}
	}
	s.Memory = slices.Sorted(maps.Keys(memory))
	crit, v, potential := s.Criterion, c.Var, c.Potential
	s.walk = func(fn func(st step) error) error {
		return walkSlice(gr, crit, v, potential, viaOf, func(st *step, n *Node) error {
			st.stmt = index[n.Func][n.Stmt] - 1
			return fn(*st)
		})
	}
	return s, nil
}

// The rules of a slice, which markSlice and walkSlice both follow
// (sliceRules), and which make its nodes the same whatever the order they
// are met in. The root is in the slice; a node in it brings in its
// dependences: definitions, memory writers, results, arguments and
// control, as full nodes, and, for a function's entry, its calling
// statement (Node.Call) as a call-only node, whose control dependence
// alone leads on (the call is in the slice, not what it goes on to use).
// A dependence runs back in time, but a calling statement's on the
// return of its callee: a statement's node stands for all of it, what it
// does before the call and what it does after. So the results of a
// statement reached only through memory (what it wrote before its call,
// as a composite literal passed to it) are followed only where a reader
// came after them: a read inside its own call depends on what the
// statement did before, not on what its call went on to return. Every
// other dependence comes after the whole statement ran. A node reached
// in several ways is taken in the widest: full, then through memory,
// then call-only. A root sliced from one variable leads on to that
// variable's definition and its control dependence, nothing else.

// An edgeKind is how a dependence brings a node into a slice.
type edgeKind uint8

const (
	edgeFull   edgeKind = iota // definitions, results, arguments, control
	edgeMemory                 // a memory writer: its later results only if read after them
	edgeCall                   // a function's entry's calling statement
)

// sliceRules is what a walk of a slice knows of its nodes, and applies
// the rules: push is called with each node new to the slice, again with
// each node expanded before that must be expanded again (it was met more
// widely since).
type sliceRules struct {
	root    int32
	rootVar bool
	// potential says to follow potential dependences (Node.Potential):
	// the relevant slice.
	potential bool
	push      func(n int32, via string)
	again     func(n int32)
	// flags are, for each node: in the slice (flagSeen), met only as a
	// calling statement (flagCallOnly), met as a full node (flagFull),
	// expanded, expanded with results left out (flagSkipped), with a
	// memReach (flagMemReach); and markSlice's flagAgain.
	flags nodeFlags
	// memReach is, for each node met through memory but not as a full
	// node, its last reader, until it is expanded with no result left
	// out.
	memReach map[int32]int32
}

func newSliceRules(root int32, rootVar, potential bool) *sliceRules {
	r := &sliceRules{root: root, rootVar: rootVar, potential: potential, memReach: make(map[int32]int32)}
	f := r.flags.at(root)
	f.set(flagSeen)
	if !rootVar {
		f.set(flagFull)
	}
	return r
}

// add adds node n to the slice, met as kind says from node from.
func (r *sliceRules) add(n, from int32, via string, kind edgeKind) {
	if n < 0 || n == r.root {
		return
	}
	f := r.flags.at(n)
	if !f.has(flagSeen) {
		f.set(flagSeen)
		switch kind {
		case edgeFull:
			f.set(flagFull)
		case edgeMemory:
			r.memReach[n] = from
			f.set(flagMemReach)
		case edgeCall:
			f.set(flagCallOnly)
		}
		r.push(n, via)
		return
	}
	if kind == edgeCall || f.has(flagFull) {
		return
	}
	wasCallOnly := f.has(flagCallOnly)
	if wasCallOnly {
		f.clear(flagCallOnly)
	}
	expanded, skipped := f.has(flagExpanded), f.has(flagSkipped)
	if kind == edgeFull {
		f.set(flagFull)
		if f.has(flagMemReach) {
			delete(r.memReach, n)
			f.clear(flagMemReach)
		}
		if expanded && (wasCallOnly || skipped) {
			r.again(n)
		}
		return
	}
	if expanded && !wasCallOnly && !skipped {
		return // its results are all followed or it has none
	}
	if last, ok := r.lastReader(f, n); !ok || from > last {
		r.memReach[n] = from
		f.set(flagMemReach)
		if expanded {
			r.again(n)
		}
	} else if wasCallOnly && expanded {
		r.again(n)
	}
}

// addRoot adds what the root, sliced from its use vi alone, depends on:
// the variable's definition, and its potential dependences (its control
// dependence comes when the root is expanded).
func (r *sliceRules) addRoot(gr graph, rn *Node, vi int, v string) {
	r.add(rn.Defs[vi], r.root, v, edgeFull)
	if r.potential {
		fn := gr.funcAt(rn.Func)
		r.addPotential(fn, &fn.Deps.Stmts[rn.Stmt], r.root, rn, vi)
	}
}

// addPotential adds the potential dependences of node id (n, of statement
// ds of fn): of its use only if only is not -1. Each is a full node: the
// predicate, what decided it ran and what it read.
func (r *sliceRules) addPotential(fn *Func, ds *profile.DepStmt, id int32, n *Node, only int) {
	use := 0
	for _, p := range n.Potential {
		if p < 0 {
			use++
			continue
		}
		if only < 0 || use == only {
			r.add(p, id, PotentialVia(fn.Deps.Vars[ds.Uses[use]].Name), edgeFull)
		}
	}
}

// PotentialVia is the Via of a step a potential dependence brought in:
// the predicate could have set variable v had it gone another way.
func PotentialVia(v string) string { return "could set " + v }

// lastReader returns node n's memReach, if it has one (f is its flags).
func (r *sliceRules) lastReader(f flagRef, n int32) (int32, bool) {
	if !f.has(flagMemReach) {
		return 0, false
	}
	last, ok := r.memReach[n]
	return last, ok
}

// expand adds the dependences of node id (n) as the rules say.
func (r *sliceRules) expand(gr graph, id int32, n *Node) {
	f := r.flags.at(id)
	f.set(flagExpanded)
	if f.has(flagCallOnly) || (id == r.root && r.rootVar) {
		r.add(n.Control, id, "control", edgeFull)
		return
	}
	fn := gr.funcAt(n.Func)
	ds := &fn.Deps.Stmts[n.Stmt]
	for k, d := range n.Defs {
		if d >= 0 {
			r.add(d, id, fn.Deps.Vars[ds.Uses[k]].Name, edgeFull)
		}
	}
	if r.potential {
		r.addPotential(fn, ds, id, n, -1)
	}
	for _, d := range n.Memory {
		r.add(d, id, "memory", edgeMemory)
	}
	if n.Call >= 0 {
		r.add(n.Call, id, "call", edgeCall)
	}
	// Only a node met through memory alone (not full, not call-only) has
	// a memReach, and keeps it while results are left out.
	full := f.has(flagFull)
	reach, reached := int32(0), false // its memReach, looked up for a result
	skipped := false
	for _, d := range n.Data {
		if slices.Contains(n.Defs, d) {
			continue
		}
		via := "result"
		if n.Stmt == 0 {
			via = "argument"
		}
		if d > id && !full && !reached {
			reach, _ = r.lastReader(f, id)
			reached = true
		}
		if d > id && !full && reach <= d {
			skipped = true // a result read by none of the readers
			continue
		}
		r.add(d, id, via, edgeFull)
	}
	r.add(n.Control, id, "control", edgeFull)
	if skipped {
		f.set(flagSkipped)
		return
	}
	f.clear(flagSkipped)
	if !full && f.has(flagMemReach) {
		delete(r.memReach, id)
		f.clear(flagMemReach)
	}
}

// A node's flags in sliceRules.flags.
const (
	flagSeen = iota
	flagCallOnly
	flagFull
	flagExpanded
	flagSkipped
	flagMemReach
	flagAgain
	flagPlanes
)

// nodeFlags are flags of nodes, a bit a flag a node, in pages of 2^16
// nodes made as they are first used, each page holding every flag of its
// nodes: the rules test and set several flags of a node at a time, and a
// whole suite's slice goes through tens of millions of nodes. A slice of
// a small part of the run takes little.
type nodeFlags []*flagPage

type flagPage [flagPlanes][1 << (nodePage - 6)]uint64

// A flagRef is a node's place in its page.
type flagRef struct {
	p   *flagPage
	w   uint32
	bit uint64
}

// at returns node n's flags, making its page.
func (fl *nodeFlags) at(n int32) flagRef {
	p := int(n >> nodePage)
	if p >= len(*fl) {
		*fl = slices.Grow(*fl, p+1-len(*fl))[:p+1]
	}
	if (*fl)[p] == nil {
		(*fl)[p] = new(flagPage)
	}
	return flagRef{(*fl)[p], uint32(n>>6) & (1<<(nodePage-6) - 1), 1 << (n & 63)}
}

// peek returns node n's flags, with no page if it has none yet.
func (fl nodeFlags) peek(n int32) flagRef {
	p := int(n >> nodePage)
	if p >= len(fl) {
		return flagRef{}
	}
	return flagRef{fl[p], uint32(n>>6) & (1<<(nodePage-6) - 1), 1 << (n & 63)}
}

func (f flagRef) has(k int) bool { return f.p != nil && f.p[k][f.w]&f.bit != 0 }
func (f flagRef) set(k int)      { f.p[k][f.w] |= f.bit }
func (f flagRef) clear(k int)    { f.p[k][f.w] &^= f.bit }

// markSlice finds the nodes of the slice of node root of gr (of variable
// v if not empty), each once, calling visit with each. It takes them in
// the order the graphs answer fastest, not breadth first: the last node
// pending first, so that OPT and LP meet a call's nodes together, from
// its last, and replay each window of it about once (a breadth-first
// walk of a whole suite's slice goes back and forth across the run, one
// step of each chain at a time). Dependences point to earlier nodes, but
// for a calling statement's on its callee's return: those are taken
// first, from a heap, so that the pending nodes below are found going
// down once. It keeps bitsets of the nodes seen and pending, a bit per
// node at most, and no list but that heap.
func markSlice(gr graph, root int32, v string, potential bool, visit func(n *Node) error) error {
	rn, err := gr.nodeAt(root)
	if err != nil {
		return err
	}
	vi := varIndex(gr.funcAt(rn.Func), rn.Stmt, v)
	rules := newSliceRules(root, v != "" && vi >= 0, potential)
	// pending: to expand; flagAgain: to expand again, met more widely.
	var pending nodeBits
	// The pending nodes below pos are found by going down pending from
	// pos, once; those above (a callee's return, and what it depends on
	// in its call) are in above, taken first, greatest first.
	left, pos := 0, root
	var above nodeHeap
	push := func(n int32) {
		pending.add(n)
		left++
		if n > pos {
			above.push(n)
		}
	}
	rules.push = func(n int32, _ string) { push(n) }
	rules.again = func(n int32) {
		if !pending.has(n) {
			rules.flags.at(n).set(flagAgain)
			push(n)
		}
	}
	push(root)
	if rules.rootVar {
		rules.addRoot(gr, rn, vi, v)
	}
	for left > 0 {
		var n int32
		if above.Len() > 0 {
			n = above.pop()
		} else {
			n = pending.last(pos)
			pos = n
		}
		pending.del(n)
		left--
		nd, err := gr.nodeAt(n)
		if err != nil {
			return err
		}
		if f := rules.flags.peek(n); f.has(flagAgain) {
			f.clear(flagAgain)
		} else if err := visit(nd); err != nil {
			return err
		}
		rules.expand(gr, n, nd)
	}
	return nil
}

// walkSlice walks the slice of node root of gr (of variable v if not
// empty) breadth first, calling visit with each step and its node in
// turn, until it returns an error. It keeps the steps waiting to be
// visited, not those visited; viaOf numbers a step's Via.
func walkSlice(gr graph, root int32, v string, potential bool, viaOf func(string) int32, visit func(st *step, n *Node) error) error {
	rn, err := gr.nodeAt(root)
	if err != nil {
		return err
	}
	vi := varIndex(gr.funcAt(rn.Func), rn.Stmt, v)
	rules := newSliceRules(root, v != "" && vi >= 0, potential)
	// queue holds the steps to visit from head on: those added, not yet
	// visited (a step's number is its place in the walk), and the nodes
	// to expand again (via upgrade, from their own step's number).
	var queue []step
	// stepAt are the steps' numbers and depths of the nodes visited that
	// may be expanded again: call-only, or with results left out.
	stepAt := make(map[int32][2]int32)
	head, next := 0, int32(0)
	var from, depth int32 // of the node expanded
	push := func(st step) {
		if head > 4096 && head > len(queue)/2 {
			queue = queue[:copy(queue, queue[head:])]
			head = 0
		}
		queue = append(queue, st)
	}
	rules.push = func(n int32, via string) {
		push(step{node: n, from: from, depth: depth, via: viaOf(via)})
	}
	rules.again = func(n int32) {
		if at, ok := stepAt[n]; ok {
			push(step{node: n, from: at[0], depth: at[1], via: upgrade})
		}
	}
	push(step{node: root, from: -1, via: viaOf("")})
	if rules.rootVar {
		// The variable's value as the statement read it: its definition,
		// and the statement's control dependence, which decided it ran.
		from, depth = 0, 1
		rules.addRoot(gr, rn, vi, v)
	}
	for ; head < len(queue); head++ {
		st := queue[head]
		n, err := gr.nodeAt(st.node)
		if err != nil {
			return err
		}
		if st.via == upgrade {
			from, depth = st.from, st.depth+1
		} else {
			if err := visit(&st, n); err != nil {
				return err
			}
			from, depth = next, st.depth+1
			next++
		}
		rules.expand(gr, st.node, n)
		if f := rules.flags.peek(st.node); f.has(flagCallOnly) || f.has(flagSkipped) {
			stepAt[st.node] = [2]int32{from, depth - 1}
		}
	}
	return nil
}

// A nodeHeap is a max-heap of nodes (not container/heap's: its
// interface boxes each node pushed, a fifth of a slice's allocations).
type nodeHeap []int32

func (h nodeHeap) Len() int { return len(h) }

func (h *nodeHeap) push(n int32) {
	*h = append(*h, n)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] >= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *nodeHeap) pop() int32 {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, big := 2*i+1, i
		if l < len(a) && a[l] > a[big] {
			big = l
		}
		if r := l + 1; r < len(a) && a[r] > a[big] {
			big = r
		}
		if big == i {
			break
		}
		a[i], a[big] = a[big], a[i]
		i = big
	}
	*h = a
	return top
}

// upgrade is the via of a queued call-only node to expand again as full.
const upgrade = -1
