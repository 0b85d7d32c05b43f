package instrument

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strings"

	"github.com/pathcover/pathcover/analyzer/funcgraph"
)

// An editor collects insertions into one file and applies them.
type editor struct {
	fset  *token.FileSet
	tf    *token.File
	file  *ast.File
	src   []byte
	ins   []insertion
	opens map[*ast.IfStmt]bool // else-if wrappers already opened
}

// An insertion is text to put at a byte offset. Insertions at one offset go
// in order of phase, then of order (the topological index of the edge's
// source block: code of earlier edges on a path runs first), then as added.
type insertion struct {
	offset int
	phase  int
	order  int
	seq    int
	text   string
}

const (
	phaseDecl  = iota // the register's declaration at the top of a body
	phaseOpen         // the { that wraps an else if
	phaseOps          // edge code
	phaseClose        // the } that closes the wrapper
)

func newEditor(fset *token.FileSet, file *ast.File, src []byte) *editor {
	return &editor{fset: fset, tf: fset.File(file.Pos()), file: file, src: src, opens: make(map[*ast.IfStmt]bool)}
}

func (e *editor) insertAt(pos token.Pos, phase, order int, text string) {
	e.ins = append(e.ins, insertion{offset: e.tf.Offset(pos), phase: phase, order: order, seq: len(e.ins), text: text})
}

// insert puts an edge's code at its site.
func (e *editor) insert(site funcgraph.Site, order int, code string) {
	code = "; " + code // the statement before may not have ended
	switch list := site.List.(type) {
	case *ast.BlockStmt:
		e.insertAt(listPos(list.List, site.Index, list.Lbrace+1), phaseOps, order, code)
	case *ast.CaseClause:
		e.insertAt(listPos(list.Body, site.Index, list.Colon+1), phaseOps, order, code)
	case *ast.CommClause:
		e.insertAt(listPos(list.Body, site.Index, list.Colon+1), phaseOps, order, code)
	case *ast.IfStmt:
		switch els := list.Else.(type) {
		case nil:
			e.insertAt(list.Body.End(), phaseOps, order, " else { "+code+"};")
		case *ast.IfStmt:
			// The synthesized else block holds the else-if: [0] is before
			// it, [1] after it.
			if !e.opens[list] {
				e.opens[list] = true
				e.insertAt(els.Pos(), phaseOpen, 0, "{ ")
				e.insertAt(els.End(), phaseClose, 0, " };")
			}
			if site.Index == 0 {
				e.insertAt(els.Pos(), phaseOps, order, code)
			} else {
				e.insertAt(els.End(), phaseOps, order, code)
			}
		default:
			panic(fmt.Sprintf("site in the else of an if with a %T else", els))
		}
	case *ast.SwitchStmt:
		e.insertAt(list.Body.Rbrace, phaseOps, order, "default: "+code)
	case *ast.TypeSwitchStmt:
		e.insertAt(list.Body.Rbrace, phaseOps, order, "default: "+code)
	default:
		panic(fmt.Sprintf("site in a %T", site.List))
	}
}

// listPos is where code goes before statement i of list, or after the last
// one (or, for an empty list, at start).
func listPos(list []ast.Stmt, i int, start token.Pos) token.Pos {
	switch {
	case i < len(list):
		return list[i].Pos()
	case len(list) > 0:
		return list[len(list)-1].End()
	}
	return start
}

// apply returns the file with the insertions made. It begins with a //line
// directive naming the original file, and each group of insertions is
// followed by a /*line*/ comment giving the next character its original
// position.
func (e *editor) apply() []byte {
	slices.SortStableFunc(e.ins, func(a, b insertion) int {
		if a.offset != b.offset {
			return a.offset - b.offset
		}
		if a.phase != b.phase {
			return a.phase - b.phase
		}
		if a.order != b.order {
			return a.order - b.order
		}
		return a.seq - b.seq
	})
	var out bytes.Buffer
	start := e.fset.Position(e.tf.Pos(0))
	fmt.Fprintf(&out, "//line %s:%d:%d\n", start.Filename, start.Line, start.Column)
	last := 0
	for i, in := range e.ins {
		out.Write(e.src[last:in.offset])
		last = in.offset
		out.WriteString(in.text)
		if i+1 == len(e.ins) || e.ins[i+1].offset != in.offset {
			p := e.fset.Position(e.tf.Pos(in.offset))
			fmt.Fprintf(&out, "/*line %s:%d:%d*/", lineName(p.Filename), p.Line, p.Column)
		}
	}
	out.Write(e.src[last:])
	return out.Bytes()
}

// lineName makes a file name safe inside a /*line*/ comment, which ends at
// the first */.
func lineName(name string) string {
	return strings.ReplaceAll(name, "*/", "*_/")
}
