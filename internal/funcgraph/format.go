package funcgraph

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"io"
	"path/filepath"
	"strings"

	"github.com/pathcover/pathcover/numbering"
)

// maxListedPaths bounds the paths Format spells out.
const maxListedPaths = 32

// Format writes f as text: each block with its nodes and its out edges, each
// edge with its meaning, its probe site and, given a placement, its
// Ball-Larus weight, whether it is a chord, and its code; then the cuts and,
// for a small function, every path. p may be nil.
func (f *Func) Format(w io.Writer, fset *token.FileSet, p *numbering.Placement) {
	fmt.Fprintf(w, "func %s %s\n", f.Name, f.position(fset, f.Node.Pos()))
	if p != nil {
		fmt.Fprintf(w, "paths %s, numbered %d, chords %d\n", p.Total(), p.NumPaths(), len(p.Chords()))
		if ops := p.EntryOps(); len(ops) > 0 {
			fmt.Fprintf(w, "entry: %s\n", opsString(ops))
		}
	}
	omitted := 0
	for b := range f.Blocks {
		id := numbering.BlockID(b)
		blk := &f.Blocks[b]
		if blk.Kind == BlockUnreachable && len(blk.Nodes) == 0 {
			omitted++ // the empty block after a jump
			continue
		}
		reach := ""
		if p != nil && !p.Reachable(id) {
			reach = " (unreachable)"
		}
		fmt.Fprintf(w, "b%d %s %s%s\n", b, blk.Kind, f.position(fset, f.Pos(id)), reach)
		for _, n := range blk.Nodes {
			fmt.Fprintf(w, "\t%s\n", nodeString(fset, n))
		}
		for e, edge := range f.Edges {
			ge := f.Graph.Edges[e]
			if ge.Src != id {
				continue
			}
			fmt.Fprintf(w, "\te%d → b%d %s; site %s", e, ge.Dst, edge.Kind, f.siteString(fset, edge.Site))
			if p != nil && p.Reachable(id) {
				eid := numbering.EdgeID(e)
				if k, cut := p.CutKind(eid); cut {
					end := p.End(eid)
					fmt.Fprintf(w, "; cut (%s), ends with W=%d%s", k, p.Weight(end), placement(p, end))
					fmt.Fprintf(w, ", restarts with W=%d%s", p.Weight(p.Start(ge.Dst)), placement(p, p.Start(ge.Dst)))
				} else {
					fmt.Fprintf(w, "; W=%d%s", p.Weight(eid), placement(p, eid))
				}
			}
			fmt.Fprintln(w)
		}
	}
	if omitted > 0 {
		fmt.Fprintf(w, "(%d empty %s after jumps not shown)\n", omitted, plural(omitted, "block", "blocks"))
	}
	if p == nil {
		return
	}
	for _, c := range p.Cuts() {
		fmt.Fprintf(w, "cut e%d: %s\n", c.Edge, c.Kind)
	}
	if p.NumPaths() <= maxListedPaths {
		for id := range p.NumPaths() {
			path, _ := p.Decode(id)
			fmt.Fprintf(w, "path %d: %s\n", id, PathString(p.Numbering, path))
		}
	}
}

// PathString spells a path of DAG edges as its blocks: "b0 b2 b1"; a path
// that begins after a cut edge as "(cut) b3 b4", and one that ends at cut edge
// e7 as "b3 b4 →e7".
func PathString(n *numbering.Numbering, path []numbering.EdgeID) string {
	var sb strings.Builder
	for i, e := range path {
		de := n.Edge(e)
		switch {
		case i == 0 && de.Dst == n.Graph().Entry && de.Kind == numbering.StartEdge:
			fmt.Fprintf(&sb, "b%d", de.Dst)
		case i == 0:
			fmt.Fprintf(&sb, "(cut) b%d", de.Dst)
		case de.Kind == numbering.EndEdge:
			fmt.Fprintf(&sb, " →e%d", de.Cut)
		default:
			fmt.Fprintf(&sb, " b%d", de.Dst)
		}
	}
	return sb.String()
}

func placement(p *numbering.Placement, id numbering.EdgeID) string {
	var sb strings.Builder
	if !p.InTree(id) {
		fmt.Fprintf(&sb, " chord %+d", int64(p.Inc(id)))
	}
	if op, ok := p.Op(id); ok {
		sb.WriteString(" [" + opString(op) + "]")
	}
	return sb.String()
}

func opsString(ops []numbering.Op) string {
	s := make([]string, len(ops))
	for i, op := range ops {
		s[i] = opString(op)
	}
	return strings.Join(s, "; ")
}

func opString(op numbering.Op) string {
	inc := int64(op.Inc)
	switch op.Kind {
	case numbering.OpAdd:
		return fmt.Sprintf("r += %d", inc)
	case numbering.OpSet:
		return fmt.Sprintf("r = %d", inc)
	case numbering.OpCount:
		return fmt.Sprintf("count[r%+d]++", inc)
	case numbering.OpCountConst:
		return fmt.Sprintf("count[%d]++", inc)
	}
	return op.Kind.String()
}

func (f *Func) position(fset *token.FileSet, pos token.Pos) string {
	if fset == nil || !pos.IsValid() {
		return "-"
	}
	p := fset.Position(pos)
	return fmt.Sprintf("%s:%d:%d", filepath.Base(p.Filename), p.Line, p.Column)
}

func (f *Func) siteString(fset *token.FileSet, s Site) string {
	if s.Kind == NoSite {
		return "none"
	}
	var list string
	switch l := s.List.(type) {
	case *ast.BlockStmt:
		list = "block " + f.position(fset, l.Lbrace)
	case *ast.CaseClause:
		list = "case " + f.position(fset, l.Case)
	case *ast.CommClause:
		list = "comm " + f.position(fset, l.Case)
	case *ast.IfStmt:
		list = "else of if " + f.position(fset, l.If)
	default:
		list = "default of switch " + f.position(fset, s.List.Pos())
	}
	return fmt.Sprintf("%s %s[%d]", s.Kind, list, s.Index)
}

// nodeString prints a node on one line, shortened.
func nodeString(fset *token.FileSet, n ast.Node) string {
	var buf bytes.Buffer
	switch n := n.(type) {
	case *ast.SelectStmt:
		return "select"
	case *ast.RangeStmt:
		return "range"
	default:
		if err := format.Node(&buf, fset, n); err != nil {
			return fmt.Sprintf("%T", n)
		}
	}
	s := strings.Join(strings.Fields(buf.String()), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// FormatDOT writes f as a Graphviz digraph: blocks as boxes, chords dashed
// with their increments, cut edges dotted.
func (f *Func) FormatDOT(w io.Writer, fset *token.FileSet, p *numbering.Placement) {
	fmt.Fprintf(w, "digraph %q {\n\tnode [shape=box fontname=monospace];\n", f.Name)
	for b := range f.Blocks {
		blk := &f.Blocks[b]
		var label strings.Builder
		fmt.Fprintf(&label, "b%d %s\\l", b, blk.Kind)
		for _, n := range blk.Nodes {
			label.WriteString(dotEscape(nodeString(fset, n)) + "\\l")
		}
		style := ""
		if p != nil && !p.Reachable(numbering.BlockID(b)) {
			style = " style=dashed color=gray"
		}
		fmt.Fprintf(w, "\tb%d [label=\"%s\"%s];\n", b, label.String(), style)
	}
	for e, edge := range f.Edges {
		ge := f.Graph.Edges[e]
		attrs := []string{}
		label := edge.Kind.String()
		if p != nil && p.Reachable(ge.Src) {
			eid := numbering.EdgeID(e)
			if _, cut := p.CutKind(eid); cut {
				attrs = append(attrs, "style=dotted")
				label += " (cut)"
			} else if !p.InTree(eid) {
				attrs = append(attrs, "style=dashed", "color=blue")
				label += fmt.Sprintf(" %+d", int64(p.Inc(eid)))
			}
		}
		if edge.Site.Kind == NoSite {
			label += " ∅"
		}
		attrs = append(attrs, fmt.Sprintf("label=%q", label))
		fmt.Fprintf(w, "\tb%d -> b%d [%s];\n", ge.Src, ge.Dst, strings.Join(attrs, " "))
	}
	fmt.Fprintln(w, "}")
}

// dotEscape escapes s for a double-quoted DOT string.
func dotEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
