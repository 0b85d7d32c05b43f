package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pathcover/pathcover/internal/source"
	"github.com/pathcover/pathcover/profile"
)

// metaOf makes the metadata of package pkg with funcs, in file.
func metaOf(pkg, file string, funcs ...profile.Func) *profile.Meta {
	m := &profile.Meta{Format: profile.MetaFormat, Package: pkg, Mode: "bl", Files: []string{file}, Funcs: funcs}
	for i := range m.Funcs {
		m.Funcs[i].Counters.Offset = m.Words
		m.Words += m.Funcs[i].Counters.Size
	}
	return m
}

// TestSaturatedTotals: a package of four functions of 2^62 paths has more
// than 2^64-1 paths; the report says "at least", instead of a total that
// wrapped round to a small number.
func TestSaturatedTotals(t *testing.T) {
	p := profile.New()
	var funcs []profile.Func
	for i, name := range []string{"A", "B", "C", "D"} {
		f := chainFunc(t, name, 10+200*i, 62)
		f.Counters = profile.Counters{Kind: "hash", Size: 2*5 + 1}
		funcs = append(funcs, f)
	}
	p.Metas["h"] = metaOf("example.com/big", "big.go", funcs...)
	p.Add("h", 0, 7, math.MaxUint64)
	p.Add("h", 0, 7, 2) // saturates
	p.Processes = 1
	r, errs := Build(p, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if !r.Paths.Saturated || r.Paths.Total != math.MaxUint64 || r.Paths.Covered != 1 {
		t.Errorf("total = %+v, want saturated", r.Paths)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "1/≥18446744073709551615") || !strings.Contains(text.String(), "≤0.0%") {
		t.Errorf("report does not say the total saturated:\n%s", text.String())
	}
	paths, err := r.Lookup("A")[0].Decoded(false, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := (Paths{r.Lookup("A")[0], paths}).WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "ran ≥18446744073709551615 times") {
		t.Errorf("paths does not say the count saturated:\n%s", out.String())
	}
}

// TestNothingToCover: a package with no functions has no percentage.
func TestNothingToCover(t *testing.T) {
	p := profile.New()
	p.Metas["e"] = metaOf("example.com/empty", "e.go")
	p.Processes = 1
	r, _ := Build(p, nil)
	var text, js bytes.Buffer
	r.WriteText(&text)
	r.WriteJSON(&js)
	if strings.Contains(text.String(), "100.0%") || !strings.Contains(text.String(), "0/0") {
		t.Errorf("report of nothing to cover:\n%s", text.String())
	}
	if strings.Contains(js.String(), "Percent") {
		t.Errorf("JSON gives a percentage of nothing:\n%s", js.String())
	}
}

// TestTwoBuilds: a profile directory that two builds ran into, the source
// changed in between, counts each function once; the version reported is
// the one the source on disk was compiled from, or else the newest.
func TestTwoBuilds(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.go")
	oldSrc, newSrc := []byte("package p // old\n"), []byte("package p // new\n")
	build := func(k int, src []byte, ids ...uint64) *profile.Meta {
		m := metaOf("example.com/p", file, chainFunc(t, "F", 3, k), chainFunc(t, "Same", 40, 1))
		m.Sums = []string{profile.Hash(src)}
		return m
	}
	p := profile.New()
	p.Metas["old"], p.Metas["new"] = build(3, oldSrc), build(2, newSrc)
	p.Add("old", 0, 5, 1)
	p.Add("old", 0, 6, 1)
	p.Add("new", 0, 1, 1)
	p.Add("old", 1, 0, 1)
	p.Add("new", 1, 1, 1)
	p.Processes = 2
	now := time.Now()
	p.MetaTimes["old"], p.MetaTimes["new"] = now.Add(-time.Hour), now

	check := func(what string, r *Report, errs []error, total, covered uint64) {
		t.Helper()
		fs := r.Lookup("F")
		if len(fs) != 1 || fs[0].Paths.Total != total || fs[0].Paths.Covered != covered || fs[0].OtherBuilds != 1 {
			t.Fatalf("%s: F = %+v", what, fs)
		}
		// Same did not change: both builds' runs count, once.
		if same := r.Lookup("Same"); len(same) != 1 || same[0].Paths.Covered != 2 || same[0].OtherBuilds != 0 {
			t.Errorf("%s: Same = %+v", what, same[0])
		}
		if r.Paths.Total != total+2 {
			t.Errorf("%s: total %d paths, want %d", what, r.Paths.Total, total+2)
		}
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "several builds") {
			t.Errorf("%s: errors %v", what, errs)
		}
	}
	// No source to go by: the newest build.
	r, errs := Build(p, nil)
	check("newest", r, errs, 4, 1)
	// The source on disk is the old one's.
	if err := os.WriteFile(file, oldSrc, 0o666); err != nil {
		t.Fatal(err)
	}
	r, errs = Build(p, &Options{Sources: source.Under(dir)})
	check("source", r, errs, 8, 2)

	// The page says that the source changed since the build it shows.
	if err := os.WriteFile(file, []byte("package p\n\n// F\nfunc F() {\n}\n"+strings.Repeat("\n", 40)), 0o666); err != nil {
		t.Fatal(err)
	}
	r, _ = Build(p, nil)
	var page bytes.Buffer
	if err := r.WriteHTML(&page, HTMLOptions{Sources: source.Under(dir)}); err != nil {
		t.Fatal(err)
	}
	js, err := PageData(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var pd pageData
	if err := json.Unmarshal(js, &pd); err != nil || len(pd.Funcs) == 0 {
		t.Fatalf("the page's data: %v, %d functions", err, len(pd.Funcs))
	}
	if len(pd.Src) == 0 {
		t.Fatal("the page shows no source")
	}
	for id := range pd.Src {
		if note := pd.Funcs[id].View.SourceNote; !strings.Contains(note, "has changed since the build") {
			t.Errorf("the page shows changed source without a word: %q", note)
		}
	}
}

// TestPageSources: the page shows no source outside its roots, whatever
// the metadata names (package source's TestFilesRefuse checks the reader
// itself), and lists no more lines than the file has.
func TestPageSources(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	ok := filepath.Join(root, "ok.go")
	secret := filepath.Join(outside, "secret.go")
	for name, content := range map[string]string{ok: "package p\n", secret: "SECRET\n"} {
		if err := os.WriteFile(name, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	s := source.Under(root)

	// Through the page: a function whose metadata names the secret file, and
	// whose block claims a billion lines.
	f := chainFunc(t, "F", 1, 1)
	f.Blocks[0].EndLine = 1 << 30
	p := profile.New()
	p.Metas["x"] = metaOf("example.com/x", secret, f)
	p.Metas["y"] = metaOf("example.com/y", ok, f)
	p.Add("x", 0, 0, 1)
	p.Add("y", 0, 0, 1)
	p.Processes = 1
	r, errs := Build(p, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var page bytes.Buffer
	if err := r.WriteHTML(&page, HTMLOptions{Sources: s}); err != nil {
		t.Fatal(err)
	}
	js, err := PageData(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if all := page.String() + string(js); strings.Contains(all, "SECRET") || !strings.Contains(all, "outside the module") {
		t.Errorf("the page shows a file outside its roots")
	}
	if page.Len() > 1<<20 {
		t.Errorf("the page is %d bytes: a block's claimed lines were listed", page.Len())
	}
}

// TestBlankFuncs: functions named _, which a file may declare more than
// once, are not taken for versions of one function.
func TestBlankFuncs(t *testing.T) {
	p := profile.New()
	p.Metas["m"] = metaOf("example.com/p", "p.go", chainFunc(t, "_", 3, 1), chainFunc(t, "_", 9, 2))
	p.Add("m", 0, 0, 1)
	p.Add("m", 1, 3, 1)
	p.Processes = 1
	r, errs := Build(p, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if fs := r.Lookup("_"); len(fs) != 2 || r.Paths.Total != 6 || r.Paths.Covered != 2 {
		t.Errorf("%d functions _, %d/%d paths", len(fs), r.Paths.Covered, r.Paths.Total)
	}
}

// TestStaleBuilds: of two builds of a file in one profile, the one whose
// source is today's places the functions, even if the other ran last: F
// only moved, and is reported at today's line; Gone, which today's build
// lacks, is left out, and an error names it. With today's source that of
// neither build, an error names the functions reported from a build of
// another source.
func TestStaleBuilds(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.go")
	oldSrc, newSrc := []byte("package p // old\n"), []byte("package p // new\n")
	p := profile.New()
	old := metaOf("example.com/p", file, chainFunc(t, "F", 3, 2), chainFunc(t, "Gone", 20, 1))
	old.Sums = []string{profile.Hash(oldSrc)}
	moved := metaOf("example.com/p", file, chainFunc(t, "F", 10, 2))
	moved.Sums = []string{profile.Hash(newSrc)}
	p.Metas["old"], p.Metas["new"] = old, moved
	p.Add("old", 0, 1, 1)
	p.Add("old", 1, 0, 1)
	p.Add("new", 0, 2, 1)
	p.Processes = 2
	now := time.Now()
	p.MetaTimes["old"], p.MetaTimes["new"] = now, now.Add(-time.Hour) // the stale build ran last

	build := func(src []byte) (*Report, string) {
		t.Helper()
		if err := os.WriteFile(file, src, 0o666); err != nil {
			t.Fatal(err)
		}
		r, errs := Build(p, &Options{Sources: source.Under(dir)})
		var msgs []string
		for _, err := range errs {
			msgs = append(msgs, err.Error())
		}
		return r, strings.Join(msgs, "\n")
	}

	r, errs := build(newSrc)
	if fs := r.Lookup("F"); len(fs) != 1 || fs[0].Line != 10 || fs[0].Paths.Covered != 2 {
		t.Errorf("today's source is the second build's: F = %+v, want line 10 and both builds' paths", fs)
	}
	if gone := r.Lookup("Gone"); len(gone) != 0 || !strings.Contains(errs, "Gone") || !strings.Contains(errs, "not in the build of today's source") {
		t.Errorf("Gone, which today's build lacks: %d reported; errors:\n%s", len(gone), errs)
	}

	r, errs = build(oldSrc)
	if fs, gone := r.Lookup("F"), r.Lookup("Gone"); len(fs) != 1 || fs[0].Line != 3 || len(gone) != 1 || errs != "" {
		t.Errorf("today's source is the first build's: F = %+v, Gone %d; errors:\n%s", fs, len(gone), errs)
	}

	r, errs = build([]byte("package p // neither\n"))
	if len(r.Lookup("F")) != 1 || len(r.Lookup("Gone")) != 1 || !strings.Contains(errs, "no build in the profile was compiled from today's source") || !strings.Contains(errs, "F, Gone") {
		t.Errorf("today's source is neither build's: errors:\n%s", errs)
	}
}
