package analysisdoc

import (
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	src := `// Package p does things.
//
// # Analyzer one
//
// one: report the first thing
//
// Details of one,
// on two lines.
//
// # Analyzer two
//
// two: the second
package p
`
	got, err := Extract(src, "one")
	if want := "report the first thing\n\nDetails of one,\non two lines."; err != nil || got != want {
		t.Errorf("Extract one = %q, %v; want %q", got, err, want)
	}
	if got, err := Extract(src, "two"); err != nil || got != "the second" {
		t.Errorf("Extract two = %q, %v", got, err)
	}
	for _, tc := range []struct{ src, name, err string }{
		{src, "three", "no \"Analyzer three\" section"},
		{"package p\n", "one", "no package comment"},
		{"// # Analyzer one\n//\n// summary without name\npackage p\n", "one", "does not begin with"},
		{"not go", "one", "not a Go file"},
	} {
		if _, err := Extract(tc.src, tc.name); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Extract(%q, %s): %v; want an error with %q", tc.src, tc.name, err, tc.err)
		}
	}
}
