package main_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/profile"
)

// TestValues builds testdata/values with pppexec -wet and checks the
// values its main goroutine recorded against the program's own account:
// after each definition of a variable, in each form the build records
// (testdata/values/main.go), the program logs the variable's value with
// package logv, which reads the words a value record holds by code of its
// own; the recorded values, named and decoded with the metadata, must be
// the logged ones, in the same order.
func TestValues(t *testing.T) {
	t.Parallel()
	bin := pppexec(t)
	// A module whose go line predates Go 1.21 gets its values and accesses
	// too: the files pppexec writes say go1.21 (internal/instrument/lang.go).
	for _, goLine := range []string{"1.25", "1.20"} {
		t.Run("go"+goLine, func(t *testing.T) {
			t.Parallel()
			testValues(t, bin, goLine)
		})
	}
}

func testValues(t *testing.T, bin, goLine string) {
	dir := t.TempDir()
	cmdtest.WriteFiles(t, dir, map[string]string{
		"go.mod":       "module example.com/values\n\ngo " + goLine + "\n",
		"main.go":      cmdtest.ReadFile(t, "../../testdata/values/main.go"),
		"iter.go":      cmdtest.ReadFile(t, "../../testdata/values/iter.go"),
		"logv/logv.go": cmdtest.ReadFile(t, "../../testdata/values/logv/logv.go"),
	})
	exe := filepath.Join(t.TempDir(), "values")
	toolexec := bin + " -wet -pkgs=example.com/values"
	if out, code := run(t, dir, nil, "go", "build", "-toolexec="+toolexec, "-o", exe, "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	prof := t.TempDir()
	out, code := run(t, dir, []string{"PATHCOVERDIR=" + prof}, exe)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	want := strings.Split(strings.TrimSpace(out), "\n")
	p := cmdtest.LoadProfile(t, prof)
	names, _ := filepath.Glob(filepath.Join(prof, "*.wpp"))
	if len(names) != 1 {
		t.Fatalf("%d WPP files", len(names))
	}
	w, err := profile.OpenWPP(names[0])
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var got []string
	for _, g := range w.Goroutines() {
		var stack []*profile.Func
		var line []string // the value being read: its name, then its words
		words := 0
		err := w.Events(g, func(e profile.WPPEvent) error {
			switch e.Kind {
			case profile.WPPEnter:
				m := p.Metas[w.Packages[e.Pkg]]
				if m == nil || int(e.Func) >= len(m.Funcs) {
					return fmt.Errorf("enter of an unknown function %d/%d", e.Pkg, e.Func)
				}
				stack = append(stack, &m.Funcs[e.Func])
			case profile.WPPReturn:
				stack = stack[:len(stack)-1]
			case profile.WPPValue:
				f := stack[len(stack)-1-int(e.Up)] // a range-over-func body's function
				if f.Deps == nil || int(e.Site) >= len(f.Deps.Values) {
					return fmt.Errorf("%s: value of site %d", f.Name, e.Site)
				}
				v := f.Deps.Vars[f.Deps.Values[e.Site].Var]
				if int(e.Part) != len(line)-min(len(line), 1) || len(line) > 0 && line[0] != v.Name {
					return fmt.Errorf("%s: word %d of %s after %v", f.Name, e.Part, v.Name, line)
				}
				word := e.Value
				if v.Kind == profile.ValueInt {
					word = uint64(int64(word>>1) ^ -int64(word&1)) // zigzag
				}
				if len(line) == 0 {
					line, words = []string{v.Name}, v.Kind.Words()
				}
				line = append(line, fmt.Sprint(word))
				if len(line) == words+1 {
					got = append(got, strings.Join(line, " "))
					line = nil
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("goroutine %d: %v", g, err)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d values recorded, %d logged", len(got), len(want))
	}
	checkWET(t, prof, p)
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("value %d: recorded %q, logged %q\nrecorded: %q\nlogged:   %q", i, got[i], want[i], got[max(0, i-3):min(len(got), i+3)], want[max(0, i-3):min(len(want), i+3)])
		}
	}
}

// checkWET builds the WET of the values test's recording and checks that
// it gives each value to the right execution of its site's statement: the
// timestamps of a site's values must be exactly those of the executions of
// the paths of its function that run the site's statement, in order (every
// execution of those statements records one value at each site), which an
// attribution off by one path, or to the wrong call, would break.
func checkWET(t *testing.T, prof string, p *profile.Profile) {
	t.Helper()
	w, err := wet.BuildDir(prof, nil)
	if err != nil {
		t.Fatal(err)
	}
	type stmtKey struct {
		fn   int
		stmt int32
	}
	runs := make(map[stmtKey][]uint64) // a statement's executions, by timestamp
	meta := func(fn int) *profile.Func {
		f := w.Funcs[fn]
		return &p.Metas[f.Hash].Funcs[f.Index]
	}
	for g := range w.Goroutines {
		c, _ := w.Cursor(g)
		for {
			e, ok := c.Next()
			if !ok {
				break
			}
			if e.Kind != wet.SymPath {
				continue
			}
			mf := meta(e.Func)
			num, err := mf.Numbering()
			if err != nil {
				t.Fatal(err)
			}
			edges, err := num.Decode(e.Path)
			if err != nil {
				t.Fatal(err)
			}
			blocks := num.Blocks(edges)
			if len(blocks) > 0 && int32(blocks[0]) == mf.Entry {
				// Statement 0 is the function's entry.
				runs[stmtKey{e.Func, 0}] = append(runs[stmtKey{e.Func, 0}], e.T)
			}
			for _, b := range blocks {
				for _, st := range mf.Deps.Blocks[b] {
					runs[stmtKey{e.Func, st}] = append(runs[stmtKey{e.Func, st}], e.T)
				}
			}
		}
	}
	checked := 0
	for i := range w.Values {
		l := &w.Values[i]
		mf := meta(l.Func)
		site := mf.Deps.Values[l.Site]
		var got []uint64
		for _, v := range w.ValuesOf(l) {
			got = append(got, v.T)
			checked++
		}
		if want := runs[stmtKey{l.Func, site.Stmt}]; !slices.Equal(got, want) {
			t.Errorf("%s: the values of %s (site %d, statement %d) have the timestamps %v, the statement ran at %v", mf.Name, mf.Deps.Vars[site.Var].Name, l.Site, site.Stmt, got, want)
		}
	}
	// A statement's accesses are made in its executions; in stores, which
	// makes them all unconditionally, in every execution (a range over an
	// empty slice reads no element).
	for i := range w.Accesses {
		l := &w.Accesses[i]
		mf := meta(l.Func)
		var got []uint64
		for _, a := range w.AccessesOf(l) {
			if len(got) == 0 || got[len(got)-1] != a.T {
				got = append(got, a.T)
			}
		}
		want := runs[stmtKey{l.Func, int32(l.Stmt)}]
		if mf.Name != "stores" {
			want = slices.DeleteFunc(slices.Clone(want), func(t uint64) bool { return !slices.Contains(got, t) })
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the accesses of statement %d (line %d) have the timestamps %v, the statement ran at %v", mf.Name, l.Stmt, mf.Deps.Stmts[l.Stmt].Line, got, want)
		}
		checked++
	}
	if checked == 0 || w.Stats.Statements == 0 {
		t.Fatalf("the WET has %d values, %d statement executions", checked, w.Stats.Statements)
	}
}
