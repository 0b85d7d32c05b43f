package driver

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/rt"
)

// TestRingFileLayout checks that the runtime's pathcoverRingFile, which
// the runtime reads through the pointer rt hands it, has the fields of
// rt's flightShared, in the same order and of the same types: nothing
// else checks it, since the pointer crosses a //go:linkname.
func TestRingFileLayout(t *testing.T) {
	runtimeSide := structFields(t, "goroutine.go", goroutineAccessor, "pathcoverRingFile")
	src, err := os.ReadFile("../../rt/flight.go")
	if err != nil {
		t.Fatal(err)
	}
	rtSide := structFields(t, "flight.go", string(src), "flightShared")
	if strings.Join(runtimeSide, "; ") != strings.Join(rtSide, "; ") {
		t.Errorf("the runtime's pathcoverRingFile\n\t%s\nis not rt's flightShared\n\t%s", strings.Join(runtimeSide, "; "), strings.Join(rtSide, "; "))
	}
	if len(rtSide) < 8 {
		t.Errorf("flightShared has %d fields", len(rtSide))
	}
}

// structFields returns "name type" for each field of struct name in src.
func structFields(t *testing.T, file, src, name string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != name {
			return true
		}
		for _, field := range ts.Type.(*ast.StructType).Fields.List {
			for _, id := range field.Names {
				fields = append(fields, id.Name+" "+types.ExprString(field.Type))
			}
		}
		return false
	})
	if fields == nil {
		t.Fatalf("%s declares no struct %s", file, name)
	}
	return fields
}

// TestRuntimeCalls puts the flight recorder's calls into this Go's
// runtime sources: each goes into its function, at its top or before its
// final return, and no line of the file moves.
func TestRuntimeCalls(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	for file, calls := range runtimeCalls {
		name := filepath.Join(strings.TrimSpace(string(goroot)), "src", "runtime", file)
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out, err := addCalls(name, src, calls)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		directive, rest, _ := strings.Cut(string(out), "\n")
		if directive != "//line "+name+":1:1" || strings.Count(rest, "\n") != strings.Count(string(src), "\n") {
			t.Errorf("%s: the lines moved", file)
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, rest, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s as patched: %v", file, err)
		}
		for _, c := range calls {
			call := strings.TrimSuffix(c.text, "; ")
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || fd.Name.Name != c.fn {
					continue
				}
				list := fd.Body.List
				at := list[0]
				if c.at == beforeReturns {
					at = list[len(list)-2]
					if _, ok := list[len(list)-1].(*ast.ReturnStmt); !ok {
						t.Errorf("%s: %s no longer ends in its return", file, c.fn)
					}
				}
				if es, ok := at.(*ast.ExprStmt); !ok || types.ExprString(es.X) != call {
					t.Errorf("%s: %s lacks %s where it goes", file, c.fn, call)
				}
			}
		}
	}
	if _, err := addCalls("proc.go", []byte("package runtime\n\nfunc malg() {}\nfunc newproc() {}\n"), runtimeCalls["proc.go"]); err == nil || !strings.Contains(err.Error(), "no function malg to call") {
		t.Errorf("a proc.go without newproc1: %v", err)
	}
}

// TestNoRingRoom checks that the runtime's ring for goroutines without one
// (pathcoverNoRing, in the patch and in its fallback) has room for the
// largest ring: instrumented code indexes a ring with its build's mask,
// whatever ring it was given.
func TestNoRingRoom(t *testing.T) {
	for name, src := range map[string]string{"patch": goroutineAccessor, "fallback": goroutineFallback} {
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "pathcoverNoRing" {
				return true
			}
			found = true
			at, ok := vs.Type.(*ast.ArrayType)
			if !ok || at.Len == nil {
				t.Fatalf("%s: pathcoverNoRing is a %s", name, types.ExprString(vs.Type))
			}
			tv, err := types.Eval(token.NewFileSet(), nil, token.NoPos, types.ExprString(at.Len))
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := constant.Int64Val(tv.Value); n < 4+rt.FlightMaxEntries {
				t.Errorf("%s: pathcoverNoRing has %d words; a ring of %d entries takes %d", name, n, rt.FlightMaxEntries, 4+rt.FlightMaxEntries)
			}
			return false
		})
		if !found {
			t.Errorf("%s declares no pathcoverNoRing", name)
		}
	}
}
