package slice

import (
	"cmp"
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

// A Slice is a backward dynamic slice.
type Slice struct {
	// Criterion is the node sliced from, and Instances how many executions
	// of its statement the run had.
	Criterion int32
	Instances int
	// Stmts are the slice's statements, in source order.
	Stmts []Stmt
	// Steps are the nodes of the slice, each with the dependence that
	// brought it in, breadth first from the criterion: the first step
	// for each statement is its shortest chain back to the criterion.
	Steps []Step
	// Memory lists the reads through memory that the slice stops at,
	// whose writers a -deps build does not record.
	Memory []string
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
	var err error
	var nodes []*Node // of the steps
	add := func(n int32, from int, via string, depth int) {
		if n < 0 || seen.has(n) || err != nil {
			return
		}
		var node *Node
		if node, err = gr.nodeAt(n); err != nil {
			return
		}
		seen.add(n)
		s.Steps = append(s.Steps, Step{Node: n, Stmt: stmtOf(gr.funcAt(node.Func), node.Stmt), Depth: depth, From: from, Via: via})
		nodes = append(nodes, node)
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
	for i := 0; i < len(s.Steps) && err == nil; i++ {
		step := s.Steps[i]
		n := nodes[i]
		nodes[i] = nil // only the steps not walked yet are kept
		f := gr.funcAt(n.Func)
		st := &f.Deps.Stmts[n.Stmt]
		for _, m := range st.Memory {
			memory[fmt.Sprintf("%s:%d: %s", step.Stmt.File, st.Line, m)] = true
		}
		if callOnly[step.Node] {
			add(n.Control, i, "control", step.Depth+1)
			continue
		}
		if i == 0 && fromVar {
			// Sliced from one variable: only its definition and the
			// control dependence lead on from the criterion.
			add(n.Control, i, "control", step.Depth+1)
			continue
		}
		for k, d := range n.Defs {
			if d >= 0 {
				add(d, i, f.Deps.Vars[st.Uses[k]].Name, step.Depth+1)
			}
		}
		for _, d := range n.Memory {
			add(d, i, "memory", step.Depth+1)
		}
		if n.Call >= 0 && !seen.has(n.Call) {
			// The call statement is in the slice, but what it uses of
			// its callees' results is not: only its control dependence
			// and its arguments' definitions lead on.
			add(n.Call, i, "call", step.Depth+1)
			callOnly[n.Call] = true
		}
		for _, d := range n.Data {
			if !slices.Contains(n.Defs, d) {
				via := "result"
				if n.Stmt == 0 {
					via = "argument"
				}
				add(d, i, via, step.Depth+1)
			}
		}
		add(n.Control, i, "control", step.Depth+1)
	}
	if err != nil {
		return nil, err
	}
	stmts := make(map[Stmt]bool)
	for _, step := range s.Steps {
		stmts[step.Stmt] = true
	}
	for st := range stmts {
		s.Stmts = append(s.Stmts, st)
	}
	slices.SortFunc(s.Stmts, func(a, b Stmt) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	for m := range memory {
		s.Memory = append(s.Memory, m)
	}
	slices.Sort(s.Memory)
	return s, nil
}
