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
	// synth holds, for each if or switch given an else or default, its
	// insertion: the code of every edge through it goes in that one
	// branch (a function's own and, in an interprocedural build, its
	// supergraph's).
	synth map[ast.Node]int
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
	skip   int // bytes of the original that text replaces
}

const (
	phaseDecl   = iota // the register's declaration at the top of a body
	phaseSynth         // a synthesized else or default: before the code after its statement
	phaseOpen          // the { that wraps an else if
	phaseOps           // edge code
	phaseClose         // the } that closes the wrapper
	phaseAfter         // code after a list's last statement: after whatever closes it
	phaseRename        // a name replaced, after all code before it
)

func newEditor(fset *token.FileSet, file *ast.File, src []byte) *editor {
	return &editor{fset: fset, tf: fset.File(file.Pos()), file: file, src: src, opens: make(map[*ast.IfStmt]bool), synth: make(map[ast.Node]int)}
}

func (e *editor) insertAt(pos token.Pos, phase, order int, text string) {
	e.ins = append(e.ins, insertion{offset: e.tf.Offset(pos), phase: phase, order: order, seq: len(e.ins), text: text})
}

// rename replaces the identifier id with name.
func (e *editor) rename(id *ast.Ident, name string) {
	e.ins = append(e.ins, insertion{offset: e.tf.Offset(id.Pos()), phase: phaseRename, seq: len(e.ins), text: name, skip: len(id.Name)})
}

// insert puts an edge's code at its site.
func (e *editor) insert(site funcgraph.Site, order int, code string) {
	code = "; " + code // the statement before may not have ended
	// Code after a list's last statement goes after anything that ends
	// there: the } of the wrapper of an else if that ends the statement,
	// whose own code runs only when the else runs.
	phase := func(list []ast.Stmt) int {
		if site.Index >= len(list) && len(list) > 0 {
			return phaseAfter
		}
		return phaseOps
	}
	switch list := site.List.(type) {
	case *ast.BlockStmt:
		e.insertAt(listPos(list.List, site.Index, list.Lbrace+1), phase(list.List), order, code)
	case *ast.CaseClause:
		e.insertAt(listPos(list.Body, site.Index, list.Colon+1), phase(list.Body), order, code)
	case *ast.CommClause:
		e.insertAt(listPos(list.Body, site.Index, list.Colon+1), phase(list.Body), order, code)
	case *ast.IfStmt:
		switch els := list.Else.(type) {
		case nil:
			e.synthesize(list, list.Body.End(), order, " else { ", code, "};")
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
		e.synthesize(list, list.Body.Rbrace, order, "default: ", code, "")
	case *ast.TypeSwitchStmt:
		e.synthesize(list, list.Body.Rbrace, order, "default: ", code, "")
	default:
		panic(fmt.Sprintf("site in a %T", site.List))
	}
}

// synthesize inserts a branch open+code+close at pos for stmt, or adds code
// to the one it already has.
func (e *editor) synthesize(stmt ast.Node, pos token.Pos, order int, open, code, close string) {
	i, ok := e.synth[stmt]
	if !ok {
		e.synth[stmt] = len(e.ins)
		e.insertAt(pos, phaseSynth, order, open+code+close)
		return
	}
	in := &e.ins[i]
	in.text = strings.TrimSuffix(in.text, close) + code + close
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
	return e.applyRange(0, len(e.src))
}

// applyRange is apply for the bytes [lo, hi) of the file and the insertions
// among them; lo must be where a declaration starts.
func (e *editor) applyRange(lo, hi int) []byte {
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
	start := e.fset.Position(e.tf.Pos(lo))
	if lo == 0 {
		fmt.Fprintf(&out, "//line %s:%d:%d\n", start.Filename, start.Line, start.Column)
	} else {
		fmt.Fprintf(&out, "/*line %s:%d:%d*/", lineName(start.Filename), start.Line, start.Column)
	}
	last := lo
	ins := slices.DeleteFunc(slices.Clone(e.ins), func(in insertion) bool { return in.offset < lo || in.offset >= hi })
	for i, in := range ins {
		if in.offset > last {
			out.Write(e.src[last:in.offset])
			last = in.offset
		}
		out.WriteString(in.text)
		last = max(last, in.offset+in.skip)
		if i+1 == len(ins) || ins[i+1].offset != in.offset {
			p := e.fset.Position(e.tf.Pos(last))
			fmt.Fprintf(&out, "/*line %s:%d:%d*/", lineName(p.Filename), p.Line, p.Column)
		}
	}
	out.Write(e.src[last:hi])
	return out.Bytes()
}

// lineName makes a file name safe inside a /*line*/ comment, which ends at
// the first */.
func lineName(name string) string {
	return strings.ReplaceAll(name, "*/", "*_/")
}
