package main_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/oracle"
	"github.com/pathcover/pathcover/profile"
)

// The end-to-end tests of interprocedural builds live here, beside the
// command, so that their builds (each configuration recompiles the
// standard library once) do not crowd package driver's tests.

func pppexec(t *testing.T) string { return cmdtest.PPPExec(t, ".") }

func run(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	return cmdtest.Run(t, dir, env, name, args...)
}

// ipppModule writes the interprocedural test program: module
// example.com/ippp.
func ipppModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmdtest.WriteFiles(t, dir, map[string]string{
		"go.mod":     "module example.com/ippp\n\ngo 1.25\n",
		"main.go":    cmdtest.ReadFile(t, "../../testdata/ippp/main.go"),
		"ip/ip.go":   cmdtest.ReadFile(t, "../../testdata/ippp/ip/ip.go"),
		"ext/ext.go": cmdtest.ReadFile(t, "../../testdata/ippp/ext/ext.go"),
	})
	return dir
}

// buildRun builds the module in dir with toolexec, runs it with env, and
// returns the profile it wrote, its directory, and the program.
func buildRun(t *testing.T, dir, toolexec string, env ...string) (*profile.Profile, string, string) {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "prog")
	if out, code := run(t, dir, nil, "go", "build", "-toolexec="+toolexec, "-o", exe, "."); code != 0 {
		t.Fatalf("go build -toolexec=%q: exit %d\n%s", toolexec, code, out)
	}
	p, prof := runProg(t, dir, exe, env...)
	return p, prof, exe
}

// runProg runs exe in dir with env, checks that it prints what the plain
// build of dir prints with env, and returns the profile it wrote and its
// directory.
func runProg(t *testing.T, dir, exe string, env ...string) (*profile.Profile, string) {
	t.Helper()
	prof := t.TempDir()
	out, code := run(t, dir, append(env, "PATHCOVERDIR="+prof), exe)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	if want := plainOutput(t, dir, env); out != want {
		t.Errorf("the instrumented program printed %q, the plain one %q", out, want)
	}
	return cmdtest.LoadProfile(t, prof), prof
}

var plainOutputs sync.Map // dir and env → output

// plainOutput returns what go run prints in dir with env, run once.
func plainOutput(t *testing.T, dir string, env []string) string {
	t.Helper()
	key := dir + "\x00" + strings.Join(env, "\x00")
	if out, ok := plainOutputs.Load(key); ok {
		return out.(string)
	}
	out, code := run(t, dir, env, "go", "run", ".")
	if code != 0 {
		t.Fatalf("go run: exit %d\n%s", code, out)
	}
	plainOutputs.Store(key, out)
	return out
}

// countsByName returns a profile's path counts by package path and
// function name, the supergraphs' with their @ippp names.
func countsByName(t *testing.T, p *profile.Profile) map[string]map[uint64]uint64 {
	t.Helper()
	if len(p.Metas) != 2 {
		t.Fatalf("%d packages instrumented, want 2", len(p.Metas))
	}
	out := make(map[string]map[uint64]uint64)
	for hash, m := range p.Metas {
		for i, f := range m.Funcs {
			c := p.Counts[hash][i]
			if c == nil {
				c = map[uint64]uint64{}
			}
			out[profile.PackagePath(m.Package)+"."+f.Name] = c
		}
	}
	return out
}

// TestOracleIPPP makes interprocedural builds (pppexec -ippp) of a program
// whose call sites cover what a site can be, with sites chosen by a
// Ball-Larus run of the same program, and checks:
//   - the functions' own path counts equal the trace oracle's, and the
//     plain build's: clones count their callee's paths as it does;
//   - the supergraphs agree with the functions' own counts, edge for edge
//     (oracle.Supergraphs), the leaf callees exactly;
//   - the sites are the ones expected, calls in return statements among
//     them, and calls through function values are not sites;
//   - the program prints what its plain build does (held results keep
//     Go's order of evaluation);
//   - a PPP build whose interesting segments are a run's (thesis 3.5.2),
//     run on more input, counts every segment as the Ball-Larus
//     interprocedural build does on that input, the new segments as
//     residual and the others in arrays.
func TestOracleIPPP(t *testing.T) {
	bin := pppexec(t)
	mod := ipppModule(t)
	outer := t
	const pkgs = "-pkgs=example.com/ippp/ip,example.com/ippp/ext"
	plain, sites, _ := buildRun(t, mod, bin+" -trace "+pkgs)
	cmdtest.CheckOracle(t, sites, plain)
	plainCounts := countsByName(t, plain)
	var tested string            // the segments of an interprocedural build
	var fieldBL *profile.Profile // and of its run on more input

	for _, mode := range []struct {
		name  string
		flags string
	}{
		{"array", ""},
		{"hash", "-arraylimit=8 -hashslots=64"},
		{"atomic", "-atomic"},
		{"depth2", "-ipppdepth=2"},
		// Every callee called from several sites has one clone they
		// share (shared.go).
		{"shared", "-ipppshare=1"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			toolexec := fmt.Sprintf("%s -trace %s -ippp=%s %s", bin, pkgs, sites, mode.flags)
			p, dir, exe := buildRun(t, mod, toolexec)
			if mode.name == "shared" {
				checkShared(t, exe)
			}
			if mode.name == "array" {
				// The tests and the field of the PPP build below, in
				// directories that outlive this subtest.
				_, tested = runProg(outer, mod, exe)
				fieldBL, _ = runProg(outer, mod, exe, "IPPP_FIELD=1")
			}
			cmdtest.CheckOracle(t, dir, p)
			counts := countsByName(t, p)
			for name, want := range plainCounts {
				if got := counts[name]; !mapsEqual(got, want) {
					t.Errorf("%s: paths %v in the interprocedural build, %v in the plain one", name, got, want)
				}
			}
			diffs, err := oracle.Supergraphs(p, func(_, name string) bool { return strings.Contains(strings.ToLower(name), "leaf") })
			if err != nil {
				t.Fatal(err)
			}
			if len(diffs) > 0 {
				t.Fatalf("the supergraphs and the functions disagree:\n\t%s", strings.Join(diffs, "\n\t"))
			}
			callees := make(map[string][]string)
			kinds := make(map[string]string)
			for _, m := range p.Metas {
				for _, f := range m.Funcs {
					if f.Super == nil {
						continue
					}
					for _, s := range f.Super.Sites {
						name := s.Func
						if s.Package != "" {
							name = s.Package + "." + name
						}
						callees[f.Name] = append(callees[f.Name], name)
					}
					slices.Sort(callees[f.Name])
					kinds[f.Name] = string(f.Counters.Kind)
					// Wide's 2^64 segments are cut to fit, sparing the
					// edges that ran.
					if cut := f.Name == "Wide@ippp"; cut != (len(f.Keep) > 0) {
						t.Errorf("%s: kept edges %v", f.Name, f.Keep)
					}
					// At depth 2, Drive's clones of its callees leave out
					// their own supergraphs: mid's still counts the call
					// of mid that is not a site, but pair, order, named and
					// loopTail are called only at Drive's sites, so theirs
					// count nothing.
					onlyDeeper := mode.name == "depth2" && slices.Contains([]string{"pair@ippp", "order@ippp", "named@ippp", "loopTail@ippp"}, f.Name)
					if n := len(counts[profile.PackagePath(m.Package)+"."+f.Name]); (n == 0) != onlyDeeper {
						t.Errorf("%s counted %d segments; want some: %v", f.Name, n, !onlyDeeper)
					}
				}
			}
			want := map[string][]string{
				// g(2) is a call of a function value, ext.Max generic,
				// mid(-x) the right operand of &&, safeDiv recovers;
				// fact(2) in case -1 never runs. a.get() and
				// tally.Total() are in the return statement.
				"Drive@ippp": {"(*acc).add", "acc.get", "example.com/ippp/ext.(*Tally).LeafAdd", "example.com/ippp/ext.LeafClamp", "example.com/ippp/ext.LeafSum",
					"example.com/ippp/ext.Tally.Total", "example.com/ippp/ext.Tally.Total",
					"fact", "leafClosure", "leafLoop", "leafSign", "leafSign", "leafSign", "loopTail", "mid", "named", "order", "pair", "shadowed"},
				"mid@ippp":  {"leafLoop", "leafSign"},
				"fact@ippp": {"fact"},
				"Wide@ippp": {"leafSign"},
				// Calls in return statements; shadowed's is not a site.
				"Tail@ippp":        {"fact", "fact"},
				"pair@ippp":        {"leafPair", "leafSign"},
				"order@ippp":       {"leafBump"},
				"named@ippp":       {"leafLoop", "leafSign"},
				"Drive.func1@ippp": {"leafSign"},
				"tallyOf@ippp":     {"example.com/ippp/ext.(*Tally).LeafAdd"},
				"loopTail@ippp":    {"leafLoop", "leafLoop"},
			}
			if mode.name == "depth2" {
				// Two calls deep: the calls of mid, fact, pair, order,
				// named and loopTail; and fact's of itself, from fact and
				// from Tail.
				want["Drive@ippp"] = append(want["Drive@ippp"], "fact", "leafLoop", "leafSign", "leafPair", "leafSign", "leafBump", "leafLoop", "leafSign", "leafLoop", "leafLoop")
				slices.Sort(want["Drive@ippp"])
				want["fact@ippp"] = []string{"fact", "fact"}
				want["Tail@ippp"] = []string{"fact", "fact", "fact", "fact"}
			}
			for name, w := range want {
				if !slices.Equal(callees[name], w) {
					t.Errorf("%s: sites call %v, want %v", name, callees[name], w)
				}
			}
			if len(callees) != len(want) {
				t.Errorf("supergraphs %v, want those of %v", callees, want)
			}
			t.Logf("supergraph counters: %v", kinds)
		})
	}

	// The tests: the interprocedural Ball-Larus run of "array". The
	// field: that build and PPP builds on more input. With -pppalways,
	// every supergraph with untested segments gets a PPP array, whose
	// misses are residual; by default, one with at most -arraylimit
	// segments gets a Ball-Larus array, which counts its untested
	// segments itself (layoutCounters). -pppsmall and -pppslots of 1 keep
	// a function's rules for small arrays from giving them.
	for _, mode := range []struct{ name, flags string }{
		{"ppp", "-pppalways"},
		{"ppparrays", "-arraylimit=1000 -pppsmall=1 -pppslots=1"},
		// Shared clones with PPP registers in their tables.
		{"pppshared", "-pppalways -ipppshare=1"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			if fieldBL == nil {
				t.Skip("the array build failed")
			}
			ppp, dir, exe := buildRun(t, mod, fmt.Sprintf("%s -trace %s -ippp=%s -interesting=%s %s", bin, pkgs, sites, tested, mode.flags), "IPPP_FIELD=1")
			cmdtest.CheckOracle(t, dir, ppp)
			if mode.name == "pppshared" {
				checkShared(t, exe)
			}
			want, got := countsByName(t, fieldBL), countsByName(t, ppp)
			residual, kinds := 0, make(map[profile.CounterKind]int)
			for _, m := range ppp.Metas {
				for _, f := range m.Funcs {
					if f.Super == nil {
						continue
					}
					key := profile.PackagePath(m.Package) + "." + f.Name
					if !mapsEqual(got[key], want[key]) {
						t.Errorf("%s: segments %v in the PPP build, %v in the Ball-Larus one", f.Name, got[key], want[key])
					}
					if len(f.Interesting) == 0 || f.Stale {
						t.Errorf("%s: no interesting segments (stale %v)", f.Name, f.Stale)
					}
					for id := range got[key] {
						if !f.IsInteresting(id) {
							residual++
						}
					}
					if uint64(len(f.Interesting)) == f.Paths {
						continue // every segment tested: an array
					}
					// Untested segments: a PPP array, or an array if
					// small enough and not -pppalways.
					kinds[f.Counters.Kind]++
					if want := mode.name == "ppparrays" && f.Paths <= 1000; (f.Counters.Kind == profile.CounterArray) != want {
						t.Errorf("%s: %d segments, %d tested, counted in %s; want an array: %v", f.Name, f.Paths, len(f.Interesting), f.Counters.Kind, want)
					}
				}
			}
			if residual == 0 {
				t.Errorf("the field ran no residual segment; the test means it to")
			}
			if kinds[profile.CounterPPP] == 0 || (mode.name == "ppparrays") != (kinds[profile.CounterArray] > 0) {
				t.Errorf("supergraphs with untested segments counted in %v; want PPP arrays, and Ball-Larus arrays too: %v", kinds, mode.name == "ppparrays")
			}
			t.Logf("%d residual segments; supergraphs with untested segments counted in %v", residual, kinds)
		})
	}
}

// sharedTable matches the symbol of a site's table of increments.
var sharedTable = regexp.MustCompile(`\._pathcoverT[0-9]+_[0-9]+$`)

// checkShared checks that the program exe has sites that share clones: the
// tables of their increments, package variables that the linker keeps as
// long as a call passes them, are in its symbol table.
func checkShared(t *testing.T, exe string) {
	t.Helper()
	out, code := run(t, ".", nil, "go", "tool", "nm", exe)
	if code != 0 {
		t.Fatalf("go tool nm: exit %d\n%s", code, out)
	}
	var tables []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 3 && sharedTable.MatchString(f[2]) {
			tables = append(tables, f[2])
		}
	}
	if len(tables) < 2 {
		t.Fatalf("the program has %d tables of sites that share a clone, want two or more: %v", len(tables), tables)
	}
	t.Logf("%d sites share clones: %v", len(tables), tables)
}

func mapsEqual(a, b map[uint64]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
