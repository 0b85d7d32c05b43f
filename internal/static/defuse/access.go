package defuse

import (
	"go/ast"
	"go/types"

	"github.com/pathcover/pathcover/profile"
)

// An Access is a memory access that a -deps build records (rt/deps.go):
// the code generator wraps Expr in place, or, where the syntax cannot
// hold a call (a variable declared with :=, a select case), records it
// elsewhere.
type Access struct {
	// Stmt is the index in Deps.Stmts of the statement that makes it.
	Stmt int32
	Kind profile.WPPAccess
	// Expr is what is accessed: an addressable expression (a load, store
	// or update), a map index expression or a delete call (a map entry),
	// a channel (send, receive), a copy or append call.
	Expr ast.Expr
	// After, if set, is the statement after which the first write of
	// Expr, a variable declared in memory, is recorded (at the start of
	// the body, for a range statement; there, for a receive, the receive
	// of a range over channel Expr, and for a map read, the read of the
	// entry of key Expr of Map).
	After ast.Stmt
	// Clause, if set, is the select case whose send or receive on Expr
	// is recorded at the start of its body, where it is known to have
	// happened.
	Clause *ast.CommClause
	// Alloc says that Expr makes new memory, all of which it stores: &T{},
	// new(T) (a pointer), or make([]T, n) and []T{...} (a slice).
	Alloc bool
	// Elems says that Expr, a slice, has all its elements read (a range
	// loop over it).
	Elems bool
	// Map is, for a range over a map, the map whose entry of key Expr each
	// round reads (recorded at the start of the body, as After says).
	Map ast.Expr
}

// access adds an access of statement stmt.
func (a *analysis) access(stmt int32, e ast.Expr, kind profile.WPPAccess) *Access {
	a.accesses = append(a.accesses, Access{Stmt: stmt, Kind: kind, Expr: e})
	return &a.accesses[len(a.accesses)-1]
}

// addressable reports whether e denotes a variable, as the Go spec says,
// so that the generated code can take its address.
func (a *analysis) addressable(e ast.Expr) bool {
	info := a.cfg.Info
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		_, ok := info.Uses[x].(*types.Var)
		if !ok {
			_, ok = info.Defs[x].(*types.Var)
		}
		return ok
	case *ast.SelectorExpr:
		sel := info.Selections[x]
		if sel == nil {
			_, ok := info.Uses[x.Sel].(*types.Var) // pkg.V
			return ok
		}
		if sel.Kind() != types.FieldVal {
			return false
		}
		if _, ptr := under(info.TypeOf(x.X)).(*types.Pointer); ptr || sel.Indirect() {
			return true
		}
		return a.addressable(x.X)
	case *ast.IndexExpr:
		switch under(info.TypeOf(x.X)).(type) {
		case *types.Slice, *types.Pointer:
			return true
		case *types.Array:
			return a.addressable(x.X)
		}
	case *ast.StarExpr:
		return true
	}
	return false
}

// simple reports whether e can be evaluated twice with the same value and
// no effect: a variable, or a field of one, selected by names alone.
func (a *analysis) simple(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		_, ok := a.cfg.Info.Uses[x].(*types.Var)
		return ok
	case *ast.SelectorExpr:
		if sel := a.cfg.Info.Selections[x]; sel != nil && sel.Kind() != types.FieldVal {
			return false
		}
		if a.cfg.Info.Selections[x] == nil {
			_, ok := a.cfg.Info.Uses[x.Sel].(*types.Var)
			return ok
		}
		return a.simple(x.X)
	}
	return false
}

// markSelects notes the sends and receives of select cases, which are
// recorded in the bodies of the cases that run.
func (a *analysis) markSelects() {
	a.inSelect = make(map[ast.Node]*ast.CommClause)
	ast.Inspect(a.fn.Body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CommClause:
			switch c := s.Comm.(type) {
			case *ast.SendStmt:
				a.inSelect[c] = s
			case *ast.ExprStmt:
				a.inSelect[ast.Unparen(c.X)] = s
			case *ast.AssignStmt:
				if len(c.Rhs) == 1 {
					a.inSelect[ast.Unparen(c.Rhs[0])] = s
				}
			}
		}
		return true
	})
}

// selectCase records the send or receive on ch of select case cc.
func (w *walker) selectCase(ch ast.Expr, cc *ast.CommClause, kind profile.WPPAccess) {
	if w.a.cfg.Record && w.a.simple(ch) {
		w.a.access(w.stmt, ch, kind).Clause = cc
		return
	}
	if kind == profile.WPPRecv {
		w.mem(ch, "<-")
	}
}
