package cmdtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pathcover/pathcover/internal/oracle"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/profile"
)

var (
	pppexecOnce sync.Once
	pppexecBin  string
	pppexecErr  error
)

// PPPExec builds pppexec from the package in dir (a path such as
// "../cmd/pppexec") once per test binary, and returns the program. It skips
// the test in -short mode: what uses it builds and runs programs.
func PPPExec(t testing.TB, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs programs under pppexec")
	}
	pppexecOnce.Do(func() {
		tmp, err := os.MkdirTemp("", "pppexec-test")
		if err != nil {
			pppexecErr = err
			return
		}
		pppexecBin = filepath.Join(tmp, "pppexec")
		out, err := exec.Command("go", "build", "-o", pppexecBin, dir).CombinedOutput()
		if err != nil {
			pppexecErr = fmt.Errorf("building pppexec: %v\n%s", err, out)
		}
	})
	if pppexecErr != nil {
		t.Fatal(pppexecErr)
	}
	return pppexecBin
}

// RunTests runs a test binary's tests that use PPPExec (call it from
// TestMain: os.Exit(cmdtest.RunTests(m))) and then removes the pppexec
// that PPPExec built, so that no run leaves a copy of it in the temporary
// directory (each run of every package that builds one left 12 MB).
func RunTests(m *testing.M) int {
	code := m.Run()
	if pppexecBin != "" {
		os.RemoveAll(filepath.Dir(pppexecBin))
	}
	return code
}

// WriteFiles writes files (name → content) under dir.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// ReadFile returns a file's content.
func ReadFile(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// LoadProfile reads a profile directory, failing on any bad file or an
// empty profile, and on a path that ran although its build proved it
// infeasible (the soundness oracle of package internal/static/infeasible: every
// profile that a test loads so is checked).
func LoadProfile(t testing.TB, dir string) *profile.Profile {
	t.Helper()
	p := profile.New()
	problems, err := p.ReadDir(dir)
	if err != nil || len(problems) > 0 {
		t.Fatalf("reading the profile: %v %v", problems, err)
	}
	if len(p.Metas) == 0 || p.Processes == 0 {
		t.Fatalf("empty profile in %s: %d packages, %d processes", dir, len(p.Metas), p.Processes)
	}
	CheckProofs(t, p)
	return p
}

// OnlyCounterFile reads the one counter file of profile directory dir,
// failing the test if there is not exactly one or it cannot be read.
func OnlyCounterFile(t testing.TB, dir string) *profile.CountFile {
	t.Helper()
	files, _ := profile.Need(dir, profile.KindCounts, "")
	if len(files) != 1 {
		t.Fatalf("counter files %v, want 1", files)
	}
	cf, err := profile.ReadCounts(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return cf
}

// CheckProofs fails the test if a path of p ran that its build proved
// infeasible, and returns the report it built to tell.
func CheckProofs(t testing.TB, p *profile.Profile) *report.Report {
	t.Helper()
	r, errs := report.Build(p, nil)
	for _, err := range errs {
		if pe, ok := err.(*report.ProofError); ok {
			t.Errorf("%v", pe)
		}
	}
	return r
}

// CheckOracle regenerates the paths of every call from the traces in dir
// and requires the counters' histogram to equal it.
func CheckOracle(t testing.TB, dir string, p *profile.Profile) *oracle.Result {
	t.Helper()
	traces, _ := filepath.Glob(filepath.Join(dir, "*.trace"))
	if len(traces) == 0 {
		t.Fatalf("no trace files in %s", dir)
	}
	var calls []*profile.Call
	for _, name := range traces {
		c, err := profile.ReadTrace(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		calls = append(calls, c...)
	}
	res, err := oracle.Paths(p, calls)
	if err != nil {
		t.Fatal(err)
	}
	if diffs := oracle.Compare(p, res.Counts); len(diffs) > 0 {
		if len(diffs) > 20 {
			diffs = append(diffs[:20], fmt.Sprintf("and %d more", len(diffs)-20))
		}
		t.Fatalf("the counters and the oracle disagree:\n\t%s", strings.Join(diffs, "\n\t"))
	}
	return res
}
