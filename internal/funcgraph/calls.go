package funcgraph

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"
)

// A StaticCall is a call in a block whose callee is known without running
// the program: a function, or a method of a concrete type. Interprocedural
// profiling inlines such callees into their callers' graphs (PPP thesis
// 3.4.4); calls through interfaces and function values have no single
// callee and are not listed.
type StaticCall struct {
	Call   *ast.CallExpr
	Callee *types.Func // the generic origin, for an instantiated callee
	// Site says that interprocedural profiling can follow the call into
	// its callee: the callee is not generic, the call names it by an
	// identifier or a selector (not a method expression), so that a clone
	// can be called instead; the call runs whenever its block does: it is
	// not in the right operand of && or ||, which one block holds whole
	// (one decision); and it runs before the block's path can end: it is
	// not in the arguments of a call that never returns, whose edge's code
	// goes before the statement. A call in a return statement is a site
	// when the function's results can be held (Func.ResultsHeld) and the
	// return edge has a site: an interprocedural build evaluates the
	// results into variables first, then runs the supergraph's code of the
	// return edge, then returns them.
	Site bool
}

// StaticCalls returns, for each block of f, its static calls in the order
// they run: by the end of their argument lists, so that f(g(x)) lists g
// first. (Within one block, calls run in that order; && and || split
// blocks.) Calls inside function literals belong to the literal. The call that
// a defer or go statement makes runs elsewhere (at the function's exit, or
// in another goroutine), so it is not a call of its block, though its
// arguments are. With nil info no call is known.
func (f *Func) StaticCalls(info *types.Info) [][]StaticCall {
	calls := make([][]StaticCall, len(f.Blocks))
	if info == nil {
		return calls
	}
	after := f.pathEnds()
	for b, blk := range f.Blocks {
		for _, n := range blk.Nodes {
			var deferred *ast.CallExpr
			// The right operands of && and ||, which may not run.
			var maybe []ast.Expr
			ast.Inspect(n, func(n ast.Node) bool {
				if b, ok := n.(*ast.BinaryExpr); ok && (b.Op == token.LAND || b.Op == token.LOR) {
					maybe = append(maybe, b.Y)
				}
				_, lit := n.(*ast.FuncLit)
				return !lit
			})
			switch s := n.(type) {
			case *ast.DeferStmt:
				deferred = s.Call
			case *ast.GoStmt:
				deferred = s.Call
			}
			ast.Inspect(n, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.CallExpr:
					if n == deferred {
						return true
					}
					if fn := typeutil.StaticCallee(info, n); fn != nil && fn.Pkg() != nil {
						c := StaticCall{Call: n, Callee: fn.Origin()}
						c.Site = clonable(c, info) && !after(n) && !within(n, maybe)
						calls[b] = append(calls[b], c)
					}
				}
				return true
			})
		}
		slices.SortStableFunc(calls[b], func(x, y StaticCall) int { return cmp.Compare(x.Call.Rparen, y.Call.Rparen) })
	}
	return calls
}

// within reports whether n lies inside one of nodes.
func within(n ast.Node, nodes []ast.Expr) bool {
	for _, m := range nodes {
		if m.Pos() <= n.Pos() && n.End() <= m.End() {
			return true
		}
	}
	return false
}

// clonable reports whether a call can call a clone of its callee instead:
// the callee is not generic, and the call names it by an identifier or a
// selector (not a method expression).
func clonable(call StaticCall, info *types.Info) bool {
	sig := call.Callee.Signature()
	if sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0 {
		return false
	}
	// f(g()) passes g's results as f's arguments, and Go allows nothing
	// beside them: a clone's registers cannot go first (uuid's
	// Must(NewRandom()) made IPPP builds of the package fail to compile,
	// and fall back to plain).
	if len(call.Call.Args) == 1 {
		if _, ok := info.TypeOf(call.Call.Args[0]).(*types.Tuple); ok {
			return false
		}
	}
	switch fun := call.Call.Fun.(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		sel := info.Selections[fun]
		return sel == nil || sel.Kind() == types.MethodVal // nil: pkg.F
	}
	return false
}

// pathEnds returns a test of whether a call runs after the code of an edge
// that can end f's path has run: a call in a call that never returns,
// whose edge's code goes before the statement, or in a return statement
// whose results cannot be held or whose edge has no site (after a label
// that a goto jumps to: its code goes on the edges before).
func (f *Func) pathEnds() func(*ast.CallExpr) bool {
	var stmts []ast.Stmt
	held := f.ResultsHeld()
	for _, e := range f.Edges {
		if r, ok := e.Node.(*ast.ReturnStmt); ok && e.Kind == EdgeReturn {
			if !held || e.Site.Kind != Before {
				stmts = append(stmts, r)
			}
			continue
		}
		if s := e.Site.Stmt(); e.Site.Kind == Before && s != nil {
			stmts = append(stmts, s)
		}
	}
	return func(call *ast.CallExpr) bool {
		for _, s := range stmts {
			if s.Pos() <= call.Pos() && call.End() <= s.End() {
				return true
			}
		}
		return false
	}
}

// ResultsHeld reports whether the results of f's return statements can be
// evaluated into variables declared at the top of its body, typed as its
// signature spells its results: no name that the signature declares (a
// receiver, parameter or result) is spelt in a result's type, where at the
// top of the body it would mean the name, not what the type meant
// (func parse(url string) (*url.URL, error) is not held). An
// interprocedural build holds the results of a return statement that calls
// a site's clone, so that the clone runs before the supergraph's code of
// the return edge (internal/instrument/results.go).
func (f *Func) ResultsHeld() bool {
	var typ *ast.FuncType
	var recv *ast.FieldList
	switch n := f.Node.(type) {
	case *ast.FuncDecl:
		typ, recv = n.Type, n.Recv
	case *ast.FuncLit:
		typ = n.Type
	default:
		return false
	}
	if typ.Results == nil {
		return true
	}
	declared := make(map[string]bool)
	for _, list := range []*ast.FieldList{recv, typ.Params, typ.Results} {
		if list == nil {
			continue
		}
		for _, field := range list.List {
			for _, name := range field.Names {
				declared[name.Name] = true
			}
		}
	}
	held := true
	for _, field := range typ.Results.List {
		ast.Inspect(field.Type, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && declared[id.Name] {
				held = false
			}
			return held
		})
	}
	return held
}

// ObjectName returns a declared function's name as [Func.Name] spells it:
// F, T.M or (*T).M, with type parameters left out.
func ObjectName(fn *types.Func) string {
	recv := fn.Signature().Recv()
	if recv == nil {
		return fn.Name()
	}
	t := recv.Type()
	star := false
	if p, ok := t.(*types.Pointer); ok {
		star, t = true, p.Elem()
	}
	base := "?"
	if named, ok := types.Unalias(t).(*types.Named); ok {
		base = named.Origin().Obj().Name()
	}
	if star {
		return "(*" + base + ")." + fn.Name()
	}
	return base + "." + fn.Name()
}
