package driver_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/oracle"
	"github.com/pathcover/pathcover/internal/pkgpattern"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/profile"
)

// These tests build real programs with pppexec, run them, and check what
// they counted against the oracle, go test -cover, and what the go command
// does without pppexec. They share the user's build cache, so the standard
// library is compiled under pppexec once.

// pppexec builds the wrapper once for all tests.
func pppexec(t *testing.T) string {
	t.Helper()
	return cmdtest.PPPExec(t, "../../cmd/pppexec")
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	cmdtest.WriteFiles(t, dir, files)
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	return cmdtest.ReadFile(t, name)
}

// oracleModule writes the oracle test program: module example.com/oracle.
func oracleModule(t *testing.T) string {
	t.Helper()
	return cmdtest.OracleModule(t, "../..")
}

// run runs a command in dir with extra environment.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	return cmdtest.Run(t, dir, env, name, args...)
}

func loadProfile(t *testing.T, dir string) *profile.Profile {
	t.Helper()
	return cmdtest.LoadProfile(t, dir)
}

func checkOracle(t *testing.T, dir string, p *profile.Profile) *oracle.Result {
	t.Helper()
	return cmdtest.CheckOracle(t, dir, p)
}

// TestOracle builds the oracle program in each counter mode, runs it (it
// ends with log.Fatalf, so its counts must survive os.Exit), and requires
// the path counts to equal the paths regenerated from its trace.
func TestOracle(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	mod := oracleModule(t)
	for _, mode := range []struct {
		name  string
		flags string
		env   []string
	}{
		{"array", "", nil},
		{"hash", "-arraylimit=8 -hashslots=64", nil},
		{"atomic", "-atomic", []string{"ORACLE_CONCURRENT=1"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			exe := filepath.Join(t.TempDir(), "oracle")
			toolexec := fmt.Sprintf("%s -trace -pkgs=example.com/oracle/constructs %s", bin, mode.flags)
			if out, code := run(t, mod, nil, "go", "build", "-toolexec="+toolexec, "-o", exe, "."); code != 0 {
				t.Fatalf("go build: exit %d\n%s", code, out)
			}
			prof := t.TempDir()
			out, code := run(t, mod, append(mode.env, "PATHCOVERDIR="+prof), exe)
			if code != 1 || !strings.Contains(out, "no error") {
				t.Fatalf("the program should end with log.Fatalf: exit %d\n%s", code, out)
			}
			p := loadProfile(t, prof)
			res := checkOracle(t, prof, p)
			if res.Incomplete != 0 {
				t.Errorf("%d calls did not finish", res.Incomplete)
			}
			// Every function the driver calls ran; only those it must not
			// call (they block or loop forever) did not.
			paths := 0
			var idle []string
			for hash, m := range p.Metas {
				for fn, f := range m.Funcs {
					paths += len(p.Counts[hash][fn])
					if len(p.Counts[hash][fn]) == 0 {
						idle = append(idle, f.Name)
					}
				}
			}
			slices.Sort(idle)
			want := []string{"Exit.func1", "deferGo", "deferGo.func1", "deferGo.func2", "forInfinite", "selectEmpty"}
			if mode.env == nil {
				want = append([]string{"concurrent", "concurrent.func1", "concurrent.func2", "concurrent.func3"}, want...)
				want = append(want, "parked", "sendFib")
			}
			slices.Sort(want)
			if !slices.Equal(idle, want) {
				t.Errorf("functions that never ran: %v; want %v", idle, want)
			}
			t.Logf("%d calls, %d distinct paths agree", res.Calls, paths)
		})
	}
}

var coverage = regexp.MustCompile(`coverage: ([0-9.]+)% of statements`)

// TestStatementCoverage runs go test -cover under pppexec -trace, in each
// of cover's modes: go test's statement coverage must equal the one derived
// from the path counts of the same run, and the counts must equal the
// oracle's, with cover's own rewriting in the build too.
func TestStatementCoverage(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	root, _ := filepath.Abs("../..")
	oracleDir := oracleModule(t)
	for _, tc := range []struct{ name, dir, pkg, mode string }{
		{"testdata", oracleDir, "./constructs", "set"},
		{"example", root, "./example/expr", "set"},
		{"example-count", root, "./example/expr", "count"},
		{"example-atomic", root, "./example/expr", "atomic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prof := t.TempDir()
			// Only the package under test is instrumented: a helper whose
			// calls a panic cuts short would have its last path counted
			// early, which the oracle (rightly) does not do.
			pkgs := "-pkgs=github.com/pathcover/pathcover/example/expr"
			if tc.dir == oracleDir {
				pkgs = "-pkgs=example.com/oracle/constructs"
			}
			coverprofile := filepath.Join(t.TempDir(), "cover.out")
			out, code := run(t, tc.dir, []string{"PATHCOVERDIR=" + prof}, "go", "test", "-count=1", "-covermode="+tc.mode, "-coverprofile="+coverprofile, "-toolexec="+bin+" -trace "+pkgs, tc.pkg)
			if code != 0 {
				t.Fatalf("go test: exit %d\n%s", code, out)
			}
			m := coverage.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no coverage in:\n%s", out)
			}
			p := loadProfile(t, prof)
			checkOracle(t, prof, p)
			r, errs := report.Build(p, nil)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			// Exact statement counts, from cover's profile: its lines are
			// file:start,end statements count.
			var want report.Coverage
			for _, line := range strings.Split(readFile(t, coverprofile), "\n")[1:] {
				var stmts, count uint64
				if f := strings.Fields(line); len(f) == 3 {
					fmt.Sscan(f[1], &stmts)
					fmt.Sscan(f[2], &count)
					want.Total += stmts
					if count > 0 {
						want.Covered += stmts
					}
				}
			}
			if r.Statements != want {
				t.Errorf("statements from the path counts: %d of %d; go test -cover: %d of %d", r.Statements.Covered, r.Statements.Total, want.Covered, want.Total)
			}
			if got := fmt.Sprintf("%.1f", r.Statements.Percent()); got != m[1] {
				t.Errorf("statement coverage from the path counts is %s%%; go test -cover says %s%%", got, m[1])
			}
			t.Logf("statements %.1f%% from the path counts, %s%% from go test -cover; paths %d of %d", r.Statements.Percent(), m[1], r.Paths.Covered, r.Paths.Total)
		})
	}
}

// writeModule writes a module example.com/m with files.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.25\n"
	writeFiles(t, dir, files)
	return dir
}

const smallPkg = `package m

func Sign(x int) int {
	if x < 0 {
		return -1
	}
	if x > 0 {
		return 1
	}
	return 0
}
`

// smallMain prints with the built-in println (to standard error, which
// run returns with the rest): a program that imports no standard package
// but the runtime's, so that the builds that compile the standard library
// in a configuration of their own (TestGcflags, TestNeverWorse) compile a
// dozen packages, not fmt's forty.
const smallMain = `package main

import "example.com/m/p"

func main() {
	println(p.Sign(-2), p.Sign(0), p.Sign(3), p.Sign(4))
}
`

// TestBuildCache: a second build with the same configuration reuses the
// instrumented objects, and a build with another configuration does not.
func TestBuildCache(t *testing.T) {
	bin := pppexec(t)
	mod := writeModule(t, map[string]string{"p/p.go": strings.Replace(smallPkg, "package m", "package p", 1), "main.go": smallMain})
	exe := filepath.Join(t.TempDir(), "m")
	// compiled reports whether go build -x ran the compiler for package p
	// (a cached compile runs nothing, though go replays its output).
	compiled := func(flags string) bool {
		t.Helper()
		out, code := run(t, mod, nil, "go", "build", "-x", "-toolexec="+bin+" "+flags, "-o", exe, ".")
		if code != 0 {
			t.Fatalf("go build: exit %d\n%s", code, out)
		}
		return regexp.MustCompile(`compile -o \S+ -trimpath \S+ -p example.com/m/p `).MatchString(out)
	}
	metas := func() []string {
		prof := t.TempDir()
		if out, code := run(t, mod, []string{"PATHCOVERDIR=" + prof}, exe); code != 0 || out != "-1 0 1 1\n" {
			t.Fatalf("program: exit %d, output %q", code, out)
		}
		p := loadProfile(t, prof)
		var kinds []string
		for _, m := range p.Metas {
			for _, f := range m.Funcs {
				kinds = append(kinds, f.Name+":"+string(f.Counters.Kind))
			}
		}
		return kinds
	}
	compiled("-arraylimit=100")
	first := metas()
	if compiled("-arraylimit=100") {
		t.Errorf("the same configuration compiled again")
	}
	if !compiled("-arraylimit=2") {
		t.Errorf("another configuration reused the cache")
	}
	second := metas()
	slices.Sort(first)
	slices.Sort(second)
	if fmt.Sprint(first) != "[Sign:array main:array]" || fmt.Sprint(second) != "[Sign:hash main:array]" {
		t.Errorf("counters %v then %v; want Sign in an array, then in a hash table for the new limit", first, second)
	}
	// A plain build after all this is a plain build: no counts.
	if out, code := run(t, mod, nil, "go", "build", "-o", exe, "."); code != 0 {
		t.Fatalf("plain go build: %s", out)
	}
	prof := t.TempDir()
	run(t, mod, []string{"PATHCOVERDIR=" + prof}, exe)
	if entries, _ := os.ReadDir(prof); len(entries) != 0 {
		t.Errorf("a plain build reused instrumented objects: %d files in the profile", len(entries))
	}
}

// TestGoCommands: go run, go test with external test packages and TestMain,
// and GOFLAGS=-toolexec all profile the module's code.
func TestGoCommands(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	mod := writeModule(t, map[string]string{
		"p/p.go":  strings.Replace(smallPkg, "package m", "package p", 1),
		"main.go": smallMain,
		"p/p_test.go": `package p_test

import (
	"os"
	"testing"

	"example.com/m/p"
)

func TestMain(m *testing.M) { os.Exit(m.Run()) }

func TestSign(t *testing.T) {
	if p.Sign(-5) != -1 || p.Sign(5) != 1 {
		t.Fatal("sign")
	}
}
`,
	})
	count := func(t *testing.T, prof string, want map[uint64]uint64) {
		t.Helper()
		p := loadProfile(t, prof)
		got := map[uint64]uint64{}
		for hash, m := range p.Metas {
			for fn, f := range m.Funcs {
				if f.Name == "Sign" {
					for id, c := range p.Counts[hash][fn] {
						got[id] += c
					}
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Sign's paths ran %v; want %v", got, want)
		}
	}
	t.Run("run", func(t *testing.T) {
		prof := t.TempDir()
		out, code := run(t, mod, []string{"PATHCOVERDIR=" + prof}, "go", "run", "-toolexec="+bin, ".")
		if code != 0 || out != "-1 0 1 1\n" {
			t.Fatalf("go run: exit %d\n%s", code, out)
		}
		count(t, prof, map[uint64]uint64{0: 1, 1: 2, 2: 1}) // x<0; x>0 twice; 0
	})
	t.Run("default dir", func(t *testing.T) {
		// With $PATHCOVERDIR empty, counts go where pppexec -dir said.
		prof := t.TempDir()
		out, code := run(t, mod, []string{"PATHCOVERDIR="}, "go", "run", "-toolexec="+bin+" -dir "+prof, ".")
		if code != 0 || out != "-1 0 1 1\n" {
			t.Fatalf("go run: exit %d\n%s", code, out)
		}
		count(t, prof, map[uint64]uint64{0: 1, 1: 2, 2: 1})
	})
	t.Run("test", func(t *testing.T) {
		prof := t.TempDir()
		env := []string{"PATHCOVERDIR=" + prof, "GOFLAGS=-toolexec=" + bin}
		if out, code := run(t, mod, env, "go", "test", "-count=1", "./..."); code != 0 {
			t.Fatalf("go test: exit %d\n%s", code, out)
		}
		count(t, prof, map[uint64]uint64{0: 1, 1: 1})
	})
}

// TestShardsPerP: goroutines running at once on several Ps count into
// their Ps' shards (rt/shards.go), in segments of the counter file that a
// profile adds up exactly (-race: atomic counts); -shard=none keeps one.
// The oracle is the program's own arithmetic: each goroutine makes a known
// number of calls down each path.
func TestShardsPerP(t *testing.T) {
	t.Parallel()
	bin := pppexec(t)
	mod := writeModule(t, map[string]string{
		"m.go": smallPkg,
		"m_test.go": `package m

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestParallel(t *testing.T) {
	var start, wg sync.WaitGroup
	var arrived atomic.Int32
	start.Add(1)
	for range 4 {
		wg.Go(func() {
			start.Wait()
			// Spin until all four run: a spinning goroutine keeps its P,
			// so idle Ps take the others instead of their waiting behind
			// it (on a loaded machine they could otherwise all run in
			// turn on one P).
			arrived.Add(1)
			for arrived.Load() < 4 {
			}
			for i := range 30000 {
				Sign(i%3 - 1)
			}
		})
	}
	start.Done()
	wg.Wait()
}
`,
	})
	for _, c := range []struct {
		shard    string
		segments int
	}{{"p", 4}, {"none", 1}} {
		t.Run(c.shard, func(t *testing.T) {
			prof := t.TempDir()
			out, code := run(t, mod, []string{"PATHCOVERDIR=" + prof, "GOMAXPROCS=4"}, "go", "test", "-race", "-count=1", "-run=TestParallel", "-toolexec="+bin+" -shard="+c.shard, ".")
			if code != 0 {
				t.Fatalf("go test -race: exit %d\n%s", code, out)
			}
			cf := cmdtest.OnlyCounterFile(t, prof)
			used := 0
			for _, s := range cf.Segments {
				if len(s.Words) > 0 {
					used++
				}
			}
			if len(cf.Segments) != c.segments {
				t.Errorf("%d segments, want %d (GOMAXPROCS=4)", len(cf.Segments), c.segments)
			}
			if c.segments > 1 && used < 2 {
				t.Errorf("only %d shard counted: four goroutines that ran at once all counted on one P", used)
			}
			p := loadProfile(t, prof)
			for hash := range p.Metas {
				byPath := p.Counts[hash][0]
				// Sign's paths by Ball-Larus id: x < 0, x > 0, x == 0,
				// each 10000 times a goroutine.
				var total uint64
				for id, n := range byPath {
					if n != 40000 {
						t.Errorf("path %d of Sign ran %d times, want 40000", id, n)
					}
					total += n
				}
				if total != 120000 || len(byPath) != 3 {
					t.Errorf("%d paths counted over %d ids; want 120000 over 3", total, len(byPath))
				}
			}
		})
	}
}

// TestPositions: panics and stack traces in instrumented code point at the
// user's lines, with and without -trimpath.
func TestPositions(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	// No import (-trimpath compiles the standard library anew): the index
	// is a variable, so the compiler cannot see it is out of range.
	mod := writeModule(t, map[string]string{"main.go": `package main

var three = 3

func pick(xs []int, i int) int {
	if i > 2 {
		i++
	}
	return xs[i]
}

func main() {
	pick([]int{1, 2, 3}, three)
}
`})
	for _, trim := range []bool{false, true} {
		args := []string{"run", "-toolexec=" + bin}
		want := filepath.Join(mod, "main.go") + ":9"
		if trim {
			args = append(args, "-trimpath")
			want = "example.com/m/main.go:9"
		}
		out, code := run(t, mod, []string{"PATHCOVERDIR=" + t.TempDir()}, "go", append(args, ".")...)
		if code == 0 || !strings.Contains(out, "index out of range") || !regexp.MustCompile(regexp.QuoteMeta(want)+`\s`).MatchString(out) {
			t.Errorf("trimpath=%v: exit %d; the trace should name %s:\n%s", trim, code, want, out)
		}
	}
}

// TestNeverWorse: when pppexec cannot instrument (here, it has no safe
// directory to keep its runtime in), the build still succeeds, saying why
// once for the whole build, naming PATHCOVERCACHE; with -strict it fails.
func TestNeverWorse(t *testing.T) {
	bin := pppexec(t)
	mod := writeModule(t, map[string]string{"p/p.go": strings.Replace(smallPkg, "package m", "package p", 1), "main.go": smallMain})
	// Not a directory; a path that is the same in every run, so that the
	// message, which the build ID covers, is too, and the cache serves
	// the next run.
	notADir := os.DevNull
	env := []string{"PATHCOVERCACHE=" + notADir}
	exe := filepath.Join(t.TempDir(), "m")
	out, code := run(t, mod, env, "go", "build", "-toolexec="+bin, "-o", exe, ".")
	if code != 0 || strings.Count(out, "pppexec: instrumenting nothing: cannot keep the runtime in") != 1 || strings.Count(out, "set PATHCOVERCACHE") != 1 {
		t.Fatalf("go build: exit %d; want success with one warning:\n%s", code, out)
	}
	if out, code := run(t, mod, nil, exe); code != 0 || out != "-1 0 1 1\n" {
		t.Errorf("program: exit %d, %q", code, out)
	}
	out, code = run(t, mod, env, "go", "build", "-toolexec="+bin+" -strict", "-o", exe, ".")
	if code == 0 || !strings.Contains(out, "cannot instrument example.com/m/p") {
		t.Errorf("go build with -strict: exit %d; want failure:\n%s", code, out)
	}
}

// TestWorkspace: with go.work, the packages of every module in it are the
// main module's.
func TestWorkspace(t *testing.T) {
	bin := pppexec(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.work":   "go 1.25\n\nuse (\n\t./a\n\t./b\n)\n",
		"a/go.mod":  "module example.com/a\n\ngo 1.25\n",
		"a/main.go": "package main\n\nimport \"example.com/b\"\n\nfunc main() {\n\tif b.Sign(3) > 0 {\n\t\tprintln(\"ok\")\n\t}\n}\n",
		"b/go.mod":  "module example.com/b\n\ngo 1.25\n",
		"b/b.go":    strings.Replace(smallPkg, "package m", "package b", 1),
	})
	prof := t.TempDir()
	out, code := run(t, filepath.Join(dir, "a"), []string{"PATHCOVERDIR=" + prof}, "go", "run", "-toolexec="+bin, ".")
	if code != 0 {
		t.Fatalf("go run: exit %d\n%s", code, out)
	}
	p := loadProfile(t, prof)
	var pkgs []string
	for _, m := range p.Metas {
		pkgs = append(pkgs, m.Package)
	}
	if len(pkgs) != 2 {
		t.Errorf("instrumented %v; want example.com/a and example.com/b", pkgs)
	}
}

// TestVendor: vendored packages are not the main module's and are left
// alone; the build works with -mod=vendor.
func TestVendor(t *testing.T) {
	bin := pppexec(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"dep/go.mod": "module example.com/dep\n\ngo 1.25\n",
		"dep/dep.go": strings.Replace(smallPkg, "package m", "package dep", 1),
		"m/go.mod":   "module example.com/m\n\ngo 1.25\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n",
		"m/main.go":  "package main\n\nimport \"example.com/dep\"\n\nfunc main() {\n\tif dep.Sign(-1) < 0 {\n\t\tprintln(\"neg\")\n\t}\n}\n",
	})
	m := filepath.Join(dir, "m")
	if out, code := run(t, m, nil, "go", "mod", "vendor"); code != 0 {
		t.Fatalf("go mod vendor: %s", out)
	}
	prof := t.TempDir()
	out, code := run(t, m, []string{"PATHCOVERDIR=" + prof}, "go", "run", "-mod=vendor", "-toolexec="+bin, ".")
	if code != 0 {
		t.Fatalf("go run: exit %d\n%s", code, out)
	}
	p := loadProfile(t, prof)
	for _, meta := range p.Metas {
		if meta.Package != "example.com/m" {
			t.Errorf("instrumented %s", meta.Package)
		}
	}
}

// TestCgo: a package that uses cgo is instrumented in its Go code.
func TestCgo(t *testing.T) {
	bin := pppexec(t)
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler")
	}
	mod := writeModule(t, map[string]string{"main.go": `package main

// int twice(int x) { return 2 * x; }
import "C"

import "fmt"

func double(x int) int {
	if x < 0 {
		return 0
	}
	return int(C.twice(C.int(x)))
}

func main() {
	fmt.Println(double(3), double(-1))
}
`})
	prof := t.TempDir()
	out, code := run(t, mod, []string{"PATHCOVERDIR=" + prof, "CGO_ENABLED=1"}, "go", "run", "-toolexec="+bin, ".")
	if code != 0 || !strings.Contains(out, "6 0") {
		t.Fatalf("go run: exit %d\n%s", code, out)
	}
	p := loadProfile(t, prof)
	found := false
	for hash, m := range p.Metas {
		for fn, f := range m.Funcs {
			if f.Name == "double" {
				found = len(p.Counts[hash][fn]) == 2 && strings.HasSuffix(m.Files[f.File], "main.go")
			}
		}
	}
	if !found {
		t.Errorf("double's two paths were not counted in main.go")
	}
}

// TestOracleStdlib runs part of strconv's tests with strconv instrumented:
// code nobody here wrote. (The whole suite traces gigabytes; its allocation
// tests fail under -trace only, whose writer allocates; without -trace
// they pass.)
func TestOracleStdlib(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	prof := t.TempDir()
	out, code := run(t, t.TempDir(), []string{"PATHCOVERDIR=" + prof}, "go", "test", "-count=1",
		"-toolexec="+bin+" -trace -atomic -pkgs=strconv",
		"-run", "Atoi|ParseInt|ParseUint|Itoa|Quote|Unquote|ParseBool|FormatInt|ParseFloat|FormatFloat|Ftoa|Atof",
		"-skip", "Allocations|Slow|Random|Roundtrip", "strconv")
	if code != 0 {
		t.Fatalf("go test strconv: exit %d\n%s", code, out)
	}
	p := loadProfile(t, prof)
	res := checkOracle(t, prof, p)
	t.Logf("strconv: %d calls agree (%d cut short)", res.Calls, res.Incomplete)
}

// TestOracleBelowOS profiles packages that programs import through os:
// unicode/utf8 under its own tests, and os, io/fs and time in a program
// that uses them. rt does not import os, so pppexec can instrument them;
// the counts are checked against the oracle.
func TestOracleBelowOS(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	prof := t.TempDir()
	out, code := run(t, t.TempDir(), []string{"PATHCOVERDIR=" + prof}, "go", "test", "-count=1",
		"-toolexec="+bin+" -trace -atomic -pkgs=unicode/utf8", "-skip", "Allocation", "unicode/utf8") // the trace writer allocates
	if code != 0 {
		t.Fatalf("go test unicode/utf8: exit %d\n%s", code, out)
	}
	p := loadProfile(t, prof)
	res := checkOracle(t, prof, p)
	r, _ := report.Build(p, &report.Options{Packages: pkgpattern.ImportPaths("unicode/utf8")})
	if r.Paths.Covered == 0 {
		t.Fatalf("no path of unicode/utf8 ran:\n%s", out)
	}
	t.Logf("unicode/utf8: %d calls agree; paths %d of %d", res.Calls, r.Paths.Covered, r.Paths.Total)

	mod := t.TempDir()
	writeFiles(t, mod, map[string]string{
		"go.mod": "module example.com/belowos\n\ngo 1.25\n",
		"main.go": `package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	d, err := time.ParseDuration("1h2m3.5s")
	fmt.Println(d, err, time.Unix(1e9, 0).UTC().Format(time.RFC3339))
	f, err := os.CreateTemp("", "belowos")
	if err != nil {
		panic(err)
	}
	f.WriteString("path")
	f.Close()
	data, _ := os.ReadFile(f.Name())
	os.Remove(f.Name())
	fmt.Println(string(data))
}
`,
	})
	prof = t.TempDir()
	out, code = run(t, mod, []string{"PATHCOVERDIR=" + prof}, "go", "run", "-toolexec="+bin+" -trace -pkgs=os,io/fs,time", ".")
	if code != 0 || !strings.Contains(out, "1h2m3.5s <nil> 2001-09-09T01:46:40Z") {
		t.Fatalf("go run: exit %d\n%s", code, out)
	}
	p = loadProfile(t, prof)
	res = checkOracle(t, prof, p)
	for _, pkg := range []string{"os", "io/fs", "time"} {
		if r, _ := report.Build(p, &report.Options{Packages: pkgpattern.ImportPaths(pkg)}); r.Paths.Covered == 0 {
			t.Errorf("no path of %s ran", pkg)
		}
	}
	t.Logf("os, io/fs, time: %d calls agree", res.Calls)
}

// TestGcflags: builds with -gcflags for all packages (as debuggers make
// them) or for the main module only still link and count: rt is built
// against standard packages compiled the way the program's are.
func TestGcflags(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	mod := writeModule(t, map[string]string{"p/p.go": strings.Replace(smallPkg, "package m", "package p", 1), "main.go": smallMain})
	for _, gcflags := range []string{"all=-N -l", "-N -l"} {
		prof := t.TempDir()
		out, code := run(t, mod, []string{"PATHCOVERDIR=" + prof}, "go", "run", "-gcflags="+gcflags, "-toolexec="+bin, ".")
		if code != 0 || out != "-1 0 1 1\n" {
			t.Errorf("go run -gcflags=%q: exit %d\n%s", gcflags, code, out)
			continue
		}
		loadProfile(t, prof)
	}
}

// TestOraclePPP makes PPP builds of the oracle program whose interesting
// paths are those a smaller run of a Ball-Larus build took (the "tests"),
// runs them on the full input (the "field"), and requires: the counts of
// the interesting paths in the arrays plus the residual tables equal the
// paths regenerated from the trace, path for path; every path counted in an
// array is interesting; every path in a residual table is not (unless the
// truncate policy cut it from its array); and both kinds ran.
func TestOraclePPP(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	mod := oracleModule(t)
	const pkgs = "-pkgs=example.com/oracle/constructs"
	exe := filepath.Join(t.TempDir(), "oracle")
	if out, code := run(t, mod, nil, "go", "build", "-toolexec="+bin+" "+pkgs, "-o", exe, "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	tested := t.TempDir()
	if out, code := run(t, mod, []string{"ORACLE_TESTED=1", "PATHCOVERDIR=" + tested}, exe); code != 1 {
		t.Fatalf("tested run: exit %d\n%s", code, out)
	}
	for _, mode := range []struct {
		name  string
		flags string
		env   []string
	}{
		{"default", "", nil},
		{"array", "-pppalways", nil},
		{"truncate", "-pppalways -pppslots=3", nil},
		{"hash", "-pppalways -pppslots=3 -ppplarge=hash", nil},
		{"atomic", "-pppalways -atomic", []string{"ORACLE_CONCURRENT=1"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			exe := filepath.Join(t.TempDir(), "oracle")
			toolexec := fmt.Sprintf("%s -trace %s -interesting=%s %s", bin, pkgs, tested, mode.flags)
			if out, code := run(t, mod, nil, "go", "build", "-toolexec="+toolexec, "-o", exe, "."); code != 0 {
				t.Fatalf("go build: exit %d\n%s", code, out)
			}
			field := t.TempDir()
			if out, code := run(t, mod, append(mode.env, "PATHCOVERDIR="+field), exe); code != 1 {
				t.Fatalf("field run: exit %d\n%s", code, out)
			}
			p := loadProfile(t, field)
			res := checkOracle(t, field, p)

			// Where each path was counted, from the counter files.
			inArray, inResidual := map[string]map[uint64]bool{}, map[string]map[uint64]bool{}
			files, _ := filepath.Glob(filepath.Join(field, "*.counts"))
			for _, name := range files {
				cf, err := profile.ReadCounts(name)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range cf.Segments {
					m := p.Metas[s.Hash]
					if m.Mode != profile.ModePPP {
						t.Fatalf("a %s build's segment", m.Mode)
					}
					if s.Residual {
						s.Pairs(func(key, n uint64) {
							if n != 0 {
								mark(inResidual, fmt.Sprint(s.Hash, s.Func), key-1)
							}
						})
						continue
					}
					for fn := range m.Funcs {
						counts, _ := m.Funcs[fn].PathCounts(s.Words)
						for id := range counts {
							mark(inArray, fmt.Sprint(s.Hash, fn), id)
						}
					}
				}
			}
			kinds := map[profile.CounterKind]int{}
			residual, interesting, truncated := 0, 0, 0
			for hash, m := range p.Metas {
				for fn := range m.Funcs {
					f := &m.Funcs[fn]
					kinds[f.Counters.Kind]++
					key := fmt.Sprint(hash, fn)
					for id := range inArray[key] {
						if f.Counters.Kind == "array" && !f.IsInteresting(id) {
							mark(inResidual, key, id) // recorded in its Ball-Larus array
							continue
						}
						interesting++
						if !f.IsInteresting(id) {
							t.Errorf("%s: path %d counted in the array, but it is not interesting", f.Name, id)
						}
					}
					for id := range inResidual[key] {
						residual++
						if inArray[key][id] && f.Counters.Kind != "array" {
							t.Errorf("%s: path %d counted in the array and as residual", f.Name, id)
						}
						if f.IsInteresting(id) {
							truncated++
							if f.Counters.Kind != profile.CounterPPP || uint64(f.Counters.Size/2) >= f.PPPSize {
								t.Errorf("%s: interesting path %d recorded as residual, with %s counters of %d of %d slots", f.Name, id, f.Counters.Kind, f.Counters.Size/2, f.PPPSize)
							}
						}
					}
				}
			}
			if residual == 0 || interesting == 0 {
				t.Errorf("%d paths counted in arrays, %d residual: the test means to have both", interesting, residual)
			}
			if mode.name == "truncate" && truncated == 0 {
				t.Errorf("no interesting path was cut from its array")
			}
			if mode.name == "hash" && kinds[profile.CounterPPPHash] == 0 {
				t.Errorf("no function has a PPP hash table: %v", kinds)
			}
			t.Logf("%d calls agree; %d paths counted in arrays, %d as residual (%d of them tested); counters %v", res.Calls, interesting, residual, truncated, kinds)
		})
	}
}

func mark(m map[string]map[uint64]bool, key string, id uint64) {
	if m[key] == nil {
		m[key] = map[uint64]bool{}
	}
	m[key][id] = true
}
