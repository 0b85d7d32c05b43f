package pathcover_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pathcover/pathcover/analyzer/pathcover"
)

// TestConstructs runs the analyzer with a limit of 3 paths over the package
// that has a function for each construct: every function with more paths is
// reported, with its exact count and the statement behind it.
func TestConstructs(t *testing.T) {
	if err := pathcover.Analyzer.Flags.Set("maxpaths", "3"); err != nil {
		t.Fatal(err)
	}
	defer pathcover.Analyzer.Flags.Set("maxpaths", "1000")
	analysistest.Run(t, testdata(t), pathcover.Analyzer, "constructs")
}

// TestInfeasible runs the analyzer over functions whose branches test
// related conditions: it says how many of their paths it proved
// infeasible, and leaves out those whose other paths are within the limit
// (testdata/src/correlated works out each count by hand).
func TestInfeasible(t *testing.T) {
	if err := pathcover.Analyzer.Flags.Set("maxpaths", "3"); err != nil {
		t.Fatal(err)
	}
	defer pathcover.Analyzer.Flags.Set("maxpaths", "1000")
	analysistest.Run(t, testdata(t), pathcover.Analyzer, "correlated")
}

func testdata(t *testing.T) string {
	dir, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestInterprocedural runs the analyzer with -pathcover.interprocedural over
// a package whose callees are in the package and in another, whose graphs
// come from pathnumber's facts.
func TestInterprocedural(t *testing.T) {
	for flag, value := range map[string]string{"maxpaths": "3", "interprocedural": "true"} {
		if err := pathcover.Analyzer.Flags.Set(flag, value); err != nil {
			t.Fatal(err)
		}
	}
	defer pathcover.Analyzer.Flags.Set("maxpaths", "1000")
	defer pathcover.Analyzer.Flags.Set("interprocedural", "false")
	analysistest.Run(t, testdata(t), pathcover.Analyzer, "chain")
}
