package funcgraph

import (
	"cmp"
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
	var calls *Func
	for _, f := range funcs {
		if f.Name == "Calls" {
			calls = f
		}
	}
	if calls == nil {
		t.Fatal("no function Calls")
	}
	// By line: the callee's package and name. Not listed: the method of an
	// interface (s.String), a function value (fv, f), the deferred and go'd
	// calls themselves (their arguments are listed), conversions, builtins,
	// and the calls inside function literals. Within a line, calls are in
	// the order they run: t.Value before helper. Sites are marked: not
	// the generic callees (Push, Map), nor the calls after the path's end
	// (in panic's argument, in the return statement), nor the calls in the
	// right operand of && or ||, which may not run when their block does.
	want := []string{
		"32 calls.T.Value site", "32 calls.helper site",
		"34 calls.(*T).Inc site",
		"39 strings.ToUpper site",
		"43 calls.(*List).Push",
		"44 calls.Map",
		"46 calls.helper", "46 fmt.Sprint",
		"48 calls.helper site", "48 calls.helper", "48 calls.T.Value",
		"51 calls.helper",
	}
	var got []string
	blockOf := make(map[int]int) // line → block
	for b, cs := range calls.StaticCalls(info) {
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
		t.Errorf("static calls:\n got %q\nwant %q", got, want)
	}
	// The then branch's call is in a block of its own, not the entry's.
	if blockOf[34] == blockOf[32] {
		t.Errorf("the call in the then branch shares block %d with the entry's calls", blockOf[32])
	}
	// Literals have their own calls.
	for _, f := range funcs {
		if f.Name == "Calls.func1" {
			cs := slices.Concat(f.StaticCalls(info)...)
			if len(cs) != 1 || ObjectName(cs[0].Callee) != "helper" {
				t.Errorf("Calls.func1: static calls %v, want helper", cs)
			}
		}
	}
}

func lineName(line int, name string) string { return strconv.Itoa(line) + " " + name }

func lineOf(s string) int {
	n, _ := strconv.Atoi(s[:strings.IndexByte(s, ' ')])
	return n
}
