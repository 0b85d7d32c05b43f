package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// correlatedModule's Sum tests related conditions: an empty xs cannot then
// be non-empty, and after a round of its loop, xs cannot be empty. Its 8
// paths (from the entry: an element, the round ends, twice, by the if's
// ways; none and len(xs) == 0 either way; the same from where the loop
// goes round again) hold 2 that cannot run: none at once with
// len(xs) == 0 false, and none after a round with len(xs) == 0 true. The
// test runs Sum on one list of two elements, a negative first.
var correlatedModule = map[string]string{
	"m.go": `package m

func Sum(xs []int) (s int) {
	for _, x := range xs {
		if x < 0 {
			continue
		}
		s += x
	}
	if len(xs) == 0 {
		return -1
	}
	return s
}
`,
	"m_test.go": `package m

import "testing"

func TestSum(t *testing.T) {
	if Sum([]int{-1, 2}) != 2 {
		t.Fatal("Sum")
	}
}
`,
}

// TestInfeasibleCommands checks what each command says of paths proved
// infeasible, on a module whose infeasible paths are worked out by hand.
func TestInfeasibleCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	dir := module(t, correlatedModule)
	prof := filepath.Join(t.TempDir(), "prof")
	out, code := run(t, dir, bin, "test", "-dir", prof, "./...")
	// The test ran 3 paths: entry, element, x < 0 (continue); again,
	// element, x >= 0; again, none, len(xs) != 0.
	if code != 0 || !strings.Contains(out, "m.go:3 Sum   3/6") || !strings.Contains(out, "50.0%  2") {
		t.Fatalf("pathcover test: exit %d\n%s", code, out)
	}
	var r struct {
		Packages []struct {
			Funcs []struct {
				Name       string
				Paths      struct{ Covered, Total uint64 }
				Feasible   struct{ Covered, Total uint64 }
				Infeasible struct {
					Analyzed bool
					Paths    uint64
				}
			}
		}
	}
	out, code = run(t, dir, bin, "report", "-dir", prof, "-json")
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || len(r.Packages) != 1 || len(r.Packages[0].Funcs) != 1 {
		t.Fatalf("report -json: exit %d\n%s", code, out)
	}
	if f := r.Packages[0].Funcs[0]; f.Paths.Total != 8 || f.Feasible.Total != 6 || f.Feasible.Covered != 3 || !f.Infeasible.Analyzed || f.Infeasible.Paths != 2 {
		t.Errorf("report -json: %+v", f)
	}

	out, code = run(t, dir, bin, "paths", "-dir", prof, "-untested", "Sum")
	for _, want := range []string{
		"3 of 8 paths ran; 2 proved infeasible, so 3 of 6 feasible paths ran (50.0%)",
		// None at once, and len(xs) == 0 false.
		"proved infeasible: no run takes these together\n\t  m.go:4:2\trange xs: no elements\n\t  m.go:10:2\tlen(xs) == 0 is false\n\t  because: len(xs) == 0; len(xs) != 0",
		// After a round, none, and len(xs) == 0 true.
		"m.go:4:2\trange xs: a round ran (the path starts where the loop goes round again)\n\t  m.go:10:2\tlen(xs) == 0 is true",
		// What the untested feasible paths need.
		"needs:\n\t  m.go:4:2\trange xs: no elements\n\t  m.go:10:2\tlen(xs) == 0 is true (follows from the above)",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("paths -untested lacks %q: exit %d\n%s", want, code, out)
		}
	}
	if n := strings.Count(out, ", proved infeasible\n"); n != 2 {
		t.Errorf("paths -untested marks %d paths infeasible, want 2\n%s", n, out)
	}

	// The gate: 3 of 6 feasible paths is 50%; of all, 37.5%.
	if out, code := run(t, dir, bin, "gate", "-dir", prof, "-min", "50"); code != 0 {
		t.Errorf("gate -min 50: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "gate", "-dir", prof, "-min", "50", "-all"); code != 1 || !strings.Contains(out, "Sum: 5 of 8 paths untested (37.5% ran, below 50%)") {
		t.Errorf("gate -min 50 -all: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "gate", "-dir", prof, "-min", "60"); code != 1 || !strings.Contains(out, "Sum: 3 of 6 feasible paths untested (50.0% ran, below 60%; 2 more proved infeasible)") {
		t.Errorf("gate -min 60: exit %d\n%s", code, out)
	}

	// The vet tool, with a limit of 5 paths: 8, of which 2 infeasible.
	if out, code := run(t, dir, bin, "-pathcover.maxpaths=5", "./..."); code != 3 || !strings.Contains(out, "Sum has 8 acyclic paths (2 proved infeasible), more than -pathcover.maxpaths=5") {
		t.Errorf("pathcover -pathcover.maxpaths=5: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "-pathcover.maxpaths=6", "./..."); code != 0 || strings.Contains(out, "Sum") {
		t.Errorf("pathcover -pathcover.maxpaths=6 (6 feasible paths): exit %d\n%s", code, out)
	}
}
