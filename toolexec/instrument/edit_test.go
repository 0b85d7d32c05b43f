package instrument

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/analyzer/funcgraph"
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
