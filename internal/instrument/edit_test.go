package instrument

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/funcgraph"
)

// TestSynthesizedElse checks that a synthesized else follows its if's } at
// once, even when code of the statement after the if, inserted at the same
// offset, comes earlier in order, as when a supergraph's code makes the
// else and the function's own code ends the enclosing block there; and
// that two families' code for one else shares it.
func TestSynthesizedElse(t *testing.T) {
	const src = `package p

func f(x int) {
	if x > 0 {
		x++
	}
}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	body := file.Decls[0].(*ast.FuncDecl).Body
	ifStmt := body.List[0].(*ast.IfStmt)
	e := newEditor(fset, file, []byte(src))
	// The function's own code at the end of the body, which is where the
	// if ends, in an early order; then two elses in a later one.
	e.insert(funcgraph.Site{Kind: funcgraph.FallEnd, List: body, Index: 1}, 1, "end()")
	e.insert(funcgraph.Site{Kind: funcgraph.Else, List: ifStmt}, 5, "super()")
	e.insert(funcgraph.Site{Kind: funcgraph.Else, List: ifStmt}, 2, "own()")
	out := string(e.apply())
	if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	els := strings.Index(out, "else {")
	if strings.Count(out, "else") != 1 || els < 0 || !strings.Contains(out[els:], "super()") || !strings.Contains(out[els:], "own()") || strings.Index(out, "end()") < els {
		t.Errorf("want one else with both calls, before end():\n%s", out)
	}
}

// TestEndOfList checks where code at the end of a statement list goes when
// other ends meet it: each call must land in the list of its site, after
// the lists inside that end at the same offset, whatever the order in
// which the sites were added.
func TestEndOfList(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		// sites returns the sites and the call each gets, given the
		// function's body.
		sites func(body *ast.BlockStmt) map[string]funcgraph.Site
		// want is the call each list must end with, by the call that
		// starts that list.
		want map[string]string
	}{{
		// An else-if chain ends where the braces of the rewriter's
		// wrappers close: the end of each wrapper goes after the one
		// inside it, and the end of the enclosing list after both.
		name: "else if chain",
		src: `package p

func f(a, b, c bool) {
	if a {
		x()
	} else if b {
		y()
	} else if c {
		z()
	}
}
`,
		sites: func(body *ast.BlockStmt) map[string]funcgraph.Site {
			outer := body.List[0].(*ast.IfStmt)
			inner := outer.Else.(*ast.IfStmt)
			last := inner.Else.(*ast.IfStmt)
			return map[string]funcgraph.Site{
				"bodyEnd":  {Kind: funcgraph.FallEnd, List: body, Index: 1},
				"outerEnd": {Kind: funcgraph.FallEnd, List: outer, Index: 1},
				"innerEnd": {Kind: funcgraph.FallEnd, List: inner, Index: 1},
				"lastElse": {Kind: funcgraph.Else, List: last},
				"outerIn":  {Kind: funcgraph.Else, List: outer, Index: 0},
				"innerIn":  {Kind: funcgraph.Else, List: inner, Index: 0},
			}
		},
		want: map[string]string{"": "bodyEnd", "outerIn": "outerEnd", "innerIn": "innerEnd", "lastElse": "lastElse"},
	}, {
		// A clause that ends at the switch's }, where the synthesized
		// default goes.
		name: "switch without space",
		src: `package p

func f(x int) {
	switch x {
	case 1: x++}
}
`,
		sites: func(body *ast.BlockStmt) map[string]funcgraph.Site {
			sw := body.List[0].(*ast.SwitchStmt)
			return map[string]funcgraph.Site{
				"caseEnd": {Kind: funcgraph.FallEnd, List: sw.Body.List[0], Index: 1},
				"def":     {Kind: funcgraph.Default, List: sw},
				"bodyEnd": {Kind: funcgraph.FallEnd, List: body, Index: 1},
			}
		},
		want: map[string]string{"": "bodyEnd", "x++": "caseEnd", "def": "def"},
	}, {
		name: "empty clause",
		src: `package p

func f(x int) {
	switch x {
	case 1:}
}
`,
		sites: func(body *ast.BlockStmt) map[string]funcgraph.Site {
			sw := body.List[0].(*ast.SwitchStmt)
			return map[string]funcgraph.Site{
				"caseHead": {Kind: funcgraph.Head, List: sw.Body.List[0], Index: 0},
				"def":      {Kind: funcgraph.Default, List: sw},
			}
		},
		want: map[string]string{"caseHead": "caseHead", "def": "def"},
	}, {
		// An if without else that ends an else if: its else, then the
		// end of the wrapper, then the wrapper's }.
		name: "if without space",
		src: `package p

func f(a, b bool) {
	if a {
	} else if b {}}
`,
		sites: func(body *ast.BlockStmt) map[string]funcgraph.Site {
			outer := body.List[0].(*ast.IfStmt)
			inner := outer.Else.(*ast.IfStmt)
			return map[string]funcgraph.Site{
				"innerElse": {Kind: funcgraph.Else, List: inner},
				"outerIn":   {Kind: funcgraph.Else, List: outer, Index: 0},
				"outerEnd":  {Kind: funcgraph.FallEnd, List: outer, Index: 1},
				"bodyEnd":   {Kind: funcgraph.FallEnd, List: body, Index: 1},
			}
		},
		want: map[string]string{"": "bodyEnd", "innerElse": "innerElse", "outerIn": "outerEnd"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, "p.go", tc.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			body := file.Decls[0].(*ast.FuncDecl).Body
			sites := tc.sites(body)
			names := slices.Sorted(maps.Keys(sites))
			for _, rev := range []bool{false, true} {
				if rev {
					slices.Reverse(names)
				}
				e := newEditor(fset, file, []byte(tc.src))
				for _, name := range names {
					e.insert(sites[name], 0, name+"(); ") // as opsCode writes it
				}
				out := string(e.apply())
				got, err := listEnds(out)
				if err != nil {
					t.Fatalf("%v in\n%s", err, out)
				}
				for first, last := range tc.want {
					if got[first] != last {
						t.Errorf("the list that starts with %q ends with %q, want %q, in\n%s", first, got[first], last, out)
					}
				}
			}
		})
	}
}

// listEnds parses src and returns, for each statement list of its
// function, the last statement, by the first (empty for the body; both
// calls named by their function, or the statement's source).
func listEnds(src string) (map[string]string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "out.go", src, 0)
	if err != nil {
		return nil, err
	}
	name := func(s ast.Stmt) string {
		if es, ok := s.(*ast.ExprStmt); ok {
			if call, ok := es.X.(*ast.CallExpr); ok {
				return call.Fun.(*ast.Ident).Name
			}
		}
		return src[fset.Position(s.Pos()).Offset:fset.Position(s.End()).Offset]
	}
	body := file.Decls[0].(*ast.FuncDecl).Body
	ends := make(map[string]string)
	add := func(list []ast.Stmt, top bool) {
		var stmts []ast.Stmt
		for _, s := range list {
			if _, empty := s.(*ast.EmptyStmt); !empty {
				stmts = append(stmts, s)
			}
		}
		if len(stmts) == 0 {
			return
		}
		first := name(stmts[0])
		if top {
			first = ""
		}
		ends[first] = name(stmts[len(stmts)-1])
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			add(n.List, n == body)
		case *ast.CaseClause:
			add(n.Body, false)
		}
		return true
	})
	return ends, nil
}
