package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInfeasibleHarness runs -infeasible on the example, strconv and the
// module workloads that the module cache holds (offline, the others are
// left out with a warning): the soundness oracle on real test suites. No
// path that ran may have been proved infeasible (the harness exits 1 if
// one did), and the example's callNode.eval has its 6 infeasible paths.
func TestInfeasibleHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	t.Setenv("GOPROXY", "off") // only what the module cache has
	work := t.TempDir()
	jsonFile := filepath.Join(work, "infeasible.json")
	readme := filepath.Join(work, "performance.md")
	if err := os.WriteFile(readme, []byte("x\n<!-- bench-infeasible:begin -->\n<!-- bench-infeasible:end -->\ny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := benchMain([]string{"-infeasible", "-run", "example/expr$|^strconv$|github.com/", "-work", work, "-json", jsonFile, "-readme", readme}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var r infeasibleResults
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	measured := map[string]*infeasibleWorkload{}
	for _, w := range r.Workloads {
		measured[w.Workload] = w
		if len(w.Unsound) > 0 || w.Analyzed == 0 || w.Analyzed > w.Funcs || w.Infeasible > w.Paths-min(w.Paths, w.Ran) || w.AnalysisSeconds <= 0 {
			t.Errorf("%+v", w)
		}
	}
	t.Logf("measured %d workloads; warnings %q", len(r.Workloads), r.Warnings)
	for _, name := range []string{"github.com/pathcover/pathcover/example/expr", "strconv"} {
		if measured[name] == nil {
			t.Fatalf("%s not measured: %q", name, r.Warnings)
		}
	}
	if ex := measured["github.com/pathcover/pathcover/example/expr"]; ex.Changed < 1 || ex.Infeasible < 6 {
		t.Errorf("the example: %+v", ex)
	}
	md, _ := os.ReadFile(readme)
	if !strings.Contains(string(md), "| github.com/pathcover/pathcover/example/expr |") {
		t.Errorf("the page's section:\n%s", md)
	}
}
