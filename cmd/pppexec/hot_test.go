package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/oracle"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/profile"
)

// TestOracleHot builds the oracle program with pppexec -trace -hot=8
// -arraylimit=4, so that every function with more than 4 paths counts in
// a hot path table of two sets, runs it, and checks each count against
// the path oracle's exact one: in a table, every path ran, and its true
// count is within [count - error, count]; a path that ran but is not in
// its table ran no more often than the least counted path of its set;
// the functions counted in arrays are exact.
func TestOracleHot(t *testing.T) {
	t.Parallel()
	bin := pppexec(t)
	mod := cmdtest.OracleModule(t, "../..")
	exe := filepath.Join(t.TempDir(), "oracle")
	toolexec := bin + " -trace -hot=8 -arraylimit=4 -pkgs=example.com/oracle/constructs"
	if out, code := run(t, mod, nil, "go", "build", "-toolexec="+toolexec, "-o", exe, "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	prof := t.TempDir()
	if out, code := run(t, mod, []string{"PATHCOVERDIR=" + prof}, exe); code != 1 || !strings.Contains(out, "no error") {
		t.Fatalf("the program should end with log.Fatalf: exit %d\n%s", code, out)
	}
	p := cmdtest.LoadProfile(t, prof)
	traces, _ := filepath.Glob(filepath.Join(prof, "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("%d trace files", len(traces))
	}
	calls, err := profile.ReadTrace(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := oracle.Paths(p, calls)
	if err != nil {
		t.Fatal(err)
	}
	hot, estimated, missing := 0, 0, 0
	for hash, m := range p.Metas {
		for fn := range m.Funcs {
			f := &m.Funcs[fn]
			exact, got := res.Counts[hash][fn], p.Counts[hash][fn]
			if f.Counters.Kind != profile.CounterHot {
				for id, n := range exact {
					if got[id] != n {
						t.Errorf("%s path %d: counted %d, ran %d times", f.Name, id, got[id], n)
					}
				}
				continue
			}
			hot++
			errs := p.Errors[hash][fn]
			sets := uint64(f.Counters.Size / (3 * profile.HotWays))
			least := make(map[uint64]uint64) // set → its smallest count
			full := make(map[uint64]int)
			for id, c := range got {
				estimated++
				e := errs[id]
				if exact[id] == 0 || c < exact[id] || c-e > exact[id] {
					t.Errorf("%s path %d: count %d, error %d, ran %d times", f.Name, id, c, e, exact[id])
				}
				set := profile.HotSet(id, sets)
				full[set]++
				if l, ok := least[set]; !ok || c < l {
					least[set] = c
				}
			}
			for id, n := range exact {
				if _, ok := got[id]; ok {
					continue
				}
				missing++
				set := profile.HotSet(id, sets)
				if full[set] != profile.HotWays || n > least[set] {
					t.Errorf("%s path %d ran %d times and is not in its set (%d ways full, least count %d)", f.Name, id, n, full[set], least[set])
				}
			}
		}
	}
	// The report marks the estimated functions and gives each path's
	// bound, and its text says so.
	r, errs := report.Build(p, &report.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	estimatedFuncs := 0
	for _, pkg := range r.Packages {
		for _, f := range pkg.Funcs {
			if !f.Estimated {
				continue
			}
			estimatedFuncs++
			paths, err := f.Decoded(false, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			if err := (report.Paths{Func: f, Paths: paths}).WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if len(paths) > 0 && !strings.Contains(text.String(), "(estimated: hot path table)") {
				t.Errorf("%s: the paths' text does not say the counts are estimates:\n%s", f.Name, text.String())
			}
		}
	}
	var text strings.Builder
	r.WriteText(&text)
	if estimatedFuncs != hot || strings.Count(text.String(), "hot path table: counts estimated") != hot {
		t.Errorf("%d functions estimated in the report, %d marked in its text; %d have tables", estimatedFuncs, strings.Count(text.String(), "hot path table: counts estimated"), hot)
	}
	if hot < 10 || missing == 0 {
		t.Errorf("%d functions in hot path tables, %d paths left out of them: the test should put some out", hot, missing)
	}
	t.Logf("%d functions in hot path tables: %d paths estimated, %d left out", hot, estimated, missing)
}
