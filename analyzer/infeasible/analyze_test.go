package infeasible_test

import (
	"fmt"
	"go/ast"
	"go/types"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/pathcover/pathcover/analyzer/funcgraph"
	"github.com/pathcover/pathcover/analyzer/infeasible"
)

// analyzed is one function with its contradictions.
type analyzed struct {
	f      *funcgraph.Numbered
	conds  []string
	contra []infeasible.Contradiction
}

// analyzePackages loads the packages of pattern (in dir) and analyses
// every function, by name.
func analyzePackages(t testing.TB, dir, pattern string) map[string]*analyzed {
	t.Helper()
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]*analyzed)
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		graphs, err := funcgraph.BuildFiles(p.Syntax, &funcgraph.Config{Info: p.TypesInfo})
		if err != nil {
			t.Fatal(err)
		}
		fns := infeasible.BuildPackage(p.Fset, p.Types, p.Syntax, p.TypesInfo, nil)
		for _, g := range graphs {
			n := funcgraph.Number(g)
			a := &analyzed{f: n, conds: infeasible.Conditions(g)}
			a.contra = infeasible.Analyze(n, fns[g.Node], p.TypesInfo)
			out[g.Name] = a
		}
	}
	return out
}

func describe(a *analyzed, c infeasible.Contradiction) string {
	s := ""
	for i, e := range c.Edges {
		if i > 0 {
			s += " & "
		}
		s += fmt.Sprintf("e%d %s %q", e, a.f.Edges[e].Kind, a.conds[e])
	}
	return s + ": " + c.Why
}

var _ = ast.Inspect
var _ = types.ExprString

func TestExampleDump(t *testing.T) {
	funcs := analyzePackages(t, "../../example/expr", ".")
	for name, a := range funcs {
		for _, c := range a.contra {
			t.Logf("%s: %s", name, describe(a, c))
		}
	}
}
