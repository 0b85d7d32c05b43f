package main_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/oracle/nesting"
	"github.com/pathcover/pathcover/profile"
)

// nestingModule writes the nested-constructs program: module
// example.com/nesting, whose package nesting is generated (see package
// internal/oracle/nesting) beside the examples of testdata/nesting.
func nestingModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmdtest.WriteFiles(t, dir, map[string]string{
		"go.mod":               "module example.com/nesting\n\ngo 1.25\n",
		"main.go":              cmdtest.ReadFile(t, "../../testdata/nesting/main.go"),
		"nesting/examples.go":  cmdtest.ReadFile(t, "../../testdata/nesting/examples.go"),
		"nesting/generated.go": string(nesting.Program()),
	})
	return dir
}

// nestingPkgs is the package that TestOracleNesting instruments.
const nestingPkgs = "-pkgs=example.com/nesting/nesting"

// TestOracleNesting builds the nested-constructs program (every construct
// that can end a block, at the end of every block of every other; see
// package internal/oracle/nesting) in each counter mode: Ball-Larus arrays;
// atomic updates, with hash tables for functions of more than 8 paths; and
// a PPP build whose tested paths are those of a smaller run of the first,
// with PPP arrays and hash tables. Its counts must equal the paths
// regenerated from its trace, every function must have run, and every mode
// must compute what the others do.
func TestOracleNesting(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	mod := nestingModule(t)
	tested := t.TempDir()
	output := ""
	for _, mode := range []struct {
		name  string
		flags string
		kinds []profile.CounterKind // some function must have each
	}{
		{"array", "", []profile.CounterKind{profile.CounterArray}},
		{"atomic-hash", "-atomic -arraylimit=8 -hashslots=64", []profile.CounterKind{profile.CounterArray, profile.CounterHash}},
		{"ppp", "-pppalways -pppslots=8 -ppplarge=hash -interesting=" + tested, []profile.CounterKind{profile.CounterArray, profile.CounterNone, profile.CounterPPP, profile.CounterPPPHash}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			if mode.name == "ppp" && output == "" {
				t.Skip("no tested run: the array build failed")
			}
			exe := filepath.Join(t.TempDir(), "nesting")
			toolexec := fmt.Sprintf("%s -strict -trace %s %s", bin, nestingPkgs, mode.flags)
			if out, code := run(t, mod, nil, "go", "build", "-toolexec="+toolexec, "-o", exe, "."); code != 0 {
				t.Fatalf("go build: exit %d\n%s", code, out)
			}
			prof := t.TempDir()
			out, code := run(t, mod, []string{"PATHCOVERDIR=" + prof}, exe)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			switch output {
			case "":
				// The tested run of the PPP build.
				if out, code := run(t, mod, []string{"PATHCOVERDIR=" + tested, "NESTING_TESTED=1"}, exe); code != 0 {
					t.Fatalf("tested run: exit %d\n%s", code, out)
				}
				output = out
			case out:
			default:
				t.Errorf("the program printed %q, in the array build %q", out, output)
			}
			p := cmdtest.LoadProfile(t, prof)
			res := cmdtest.CheckOracle(t, prof, p)
			if res.Incomplete != 0 {
				t.Errorf("%d calls did not finish", res.Incomplete)
			}
			funcs, paths := 0, 0
			kinds := map[profile.CounterKind]int{}
			var idle []string
			for hash, m := range p.Metas {
				for fn, f := range m.Funcs {
					funcs++
					kinds[f.Counters.Kind]++
					paths += len(p.Counts[hash][fn])
					if len(p.Counts[hash][fn]) == 0 {
						idle = append(idle, f.Name)
					}
				}
			}
			if len(idle) > 0 {
				t.Errorf("functions that never ran: %v", idle)
			}
			if want := len(nesting.Funcs()); funcs < want {
				t.Errorf("%d functions instrumented, the program has %d nestings", funcs, want)
			}
			for _, k := range mode.kinds {
				if kinds[k] == 0 {
					t.Errorf("no function has %s counters: %v", k, kinds)
				}
			}
			t.Logf("%d functions, %d calls, %d distinct paths agree; counters %v", funcs, res.Calls, paths, kinds)
		})
	}
}
