package instrument

import (
	"go/ast"
	"go/token"
	"strings"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/profile"
)

// coverUnits returns the units of statements that `go test -cover` counts
// in a function, each with the block that decides whether it ran. A report
// derives statement coverage from them and the block counts of the path
// profile, and gets cover's percentage.
//
// cmd/cover splits every statement list (block, case clause, comm clause,
// and the block it wraps around an else if) into segments, each ending
// after a statement that may change the flow: a block, branch, if, for,
// range, switch, select, label, a call of panic with one argument, or any
// statement with a function literal in it. A segment's span ends where
// cover's does (statementBoundary): at the last statement's end, or, for a
// statement that holds others, at the opening brace of its body (a block's
// own brace, the body of its first function literal); so a segment that
// starts with a block ends where it starts, and is not counted. An if's
// else, a block or an else if, is a list that starts right after the else
// keyword, where cover puts the block it wraps around it. A labeled statement that is not
// a loop, switch or select is split: the label closes the segment before it
// and counts as one of its statements, and its statement starts the next
// segment. A segment counts all its statements, covered if control reached
// its start, except that a segment of no source (it starts where it ends)
// is not counted at all. Function literals are functions of their own here;
// their statement lists are found when they are numbered. Functions named _
// are not counted.
func coverUnits(positions *positioner, fn *funcgraph.Func, coverBuild bool) []profile.Unit {
	if decl, ok := fn.Node.(*ast.FuncDecl); ok && decl.Name.Name == "_" {
		return nil
	}
	u := &unitWalker{positions: positions, fn: fn, coverBuild: coverBuild}
	u.list(fn.Body.Lbrace, fn.Body.List, fn.Body.Rbrace+1, true)
	return u.units
}

type unitWalker struct {
	positions *positioner
	fn        *funcgraph.Func
	units     []profile.Unit
	// coverBuild is set for a file that cmd/cover rewrote.
	coverBuild bool
}

// inner0 returns the only statement of a list, or nil.
func inner0(list []ast.Stmt) ast.Stmt {
	if len(list) == 1 {
		return list[0]
	}
	return nil
}

// list segments one statement list, as cmd/cover's addCounters does, and
// then walks the statements for their nested lists.
func (u *unitWalker) list(pos token.Pos, stmts []ast.Stmt, blockEnd token.Pos, extendToClosingBrace bool) {
	// Elements of a segment: a statement, or a label whose statement was
	// split off (split set).
	type elem struct {
		stmt  ast.Stmt
		label bool // the label of a split labeled statement
	}
	var elems []elem
	for _, s := range stmts {
		if coverCounter(s) {
			continue // in a -cover build: cover's own, not the user's
		}
		if l, ok := s.(*ast.LabeledStmt); ok && !isControl(l.Stmt) {
			elems = append(elems, elem{l, true})
			if !coverCounter(l.Stmt) { // cover puts its counter after a label
				elems = append(elems, elem{l.Stmt, false})
			}
		} else {
			elems = append(elems, elem{s, false})
		}
	}
	for len(elems) > 0 {
		var last int
		end := blockEnd
		for last = 0; last < len(elems); last++ {
			e := elems[last]
			end = statementBoundary(e.stmt)
			if e.label {
				end = e.stmt.Pos() // the segment ends before the label
			}
			if e.label || endsSegment(e.stmt) {
				last++
				extendToClosingBrace = false
				break
			}
		}
		if extendToClosingBrace {
			end = blockEnd
		}
		if pos != end {
			first := elems[0].stmt
			start, stop := u.positions.Position(pos), u.positions.Position(end)
			u.units = append(u.units, profile.Unit{
				Block: int32(u.fn.StmtBlock[first]), Stmts: last,
				Line: start.Line, Col: start.Column, EndLine: stop.Line, EndCol: stop.Column,
			})
		}
		elems = elems[last:]
		if len(elems) > 0 {
			pos = elems[0].stmt.Pos()
		}
	}
	u.nestedIn(stmts)
}

// nestedIn walks the statement lists inside a list's statements.
func (u *unitWalker) nestedIn(stmts []ast.Stmt) {
	for _, s := range stmts {
		u.nested(s)
	}
}

// nested walks the statement lists inside a statement.
func (u *unitWalker) nested(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		u.list(s.Lbrace, s.List, s.Rbrace+1, true)
	case *ast.LabeledStmt:
		u.nested(s.Stmt)
	case *ast.IfStmt:
		u.nested(s.Body)
		switch els := s.Else.(type) {
		case *ast.BlockStmt:
			// In a -cover build, cover wrapped every else in a block of
			// its own, which it does not count: `else {{ ... }}`.
			var inner []ast.Stmt
			for _, st := range els.List {
				if !coverCounter(st) {
					inner = append(inner, st)
				}
			}
			// That block starts right after "else", as cover's own does.
			if b, ok := inner0(inner).(*ast.BlockStmt); ok && u.coverBuild {
				u.list(els.Lbrace, b.List, b.Rbrace+1, true)
				u.nestedIn(b.List)
				return
			}
			if u.coverBuild {
				u.nested(els)
				return
			}
			u.list(u.positions.afterElse(s), els.List, els.Rbrace+1, true)
			u.nestedIn(els.List)
		case *ast.IfStmt:
			// cover wraps an else if in a block that starts after "else".
			u.list(u.positions.afterElse(s), []ast.Stmt{els}, els.End(), true)
		}
	case *ast.ForStmt:
		u.nested(s.Body)
	case *ast.RangeStmt:
		u.nested(s.Body)
	case *ast.SwitchStmt:
		u.clauses(s.Body)
	case *ast.TypeSwitchStmt:
		u.clauses(s.Body)
	case *ast.SelectStmt:
		u.clauses(s.Body)
	}
}

func (u *unitWalker) clauses(body *ast.BlockStmt) {
	for _, c := range body.List {
		switch c := c.(type) {
		case *ast.CaseClause:
			u.list(c.Colon+1, c.Body, c.End(), false)
		case *ast.CommClause:
			u.list(c.Colon+1, c.Body, c.End(), false)
		}
	}
}

// endsSegment is cmd/cover's endsBasicSourceBlock.
func endsSegment(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.BlockStmt, *ast.BranchStmt, *ast.ForStmt, *ast.IfStmt, *ast.LabeledStmt,
		*ast.RangeStmt, *ast.SwitchStmt, *ast.SelectStmt, *ast.TypeSwitchStmt:
		return true
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" && len(call.Args) == 1 {
				return true
			}
		}
	}
	return firstFuncLit(token.NoPos, s) != token.NoPos
}

// statementBoundary is cmd/cover's: where a segment that statement s ends
// ends. A statement that holds others ends it at its body's opening brace,
// or at the body of a function literal in its header; any other statement
// at its end, or at the body of its first function literal.
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
// nodes starts (cover's hasFuncLiteral), or else def.
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

// isControl is cmd/cover's: a statement that cannot be parted from its label.
func isControl(s ast.Stmt) bool {
	switch s.(type) {
	case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.SelectStmt, *ast.TypeSwitchStmt:
		return true
	}
	return false
}

// coverCounter reports whether s is a statement that cmd/cover inserted: in
// a -cover build pppexec instruments cover's output, whose counter updates
// and function registration hooks are `goCover_<hash>_<n>[i] = v` (set
// mode, and the hooks), `goCover_<hash>_<n>[i]++` (count mode), or in
// atomic mode a call with &goCover_<hash>_<n>[i] as an argument. Cover run
// by hand with -var names the counters goCover_x.Count[i] instead. (User
// statements can hold such counters only inside function literals, which
// this does not look into.)
func coverCounter(s ast.Stmt) bool {
	isCounter := func(e ast.Expr) bool {
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = u.X
		}
		ix, ok := e.(*ast.IndexExpr)
		if !ok {
			return false
		}
		x := ix.X
		if sel, ok := x.(*ast.SelectorExpr); ok && sel.Sel.Name == "Count" {
			x = sel.X
		}
		id, ok := x.(*ast.Ident)
		return ok && isCoverVar(id.Name)
	}
	switch s := s.(type) {
	case *ast.IncDecStmt:
		return isCounter(s.X)
	case *ast.AssignStmt:
		return len(s.Lhs) == 1 && isCounter(s.Lhs[0])
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			for _, arg := range call.Args {
				if isCounter(arg) {
					return true
				}
			}
		}
	}
	return false
}

// coverOutput reports whether cmd/cover wrote file: its counters are in it.
func coverOutput(file *ast.File) bool {
	found := false
	ast.Inspect(file, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && isCoverVar(id.Name) {
			found = true
		}
		return !found
	})
	return found
}

// isCoverVar reports whether name is one of cmd/cover's variables, as the
// go command names them.
func isCoverVar(name string) bool { return strings.HasPrefix(name, "goCover_") }
