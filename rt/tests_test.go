package rt_test

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/pathcover/pathcover/profile"
	"github.com/pathcover/pathcover/rt"
)

// attributionScript is what the "tests" helper does: the events that the
// patched testing package would call, and counts, each with the tests that
// run it as package testing runs tests (written by hand, not derived from
// rt's rule): the test's own name for a test running alone.
var attributionScript = []struct {
	event, name, parent string
	path                int // for "count"
	times               int
	ranBy               string // tests running, joined with " | "; "" outside
}{
	{event: "count", path: 0, times: 1, ranBy: ""}, // init
	{event: "package", name: "example.com/p"},
	{event: "start", name: "TestA"},
	{event: "count", path: 0, times: 2, ranBy: "TestA"},
	{event: "start", name: "TestA/seq", parent: "TestA"},
	{event: "count", path: 1, times: 1, ranBy: "TestA/seq"},
	{event: "end", name: "TestA/seq"},
	{event: "count", path: 2, times: 1, ranBy: "TestA"},
	{event: "start", name: "TestA/par1", parent: "TestA"},
	{event: "count", path: 0, times: 1, ranBy: "TestA/par1"}, // before t.Parallel
	{event: "parallel", name: "TestA/par1"},
	{event: "count", path: 1, times: 3, ranBy: "TestA"}, // t.Run returned
	{event: "start", name: "TestA/par2", parent: "TestA"},
	{event: "parallel", name: "TestA/par2"},
	{event: "wait", name: "TestA"}, // TestA's function returned
	{event: "resume", name: "TestA/par1"},
	{event: "resume", name: "TestA/par2"},
	{event: "count", path: 2, times: 4, ranBy: "TestA/par1 | TestA/par2"},
	{event: "end", name: "TestA/par1"},
	{event: "count", path: 2, times: 1, ranBy: "TestA/par2"},
	{event: "end", name: "TestA/par2"},
	{event: "resume", name: "TestA"},
	{event: "count", path: 1, times: 1, ranBy: "TestA"}, // its cleanups
	{event: "end", name: "TestA"},
	{event: "count", path: 0, times: 5, ranBy: ""}, // between tests
	{event: "start", name: "TestB"},
	{event: "count", path: 1, times: 7, ranBy: "TestB"},
	{event: "end", name: "TestB"}, // not run by a process killed in TestB
	{event: "count", path: 2, times: 2, ranBy: ""},
}

func init() {
	helpers["tests"] = func() {
		c, _ := rt.Register(os.Getenv("RT_HASH"), os.Getenv("RT_META"), 3, nil, 1, "")
		kill := os.Getenv("RT_KILL_IN") != ""
		for _, s := range attributionScript {
			switch s.event {
			case "count":
				for range s.times {
					c[s.path]++
				}
			case "package":
				rt.TestPackage(s.name)
			case "start":
				rt.TestStart(s.name, s.parent)
			case "parallel":
				rt.TestParallel(s.name)
			case "wait":
				rt.TestWait(s.name)
			case "resume":
				rt.TestResume(s.name)
			case "end":
				if kill && s.name == os.Getenv("RT_KILL_IN") {
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
					select {}
				}
				rt.TestEnd(s.name)
			}
		}
	}
}

// TestAttribution runs the script in a process that ends normally, and in
// one killed in TestB: the profile's attribution of each path must be the
// script's, and add up to the path's count.
func TestAttribution(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("counter files need a Unix system")
	}
	hash, meta := testMeta(t)
	for _, killIn := range []string{"", "TestB"} {
		t.Run("kill="+killIn, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "RT_HELPER=tests", "RT_KILL_IN="+killIn, "RT_HASH="+hash, "RT_META="+meta, "PATHCOVERDIR="+dir)
			out, err := cmd.CombinedOutput()
			if killIn == "" && err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			want := make(map[string]uint64) // "group@path" → runs
			for _, s := range attributionScript {
				if s.event == "end" && s.name == killIn {
					break
				}
				if s.event == "count" {
					want[fmt.Sprintf("%s@%d", s.ranBy, s.path)] += uint64(s.times)
				}
			}
			p := profile.New()
			problems, err := p.ReadDir(dir)
			if err != nil || len(problems) > 0 {
				t.Fatalf("ReadDir: %v %v", problems, err)
			}
			if p.Tests == nil {
				t.Fatal("no attribution read")
			}
			got := make(map[string]uint64)
			total := make(map[uint64]uint64)
			for id, byGroup := range p.Tests.Runs[hash][0] {
				for g, n := range byGroup {
					grp := p.Tests.Groups[g]
					if grp.Package != "example.com/p" {
						t.Errorf("group %v of package %q", grp.Tests, grp.Package)
					}
					got[fmt.Sprintf("%s@%d", strings.Join(grp.Tests, " | "), id)] += n
					total[id] += n
				}
			}
			if !maps.Equal(got, want) {
				t.Errorf("attribution:\n got %v\nwant %v", got, want)
			}
			if !maps.Equal(total, p.Counts[hash][0]) {
				t.Errorf("attributed runs %v, counted %v", total, p.Counts[hash][0])
			}
			for _, g := range p.Tests.Groups {
				if par := strings.Contains(strings.Join(g.Tests, " "), "par"); g.Parallel != par {
					t.Errorf("group %v: Parallel %v", g.Tests, g.Parallel)
				}
			}
			if files, _ := filepath.Glob(filepath.Join(dir, "*.tests")); len(files) != 1 {
				t.Errorf("tests files %v, want one", files)
			}
		})
	}
}
