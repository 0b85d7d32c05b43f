package funcgraph

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestStaticCalls checks the static calls found in each block of a function
// written to have calls of every kind, against a list made by reading it.
func TestStaticCalls(t *testing.T) {
	fset, files, info := loadDir(t, "testdata/calls")
	funcs, err := BuildFiles(files, &Config{Info: info})
	if err != nil {
		t.Fatal(err)
	}
	byName := make(map[string]*Func)
	for _, f := range funcs {
		byName[f.Name] = f
	}
	// By line: the callee's package and name. Not listed: the method of an
	// interface (s.String), a function value (fv, f), the deferred and go'd
	// calls themselves (their arguments are listed), conversions, builtins,
	// and the calls inside function literals. Within a line, calls are in
	// the order they run: t.Value before helper. Sites are marked: not
	// the generic callees (Push, Map), nor the calls after the path's end
	// (in panic's argument), nor the calls in the right operand of && or
	// ||, which may not run when their block does, nor the calls in a
	// return statement of a function whose results cannot be held
	// (Shadowed); those in the other return statements are; nor a call
	// whose one argument spreads another's results (Spread's first).
	wants := map[string][]string{
		"Calls": {
			"32 calls.T.Value site", "32 calls.helper site",
			"34 calls.(*T).Inc site",
			"39 strings.ToUpper site",
			"43 calls.(*List).Push",
			"44 calls.Map",
			"46 calls.helper", "46 fmt.Sprint",
			"48 calls.helper site", "48 calls.helper", "48 calls.T.Value",
			"51 calls.helper site",
		},
		"Results":  {"57 fmt.Errorf site", "59 calls.T.Value site", "59 calls.helper site"},
		"Shadowed": {"65 calls.helper", "65 calls.build"},
		"Spread":   {"73 calls.pair site", "73 calls.first"},
	}
	blockOf := make(map[int]int) // line → block
	for name, want := range wants {
		f := byName[name]
		if f == nil {
			t.Fatalf("no function %s", name)
		}
		var got []string
		for b, cs := range f.StaticCalls(info) {
			for _, c := range cs {
				line := fset.Position(c.Call.Pos()).Line
				name := c.Callee.Pkg().Path() + "." + ObjectName(c.Callee)
				if c.Site {
					name += " site"
				}
				got = append(got, lineName(line, name))
				if prev, ok := blockOf[line]; ok && prev != b {
					t.Errorf("line %d: calls in blocks %d and %d", line, prev, b)
				}
				blockOf[line] = b
			}
		}
		slices.SortStableFunc(got, func(a, b string) int { return cmp.Compare(lineOf(a), lineOf(b)) })
		if !slices.Equal(got, want) {
			t.Errorf("static calls of %s:\n got %q\nwant %q", name, got, want)
		}
	}
	// The then branch's call is in a block of its own, not the entry's.
	if blockOf[34] == blockOf[32] {
		t.Errorf("the call in the then branch shares block %d with the entry's calls", blockOf[32])
	}
	// Literals have their own calls.
	for _, f := range funcs {
		if f.Name == "Calls.func1" {
			cs := slices.Concat(f.StaticCalls(info)...)
			if len(cs) != 1 || ObjectName(cs[0].Callee) != "helper" || !cs[0].Site {
				t.Errorf("Calls.func1: static calls %v, want helper, a site", cs)
			}
		}
	}
}

func lineName(line int, name string) string { return strconv.Itoa(line) + " " + name }

func lineOf(s string) int {
	n, _ := strconv.Atoi(s[:strings.IndexByte(s, ' ')])
	return n
}

// TestResultsHeld checks which signatures' results can be held in variables
// at the top of the body: those where no receiver, parameter or result name
// is spelt in a result's type.
func TestResultsHeld(t *testing.T) {
	src := `package p

import "net/url"

type T int

func none()                                 {}
func one() int                              { return 0 }
func named() (n int, err error)             { return }
func param(url string) (*url.URL, error)    { return nil, nil }
func result() (int int)                     { return }
func (T T) recv() T                         { return T }
func qualified(URL string) (*url.URL, error) { return nil, nil }
func lit() {
	_ = func(url string) *url.URL { return nil }
	_ = func(s string) *url.URL { return nil }
}
`
	want := map[string]bool{
		"none": true, "one": true, "named": true, "param": false, "result": false,
		"T.recv": false, "qualified": false, // conservative: the selector's name counts too
		"lit": true, "lit.func1": false, "lit.func2": true,
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := BuildFiles([]*ast.File{file}, &Config{})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range funcs {
		w, ok := want[f.Name]
		if !ok {
			continue
		}
		seen++
		if got := f.ResultsHeld(); got != w {
			t.Errorf("%s: ResultsHeld() = %v, want %v", f.Name, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("checked %d functions, want %d", seen, len(want))
	}
}
