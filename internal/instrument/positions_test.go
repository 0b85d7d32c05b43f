package instrument

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// coverInput has what cmd/cover inserts code around: else if chains, several
// statements on a line, clauses, literals and a one-line function.
const coverInput = `package p

import "strings"

func One(x int) int { if x > 0 { return x }; return -x }

func Chain(s string) (n int) {
	if s == "" { n = 1 } else if strings.HasPrefix(s, "a") { n = 2 } else if len(s) > 3 { n = 3 } else { n = 4 }
	switch { case n > 2: n++; case n > 1: n--; default: n *= 2 }
	f := func(y int) int { if y > 1 { return y }; return 0 }
	for i := 0; i < 3; i++ { n += f(i) }
	return n
}
`

// TestCoverPositions rewrites a file with cmd/cover, in each mode, and
// checks that every identifier of the user's code gets the position it has
// in the original file.
func TestCoverPositions(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "p.go")
	if err := os.WriteFile(orig, []byte(coverInput), 0o666); err != nil {
		t.Fatal(err)
	}
	want := idents(t, token.NewFileSet(), orig, []byte(coverInput))
	for _, mode := range []string{"set", "count", "atomic"} {
		out := filepath.Join(dir, mode+".go")
		cmd := exec.Command("go", "tool", "cover", "-mode="+mode, "-var=goCover_0123456789ab_", "-o", out, orig)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go tool cover -mode=%s: %v\n%s", mode, err, msg)
		}
		src, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, out, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if !coverOutput(f) {
			t.Fatalf("-mode=%s: coverOutput does not recognize cover's output", mode)
		}
		pos := newPositioner(fset, []*ast.File{f}, [][]byte{src}, []bool{true})
		var got []string
		ast.Inspect(f, func(n ast.Node) bool {
			if st, ok := n.(ast.Stmt); ok && coverCounter(st) {
				return false
			}
			if d, ok := n.(*ast.GenDecl); ok && fset.Position(d.Pos()).Line > strings.Count(coverInput, "\n") {
				return false // cover's variables, after the user's code
			}
			if id, ok := n.(*ast.Ident); ok && !strings.Contains(id.Name, "cover") {
				p := pos.Position(id.Pos())
				got = append(got, fmt.Sprintf("%s@%d:%d", id.Name, p.Line, p.Column))
			}
			return true
		})
		for i := range max(len(got), len(want)) {
			if i >= len(got) || i >= len(want) || got[i] != want[i] {
				t.Errorf("-mode=%s: identifier %d of %d: got %q, want %q\n(cover wrote:\n%s)", mode, i, len(want), at(got, i), at(want, i), src)
				break
			}
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "nothing"
}

// idents lists a file's identifiers as name@line:col.
func idents(t *testing.T, fset *token.FileSet, name string, src []byte) []string {
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			p := fset.Position(id.Pos())
			ids = append(ids, fmt.Sprintf("%s@%d:%d", id.Name, p.Line, p.Column))
		}
		return true
	})
	return ids
}
