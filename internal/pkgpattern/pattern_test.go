package pkgpattern

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"a/b", "a/b", true},
		{"a/b", "a/bc", false},
		{"a/...", "a", true},
		{"a/...", "a/b/c", true},
		{"a/...", "ab", false},
		{"...", "anything/at/all", true},
		{"a/.../c", "a/b/c", true},
		{"a/.../c", "a/b/d", false},
		{"net/...", "net/http", true},
		{"x...y", "xy", true},
		{"x...y", "x", false},
	} {
		if got := Match(tc.pattern, tc.path); got != tc.want {
			t.Errorf("Match(%q, %q) = %v; want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

// TestResolve resolves patterns as users type them, in this repository's
// own module, and checks them against what go list says independently.
func TestResolve(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/pathcover/pathcover"
	for _, tc := range []struct {
		dir      string
		patterns []string
		match    []string
		nomatch  []string
	}{
		{"", []string{"./..."}, []string{mod + "/rt", mod + "/example/expr", mod + "/profile [" + mod + "/profile.test]", mod + "/rt_test"}, []string{"strconv", "github.com/other/rt", mod + "x/rt"}},
		{"rt", []string{"."}, []string{mod + "/rt", mod + "/rt_test [" + mod + "/rt.test]"}, []string{mod + "/profile", mod + "/rt/sub"}},
		{"rt", []string{"../profile", "../example/..."}, []string{mod + "/profile", mod + "/example/expr", mod + "/example/cmd/calc"}, []string{mod + "/rt"}},
		{"", []string{mod + "/rt"}, []string{mod + "/rt"}, []string{mod + "/profile"}},
		{"", []string{"std"}, []string{"strconv", "net/http"}, []string{mod + "/rt", "example.com/strconv"}},
		{"", []string{"all"}, []string{"strconv", mod + "/rt", "anything"}, nil},
		{"", nil, []string{"strconv", "anything"}, nil},
	} {
		s, err := Resolve(filepath.Join(root, tc.dir), tc.patterns)
		if err != nil {
			t.Errorf("Resolve(%s, %q): %v", tc.dir, tc.patterns, err)
			continue
		}
		for _, p := range tc.match {
			if !s.Match(p) {
				t.Errorf("in %s, %q does not match %s", tc.dir, tc.patterns, p)
			}
		}
		for _, p := range tc.nomatch {
			if s.Match(p) {
				t.Errorf("in %s, %q matches %s", tc.dir, tc.patterns, p)
			}
		}
	}

	// Every package go list finds under ./... matches, and nothing else
	// does among this module's packages and a few others.
	out, err := exec.Command("go", "list", "-C", root, "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(root, []string{"./numbering/..."})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if want := p == mod+"/numbering"; s.Match(p) != want {
			t.Errorf("./numbering/... matches %s: %v, want %v", p, !want, want)
		}
	}

	// Patterns that name nothing say so.
	s, err = Resolve(root, []string{"./...", "example.com/none/...", "./rt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Unmatched([]string{mod + "/profile", mod + "/profile [" + mod + "/profile.test]"}); !slices.Equal(got, []string{"example.com/none/...", "./rt"}) {
		t.Errorf("Unmatched = %q", got)
	}
	if _, err := Resolve(root, []string{"./no/such/dir"}); err == nil || !strings.Contains(err.Error(), "./no/such/dir") {
		t.Errorf("Resolve of a missing directory: %v", err)
	}
	if _, err := Resolve(t.TempDir(), []string{"./..."}); err == nil {
		t.Errorf("Resolve of ./... outside any module: no error")
	}
}
