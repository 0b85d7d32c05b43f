package pathnumber_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pathcover/pathcover/analyzer/pathnumber"
)

// TestFacts checks the facts -pathnumber.facts exports (// want in
// testdata), and every result's placement.
func TestFacts(t *testing.T) {
	if err := pathnumber.Analyzer.Flags.Set("facts", "true"); err != nil {
		t.Fatal(err)
	}
	defer pathnumber.Analyzer.Flags.Set("facts", "false")
	results := analysistest.Run(t, analysistest.TestData(), pathnumber.Analyzer, "a", "b")
	for _, r := range results {
		res, ok := r.Result.(*pathnumber.Result)
		if !ok || len(res.Funcs) == 0 {
			t.Fatalf("%s: no result", r.Pass.Pkg.Path())
		}
		for _, f := range res.Funcs {
			if f.Err != nil {
				t.Errorf("%s: %v", f.Name, f.Err)
				continue
			}
			if err := f.Placement.Check(nil, 1000); err != nil {
				t.Errorf("%s: %v", f.Name, err)
			}
		}
	}
}

// TestNoFacts: without -pathnumber.facts, the analyzer exports none, and
// still numbers every function.
func TestNoFacts(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), pathnumber.Analyzer, "nofacts")
	for _, r := range results {
		if n := len(r.Pass.AllObjectFacts()) + len(r.Pass.AllPackageFacts()); n != 0 {
			t.Errorf("%s: %d facts exported without -pathnumber.facts", r.Pass.Pkg.Path(), n)
		}
		if res, ok := r.Result.(*pathnumber.Result); !ok || len(res.Funcs) != 1 || res.Funcs[0].Numbering.NumPaths() != 3 {
			t.Errorf("%s: result %+v, want Sign's 3 paths", r.Pass.Pkg.Path(), r.Result)
		}
	}
}
