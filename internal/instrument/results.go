package instrument

// Held results. In an interprocedural build a call in a return statement
// can be a site (funcgraph.StaticCall.Site): the clone it calls carries the
// caller's segment on, so the supergraph's code of the return edge, which
// may add to that segment's register or count it, must run after the
// call. An edge's code goes before a return statement otherwise; for a
// return statement that calls a clone, the results are evaluated into
// variables first, the supergraph's code runs, and the variables are
// returned:
//
//	return x, f(y)
//
// becomes
//
//	<own code>; _pathcoverY0, _pathcoverY1 = x, _pathcoverIPPP3_0(&_pathcoverX, y); <supergraph code>; return _pathcoverY0, _pathcoverY1
//
// with the variables declared at the top of the body, typed as the
// signature spells the results (heldResultDecls). The assignment evaluates
// its operands in the order the return statement would (calls first, left to
// right, then the rest, as the gc compiler orders both), assigns as a return
// does, and a deferred function still sees the results set by the return.
// funcgraph makes such calls sites only where the signature's type names
// mean at the top of the body what they mean in the signature
// (funcgraph.Func.ResultsHeld).
//
// The function's own code stays before the statement, as in a plain build,
// so that its own counts are a plain build's even when evaluating the
// results panics.

import (
	"go/ast"

	"github.com/pathcover/pathcover/internal/funcgraph"
)

// holdResults holds the results of each return statement of f that holds
// one of calls (the calls of clones made in f), so that a supergraph's
// code before such a statement goes after its results
// (insertAfterResults).
func (e *editor) holdResults(f *funcgraph.Func, calls []*ast.CallExpr) {
	var types []string // f's results'; a return statement with results means f has some
	for _, edge := range f.Edges {
		r, ok := edge.Node.(*ast.ReturnStmt)
		if !ok || edge.Kind != funcgraph.EdgeReturn || edge.Site.Kind != funcgraph.Before || len(r.Results) == 0 || e.held[r] || !holdsCall(r, calls) {
			continue
		}
		if types == nil {
			types = e.resultTypes(f)
		}
		if !e.heldBodies[f.Body] {
			e.heldBodies[f.Body] = true
			e.insertAt(f.Body.Lbrace+1, phaseDecl, 0, heldResultDecls(types))
		}
		e.held[r] = true
		e.replace(r.Return, len("return"), heldResultsAssign(len(types)))
		e.insertCode(r.End(), atEnd(e.level(edge.Site.List)), maxOrder, heldResultsReturn(len(types)))
	}
}

// maxOrder orders an insertion after every edge's code at its offset.
const maxOrder = int(^uint(0) >> 1)

// holdsCall reports whether one of calls is in r.
func holdsCall(r *ast.ReturnStmt, calls []*ast.CallExpr) bool {
	for _, c := range calls {
		if r.Pos() <= c.Pos() && c.End() <= r.End() {
			return true
		}
	}
	return false
}

// resultTypes returns the source of the type of each of f's results, one per
// result (a field (a, b int) gives two).
func (e *editor) resultTypes(f *funcgraph.Func) []string {
	var typ *ast.FuncType
	switch n := f.Node.(type) {
	case *ast.FuncDecl:
		typ = n.Type
	case *ast.FuncLit:
		typ = n.Type
	}
	if typ == nil || typ.Results == nil {
		return nil
	}
	var types []string
	for _, field := range typ.Results.List {
		src := string(e.src[e.tf.Offset(field.Type.Pos()):e.tf.Offset(field.Type.End())])
		for range max(1, len(field.Names)) {
			types = append(types, src)
		}
	}
	return types
}

// insertAfterResults inserts a supergraph's code at site after the
// results of the return statement there, if site is before a return
// statement whose results are held, and reports whether it did.
func (e *editor) insertAfterResults(site funcgraph.Site, order int, code string) bool {
	if site.Kind != funcgraph.Before {
		return false
	}
	r := returnStmt(site.Stmt())
	if r == nil || !e.held[r] {
		return false
	}
	e.insertCode(r.End(), atEnd(e.level(site.List)), order, "; "+code)
	return true
}

// returnStmt returns the return statement s is, under its labels; nil if it
// is none.
func returnStmt(s ast.Stmt) *ast.ReturnStmt {
	for {
		switch t := s.(type) {
		case *ast.LabeledStmt:
			s = t.Stmt
		case *ast.ReturnStmt:
			return t
		default:
			return nil
		}
	}
}
