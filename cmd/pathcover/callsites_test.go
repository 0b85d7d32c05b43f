package main_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"
)

// callsModule has static calls between two packages, in loops, branches,
// deferred arguments and returns, and calls that are not sites: through an
// interface, deferred, in a go statement, into the standard library, and
// in a block that never runs.
var callsModule = map[string]string{
	"b/b.go": `package b

type Acc struct{ n int }

func (a *Acc) Add(x int) { a.n += abs(x) }

func (a Acc) Get() int { return a.n }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func Sign(x int) int {
	if x < 0 {
		return -1
	}
	if x > 0 {
		return 1
	}
	return 0
}

func Unused(x int) int { return x * 2 }
`,
	"a/a.go": `package a

import (
	"fmt"

	"example.com/m/b"
)

type Namer interface{ Name() string }

type named string

func (n named) Name() string { return string(n) }

var last int

func record(n int) { last = n }

func Sum(xs []int, nm Namer) int {
	var acc b.Acc
	for _, x := range xs {
		if b.Sign(x) < 0 {
			acc.Add(-x)
		} else {
			acc.Add(x)
		}
	}
	_ = fmt.Sprint(nm.Name())
	defer record(acc.Get())
	go b.Unused(1)
	if len(xs) > 100 {
		return b.Unused(len(xs))
	}
	return acc.Get()
}
`,
	"a/a_test.go": `package a

import "testing"

func TestSum(t *testing.T) {
	if got := Sum([]int{1, -2, 3, 0}, named("x")); got != 6 {
		t.Errorf("Sum = %d", got)
	}
	if got := Sum(nil, named("y")); got != 0 {
		t.Errorf("Sum(nil) = %d", got)
	}
}
`,
}

// TestCallSites runs pathcover test with go test's own statement counts
// beside the path counts, then checks pathcover callsites against an
// oracle built from those: a static call between the module's functions is
// a site if the statement block that holds it ran, and its runs are that
// block's count.
func TestCallSites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	dir := module(t, callsModule)
	prof := filepath.Join(t.TempDir(), "prof")
	cover := filepath.Join(t.TempDir(), "cover.out")
	out, code := run(t, dir, bin, "test", "-dir", prof, "-covermode=count", "-coverpkg=./...", "-coverprofile="+cover, "./...")
	if code != 0 {
		t.Fatalf("pathcover test: exit %d\n%s", code, out)
	}
	want := callOracle(t, dir, cover)
	if len(want) < 5 {
		t.Fatalf("the oracle found only %d sites: %v", len(want), want)
	}

	out, code = run(t, dir, bin, "callsites", "-json", "-dir", prof)
	if code != 0 {
		t.Fatalf("pathcover callsites -json: exit %d\n%s", code, out)
	}
	var sites []jsonSite
	if err := json.Unmarshal([]byte(out), &sites); err != nil {
		t.Fatalf("pathcover callsites -json: %v\n%s", err, out)
	}
	got := make(map[string]uint64)
	for _, s := range sites {
		got[s.key()] = s.Runs
		if len(s.Inner) > 0 {
			t.Errorf("%s: inner sites without -k: %+v", s.key(), s.Inner)
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("call sites and runs:\n got %v\nwant %v", got, want)
	}

	// Depth 2: the sites of Add, which Sum calls, appear under Sum's calls
	// of Add, and nowhere else.
	out, code = run(t, dir, bin, "callsites", "-json", "-k", "2", "-dir", prof)
	if code != 0 || json.Unmarshal([]byte(out), &sites) != nil {
		t.Fatalf("pathcover callsites -k 2: exit %d\n%s", code, out)
	}
	inner := 0
	for _, s := range sites {
		for _, in := range s.Inner {
			if in.Caller != s.Callee {
				t.Errorf("%s: inner site %s is not in the callee", s.key(), in.key())
			}
			if _, ok := want[in.key()]; !ok {
				t.Errorf("%s: inner site %s is not a site", s.key(), in.key())
			}
			inner++
		}
		if strings.HasSuffix(s.Callee, ".(*Acc).Add") && len(s.Inner) != 1 {
			t.Errorf("%s: inner sites %+v, want Add's call of abs", s.key(), s.Inner)
		}
	}
	if inner == 0 {
		t.Errorf("no inner sites at depth 2:\n%s", out)
	}

	// Text, and the caller's package as a pattern: b has one site, Add's
	// call of abs, on Add's one path.
	var absSite string
	for k := range want {
		if strings.HasSuffix(k, "example.com/m/b.abs") {
			absSite = fmt.Sprintf("b/b.go:%s: b.(*Acc).Add → b.abs: 1 path, %d runs", strings.Fields(k)[0][len("b.go:"):], want[k])
		}
	}
	out, code = run(t, dir, bin, "callsites", "-dir", prof, "example.com/m/b")
	if code != 0 || strings.TrimSpace(out) != absSite {
		t.Errorf("pathcover callsites example.com/m/b: exit %d\n%s\nwant %s", code, out, absSite)
	}
	// Supergraphs: Add (one path) with abs (two paths) inlined has two
	// paths; Sum's has more than Sum's own.
	out, code = run(t, dir, bin, "callsites", "-supergraph", "-dir", prof, "example.com/m/b")
	if want := "b/b.go:5: b.(*Acc).Add: 1 site inlined, 1 path → 2"; code != 0 || strings.TrimSpace(out) != want {
		t.Errorf("pathcover callsites -supergraph example.com/m/b: exit %d\n%s\nwant %s", code, out, want)
	}
	out, code = run(t, dir, bin, "callsites", "-supergraph", "-json", "-k", "2", "-dir", prof, "example.com/m/a")
	var sizes []struct {
		Caller            string
		Sites             int
		Paths, SuperPaths string
	}
	if code != 0 || json.Unmarshal([]byte(out), &sizes) != nil || len(sizes) != 1 {
		t.Fatalf("pathcover callsites -supergraph -json -k 2: exit %d\n%s", code, out)
	}
	sumSites := 0
	for k := range want {
		if strings.Contains(k, "a.Sum→") {
			sumSites++
		}
	}
	// At depth 2 each of Sum's two calls of Add brings Add's call of abs.
	if s := sizes[0]; s.Caller != "example.com/m/a.Sum" || s.Sites != sumSites+2 || len(s.SuperPaths) < len(s.Paths) || s.SuperPaths == s.Paths {
		t.Errorf("Sum's supergraph: %+v, want %d sites and more paths", s, sumSites+2)
	}
	if out, code := run(t, dir, bin, "callsites", "-k", "0", "-dir", prof); code != 2 || !strings.Contains(out, "-k 0") {
		t.Errorf("pathcover callsites -k 0: exit %d\n%s", code, out)
	}
}

type jsonSite struct {
	Caller, Callee, File string
	Line, Col            int
	Runs                 uint64
	Inner                []jsonSite
}

func (s jsonSite) key() string {
	return fmt.Sprintf("%s:%d:%d %s→%s", filepath.Base(s.File), s.Line, s.Col, s.Caller, s.Callee)
}

// callOracle returns the static calls between the module's functions whose
// statement block ran by the cover profile, keyed as jsonSite.key, with
// the block's count.
func callOracle(t *testing.T, dir, cover string) map[string]uint64 {
	t.Helper()
	blocks := readCoverProfile(t, cover)
	cfg := &packages.Config{Dir: dir, Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	want := make(map[string]uint64)
	for _, pkg := range pkgs {
		for _, file := range pkg.Syntax {
			name := pkg.Fset.Position(file.Pos()).Filename
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			for _, decl := range file.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				caller := pkg.PkgPath + "." + declName(pkg.TypesInfo, fd)
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.CallExpr:
						fn := typeutil.StaticCallee(pkg.TypesInfo, n)
						if fn == nil || !strings.HasPrefix(fn.Pkg().Path(), "example.com/m") || deferredOrGo(fd.Body, n) {
							return true
						}
						p := pkg.Fset.Position(n.Pos())
						if c := blocks.count(p.Filename, p.Line, p.Column); c > 0 {
							key := fmt.Sprintf("%s:%d:%d %s→%s", filepath.Base(p.Filename), p.Line, p.Column, caller, fn.Pkg().Path()+"."+objName(fn))
							want[key] = c
						}
					}
					return true
				})
			}
		}
	}
	return want
}

// deferredOrGo reports whether call is the call of a defer or go statement.
func deferredOrGo(body *ast.BlockStmt, call *ast.CallExpr) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			found = found || n.Call == call
		case *ast.GoStmt:
			found = found || n.Call == call
		}
		return !found
	})
	return found
}

func declName(info *types.Info, fd *ast.FuncDecl) string {
	return objName(info.Defs[fd.Name].(*types.Func))
}

func objName(fn *types.Func) string {
	recv := fn.Signature().Recv()
	if recv == nil {
		return fn.Name()
	}
	s := types.TypeString(recv.Type(), func(*types.Package) string { return "" })
	if strings.HasPrefix(s, "*") {
		return "(" + s + ")." + fn.Name()
	}
	return s + "." + fn.Name()
}

// coverBlocks are the blocks of a -covermode=count profile.
type coverBlocks []coverBlock

type coverBlock struct {
	file                   string
	line, col, eline, ecol int
	count                  uint64
}

func readCoverProfile(t *testing.T, name string) coverBlocks {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var blocks coverBlocks
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		// file:l.c,el.ec stmts count
		var b coverBlock
		colon := strings.LastIndexByte(line, ':')
		b.file = line[:colon]
		var stmts int
		if _, err := fmt.Sscanf(line[colon+1:], "%d.%d,%d.%d %d %d", &b.line, &b.col, &b.eline, &b.ecol, &stmts, &b.count); err != nil {
			t.Fatalf("cover profile line %q: %v", line, err)
		}
		blocks = append(blocks, b)
	}
	if len(blocks) == 0 {
		t.Fatal("empty cover profile")
	}
	return blocks
}

// count returns the summed counts of the blocks that hold a position (go
// test -coverpkg lists a block once for each test binary).
func (bs coverBlocks) count(file string, line, col int) uint64 {
	var n uint64
	for _, b := range bs {
		if !strings.HasSuffix(file, "/"+strings.TrimPrefix(b.file, "example.com/m/")) {
			continue
		}
		after := line > b.line || (line == b.line && col >= b.col)
		before := line < b.eline || (line == b.eline && col < b.ecol)
		if after && before {
			n += b.count
		}
	}
	return n
}
