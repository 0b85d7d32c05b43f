package gitdiff

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	diff := `diff --git a/a.go b/a.go
index 1..2 100644
--- a/a.go
+++ b/a.go
@@ -3 +3 @@ func F() {
-	x := 1
+	x := 2
@@ -10,2 +10,0 @@ func G() {
-	gone()
-	gone()
@@ -20,0 +19,3 @@
+	new()
+	new()
+	new()
diff --git a/old.go b/old.go
deleted file mode 100644
--- a/old.go
+++ /dev/null
@@ -1,3 +0,0 @@
-package p
`
	c, err := Parse("/r", []byte(diff))
	if err != nil {
		t.Fatal(err)
	}
	a := filepath.Join("/r", "a.go")
	for line, want := range map[int]bool{2: false, 3: true, 4: false, 9: false, 10: true, 11: true, 12: false, 18: false, 19: true, 21: true, 22: false} {
		if got := c.Overlaps(a, line, line); got != want {
			t.Errorf("line %d changed: %v, want %v", line, got, want)
		}
	}
	// The revision's lines: 3 replaced, 10 and 11 deleted, and 20 and 21
	// around an insertion.
	for line, want := range map[int]bool{2: false, 3: true, 4: false, 9: false, 10: true, 11: true, 12: false, 19: false, 20: true, 21: true, 22: false} {
		if got := c.OverlapsOld(a, line, line); got != want {
			t.Errorf("old line %d changed: %v, want %v", line, got, want)
		}
	}
	old := filepath.Join("/r", "old.go")
	if len(c) != 2 || c[old] == nil || len(c[old].Ranges) != 0 || !c.OverlapsOld(old, 3, 3) || c.OverlapsOld(old, 4, 9) {
		t.Errorf("files %v; want a.go, and old.go's old lines 1 to 3", c)
	}
	if _, err := Parse("/r", []byte("+++ b/x.go\n@@ -1 +zz @@\n")); err == nil {
		t.Error("a bad hunk header parsed")
	}
}

// TestSince runs git on a repository made for the test.
func TestSince(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	gitRun("init", "-q")
	write("a.go", "package p\n\nfunc F() int {\n\treturn 1\n}\n\nfunc G() int {\n\treturn 2\n}\n")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "one")
	gitRun("tag", "base")
	write("a.go", "package p\n\nfunc F() int {\n\treturn 1\n}\n\nfunc G() int {\n\treturn 3\n}\n")
	gitRun("commit", "-q", "-am", "two")
	write("b.go", "package p\n")   // untracked
	write("notes.txt", "not go\n") // ignored: not Go
	c, err := Since(filepath.Join(dir), "base")
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(dir)
	a, b := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	if c.Overlaps(a, 3, 5) || !c.Overlaps(a, 7, 9) || !c.Overlaps(b, 1, 1) {
		t.Errorf("changes %v: want G and b.go, not F", c)
	}
	if _, err := Since(dir, "nosuchrev"); err == nil || !strings.Contains(err.Error(), "not a revision") {
		t.Errorf("bad revision: %v", err)
	}
}

// FuzzParse parses any diff: no panic, and a hunk's header sizes nothing
// (a count of a billion lines costs what its line costs).
func FuzzParse(f *testing.F) {
	f.Add([]byte("+++ b/a.go\n@@ -3 +3 @@ func F() {\n@@ -10,2 +10,0 @@\n@@ -20,0 +19,3 @@\n+++ /dev/null\n"))
	f.Add([]byte("+++ \"b/sp ace.go\"\n@@ -1 +1,999999999 @@\n"))
	f.Fuzz(func(t *testing.T, diff []byte) {
		c, err := Parse("/r", diff)
		if err != nil {
			return
		}
		hunks := bytes.Count(diff, []byte("\n@@ ")) + 1
		for name, file := range c {
			if len(file.Ranges) > hunks {
				t.Fatalf("%d ranges from %d hunks", len(file.Ranges), hunks)
			}
			for _, r := range file.Ranges {
				if r.First > r.Last || !c.Overlaps(name, r.First, r.First) {
					t.Fatalf("range %+v", r)
				}
			}
		}
	})
}
