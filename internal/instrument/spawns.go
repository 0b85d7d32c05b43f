package instrument

// In a -wpp build, the go statements of instrumented functions are
// rewritten so that the goroutine each starts records which call started
// it (rt/wppgo.go): the function value of
//
//	go f(x, y)
//
// is wrapped as
//
//	go _pathcoverGo2_0(_pathcoverF, f)(x, y)
//
// The wrapper is evaluated where f was, before the arguments, as the go
// statement evaluates f, and returns a function of f's parameters, so the
// arguments are converted and spread exactly as before. Its type
// parameters are inferred from f's type alone. A go statement is left as
// it is, and the goroutine it starts is recorded as one started by code
// that is not instrumented (spawn 0), when its callee is a builtin or a
// conversion, a generic function instantiated implicitly (its type
// arguments would have to be inferred from the arguments, which the
// wrapper does not see), or has more parameters or results than rt has
// helpers for; and in a package whose language version predates generics.

import (
	"fmt"
	"go/ast"
	"go/types"
	"go/version"
)

// The largest shape of the helpers rt has (rt/gen_wppgo.go).
const (
	maxGoParams  = 6
	maxGoResults = 3
)

// A goShape is the shape of a go statement's callee: how many parameters
// and results it has, and whether it is variadic.
type goShape struct {
	params, results int
	variadic        bool
}

func (s goShape) suffix() string {
	v := ""
	if s.variadic {
		v = "v"
	}
	return fmt.Sprintf("%d%s_%d", s.params, v, s.results)
}

// name is the generated file's helper for the shape.
func (s goShape) name() string { return wppGoPrefix + s.suffix() }

// spawns returns the go statements of body that start goroutines the
// wrapper can record, with their callee's shape, leaving out those in
// function literals (which are functions of their own).
func spawns(body *ast.BlockStmt, info *types.Info) map[*ast.GoStmt]goShape {
	found := make(map[*ast.GoStmt]goShape)
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt:
			if shape, ok := spawnShape(n.Call, info); ok {
				found[n] = shape
			}
		}
		return true
	})
	return found
}

// spawnShape returns the shape of the callee of a go statement's call, if
// the wrapper can take it.
func spawnShape(call *ast.CallExpr, info *types.Info) (goShape, bool) {
	tv, ok := info.Types[call.Fun]
	if !ok || tv.IsBuiltin() || tv.IsType() {
		return goShape{}, false
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok || sig.TypeParams().Len() > 0 {
		return goShape{}, false
	}
	if implicitInstance(call.Fun, info) {
		return goShape{}, false
	}
	shape := goShape{params: sig.Params().Len(), results: sig.Results().Len(), variadic: sig.Variadic()}
	if shape.params > maxGoParams || shape.results > maxGoResults {
		return goShape{}, false
	}
	return shape, true
}

// implicitInstance reports whether fun names a generic function whose type
// arguments are inferred at the call, not written.
func implicitInstance(fun ast.Expr, info *types.Info) bool {
	var id *ast.Ident
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return false
	}
	_, ok := info.Instances[id]
	return ok
}

// spawnsAllowed reports whether a package of language version lang (the
// compile's -lang, empty if not known) may call the generic wrappers.
func spawnsAllowed(lang string) bool {
	return lang == "" || version.Compare(lang, "go1.18") >= 0
}

// emitWPP adds to e the frame of function u in a -wpp build and rewrites
// its go statements, and returns the shapes of the wrappers used.
func (u *function) emitWPP(e *editor, info *types.Info, lang string, used map[goShape]bool) {
	e.insertAt(u.Body.Lbrace+1, phaseDecl, -1, wppEnterDecl(u.ct.fn))
	if !spawnsAllowed(lang) {
		return
	}
	for g, shape := range spawns(u.Body, info) {
		e.insertAt(g.Call.Fun.Pos(), phaseDecl, 0, wppGoOpen(shape))
		e.insertAt(g.Call.Fun.End(), phaseDecl, 0, wppGoClose)
		used[shape] = true
	}
}
