package driver

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestQuoteFields checks that the nested go command's -toolexec splits back
// into the same fields, as the go command splits it: by spaces, a field in
// single or double quotes taken whole.
func TestQuoteFields(t *testing.T) {
	split := func(s string) []string {
		var fields []string
		for s = strings.TrimLeft(s, " "); s != ""; s = strings.TrimLeft(s, " ") {
			if q := s[0]; q == '\'' || q == '"' {
				end := strings.IndexByte(s[1:], q)
				fields, s = append(fields, s[1:1+end]), s[2+end:]
				continue
			}
			end := strings.IndexByte(s, ' ')
			if end < 0 {
				end = len(s)
			}
			fields, s = append(fields, s[:end]), s[end:]
		}
		return fields
	}
	for _, args := range [][]string{
		{"/usr/bin/pppexec", "-pkgs=std", "-v"},
		{"/home/a b/pathcover", "pppexec", "-interesting=/tmp/it's here"},
		{"/x", `-o=/say "hi"`, ""},
	} {
		s, ok := quoteFields(args)
		if !ok {
			t.Errorf("%q: cannot quote", args)
			continue
		}
		if got := split(s); strings.Join(got, "\x00") != strings.Join(args, "\x00") {
			t.Errorf("%q quoted as %s splits into %q", args, s, got)
		}
	}
	if _, ok := quoteFields([]string{`it's "both"`}); ok {
		t.Error("a field with both quotes was quoted")
	}
}

// TestSourceHashCoversRuntimePatch: rt's cache key changes with the patch
// of the runtime that rt is compiled against, not only with rt's source,
// so that a pppexec with another patch never takes this one's rt (the
// link then failed with a fingerprint mismatch).
func TestSourceHashCoversRuntimePatch(t *testing.T) {
	before := hashSource()
	if !bytes.Equal(before, hashSource()) || !bytes.Equal(before, sourceHash()) {
		t.Fatal("sourceHash is not deterministic")
	}
	saved := runtimeCalls["proc.go"]
	t.Cleanup(func() { runtimeCalls["proc.go"] = saved })
	runtimeCalls["proc.go"] = append(slices.Clone(saved), runtimeCall{"schedule", atTop, "pathcoverOther(); "})
	if bytes.Equal(before, hashSource()) {
		t.Error("a call added to the runtime's patch left rt's source hash as it was")
	}
}
