package instrument

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/funcgraph"
)

// TestHeldResults rewrites a return statement that calls a "clone" as an
// interprocedural build does, puts a function's own code and a
// supergraph's code at its return edges, and runs the program: the own
// code runs before the statement, as in a plain build, and the
// supergraph's after the call and before the return; at a return statement
// that calls nothing both go before it; the results (one from the call,
// one a variable the call changes, one untyped nil) are those the plain
// program returns.
func TestHeldResults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	const src = `package main

import "fmt"

var trace []string

var n int

func f(x int) int { trace = append(trace, "f"); n += 10; return x + 1 }

func g(x int) (int, int, error) {
	if x > 0 {
		return x, n, nil
	}
	return f(x), n, nil
}

func main() {
	a, b, err := g(0)
	fmt.Println(a, b, err)
	a, b, err = g(1)
	fmt.Println(a, b, err)
	fmt.Println(trace)
}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "main.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := funcgraph.BuildFiles([]*ast.File{file}, &funcgraph.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var g *funcgraph.Func
	for _, f := range funcs {
		if f.Name == "g" {
			g = f
		}
	}
	var call *ast.CallExpr // f(x)
	ast.Inspect(g.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			call = c
		}
		return true
	})
	e := newEditor(fset, file, []byte(src))
	e.holdResults(g, []*ast.CallExpr{call})
	returns := 0
	for _, edge := range g.Edges {
		if edge.Kind != funcgraph.EdgeReturn || edge.Site.Kind != funcgraph.Before {
			continue
		}
		returns++
		e.insert(edge.Site, 0, `trace = append(trace, "own"); `)
		if !e.insertAfterResults(edge.Site, 1, `trace = append(trace, "super"); `) {
			e.insert(edge.Site, 1, `trace = append(trace, "super"); `)
		}
	}
	if returns != 2 {
		t.Fatalf("%d return edges with sites, want 2", returns)
	}
	dir := t.TempDir()
	for name, content := range map[string]string{"go.mod": "module held\n\ngo 1.25\n", "main.go": string(e.apply())} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s\n%s", err, out, e.apply())
	}
	want := "1 10 <nil>\n1 10 <nil>\n[own f super own super]\n"
	if string(out) != want {
		t.Errorf("the rewritten program printed\n%s\nwant\n%s\n%s", out, want, e.apply())
	}
	if !strings.Contains(string(e.apply()), heldResultsAssign(3)) {
		t.Errorf("no held results in\n%s", e.apply())
	}
}
