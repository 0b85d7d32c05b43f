package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestREADMEUsage runs the lines of the README's usage block from the
// repository root, as a user would: `go install` puts pathcover into a
// temporary GOBIN that comes first on PATH, and TMPDIR is the test's own
// temporary directory, where what the commands keep is removed with it.
func TestREADMEUsage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go install and go vet")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The set-up command: profile the example module's tests.
	_, setup, _ := strings.Cut(string(readme), "## Set-up")
	_, setup, _ = strings.Cut(setup, "```\n")
	setup, _, _ = strings.Cut(setup, "\n")
	if setup != "go run ./cmd/pathcover test ./example/..." {
		t.Errorf("the README's first set-up command is %q", setup)
	}
	// The README's commands make their directories in the temporary
	// directory and keep them, as they tell a user to: pathcover test's
	// profile without -dir, mktemp -d and the names made from it. Give
	// them one of the test's own, which the test removes.
	tmp := t.TempDir()
	cmd := exec.Command("bash", "-c", setup)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "example/expr/parse.go") {
		t.Errorf("%s: %v\n%s", setup, err, out)
	}
	if kept, _ := filepath.Glob(filepath.Join(tmp, "pathcover-profile-*")); len(kept) != 1 {
		t.Errorf("%s kept profiles %v in TMPDIR, want 1", setup, kept)
	}

	lines := usageLines(t, string(readme))
	gobin := t.TempDir()
	env := append(os.Environ(), "TMPDIR="+tmp, "GOBIN="+gobin, "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// One shell, so that a line's export holds for the next; each line's
	// status is printed after it.
	var script strings.Builder
	for i, line := range lines {
		fmt.Fprintf(&script, "%s\necho \"@@status %d $?\"\n", line, i)
	}
	cmd = exec.Command("bash", "-c", script.String())
	cmd.Dir = root
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the usage block failed to run: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "panic:") {
		t.Errorf("the usage block's output has a panic:\n%s", out)
	}
	status := regexp.MustCompile(`@@status (\d+) (\d+)`)
	exitComment := regexp.MustCompile(`#\s*exit (\d+)\s*$`)
	seen := 0
	for _, m := range status.FindAllStringSubmatch(string(out), -1) {
		i, _ := strconv.Atoi(m[1])
		code, _ := strconv.Atoi(m[2])
		want := 0
		if w := exitComment.FindStringSubmatch(lines[i]); w != nil {
			want, _ = strconv.Atoi(w[1])
		}
		if code != want {
			t.Errorf("%s: exit %d, want %d", lines[i], code, want)
		}
		seen++
	}
	if seen != len(lines) {
		t.Fatalf("%d of %d lines ran:\n%s", seen, len(lines), out)
	}
	// The report has the example's functions, and paths decodes one.
	for _, want := range []string{"example/expr/parse.go", "callNode.eval", "never ran"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the usage block's output lacks %q:\n%s", want, out)
		}
	}
}

// usageLines returns the command lines of the ```sh block after "## Usage".
func usageLines(t *testing.T, readme string) []string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "## Usage")
	if !ok {
		t.Fatal("README has no Usage section")
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatal("README's Usage section has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) < 3 {
		t.Fatalf("only %d usage lines", len(lines))
	}
	return lines
}
