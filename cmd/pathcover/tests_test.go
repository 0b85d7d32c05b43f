package main_test

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/report"
)

// TestAffectedHistory runs test impact analysis on a real module's
// history: github.com/google/uuid v1.5.0 committed, then v1.6.0 over it
// (makeV7 gained a monotonic sequence, hash.go the Max UUID). pathcover
// test profiles v1.5.0's tests; pathcover affected -since the commit must
// list exactly the tests that Go's own coverage, one test run at a time,
// finds running a line that diff(1) says changed.
func TestAffectedHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("no diff")
	}
	const modPath = "github.com/google/uuid"
	old, cur := download(t, modPath+"@v1.5.0"), download(t, modPath+"@v1.6.0")
	dir := t.TempDir()
	copyTree(t, old, dir)
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-qm", "v1.5.0")
	rev := gitIn(t, dir, "rev-parse", "HEAD")

	// The oracle, at v1.5.0: each test's own statement coverage.
	changed := changedLines(t, old, cur)
	if len(changed) == 0 {
		t.Fatal("diff found no changed Go lines")
	}
	want := coverAffected(t, dir, changed)

	prof := filepath.Join(t.TempDir(), "prof")
	// TestVersion6 fails now and then with or without pathcover: version
	// 6 times are not monotonic (google/uuid issue 199).
	if out, code := run(t, dir, bin, "test", "-dir", prof, "-skip=^TestVersion6$", "."); code != 0 {
		t.Fatalf("pathcover test: exit %d\n%s", code, out)
	}
	for _, e := range must(os.ReadDir(old)) {
		os.Remove(filepath.Join(dir, e.Name()))
	}
	copyTree(t, cur, dir)

	cmd := exec.Command(bin, "affected", "-dir", prof, "-since", rev, "-json")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pathcover affected: %v\n%s", err, out)
	}
	var a report.Affected
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatal(err)
	}
	got := make(map[string]bool)
	for _, at := range a.Tests {
		if len(at.Tests) == 0 {
			t.Errorf("code outside tests runs a changed line, in %s's %v", at.Package, at.Funcs)
		}
		for _, name := range at.Tests {
			top, _, _ := strings.Cut(name, "/")
			got[top] = true
		}
	}
	delete(want, "TestVersion6") // skipped above
	if !maps.Equal(got, want) {
		t.Errorf("affected tests\n got %v\nwant %v (by go test -cover, one test at a time)", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	if len(want) == 0 {
		t.Error("no test covers the changed lines: the history checks nothing")
	}
	text, code := run(t, dir, bin, "affected", "-dir", prof, "-since", rev)
	if code != 0 || !strings.Contains(text, "go test -run ") {
		t.Errorf("pathcover affected: exit %d\n%s", code, text)
	}
	// The -run patterns run exactly the affected tests and subtests (and
	// their parents), as go test -v lists what it runs.
	wantRun := make(map[string]bool)
	for _, at := range a.Tests {
		for _, name := range at.Tests {
			for i := range name {
				if name[i] == '/' {
					wantRun[name[:i]] = true
				}
			}
			wantRun[name] = true
		}
	}
	gotRun := make(map[string]bool)
	for _, r := range a.Run {
		if r.All {
			t.Fatalf("affected runs all of %s", r.Package)
		}
		cmd := exec.Command("go", "test", "-count=1", "-v", "-run", r.Pattern, ".")
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput() // the changed tree's tests may fail
		for _, line := range strings.Split(string(out), "\n") {
			if name, ok := strings.CutPrefix(strings.TrimSpace(line), "=== RUN"); ok {
				gotRun[strings.TrimSpace(name)] = true
			}
		}
	}
	if !maps.Equal(gotRun, wantRun) {
		t.Errorf("go test -run with affected's patterns runs\n%v\nwant\n%v", slices.Sorted(maps.Keys(gotRun)), slices.Sorted(maps.Keys(wantRun)))
	}
	t.Logf("%d tests affected: %v\n%s", len(got), slices.Sorted(maps.Keys(got)), text)
}

// download fetches a module version from the proxy and returns its
// directory, or skips the test.
func download(t *testing.T, mod string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
	if err != nil {
		t.Skipf("cannot download %s (offline?): %v", mod, err)
	}
	m := regexp.MustCompile(`"Dir": "([^"]+)"`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("go mod download: no Dir in %s", out)
	}
	return string(m[1])
}

// copyTree copies a directory's content (the module cache's is read-only).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-r", from+"/.", to).CombinedOutput(); err != nil {
		t.Fatalf("copying %s: %v\n%s", from, err, out)
	}
	exec.Command("chmod", "-R", "u+w", to).Run()
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// changedLines returns, by file name, the lines of old's non-test Go files
// that differ in cur, by diff(1)'s normal output: the lines of a change or
// deletion, and the two around an insertion.
func changedLines(t *testing.T, old, cur string) map[string]map[int]bool {
	t.Helper()
	out, _ := exec.Command("diff", "-r", old, cur).Output() // exit 1: they differ
	changed := make(map[string]map[int]bool)
	file := ""
	cmdRe := regexp.MustCompile(`^(\d+)(?:,(\d+))?([acd])\d+(?:,\d+)?$`)
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		if f, ok := strings.CutPrefix(line, "diff -r "); ok {
			name := strings.TrimPrefix(strings.Fields(f)[0], old+"/")
			file = ""
			if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
				file = name
			}
			continue
		}
		m := cmdRe.FindStringSubmatch(line)
		if m == nil || file == "" {
			continue
		}
		first, _ := strconv.Atoi(m[1])
		last := first
		if m[2] != "" {
			last, _ = strconv.Atoi(m[2])
		}
		if m[3] == "a" {
			last = first + 1
		}
		if changed[file] == nil {
			changed[file] = make(map[int]bool)
		}
		for l := first; l <= last; l++ {
			changed[file][l] = true
		}
	}
	return changed
}

// coverAffected runs each test of the module in dir alone, under go test
// -cover, and returns those whose coverage holds a block that ran and
// spans a changed line.
func coverAffected(t *testing.T, dir string, changed map[string]map[int]bool) map[string]bool {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "uuid.test")
	if out, err := exec.Command("go", "test", "-C", dir, "-c", "-cover", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c -cover: %v\n%s", err, out)
	}
	list := exec.Command(exe, "-test.list", ".")
	list.Dir = dir
	names := must(list.Output())
	block := regexp.MustCompile(`^\S+/([^/:]+):(\d+)\.\d+,(\d+)\.\d+ \d+ (\d+)$`)
	affected := make(map[string]bool)
	for _, name := range strings.Fields(string(names)) {
		if !strings.HasPrefix(name, "Test") {
			continue
		}
		cover := filepath.Join(t.TempDir(), "cover.out")
		run := exec.Command(exe, "-test.run", "^"+name+"$", "-test.coverprofile", cover)
		run.Dir = dir
		run.Run() // a failing test still covers what it ran
		data, err := os.ReadFile(cover)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			m := block.FindStringSubmatch(line)
			if m == nil || m[4] == "0" {
				continue
			}
			first, _ := strconv.Atoi(m[2])
			last, _ := strconv.Atoi(m[3])
			for l := first; l <= last; l++ {
				if changed[m[1]][l] {
					affected[name] = true
				}
			}
		}
	}
	return affected
}
