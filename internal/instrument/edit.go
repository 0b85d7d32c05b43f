package instrument

import (
	"bytes"
	"cmp"
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/internal/funcgraph"
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
	// depth holds, for the statement lists and ifs of the declarations
	// walked so far, the number of statement lists around them (see
	// level).
	depth map[ast.Node]int
	// directives are the file's line directives, once read.
	directives []lineDirective
	// held are the return statements whose results are held (results.go):
	// a supergraph's code before one goes after its results.
	held map[*ast.ReturnStmt]bool
	// heldBodies are the bodies given the variables that hold results.
	heldBodies map[*ast.BlockStmt]bool
}

// An insertion is text to put at a byte offset. Insertions at one offset go
// in order of phase, then of place (see atEnd), then of order (the
// topological index of the edge's source block: code of earlier edges on a
// path runs first), then as added.
type insertion struct {
	offset int
	phase  int
	place  int
	order  int
	seq    int
	text   string
	skip   int // bytes of the original that text replaces
}

const (
	phaseDecl     = iota // declarations at the top of a body, arguments and parameters added
	phaseCode            // edge code, and the braces and branches it needs
	phaseWrapOpen        // the start of a call wrapped around an expression (memory.go)
	phaseRename          // a name or keyword replaced, after all code before it

	// phaseWrapClose closes a wrapped expression: before any code that
	// goes after it.
	phaseWrapClose = -1
)

func newEditor(fset *token.FileSet, file *ast.File, src []byte) *editor {
	return &editor{
		fset: fset, tf: fset.File(file.Pos()), file: file, src: src,
		opens: make(map[*ast.IfStmt]bool), synth: make(map[ast.Node]int),
		depth: make(map[ast.Node]int), held: make(map[*ast.ReturnStmt]bool),
		heldBodies: make(map[*ast.BlockStmt]bool),
	}
}

// insertAt inserts text at pos in a phase other than phaseCode.
func (e *editor) insertAt(pos token.Pos, phase, order int, text string) {
	e.ins = append(e.ins, insertion{offset: e.tf.Offset(pos), phase: phase, order: order, seq: len(e.ins), text: text})
}

// rename replaces the identifier id with name.
func (e *editor) rename(id *ast.Ident, name string) { e.replace(id.Pos(), len(id.Name), name) }

// replace replaces the n bytes at pos with text: the keyword of a return
// statement whose results are held (results.go). It goes after all code
// inserted at pos.
func (e *editor) replace(pos token.Pos, n int, text string) {
	e.ins = append(e.ins, insertion{offset: e.tf.Offset(pos), phase: phaseRename, seq: len(e.ins), text: text, skip: n})
}

// Code and the syntax it needs go in at the starts and ends of statement
// lists, and several ends can meet at one offset: an if that ends a list
// ends where the else the rewriter gives it goes; an else-if chain ends
// where the braces the rewriter wraps each of its else ifs in close, one
// inside the other. Code at the end of a list runs when control leaves that
// list, so it must go after whatever closes the lists inside it and before
// whatever closes the list itself, whatever the code is (an increment, a
// counter update, a witness). One rule orders them all: an insertion has a
// level, 2d for code in a list d lists deep (counting the wrappers of else
// ifs and the elses and defaults the rewriter adds), 2d-1 for the braces or
// branch that make such a list; at one offset, insertions at the ends of
// lists go first, deepest first, then those at starts, shallowest first.
// (An end and a start meet at one offset only in code with no space
// between a statement and a brace.) atEnd and atStart give the place
// insertions are sorted by.
func atEnd(level int) int   { return -level }
func atStart(level int) int { return level }

// insertCode inserts text, edge code or the syntax it needs, at place.
func (e *editor) insertCode(pos token.Pos, place, order int, text string) {
	e.ins = append(e.ins, insertion{offset: e.tf.Offset(pos), phase: phaseCode, place: place, order: order, seq: len(e.ins), text: text})
}

// level is the level of code in a statement list, or, for an if, in its
// else (given or synthesized).
func (e *editor) level(n ast.Node) int {
	d, ok := e.depth[n]
	if !ok {
		decls := e.file.Decls
		// The first declaration that ends after n starts holds n.
		if i, _ := slices.BinarySearchFunc(decls, n.Pos(), func(d ast.Decl, p token.Pos) int { return cmp.Compare(d.End(), p+1) }); i < len(decls) {
			e.walk(decls[i])
		}
		if d, ok = e.depth[n]; !ok {
			panic(fmt.Sprintf("no depth for the %T at %v", n, e.fset.Position(n.Pos())))
		}
	}
	return 2 * (d + 1)
}

// walk records the depth of the lists and ifs in decl.
func (e *editor) walk(decl ast.Decl) {
	wrapped := make(map[ast.Node]bool) // else ifs, which the rewriter wraps
	var inside []int                   // lists around the nodes on the path
	ast.Inspect(decl, func(n ast.Node) bool {
		if n == nil {
			inside = inside[:len(inside)-1]
			return true
		}
		d := 0
		if len(inside) > 0 {
			d = inside[len(inside)-1]
		}
		if wrapped[n] {
			d++
		}
		switch n := n.(type) {
		case *ast.IfStmt:
			if els, ok := n.Else.(*ast.IfStmt); ok {
				wrapped[els] = true
			}
			e.depth[n] = d
		case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
			e.depth[n] = d
			d++
		}
		inside = append(inside, d)
		return true
	})
}

// insert puts an edge's code at its site.
func (e *editor) insert(site funcgraph.Site, order int, code string) {
	code = "; " + code // the statement before may not have ended
	switch list := site.List.(type) {
	case *ast.BlockStmt:
		e.insertList(list, list.List, site.Index, list.Lbrace+1, order, code)
	case *ast.CaseClause:
		e.insertList(list, list.Body, site.Index, list.Colon+1, order, code)
	case *ast.CommClause:
		e.insertList(list, list.Body, site.Index, list.Colon+1, order, code)
	case *ast.IfStmt:
		l := e.level(list) // the else's
		switch els := list.Else.(type) {
		case nil:
			e.synthesize(list, list.Body.End(), atEnd(l-1), order, " else { ", code, "};")
		case *ast.IfStmt:
			// The synthesized else block holds the else-if: [0] is before
			// it, [1] after it.
			if !e.opens[list] {
				e.opens[list] = true
				e.insertCode(els.Pos(), atStart(l-1), 0, "{ ")
				e.insertCode(els.End(), atEnd(l-1), 0, " };")
			}
			if site.Index == 0 {
				e.insertCode(els.Pos(), atStart(l), order, code)
			} else {
				e.insertCode(els.End(), atEnd(l), order, code)
			}
		default:
			panic(fmt.Sprintf("site in the else of an if with a %T else", els))
		}
	case *ast.SwitchStmt:
		e.synthesizeDefault(list, list.Body, order, code)
	case *ast.TypeSwitchStmt:
		e.synthesizeDefault(list, list.Body, order, code)
	default:
		panic(fmt.Sprintf("site in a %T", site.List))
	}
}

// insertList puts code before statement i of a list, or after its last
// one; start is where an empty list starts.
func (e *editor) insertList(list ast.Node, stmts []ast.Stmt, i int, start token.Pos, order int, code string) {
	l := e.level(list)
	switch {
	case i < len(stmts):
		e.insertCode(stmts[i].Pos(), atStart(l), order, code)
	case len(stmts) > 0:
		e.insertCode(stmts[len(stmts)-1].End(), atEnd(l), order, code)
	default:
		e.insertCode(start, atEnd(l), order, code)
	}
}

// synthesizeDefault adds code to the default that the rewriter gives a
// switch with none. The default is a list beside the clauses, whose code is
// at level(body)+2, and ends the body; its ; ends the last clause's last
// statement, which may end at the }.
func (e *editor) synthesizeDefault(stmt ast.Stmt, body *ast.BlockStmt, order int, code string) {
	open := "default: "
	if len(body.List) > 0 {
		open = "; " + open
	}
	e.synthesize(stmt, body.Rbrace, atEnd(e.level(body)+1), order, open, code, "")
}

// synthesize inserts a branch open+code+close at pos for stmt, or adds code
// to the one it already has.
func (e *editor) synthesize(stmt ast.Node, pos token.Pos, place, order int, open, code, close string) {
	i, ok := e.synth[stmt]
	if !ok {
		e.synth[stmt] = len(e.ins)
		e.insertCode(pos, place, order, open+code+close)
		return
	}
	in := &e.ins[i]
	in.text = strings.TrimSuffix(in.text, close) + code + close
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
		if a.place != b.place {
			return a.place - b.place
		}
		if a.order != b.order {
			return a.order - b.order
		}
		return a.seq - b.seq
	})
	var out bytes.Buffer
	if lo == 0 {
		start := e.fset.Position(e.tf.Pos(lo))
		fmt.Fprintf(&out, "//line %s:%d:%d\n", start.Filename, start.Line, start.Column)
	} else {
		out.WriteString(e.lineComment(lo))
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
			out.WriteString(e.lineComment(last))
		}
	}
	out.Write(e.src[last:hi])
	return out.Bytes()
}

// lineComment returns the /*line*/ comment that gives the character at
// offset off of the original its position: the file, line and column that
// the compiler gives it there. Where a //line directive of the original
// (generated code has them) is in force, that is its file name as written,
// which the compiler keeps, though go/token makes a relative one absolute,
// and no column where the directive gives none: the column is unknown there,
// and a column of 0 does not compile.
func (e *editor) lineComment(off int) string {
	p := e.fset.Position(e.tf.Pos(off))
	if name, ok := e.directiveName(off); ok {
		p.Filename = name
	}
	if p.Column == 0 {
		return fmt.Sprintf("/*line %s:%d*/", lineName(p.Filename), p.Line)
	}
	return fmt.Sprintf("/*line %s:%d:%d*/", lineName(p.Filename), p.Line, p.Column)
}

// A lineDirective is a line directive of the original: the offset from
// which it is in force, and the file name it gives, as written.
type lineDirective struct {
	offset int
	name   string
}

// directiveName returns the file name, as written, of the line directive
// in force at offset off, if one is.
func (e *editor) directiveName(off int) (string, bool) {
	if e.directives == nil {
		e.directives = lineDirectives(e.src)
	}
	// The last directive in force at or before off.
	i, found := slices.BinarySearchFunc(e.directives, off, func(d lineDirective, off int) int { return cmp.Compare(d.offset, off) })
	if !found {
		i--
	}
	if i < 0 {
		return "", false
	}
	return e.directives[i].name, true
}

// lineDirectives returns the line directives of src, read as the compiler
// reads them (cmd/compile/internal/syntax: parser.updateBase): //line at
// the start of a line, in force from the next line, or /*line*/ anywhere,
// in force right after it; the text after "line " is the file name, a line
// and maybe a column, each number taken from the end, after the last colon;
// a directive with a column and no file name keeps the file name of the one
// before. The result is never nil.
func lineDirectives(src []byte) []lineDirective {
	dirs := []lineDirective{}
	if !bytes.Contains(src, []byte("//line ")) && !bytes.Contains(src, []byte("/*line ")) {
		return dirs
	}
	fset := token.NewFileSet()
	tf := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(tf, src, nil, scanner.ScanComments)
	name, named := "", false // the file name in force, if a directive gave one
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return dirs
		}
		if tok != token.COMMENT {
			continue
		}
		off := tf.Offset(pos)
		var text string
		var next int // where it is in force
		switch {
		case strings.HasPrefix(lit, "//line ") && (off == 0 || src[off-1] == '\n'):
			text = strings.TrimSuffix(lit[len("//line "):], "\r")
			next = off + len(lit)
			if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
				next = off + i + 1
			}
		case strings.HasPrefix(lit, "/*line "):
			text = lit[len("/*line ") : len(lit)-len("*/")]
			next = off + len(lit)
		default:
			continue
		}
		i := strings.LastIndexByte(text, ':')
		if i < 0 {
			continue // not a directive
		}
		if !isNumber(text[i+1:]) {
			continue // an error the compiler reports
		}
		file := text[:i]
		hasCol := false
		if j := strings.LastIndexByte(file, ':'); j >= 0 && isNumber(file[j+1:]) {
			file, hasCol = file[:j], true
		}
		if file == "" && hasCol {
			if !named {
				continue // the file's own name, as without a directive
			}
			file = name
		}
		name, named = file, true
		dirs = append(dirs, lineDirective{next, file})
	}
}

// isNumber reports whether s is a number as line directives have them.
func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 0)
	return err == nil
}

// lineName makes a file name safe inside a /*line*/ comment, which ends at
// the first */.
func lineName(name string) string {
	return strings.ReplaceAll(name, "*/", "*_/")
}
