package export

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
)

// Sources reads the profiled source files (report.Sources does).
type Sources interface {
	ReadFile(name string) ([]byte, error)
}

// A unit's end, as the metadata records it (profile.Unit), is the end of
// its last statement. cmd/cover ends a block elsewhere when that statement
// holds others (its statementBoundary): an if, for, range, switch, type
// switch or select ends it at its body's opening brace, a block at its
// own, and a statement with a function literal in it at the literal's
// body. go test -cover counts the same statements either way, but a
// coverprofile names blocks by their spans, and lines are counted from
// them, so coverEnds reads the source and ends each unit as cover does. A
// segment that cover ends where it starts (a block statement that starts
// a segment) is no block to cover, and goes.

// coverEnds ends the file's units as cmd/cover does, from its source; it
// changes nothing if the source cannot be read, or is not the one profiled.
func (f *file) coverEnds(src Sources) error {
	data, err := src.ReadFile(f.name)
	if err != nil {
		return err
	}
	for _, fn := range f.funcs {
		if !fn.Compiled(data) {
			return fmt.Errorf("changed since it was profiled")
		}
	}
	fset := token.NewFileSet()
	syntax, err := parser.ParseFile(fset, f.name, data, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	type stmt struct {
		start, boundary token.Position
		block           bool
	}
	byEnd := make(map[[2]int][]stmt)
	elseStarts := make(map[[2]int]token.Position)
	ast.Inspect(syntax, func(n ast.Node) bool {
		if s, ok := n.(*ast.IfStmt); ok && s.Else != nil {
			if start, ok := elseStart(fset, data, s); ok {
				p := fset.Position(elseUnitStart(s))
				elseStarts[[2]int{p.Line, p.Column}] = start
			}
		}
		if s, ok := n.(ast.Stmt); ok {
			end := fset.Position(s.End())
			_, block := s.(*ast.BlockStmt)
			byEnd[[2]int{end.Line, end.Column}] = append(byEnd[[2]int{end.Line, end.Column}],
				stmt{fset.Position(s.Pos()), fset.Position(statementBoundary(s)), block})
		}
		return true
	})
	for _, fn := range f.funcs {
		kept := fn.units[:0]
		for _, u := range fn.units {
			// The unit's last statement: the outermost that starts in it
			// and ends where it does; not the block that holds its
			// statements, which starts where it does.
			var last *stmt
			for i, s := range byEnd[[2]int{u.EndLine, u.EndCol}] {
				c := comparePos(s.start.Line, s.start.Column, u.Line, u.Col)
				if c < 0 || (c == 0 && s.block) {
					continue
				}
				if last == nil || comparePos(s.start.Line, s.start.Column, last.start.Line, last.start.Column) < 0 {
					last = &byEnd[[2]int{u.EndLine, u.EndCol}][i]
				}
			}
			if last != nil {
				u.EndLine, u.EndCol = last.boundary.Line, last.boundary.Column
			}
			if start, ok := elseStarts[[2]int{u.Line, u.Col}]; ok {
				u.Line, u.Col = start.Line, start.Column
			}
			if u.EndLine != u.Line || u.EndCol != u.Col {
				kept = append(kept, u)
			}
		}
		fn.units = kept
	}
	return nil
}

// cmd/cover puts an if's else into a block that starts right after the
// else keyword, whether it is a block or an else if. The metadata starts
// the first at its brace and the second after the if's body (or, in a
// -cover build, where cover does).

// elseUnitStart is where the metadata starts the unit of an if's else.
func elseUnitStart(s *ast.IfStmt) token.Pos {
	if b, ok := s.Else.(*ast.BlockStmt); ok {
		return b.Lbrace
	}
	return s.Body.End()
}

// elseStart returns where cover starts the block of an if's else: after
// the first "else" past its body, as cover finds it.
func elseStart(fset *token.FileSet, src []byte, s *ast.IfStmt) (token.Position, bool) {
	tf := fset.File(s.Pos())
	from := tf.Offset(s.Body.End())
	i := bytes.Index(src[from:], []byte("else"))
	if i < 0 {
		return token.Position{}, false
	}
	return fset.Position(tf.Pos(from + i + len("else"))), true
}

// statementBoundary is cmd/cover's: where the block that statement s ends
// ends.
func statementBoundary(s ast.Stmt) token.Pos {
	switch s := s.(type) {
	case *ast.BlockStmt:
		return s.Lbrace
	case *ast.IfStmt:
		return firstFuncLit(s.Body.Lbrace, s.Init, s.Cond)
	case *ast.ForStmt:
		return firstFuncLit(s.Body.Lbrace, s.Init, s.Cond, s.Post)
	case *ast.LabeledStmt:
		return statementBoundary(s.Stmt)
	case *ast.RangeStmt:
		return firstFuncLit(s.Body.Lbrace, s.X)
	case *ast.SwitchStmt:
		return firstFuncLit(s.Body.Lbrace, s.Init, s.Tag)
	case *ast.SelectStmt:
		return s.Body.Lbrace
	case *ast.TypeSwitchStmt:
		return firstFuncLit(s.Body.Lbrace, s.Init)
	}
	return firstFuncLit(s.End(), s)
}

// firstFuncLit returns where the body of the first function literal in
// nodes starts, or else def.
func firstFuncLit(def token.Pos, nodes ...ast.Node) token.Pos {
	for _, n := range nodes {
		if n == nil {
			continue
		}
		found := token.NoPos
		ast.Inspect(n, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok && found == token.NoPos {
				found = lit.Body.Lbrace
			}
			return found == token.NoPos
		})
		if found != token.NoPos {
			return found
		}
	}
	return def
}
