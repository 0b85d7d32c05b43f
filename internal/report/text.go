package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/pathcover/pathcover/internal/source"
)

// An Output is a result that pathcover prints. Each writes itself as text,
// the table or list that the command prints, or as indented JSON (its
// -json): a Report, its SegmentReport, a function's Paths, CallSites,
// SupergraphSizes, a Residual and a StatsReport. A report's HTML page is
// not one: it is written to a file, with options (WriteHTML).
type Output interface {
	WriteText(w io.Writer) error
	WriteJSON(w io.Writer) error
}

var (
	_ Output = (*Report)(nil)
	_ Output = SegmentReport{}
	_ Output = Paths{}
	_ Output = PathLists(nil)
	_ Output = CallSites(nil)
	_ Output = SupergraphSizes(nil)
	_ Output = (*Residual)(nil)
	_ Output = (*StatsReport)(nil)
)

// WriteText writes the report as a table: per package its totals, then its
// functions, worst covered first; then the totals over everything.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	cwd, _ := os.Getwd()
	fmt.Fprintf(tw, "\tran/feasible\t\tinfeasible\tstatements\t\n")
	for _, pkg := range r.Packages {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", pkg.Path, ratio(pkg.Feasible), percentText(pkg.Feasible), infeasibleSum(pkg.Funcs, pkg.Paths, pkg.Feasible), percentText(pkg.Statements))
		for _, f := range pkg.Funcs {
			var notes []string
			if f.Acyclic != fmt.Sprint(f.Paths.Total) {
				notes = append(notes, fmt.Sprintf("%s acyclic paths, cut to number them", f.Acyclic))
			}
			if f.Lost > 0 {
				notes = append(notes, fmt.Sprintf("%d runs lost to a full table", f.Lost))
			}
			if f.Estimated {
				notes = append(notes, "hot path table: counts estimated, coverage at least")
			}
			note := ""
			if len(notes) > 0 {
				note = "(" + strings.Join(notes, "; ") + ")"
			}
			fmt.Fprintf(tw, "  %s:%d %s\t%s\t%s\t%s\t%s\n", relative(cwd, f.File), f.Line, f.Name, ratio(f.Feasible), percentText(f.Feasible), infeasibleText(f.Infeasible), note)
		}
	}
	var all []*Func
	tests := 0
	for _, pkg := range r.Packages {
		all = append(all, pkg.Funcs...)
		tests += len(pkg.TestFuncs)
	}
	fmt.Fprintf(tw, "total\t%s\t%s\t%s\t%s\t\n", ratio(r.Feasible), percentText(r.Feasible), infeasibleSum(all, r.Paths, r.Feasible), percentText(r.Statements))
	if err := tw.Flush(); err != nil {
		return err
	}
	if tests > 0 {
		funcs := "functions"
		if tests == 1 {
			funcs = "function"
		}
		_, err := fmt.Fprintf(w, "not counted: %d %s of _test.go files, which the build recorded for slicing (as go test -cover, the figures leave them out; pathcover paths FUNC lists their paths)\n", tests, funcs)
		return err
	}
	return nil
}

// infeasibleSum says how many paths of funcs, whose paths and feasible
// paths sum to all and feasible, were proved infeasible: "–" if none of
// them was analysed.
func infeasibleSum(funcs []*Func, all, feasible Coverage) string {
	analyzed := false
	for _, f := range funcs {
		analyzed = analyzed || f.Infeasible.Analyzed
	}
	if !analyzed || all.Saturated {
		return "–"
	}
	return infeasibleText(Infeasibility{Analyzed: true, Paths: all.Total - feasible.Total, Bound: feasible.Bound})
}

// A SegmentReport is the interprocedural part of a report: per package,
// the supergraphs of an interprocedural build (pppexec -ippp) and the path
// segments that ran. As JSON it is the whole report, which holds them.
type SegmentReport struct{ Report *Report }

// WriteText writes the interprocedural part of the report as a table: per
// package the segments that ran, then its supergraphs, worst covered
// first, each with its call sites; then the totals.
func (s SegmentReport) WriteText(w io.Writer) error {
	r := s.Report
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	cwd, _ := os.Getwd()
	fmt.Fprintf(tw, "\tsegments run\t\tcall sites\t\n")
	for _, pkg := range r.Packages {
		if len(pkg.Supergraphs) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t\t\n", pkg.Path, ratio(pkg.Segments), percentText(pkg.Segments))
		for _, f := range pkg.Supergraphs {
			note := ""
			if f.Acyclic != fmt.Sprint(f.Paths.Total) {
				note = fmt.Sprintf("(%s acyclic paths, cut to number them)", f.Acyclic)
			}
			fmt.Fprintf(tw, "  %s:%d %s\t%s\t%s\t%d\t%s\n", relative(cwd, f.File), f.Line, f.Name, ratio(f.Paths), percentText(f.Paths), len(f.meta.Super.Sites), note)
		}
	}
	fmt.Fprintf(tw, "total\t%s\t%s\t\t\n", ratio(r.Segments), percentText(r.Segments))
	return tw.Flush()
}

// WriteJSON writes the whole report as JSON: its packages' Supergraphs and
// Segments are the interprocedural part.
func (s SegmentReport) WriteJSON(w io.Writer) error { return s.Report.WriteJSON(w) }

// WriteJSON writes the report as JSON.
func (r *Report) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// writeJSON writes v as indented JSON, as every report does.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "\t")
	return enc.Encode(v)
}

// errWriter remembers the first error of its writes, for a writer of many
// lines that checks once at the end; the writes after it do nothing.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// ratio writes a coverage as covered/total; a sum that saturated is "at
// least" what it says.
func ratio(c Coverage) string {
	switch {
	case c.Saturated:
		return fmt.Sprintf("%s/≥%d", atLeast(c.Covered), c.Total)
	case c.Bound:
		return fmt.Sprintf("%d/≤%d", c.Covered, c.Total)
	}
	return fmt.Sprintf("%d/%d", c.Covered, c.Total)
}

// percentText writes a coverage in percent: "–" for nothing to cover, and an
// upper bound for a saturated sum, whose true total is larger.
func percentText(c Coverage) string {
	switch {
	case c.Total == 0:
		return "    –"
	case c.Saturated:
		return fmt.Sprintf("≤%.1f%%", c.Percent())
	case c.Bound:
		return fmt.Sprintf("≥%.1f%%", c.Percent())
	}
	return fmt.Sprintf("%5.1f%%", c.Percent())
}

// atLeast writes a count, which is at least math.MaxUint64 if it is that.
func atLeast(n uint64) string {
	if n == math.MaxUint64 {
		return fmt.Sprintf("≥%d", n)
	}
	return fmt.Sprint(n)
}

// relative names a file as a developer reads it from directory cwd
// (source.Names): a module's own file from the module's root, GOROOT's as
// std/..., a dependency's by module path and version.
func relative(cwd, file string) string {
	return source.NamesIn(cwd).File(file)
}
