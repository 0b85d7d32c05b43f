package pathnumber_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pathcover/pathcover/analyzer/pathnumber"
)

func TestFacts(t *testing.T) {
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
