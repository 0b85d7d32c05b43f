package main

// How pathcover slice writes a slice as text. Three forms, each fitting
// lineWidth columns, each naming files as source.Names does and functions
// by their short names, each showing the statements' source:
//
// The chain (the default): the criterion, then what it needed, each
// statement once with how many of its executions the slice holds, a
// header line where the function changes:
//
//	in expr.Parse (example/expr/parse.go)
//	   41  return n, nil  n=…
//	   34    [n] n, err := p.expr(0)  n=… err=nil
//	in expr.(*parser).expr
//	   82      [result] return x, nil  ×8
//
// -why: every step (execution), breadth first, each with the step that
// needed it. -list: the statements in source order.

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pathcover/pathcover/internal/query/slice"
	"github.com/pathcover/pathcover/internal/source"
)

const (
	// lineWidth is the width every line of a slice fits, in columns.
	lineWidth = 100
	// maxIndent is the deepest a line is indented, in levels of two
	// columns; a deeper one says its depth.
	maxIndent = 12
	// minText is the fewest columns a statement's source is cut to.
	minText = 24
)

// A sliceText writes one slice's statements.
type sliceText struct {
	names *source.Names
	files *source.Files
}

func newSliceText() *sliceText {
	return &sliceText{names: source.NamesIn("."), files: source.New(".")}
}

// file names st's file.
func (t *sliceText) file(st slice.Stmt) string { return printable(t.names.FileOf(st.File, st.Package)) }

// fn names st's function.
func (t *sliceText) fn(st slice.Stmt) string {
	return printable(source.FuncName(st.Package, st.Func))
}

// text is st's source, or "" if the file cannot be shown (gone, edited
// since, or outside the roots that source.Files reads).
func (t *sliceText) text(st slice.Stmt) string {
	text, _ := t.files.Statement(st.File, st.Sum, st.Line, st.Col, st.EndLine, st.EndCol)
	return printable(text)
}

// indent is the indentation of a line at depth.
func indent(depth int) string {
	if depth <= maxIndent {
		return strings.Repeat("  ", depth)
	}
	return strings.Repeat("  ", maxIndent-1) + fmt.Sprintf("%d: ", depth)
}

// memoryText is a read through memory that the slice stops at
// (Slice.Memory: "FILE:LINE: what"), its file named as the other lines'.
func (t *sliceText) memoryText(m string) string {
	if i := strings.Index(m, ".go:"); i > 0 {
		return printable(t.names.File(m[:i+3]) + m[i+3:])
	}
	return printable(m)
}

// valuesText is what a step's execution recorded, name=value.
func valuesText(vals []slice.Value) string {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s=%s", printable(v.Var), printable(v.Text))
	}
	return b.String()
}

// fit joins a line's head (kept whole), the statement's source and a
// tail (values), cutting the source and then the tail to lineWidth.
func fit(head, text, tail string) string {
	room := lineWidth - utf8.RuneCountInString(head)
	if tail != "" {
		room -= 2
	}
	textRoom := max(minText, room-utf8.RuneCountInString(tail))
	text = source.Clip(text, textRoom)
	line := head + text
	if tail != "" {
		line += "  " + source.Clip(tail, max(minText, lineWidth-utf8.RuneCountInString(line)-2))
	}
	return line
}

// writeChain writes s's chain (slice.Chain), with the values that the
// links' first steps recorded.
func (t *sliceText) writeChain(w io.Writer, s *slice.Slice, chain []slice.Link, vals map[int32][]slice.Value) {
	in := ""
	for _, l := range chain {
		st := s.Stmts[l.Stmt]
		if fn := t.fn(st); fn != in || l.Depth == 0 {
			fmt.Fprintf(w, "in %s (%s)\n", fn, t.file(st))
			in = fn
		}
		head := fmt.Sprintf("%6d  %s", st.Line, indent(l.Depth))
		if l.Parent >= 0 {
			head += "[" + printable(l.Via) + "] "
		}
		text := t.text(st)
		if text == "" {
			text = fmt.Sprintf("(column %d)", st.Col)
		}
		tail := valuesText(vals[l.First.Node])
		if l.Execs > 1 {
			tail = strings.TrimSpace(fmt.Sprintf("×%d %s", l.Execs, tail))
		}
		fmt.Fprintln(w, fit(head, text, tail))
	}
}

// writeStep writes step i of -why: the statement, the step that needed
// it, and its values.
func (t *sliceText) writeStep(w io.Writer, i int, st slice.Step) {
	head := fmt.Sprintf("%5d %s%s:%d %s ", i, indent(st.Depth), t.file(st.Stmt), st.Stmt.Line, t.fn(st.Stmt))
	if st.From >= 0 {
		head += fmt.Sprintf("[%s, for %d] ", printable(st.Via), st.From)
	}
	fmt.Fprintln(w, fit(head, t.text(st.Stmt), valuesText(st.Values)))
}

// writeStmts writes s's statements in source order, each with how many
// of its executions the slice holds.
func (t *sliceText) writeStmts(w io.Writer, s *slice.Slice) {
	for i, st := range s.Stmts {
		head := fmt.Sprintf("%s:%d:%d %s ×%d  ", t.file(st), st.Line, st.Col, t.fn(st), s.Execs[i])
		fmt.Fprintln(w, fit(head, t.text(st), ""))
	}
}
