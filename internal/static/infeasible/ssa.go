package infeasible

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// BuildPackage builds the SSA form of a type-checked package, in debug
// mode (each expression's value is recorded, which Analyze needs), with
// its imports made from their types alone, and returns its functions by
// their syntax (*ast.FuncDecl or *ast.FuncLit). info must hold what
// go/ssa needs: Types, Defs, Uses, Implicits, Instances, Scopes,
// Selections and FileVersions. noReturn, if set, names the functions that
// never return, as ctrlflow finds them.
func BuildPackage(fset *token.FileSet, pkg *types.Package, files []*ast.File, info *types.Info, noReturn func(*types.Func) bool) map[ast.Node]*ssa.Function {
	prog := ssa.NewProgram(fset, ssa.GlobalDebug)
	if noReturn != nil {
		prog.SetNoReturn(noReturn)
	}
	for _, p := range pkg.Imports() {
		prog.CreatePackage(p, nil, nil, true)
	}
	sp := prog.CreatePackage(pkg, files, info, false)
	sp.Build()
	funcs := make(map[ast.Node]*ssa.Function)
	var add func(f *ssa.Function)
	add = func(f *ssa.Function) {
		if f == nil {
			return
		}
		if syn := f.Syntax(); syn != nil {
			if _, ok := funcs[syn]; !ok {
				funcs[syn] = f
			}
		}
		for _, anon := range f.AnonFuncs {
			add(anon)
		}
	}
	for _, file := range files {
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if obj, ok := info.Defs[fd.Name].(*types.Func); ok {
					add(prog.FuncValue(obj))
				}
			}
		}
	}
	return funcs
}
