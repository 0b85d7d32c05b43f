package main_test

import (
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
// temporary GOBIN that comes first on PATH.
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
	lines := usageLines(t, string(readme))
	gobin := t.TempDir()
	env := append(os.Environ(), "GOBIN="+gobin, "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
	exitComment := regexp.MustCompile(`#\s*exit (\d+)\s*$`)
	for _, line := range lines {
		want := 0
		if m := exitComment.FindStringSubmatch(line); m != nil {
			want, _ = strconv.Atoi(m[1])
		}
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir = root
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if code != want {
			t.Errorf("%s: exit %d, want %d; output:\n%s", line, code, want, out)
		}
		if strings.Contains(string(out), "panic") {
			t.Errorf("%s: output has a panic:\n%s", line, out)
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
