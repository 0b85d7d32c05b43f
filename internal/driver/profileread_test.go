package driver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/driver"
	"github.com/pathcover/pathcover/profile"
)

// versionLine is pppexec's answer to the go command's -V=full for compile
// with flags: the line whose build ID keys the go build cache.
func versionLine(t *testing.T, bin string, flags ...string) string {
	t.Helper()
	compile := filepath.Join(goEnv(t, "GOTOOLDIR"), "compile")
	out, err := exec.Command(bin, append(flags, compile, "-V=full")...).Output()
	if err != nil {
		t.Fatalf("pppexec %v compile -V=full: %v", flags, err)
	}
	return strings.TrimSpace(string(out))
}

// TestUnreadableProfileFile: a zero-length counter file in the tests'
// profile (a test killed at start leaves one) used to make a PPP build
// instrument nothing, with exit status 0. It is skipped with one warning
// naming it, as the reports skip it, and the build is a PPP build that
// records the untested paths; with -strict the build fails. The same for
// an interprocedural build's -ippp profile.
func TestUnreadableProfileFile(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	mod := cacheModule(t)
	// The tests ran Sign(3) only.
	_, _, tests := buildAndRun(t, bin, mod, nil, "", "3")
	killed := filepath.Join(tests, "zz-killed.counts")
	if err := os.WriteFile(killed, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	flags := "-interesting=" + tests + " -ippp=" + tests
	out, _, field := buildAndRun(t, bin, mod, nil, flags, "-3", "0", "3")
	// (The go command shortens the paths in what tools print.)
	for _, flag := range []string{"-interesting", "-ippp"} {
		said := regexp.MustCompile(`pppexec: `+flag+`: skipping \S*/zz-killed.counts: `).FindAllString(out, -1)
		if len(said) != 1 || strings.Count(out, "zz-killed.counts") != 2 {
			t.Errorf("the build should name zz-killed.counts once for %s:\n%s", flag, out)
		}
	}
	p := loadProfile(t, field)
	residual, interesting := 0, 0
	for hash, m := range p.Metas {
		if m.Package != "example.com/m/p" {
			continue
		}
		if m.Mode != profile.ModePPP {
			t.Fatalf("package p was built in mode %q, not as a PPP build", m.Mode)
		}
		for fn, f := range m.Funcs {
			if f.Name != "Sign" {
				continue
			}
			for id, n := range p.Counts[hash][fn] {
				switch {
				case n == 0:
				case f.IsInteresting(id):
					interesting++
				default:
					residual++
				}
			}
		}
	}
	if interesting != 1 || residual != 2 {
		t.Errorf("Sign ran %d tested and %d untested paths in the field; want 1 and 2", interesting, residual)
	}

	// Package p alone, which imports nothing: the rest would be compiled
	// for nothing.
	for _, flag := range []string{"-interesting=", "-ippp="} {
		out, code := run(t, mod, nil, "go", "build", "-toolexec="+bin+" -strict "+flag+tests, "./p")
		if code == 0 || !strings.Contains(out, filepath.Base(killed)) {
			t.Errorf("go build with -strict %s: exit %d; want a failure naming %s:\n%s", flag, code, killed, out)
		}
	}
}

// TestUnreadableProfileBuildID: the build ID identifies what a profile
// says, files that could not be read included, so that the go build cache
// never replays a warning about another profile's files.
func TestUnreadableProfileBuildID(t *testing.T) {
	bin := pppexec(t)
	mod := cacheModule(t)
	_, _, tests := buildAndRun(t, bin, mod, nil, "", "3")
	// The same readable content, and another file that cannot be read.
	a, b := driver.CopyProfile(t, tests), driver.CopyProfile(t, tests)
	os.WriteFile(filepath.Join(a, "a.counts"), nil, 0o644)
	os.WriteFile(filepath.Join(b, "b.counts"), nil, 0o644)
	// Nothing readable at all.
	c, d := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(c, "c.counts"), nil, 0o644)
	os.WriteFile(filepath.Join(d, "d.meta"), []byte("{"), 0o644)
	for _, flag := range []string{"-interesting=", "-ippp="} {
		ids := map[string]string{}
		for _, dir := range []string{tests, a, b, c, d} {
			line := versionLine(t, bin, flag+dir)
			if other, ok := ids[line]; ok {
				t.Errorf("%s%s and %s%s have the same build ID:\n%s", flag, other, flag, dir, line)
			}
			ids[line] = dir
		}
	}
}
