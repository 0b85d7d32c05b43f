package infeasible_test

import (
	"go/ast"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/internal/static/infeasible"
	"github.com/pathcover/pathcover/numbering"
)

// analyzed is one function with its contradictions.
type analyzed struct {
	f      *funcgraph.Numbered
	doc    string
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
			if fd, ok := g.Node.(*ast.FuncDecl); ok && fd.Doc != nil {
				a.doc = fd.Doc.Text()
			}
			a.contra = infeasible.Analyze(n, fns[g.Node], p.TypesInfo)
			out[g.Name] = a
		}
	}
	return out
}

func (a *analyzed) sets() [][]numbering.EdgeID {
	var sets [][]numbering.EdgeID
	for _, c := range a.contra {
		sets = append(sets, c.Edges)
	}
	return sets
}

// TestHandCounts checks, for each function of testdata/src/correlated, the
// paths proved infeasible against the count its comment works out by hand.
func TestHandCounts(t *testing.T) {
	paths := regexp.MustCompile(`Paths (\d+)`)
	proved := regexp.MustCompile(`Proved (\d+)\b`)
	funcs := analyzePackages(t, "../../../testdata/src/correlated", ".")
	if len(funcs) < 10 {
		t.Fatalf("%d functions analysed", len(funcs))
	}
	for name, a := range funcs {
		mp, mq := paths.FindStringSubmatch(a.doc), proved.FindStringSubmatch(a.doc)
		if mq == nil {
			t.Errorf("%s: no count worked out by hand in its comment", name)
			continue
		}
		if mp != nil {
			if want, _ := strconv.ParseUint(mp[1], 10, 64); a.f.Numbering.NumPaths() != want {
				t.Errorf("%s: %d paths, its comment counts %d", name, a.f.Numbering.NumPaths(), want)
			}
		}
		want, _ := strconv.ParseUint(mq[1], 10, 64)
		got, exact := a.f.Numbering.PathsTakingAny(a.sets(), 1<<12)
		if got != want || !exact {
			t.Errorf("%s: %d paths proved infeasible (exact %v), its comment counts %d", name, got, exact, want)
			for _, c := range a.contra {
				t.Logf("\t%s", describe(a, c))
			}
		}
	}
}

// TestExample checks the path of the issue that asked for the analysis:
// in the example's callNode.eval, leaving the range over n.args at once
// (so args, made as long, is empty), then finding len(args) == 0 false,
// cannot run.
func TestExample(t *testing.T) {
	a := analyzePackages(t, "../../../example/expr", ".")["callNode.eval"]
	if a == nil {
		t.Fatal("no callNode.eval")
	}
	found := false
	for _, c := range a.contra {
		var conds []string
		for _, e := range c.Edges {
			if int(e) < len(a.conds) && a.conds[e] != "" {
				conds = append(conds, a.f.Edges[e].Kind.String()+" "+a.conds[e])
			}
		}
		if slices.Equal(conds, []string{"done range n.args", "false len(args) == 0"}) {
			found = true
		}
	}
	if !found {
		for _, c := range a.contra {
			t.Log(describe(a, c))
		}
		t.Error("leaving the range at once and finding len(args) == 0 false is not proved infeasible")
	}
}

func describe(a *analyzed, c infeasible.Contradiction) string {
	s := ""
	for i, e := range c.Edges {
		if i > 0 {
			s += " & "
		}
		if int(e) >= len(a.f.Edges) {
			s += "start of b" + strconv.Itoa(int(a.f.Numbering.Edge(e).Dst))
			continue
		}
		s += "e" + strconv.Itoa(int(e)) + " " + a.f.Edges[e].Kind.String() + " " + strconv.Quote(a.conds[e])
	}
	return s + ": " + c.Why
}
