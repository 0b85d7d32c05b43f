package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exitNoData is the status of the commands that read profiles when there is
// nothing to report on (cmd/pathcover's exitNoData).
const exitNoData = 3

// TestPackagePatterns profiles a module of two packages and reads the
// profile back with the package patterns users type, from the module's
// root and from a package's directory: each selects what go list would.
func TestPackagePatterns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	dir := module(t, map[string]string{
		"m.go":          "package m\n\nfunc Top(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n",
		"m_test.go":     "package m\n\nimport \"testing\"\n\nfunc TestTop(t *testing.T) { Top(1) }\n",
		"sub/s.go":      "package sub\n\nfunc Sub(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n",
		"sub/s_test.go": "package sub\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) { Sub(1); Sub(0) }\n",
		// A package without tests: go test profiles nothing of it.
		"untested/u.go": "package untested\n\nfunc U() int { return 1 }\n",
	})
	// A relative -dir is the module root's, not each test's package
	// directory's (go test runs each test there).
	if out, code := run(t, dir, bin, "test", "-dir", "prof", "./..."); code != 0 {
		t.Fatalf("pathcover test: exit %d\n%s", code, out)
	}
	prof := filepath.Join(dir, "prof")
	if _, err := os.Stat(filepath.Join(dir, "sub", "prof")); err == nil {
		t.Errorf("pathcover test -dir prof wrote into sub/prof")
	}
	checkPatterns(t, dir, prof)

	// The gate judges what ./... names (Top ran one of its two paths) and
	// fails; html draws it.
	if out, code := run(t, dir, bin, "gate", "-dir", prof, "-min", "100", "./..."); code != 1 || !strings.Contains(out, "Top: 1 of 2 paths untested") || strings.Contains(out, "Sub:") {
		t.Errorf("gate -min 100 ./...: exit %d\n%s", code, out)
	}
	page := filepath.Join(t.TempDir(), "page.html")
	if out, code := run(t, dir, bin, "html", "-dir", prof, "-o", page, "./..."); code != 0 {
		t.Errorf("html ./...: exit %d\n%s", code, out)
	} else if data, _ := os.ReadFile(page); !strings.Contains(pageText(t, data), ">Top<") || !strings.Contains(pageText(t, data), ">Sub<") {
		t.Errorf("html ./... lacks Top or Sub")
	}

	// Patterns that name no profiled package are errors, for every command.
	for _, args := range [][]string{
		{"report", "./untested"},
		{"report", "example.com/other/..."},
		{"gate", "-min", "0", "./untested"},
		{"html", "-o", page, "./untested"},
		{"residual", "./untested"},
		{"stats", "./untested"},
		{"callsites", "./untested"},
	} {
		out, code := run(t, dir, bin, append([]string{args[0], "-dir", prof}, args[1:]...)...)
		if code != exitNoData || !strings.Contains(out, "match no package of the profile") {
			t.Errorf("%q: exit %d\n%s", args, code, out)
		}
	}
	if out, code := run(t, dir, bin, "report", "-dir", prof, "./no/such/dir"); code != 2 || !strings.Contains(out, "./no/such/dir") {
		t.Errorf("report of a missing directory's pattern: exit %d\n%s", code, out)
	}

	checkBrokenProfiles(t, dir, prof)
}

// checkPatterns reads the profile of TestPackagePatterns with patterns
// from the module's root and from a package's directory.
func checkPatterns(t *testing.T, dir, prof string) {
	sub := filepath.Join(dir, "sub")
	top, subFn := "m.go:3 Top", "s.go:3 Sub"
	for _, tc := range []struct {
		dir      string
		patterns []string
		want     []string // functions listed
		not      []string
	}{
		{dir, []string{"./..."}, []string{top, subFn}, nil},
		{dir, []string{"."}, []string{top}, []string{subFn}},
		{dir, []string{"./sub"}, []string{subFn}, []string{top}},
		{dir, []string{"all"}, []string{top, subFn}, nil},
		{dir, []string{"example.com/m/..."}, []string{top, subFn}, nil},
		{dir, []string{"example.com/m"}, []string{top}, []string{subFn}},
		{sub, []string{"."}, []string{subFn}, []string{top}},
		{sub, []string{".."}, []string{top}, []string{subFn}},
		{sub, []string{"../..."}, []string{top, subFn}, nil},
	} {
		out, code := run(t, tc.dir, bin, append([]string{"report", "-dir", prof}, tc.patterns...)...)
		if code != 0 {
			t.Errorf("in %s, report %q: exit %d\n%s", tc.dir, tc.patterns, code, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("in %s, report %q lacks %s:\n%s", tc.dir, tc.patterns, w, out)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(out, w) {
				t.Errorf("in %s, report %q has %s:\n%s", tc.dir, tc.patterns, w, out)
			}
		}
	}

}

// checkBrokenProfiles damages copies of a profile: the report goes on
// without what cannot be read, the gate refuses to judge.
func checkBrokenProfiles(t *testing.T, dir, prof string) {
	// One metadata file that cannot be read leaves its functions out: the
	// report goes on without them, the gate refuses to judge.
	metas, _ := filepath.Glob(filepath.Join(prof, "*.meta"))
	counts, _ := filepath.Glob(filepath.Join(prof, "*.counts"))
	if len(metas) < 2 || len(counts) < 2 {
		t.Fatalf("profile has %d metadata and %d counter files", len(metas), len(counts))
	}
	broken := copyDir(t, prof)
	if err := os.WriteFile(filepath.Join(broken, filepath.Base(metas[0])), []byte("{}"), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, dir, bin, "report", "-dir", broken); code != 0 || !strings.Contains(out, "skipping") {
		t.Errorf("report with a corrupt metadata file: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "gate", "-dir", broken, "-min", "0"); code != exitNoData || !strings.Contains(out, "cannot judge") {
		t.Errorf("gate with a corrupt metadata file: exit %d\n%s", code, out)
	}
	// Counts whose metadata is gone: the same.
	if err := os.Remove(filepath.Join(broken, filepath.Base(metas[0]))); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, dir, bin, "gate", "-dir", broken, "-min", "0"); code != exitNoData || !strings.Contains(out, "no metadata") {
		t.Errorf("gate with counts but no metadata: exit %d\n%s", code, out)
	}
	// Metadata without counts: nothing ran.
	nocounts := copyDir(t, prof)
	for _, c := range counts {
		os.Remove(filepath.Join(nocounts, filepath.Base(c)))
	}
	for _, args := range [][]string{{"report"}, {"gate", "-min", "0"}} {
		if out, code := run(t, dir, bin, append(args, "-dir", nocounts)...); code != exitNoData || !strings.Contains(out, "holds no counts") {
			t.Errorf("%s of metadata without counts: exit %d\n%s", args[0], code, out)
		}
	}
}

// copyDir copies the files of a profile directory into a new one.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// TestNothingToJudge: a gate or report on a profile with nothing in it,
// with only unreadable files, or without counts, fails with its own status
// instead of passing or printing "0/0 100.0%".
func TestNothingToJudge(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	corrupt := filepath.Join(dir, "corrupt")
	for _, d := range []string{empty, corrupt} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		"0123456789abcdef0123456789abcdef.meta": "{not json",
		"fedcba9876543210fedcba9876543210.meta": "",
		"pathcover.1.0.counts":                  "",
		"pathcover.2.0.counts":                  "garbage",
	} {
		if err := os.WriteFile(filepath.Join(corrupt, name), []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	text := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(text, []byte("pathcover-profile 1\nprocesses 0\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what, source, want string
	}{
		{"an empty directory", empty, "holds no profile"},
		{"corrupt files only", corrupt, "holds no profile"},
		{"an empty text profile", text, "holds no profile"},
		{"a missing directory", filepath.Join(dir, "none"), "no such file"},
	} {
		for _, args := range [][]string{
			{"gate", "-min", "50"},
			{"gate", "-min", "0"},
			{"report"},
			{"html", "-o", filepath.Join(dir, "page.html")},
			{"residual"},
			{"stats"},
			{"merge", tc.source},
		} {
			if args[0] != "merge" {
				args = append(args, "-dir", tc.source)
			}
			out, code := run(t, dir, bin, args...)
			if code != exitNoData || !strings.Contains(out, tc.want) || strings.Contains(out, "100.0%") || strings.Contains(out, "all 0 functions") {
				t.Errorf("%s on %s: exit %d\n%s", args[0], tc.what, code, out)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "page.html")); err == nil {
		t.Errorf("html wrote a page of nothing")
	}
}
