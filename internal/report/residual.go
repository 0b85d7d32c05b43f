package report

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/pathcover/pathcover/internal/source"
	"github.com/pathcover/pathcover/profile"
	"io"
	"os"
	"slices"
	"text/tabwriter"

	"github.com/pathcover/pathcover/numbering"
)

// A Residual report lists the residual paths of a PPP build's profile: the
// paths that ran (in the field) but are not among the interesting paths the
// build was made with (those its tests ran), thesis §3.5.
type Residual struct {
	Funcs   []*ResidualFunc // with residual paths, most residual runs first
	Summary ResidualSummary
	// Segments are the same for the supergraphs of an interprocedural PPP
	// build: residual interprocedural path segments (thesis §3.5.2).
	Segments       []*ResidualFunc  `json:",omitempty"`
	SegmentSummary *ResidualSummary `json:",omitempty"`
}

// A ResidualFunc is one function's residual paths.
type ResidualFunc struct {
	Package string
	Name    string
	File    string
	Line    int
	// Stale says that the tests' profile had another version of the
	// function, so every path counts as untested.
	Stale bool
	// Untested is the number of residual paths; Paths decodes the first
	// of them, most runs first.
	Untested int
	Paths    []Path
	// Runs are the runs of residual paths; AllRuns of all paths.
	Runs, AllRuns uint64
	// UntestedEdges are the edges of the graph that residual paths took and
	// no tested path did.
	UntestedEdges int
}

// ResidualSummary has the columns of the thesis's Table 3.1.
type ResidualSummary struct {
	UntestedPaths          int     // distinct residual paths
	PercentUntested        float64 // of the distinct paths that ran
	PercentFrequency       float64 // of all runs
	FuncsWithUntestedPaths int
	UntestedEdges          int
	FuncsWithUntestedEdges int
	// UntestedPathsOldEdges are the residual paths of functions where no
	// edge is untested: only path profiling sees them.
	UntestedPathsOldEdges        int
	PercentUntestedPathsOldEdges float64 // of UntestedPaths
	// PathsRun and Runs are the distinct paths and the runs of the profile.
	PathsRun int
	Runs     uint64
}

// ErrNoPPP says that a profile has no PPP build in it.
var ErrNoPPP = errors.New("no PPP build in the profile: build with pppexec -interesting=TESTED_PROFILE and run that")

// Residual finds the residual paths of r's functions from PPP builds,
// decoding at most show of each function's, and the residual segments of
// its supergraphs.
func (r *Report) Residual(show int) (*Residual, error) {
	res := &Residual{}
	var funcs, supers []*Func
	for _, pkg := range r.Packages {
		funcs = append(funcs, pkg.Funcs...)
		supers = append(supers, pkg.Supergraphs...)
	}
	ppp, err := residuals(funcs, show, &res.Funcs, &res.Summary)
	if err != nil {
		return nil, err
	}
	if !ppp {
		return nil, ErrNoPPP
	}
	var s ResidualSummary
	if ppp, err := residuals(supers, show, &res.Segments, &s); err != nil {
		return nil, err
	} else if ppp {
		res.SegmentSummary = &s
	}
	return res, nil
}

// residuals adds the residual paths of those of funcs from PPP builds to
// list and s, and reports whether there were any such funcs.
func residuals(funcs []*Func, show int, list *[]*ResidualFunc, s *ResidualSummary) (ppp bool, err error) {
	var residualRuns uint64
	for _, f := range funcs {
		if !f.ppp {
			continue
		}
		ppp = true
		rf, err := f.residual(show)
		if err != nil {
			return false, err
		}
		s.PathsRun += len(f.counts)
		for _, c := range f.counts {
			s.Runs += c
		}
		if rf == nil {
			continue
		}
		*list = append(*list, rf)
		s.UntestedPaths += rf.Untested
		s.FuncsWithUntestedPaths++
		s.UntestedEdges += rf.UntestedEdges
		if rf.UntestedEdges > 0 {
			s.FuncsWithUntestedEdges++
		} else {
			s.UntestedPathsOldEdges += rf.Untested
		}
		residualRuns += rf.Runs
	}
	s.PercentUntested = percent(float64(s.UntestedPaths), float64(s.PathsRun))
	s.PercentFrequency = percent(float64(residualRuns), float64(s.Runs))
	s.PercentUntestedPathsOldEdges = percent(float64(s.UntestedPathsOldEdges), float64(s.UntestedPaths))
	slices.SortStableFunc(*list, func(a, b *ResidualFunc) int {
		return cmp.Or(cmp.Compare(b.Runs, a.Runs), cmp.Compare(a.Package, b.Package), cmp.Compare(a.Name, b.Name))
	})
	return ppp, nil
}

func percent(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * a / b
}

// residual returns the function's residual paths, or nil if it has none.
func (f *Func) residual(show int) (*ResidualFunc, error) {
	m := f.meta
	var ids []uint64
	var runs, all uint64
	for id, c := range f.counts {
		all += c
		if m.Stale || !m.IsInteresting(id) {
			ids = append(ids, id)
			runs += c
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	slices.SortFunc(ids, func(a, b uint64) int {
		return cmp.Or(cmp.Compare(f.counts[b], f.counts[a]), cmp.Compare(a, b))
	})
	rf := &ResidualFunc{
		Package: f.Package, Name: f.Name, File: f.File, Line: f.Line, Stale: m.Stale,
		Untested: len(ids), Runs: runs, AllRuns: all,
	}
	n := f.numbering
	edges := func(id uint64, into map[numbering.EdgeID]bool) ([]numbering.EdgeID, error) {
		dag, err := n.Decode(id)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
		}
		for _, e := range n.GraphEdges(dag) {
			into[e] = true
		}
		return dag, nil
	}
	tested := make(map[numbering.EdgeID]bool)
	if !m.Stale {
		for _, id := range m.Interesting {
			if _, err := edges(id, tested); err != nil {
				return nil, err
			}
		}
	}
	untested := make(map[numbering.EdgeID]bool)
	for i, id := range ids {
		taken := make(map[numbering.EdgeID]bool)
		dag, err := edges(id, taken)
		if err != nil {
			return nil, err
		}
		for e := range taken {
			if !tested[e] {
				untested[e] = true
			}
		}
		if i < show {
			rf.Paths = append(rf.Paths, Path{ID: id, Count: f.counts[id], Steps: f.steps(dag)})
		}
	}
	rf.UntestedEdges = len(untested)
	return rf, nil
}

// WriteText writes the residual paths, function by function, then the
// summary; then the same for the residual segments, if the build had
// supergraphs.
func (res *Residual) WriteText(w io.Writer) error {
	if err := writeResidual(w, "paths", res.Funcs, res.Summary); err != nil {
		return err
	}
	if res.SegmentSummary == nil {
		return nil
	}
	fmt.Fprintf(w, "\nresidual interprocedural segments, by supergraph (thesis §3.5.2):\n\n")
	return writeResidual(w, "segments", res.Segments, *res.SegmentSummary)
}

func writeResidual(w io.Writer, what string, funcs []*ResidualFunc, s ResidualSummary) error {
	cwd, _ := os.Getwd()
	for _, rf := range funcs {
		stale := ""
		if rf.Stale {
			stale = "; changed since the tests' profile, so no path counts as tested"
		}
		fmt.Fprintf(w, "%s (%s:%d): %d untested %s ran %d of its %d runs (%.1f%%); %d untested edges%s\n",
			source.FuncName(profile.PackagePath(rf.Package), rf.Name), relative(cwd, rf.File), rf.Line, rf.Untested, what, rf.Runs, rf.AllRuns,
			percent(float64(rf.Runs), float64(rf.AllRuns)), rf.UntestedEdges, stale)
		writeResidualPaths(w, cwd, rf.Paths)
		if more := rf.Untested - len(rf.Paths); more > 0 && len(rf.Paths) > 0 {
			fmt.Fprintf(w, "\tand %d more\n", more)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d untested %s of %d %s run: runs in the field that the tests never made (thesis Table 3.1)\n", s.UntestedPaths, what, s.PathsRun, what)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "untested %s\t%% untested\t%% of runs\tfuncs with untested %s\tuntested edges\tfuncs with untested edges\tuntested %s, no untested edge\t%%\t\n", what, what, what)
	fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%d\t%d\t%d\t%d\t%.1f\t\n", s.UntestedPaths, s.PercentUntested, s.PercentFrequency,
		s.FuncsWithUntestedPaths, s.UntestedEdges, s.FuncsWithUntestedEdges, s.UntestedPathsOldEdges, s.PercentUntestedPathsOldEdges)
	return tw.Flush()
}

// writeResidualPaths writes decoded paths, each with its count, then its
// branches.
func writeResidualPaths(w io.Writer, cwd string, paths []Path) {
	for _, p := range paths {
		times := "once"
		if p.Count != 1 {
			times = fmt.Sprintf("%d times", p.Count)
		}
		fmt.Fprintf(w, "  path %d, ran %s\n", p.ID, times)
		writeSteps(w, cwd, p.Steps)
	}
}

// WriteJSON writes the residual report as JSON.
func (res *Residual) WriteJSON(w io.Writer) error {
	return writeJSON(w, res)
}
