package funcgraph

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/pathcover/pathcover/numbering"
)

// loadDir parses and type-checks the package in dir.
func loadDir(t *testing.T, dir string) (*token.FileSet, []*ast.File, *types.Info) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{
		Types:      make(map[ast.Expr]types.TypeAndValue),
		Defs:       make(map[*ast.Ident]types.Object),
		Uses:       make(map[*ast.Ident]types.Object),
		Instances:  make(map[*ast.Ident]types.Instance),
		Selections: make(map[*ast.SelectorExpr]*types.Selection),
	}
	conf := types.Config{Importer: importer.Default()}
	if _, err := conf.Check(filepath.Base(dir), fset, files, info); err != nil {
		t.Fatal(err)
	}
	return fset, files, info
}

// buildDir builds every function of the package in dir. The package's
// neverReturns stands for what ctrlflow's facts report.
func buildDir(t *testing.T, dir string) (*token.FileSet, map[string]*Func, []*Func) {
	t.Helper()
	fset, files, info := loadDir(t, dir)
	funcs, err := BuildFiles(files, &Config{
		Info:     info,
		NoReturn: func(f *types.Func) bool { return f.Name() == "neverReturns" },
	})
	if err != nil {
		t.Fatal(err)
	}
	byName := make(map[string]*Func)
	for _, f := range funcs {
		if byName[f.Name] != nil {
			t.Fatalf("two functions named %s", f.Name)
		}
		byName[f.Name] = f
	}
	return fset, byName, funcs
}

var pathsComment = regexp.MustCompile(`^// paths (\d+)`)

// TestConstructPaths checks each function's path count against the count
// worked out by hand in the comment above it, and checks every function's
// graph, sites and numbering.
func TestConstructPaths(t *testing.T) {
	fset, byName, funcs := buildDir(t, "../../testdata/src/constructs")
	_, files, _ := loadDir(t, "../../testdata/src/constructs")
	checked := 0
	for _, file := range files {
		for _, decl := range file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Doc == nil {
				continue
			}
			m := pathsComment.FindStringSubmatch(fd.Doc.List[0].Text)
			if m == nil {
				continue
			}
			want, _ := strconv.Atoi(m[1])
			name := DeclName(fd)
			if name == "init" {
				name = "init.0"
			}
			f := byName[name]
			if f == nil {
				t.Errorf("no function %s", name)
				continue
			}
			n, err := numbering.Number(&f.Graph, &numbering.Options{Preferred: f.Preferred})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got := n.Total().Int64(); got != int64(want) {
				t.Errorf("%s: %d paths; the comment says %d", name, got, want)
			}
			checked++
		}
	}
	if checked < 25 {
		t.Errorf("only %d functions checked", checked)
	}
	for name, want := range map[string]int64{
		"closures.func1": 2, "deferGo.func1": 1, "deferGo.func2": 1,
		"init.1": 1, "glob..func1": 2,
	} {
		f := byName[name]
		if f == nil {
			t.Errorf("no function %s", name)
			continue
		}
		n, err := numbering.Number(&f.Graph, &numbering.Options{Preferred: f.Preferred})
		if err != nil || n.Total().Int64() != want {
			t.Errorf("%s: %v paths, %v; want %d", name, n.Total(), err, want)
		}
	}
	for _, f := range funcs {
		checkFunc(t, fset, f)
	}
}

// checkFunc checks a function's graph: the sites are where the package doc
// says, and numbering, placement and its properties hold.
func checkFunc(t *testing.T, fset *token.FileSet, f *Func) {
	t.Helper()
	if len(f.Edges) != len(f.Graph.Edges) || len(f.Blocks) != f.Graph.NumBlocks {
		t.Fatalf("%s: edges or blocks out of step with the graph", f.Name)
	}
	n, err := numbering.Number(&f.Graph, &numbering.Options{Preferred: f.Preferred})
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	inCount := make(map[numbering.BlockID]int)
	for _, e := range f.Graph.Edges {
		if n.Reachable(e.Src) {
			inCount[e.Dst]++
		}
	}
	for id, e := range f.Edges {
		ge := f.Graph.Edges[id]
		if ge.Probe != (e.Site.Kind != NoSite) {
			t.Errorf("%s: e%d: probe %v but site %v", f.Name, id, ge.Probe, e.Site.Kind)
		}
		if err := checkSite(e.Site); err != nil {
			t.Errorf("%s: e%d: %v", f.Name, id, err)
		}
		if e.Site.Kind == Head && n.Reachable(ge.Src) && inCount[ge.Dst] != 1 {
			t.Errorf("%s: e%d: head site of b%d, which has %d incoming edges", f.Name, id, ge.Dst, inCount[ge.Dst])
		}
		if e.Site.Kind == Before {
			list := stmtList(e.Site.List)
			switch s := list[e.Site.Index].(type) {
			case *ast.ReturnStmt, *ast.BranchStmt, *ast.ExprStmt, *ast.SelectStmt:
			case *ast.LabeledStmt:
				if _, ok := s.Stmt.(*ast.SelectStmt); !ok {
					t.Errorf("%s: e%d: before-site at %T", f.Name, id, s.Stmt)
				}
			default:
				t.Errorf("%s: e%d: before-site at %T", f.Name, id, s)
			}
		}
	}
	p, err := n.Place(nil)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	if err := p.Check(nil, 2000); err != nil {
		t.Errorf("%s: %v", f.Name, err)
	}
}

// checkSite checks that a site names a list and a place in it.
func checkSite(s Site) error {
	switch s.Kind {
	case NoSite:
		return nil
	case Else:
		if _, ok := s.List.(*ast.IfStmt); !ok || s.Index != 0 {
			return fmt.Errorf("else site on %T[%d]", s.List, s.Index)
		}
		return nil
	case Default:
		switch s.List.(type) {
		case *ast.SwitchStmt, *ast.TypeSwitchStmt:
			return nil
		}
		return fmt.Errorf("default site on %T", s.List)
	case headIfSingle:
		return fmt.Errorf("unresolved head site")
	}
	if _, ok := s.List.(*ast.IfStmt); ok {
		// The synthesized else block: [0] before the else-if, [1] after it.
		if s.Index > 1 {
			return fmt.Errorf("else-block site at %d", s.Index)
		}
		return nil
	}
	if list := stmtList(s.List); list == nil && s.Index != 0 || s.Index < 0 || s.Index > len(list) {
		return fmt.Errorf("%s site at %T[%d] of %d", s.Kind, s.List, s.Index, len(list))
	}
	return nil
}

func stmtList(n ast.Node) []ast.Stmt {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return n.List
	case *ast.CaseClause:
		return n.Body
	case *ast.CommClause:
		return n.Body
	}
	return nil
}

func TestNoReturnEdges(t *testing.T) {
	_, byName, _ := buildDir(t, "../../testdata/src/constructs")
	for name, want := range map[string]int{
		"noReturns": 3, "mustNot": 1, "tbFatal": 1, "goexit": 1, "panicky": 1,
		"selectEmpty": 0, "forInfinite": 0,
	} {
		f := byName[name]
		got := 0
		for _, e := range f.Edges {
			if e.Kind == EdgeNoReturn {
				got++
			}
		}
		if got != want {
			t.Errorf("%s: %d edges for calls that never return; want %d", name, got, want)
		}
	}
	// select {} blocks forever.
	blocks := 0
	for _, e := range byName["selectEmpty"].Edges {
		if e.Kind == EdgeBlock {
			blocks++
		}
	}
	if blocks != 1 {
		t.Errorf("selectEmpty: %d blocking edges; want 1", blocks)
	}
}
