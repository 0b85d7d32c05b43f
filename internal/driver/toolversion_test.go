package driver

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// versionTool is a tool that answers -V=full with $LINE, counting its
// answers in $COUNT.
const versionTool = `#!/bin/sh
echo asked >> "$COUNT"
echo "$LINE"
`

// TestToolVersionMemo checks that pppexec asks a tool for its -V=full line
// once for all its runs, and again whenever what the line depends on
// changes: the tool's file, the GO* environment; and that a memo that is
// damaged, or that another user could have planted, is not believed.
func TestToolVersionMemo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("tool versions are kept only where pppexec reads files' change times (Linux)")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for the fake tool")
	}
	dir := t.TempDir()
	tool, count := filepath.Join(dir, "compile"), filepath.Join(dir, "count")
	write(t, tool, versionTool, 0o755)
	t.Setenv("COUNT", count)
	t.Setenv("LINE", "compile version fake1")
	t.Setenv(cacheEnv, filepath.Join(dir, "cache"))
	t.Setenv("GOEXPERIMENT", "")

	asked := func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "asked")
	}
	// version runs a new pppexec's toolVersion (each action is a process)
	// and checks the line it gets and how many times the tool was asked.
	version := func(step, want string, wantAsked int) {
		t.Helper()
		line, err := (&Exec{Config: &Config{}}).toolVersion(tool)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if line != want || asked() != wantAsked {
			t.Fatalf("%s: got %q, tool asked %d times; want %q, %d times", step, line, asked(), want, wantAsked)
		}
	}
	memos := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "cache", "versions", "*"))
		return m
	}

	version("first run", "compile version fake1", 1)
	version("second run", "compile version fake1", 1)
	version("third run", "compile version fake1", 1)
	if len(memos()) != 1 {
		t.Fatalf("memos %v, want one", memos())
	}

	// GOEXPERIMENT changes what the compiler says: another memo.
	t.Setenv("GOEXPERIMENT", "fake")
	t.Setenv("LINE", "compile version fake1 X:fake")
	version("new environment", "compile version fake1 X:fake", 2)
	version("new environment again", "compile version fake1 X:fake", 2)
	t.Setenv("GOEXPERIMENT", "")

	// A tool rewritten in place, same size: its change time differs.
	t.Setenv("LINE", "compile version fake2")
	write(t, tool, versionTool, 0o755)
	version("rewritten tool", "compile version fake2", 3)

	// A damaged memo (torn, or not a line of text) is not believed, and
	// is replaced.
	n := 3
	for _, damaged := range []string{"compile version fa", "compile\x00version\n", "\n"} {
		for _, m := range memos() {
			write(t, m, damaged, 0o600)
		}
		n++
		version("damaged memo "+strconv.Quote(damaged), "compile version fake2", n)
		version("replaced memo", "compile version fake2", n)
	}

	// A memo others can write may have been planted: not believed.
	for _, m := range memos() {
		write(t, m, "compile version planted\n", 0o600)
		if err := os.Chmod(m, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	version("memo others can write", "compile version fake2", n+1)
}

// FuzzParseVersionMemo reads anything as a tool's memo: a line accepted is
// printable text with no newline, and is read back the same from the memo
// that toolVersion writes of it.
func FuzzParseVersionMemo(f *testing.F) {
	f.Add([]byte("compile version go1.26.8\n"))
	f.Add([]byte("compile version go1.26.8 X:fake\n"))
	f.Add([]byte("compile version go1.26.8"))
	f.Add([]byte("two\nlines\n"))
	f.Add([]byte("bell\a\n"))
	f.Add([]byte("\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		line, ok := parseVersionMemo(data)
		if !ok {
			return
		}
		if line == "" || len(line) > 4096 || strings.ContainsFunc(line, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Fatalf("accepted %q", line)
		}
		if again, ok := parseVersionMemo([]byte(line + "\n")); !ok || again != line {
			t.Fatalf("the memo of %q read back as %q, %v", line, again, ok)
		}
	})
}
