package funcgraph

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// BuildFiles builds every function with a body in files, which should be
// one package's files in the compiler's order: declarations in order, each
// followed by the literals inside it, depth first.
//
// Names follow the compiler: methods are T.M or (*T).M, the init functions
// init.0, init.1, ... in order, literals F.func1, F.func2 in source order
// inside F, F.func1.1 inside F.func1, and glob..func1 in package-level
// initializers.
//
// Functions of these files that never return are found by induction: one
// whose graph has no reachable return edge never returns, and then calls of
// it end paths in its callers too. This adds to cfg.NoReturn (for the
// analyzer, ctrlflow's facts), and gives pppexec, which has no facts, the
// same answer within the package.
func BuildFiles(files []*ast.File, cfg *Config) ([]*Func, error) {
	if cfg == nil || cfg.Info == nil {
		return buildFiles(files, cfg)
	}
	found := make(map[*types.Func]bool)
	local := *cfg
	local.NoReturn = func(f *types.Func) bool { return found[f] || (cfg.NoReturn != nil && cfg.NoReturn(f)) }
	for {
		funcs, err := buildFiles(files, &local)
		changed := false
		for _, f := range funcs {
			decl, ok := f.Node.(*ast.FuncDecl)
			if !ok {
				continue
			}
			obj, _ := cfg.Info.Defs[decl.Name].(*types.Func)
			if obj != nil && !found[obj] && !f.returns() {
				found[obj] = true
				changed = true
			}
		}
		if !changed {
			return funcs, err
		}
	}
}

// returns reports whether a return edge of f is reachable.
func (f *Func) returns() bool {
	reach := make([]bool, f.Graph.NumBlocks)
	reach[f.Graph.Entry] = true
	for changed := true; changed; {
		changed = false
		for id, e := range f.Graph.Edges {
			if !reach[e.Src] {
				continue
			}
			if f.Edges[id].Kind == EdgeReturn {
				return true
			}
			if !reach[e.Dst] {
				reach[e.Dst], changed = true, true
			}
		}
	}
	return false
}

func buildFiles(files []*ast.File, cfg *Config) ([]*Func, error) {
	var funcs []*Func
	var errs []error
	add := func(name string, node ast.Node) {
		f, err := Build(name, node, cfg)
		if err != nil {
			errs = append(errs, err)
			return
		}
		funcs = append(funcs, f)
	}
	// literals builds the literals inside node, naming the k-th one found
	// (not counting those nested in others) prefix+k.
	var literals func(node ast.Node, prefix string, skipRoot bool)
	literals = func(node ast.Node, prefix string, skipRoot bool) {
		k := 0
		ast.Inspect(node, func(n ast.Node) bool {
			lit, ok := n.(*ast.FuncLit)
			if !ok || (skipRoot && n == node) {
				return true
			}
			k++
			name := fmt.Sprintf("%s%d", prefix, k)
			add(name, lit)
			literals(lit, name+".", true)
			return false
		})
	}
	inits := 0
	glob := 0
	for _, file := range files {
		for _, decl := range file.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Body == nil {
					continue
				}
				name := DeclName(decl)
				if name == "init" && decl.Recv == nil {
					name = fmt.Sprintf("init.%d", inits)
					inits++
				}
				add(name, decl)
				literals(decl.Body, name+".func", false)
			case *ast.GenDecl:
				// Package-level literals are numbered across the package.
				ast.Inspect(decl, func(n ast.Node) bool {
					lit, ok := n.(*ast.FuncLit)
					if !ok {
						return true
					}
					glob++
					name := fmt.Sprintf("glob..func%d", glob)
					add(name, lit)
					literals(lit, name+".", true)
					return false
				})
			}
		}
	}
	if len(errs) > 0 {
		return funcs, fmt.Errorf("%d functions could not be built; first: %w", len(errs), errs[0])
	}
	return funcs, nil
}

// DeclName returns the name of a declared function: F, T.M or (*T).M, with
// type parameters left out.
func DeclName(decl *ast.FuncDecl) string {
	if decl.Recv == nil || len(decl.Recv.List) == 0 {
		return decl.Name.Name
	}
	typ := decl.Recv.List[0].Type
	star := false
	if s, ok := typ.(*ast.StarExpr); ok {
		star, typ = true, s.X
	}
	switch t := typ.(type) {
	case *ast.IndexExpr:
		typ = t.X
	case *ast.IndexListExpr:
		typ = t.X
	}
	base := "?"
	if id, ok := ast.Unparen(typ).(*ast.Ident); ok {
		base = id.Name
	}
	if star {
		return fmt.Sprintf("(*%s).%s", base, decl.Name.Name)
	}
	return base + "." + decl.Name.Name
}

// noReturn reports whether a call made as a statement never returns.
func (b *builder) noReturn(call *ast.CallExpr) bool {
	info := b.cfg.Info
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if info == nil {
			return id.Name == "panic"
		}
		if bi, ok := info.Uses[id].(*types.Builtin); ok {
			return bi.Name() == "panic"
		}
	}
	if info == nil {
		return false
	}
	fn := typeutil.Callee(info, call)
	f, ok := fn.(*types.Func)
	if !ok {
		return false
	}
	f = f.Origin()
	if knownNoReturn(f) {
		return true
	}
	return b.cfg.NoReturn != nil && b.cfg.NoReturn(f)
}

// knownNoReturn lists the functions of the standard library that stop the
// goroutine or the program. Most would also be found through ctrlflow's
// facts; the testing methods reached through the testing.TB interface would
// not, and listing them all keeps graphs the same when facts are missing.
func knownNoReturn(f *types.Func) bool {
	if f.Pkg() == nil {
		return false
	}
	name := f.Name()
	method := f.Signature().Recv() != nil
	switch f.Pkg().Path() {
	case "os", "syscall":
		return name == "Exit" && !method
	case "runtime":
		return name == "Goexit" && !method
	case "log":
		switch name {
		case "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln":
			return true
		}
	case "testing":
		switch name {
		case "FailNow", "Fatal", "Fatalf", "SkipNow", "Skip", "Skipf":
			return method
		}
	}
	return false
}
