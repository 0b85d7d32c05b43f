package main_test

import (
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/oracle"
	"github.com/pathcover/pathcover/profile"
)

// TestOracleTests checks per-test attribution (pppexec -tests) against the
// tracing oracle: the test program (testdata/tests) prints the goroutine
// each test runs on, and the paths regenerated from the trace of a test's
// goroutines, and of those they started, are the test's. A test that ran
// alone must be attributed exactly its paths; a group of tests that ran
// together, no more than its tests' paths; and each test's paths must be
// attributed to it alone or to a group it is in.
func TestOracleTests(t *testing.T) {
	t.Parallel()
	bin := pppexec(t)
	mod := t.TempDir()
	cmdtest.WriteFiles(t, mod, map[string]string{
		"go.mod":                        "module example.com/oracle\n\ngo 1.25\n",
		"trap/trap.go":                  cmdtest.ReadFile(t, "../../testdata/oracle/trap/trap.go"),
		"constructs/constructs.go":      cmdtest.ReadFile(t, "../../testdata/src/constructs/constructs.go"),
		"constructs/driver.go":          cmdtest.ReadFile(t, "../../testdata/oracle/driver.go"),
		"constructs/constructs_test.go": cmdtest.ReadFile(t, "../../testdata/tests/tests_test.go"),
	})
	exe := filepath.Join(t.TempDir(), "constructs.test")
	if out, code := run(t, mod, nil, "go", "test", "-c", "-o", exe, "-toolexec="+bin+" -trace -tests", "./constructs"); code != 0 {
		t.Fatalf("go test -c: exit %d\n%s", code, out)
	}
	prof := t.TempDir()
	out, code := run(t, filepath.Join(mod, "constructs"), []string{"PATHCOVERDIR=" + prof}, exe, "-test.parallel=2", "-test.count=1")
	if code != 0 {
		t.Fatalf("tests: exit %d\n%s", code, out)
	}
	p := cmdtest.LoadProfile(t, prof)
	if p.Tests == nil {
		t.Fatal("no attribution in the profile")
	}

	// The oracle: each goroutine's test, by the tests' marks, or its
	// creator's; "" for none.
	testOf := make(map[uint64]string)
	for _, m := range regexp.MustCompile(`(?m)^ATTR (\d+) (\S+)$`).FindAllStringSubmatch(out, -1) {
		g, _ := strconv.ParseUint(m[1], 10, 64)
		testOf[g] = m[2]
	}
	traces, _ := filepath.Glob(filepath.Join(prof, "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("%d trace files", len(traces))
	}
	calls, err := profile.ReadTrace(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	parent := make(map[uint64]uint64)
	for _, c := range calls {
		parent[c.Goroutine] = c.Parent
	}
	var owner func(g uint64, depth int) string
	owner = func(g uint64, depth int) string {
		if name, ok := testOf[g]; ok || depth > 100 {
			return name
		}
		if pg, ok := parent[g]; ok && pg != 0 {
			return owner(pg, depth+1)
		}
		return ""
	}
	byTest := make(map[string][]*profile.Call)
	for _, c := range calls {
		byTest[owner(c.Goroutine, 0)] = append(byTest[owner(c.Goroutine, 0)], c)
	}
	want := make(map[string]map[string]uint64) // test → "hash func id" → runs
	for name, cs := range byTest {
		res, err := oracle.Paths(p, cs)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = flatten(res.Counts)
	}

	got := make(map[string]map[string]uint64) // group → "hash func id" → runs
	groupsOf := make(map[string][]string)     // test → the groups it is in
	for hash, byFunc := range p.Tests.Runs {
		for fn, byID := range byFunc {
			for id, byGroup := range byID {
				for g, n := range byGroup {
					key := strings.Join(p.Tests.Groups[g].Tests, " | ")
					if got[key] == nil {
						got[key] = make(map[string]uint64)
					}
					got[key][pathKey(hash, fn, id)] += n
				}
			}
		}
	}
	for key := range got {
		for _, name := range strings.Split(key, " | ") {
			groupsOf[name] = append(groupsOf[name], key)
		}
	}

	for name, paths := range want {
		groups := groupsOf[name]
		if len(groups) == 1 && groups[0] == name {
			// Ran alone: exactly its paths.
			if !maps.Equal(got[name], paths) {
				t.Errorf("test %q ran alone: attributed\n%v\nthe trace says\n%v", name, got[name], paths)
			}
			continue
		}
		t.Logf("test %q is in groups %q", name, groups)
		for path, n := range paths {
			var sum uint64
			for _, g := range groups {
				sum += got[g][path]
			}
			if sum < n {
				t.Errorf("test %q ran path %s %d times; its groups %q were attributed %d", name, path, n, groups, sum)
			}
		}
	}
	for key, paths := range got {
		members := strings.Split(key, " | ")
		for path, n := range paths {
			var sum uint64
			for _, name := range members {
				sum += want[name][path]
			}
			if n > sum {
				t.Errorf("group %q attributed path %s %d times; its tests ran it %d times", key, path, n, sum)
			}
		}
	}
	// The tests that never call t.Parallel run alone (the parallel ones
	// are paused meanwhile): a test blocked in t.Run, paused, or waiting
	// for its parallel subtests must not be taken as running.
	for _, name := range []string{"TestSequential", "TestSubtests", "TestSubtests/1", "TestSubtests/5", "TestSubtests/9", "TestGoroutines", "TestParallelSubtests", "TestSynctest"} {
		if g := groupsOf[name]; len(g) != 1 || g[0] != name {
			t.Errorf("test %q, which ran alone, is in groups %q", name, g)
		}
	}
	// The program's tests are all there, with the names package testing
	// gives them.
	for _, name := range []string{"", "TestSequential", "TestSubtests", "TestSubtests/5", "TestGoroutines", "TestParallelA", "TestParallelB", "TestParallelSubtests", "TestParallelSubtests/3"} {
		if len(want[name]) == 0 {
			t.Errorf("the trace has no paths of %q", name)
		}
		if len(groupsOf[name]) == 0 {
			t.Errorf("no paths attributed to %q", name)
		}
	}
	var parallel []string
	for _, g := range p.Tests.Groups {
		if g.Parallel {
			parallel = append(parallel, g.String())
		}
		if g.Package != "example.com/oracle/constructs" {
			t.Errorf("group %s of package %q", g, g.Package)
		}
	}
	slices.Sort(parallel)
	t.Logf("groups with a parallel test: %q", parallel)
}

func pathKey(hash string, fn int, id uint64) string {
	return hash[:8] + " " + strconv.Itoa(fn) + " " + strconv.FormatUint(id, 10)
}

func flatten(c oracle.Counts) map[string]uint64 {
	out := make(map[string]uint64)
	for hash, byFunc := range c {
		for fn, byID := range byFunc {
			for id, n := range byID {
				out[pathKey(hash, fn, id)] += n
			}
		}
	}
	return out
}
