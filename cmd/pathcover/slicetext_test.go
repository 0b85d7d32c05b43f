package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pathcover/pathcover/internal/query/slice"
	"github.com/pathcover/pathcover/internal/source"
)

// TestSliceTextFit: a line of a slice fits lineWidth columns whatever its
// source and values, its head whole; deep chains stop indenting.
func TestSliceTextFit(t *testing.T) {
	long := strings.Repeat("x := f(a, b) + ", 20)
	for _, c := range []struct{ head, text, tail string }{
		{"    12  ", long, ""},
		{"    12  [x] ", long, strings.Repeat("v=1 ", 40)},
		{"    12  ", "return n", "n=3"},
		{strings.Repeat(" ", 30), "ä" + long, "s=\"ü\""},
	} {
		line := fit(c.head, c.text, c.tail)
		if n := utf8.RuneCountInString(line); n > lineWidth {
			t.Errorf("fit(%q, …) is %d columns: %q", c.head, n, line)
		}
		if !strings.HasPrefix(line, c.head) {
			t.Errorf("fit(%q, …) lost its head: %q", c.head, line)
		}
		if len(c.text)+len(c.head)+len(c.tail)+2 <= lineWidth && line != c.head+c.text+"  "+c.tail {
			t.Errorf("fit cut a line that fits: %q", line)
		}
	}
	if d := indent(maxIndent + 30); utf8.RuneCountInString(d) > 2*maxIndent+4 || !strings.Contains(d, "42: ") {
		t.Errorf("indent of depth %d: %q", maxIndent+30, d)
	}
}

// TestSliceMemoryText: a read the slice stops at names its file as the
// other lines do.
func TestSliceMemoryText(t *testing.T) {
	st := &sliceText{names: source.NamesUnder("/usr/local/go", "/home/u/go/pkg/mod", [2]string{"example.com/m", "/src/m"})}
	for in, want := range map[string]string{
		"/src/m/s.go:12: *p (a pointer's target)": "s.go:12: *p (a pointer's target)",
		"/usr/local/go/src/strings/x.go:3: m[k]":  "std/strings/x.go:3: m[k]",
		"no file here":                            "no file here",
	} {
		if got := st.memoryText(in); got != want {
			t.Errorf("memoryText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseCriterion: a criterion names a file as the answers do (std/
// for GOROOT's, a dependency by module@version), or as a path here.
func TestParseCriterion(t *testing.T) {
	for arg, want := range map[string]slice.Criterion{
		"std/regexp/regexp.go:293":                     {File: "src/regexp/regexp.go", Line: 293},
		"github.com/BurntSushi/toml@v1.4.0/lex.go:7:3": {File: "github.com/!burnt!sushi/toml@v1.4.0/lex.go", Line: 7, Col: 3},
		"slice.go:12": {File: "slice.go", Line: 12},
		"pkg/s.go:4":  {File: "pkg/s.go", Line: 4},
	} {
		if got, err := parseCriterion(arg); err != nil || got != want {
			t.Errorf("parseCriterion(%q) = %+v, %v; want %+v", arg, got, err, want)
		}
	}
	for _, bad := range []string{"s.go", "s.go:0", ":4", "s.go:x"} {
		if c, err := parseCriterion(bad); err == nil {
			t.Errorf("parseCriterion(%q) = %+v, want an error", bad, c)
		}
	}
}
