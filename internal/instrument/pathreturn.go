package instrument

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
)

// In a -wpp build every call records its return, for a deferred call of
// rt.WPPFrame.Return records it even when a panic unwinds the call. But
// most calls end at a return statement right after their last path is
// counted, and there one record can say both: the path, and that the call
// returned (rt.WPPFrame.PathReturn, a path-and-return record of
// profile/wpp.go), which saves a record per call, and leaves the deferred
// call nothing to do. That is exact only if nothing of the call happens
// between the count and the return: no call (which would record events of
// its own, nested in the call), no deferred call (which run after the
// return statement, in the call), and, in a -deps build, no memory access
// (recorded as the current call's).

// pathReturns returns the edges of u into its exit at which a path counted
// can record the call's return with it: a return statement whose results
// call nothing and, in a -deps build, access no memory that is recorded,
// or the end of the body, in a function with no defer statement. The
// count of a path on such an edge is the last thing the call does, since
// an edge's code goes just before its return statement (funcgraph's
// Before site) or at the end of the body.
func (u *function) pathReturns(info *types.Info) map[numbering.EdgeID]bool {
	if hasDefer(u.Body) {
		return nil
	}
	returns := make(map[numbering.EdgeID]bool)
	exit := u.Graph.Exit
	for id, ge := range u.Graph.Edges {
		edge := u.Edges[id]
		if ge.Dst != exit || edge.Kind != funcgraph.EdgeReturn {
			continue
		}
		switch n := edge.Node.(type) {
		case *ast.BlockStmt: // the end of the body
			returns[numbering.EdgeID(id)] = n == u.Body && !u.recordsAfterLast()
		case *ast.ReturnStmt:
			returns[numbering.EdgeID(id)] = !callsCode(n, info) && !u.accessesIn(n)
		}
	}
	return returns
}

// hasDefer reports whether body has a defer statement of its own (not of a
// function literal in it).
func hasDefer(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			found = true
		}
		return !found
	})
	return found
}

// callsCode reports whether evaluating n may call a function: any call but
// a conversion and the builtins that call nothing.
func callsCode(n ast.Node, info *types.Info) bool {
	calls := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // made, not called
		case *ast.CallExpr:
			if !quietCall(n, info) {
				calls = true
			}
		}
		return !calls
	})
	return calls
}

// quietCall reports whether call is a conversion or a call of a builtin
// that runs no code of the program.
func quietCall(call *ast.CallExpr, info *types.Info) bool {
	tv, ok := info.Types[call.Fun]
	if !ok {
		return false
	}
	if tv.IsType() {
		return true
	}
	if !tv.IsBuiltin() {
		return false
	}
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel // unsafe.Sizeof and the like
	default:
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	if !ok {
		return false
	}
	switch b.Name() {
	case "len", "cap", "min", "max", "complex", "real", "imag", "new", "make",
		"Sizeof", "Alignof", "Offsetof", "Add", "Slice", "SliceData", "String", "StringData":
		return true
	}
	return false
}

// recordsAfterLast reports whether a -deps build records a memory access
// after the body's last statement (a variable it declares in memory): at
// the end of the body, where the count of a path that falls off the end
// goes first.
func (u *function) recordsAfterLast() bool {
	if len(u.Body.List) == 0 {
		return false
	}
	last := u.Body.List[len(u.Body.List)-1]
	for _, a := range u.accesses {
		if a.After == last {
			return true
		}
	}
	return false
}

// accessesIn reports whether a -deps build records a memory access of u
// within n.
func (u *function) accessesIn(n ast.Node) bool {
	for _, a := range u.accesses {
		if a.Expr != nil && within(a.Expr, n) || a.Map != nil && within(a.Map, n) {
			return true
		}
	}
	return false
}

func within(x, n ast.Node) bool {
	return x.Pos() >= n.Pos() && x.End() <= n.End() && x.Pos() != token.NoPos
}
