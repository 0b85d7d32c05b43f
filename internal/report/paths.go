package report

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/pathcover/pathcover/internal/source"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A Path is one acyclic path of a function, decoded.
type Path struct {
	ID    uint64
	Count uint64
	// Error, for a function counted in a hot path table (Func.Estimated),
	// bounds how much Count may exceed the path's true count.
	Error uint64 `json:",omitempty"`
	Steps []Step
	// Infeasible is, for a path that never ran and was proved infeasible,
	// the branch outcomes that contradict and why.
	Infeasible *Contradiction `json:",omitempty"`
	// Needs are, for a path that never ran and was not proved infeasible,
	// its branches with the outcome each must have: what a test that runs
	// it must make hold.
	Needs []Condition `json:",omitempty"`
	// Tests are, where the profile says (pathcover test), the tests that
	// ran the path, most runs first.
	Tests []TestRun `json:",omitempty"`
}

// A Step is one edge of a path: where it is taken and what it means.
type Step struct {
	File string
	Line int
	Col  int
	// Kind is the branch outcome (true, false, case, next case, no match,
	// comm, next, done, break, continue, goto, fallthrough, return, no
	// return, blocks forever, flow, loop), or "start" for the function's
	// start, "again" for a path that starts where a loop goes round again,
	// and "round" for one that ends there. A supergraph's path also has
	// profile.EdgeCall where it enters a callee and profile.EdgeCallReturn
	// where it returns.
	Kind profile.EdgeKind
	// Func is, on a supergraph's path, the function the step is in.
	Func string `json:",omitempty"`
	// Package is the import path of the function's package, which names
	// a file under none of the roots that source.Names knows.
	Package string `json:"-"`
	// Cond is, for a branch outcome, the source of its condition as the
	// metadata keeps it (profile.Edge.Cond): what Describe says the
	// outcome of. Metadata of older builds has none.
	Cond string `json:",omitempty"`
}

// Decoded returns the function's paths that ran, hottest first, or with
// untested those that never ran, in id order; it refuses to enumerate more
// than limit paths.
func (f *Func) Decoded(untested bool, limit uint64) ([]Path, error) {
	n := f.numbering
	var ids []uint64
	if untested {
		if n.NumPaths() > limit {
			return nil, fmt.Errorf("%s has %d paths, more than the limit of %d to list", f.Name, n.NumPaths(), limit)
		}
		for id := range n.NumPaths() {
			if f.counts[id] == 0 {
				ids = append(ids, id)
			}
		}
	} else {
		for id := range f.counts {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(a, b uint64) int {
			return cmp.Or(cmp.Compare(f.counts[b], f.counts[a]), cmp.Compare(a, b))
		})
		if uint64(len(ids)) > limit {
			ids = ids[:limit]
		}
	}
	paths := make([]Path, 0, len(ids))
	for _, id := range ids {
		dag, err := n.Decode(id)
		if err != nil {
			return nil, err
		}
		p := Path{ID: id, Count: f.counts[id], Error: f.errors[id], Steps: f.steps(dag)}
		if p.Count == 0 {
			f.explain(&p, dag)
		} else if f.Attributed() {
			p.Tests = f.Tests(id)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// steps spells a path of DAG edges in the source's terms.
func (f *Func) steps(dag []numbering.EdgeID) []Step {
	n := f.numbering
	m := f.meta
	var steps []Step
	// in returns the file and the function of a supergraph's site (-1:
	// its caller).
	in := func(site int) (string, string) {
		if site >= 0 {
			return m.Super.Sites[site].File, m.Super.Sites[site].Func
		}
		caller := &f.pkgMeta.Funcs[m.Super.Caller]
		return f.pkgMeta.Files[caller.File], caller.Name
	}
	// where returns the file and, for a supergraph, the function that
	// holds the origin of block b (e < 0) or edge e.
	where := func(b numbering.BlockID, e numbering.EdgeID) (string, string) {
		switch {
		case m.Super == nil:
			return f.File, ""
		case e < 0:
			return in(m.Super.Blocks[b].Site)
		}
		o := m.Super.Edges[e]
		if o.Index == int32(numbering.CallEdge) || o.Index == int32(numbering.ReturnEdge) {
			// Where the call is: in the caller, or in the callee of
			// the site's parent.
			return in(m.Super.Sites[o.Site].Parent)
		}
		return in(o.Site)
	}
	for i, id := range dag {
		e := n.Edge(id)
		switch e.Kind {
		case numbering.StartEdge:
			b := m.Blocks[e.Dst]
			file, fn := where(e.Dst, -1)
			if i == 0 && e.Dst == n.Graph().Entry {
				steps = append(steps, Step{File: file, Line: m.Line, Col: 1, Kind: "start", Func: fn})
			} else {
				steps = append(steps, Step{File: file, Line: b.Line, Col: b.Col, Kind: "again", Func: fn})
			}
		case numbering.EndEdge:
			me := m.Edges[e.Cut]
			file, fn := where(0, e.Cut)
			steps = append(steps, Step{File: file, Line: me.Line, Col: me.Col, Kind: "round", Func: fn})
		default:
			me := m.Edges[id]
			file, fn := where(0, id)
			steps = append(steps, Step{File: file, Line: me.Line, Col: me.Col, Kind: me.Kind, Func: fn, Cond: me.Cond})
		}
	}
	// A loop head with no statements of its own (a range or a for with no
	// condition) has no position: the round starts where its first branch is.
	for i := len(steps) - 2; i >= 0; i-- {
		if steps[i].Kind == "again" && steps[i].Line == 0 {
			steps[i].Line, steps[i].Col = steps[i+1].Line, steps[i+1].Col
		}
	}
	return steps
}

// Paths are paths of one function, decoded (Func.Decoded), to print.
type Paths struct {
	Func  *Func
	Paths []Path
}

// WriteText writes the function, then its paths: each with its id and
// count, then its steps, one a line, leaving out those that just fall
// through.
func (ps Paths) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	cwd, _ := os.Getwd()
	f := ps.Func
	fmt.Fprintf(ew, "%s (%s:%d): %s\n", source.FuncName(profile.PackagePath(f.Package), f.Name), relative(cwd, f.File), f.Line, f.Summary())
	for _, p := range ps.Paths {
		switch {
		case p.Infeasible != nil:
			fmt.Fprintf(ew, "\npath %d, never ran, proved infeasible\n", p.ID)
			writeNeeds(ew, cwd, p)
			continue
		case p.Needs != nil:
			fmt.Fprintf(ew, "\npath %d, never ran\n", p.ID)
			writeNeeds(ew, cwd, p)
			continue
		case p.Count == 0 && f.Estimated:
			fmt.Fprintf(ew, "\npath %d, not in the hot path table: ran less often than those in it, or never\n", p.ID)
		case p.Count == 0:
			fmt.Fprintf(ew, "\npath %d, never ran\n", p.ID)
		case f.Estimated:
			fmt.Fprintf(ew, "\npath %d, ran %s to %s times (estimated: hot path table)\n", p.ID, atLeast(p.Count-p.Error), atLeast(p.Count))
		case p.Count == 1:
			fmt.Fprintf(ew, "\npath %d, ran once\n", p.ID)
		default:
			fmt.Fprintf(ew, "\npath %d, ran %s times\n", p.ID, atLeast(p.Count))
		}
		writeTests(ew, p.Tests)
		writeSteps(ew, cwd, p.Steps)
	}
	return ew.err
}

// WriteJSON writes the function and its paths as JSON.
func (ps Paths) WriteJSON(w io.Writer) error {
	if ps.Paths == nil {
		ps.Paths = []Path{}
	}
	return writeJSON(w, ps)
}

// PathLists are the paths of several functions (one name can denote
// several: F in two packages).
type PathLists []Paths

// WriteText writes each function's paths, a blank line between them.
func (l PathLists) WriteText(w io.Writer) error {
	for i, ps := range l {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := ps.WriteText(w); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the functions and their paths as a JSON list.
func (l PathLists) WriteJSON(w io.Writer) error {
	for i := range l {
		if l[i].Paths == nil {
			l[i].Paths = []Path{}
		}
	}
	if l == nil {
		l = PathLists{}
	}
	return writeJSON(w, l)
}

// writeSteps writes a path's branches, one a line, leaving out the edges
// that just fall through. On a supergraph's path, a line names the function
// each run of steps is in, at the start and after each call and return.
func writeSteps(w io.Writer, cwd string, steps []Step) {
	in := ""
	for _, s := range steps {
		if s.Func != in {
			fmt.Fprintf(w, "\tin %s:\n", s.Func)
			in = s.Func
		}
		if s.Kind == "flow" || s.Kind == "loop" {
			continue
		}
		fmt.Fprintf(w, "\t%s:%d:%d\t%s\n", relative(cwd, s.File), s.Line, s.Col, s.Describe())
	}
}

func describe(kind profile.EdgeKind) string {
	switch kind {
	case "start":
		return "function starts"
	case "again":
		return "loop goes round again"
	case "round":
		return "loop goes round (path ends)"
	case "true", "false":
		return "condition " + string(kind)
	case "next":
		return "range: next element"
	case "done":
		return "range: no more elements"
	case "next case":
		return "case does not match"
	case "no match":
		return "no case matches"
	case "case":
		return "case matches"
	case "comm":
		return "select case chosen"
	case "no return":
		return "call that never returns"
	case profile.EdgeCall:
		return "call (the segment enters the callee)"
	case profile.EdgeCallReturn:
		return "callee returns (the segment goes on in the caller)"
	}
	return string(kind)
}

// DecodeSteps decodes path id of function fn of the package whose
// metadata is m (whole program paths name functions so): its steps in the
// source.
func DecodeSteps(m *profile.Meta, fn int, id uint64) ([]Step, error) {
	if fn < 0 || fn >= len(m.Funcs) {
		return nil, fmt.Errorf("%s has no function %d", m.Package, fn)
	}
	mf := &m.Funcs[fn]
	n, err := mf.Numbering()
	if err != nil {
		return nil, err
	}
	if id >= n.NumPaths() {
		return nil, fmt.Errorf("%s.%s has no path %d", m.Package, mf.Name, id)
	}
	dag, err := n.Decode(id)
	if err != nil {
		return nil, err
	}
	f := &Func{Name: mf.Name, File: m.Files[mf.File], meta: mf, pkgMeta: m, numbering: n}
	steps := f.steps(dag)
	pkg := profile.PackagePath(m.Package)
	for i := range steps {
		steps[i].Package = pkg
	}
	return steps, nil
}

// DecodeShape decodes path id of function fn of the package whose
// metadata is m to what it does in the source's structure rather than
// where: each step that is not a fall-through as its kind and the rank of
// its place among the places of the function's blocks and edges, in
// source order ("7 true"). Two versions of a function whose edit leaves
// its structure alone (lines inserted above or within, a literal spelled
// anew, a local renamed) give paths that take the same branches the same
// shape, where their steps' lines and columns differ.
func DecodeShape(m *profile.Meta, fn int, id uint64) ([]string, error) {
	steps, err := DecodeSteps(m, fn, id)
	if err != nil {
		return nil, err
	}
	mf := &m.Funcs[fn]
	type place struct{ line, col int }
	var places []place
	for _, b := range mf.Blocks {
		places = append(places, place{b.Line, b.Col})
	}
	for _, e := range mf.Edges {
		places = append(places, place{e.Line, e.Col})
	}
	order := func(a, b place) int { return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col)) }
	slices.SortFunc(places, order)
	places = slices.Compact(places)
	shape := make([]string, 0, len(steps))
	for _, s := range steps {
		switch s.Kind {
		case "flow", "loop":
			continue
		case "start":
			shape = append(shape, "start")
			continue
		}
		rank, found := slices.BinarySearchFunc(places, place{s.Line, s.Col}, order)
		if !found {
			rank = -1
		}
		shape = append(shape, fmt.Sprintf("%d %s", rank, s.Kind))
	}
	return shape, nil
}

// StepText is one step as the text reports write it, its file named as
// names gives it (source.Names.File; nil: as recorded).
func StepText(s Step, names *source.Names) string {
	file := s.File
	if names != nil {
		file = names.FileOf(file, s.Package)
	}
	return fmt.Sprintf("%s:%d:%d %s", file, s.Line, s.Col, s.Describe())
}
