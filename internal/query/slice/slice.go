package slice

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
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
}

// A Slice is a backward dynamic slice. It is answered as statements, each
// with how many of its executions the slice holds, in memory bounded by
// the program; its steps, one per statement execution, are kept compactly
// (20 bytes each) and made into Steps only when asked for (Step, Steps),
// a page at a time by those that print them.
type Slice struct {
	// Criterion is the node sliced from, and Instances how many executions
	// of its statement the run had.
	Criterion int32
	Instances int
	// Stmts are the slice's statements, in source order, and Execs how
	// many of each one's executions the slice holds.
	Stmts []Stmt
	Execs []int
	// Memory lists the reads through memory that the slice stops at,
	// whose writers a -deps build does not record.
	Memory []string

	steps []step   // breadth first from the criterion
	vias  []string // the steps' Via, each once
}

// A step is a Step as a Slice keeps it: stmt indexes Stmts, via vias.
type step struct {
	node, from, depth, stmt, via int32
}

// NumSteps returns how many steps the slice has: the statement executions
// it holds.
func (s *Slice) NumSteps() int { return len(s.steps) }

// Step returns step i: the nodes of the slice, each with the dependence
// that brought it in, are numbered breadth first from the criterion (0),
// so that the first step of each statement is its shortest chain back to
// the criterion.
func (s *Slice) Step(i int) Step {
	st := s.steps[i]
	return Step{Node: st.node, Stmt: s.Stmts[st.stmt], Depth: int(st.depth), From: int(st.from), Via: s.vias[st.via]}
}

// Steps returns steps [from, to).
func (s *Slice) Steps(from, to int) []Step {
	out := make([]Step, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, s.Step(i))
	}
	return out
}

// FromSteps makes a Slice of steps (breadth first from the criterion, as
// Step numbers them), for tools and tests that make slices of their own.
func FromSteps(instances int, steps []Step, memory []string) *Slice {
	s := &Slice{Instances: instances, Memory: memory}
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
// writes them a page at a time instead (WriteJSON).
func (s *Slice) MarshalJSON() ([]byte, error) {
	return json.Marshal(sliceJSON{s.Criterion, s.Instances, s.Stmts, s.Execs, s.Steps(0, len(s.steps)), s.Memory})
}

// sliceJSON is the JSON of a Slice.
type sliceJSON struct {
	Criterion int32
	Instances int
	Stmts     []Stmt
	Execs     []int
	Steps     []Step
	Memory    []string
}

// A Stmt is a statement of the source.
type Stmt struct {
	File                       string
	Func                       string
	Line, Col, EndLine, EndCol int
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
	file := ""
	if f.Func.File >= 0 && f.Func.File < len(f.Meta.Files) {
		file = f.Meta.Files[f.Func.File]
	}
	return Stmt{File: file, Func: f.Name(), Line: st.Line, Col: st.Col, EndLine: st.EndLine, EndCol: st.EndCol}
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

// A nodeSet is a set of nodes, 64 to a word.
type nodeSet map[int32]uint64

func (s nodeSet) has(n int32) bool { return s[n>>6]&(1<<(n&63)) != 0 }
func (s nodeSet) add(n int32)      { s[n>>6] |= 1 << (n & 63) }

// A graph is what a slice walks: FP, OPT or LP.
type graph interface {
	// nodeAt returns node n with its dependences.
	nodeAt(n int32) (*Node, error)
	funcAt(i int32) *Func
}

func (g *Graph) nodeAt(n int32) (*Node, error) { return &g.Nodes[n], nil }
func (g *Graph) funcAt(i int32) *Func          { return g.Funcs[i] }

// Slice computes the backward slice of criterion c.
func (g *Graph) Slice(c Criterion) (*Slice, error) {
	return sliceOf(g, g.Find(c), c)
}

// sliceOf computes the slice of criterion c in gr, whose executions of the
// criterion's statements are found.
func sliceOf(gr graph, found []int32, c Criterion) (*Slice, error) {
	if len(found) == 0 {
		return nil, fmt.Errorf("no statement at %s:%d ran in the recording", c.File, c.Line)
	}
	pick := len(found) - 1
	if c.Instance > 0 {
		if c.Instance > len(found) {
			return nil, fmt.Errorf("%s:%d ran %d times, there is no execution %d", c.File, c.Line, len(found), c.Instance)
		}
		pick = c.Instance - 1
	}
	s := &Slice{Criterion: found[pick], Instances: len(found)}
	seen := make(nodeSet)
	callOnly := make(map[int32]bool)
	memory := make(map[string]bool)
	vias := make(map[string]int32)
	// Each step's statement is known when the step is walked, which
	// decodes its node once: (function, statement) until the walk ends,
	// an index in Stmts after.
	type fnStmt struct{ fn, stmt int32 }
	walked := make([]fnStmt, 0, 64)
	add := func(n int32, from int, via string, depth int) {
		if n < 0 || seen.has(n) {
			return
		}
		seen.add(n)
		v, ok := vias[via]
		if !ok {
			v = int32(len(s.vias))
			vias[via] = v
			s.vias = append(s.vias, via)
		}
		s.steps = append(s.steps, step{node: n, from: int32(from), depth: int32(depth), via: v})
	}
	root, err := gr.nodeAt(s.Criterion)
	if err != nil {
		return nil, err
	}
	fromVar := false
	if i := varIndex(gr.funcAt(root.Func), root.Stmt, c.Var); c.Var != "" && i >= 0 {
		// The variable's value as the statement read it: its definition,
		// and the statement's control dependence, which decided it ran.
		add(s.Criterion, -1, "", 0)
		add(root.Defs[i], 0, c.Var, 1)
		fromVar = true
	} else {
		add(s.Criterion, -1, "", 0)
	}
	for i := 0; i < len(s.steps); i++ {
		st := s.steps[i]
		n, err := gr.nodeAt(st.node)
		if err != nil {
			return nil, err
		}
		walked = append(walked, fnStmt{n.Func, n.Stmt})
		f := gr.funcAt(n.Func)
		ds := &f.Deps.Stmts[n.Stmt]
		if len(ds.Memory) > 0 {
			file := stmtOf(f, n.Stmt).File
			for _, m := range ds.Memory {
				memory[fmt.Sprintf("%s:%d: %s", file, ds.Line, m)] = true
			}
		}
		depth := int(st.depth) + 1
		if callOnly[st.node] {
			add(n.Control, i, "control", depth)
			continue
		}
		if i == 0 && fromVar {
			// Sliced from one variable: only its definition and the
			// control dependence lead on from the criterion.
			add(n.Control, i, "control", depth)
			continue
		}
		for k, d := range n.Defs {
			if d >= 0 {
				add(d, i, f.Deps.Vars[ds.Uses[k]].Name, depth)
			}
		}
		for _, d := range n.Memory {
			add(d, i, "memory", depth)
		}
		if n.Call >= 0 && !seen.has(n.Call) {
			// The call statement is in the slice, but what it uses of
			// its callees' results is not: only its control dependence
			// and its arguments' definitions lead on.
			add(n.Call, i, "call", depth)
			callOnly[n.Call] = true
		}
		for _, d := range n.Data {
			if !slices.Contains(n.Defs, d) {
				via := "result"
				if n.Stmt == 0 {
					via = "argument"
				}
				add(d, i, via, depth)
			}
		}
		add(n.Control, i, "control", depth)
	}
	// The statements, in source order, each with its executions; each
	// step's statement, an index in them.
	provisional := make(map[fnStmt]int32)
	byStmt := make(map[Stmt]int32)
	var stmts []Stmt
	for i, fs := range walked {
		k, ok := provisional[fs]
		if !ok {
			st := stmtOf(gr.funcAt(fs.fn), fs.stmt)
			if k, ok = byStmt[st]; !ok {
				k = int32(len(stmts))
				byStmt[st] = k
				stmts = append(stmts, st)
			}
			provisional[fs] = k
		}
		s.steps[i].stmt = k
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
		s.Stmts[r] = stmts[k]
	}
	for i := range s.steps {
		s.steps[i].stmt = rank[s.steps[i].stmt]
		s.Execs[s.steps[i].stmt]++
	}
	for m := range memory {
		s.Memory = append(s.Memory, m)
	}
	slices.Sort(s.Memory)
	return s, nil
}
