package report

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/pathcover/pathcover/internal/source"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// What a function's path counts say of its statements and branches, for
// the formats that know nothing of paths (package export). Every count here
// is exact: a path count gives each edge and block of the path one run
// (numbering.CountsFromPaths).

// A Unit is a run of statements that go test -cover counts together
// (profile.Unit) in a reported function, with the runs of the block that
// decides it, added up over the function's builds.
type Unit struct {
	Line, Col       int // where cover's block starts
	EndLine, EndCol int // and where it ends, exclusive
	Stmts           int
	Count           uint64
	// Block is the graph block whose runs are the unit's
	// (profile.Unit.Block), as RanPath.Runs tells.
	Block int32 `json:"-"`
}

// Units returns the function's statement units in the order of its
// metadata. The builds of one version share its graph but may place its
// units apart (its lines moved); each place is a unit of its own, as in
// the report's statement coverage, which is made from them. A build whose
// counts cannot be decoded is left out, with an error.
func (f *Func) Units() ([]Unit, error) {
	var units []Unit
	var errs []error
	index := make(map[[4]int]int)
	for _, b := range f.builds {
		c, err := f.numbering.CountsFromPaths(b.counts)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", b.meta.Package, f.Name, err))
			continue
		}
		for _, u := range b.meta.Funcs[b.index].Units {
			k := [4]int{u.Line, u.Col, u.EndLine, u.EndCol}
			i, ok := index[k]
			if !ok {
				i = len(units)
				index[k] = i
				units = append(units, Unit{Line: u.Line, Col: u.Col, EndLine: u.EndLine, EndCol: u.EndCol, Stmts: u.Stmts, Block: u.Block})
			}
			units[i].Count = numbering.SatAdd(units[i].Count, c.Blocks[u.Block])
		}
	}
	return units, errors.Join(errs...)
}

// Calls returns how many times the function was entered.
func (f *Func) Calls() (uint64, error) {
	c, err := f.numbering.CountsFromPaths(f.counts)
	if err != nil {
		return 0, fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
	}
	return c.Calls, nil
}

// Symbol is how the runtime, pprof and PGO name the function: by its
// package's symbols (profile.Meta.SymbolPrefix: main for a command's main
// package, if a build of it was one; else the import path) and its name.
func (f *Func) Symbol() string {
	prefix := f.Package
	for _, b := range f.builds {
		if b.meta.Symbols != "" {
			prefix = b.meta.Symbols
			break
		}
	}
	return prefix + "." + f.Name
}

// CallsByTest returns how many times the function was entered by each
// test, or tests that ran together, most first, if the profile attributes
// its paths (Attributed); the entries of processes that recorded no tests
// are Unrecorded. The counts add up to Calls.
func (f *Func) CallsByTest() ([]TestRun, error) {
	if !f.Attributed() {
		return nil, nil
	}
	byGroup := make(map[int]map[uint64]uint64)
	for id, groups := range f.tests {
		for g, n := range groups {
			if byGroup[g] == nil {
				byGroup[g] = make(map[uint64]uint64)
			}
			byGroup[g][id] = n
		}
	}
	total, err := f.Calls()
	if err != nil {
		return nil, err
	}
	var runs []TestRun
	var sum uint64
	for g, counts := range byGroup {
		c, err := f.numbering.CountsFromPaths(counts)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
		}
		if c.Calls > 0 {
			runs = append(runs, TestRun{TestGroup: f.groups[g], Count: c.Calls})
			sum = numbering.SatAdd(sum, c.Calls)
		}
	}
	if total > sum {
		runs = append(runs, TestRun{Count: total - sum, Unrecorded: true})
	}
	sortTestRuns(runs)
	return runs, nil
}

// A RanPath is a path of a function that ran: its id, how often, and the
// blocks it runs.
type RanPath struct {
	ID    uint64
	Count uint64
	// Runs[b] says whether the path runs block b of the function's
	// metadata (Unit.Block); an acyclic path runs a block at most once.
	Runs []bool
	// Residual says, of a function of a PPP build, that the path is not
	// among those its tests ran (Report.Residual).
	Residual bool
}

// RanPaths returns the paths of the function that ran, in id order.
func (f *Func) RanPaths() ([]RanPath, error) {
	ids := slices.Sorted(maps.Keys(f.counts))
	paths := make([]RanPath, 0, len(ids))
	for _, id := range ids {
		c, err := f.numbering.CountsFromPaths(map[uint64]uint64{id: 1})
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
		}
		runs := make([]bool, len(c.Blocks))
		for b, n := range c.Blocks {
			runs[b] = n > 0
		}
		residual := f.ppp && (f.meta.Stale || !f.meta.IsInteresting(id))
		paths = append(paths, RanPath{ID: id, Count: f.counts[id], Runs: runs, Residual: residual})
	}
	return paths, nil
}

// A Decision is a place where the function's control flow forks: an if or
// a for's condition (with its && and ||), a range's next element, a switch
// or type switch, a select. Its Outcomes are the ways on from it, each
// with the runs of its edge.
type Decision struct {
	// Line is where it is: the line of its outcomes, or of the first of
	// them (a switch's "no case matches" is on the switch's line, its
	// cases on theirs).
	Line int
	// Runs counts the times control reached it: the runs of the block that
	// decides. An outcome of a decision never reached is not "not taken"
	// but unknown, which some formats tell apart.
	Runs     uint64
	Outcomes []Outcome
}

// An Outcome is one way on from a decision.
type Outcome struct {
	Kind      profile.EdgeKind // what taking it means (see Step.Kind)
	Line, Col int              // of the statement or clause that takes it
	Count     uint64
}

// Decisions returns the function's decisions, in the order of their
// blocks. A block with more than one edge out decides; a switch's clauses
// are tried one after another, each a block whose edges are "case" (the
// clause matches) and "next case" (try the next), so a chain of those is
// one decision, whose outcomes are its cases and "no match" (no case does,
// and the default clause runs if there is one).
func (f *Func) Decisions() ([]Decision, error) {
	c, err := f.numbering.CountsFromPaths(f.counts)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
	}
	edges := f.meta.Edges
	out := make([][]int, len(f.meta.Blocks))
	continued := make([]bool, len(f.meta.Blocks)) // a later block of a switch's chain
	for id, e := range edges {
		out[e.Src] = append(out[e.Src], id)
		if e.Kind == "next case" {
			continued[e.Dst] = true
		}
	}
	var ds []Decision
	for b := range out {
		if len(out[b]) < 2 || continued[b] {
			continue
		}
		d := Decision{Runs: c.Blocks[b]}
		// Metadata is input: a chain that goes round is walked once.
		seen := make(map[int32]bool)
		var walk func(b int32)
		walk = func(b int32) {
			seen[b] = true
			for _, id := range out[b] {
				e := edges[id]
				if e.Kind == "next case" {
					if !seen[e.Dst] {
						walk(e.Dst)
					}
					continue
				}
				d.Outcomes = append(d.Outcomes, Outcome{Kind: e.Kind, Line: e.Line, Col: e.Col, Count: c.Edges[id]})
				if d.Line == 0 || (e.Line > 0 && e.Line < d.Line) {
					d.Line = e.Line
				}
			}
		}
		walk(int32(b))
		ds = append(ds, d)
	}
	return ds, nil
}

// Branch says whether the step is one that a reader of the path needs: a
// branch taken, a return, a loop's next round; not an edge that only falls
// through to the next block, nor the function's start.
func (s Step) Branch() bool {
	return s.Kind != "flow" && s.Kind != "loop" && s.Kind != "start"
}

// Describe says in words what taking the step means, in the source's
// terms where the metadata kept the condition's source ("len(args) != 1
// is false", "case "min", "max" matches", "range xs: next element"): a
// condition longer than maxCond is cut.
func (s Step) Describe() string {
	if s.Cond == "" {
		return describe(s.Kind)
	}
	cond := source.Clip(s.Cond, maxCond)
	switch s.Kind {
	case "true", "false":
		return cond + " is " + string(s.Kind)
	case "case":
		return cond + " matches"
	case "next case":
		return cond + " does not match"
	case "no match":
		return cond + ": no case matches"
	case "next":
		return cond + ": next element"
	case "done":
		return cond + ": no more elements"
	}
	return describe(s.Kind)
}

// maxCond is the longest condition a step shows, in runes: with its
// file:line:col, a step's line fits 100 columns.
const maxCond = 60
