package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileCommands runs pathcover test on a small module, then reads its
// profile back with report (text and JSON), paths, and merge, and checks
// that a bad file in the profile gets one line and does not stop the
// report.
func TestProfileCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	dir := module(t, map[string]string{
		"m.go": tenIfs,
		"m_test.go": `package m

import "testing"

func TestSmall(t *testing.T) {
	if Small(1) != 1 {
		t.Fatal("small")
	}
}
`,
	})
	prof := filepath.Join(t.TempDir(), "prof")
	out, code := run(t, dir, bin, "test", "-dir", prof, "./...")
	if code != 0 {
		t.Fatalf("pathcover test: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"example.com/m  ", "m.go:3 Tally", "0/1024", "m.go:37 Small", "1/2", " 50.0%",
		"total", "profile in " + prof,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("pathcover test output lacks %q:\n%s", want, out)
		}
	}

	out, code = run(t, dir, bin, "report", "-json", "-dir", prof)
	var r struct {
		Packages []struct {
			Path       string
			Statements struct{ Covered, Total uint64 }
		}
		Paths struct{ Covered, Total uint64 }
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("pathcover report -json: exit %d\n%s", code, out)
	}
	// Small ran its x > 0 branch: 2 of its 3 statements, and 1 of its 2
	// paths; Tally never ran.
	if r.Paths.Covered != 1 || r.Paths.Total != 1026 || len(r.Packages) != 1 || r.Packages[0].Statements.Covered != 2 {
		t.Errorf("report: %+v", r)
	}

	out, code = run(t, dir, bin, "paths", "-dir", prof, "Small")
	if code != 0 || !strings.Contains(out, "1 of 2 paths ran") || !strings.Contains(out, "ran once") || !strings.Contains(out, "x > 0 is true") {
		t.Errorf("pathcover paths: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, bin, "paths", "-untested", "-dir", prof, "example.com/m.Small")
	if code != 0 || !strings.Contains(out, "never ran") || !strings.Contains(out, "x > 0 is false") {
		t.Errorf("pathcover paths -untested: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "paths", "-untested", "-limit", "100", "-dir", prof, "Tally"); code != 1 || !strings.Contains(out, "more than the limit") {
		t.Errorf("pathcover paths -untested over the limit: exit %d\n%s", code, out)
	}

	// merge writes the text format, which report reads as well.
	merged := filepath.Join(t.TempDir(), "merged.txt")
	if out, code := run(t, dir, bin, "merge", "-o", merged, prof, prof); code != 0 {
		t.Fatalf("pathcover merge: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, bin, "paths", "-dir", merged, "Small")
	if code != 0 || !strings.Contains(out, "ran 2 times") {
		t.Errorf("paths from the merged profile (the run counted twice): exit %d\n%s", code, out)
	}

	// A corrupt file: one line naming it, and the rest is reported.
	bad := filepath.Join(prof, "pathcover.1.0.counts")
	if err := os.WriteFile(bad, []byte("garbage"), 0o666); err != nil {
		t.Fatal(err)
	}
	out, code = run(t, dir, bin, "report", "-dir", prof)
	if code != 0 || !strings.Contains(out, "skipping "+bad+": not a pathcover counter file\n") || !strings.Contains(out, "m.go:37 Small") {
		t.Errorf("report with a corrupt file: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "report", "-dir", filepath.Join(prof, "nope")); code != exitNoData || !strings.Contains(out, "no such file") {
		t.Errorf("report of a missing directory: exit %d\n%s", code, out)
	}
}
