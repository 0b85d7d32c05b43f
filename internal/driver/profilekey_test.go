package driver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/driver"
	"github.com/pathcover/pathcover/profile"
)

// TestProfileKeyBuild: with -profilekey=gcflags and the flags that
// -printgcflags prints, a PPP build after a new tests' profile has the go
// command compile only the instrumented packages again (the standard
// library comes from its cache), and builds what a build with the profile
// in the build ID builds: the same metadata, the new profile's paths
// interesting. A go command that does not pass the key, or passes a stale
// one, fails the build.
func TestProfileKeyBuild(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	mod := cacheModule(t)
	// Two tests' profiles: Sign(3) ran, or Sign(-3).
	_, _, pos := buildAndRun(t, bin, mod, nil, "", "3")
	_, _, neg := buildAndRun(t, bin, mod, nil, "", "-3")

	gcflags := func(tests string) []string {
		t.Helper()
		cmd := exec.Command(bin, "-interesting="+tests, "-printgcflags")
		cmd.Dir = mod // the main module is the one it is run in
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("pppexec -printgcflags: %v", err)
		}
		flags := strings.Fields(string(out))
		if len(flags) != 1 || !regexp.MustCompile(`^-gcflags=example\.com/m/\.\.\.=-pathcover\.profiles=[0-9a-f]{32}$`).MatchString(flags[0]) {
			t.Fatalf("pppexec -printgcflags printed %q", out)
		}
		return flags
	}
	exe := filepath.Join(t.TempDir(), "m")
	// build makes a PPP build over tests, keyed as mode says, with the
	// -gcflags given, and returns the packages whose compiles ran.
	build := func(tests, mode string, flags []string) []string {
		t.Helper()
		args := append([]string{"build", "-x", "-toolexec=" + bin + " -interesting=" + tests + " -profilekey=" + mode}, flags...)
		out, code := run(t, mod, nil, "go", append(args, "-o", exe, ".")...)
		if code != 0 {
			t.Fatalf("go %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		var compiled []string
		for _, m := range regexp.MustCompile(`(?m)/compile -o .* -p (\S+) `).FindAllStringSubmatch(out, -1) {
			compiled = append(compiled, m[1])
		}
		slices.Sort(compiled)
		return compiled
	}
	// field runs the program and returns the metadata of package p, and
	// the interesting paths of Sign that ran.
	field := func() (metas []string, tested []uint64) {
		t.Helper()
		prof := t.TempDir()
		if out, code := run(t, mod, []string{"PATHCOVERDIR=" + prof, "SIGNS=-3 0 3"}, exe); code != 0 {
			t.Fatalf("program: exit %d\n%s", code, out)
		}
		p := loadProfile(t, prof)
		for hash, m := range p.Metas {
			if m.Package != "example.com/m/p" {
				continue
			}
			if m.Mode != profile.ModePPP {
				t.Fatalf("package p was built in mode %q, not as a PPP build", m.Mode)
			}
			metas = append(metas, hash)
			for fn, f := range m.Funcs {
				for id, n := range p.Counts[hash][fn] {
					if f.Name == "Sign" && n > 0 && f.IsInteresting(id) {
						tested = append(tested, id)
					}
				}
			}
		}
		return metas, tested
	}

	build(pos, "gcflags", gcflags(pos))
	posMetas, posTested := field()
	if got := build(neg, "gcflags", gcflags(neg)); !slices.Equal(got, []string{"example.com/m/p", "main"}) {
		t.Errorf("a build after a new profile compiled %q; want only the instrumented package p and main", got)
	}
	negMetas, negTested := field()
	if len(posTested) != 1 || len(negTested) != 1 || posTested[0] == negTested[0] {
		t.Errorf("Sign's interesting paths that ran: %v over the first profile, %v over the second; want one each, another one", posTested, negTested)
	}
	if slices.Equal(posMetas, negMetas) {
		t.Errorf("the two profiles gave the same metadata %v", posMetas)
	}
	// The oracle: the same build with the profile in the build ID.
	// (Its build ID covers the profile's content, which earlier runs of
	// this test had too, and the files it skips by name: one more makes
	// the ID this run's own.)
	negAgain := driver.CopyProfile(t, neg)
	if err := os.WriteFile(filepath.Join(negAgain, "zz-killed.counts"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := build(negAgain, "buildid", nil); !slices.Contains(got, "syscall") {
		t.Errorf("with the profile in the build ID, the build compiled %q; want the standard library again (syscall)", got)
	}
	if metas, tested := field(); !slices.Equal(metas, negMetas) || !slices.Equal(tested, negTested) {
		t.Errorf("-profilekey=buildid built metadata %v (paths %v), -profilekey=gcflags %v (paths %v)", metas, tested, negMetas, negTested)
	}

	// No key, the other profile's (flags printed before the tests ran
	// again: the go command would find the first build's objects under
	// them), or the key for other packages: refused, whatever -strict
	// says.
	key := strings.SplitAfter(gcflags(neg)[0], "...=")[1]
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, "the go command gives no package -pathcover.profiles=KEY in its -gcflags"},
		{gcflags(pos), "they changed since the flags were printed"},
		{[]string{"-gcflags=example.com/other/...=" + key}, "the compile of example.com/m/p was not given -pathcover.profiles=KEY by -gcflags"},
	} {
		args := append([]string{"build", "-toolexec=" + bin + " -interesting=" + neg + " -profilekey=gcflags"}, c.flags...)
		out, code := run(t, mod, nil, "go", append(args, "./p")...)
		if code == 0 || !strings.Contains(out, c.want) {
			t.Errorf("go %s: exit %d; want a failure saying %q:\n%s", strings.Join(args, " "), code, c.want, out)
		}
	}
}
