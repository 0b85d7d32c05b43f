package report

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/pathcover/pathcover/internal/source"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A TestRun is a test, or tests that ran together, that ran a path, and
// how many times.
type TestRun struct {
	profile.TestGroup
	Count uint64
	// Unrecorded marks the runs of processes that did not record their
	// tests: programs (an integration run's server), or tests profiled
	// with -tests=false, merged into the same profile.
	Unrecorded bool `json:",omitempty"`
}

// Label names the tests: the test, "outside tests", or, for tests that ran
// together, their names joined with " | " (parallel subtests of one test
// as the parent's name and "/{...}"), marked as parallel.
func (r TestRun) Label() string {
	if r.Unrecorded {
		return "(processes that record no tests: programs, integration runs)"
	}
	g := r.TestGroup
	if len(g.Tests) <= 1 {
		return g.String()
	}
	label := strings.Join(g.Tests, " | ")
	if parent, ok := commonParent(g.Tests); ok {
		subs := make([]string, len(g.Tests))
		for i, name := range g.Tests {
			subs[i] = strings.TrimPrefix(name, parent+"/")
		}
		label = parent + "/{" + strings.Join(subs, ",") + "}"
	}
	if g.Parallel {
		return label + " (in parallel: not told apart)"
	}
	return label + " (together: not told apart)"
}

// commonParent returns the test that all of names are subtests of, if
// they are all its direct subtests.
func commonParent(names []string) (string, bool) {
	i := strings.LastIndexByte(names[0], '/')
	if i < 0 {
		return "", false
	}
	parent := names[0][:i]
	for _, n := range names[1:] {
		if j := strings.LastIndexByte(n, '/'); j != i || n[:j] != parent {
			return "", false
		}
	}
	return parent, true
}

// Attributed reports whether the profile says which tests ran the
// function's paths (pathcover test, pppexec -tests). A function counted
// in a hot path table is not attributed: its entries are replaced.
func (f *Func) Attributed() bool { return f.tests != nil && !f.unattributed }

// Tests returns the tests that ran path id, most runs first.
func (f *Func) Tests(id uint64) []TestRun {
	var runs []TestRun
	var sum uint64
	for g, n := range f.tests[id] {
		runs = append(runs, TestRun{TestGroup: f.groups[g], Count: n})
		sum = numbering.SatAdd(sum, n)
	}
	if sum < f.counts[id] {
		runs = append(runs, TestRun{Count: f.counts[id] - sum, Unrecorded: true})
	}
	sortTestRuns(runs)
	return runs
}

// sortTestRuns sorts runs most first, then by name.
func sortTestRuns(runs []TestRun) {
	slices.SortFunc(runs, func(a, b TestRun) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.String(), b.String()))
	})
}

// addTests adds what attribution a says of function fn of metadata hash.
func (f *Func) addTests(a *profile.Attribution, hash string, fn int) {
	if a == nil {
		return
	}
	if f.tests == nil {
		f.tests = make(map[uint64]map[int]uint64)
	}
	f.groups = a.Groups
	f.unattributed = f.unattributed || a.Unattributed[hash][fn]
	for id, byGroup := range a.Runs[hash][fn] {
		if f.tests[id] == nil {
			f.tests[id] = make(map[int]uint64)
		}
		for g, n := range byGroup {
			f.tests[id][g] = numbering.SatAdd(f.tests[id][g], n)
		}
	}
}

// writeTests writes the tests that ran a path, one a line.
func writeTests(w io.Writer, runs []TestRun) {
	for _, r := range runs {
		times := "once"
		if r.Count != 1 {
			times = atLeast(r.Count) + " times"
		}
		fmt.Fprintf(w, "\tby %s, %s\n", r.Label(), times)
	}
}

// PathLines returns the spans of source lines that path id runs through:
// the function's first line for a path from its start, each block's
// lines, and each branch's line. A supergraph's path, whose blocks lie in
// several files, has none.
func (f *Func) PathLines(id uint64) ([][2]int, error) {
	if f.meta.Super != nil {
		return nil, nil
	}
	n := f.numbering
	dag, err := n.Decode(id)
	if err != nil {
		return nil, err
	}
	var spans [][2]int
	block := func(b int32) {
		if bl := f.meta.Blocks[b]; bl.Line > 0 {
			spans = append(spans, [2]int{bl.Line, max(bl.Line, bl.EndLine)})
		}
	}
	for i, e := range dag {
		ne := n.Edge(e)
		switch ne.Kind {
		case numbering.StartEdge:
			if i == 0 && ne.Dst == n.Graph().Entry {
				spans = append(spans, [2]int{f.meta.Line, f.meta.Line})
			}
			block(int32(ne.Dst))
		case numbering.EndEdge:
			block(f.meta.Edges[ne.Cut].Src)
		default:
			me := f.meta.Edges[e]
			block(me.Src)
			block(me.Dst)
			if me.Line > 0 {
				spans = append(spans, [2]int{me.Line, me.Line})
			}
		}
	}
	return spans, nil
}

// FuncTests are the tests that ran a function's paths, or one path's.
type FuncTests struct {
	Package, Name, File string
	Line                int
	// Path is the path asked about, if one was.
	Path *uint64 `json:",omitempty"`
	// Paths and Ran are the function's paths, and those that ran.
	Paths, Ran uint64
	Tests      []FuncTestRun
}

// A FuncTestRun is a test, or tests that ran together, with the runs and
// the paths of the function it ran.
type FuncTestRun struct {
	TestRun
	Paths []uint64
}

// TestsOf returns the tests that ran f's paths, or only path id if path.
func (f *Func) TestsOf(id uint64, path bool) (*FuncTests, error) {
	if !f.Attributed() {
		return nil, fmt.Errorf("the profile does not say which tests ran %s's paths", f.Name)
	}
	ft := &FuncTests{Package: f.Package, Name: f.Name, File: f.File, Line: f.Line, Paths: f.numbering.NumPaths(), Ran: uint64(len(f.counts))}
	if path {
		if id >= ft.Paths {
			return nil, fmt.Errorf("%s has %d paths: no path %d", f.Name, ft.Paths, id)
		}
		ft.Path = &id
	}
	byGroup := make(map[int]*FuncTestRun)
	for pid, groups := range f.tests {
		if path && pid != id {
			continue
		}
		for g, n := range groups {
			r := byGroup[g]
			if r == nil {
				r = &FuncTestRun{TestRun: TestRun{TestGroup: f.groups[g]}}
				byGroup[g] = r
			}
			r.Count = numbering.SatAdd(r.Count, n)
			r.Paths = append(r.Paths, pid)
		}
	}
	unrecorded := FuncTestRun{TestRun: TestRun{Unrecorded: true}}
	for pid, n := range f.counts {
		if path && pid != id {
			continue
		}
		var sum uint64
		for _, m := range f.tests[pid] {
			sum = numbering.SatAdd(sum, m)
		}
		if sum < n {
			unrecorded.Count = numbering.SatAdd(unrecorded.Count, n-sum)
			unrecorded.Paths = append(unrecorded.Paths, pid)
		}
	}
	for _, r := range byGroup {
		slices.Sort(r.Paths)
		ft.Tests = append(ft.Tests, *r)
	}
	slices.SortFunc(ft.Tests, func(a, b FuncTestRun) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.String(), b.String()))
	})
	if unrecorded.Count > 0 {
		slices.Sort(unrecorded.Paths)
		ft.Tests = append(ft.Tests, unrecorded)
	}
	return ft, nil
}

// WriteText writes the function, then a line for each test: its runs and,
// for the whole function, the paths it ran.
func (ft *FuncTests) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	cwd, _ := os.Getwd()
	what := fmt.Sprintf("%d of its %d paths ran", ft.Ran, ft.Paths)
	if ft.Path != nil {
		what = fmt.Sprintf("path %d", *ft.Path)
	}
	tests := 0
	for _, r := range ft.Tests {
		if !r.Unrecorded {
			tests++
		}
	}
	fmt.Fprintf(ew, "%s (%s:%d): %s, by %d tests\n", source.FuncName(profile.PackagePath(ft.Package), ft.Name), relative(cwd, ft.File), ft.Line, what, tests)
	for _, r := range ft.Tests {
		runs := "1 run"
		if r.Count != 1 {
			runs = atLeast(r.Count) + " runs"
		}
		if ft.Path != nil {
			fmt.Fprintf(ew, "\t%s\t%s\n", r.Label(), runs)
			continue
		}
		ids := make([]string, len(r.Paths))
		for i, id := range r.Paths {
			ids[i] = fmt.Sprint(id)
		}
		fmt.Fprintf(ew, "\t%s\t%s, paths %s\n", r.Label(), runs, strings.Join(ids, " "))
	}
	return ew.err
}

// WriteJSON writes the function's tests as JSON.
func (ft *FuncTests) WriteJSON(w io.Writer) error {
	if ft.Tests == nil {
		ft.Tests = []FuncTestRun{}
	}
	return writeJSON(w, ft)
}

// TestsList is the tests of several functions (one name can denote
// several).
type TestsList []*FuncTests

// WriteText writes each function's tests, a blank line between them.
func (l TestsList) WriteText(w io.Writer) error {
	for i, ft := range l {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := ft.WriteText(w); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the functions' tests as a JSON list.
func (l TestsList) WriteJSON(w io.Writer) error {
	for _, ft := range l {
		if ft.Tests == nil {
			ft.Tests = []FuncTestRun{}
		}
	}
	if l == nil {
		l = TestsList{}
	}
	return writeJSON(w, l)
}

// Affected are the tests whose paths run through changed lines (test
// impact analysis).
type Affected struct {
	Since string
	// Tests are the tests, or tests that ran together, that ran a changed
	// line, with the functions where they did.
	Tests []AffectedTest
	// Unreached are the changed functions of the profile none of whose
	// paths that ran goes through a changed line.
	Unreached []string
	// Run are go test -run patterns that run the tests and the subtests
	// that ran a changed line (and no others), by package: one a
	// package, or more where top-level tests' affected subtests differ.
	Run []GoTestRun
}

// An AffectedTest is tests that ran a changed line, with the functions.
type AffectedTest struct {
	profile.TestGroup
	Funcs []string
}

// A GoTestRun is a package and a -run pattern for its affected tests;
// All says that code outside its tests (init, TestMain) runs a changed
// line, so every test of the package does.
type GoTestRun struct {
	Package string
	Pattern string `json:",omitempty"`
	All     bool   `json:",omitempty"`
}

// Affected returns the tests whose attributed paths run through a line
// that changed reports changed, in the profile's lines (the revision the
// profile was made at). It is an error if no function of the report is
// attributed.
func (r *Report) Affected(since string, changed func(file string, first, last int) bool) (*Affected, error) {
	a := &Affected{Since: since}
	tests := make(map[string]*AffectedTest) // by package and group
	attributed := false
	parents := make(map[string]bool) // package and test of the tests that ran a subtest
	for _, pkg := range r.Packages {
		// A test's own changed lines affect it too, where the build
		// counted them (-deps, -wet).
		for _, f := range slices.Concat(pkg.Funcs, pkg.TestFuncs) {
			if !f.Attributed() {
				continue
			}
			attributed = true
			for _, grp := range f.groups {
				for _, name := range grp.Tests {
					for i, c := range name {
						if c == '/' {
							parents[grp.Package+"\x00"+name[:i]] = true
						}
					}
				}
			}
			if !changed(f.File, f.Line, f.EndLine) {
				continue
			}
			name := f.Package + "." + f.Name
			reached := false
			for _, id := range slices.Sorted(maps.Keys(f.tests)) {
				spans, err := f.PathLines(id)
				if err != nil {
					return nil, err
				}
				if !slices.ContainsFunc(spans, func(s [2]int) bool { return changed(f.File, s[0], s[1]) }) {
					continue
				}
				reached = true
				for g := range f.tests[id] {
					grp := f.groups[g]
					k := grp.Package + "\x00" + grp.String()
					t := tests[k]
					if t == nil {
						t = &AffectedTest{TestGroup: grp}
						tests[k] = t
					}
					if !slices.Contains(t.Funcs, name) {
						t.Funcs = append(t.Funcs, name)
					}
				}
			}
			if !reached {
				a.Unreached = append(a.Unreached, name)
			}
		}
	}
	if !attributed {
		return nil, errors.New("the profile does not say which tests ran its paths: record one with pathcover test, which does unless -tests=false, or a build with pppexec -tests")
	}
	named := make(map[string][]string) // package → the tests that ran a changed line
	all := make(map[string]bool)
	for _, t := range tests {
		slices.Sort(t.Funcs)
		a.Tests = append(a.Tests, *t)
		if len(t.Tests) == 0 {
			all[t.Package] = true
		}
		named[t.Package] = append(named[t.Package], t.Tests...)
	}
	slices.SortFunc(a.Tests, func(x, y AffectedTest) int {
		return cmp.Or(cmp.Compare(x.Package, y.Package), cmp.Compare(x.String(), y.String()))
	})
	for _, pkg := range slices.Sorted(maps.Keys(named)) {
		if all[pkg] {
			a.Run = append(a.Run, GoTestRun{Package: pkg, All: true})
			continue
		}
		for _, p := range runPatterns(named[pkg], func(name string) bool { return parents[pkg+"\x00"+name] }) {
			a.Run = append(a.Run, GoTestRun{Package: pkg, Pattern: p})
		}
	}
	return a, nil
}

// runPatterns returns the -run patterns that run exactly the tests
// named (full names) and their parents, as go test matches a pattern
// (split at its slashes, each element against a name's level, a subtest
// only under a parent that runs), of the tests that ran subtests
// (hasSubtests) only those subtests named. Tests whose named subtests
// are alike share a pattern.
func runPatterns(names []string, hasSubtests func(name string) bool) []string {
	root := &testNode{children: make(map[string]*testNode)}
	for _, name := range names {
		n := root
		for _, level := range strings.Split(name, "/") {
			c := n.children[level]
			if c == nil {
				c = &testNode{name: level, children: make(map[string]*testNode)}
				if n != root {
					c.full = n.full + "/" + level
				} else {
					c.full = level
				}
				n.children[level] = c
			}
			n = c
		}
	}
	var out []string
	for _, s := range root.suffixes(hasSubtests) {
		out = append(out, strings.TrimPrefix(s, "/"))
	}
	return out
}

// A testNode is a test, with its subtests that were named.
type testNode struct {
	name, full string
	children   map[string]*testNode
}

// suffixes returns the rest of the -run patterns that, after a pattern
// that runs n, run exactly n's named subtests (each pattern element
// after a slash): none of its subtests ("/^$") if it has some but none
// is named, else for each pattern that runs some of them, its subtests
// that share it, alternated.
func (n *testNode) suffixes(hasSubtests func(name string) bool) []string {
	if len(n.children) == 0 {
		if n.full != "" && hasSubtests(n.full) {
			return []string{"/^$"}
		}
		return []string{""}
	}
	by := make(map[string][]string) // a suffix → the subtests it runs
	for _, c := range n.children {
		for _, s := range c.suffixes(hasSubtests) {
			by[s] = append(by[s], regexp.QuoteMeta(c.name))
		}
	}
	var out []string
	for _, s := range slices.Sorted(maps.Keys(by)) {
		slices.Sort(by[s])
		out = append(out, "/"+alternatives(by[s])+s)
	}
	return out
}

// alternatives is a regular expression that matches exactly one of the
// (quoted) names.
func alternatives(names []string) string {
	if len(names) == 1 {
		return "^" + names[0] + "$"
	}
	return "^(" + strings.Join(names, "|") + ")$"
}

// WriteText writes the tests, each with the changed functions it ran, then
// the go test commands that run them.
func (a *Affected) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "%d tests run lines changed since %s\n", len(a.Tests), a.Since)
	for _, t := range a.Tests {
		fmt.Fprintf(ew, "\t%s: %s\t%s\n", t.Package, TestRun{TestGroup: t.TestGroup}.Label(), strings.Join(t.Funcs, ", "))
	}
	if len(a.Unreached) > 0 {
		fmt.Fprintf(ew, "changed functions that no test ran through a changed line: %s\n", strings.Join(a.Unreached, ", "))
	}
	for _, r := range a.Run {
		if r.All {
			fmt.Fprintf(ew, "go test %s\t# code outside its tests (init, TestMain) runs a changed line\n", ShellQuote(r.Package))
			continue
		}
		fmt.Fprintf(ew, "go test -run %s %s\n", ShellQuote(r.Pattern), ShellQuote(r.Package))
	}
	return ew.err
}

// ShellQuote quotes s for a POSIX shell, so that a go test line that
// affected prints runs as printed when pasted: s as it is if it holds
// only characters no shell treats specially, else between single quotes,
// where each single quote of s closes the quotes, follows as \', and
// opens them again. Inside single quotes nothing else is special: not $,
// not `, not \.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_-./,:=@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WriteJSON writes the affected tests as JSON.
func (a *Affected) WriteJSON(w io.Writer) error {
	if a.Tests == nil {
		a.Tests = []AffectedTest{}
	}
	return writeJSON(w, a)
}
