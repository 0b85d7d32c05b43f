package main_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The pprof and pgo exports are read back by go tool pprof, which parses
// them with github.com/google/pprof's own decoder (-raw prints what it
// read), and judged against go test's -covermode=count profile of the
// same tests and the packages' syntax and types, which know nothing of
// paths: a function's executions are the runs of the block its body
// starts; its paths, if its loops leave only by their condition, its
// executions and one more for each round of a loop; a line inside one
// block and no other ran as often as that block; and a static call as
// often as the block that holds it.

// TestExportPprof: go tool pprof reads the export, and its executions,
// lines, paths and test labels are go test's, in exportModule and in the
// example's parser (methods, loops, recursion).
func TestExportPprof(t *testing.T) {
	dir, prof, cover := exportSetup(t)
	t.Run("module", func(t *testing.T) {
		checkPprof(t, dir, prof, cover, []string{"./..."}, []string{"TestCalc"})
	})
	t.Run("example", func(t *testing.T) {
		root, prof, cover := exampleProfile(t)
		checkPprof(t, root, prof, cover, []string{"./example/expr"}, nil)
	})
}

// exampleProfile profiles example/expr's tests with pathcover test and
// with go test -coverprofile.
func exampleProfile(t *testing.T) (root, prof, cover string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	prof, cover = filepath.Join(tmp, "prof"), filepath.Join(tmp, "cover.out")
	if out, code := run(t, root, bin, "test", "-dir", prof, "./example/expr"); code != 0 {
		t.Fatalf("pathcover test ./example/expr: exit %d\n%s", code, out)
	}
	if out, code := run(t, root, "go", "test", "-covermode=count", "-coverprofile="+cover, "./example/expr"); code != 0 {
		t.Fatalf("go test -coverprofile: exit %d\n%s", code, out)
	}
	return root, prof, cover
}

func checkPprof(t *testing.T, dir, prof, cover string, patterns, tests []string) {
	out := filepath.Join(t.TempDir(), "p.pprof")
	if o, code := run(t, dir, bin, "export", "-dir", prof, "-format", "pprof", "-o", out); code != 0 {
		t.Fatalf("pathcover export -format pprof: exit %d\n%s", code, o)
	}
	raw := readRawPprof(t, dir, out)
	if want := []string{"executions/count", "paths/count", "lines/count"}; strings.Join(raw.types, " ") != strings.Join(want, " ") || raw.dflt != 0 {
		t.Fatalf("sample types %v (default %d), want %v (default executions)", raw.types, raw.dflt, want)
	}
	o := coverOracle(t, dir, cover, patterns)

	executions := make(map[string]int64)
	paths := make(map[string]int64)
	lines := make(map[string]int64) // "file:line", the file as go test names it
	labelled := make(map[string]int64)
	for _, s := range raw.samples {
		if len(s.stack) != 1 {
			t.Fatalf("a sample of %d frames: %+v", len(s.stack), s)
		}
		loc := raw.locations[s.stack[0]]
		executions[loc.fn] += s.values[0]
		paths[loc.fn] += s.values[1]
		lines[o.goFile(loc.file)+":"+strconv.Itoa(loc.line)] += s.values[2]
		if s.values[1] > 0 && s.labels["path"] == "" {
			t.Errorf("paths of %s with no path label", loc.fn)
		}
		if tests != nil {
			labelled[s.labels["test"]] += s.values[0]
		}
	}
	checked := 0
	for fn, want := range o.executions {
		if executions[fn] != want {
			t.Errorf("%s: %d executions, go test's profile gives %d", fn, executions[fn], want)
		}
		if want > 0 {
			checked++
		}
	}
	if checked < 3 {
		t.Fatalf("the oracle is too weak: %d functions ran, of %d", checked, len(o.executions))
	}
	for fn, want := range o.paths {
		if paths[fn] != want {
			t.Errorf("%s: %d paths, go test's profile gives %d", fn, paths[fn], want)
		}
	}
	if len(o.paths) < 3 {
		t.Fatalf("the oracle is too weak: paths of %d functions", len(o.paths))
	}
	for at, want := range o.lines {
		if lines[at] != want {
			t.Errorf("%s: %d runs, go test's profile gives %d", at, lines[at], want)
		}
	}
	if len(o.lines) < 5 {
		t.Fatalf("the oracle is too weak: %d lines", len(o.lines))
	}
	if tests != nil {
		var all int64
		for _, n := range executions {
			all += n
		}
		var named int64
		for _, name := range tests {
			named += labelled[name]
		}
		if named != all {
			t.Errorf("executions by test %v, want all %d by %v", labelled, all, tests)
		}
	}

	// What a user types: -top lists functions by executions, and -list
	// shows a line's runs beside its source.
	top, code := run(t, dir, "go", "tool", "pprof", "-top", out)
	if code != 0 {
		t.Fatalf("go tool pprof -top: exit %d\n%s", code, top)
	}
	hottest, most := "", int64(-1)
	for fn, n := range o.executions {
		if n > most || (n == most && fn < hottest) {
			hottest, most = fn, n
		}
	}
	if !regexp.MustCompile(`(?m)^\s*` + strconv.FormatInt(most, 10) + `\s.*\s` + regexp.QuoteMeta(hottest) + `$`).MatchString(top) {
		t.Errorf("go tool pprof -top does not list %s with %d executions:\n%s", hottest, most, top)
	}
	var line string
	var runs int64
	for at, n := range o.lines {
		if n > runs || (n == runs && at < line) {
			line, runs = at, n
		}
	}
	colon := strings.LastIndexByte(line, ':')
	list, code := run(t, dir, "go", "tool", "pprof", "-sample_index=lines", "-list", regexp.QuoteMeta(o.funcAt[line])+"$", out)
	if code != 0 {
		t.Fatalf("go tool pprof -list: exit %d\n%s", code, list)
	}
	if !regexp.MustCompile(`(?m)^\s*` + strconv.FormatInt(runs, 10) + `\s+` + strconv.FormatInt(runs, 10) + `\s+` + line[colon+1:] + `:\s*\S`).MatchString(list) {
		t.Errorf("go tool pprof -list %s does not show line %s with %d runs and its source:\n%s", o.funcAt[line], line, runs, list)
	}
}

// TestExportPGO: go tool pprof reads the pgo export, whose call edges are
// every static call of the example's parser with the runs of its block in
// go test's profile, and go build -pgo takes it: the compiler finds hot
// call sites in it.
func TestExportPGO(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	root, prof, cover := exampleProfile(t)
	out := filepath.Join(t.TempDir(), "default.pgo")
	if o, code := run(t, root, bin, "export", "-dir", prof, "-format", "pgo", "-o", out); code != 0 {
		t.Fatalf("pathcover export -format pgo: exit %d\n%s", code, o)
	}
	raw := readRawPprof(t, root, out)
	if strings.Join(raw.types, " ") != "samples/count" {
		t.Fatalf("sample types %v, want samples/count, which Go's PGO reads", raw.types)
	}
	got := make(map[string]int64) // caller:line→callee
	for _, s := range raw.samples {
		if len(s.stack) != 2 {
			t.Fatalf("a sample of %d frames, want callee and caller: %+v", len(s.stack), s)
		}
		callee, caller := raw.locations[s.stack[0]], raw.locations[s.stack[1]]
		if caller.start == 0 {
			t.Errorf("caller %s has no start line, which PGO's call offsets need", caller.fn)
		}
		got[fmt.Sprintf("%s:%d→%s", caller.fn, caller.line, callee.fn)] += s.values[0]
	}
	o := coverOracle(t, root, cover, []string{"./example/expr"})
	ran := 0
	for edge, want := range o.calls {
		if got[edge] != want {
			t.Errorf("%s: weight %d, go test's profile gives %d", edge, got[edge], want)
		}
		if want > 0 {
			ran++
		}
	}
	if ran < 5 {
		t.Fatalf("the oracle is too weak: %d calls ran", ran)
	}
	build, code := run(t, root, "go", "build", "-o", filepath.Join(t.TempDir(), "calc"), "-pgo="+out,
		"-gcflags=github.com/pathcover/pathcover/example/expr=-d=pgodebug=1", "./example/cmd/calc")
	if code != 0 {
		t.Fatalf("go build -pgo: exit %d\n%s", code, build)
	}
	if !strings.Contains(build, "hot-callsite-thres-from-CDF") || !strings.Contains(build, "hot-budget check allows inlining for call") {
		t.Errorf("go build -pgo found no hot call site in the profile:\n%s", build)
	}
}

// rawPprof is what go tool pprof -raw prints of a profile.
type rawPprof struct {
	types     []string
	dflt      int
	samples   []rawSample
	locations map[int]rawLocation
}

type rawSample struct {
	values []int64
	stack  []int // location ids, leaf first
	labels map[string]string
}

type rawLocation struct {
	fn, file    string
	line, start int
}

var (
	// pprof prints a sample's string labels on one line, its numeric
	// ones on the next, each key:[value].
	rawLabelLine    = regexp.MustCompile(`^\s+\w+:\[`)
	rawLabel        = regexp.MustCompile(`(\w+):\[([^\]]*)\]`)
	rawLocationLine = regexp.MustCompile(`^\s+(\d+): 0x0 M=1 (\S+) (\S*):(\d+):\d+ s=(\d+)$`)
)

// readRawPprof reads a profile with go tool pprof -raw.
func readRawPprof(t *testing.T, dir, file string) *rawPprof {
	t.Helper()
	out, code := run(t, dir, "go", "tool", "pprof", "-raw", file)
	if code != 0 {
		t.Fatalf("go tool pprof -raw: exit %d\n%s", code, out)
	}
	raw := &rawPprof{locations: make(map[int]rawLocation)}
	section := ""
	for _, l := range strings.Split(out, "\n") {
		switch {
		case l == "Samples:" || l == "Locations" || l == "Mappings":
			section = l
			continue
		case section == "Samples:" && raw.types == nil:
			for i, f := range strings.Fields(l) {
				if strings.HasSuffix(f, "[dflt]") {
					raw.dflt, f = i, strings.TrimSuffix(f, "[dflt]")
				}
				raw.types = append(raw.types, f)
			}
			continue
		}
		switch section {
		case "Samples:":
			if rawLabelLine.MatchString(l) && len(raw.samples) > 0 {
				s := raw.samples[len(raw.samples)-1]
				for _, m := range rawLabel.FindAllStringSubmatch(l, -1) {
					s.labels[m[1]] = strings.TrimSuffix(m[2], " id")
				}
				continue
			}
			// The values, then ": " and the stack; pprof right-aligns
			// them, so split on the last colon.
			colon := strings.LastIndex(l, ": ")
			if colon < 0 {
				colon = strings.LastIndex(l, ":")
			}
			if colon < 0 || strings.TrimSpace(l) == "" {
				continue
			}
			s := rawSample{labels: make(map[string]string)}
			for _, f := range strings.Fields(l[:colon]) {
				v, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					t.Fatalf("pprof -raw sample %q: %v", l, err)
				}
				s.values = append(s.values, v)
			}
			for _, f := range strings.Fields(l[colon+1:]) {
				id, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("pprof -raw sample %q: %v", l, err)
				}
				s.stack = append(s.stack, id)
			}
			if len(s.values) != len(raw.types) {
				t.Fatalf("pprof -raw sample %q: %d values for %d types", l, len(s.values), len(raw.types))
			}
			raw.samples = append(raw.samples, s)
		case "Locations":
			if m := rawLocationLine.FindStringSubmatch(l); m != nil {
				id, _ := strconv.Atoi(m[1])
				line, _ := strconv.Atoi(m[4])
				start, _ := strconv.Atoi(m[5])
				raw.locations[id] = rawLocation{fn: m[2], file: m[3], line: line, start: start}
			} else if strings.TrimSpace(l) != "" {
				t.Fatalf("pprof -raw location %q: not as expected", l)
			}
		}
	}
	if len(raw.samples) == 0 || len(raw.locations) == 0 {
		t.Fatalf("go tool pprof -raw read no samples or no locations:\n%s", out)
	}
	for _, s := range raw.samples {
		for _, id := range s.stack {
			if _, ok := raw.locations[id]; !ok {
				t.Fatalf("sample at location %d, which the profile lacks", id)
			}
		}
	}
	return raw
}

// pprofOracle is what go test's profile and the packages' syntax and types
// say of their functions, keyed by the names runtime/pprof gives them
// (package path, ".", the name as the compiler spells it).
type pprofOracle struct {
	executions map[string]int64
	paths      map[string]int64  // of functions whose loops end only by their condition
	lines      map[string]int64  // "file:line" → runs, of lines within one block alone
	funcAt     map[string]string // "file:line" → the function the line is in
	calls      map[string]int64  // "caller:line→callee", static calls outside loop headers, case lists and && ||
	files      map[string]string // absolute file → go test's name for it
}

// goFile returns go test's name of an absolute file.
func (o *pprofOracle) goFile(abs string) string {
	if name, ok := o.files[abs]; ok {
		return name
	}
	return abs
}

func coverOracle(t *testing.T, dir, cover string, patterns []string) *pprofOracle {
	t.Helper()
	blocks := readBlocks(t, cover)
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo, Dir: dir}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	o := &pprofOracle{executions: map[string]int64{}, paths: map[string]int64{}, lines: map[string]int64{}, funcAt: map[string]string{}, calls: map[string]int64{}, files: map[string]string{}}
	for _, pkg := range pkgs {
		if len(pkg.Errors) > 0 {
			t.Fatalf("%s: %v", pkg.PkgPath, pkg.Errors)
		}
		for _, f := range pkg.Syntax {
			abs := pkg.Fset.File(f.Pos()).Name()
			if strings.HasSuffix(abs, "_test.go") {
				continue
			}
			file := pkg.PkgPath + "/" + filepath.Base(abs)
			o.files[abs] = file
			pos := func(p token.Pos) token.Position { return pkg.Fset.Position(p) }
			startsAt := func(p token.Pos) int64 { return int64(blocks.startingAt(t, file, pos(p))) }
			at := func(p token.Pos) int64 { return int64(blocks.at(file, pos(p))) }
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil || len(fd.Body.List) == 0 {
					continue
				}
				name := pkg.PkgPath + "." + declName(pkg.TypesInfo, fd)
				calls := startsAt(fd.Body.Lbrace)
				o.executions[name] = calls
				for l := pos(fd.Pos()).Line; l <= pos(fd.End()).Line; l++ {
					o.funcAt[file+":"+strconv.Itoa(l)] = name
				}
				if rounds, ok := loopRounds(fd.Body, startsAt); ok {
					o.paths[name] = calls + rounds
				}
				staticCalls(fd.Body, pkg.TypesInfo, func(call *ast.CallExpr, callee *types.Func) {
					o.calls[fmt.Sprintf("%s:%d→%s", name, pos(call.Lparen).Line, callee.Pkg().Path()+"."+objName(callee))] += at(call.Lparen)
				})
			}
		}
	}
	// Lines strictly inside one block and touched by no other; a block
	// is listed by every test binary that has it, to be added up.
	type span struct {
		file                   string
		line, col, eline, ecol int
	}
	runs := make(map[span]int64)
	for _, b := range blocks {
		runs[span{b.file, b.line, b.col, b.eline, b.ecol}] += int64(b.count)
	}
	for b, n := range runs {
		for l := b.line + 1; l < b.eline; l++ {
			alone := true
			for c := range runs {
				if c != b && c.file == b.file && c.line <= l && l <= c.eline {
					alone = false
					break
				}
			}
			at := b.file + ":" + strconv.Itoa(l)
			if alone && o.funcAt[at] != "" {
				o.lines[at] = n
			}
		}
	}
	return o
}

// loopRounds returns how many times the loops of body went round, if each
// ends only by its condition: the runs of each loop body's block, which
// then always reaches the loop's end. A function literal's loops are its
// own; a body with break, continue, goto, return or panic in a loop, or a
// select, says nothing.
func loopRounds(body *ast.BlockStmt, startsAt func(token.Pos) int64) (int64, bool) {
	var rounds int64
	ok := true
	var walk func(n ast.Node, inLoop bool)
	walk = func(n ast.Node, inLoop bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt:
				if m.Cond == nil {
					ok = false
				}
				rounds += startsAt(m.Body.Lbrace)
				walk(m.Body, true)
				return false
			case *ast.RangeStmt:
				rounds += startsAt(m.Body.Lbrace)
				walk(m.Body, true)
				return false
			case *ast.BranchStmt, *ast.SelectStmt, *ast.LabeledStmt:
				ok = false
			case *ast.ReturnStmt:
				if inLoop {
					ok = false
				}
			case *ast.CallExpr:
				if id, isIdent := m.Fun.(*ast.Ident); isIdent && (id.Name == "panic" || id.Name == "recover") {
					ok = false
				}
			}
			return true
		})
	}
	walk(body, false)
	return rounds, ok
}

// staticCalls calls found for each call in body, outside function literals,
// of a function or a concrete method that types name, whose block's runs
// are its own: not in a loop's condition or post statement, a case list,
// or the right of && or ||, which run more or less often than their block.
func staticCalls(body *ast.BlockStmt, info *types.Info, found func(*ast.CallExpr, *types.Func)) {
	skip := make(map[ast.Node]bool)
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt:
			skip[n.Cond], skip[n.Post] = true, true
		case *ast.CaseClause:
			for _, e := range n.List {
				skip[e] = true
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				skip[n.Y] = true
			}
		case *ast.CallExpr:
			var id *ast.Ident
			switch fun := n.Fun.(type) {
			case *ast.Ident:
				id = fun
			case *ast.SelectorExpr:
				id = fun.Sel
			}
			if fn, ok := info.Uses[id].(*types.Func); ok {
				if sig := fn.Signature(); sig.Recv() == nil || !types.IsInterface(sig.Recv().Type()) {
					found(n, fn)
				}
			}
		}
		if n != nil && skip[n] {
			return false
		}
		return true
	})
}
