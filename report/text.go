package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report as a table: per package its totals, then its
// functions, worst covered first; then the totals over everything.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	cwd, _ := os.Getwd()
	fmt.Fprintf(tw, "\tpaths run\t\tstatements\t\n")
	for _, pkg := range r.Packages {
		fmt.Fprintf(tw, "%s\t%s\t%5.1f%%\t%5.1f%%\t\n", pkg.Path, ratio(pkg.Paths), pkg.Paths.Percent(), pkg.Statements.Percent())
		for _, f := range pkg.Funcs {
			var notes []string
			if f.Acyclic != fmt.Sprint(f.Paths.Total) {
				notes = append(notes, fmt.Sprintf("%s acyclic paths, cut to number them", f.Acyclic))
			}
			if f.Lost > 0 {
				notes = append(notes, fmt.Sprintf("%d runs lost to a full table", f.Lost))
			}
			note := ""
			if len(notes) > 0 {
				note = "(" + strings.Join(notes, "; ") + ")"
			}
			fmt.Fprintf(tw, "  %s:%d %s\t%s\t%5.1f%%\t\t%s\n", relative(cwd, f.File), f.Line, f.Name, ratio(f.Paths), f.Paths.Percent(), note)
		}
	}
	fmt.Fprintf(tw, "total\t%s\t%5.1f%%\t%5.1f%%\t\n", ratio(r.Paths), r.Paths.Percent(), r.Statements.Percent())
	return tw.Flush()
}

// WriteSegments writes the interprocedural part of the report as a table:
// per package the segments that ran, then its supergraphs, worst covered
// first, each with its call sites; then the totals.
func (r *Report) WriteSegments(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	cwd, _ := os.Getwd()
	fmt.Fprintf(tw, "\tsegments run\t\tcall sites\t\n")
	for _, pkg := range r.Packages {
		if len(pkg.Supergraphs) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%5.1f%%\t\t\n", pkg.Path, ratio(pkg.Segments), pkg.Segments.Percent())
		for _, f := range pkg.Supergraphs {
			note := ""
			if f.Acyclic != fmt.Sprint(f.Paths.Total) {
				note = fmt.Sprintf("(%s acyclic paths, cut to number them)", f.Acyclic)
			}
			fmt.Fprintf(tw, "  %s:%d %s\t%s\t%5.1f%%\t%d\t%s\n", relative(cwd, f.File), f.Line, f.Name, ratio(f.Paths), f.Paths.Percent(), len(f.meta.Super.Sites), note)
		}
	}
	fmt.Fprintf(tw, "total\t%s\t%5.1f%%\t\t\n", ratio(r.Segments), r.Segments.Percent())
	return tw.Flush()
}

// WriteJSON writes the report as JSON.
func (r *Report) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// writeJSON writes v as indented JSON, as every report does.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "\t")
	return enc.Encode(v)
}

func ratio(c Coverage) string { return fmt.Sprintf("%d/%d", c.Covered, c.Total) }

// relative shortens a file name below the current directory.
func relative(cwd, file string) string {
	if rel, err := filepath.Rel(cwd, file); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return file
}
