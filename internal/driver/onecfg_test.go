package driver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/pathcover/pathcover/analyzer/pathnumber"
	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/internal/instrument"
	"github.com/pathcover/pathcover/profile"
)

// TestOneCFG checks invariant 1 of docs/design.md, the graph that is
// numbered is the graph that is instrumented: for every function of the testdata and of a
// sample of the standard library, the analyzer (in the analysis driver,
// with ctrlflow's facts) and pppexec's instrumenter (in a compile, with no
// facts from other packages) build the same graph and number it the same.
func TestOneCFG(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a large part of the standard library")
	}
	pkgs, err := pathnumber.Load("../../testdata/src/constructs", false, ".")
	if err != nil {
		t.Fatal(err)
	}
	std, err := pathnumber.Load("", false, "go/...", "encoding/...", "net/http", "regexp/...", "strconv", "text/template/...")
	if err != nil {
		t.Fatal(err)
	}
	funcs, diffs := 0, 0
	for _, pkg := range append(pkgs, std...) {
		sp := pkg.Syntax
		in := &instrument.Input{Fset: sp.Fset, Files: sp.Syntax, Info: sp.TypesInfo}
		for _, name := range sp.CompiledGoFiles {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			in.Names = append(in.Names, name)
			in.Src = append(in.Src, src)
		}
		noReturn, err := funcgraph.NoReturnInPackage(sp.Fset, sp.Syntax, sp.Types, sp.TypesInfo, sp.TypesSizes)
		if err != nil {
			t.Fatal(err)
		}
		in.NoReturn = noReturn
		out, err := instrument.Package(in, &instrument.Config{Package: pkg.Path, RuntimePath: "rt"})
		if err != nil {
			t.Fatalf("%s: %v", pkg.Path, err)
		}
		var meta profile.Meta
		if err := json.Unmarshal(out.Meta, &meta); err != nil {
			t.Fatal(err)
		}
		byName := make(map[string]*profile.Func)
		for i := range meta.Funcs {
			byName[meta.Funcs[i].Name] = &meta.Funcs[i]
		}
		for _, f := range pkg.Result.Funcs {
			funcs++
			mf := byName[f.Name]
			if mf == nil {
				t.Errorf("%s: %s: not instrumented", pkg.Path, f.Name)
				diffs++
				continue
			}
			if d := differ(f, mf); d != "" {
				diffs++
				if diffs <= 10 {
					t.Errorf("%s: %s: %s", pkg.Path, f.Name, d)
				}
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d functions differ", diffs, funcs)
	}
	t.Logf("%d functions in %d packages are the same", funcs, len(pkgs)+len(std))
}

// differ says how the analyzer's numbering of a function and the
// instrumenter's metadata differ, or returns "".
func differ(f *pathnumber.Func, mf *profile.Func) string {
	g := f.Graph
	if g.NumBlocks != len(mf.Blocks) || len(g.Edges) != len(mf.Edges) {
		return fmt.Sprintf("%d blocks and %d edges; instrumented %d and %d", g.NumBlocks, len(g.Edges), len(mf.Blocks), len(mf.Edges))
	}
	for i, e := range g.Edges {
		me := mf.Edges[i]
		if int32(e.Src) != me.Src || int32(e.Dst) != me.Dst || e.Probe != me.Probe {
			return fmt.Sprintf("edge e%d is %v; instrumented %+v", i, e, me)
		}
	}
	if f.Err != nil {
		return "analyzer: " + f.Err.Error()
	}
	if f.Numbering.NumPaths() != mf.Paths {
		return fmt.Sprintf("%d paths; instrumented %d", f.Numbering.NumPaths(), mf.Paths)
	}
	return ""
}
