package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
)

// bin is the pathcover binary built for the tests, in a directory that
// TestMain removes after them (what tests share is kept there too).
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pathcover-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "pathcover")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building pathcover: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// module writes a module example.com/m with the given files into a temp dir.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.25\n"
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run runs a command in dir and returns its combined output and exit code.
func run(t *testing.T, dir string, name string, args ...string) (string, int) {
	t.Helper()
	return cmdtest.Run(t, dir, nil, name, args...)
}

// tenIfs has 2^10 = 1024 paths, just over the default limit of 1000.
const tenIfs = `package m

func Tally(a [10]bool) (n int) {
	if a[0] {
		n++
	}
	if a[1] {
		n++
	}
	if a[2] {
		n++
	}
	if a[3] {
		n++
	}
	if a[4] {
		n++
	}
	if a[5] {
		n++
	}
	if a[6] {
		n++
	}
	if a[7] {
		n++
	}
	if a[8] {
		n++
	}
	if a[9] {
		n++
	}
	return
}

func Small(x int) int {
	if x > 0 {
		return 1
	}
	return 0
}
`

func TestVetTool(t *testing.T) {
	dir := module(t, map[string]string{"m.go": tenIfs})
	out, code := run(t, dir, "go", "vet", "-vettool="+bin, "./...")
	want := "m.go:3:1: Tally has 1024 acyclic paths, more than -pathcover.maxpaths=1000; " +
		"the if statement at line 4 multiplies them most, by 2, one of 10 branching statements in sequence"
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("go vet: exit %d, output:\n%s\nwant exit 1 and %q", code, out, want)
	}
	if strings.Contains(out, "Small") {
		t.Errorf("go vet reported Small, which has 2 paths:\n%s", out)
	}
	if out, code := run(t, dir, "go", "vet", "-vettool="+bin, "-pathcover.maxpaths=1024", "./..."); code != 0 {
		t.Errorf("go vet -pathcover.maxpaths=1024: exit %d, output:\n%s", code, out)
	}
	// vet's -json: diagnostics by package and analyzer, and exit 0.
	out, code = run(t, dir, "go", "vet", "-vettool="+bin, "-json", "./...")
	if code != 0 {
		t.Fatalf("go vet -json: exit %d\n%s", code, out)
	}
	var js map[string]map[string][]struct{ Posn, Message string }
	// go vet prefixes the JSON with a comment line per package.
	body := out[strings.Index(out, "{"):]
	if err := json.Unmarshal([]byte(body), &js); err != nil {
		t.Fatalf("go vet -json output is not JSON: %v\n%s", err, out)
	}
	diags := js["example.com/m"]["pathcover"]
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "Tally has 1024 acyclic paths") {
		t.Errorf("go vet -json: %+v", js)
	}
}

func TestStandalone(t *testing.T) {
	dir := module(t, map[string]string{"m.go": tenIfs})
	out, code := run(t, dir, bin, "./...")
	if code != 3 || !strings.Contains(out, "Tally has 1024 acyclic paths") {
		t.Errorf("pathcover ./...: exit %d, output:\n%s", code, out)
	}
	out, code = run(t, dir, bin, "-pathcover.maxpaths=2000", "./...")
	if code != 0 || out != "" {
		t.Errorf("pathcover -pathcover.maxpaths=2000 ./...: exit %d, output:\n%s", code, out)
	}
	out, code = run(t, dir, bin, "-pathcover.nosuchflag", "./...")
	if code == 0 || !strings.Contains(out, "nosuchflag") {
		t.Errorf("unknown flag: exit %d, output:\n%s", code, out)
	}
	// A package that does not type-check: an error, not a panic.
	bad := module(t, map[string]string{"bad.go": "package m\n\nfunc F() int { return undefined }\n"})
	out, code = run(t, bad, bin, "./...")
	if code == 0 || !strings.Contains(out, "undefined") || strings.Contains(out, "panic") {
		t.Errorf("ill-typed package: exit %d, output:\n%s", code, out)
	}
}

func TestCfg(t *testing.T) {
	dir := module(t, map[string]string{"m.go": tenIfs})
	out, code := run(t, dir, bin, "cfg", "example.com/m.Small")
	for _, want := range []string{
		"func Small m.go:",
		"paths 2, numbered 2, chords ",
		"e0 → b3 true; site head block m.go:",
		"path 0: b0 b3 b1",
		"path 1: b0 b2 b1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("pathcover cfg: output lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("pathcover cfg: exit %d", code)
	}
	out, code = run(t, dir, bin, "cfg", "-dot", "Small")
	if code != 0 || !strings.HasPrefix(out, `digraph "Small" {`) || !strings.HasSuffix(out, "}\n") {
		t.Errorf("pathcover cfg -dot: exit %d, output:\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"cfg", "example.com/m.Nope"},
		{"cfg", "example.com/nope.F"},
		{"cfg", "NoSuchFunc"},
	} {
		out, code := run(t, dir, bin, bad...)
		if code != 1 || !strings.HasPrefix(out, "pathcover cfg: ") {
			t.Errorf("pathcover %v: exit %d, output:\n%s", bad, code, out)
		}
	}
	if out, code := run(t, dir, bin, "cfg"); code != 2 || !strings.Contains(out, "usage: pathcover cfg") {
		t.Errorf("pathcover cfg with no function: exit %d, output:\n%s", code, out)
	}
}

// TestStdlibSample runs the binary over the sample of the standard library
// that the analyzer's properties are checked on: it must finish, and any
// diagnostics must be about paths, not crashes.
func TestStdlibSample(t *testing.T) {
	if testing.Short() {
		t.Skip("analyzes a large part of the standard library")
	}
	out, code := run(t, ".", bin, "-pathcover.verbose", "go/...", "encoding/...", "net/http", "regexp/...", "strconv", "text/template/...")
	if code != 0 && code != 3 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	report := regexp.MustCompile(`acyclic paths( \((at least )?\d+ proved infeasible\))?, more than -pathcover.maxpaths=1000`)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line != "" && !report.MatchString(line) {
			t.Errorf("unexpected output: %s", line)
		}
	}
}
