package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/export"
)

// exportModule has every kind of decision that the exports list as
// branches (if, else if, else, for, range, switch with and without
// default, type switch, && and ||), function literals, a package without
// tests of its own, a function that never runs and branches never taken.
// Its loops end only by their condition, so that the oracle (branchOracle)
// can tell each outcome's runs from go test's statement counts.
var exportModule = map[string]string{
	"calc/calc.go": `package calc

import "example.com/m/util"

func Classify(xs []int) (neg, zero, pos int) {
	for _, x := range xs {
		if x < 0 {
			neg++
		} else if x == 0 {
			zero++
		} else {
			pos++
		}
	}
	return
}

func Name(n int) string {
	switch {
	case n < 0:
		return "negative"
	case n == 0:
		return "zero"
	}
	return "positive"
}

func Kind(v any) string {
	switch v.(type) {
	case int:
		return "int"
	case string:
		return "string"
	default:
		return "other"
	}
}

// Scoped has blocks that start segments, which cover counts no block of.
func Scoped(n int) int {
	{
		n++
	}
	x := n
	{
		x *= 2
	}
	return x
}

func Sum(n int) int {
	total := 0
	for i := 0; i < n && total < 1000; i++ {
		total += util.Abs(i - 2)
	}
	apply := func(f func(int) int) int {
		if f == nil {
			return total
		}
		return f(total)
	}
	return apply(func(t int) int { return t * 2 })
}

func Never(x int) int {
	if x > 0 || x < -10 {
		return 1
	}
	return 0
}
`,
	"calc/calc_test.go": `package calc

import "testing"

func TestCalc(t *testing.T) {
	if n, z, p := Classify([]int{-1, 0, 2, 3}); n != 1 || z != 1 || p != 2 {
		t.Error(n, z, p)
	}
	for _, x := range []int{-3, 5} {
		_ = Name(x)
	}
	_ = Kind(1)
	_ = Kind(1.5)
	if Sum(4) != 8 {
		t.Error(Sum(4))
	}
}
`,
	"util/util.go": `package util

func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
`,
}

// exportProfile is the profile of exportModule's tests, made once for the
// tests below, and go test's own -covermode=count profile of the same
// tests (which run alike every time), made without pathcover.
var exportProfile struct {
	once             sync.Once
	dir, prof, cover string
	out              string
	code             int
}

func exportSetup(t *testing.T) (dir, prof, cover string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	e := &exportProfile
	e.once.Do(func() {
		// In the directory of bin, which TestMain removes after the
		// tests: the tests share it, and no t.TempDir outlives its test.
		tmp, err := os.MkdirTemp(filepath.Dir(bin), "export")
		if err != nil {
			e.out, e.code = err.Error(), -1
			return
		}
		e.dir = filepath.Join(tmp, "m")
		cmdtest.WriteFiles(t, e.dir, exportModule)
		cmdtest.WriteFiles(t, e.dir, map[string]string{"go.mod": "module example.com/m\n\ngo 1.25\n"})
		e.prof, e.cover = filepath.Join(tmp, "prof"), filepath.Join(tmp, "cover.out")
		e.out, e.code = run(t, e.dir, bin, "test", "-dir", e.prof, "./...")
		if e.code == 0 {
			e.out, e.code = run(t, e.dir, "go", "test", "-covermode=count", "-coverpkg=./...", "-coverprofile="+e.cover, "./...")
		}
	})
	if e.code != 0 {
		t.Fatalf("pathcover test, then go test -coverprofile: exit %d\n%s", e.code, e.out)
	}
	return e.dir, e.prof, e.cover
}

// TestExportCoverProfile: in every mode, the export has go test's blocks,
// statements and counts, as go test wrote them for the same run (which
// writes a block once per test binary that has it, to be added up), and
// go tool cover reads it to the same total.
func TestExportCoverProfile(t *testing.T) {
	dir, prof, cover := exportSetup(t)
	goProfile := readProfile(t, cover, "count")
	for _, mode := range []string{"count", "set", "atomic"} {
		name := filepath.Join(t.TempDir(), "ours.out")
		if out, code := run(t, dir, bin, "export", "-dir", prof, "-format", "coverprofile", "-mode", mode, "-o", name); code != 0 {
			t.Fatalf("pathcover export -mode %s: exit %d\n%s", mode, code, out)
		}
		ours := readProfile(t, name, mode)
		want := goProfile
		if mode == "set" {
			want = make(map[string][2]uint64)
			for k, v := range goProfile {
				want[k] = [2]uint64{v[0], min(v[1], 1)}
			}
		}
		for k, v := range want {
			if ours[k] != v {
				t.Errorf("-mode %s: block %s: %d statements, count %d; go test: %d, %d", mode, k, ours[k][0], ours[k][1], v[0], v[1])
			}
		}
		for k := range ours {
			if _, ok := want[k]; !ok {
				t.Errorf("-mode %s: block %s is not go test's", mode, k)
			}
		}
		if mode == "count" {
			goTotal, ourTotal := coverFuncTotal(t, dir, cover), coverFuncTotal(t, dir, name)
			if goTotal != ourTotal {
				t.Errorf("go tool cover -func: total %q, go test's profile gives %q", ourTotal, goTotal)
			}
		}
	}
}

// readProfile reads a -coverprofile file in the given mode: its blocks
// (file:start,end) with their statements and counts, added up over the
// lines that repeat a block, as go tool cover does.
func readProfile(t *testing.T, name, mode string) map[string][2]uint64 {
	t.Helper()
	data := cmdtest.ReadFile(t, name)
	lines := strings.Split(strings.TrimSpace(data), "\n")
	if lines[0] != "mode: "+mode {
		t.Fatalf("%s: first line %q, want mode: %s", name, lines[0], mode)
	}
	blocks := make(map[string][2]uint64)
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("%s: line %q", name, line)
		}
		stmts, err1 := strconv.ParseUint(f[1], 10, 64)
		count, err2 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: line %q", name, line)
		}
		b := blocks[f[0]]
		b[0] = stmts
		if mode == "set" {
			b[1] = max(b[1], count)
		} else {
			b[1] += count
		}
		blocks[f[0]] = b
	}
	if len(blocks) == 0 {
		t.Fatalf("%s has no blocks", name)
	}
	return blocks
}

// coverFuncTotal returns the total line of go tool cover -func.
func coverFuncTotal(t *testing.T, dir, profile string) string {
	t.Helper()
	out, code := run(t, dir, "go", "tool", "cover", "-func="+profile)
	if code != 0 {
		t.Fatalf("go tool cover -func=%s: exit %d\n%s", profile, code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.Join(strings.Fields(lines[len(lines)-1]), " ")
}

// A figure is what a coverage tool says of one kind of thing: how many
// it found, and how many of them ran.
type figure struct{ found, hit int }

// oracle is what go test's own counts and the module's source say the
// exports must hold: the functions (declarations and literals) and the
// branch outcomes, found and run.
type oracle struct{ funcs, branches figure }

// branchOracle computes the oracle from go test's -covermode=count
// profile and the module's syntax, without pathcover: a function ran if
// the block its body starts ran; an if's true outcome ran if its body's
// block did, its false outcome if the if was reached more often than
// that; a loop's body outcome if its body ran, its exit if it was
// reached (exportModule's loops always end by their condition); a
// switch's case if its clause's block ran, and its "no case matches"
// (which default, if any, takes) if default's block ran or the switch was
// reached more often than its cases ran.
func branchOracle(t *testing.T, dir, cover string) oracle {
	t.Helper()
	blocks := readBlocks(t, cover)
	var o oracle
	for name := range exportModule {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		file := "example.com/m/" + name
		at := func(p token.Pos) uint64 { return blocks.at(file, fset.Position(p)) }
		startsAt := func(p token.Pos) uint64 { return blocks.startingAt(t, file, fset.Position(p)) }
		outcome := func(ran bool) {
			o.branches.found++
			if ran {
				o.branches.hit++
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				o.funcs.found++
				if startsAt(n.Body.Lbrace) > 0 {
					o.funcs.hit++
				}
			case *ast.FuncLit:
				o.funcs.found++
				if startsAt(n.Body.Lbrace) > 0 {
					o.funcs.hit++
				}
			case *ast.IfStmt:
				body := startsAt(n.Body.Lbrace)
				outcome(body > 0)
				outcome(at(n.Pos()) > body)
			case *ast.ForStmt:
				if n.Cond != nil {
					outcome(startsAt(n.Body.Lbrace) > 0)
					outcome(at(n.Pos()) > 0)
				}
			case *ast.RangeStmt:
				outcome(startsAt(n.Body.Lbrace) > 0)
				outcome(at(n.Pos()) > 0)
			case *ast.SwitchStmt, *ast.TypeSwitchStmt:
				var clauses []ast.Stmt
				if s, ok := n.(*ast.SwitchStmt); ok {
					clauses = s.Body.List
				} else {
					clauses = n.(*ast.TypeSwitchStmt).Body.List
				}
				var cases uint64
				noMatch := false
				hasDefault := false
				for _, c := range clauses {
					c := c.(*ast.CaseClause)
					runs := startsAt(c.Colon + 1)
					if c.List == nil {
						hasDefault, noMatch = true, runs > 0
						continue
					}
					cases += runs
					outcome(runs > 0)
				}
				if !hasDefault {
					noMatch = at(n.Pos()) > cases
				}
				outcome(noMatch)
			}
			return true
		})
	}
	if o.branches.found < 20 || o.branches.hit == o.branches.found || o.funcs.hit == o.funcs.found {
		t.Fatalf("the oracle is too weak to judge: %+v", o)
	}
	return o
}

type profileBlock struct {
	file                   string
	line, col, eline, ecol int
	count                  uint64
}

type profileBlocks []profileBlock

// readBlocks reads a -covermode=count profile's blocks, one a line.
func readBlocks(t *testing.T, name string) profileBlocks {
	t.Helper()
	var bs profileBlocks
	for _, line := range strings.Split(strings.TrimSpace(cmdtest.ReadFile(t, name)), "\n")[1:] {
		var b profileBlock
		colon := strings.LastIndexByte(line, ':')
		b.file = line[:colon]
		var stmts int
		if _, err := fmt.Sscanf(line[colon+1:], "%d.%d,%d.%d %d %d", &b.line, &b.col, &b.eline, &b.ecol, &stmts, &b.count); err != nil {
			t.Fatalf("%s: line %q: %v", name, line, err)
		}
		bs = append(bs, b)
	}
	return bs
}

// at returns the runs of the innermost block that holds position p: the
// one that starts last before it (blocks nest), added up over the test
// binaries that list it.
func (bs profileBlocks) at(file string, p token.Position) uint64 {
	var best *profileBlock
	var n uint64
	for i := range bs {
		b := &bs[i]
		in := b.file == file && before(b.line, b.col, p.Line, p.Column, true) && before(p.Line, p.Column, b.eline, b.ecol, false)
		if !in {
			continue
		}
		switch {
		case best == nil || before(best.line, best.col, b.line, b.col, false):
			best, n = b, b.count
		case best.line == b.line && best.col == b.col:
			n += b.count
		}
	}
	return n
}

// startingAt returns the runs of the block that starts at p.
func (bs profileBlocks) startingAt(t *testing.T, file string, p token.Position) uint64 {
	t.Helper()
	var n uint64
	found := false
	for _, b := range bs {
		if b.file == file && b.line == p.Line && b.col == p.Column {
			n += b.count
			found = true
		}
	}
	if !found {
		t.Fatalf("go test's profile has no block at %s:%d.%d", file, p.Line, p.Column)
	}
	return n
}

func before(l1, c1, l2, c2 int, orEqual bool) bool {
	return l1 < l2 || (l1 == l2 && (c1 < c2 || (orEqual && c1 == c2)))
}

// TestExportLCOV: genhtml reads the tracefile without a warning, and lcov's
// own summary has the oracle's functions and branch outcomes.
func TestExportLCOV(t *testing.T) {
	for _, tool := range []string{"lcov", "genhtml"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian's lcov package; .ci/run installs it)", tool)
		}
	}
	dir, prof, cover := exportSetup(t)
	want := branchOracle(t, dir, cover)
	info := filepath.Join(t.TempDir(), "ours.info")
	if out, code := run(t, dir, bin, "export", "-dir", prof, "-format", "lcov", "-o", info); code != 0 {
		t.Fatalf("pathcover export -format lcov: exit %d\n%s", code, out)
	}
	out, code := run(t, dir, "genhtml", "--branch-coverage", "-o", t.TempDir(), info)
	if code != 0 || strings.Contains(strings.ToLower(out), "warning") {
		t.Errorf("genhtml: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, "lcov", "--summary", info, "--rc", branchCoverageRC(t))
	if code != 0 {
		t.Fatalf("lcov --summary: exit %d\n%s", code, out)
	}
	got := oracle{funcs: lcovFigure(t, out, "functions"), branches: lcovFigure(t, out, "branches")}
	if got != want {
		t.Errorf("lcov --summary says %+v; go test's counts and the source say %+v\n%s", got, want, out)
	}
}

// branchCoverageRC turns lcov's branch coverage on, under the name of the
// lcov installed: 2.0 renamed it.
func branchCoverageRC(t *testing.T) string {
	out, _ := run(t, ".", "lcov", "--version")
	if m := regexp.MustCompile(`version (\d+)`).FindStringSubmatch(out); m != nil && m[1] == "1" {
		return "lcov_branch_coverage=1"
	}
	return "branch_coverage=1"
}

// lcovFigure reads a line of lcov --summary: "branches...: 50.0% (1 of 2 branches)".
func lcovFigure(t *testing.T, summary, what string) figure {
	t.Helper()
	m := regexp.MustCompile(what + `\.*: [0-9.]+% \((\d+) of (\d+) `).FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("lcov --summary has no %s:\n%s", what, summary)
	}
	hit, _ := strconv.Atoi(m[1])
	found, _ := strconv.Atoi(m[2])
	return figure{found, hit}
}

// npmTool installs an npm package into the user cache, once, and returns
// its node_modules directory; it skips the test where npm or the registry
// cannot be had.
func npmTool(t *testing.T, pkg string) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "pathcover-test", "npm", strings.NewReplacer("/", "_", "@", "").Replace(pkg))
	modules := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(dir, "installed")); err == nil {
		return modules
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, code := run(t, dir, "npm", "install", "--no-audit", "--no-fund", "--prefix", dir, pkg)
	if code != 0 {
		t.Skipf("npm install %s failed (offline?): exit %d\n%s", pkg, code, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "installed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return modules
}

// TestExportCobertura: cobertura-parse, the npm registry's Cobertura
// reader, reads the XML to the oracle's functions and branch outcomes, and
// to lcov's lines where lcov is installed.
func TestExportCobertura(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir, prof, cover := exportSetup(t)
	modules := npmTool(t, "cobertura-parse@1.0.5")
	want := branchOracle(t, dir, cover)
	xml := filepath.Join(t.TempDir(), "ours.xml")
	if out, code := run(t, dir, bin, "export", "-dir", prof, "-format", "cobertura", "-o", xml); code != 0 {
		t.Fatalf("pathcover export -format cobertura: exit %d\n%s", code, out)
	}
	script := `require("cobertura-parse").parseFile(process.argv[1], (err, classes) => {
	if (err) { console.error(err); process.exit(1) }
	console.log(JSON.stringify(classes))
})`
	cmd := exec.Command("node", "-e", script, xml)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	data, err := cmd.Output()
	if err != nil {
		t.Fatalf("cobertura-parse: %v\n%s", err, data)
	}
	var classes []struct {
		File                       string
		Lines, Functions, Branches struct{ Found, Hit int }
	}
	if err := json.Unmarshal(data, &classes); err != nil {
		t.Fatalf("cobertura-parse's output: %v\n%s", err, data)
	}
	var got oracle
	var lines figure
	files := map[string]bool{}
	for _, c := range classes {
		files[c.File] = true
		got.funcs.found += c.Functions.Found
		got.funcs.hit += c.Functions.Hit
		got.branches.found += c.Branches.Found
		got.branches.hit += c.Branches.Hit
		lines.found += c.Lines.Found
		lines.hit += c.Lines.Hit
	}
	if got != want {
		t.Errorf("cobertura-parse reads %+v; go test's counts and the source say %+v", got, want)
	}
	if !files["calc/calc.go"] || !files["util/util.go"] {
		t.Errorf("cobertura-parse reads files %v, want calc/calc.go and util/util.go relative to the root", files)
	}
	if _, err := exec.LookPath("lcov"); err == nil {
		info := filepath.Join(t.TempDir(), "ours.info")
		run(t, dir, bin, "export", "-dir", prof, "-format", "lcov", "-o", info)
		out, _ := run(t, dir, "lcov", "--summary", info)
		if l := lcovFigure(t, out, "lines"); l != lines {
			t.Errorf("cobertura-parse reads lines %+v, lcov %+v", lines, l)
		}
	}
}

// TestExportSARIF: Microsoft's SARIF multitool finds no error and no
// warning in the log, which has a result for each function that pathcover
// gate names, where gate says it is.
func TestExportSARIF(t *testing.T) {
	dir, prof, _ := exportSetup(t)
	modules := npmTool(t, "@microsoft/sarif-multitool-linux@5.7.0")
	tool := filepath.Join(modules, "@microsoft", "sarif-multitool-linux", "Sarif.Multitool")
	// Its install script, which makes it executable, may not have run.
	if err := os.Chmod(tool, 0o755); err != nil {
		t.Skipf("no SARIF multitool: %v", err)
	}
	sarif := filepath.Join(t.TempDir(), "ours.sarif")
	if out, code := run(t, dir, bin, "export", "-dir", prof, "-format", "sarif", "-min", "75", "-o", sarif); code != 0 {
		t.Fatalf("pathcover export -format sarif: exit %d\n%s", code, out)
	}
	validate := func(sarif string) {
		t.Helper()
		validation := filepath.Join(t.TempDir(), "validation.sarif")
		out, code := run(t, dir, tool, "validate", sarif, "-o", validation, "--level", "Error;Warning")
		if code != 0 {
			t.Fatalf("sarif-multitool validate: exit %d\n%s", code, out)
		}
		var v struct {
			Runs []struct{ Results []json.RawMessage }
		}
		if err := json.Unmarshal([]byte(cmdtest.ReadFile(t, validation)), &v); err != nil || len(v.Runs) != 1 {
			t.Fatalf("the validator's log: %v", err)
		}
		if n := len(v.Runs[0].Results); n > 0 {
			t.Errorf("sarif-multitool validate %s: %d errors and warnings\n%s", filepath.Base(sarif), n, out)
		}
	}
	validate(sarif)
	// This binary's version is whatever the clone gives; a build of a tag,
	// of an untagged commit and of no module version must all pass.
	for i, v := range []string{"v1.2.3", "v1.2.4-0.20261128095244-63406ac01ea5", "v0.0.0-20261128095244-63406ac01ea5+dirty", "(devel)"} {
		var buf bytes.Buffer
		if err := export.WriteSARIF(&buf, nil, dir, v); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(t.TempDir(), fmt.Sprintf("version%d.sarif", i))
		cmdtest.WriteFiles(t, filepath.Dir(name), map[string]string{filepath.Base(name): buf.String()})
		validate(name)
	}

	out, code := run(t, dir, bin, "gate", "-dir", prof, "-min", "75")
	if code != 1 {
		t.Fatalf("pathcover gate: exit %d, want 1\n%s", code, out)
	}
	var want []string // file:line of each finding
	for _, line := range strings.Split(out, "\n") {
		if m := regexp.MustCompile(`^(\S+\.go):(\d+):1: `).FindStringSubmatch(line); m != nil {
			want = append(want, m[1]+":"+m[2])
		}
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           struct{ StartLine int }
					}
				}
				CodeFlows []json.RawMessage
			}
		}
	}
	if err := json.Unmarshal([]byte(cmdtest.ReadFile(t, sarif)), &log); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range log.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		got = append(got, loc.ArtifactLocation.URI+":"+strconv.Itoa(loc.Region.StartLine))
		if len(r.CodeFlows) == 0 {
			t.Errorf("result at %s has no code flow", got[len(got)-1])
		}
	}
	if len(want) == 0 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("SARIF results at %v; pathcover gate names %v", got, want)
	}
}

// TestExportErrors: usage errors exit 2, a profile with nothing in it 3,
// each with a message.
func TestExportErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-dir", empty}, 2, "give -format"},
		{[]string{"-dir", empty, "-format", "html"}, 2, `unknown format "html"`},
		{[]string{"-dir", empty, "-format", "lcov", "-mode", "set"}, 2, "-mode is for -format coverprofile"},
		{[]string{"-dir", empty, "-format", "coverprofile", "-min", "50"}, 2, "-min is for -format sarif"},
		{[]string{"-dir", empty, "-format", "coverprofile", "-mode", "sometimes"}, 2, `unknown mode "sometimes"`},
		{[]string{"-dir", empty, "-format", "sarif"}, 2, "-min must be given"},
		{[]string{"-dir", empty, "-format", "lcov"}, 3, "holds no profile"},
		{[]string{"-dir", filepath.Join(empty, "none"), "-format", "coverprofile"}, 3, "none"},
	} {
		out, code := run(t, ".", bin, append([]string{"export"}, tc.args...)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("pathcover export %s: exit %d, want %d and %q\n%s", strings.Join(tc.args, " "), code, tc.code, tc.want, out)
		}
	}
}
