package instrument

// Clones: the copy of a callee that a supergraph's site calls, with the
// supergraph's increments on the callee's edges (see supergraph.go).

import (
	"fmt"
	"go/ast"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
)

// clone returns the source of the clone of site i's callee: the callee's
// declaration, renamed, with the registers' pointer as first parameter, its
// own paths' code as in the callee, and the supergraph's on its edges; the
// calls of its own sites (deeper segments) call their clones in turn.
func (s *super) clone(i int, in *Input, all []*function, opt *buildspec.Spec) ([]byte, error) {
	site := s.sites[i]
	callee := site.callee
	decl := callee.Node.(*ast.FuncDecl)
	e := newEditor(in.Fset, in.Files[callee.file], in.Src[callee.file])
	// With sites of its own, the callee's own supergraph is left out: the
	// calls go to this segment's clones instead.
	shadowed := len(s.children(i)) > 0
	e.holdResults(callee.Func, s.calls(i))
	for _, v := range all {
		if v.Node.Pos() < callee.Node.Pos() || v.Node.End() > callee.Node.End() {
			continue // not the callee or a function literal in it
		}
		if err := v.emit(e, opt, !(shadowed && v == callee)); err != nil {
			return nil, err
		}
	}
	ct := *s.ct
	ct.reg, ct.preg = cloneRegisters(s.frame)
	if s.frame && s.caller == nil { // the counters are another package's
		ct.sink, ct.likely = superRegPtr+".S.Count", nil
	}
	s.renameCalls(e, i, superRegPtr)
	where := func(id numbering.EdgeID) (funcgraph.Site, bool, error) {
		o := s.sg.Edges[id]
		switch {
		case o.Site != i:
			return funcgraph.Site{}, false, nil
		case o.Edge == numbering.CallEdge:
			return callee.EntrySite(), true, nil
		case o.Edge == numbering.ReturnEdge:
			return funcgraph.Site{}, false, fmt.Errorf("supergraph of %s: the return edge of call %d holds code", s.callerMeta.Name, i)
		}
		return callee.Edges[o.Edge].Site, true, nil
	}
	if _, err := emitEdges(e, s.p, nil, where, nil, nil, &ct, opt, true); err != nil {
		return nil, err
	}
	return cloneDecl(e, decl, site.clone, cloneParam(s.frame, decl.Type.Params.NumFields() > 0)), nil
}

// cloneDecl returns the source of decl, edited by e, renamed to name and
// with params inserted first among its parameters: a clone's declaration.
func cloneDecl(e *editor, decl *ast.FuncDecl, name, params string) []byte {
	e.rename(decl.Name, name)
	e.insertAt(decl.Type.Params.Opening+1, phaseDecl, 0, params)
	lo, hi := e.tf.Offset(decl.Pos()), e.tf.Offset(decl.End())
	src := []byte("\n\n")
	src = append(src, e.applyRange(lo, hi)...)
	return append(src, '\n')
}

// calls returns the calls of the sites in the function of site parent (-1:
// the caller).
func (s *super) calls(parent int) []*ast.CallExpr {
	var calls []*ast.CallExpr
	for _, i := range s.children(parent) {
		if c := s.sites[i].call; c != nil {
			calls = append(calls, c)
		}
	}
	return calls
}

// renameCalls makes the calls of the sites in the function of site parent
// (-1: the caller) call their clones, with the registers' pointer arg
// first.
func (s *super) renameCalls(e *editor, parent int, arg string) {
	for _, i := range s.children(parent) {
		site := s.sites[i]
		switch fun := site.call.Fun.(type) {
		case *ast.Ident:
			e.rename(fun, site.clone)
		case *ast.SelectorExpr:
			e.rename(fun.Sel, site.clone)
		}
		if site.table != "" {
			e.insertAt(site.call.Lparen+1, phaseDecl, 0, sharedArg(site.table, len(site.call.Args) > 0))
			continue
		}
		e.insertAt(site.call.Lparen+1, phaseDecl, 0, cloneArg(arg, len(site.call.Args) > 0))
	}
}
