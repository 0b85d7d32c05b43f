package main_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
)

// classify has 3 paths, 2 of them through its one call of sign, which has 3
// paths: its supergraph has 1 + 2×3 = 7. The test runs 2 of them and the
// field program 3.
const classify = `package m

func sign(x int) int {
	if x < 0 {
		return -1
	}
	if x > 0 {
		return 1
	}
	return 0
}

func Classify(x int, strict bool) string {
	if strict {
		s := sign(x)
		if s == 0 {
			return "zero"
		}
		return "nonzero"
	}
	return "any"
}
`

// TestInterproceduralWorkflow runs the interprocedural workflow of
// docs/interprocedural.md: pathcover test finds the call sites, pathcover test -ippp counts
// the segments through them, pathcover report -interprocedural and
// pathcover paths show them, and a PPP build over the segments reports the
// field's untested segments with pathcover residual.
func TestInterproceduralWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	dir := module(t, map[string]string{
		"m.go": classify,
		"m_test.go": `package m

import "testing"

func TestClassify(t *testing.T) {
	if Classify(3, true) != "nonzero" || Classify(-3, true) != "nonzero" {
		t.Fatal("wrong")
	}
}
`,
		"field/main.go": `package main

import (
	"fmt"

	"example.com/m"
)

func main() {
	for _, x := range []int{3, 0, 0, -1} {
		fmt.Println(m.Classify(x, true))
	}
}
`,
	})
	tmp := t.TempDir()
	sites, segments := filepath.Join(tmp, "sites"), filepath.Join(tmp, "segments")
	if out, code := run(t, dir, bin, "test", "-dir", sites, "./..."); code != 0 {
		t.Fatalf("pathcover test: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "report", "-dir", sites, "-interprocedural"); code != 1 || !strings.Contains(out, "pppexec -ippp") {
		t.Errorf("report -interprocedural of a profile with no supergraphs: exit %d\n%s", code, out)
	}
	out, code := run(t, dir, bin, "test", "-dir", segments, "-ippp", sites, "./...")
	if code != 0 {
		t.Fatalf("pathcover test -ippp: exit %d\n%s", code, out)
	}
	// Classify's supergraph: only its strict branch ran, so one site.
	line := regexp.MustCompile(`(?m)^\s+m\.go:13 Classify@ippp\s+2/7\s+28\.6%\s+1\s*$`)
	if !line.MatchString(out) {
		t.Errorf("pathcover test -ippp: no line for Classify's segments:\n%s", out)
	}
	if out, code := run(t, dir, bin, "report", "-dir", segments, "-interprocedural"); code != 0 || !line.MatchString(out) {
		t.Errorf("report -interprocedural: exit %d\n%s", code, out)
	}
	var rep struct {
		Packages []struct {
			Funcs, Supergraphs []struct{ Name string }
		}
	}
	out, _ = run(t, dir, bin, "report", "-dir", segments, "-json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Packages) != 1 || len(rep.Packages[0].Supergraphs) != 1 || len(rep.Packages[0].Funcs) != 2 {
		t.Errorf("report -json: %v; %+v", err, rep)
	}

	// A segment decodes as caller, callee, caller.
	out, code = run(t, dir, bin, "paths", "-dir", segments, "Classify@ippp")
	want := []string{
		"in Classify:", "m.go:13:1\tfunction starts", "m.go:14:2\tstrict is true",
		"m.go:15:8\tcall (the segment enters the callee)", "in sign:", "m.go:4:2\tx < 0 is false",
		"m.go:7:2\tx > 0 is true", "in Classify:", "m.go:15:8\tcallee returns (the segment goes on in the caller)",
		"m.go:16:3\ts == 0 is false",
	}
	if code != 0 || !containsInOrder(out, want) {
		t.Errorf("pathcover paths Classify@ippp: exit %d, want %q in order:\n%s", code, want, out)
	}

	// The field runs sign's third path at the site: an untested segment.
	exe := filepath.Join(tmp, "field")
	toolexec := bin + " pppexec -ippp=" + sites + " -interesting=" + segments
	if out, code := run(t, dir, "go", "build", "-toolexec="+toolexec, "-o", exe, "./field"); code != 0 {
		t.Fatalf("PPP build: exit %d\n%s", code, out)
	}
	field := filepath.Join(tmp, "field-profile")
	if out, code := cmdtest.Run(t, dir, []string{"PATHCOVERDIR=" + field}, exe); code != 0 {
		t.Fatalf("field run: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, bin, "residual", "-dir", field, "example.com/m")
	want = []string{
		"residual interprocedural segments",
		"m.Classify@ippp (m.go:13): 1 untested segments ran 2 of its 4 runs",
		"in sign:", "m.go:7:2\tx > 0 is false", "in Classify:", "m.go:16:3\ts == 0 is true",
		"1 untested segments of 3 segments run",
	}
	if code != 0 || !containsInOrder(out, want) {
		t.Errorf("pathcover residual: exit %d, want %q in order:\n%s", code, want, out)
	}
}

// containsInOrder reports whether s contains each of subs, each after the
// one before.
func containsInOrder(s string, subs []string) bool {
	for _, sub := range subs {
		i := strings.Index(s, sub)
		if i < 0 {
			return false
		}
		s = s[i+len(sub):]
	}
	return true
}
