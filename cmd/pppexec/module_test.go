package main_test

import (
	"os/exec"
	"regexp"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/report"
)

// TestOracleModule runs the tests of a module from the module proxy with it
// instrumented, and checks the counters against the oracle. It skips when
// the proxy cannot be reached.
func TestOracleModule(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	const mod = "github.com/google/uuid@v1.6.0"
	out, code := run(t, t.TempDir(), nil, "go", "mod", "download", "-json", mod)
	if code != 0 {
		t.Skipf("cannot download %s (offline?): %s", mod, out)
	}
	m := regexp.MustCompile(`"Dir": "([^"]+)"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("go mod download: no Dir in %s", out)
	}
	// The module cache is read-only: test a copy, as the main module.
	dir := t.TempDir()
	if out, err := exec.Command("cp", "-r", m[1]+"/.", dir).CombinedOutput(); err != nil {
		t.Fatalf("copying %s: %v\n%s", mod, err, out)
	}
	exec.Command("chmod", "-R", "u+w", dir).Run()
	prof := t.TempDir()
	// TestVersion6 fails now and then with or without pppexec: version 6
	// times are not monotonic (google/uuid issue 199).
	out, code = run(t, dir, []string{"PATHCOVERDIR=" + prof, "GOFLAGS=-mod=mod"}, "go", "test", "-count=1", "-skip=^TestVersion6$", "-toolexec="+bin+" -trace -atomic", ".")
	if code != 0 {
		t.Fatalf("go test %s: exit %d\n%s", mod, code, out)
	}
	p := cmdtest.LoadProfile(t, prof)
	res := cmdtest.CheckOracle(t, prof, p)
	r, _ := report.Build(p, nil)
	t.Logf("%s: %d calls agree (%d cut short); paths %d of %d", mod, res.Calls, res.Incomplete, r.Paths.Covered, r.Paths.Total)
}
