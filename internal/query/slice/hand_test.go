package slice_test

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/query/slice"
)

// criterion is a //@slice line of testdata/constructs/main.go.
type criterion struct {
	line int
	v    string
	want []int // the lines of the slice, the criterion's included
	// potential says the slice is relevant (//@relevant).
	potential bool
}

var (
	labelRE = regexp.MustCompile(`//@([A-Za-z_0-9]+)\s*$`)
	sliceRE = regexp.MustCompile(`//@(slice|relevant)\((\w*)\)((?:\s+[A-Za-z_0-9]+)*)\s*$`)
)

// handSlices reads the labels and criteria of a source file.
func handSlices(t *testing.T, src string) []criterion {
	lines := strings.Split(src, "\n")
	labels := make(map[string]int)
	for i, l := range lines {
		if m := labelRE.FindStringSubmatch(l); m != nil {
			if _, dup := labels[m[1]]; dup {
				t.Fatalf("label %s twice", m[1])
			}
			labels[m[1]] = i + 1
		}
	}
	var cs []criterion
	for i, l := range lines {
		m := sliceRE.FindStringSubmatch(l)
		if m == nil {
			if (strings.Contains(l, "//@slice") || strings.Contains(l, "//@relevant")) && !strings.HasPrefix(strings.TrimSpace(l), "//") {
				t.Fatalf("line %d: cannot read the criterion: %s", i+1, l)
			}
			continue
		}
		c := criterion{line: i + 1, v: m[2], want: []int{i + 1}, potential: m[1] == "relevant"}
		for _, name := range strings.Fields(m[3]) {
			n, ok := labels[name]
			if !ok {
				t.Fatalf("line %d: no label %s", i+1, name)
			}
			c.want = append(c.want, n)
		}
		slices.Sort(c.want)
		c.want = slices.Compact(c.want)
		cs = append(cs, c)
	}
	if len(cs) < 13 {
		t.Fatalf("%d criteria, want one for each of the 13 scenarios", len(cs))
	}
	return cs
}

// recordings holds the recordings made, by module, so that each test
// program is built and run once; recRoot is where they are.
var (
	recordings = make(map[string]string)
	recMu      sync.Mutex
	recRoot    string
)

// record builds the module in dir with pppexec -deps and runs it,
// returning the profile directory (shared by the tests: do not write).
func record(t *testing.T, dir, pkgs string) string {
	return recordMode(t, dir, pkgs, "-deps")
}

// recordMode is record with pppexec's -deps or -wet.
func recordMode(t *testing.T, dir, pkgs, mode string) string {
	t.Helper()
	recMu.Lock()
	defer recMu.Unlock()
	key := dir + " " + mode
	if prof, ok := recordings[key]; ok {
		return prof
	}
	bin := cmdtest.PPPExec(t, "../../../cmd/pppexec")
	exe := filepath.Join(t.TempDir(), "prog")
	if out, code := cmdtest.Run(t, dir, nil, "go", "build", "-toolexec="+bin+" "+mode+" -pkgs="+pkgs, "-o", exe, "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	prof, err := os.MkdirTemp(recRoot, "prof")
	if err != nil {
		t.Fatal(err)
	}
	if out, code := cmdtest.Run(t, dir, []string{"PATHCOVERDIR=" + prof}, exe); code != 0 {
		t.Fatalf("the program: exit %d\n%s", code, out)
	}
	recordings[key] = prof
	return prof
}

// TestHandSlices checks the slices of testdata/constructs against the ones
// worked out by hand in its comments: one criterion for each kind of
// dependence (locals and control, arguments and results, pointers and
// globals, sub-slices, copy, append and maps, goroutines, channels and
// captured variables, defer and recover, type switches, pointer methods,
// select, accesses made after their path's count).
func TestHandSlices(t *testing.T) {
	dir, err := filepath.Abs("testdata/constructs")
	if err != nil {
		t.Fatal(err)
	}
	src := cmdtest.ReadFile(t, filepath.Join(dir, "main.go"))
	criteria := handSlices(t, src)
	prof := record(t, dir, "example.com/constructs")
	for _, g := range openGraphs(t, prof).all {
		t.Run(g.name, func(t *testing.T) { checkHand(t, g, criteria) })
	}
}

// A namedGraph is one of the three graphs, FP, OPT or LP.
type namedGraph struct {
	name     string
	problems []string
	slice    func(slice.Criterion) (*slice.Slice, error)
	node     func(int32) (*slice.Node, error)
	funcs    func() []*slice.Func
}

// graphs are the three graphs of a recording: the full graph (FP), the
// compact one (OPT) and the demand-driven slicer (LP), in all in that
// order.
type graphs struct {
	fp  *slice.Graph
	opt *slice.Compact
	all []namedGraph
}

// openGraphs returns the three graphs of a recording.
func openGraphs(t *testing.T, prof string) graphs {
	t.Helper()
	fp, err := slice.Load(prof, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := slice.LoadCompact(prof)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := slice.OpenDemand(prof)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lp.Close() })
	// OPT again, sorting 100 accesses and labels at a time in memory
	// (the rest through temporary files), and replaying its calls in
	// windows of 3 statements: every call of more is replayed a window
	// at a time from checkpoints.
	windowed, err := slice.LoadCompactSpilling(prof, 100)
	if err != nil {
		t.Fatal(err)
	}
	slice.ReplayInWindows(windowed, 3)
	// OPT kept in the directory's graph file by one OpenCompact and read
	// from it by the next.
	if _, gf, err := slice.OpenCompact(prof); err != nil || !gf.Read && !gf.Wrote {
		t.Fatalf("OpenCompact: %+v, %v", gf, err)
	}
	fromFile, gf, err := slice.OpenCompact(prof)
	if err != nil || !gf.Read {
		t.Fatalf("OpenCompact, again: %+v, %v; want the graph read from its file", gf, err)
	}
	return graphs{fp, opt, []namedGraph{
		{"FP", fp.Problems, fp.Slice, func(n int32) (*slice.Node, error) { return &fp.Nodes[n], nil }, func() []*slice.Func { return fp.Funcs }},
		{"OPT", opt.Problems, opt.Slice, opt.Node, opt.Funcs},
		{"LP", lp.Problems, lp.Slice, lp.Node, lp.Funcs},
		{"OPT in windows", windowed.Problems, windowed.Slice, windowed.Node, windowed.Funcs},
		{"OPT from its file", fromFile.Problems, fromFile.Slice, fromFile.Node, fromFile.Funcs},
	}}
}

func checkHand(t *testing.T, g namedGraph, criteria []criterion) {
	for _, p := range g.problems {
		t.Errorf("problem: %s", p)
	}
	for _, c := range criteria {
		s, err := g.slice(slice.Criterion{File: "main.go", Line: c.line, Var: c.v, Potential: c.potential})
		if err != nil {
			t.Errorf("line %d: %v", c.line, err)
			continue
		}
		got := make(map[int]bool)
		for _, st := range s.Stmts {
			if filepath.Base(st.File) != "main.go" {
				t.Errorf("line %d: the slice holds %s:%d", c.line, st.File, st.Line)
				continue
			}
			got[st.Line] = true
		}
		if lines := slices.Sorted(maps.Keys(got)); !slices.Equal(lines, c.want) {
			t.Errorf("slice of line %d (%s, potential %v): lines %v, want %v", c.line, c.v, c.potential, lines, c.want)
		}
		// A relevant slice holds the dynamic slice.
		if !c.potential {
			rs, err := g.slice(slice.Criterion{File: "main.go", Line: c.line, Var: c.v, Potential: true})
			if err != nil {
				t.Errorf("line %d, relevant: %v", c.line, err)
				continue
			}
			for _, st := range s.Stmts {
				if !slices.Contains(rs.Stmts, st) {
					t.Errorf("line %d: the relevant slice lacks %s:%d of the dynamic one", c.line, st.File, st.Line)
				}
			}
		}
		if len(s.Memory) > 0 {
			t.Errorf("line %d: the slice stops at memory not recorded: %v", c.line, s.Memory)
		}
	}
}

func TestMain(m *testing.M) {
	var err error
	if recRoot, err = os.MkdirTemp("", "ddg-test-"); err != nil {
		panic(err)
	}
	code := cmdtest.RunTests(m)
	os.RemoveAll(recRoot)
	os.Exit(code)
}
