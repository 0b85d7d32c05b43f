package ddg_test

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/ddg"
	"github.com/pathcover/pathcover/internal/cmdtest"
)

// criterion is a //@slice line of testdata/constructs/main.go.
type criterion struct {
	line int
	v    string
	want []int // the lines of the slice, the criterion's included
}

var (
	labelRE = regexp.MustCompile(`//@([A-Za-z_0-9]+)\s*$`)
	sliceRE = regexp.MustCompile(`//@slice\((\w*)\)((?:\s+[A-Za-z_0-9]+)*)\s*$`)
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
			if strings.Contains(l, "//@slice") && !strings.HasPrefix(strings.TrimSpace(l), "//") {
				t.Fatalf("line %d: cannot read the criterion: %s", i+1, l)
			}
			continue
		}
		c := criterion{line: i + 1, v: m[1], want: []int{i + 1}}
		for _, name := range strings.Fields(m[2]) {
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
	if len(cs) < 12 {
		t.Fatalf("%d criteria, want one for each of the 12 scenarios", len(cs))
	}
	return cs
}

// record builds the module in dir with pppexec -deps and runs it,
// returning the profile directory.
func record(t *testing.T, dir, pkgs string) string {
	t.Helper()
	bin := cmdtest.PPPExec(t, "../cmd/pppexec")
	exe := filepath.Join(t.TempDir(), "prog")
	if out, code := cmdtest.Run(t, dir, nil, "go", "build", "-toolexec="+bin+" -deps -pkgs="+pkgs, "-o", exe, "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	prof := t.TempDir()
	if out, code := cmdtest.Run(t, dir, []string{"PATHCOVERDIR=" + prof}, exe); code != 0 {
		t.Fatalf("the program: exit %d\n%s", code, out)
	}
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
	g, err := ddg.Load(prof, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range g.Problems {
		t.Errorf("problem: %s", p)
	}
	for _, c := range criteria {
		s, err := g.Slice(ddg.Criterion{File: "main.go", Line: c.line, Var: c.v})
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
			t.Errorf("slice of line %d (%s): lines %v, want %v", c.line, c.v, lines, c.want)
		}
		if len(s.Memory) > 0 {
			t.Errorf("line %d: the slice stops at memory not recorded: %v", c.line, s.Memory)
		}
	}
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}
