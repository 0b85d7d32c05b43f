package report

// Paths proved infeasible: what the build's analysis (package
// internal/static/infeasible, run by pppexec) found, counted, checked against what
// ran, and, for each untested path, the conditions it needs.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// Infeasibility is what the build proved of a function's paths.
type Infeasibility struct {
	// Analyzed says that every build of the function in the profile was
	// analysed. When it is false no path counts as infeasible: metadata
	// written before pppexec proved paths infeasible, a supergraph, an
	// analysis that failed, or a proof that a run contradicted (Build
	// returns an error for that).
	Analyzed bool
	// Paths counts the paths proved infeasible: exactly, or, when Bound,
	// at least that many (too many contradictions over too many branches
	// to count the paths that avoid them all).
	Paths uint64
	Bound bool `json:",omitempty"`
	// Contradictions counts the sets of branch outcomes that no run takes
	// together, which the count is of.
	Contradictions int `json:",omitempty"`
}

// A Contradiction is why a path is infeasible: branch outcomes that no run
// takes together.
type Contradiction struct {
	// Branches are the outcomes, in the order the path takes them.
	Branches []Condition
	// Why says what each outcome says of the function's values, once
	// values that must be equal are named alike, in the same order,
	// separated by "; " (internal/static/infeasible).
	Why string
}

// A Condition is one branch of a path with the outcome the path needs.
type Condition struct {
	File string
	Line int
	Col  int
	// Cond is the source of the condition: an if's or for's condition,
	// "case " and a clause's list, "range " and the range expression,
	// "switch" and its tag for no case matching; "" for a select case.
	Cond string
	Kind profile.EdgeKind
	// Again says, of a range loop's outcome, that the loop went round
	// before on the path (it starts there): the element is not the first.
	Again bool `json:",omitempty"`
	// Implied says that the outcome follows from the outcomes before it on
	// the path (the other outcomes contradict them): a test that meets
	// the others meets it.
	Implied bool `json:",omitempty"`
}

// String says what the condition needs in the source's terms:
// "len(args) != 1 is false", "case "min", "max" matches".
func (c Condition) String() string {
	switch c.Kind {
	case "true":
		return c.Cond + " is true"
	case "false":
		return c.Cond + " is false"
	case "case":
		return c.Cond + " matches"
	case "next case":
		return c.Cond + " does not match"
	case "no match":
		return c.Cond + ": no case matches"
	case "next":
		if c.Again {
			return c.Cond + ": another element"
		}
		return c.Cond + ": an element"
	case "done":
		if c.Again {
			return c.Cond + ": no more elements"
		}
		return c.Cond + ": no elements"
	case "comm":
		return "this select case is chosen"
	case "again":
		return c.Cond + ": a round ran (the path starts where the loop goes round again)"
	}
	return c.Cond + " " + describe(c.Kind)
}

// MarshalJSON adds Text, the condition as String says it.
func (c Condition) MarshalJSON() ([]byte, error) {
	type plain Condition
	return json.Marshal(struct {
		plain
		Text string
	}{plain(c), c.String()})
}

// maxAvoidStates bounds the work of counting the paths that avoid every
// contradiction exactly (numbering.PathsTakingAny); past it the count is a
// bound.
const maxAvoidStates = 1 << 12

// proof is what the build proved of one function: its contradictions as
// edge sets, with their reasons.
type proof struct {
	sets [][]numbering.EdgeID
	why  []string
}

// proved returns the contradictions that every build of f proved (a
// version's builds share its graph, but their sources' conditions may
// differ), or nil if one of them was not analysed.
func (f *Func) proved() (*proof, error) {
	if f.meta.Super != nil {
		return nil, nil
	}
	var p *proof
	for _, b := range f.builds {
		mf := &b.meta.Funcs[b.index]
		if mf.Infeasible == nil {
			return nil, nil
		}
		sets, err := mf.InfeasibleSets()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Package, err)
		}
		for i, c := range mf.Infeasible.Contradictions {
			for _, b := range c.Again {
				s := f.numbering.Start(numbering.BlockID(b))
				if s == numbering.NoEdge || numbering.BlockID(b) == f.numbering.Graph().Entry {
					return nil, fmt.Errorf("%s: function %s: contradiction %d: no path starts where a loop goes round again at block %d", f.Package, f.Name, i, b)
				}
				sets[i] = append(sets[i], s)
			}
		}
		if p == nil {
			p = &proof{sets: sets}
			for _, c := range mf.Infeasible.Contradictions {
				p.why = append(p.why, c.Why)
			}
			continue
		}
		// Keep what this build proved too.
		var keep proof
		for i, s := range p.sets {
			if slices.ContainsFunc(sets, func(t []numbering.EdgeID) bool { return slices.Equal(s, t) }) {
				keep.sets = append(keep.sets, s)
				keep.why = append(keep.why, p.why[i])
			}
		}
		p = &keep
	}
	return p, nil
}

// prove sets f.Infeasible and f.Feasible from what the builds proved. A
// path that ran through a contradiction would show the proof wrong: then
// the function counts as not analysed, and the error says so.
func (f *Func) prove() error {
	f.Feasible = f.Paths
	p, err := f.proved()
	if err != nil || p == nil {
		return err
	}
	n := f.numbering
	for id := range f.counts {
		dag, err := n.Decode(id)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
		}
		if i := takesAny(n, dag, p.sets); i >= 0 {
			return &ProofError{Func: f.Package + "." + f.Name, Path: id, Why: p.why[i]}
		}
	}
	f.proof = p
	count, exact := n.PathsTakingAny(p.sets, maxAvoidStates)
	f.Infeasible = Infeasibility{Analyzed: true, Paths: count, Bound: !exact, Contradictions: len(p.sets)}
	f.Feasible = Coverage{Covered: f.Paths.Covered, Total: f.Paths.Total - count, Bound: !exact}
	return nil
}

// A ProofError says that a path proved infeasible ran: the proof is wrong,
// a bug in pathcover. The report then counts the function's paths as if
// nothing had been proved.
type ProofError struct {
	Func string
	Path uint64
	Why  string // the contradiction it runs through
}

// ProofErrorText begins every ProofError's message, so that a test can
// find one in any command's output.
const ProofErrorText = "pathcover bug: a path proved infeasible ran"

func (e *ProofError) Error() string {
	return fmt.Sprintf("%s: path %d of %s, through %q; please report it (the function's paths all count as feasible)", ProofErrorText, e.Path, e.Func, e.Why)
}

// takesAny returns the index of the first set that path (DAG edges) takes
// all of, or -1.
func takesAny(n *numbering.Numbering, path []numbering.EdgeID, sets [][]numbering.EdgeID) int {
	for i, s := range sets {
		if n.Takes(path, s) {
			return i
		}
	}
	return -1
}

// explain sets p.Infeasible, for a path through a contradiction, or
// p.Needs, the conditions of its branches, for another untested one.
func (f *Func) explain(p *Path, dag []numbering.EdgeID) {
	m := f.meta
	if m.Super != nil {
		return
	}
	n := f.numbering
	edges := n.GraphEdges(dag)
	if f.proof != nil {
		if i := takesAny(n, dag, f.proof.sets); i >= 0 {
			c := &Contradiction{Why: f.proof.why[i]}
			if slices.Contains(f.proof.sets[i], dag[0]) {
				c.Branches = append(c.Branches, f.againCondition(n.Edge(dag[0]).Dst))
			}
			for _, e := range edges {
				if slices.Contains(f.proof.sets[i], e) && m.Edges[e].Cond != "" {
					c.Branches = append(c.Branches, f.condition(e))
				}
			}
			p.Infeasible = c
			return
		}
	}
	// A path that starts where a loop goes round again is in a later
	// round of that loop.
	again := numbering.BlockID(-1)
	if n.Edge(dag[0]).Dst != n.Graph().Entry {
		again = n.Edge(dag[0]).Dst
	}
	p.Needs = []Condition{}
	for i, e := range edges {
		if !isChoice(m.Edges[e].Kind) {
			continue
		}
		c := f.condition(e)
		// The path's start edge stands for the loop's rounds before it.
		c.Implied = f.implied(append([]numbering.EdgeID{dag[0]}, edges[:i]...), e)
		c.Again = numbering.BlockID(m.Edges[e].Src) == again
		p.Needs = append(p.Needs, c)
	}
}

// againCondition is the start of a path where the loop whose head is
// block b goes round again: one of its rounds ran.
func (f *Func) againCondition(b numbering.BlockID) Condition {
	mb := f.meta.Blocks[b]
	c := Condition{File: f.File, Line: mb.Line, Col: mb.Col, Kind: "again"}
	// The loop's own test says where the loop is, and what it ranges
	// over: at b, or where b leads straight (a post block to the head).
	for range f.meta.Blocks {
		var out []profile.Edge
		for _, e := range f.meta.Edges {
			if numbering.BlockID(e.Src) == b {
				out = append(out, e)
			}
		}
		for _, e := range out {
			if e.Cond != "" {
				c.Line, c.Col, c.Cond = e.Line, e.Col, e.Cond
				return c
			}
		}
		if len(out) != 1 {
			break
		}
		b = numbering.BlockID(out[0].Dst)
	}
	return c
}

func (f *Func) condition(e numbering.EdgeID) Condition {
	me := &f.meta.Edges[e]
	return Condition{File: f.File, Line: me.Line, Col: me.Col, Cond: me.Cond, Kind: me.Kind}
}

// isChoice reports whether an edge of this kind is the outcome of a
// decision a test can steer: a condition, a case, a range's next element,
// a select case.
func isChoice(kind profile.EdgeKind) bool {
	switch kind {
	case "true", "false", "case", "next case", "no match", "next", "done", "comm":
		return true
	}
	return false
}

// implied reports whether the outcome e follows from the edges before it
// on a path: every other outcome of its decision contradicts them.
func (f *Func) implied(before []numbering.EdgeID, e numbering.EdgeID) bool {
	if f.proof == nil {
		return false
	}
	m := f.meta
	others := 0
	for id, o := range m.Edges {
		if numbering.EdgeID(id) == e || o.Src != m.Edges[e].Src || !isChoice(o.Kind) {
			continue
		}
		others++
		contradicted := slices.ContainsFunc(f.proof.sets, func(s []numbering.EdgeID) bool {
			if !slices.Contains(s, numbering.EdgeID(id)) {
				return false
			}
			for _, g := range s {
				if g != numbering.EdgeID(id) && !slices.Contains(before, g) {
					return false
				}
			}
			return true
		})
		if !contradicted {
			return false
		}
	}
	return others > 0
}

// writeNeeds writes what an untested path needs, or why it cannot run,
// after where it starts when that is where a loop goes round again, and
// before where it ends when that is where a loop goes round.
func writeNeeds(w *errWriter, cwd string, p Path) {
	if len(p.Steps) > 0 && p.Steps[0].Kind == "again" {
		s := p.Steps[0]
		fmt.Fprintf(w, "\tstarts at %s:%d:%d, where a loop goes round again\n", relative(cwd, s.File), s.Line, s.Col)
	}
	defer func() {
		if len(p.Steps) > 0 && p.Steps[len(p.Steps)-1].Kind == "round" {
			s := p.Steps[len(p.Steps)-1]
			fmt.Fprintf(w, "\tends at %s:%d:%d, where the loop goes round\n", relative(cwd, s.File), s.Line, s.Col)
		}
	}()
	switch {
	case p.Infeasible != nil:
		fmt.Fprintf(w, "\tproved infeasible: no run takes these together\n")
		for _, c := range p.Infeasible.Branches {
			fmt.Fprintf(w, "\t  %s:%d:%d\t%s\n", relative(cwd, c.File), c.Line, c.Col, c)
		}
		fmt.Fprintf(w, "\t  because: %s\n", p.Infeasible.Why)
	case p.Needs != nil:
		if len(p.Needs) == 0 {
			fmt.Fprintf(w, "\tneeds: only that the function runs\n")
			return
		}
		fmt.Fprintf(w, "\tneeds:\n")
		for _, c := range p.Needs {
			implied := ""
			if c.Implied {
				implied = " (follows from the above)"
			}
			fmt.Fprintf(w, "\t  %s:%d:%d\t%s%s\n", relative(cwd, c.File), c.Line, c.Col, c, implied)
		}
	}
}

// Summary says how many of a function's paths ran, of all and of those
// not proved infeasible.
func (f *Func) Summary() string {
	s := fmt.Sprintf("%d of %d paths ran", f.Paths.Covered, f.Paths.Total)
	in := f.Infeasible
	switch {
	case !in.Analyzed:
		return s
	case in.Paths == 0:
		return s + "; none proved infeasible"
	case in.Bound:
		return s + fmt.Sprintf("; at least %d proved infeasible, so %d of at most %d feasible paths ran (at least %.1f%%)", in.Paths, f.Feasible.Covered, f.Feasible.Total, f.Feasible.Percent())
	}
	return s + fmt.Sprintf("; %d proved infeasible, so %d of %d feasible paths ran (%.1f%%)", in.Paths, f.Feasible.Covered, f.Feasible.Total, f.Feasible.Percent())
}

// infeasibleText says, for a report's table, how many paths were proved
// infeasible: "–" when the function was not analysed.
func infeasibleText(in Infeasibility) string {
	switch {
	case !in.Analyzed:
		return "–"
	case in.Bound:
		return fmt.Sprintf("≥%d", in.Paths)
	}
	return fmt.Sprint(in.Paths)
}

// needsLine writes a path's conditions on one line, for the gate.
func needsLine(p Path) string {
	var parts []string
	for _, c := range p.Needs {
		if !c.Implied {
			parts = append(parts, fmt.Sprintf("%d:%d %s", c.Line, c.Col, c))
		}
	}
	return strings.Join(parts, "; ")
}
