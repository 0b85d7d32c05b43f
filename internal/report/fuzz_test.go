package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/source"
	"github.com/pathcover/pathcover/profile"
)

// htmlSeed is a text profile of one package with the functions given, each
// with a few paths run, for the seeds of FuzzHTML.
func htmlSeed(t testing.TB, funcs ...profile.Func) string {
	m := metaOf("example.com/p", "p.go", funcs...)
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	hash := profile.Hash(raw)
	var b strings.Builder
	b.WriteString("pathcover-profile 1\nprocesses 1\nmeta " + hash + " " + string(raw) + "\n")
	for i := range funcs {
		b.WriteString("paths " + hash + " " + strconv.Itoa(i) + " 0 3\n")
	}
	return b.String()
}

// svgTag matches every tag of a graph's markup, and names its element.
var svgTag = regexp.MustCompile(`</?([^\s>/]*)`)

// FuzzHTML renders the page of any profile that reads, with any source:
// rendering never fails or panics, the source travels only as data that
// the script puts into the page as text, and the page has its one script.
func FuzzHTML(f *testing.F) {
	chain := chainFunc(f, "F", 1, 3)
	wide := chainFunc(f, "(*T).M.func1", 2, 1)
	f.Add(htmlSeed(f, chain), "package p\n\nfunc F() {\n\tif a < b && c > d {\n\t}\n}\n")
	f.Add(htmlSeed(f, chain, wide), "</pre><script>alert(1)</script>\n<!-- & &amp; \"'\n\x00\xff\r\n")
	f.Add(htmlSeed(f), "")
	f.Add(htmlSeed(f, correlatedFunc(f, []int32{1, 3})), "package p\n\nfunc F(x int) {\n\tif x > 0 {\n\t}\n}\n")
	f.Fuzz(func(t *testing.T, text, src string) {
		p := profile.New()
		if err := p.ReadText(strings.NewReader(text)); err != nil {
			return
		}
		// Every metadata names the one source file.
		dir := t.TempDir()
		file := filepath.Join(dir, "p.go")
		if err := os.WriteFile(file, []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
		for _, m := range p.Metas {
			for i := range m.Files {
				m.Files[i] = file
			}
			m.Sums = nil
		}
		r, _ := Build(p, nil)
		var page bytes.Buffer
		if err := r.WriteHTML(&page, HTMLOptions{Sources: source.Under(dir), Paths: 5}); err != nil {
			t.Fatalf("WriteHTML: %v", err)
		}
		html := strings.ToLower(page.String())
		if n, m := strings.Count(html, "<script"), strings.Count(html, "</script"); n != 1 || m != 1 {
			t.Fatalf("the page has %d <script and %d </script", n, m)
		}
		// The graphs, which the script puts in the page as markup, hold
		// only the elements the page draws them with.
		js, err := PageData(page.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var pd pageData
		if err := json.Unmarshal(js, &pd); err != nil {
			t.Fatal(err)
		}
		for _, svg := range pd.SVG {
			for _, m := range svgTag.FindAllStringSubmatch(svg, -1) {
				if !slices.Contains([]string{"svg", "defs", "marker", "path", "g", "text", "title", "rect"}, m[1]) {
					t.Fatalf("a graph has a <%s>", m[1])
				}
			}
		}
		// The source travels as data, whole, never as markup: the
		// script puts it into the page as text.
		want := strings.ReplaceAll(src, "\t", "    ")
		for _, lines := range pd.Files {
			if got := strings.Join(lines, "\n"); !strings.HasPrefix(want, got) {
				t.Fatalf("the page's source %q is not the file's %q", got, want)
			}
		}
		if len(src) > 20 && strings.Contains(src, "\n") && strings.Contains(page.String(), src) {
			t.Fatalf("the page's markup holds the source")
		}
	})
}

// reportMetas are the metadata that FuzzReport's counter files are read
// with: a Ball-Larus build with array and hash counters, the array's
// function with paths proved infeasible, and a PPP build with a PPP array
// and residual tables.
func reportMetas(t testing.TB) (bl, ppp *profile.Meta) {
	f, g := correlatedFunc(t, []int32{0, 4}, []int32{1, 3}), chainFunc(t, "G", 20, 2)
	g.Counters = profile.Counters{Kind: "hash", Size: 2*3 + 1}
	bl = metaOf("example.com/p", "p.go", f, g)
	h := chainFunc(t, "H", 3, 2)
	h.Interesting, h.PPPSize = []uint64{0, 2}, 2
	h.Counters = profile.Counters{Kind: profile.CounterPPP, Size: 4}
	ppp = metaOf("example.com/q", "q.go", h)
	ppp.Mode = profile.ModePPP
	return bl, ppp
}

// FuzzReport reads any counter file with fixed metadata and writes every
// report of it: nothing fails or panics, and no function ran more paths
// than it has.
func FuzzReport(f *testing.F) {
	bl, ppp := reportMetas(f)
	rawBL, _ := json.Marshal(bl)
	rawPPP, _ := json.Marshal(ppp)
	hBL, hPPP := profile.Hash(rawBL), profile.Hash(rawPPP)
	seed := func(segs ...profile.Segment) {
		var b bytes.Buffer
		if err := profile.WriteCounts(&b, &profile.CountFile{PID: 1, Page: 512, Segments: segs}); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	table := func(hash string, fn int, dense ...uint64) profile.Segment {
		s := profile.NewSegment(hash, dense)
		s.Residual, s.Func = true, fn
		return s
	}
	seed(profile.NewSegment(hBL, []uint64{1, 0, 3, 0, 0, 0, 0, 2, 2, 5, 0, 0, 0, 0, 1}))
	seed(profile.NewSegment(hPPP, []uint64{1, 4, 3, 1}), table(hPPP, 0, 2, 7, 0, 0))
	seed(table(hPPP, 0, 99, 1), table(hPPP, 3, 1, 1), profile.NewSegment(hBL, []uint64{1}))
	// In memory, so that the minimizer's many runs cost little.
	noSources := source.Under()
	f.Fuzz(func(t *testing.T, counts []byte) {
		p := profile.New()
		for hash, raw := range map[string][]byte{hBL: rawBL, hPPP: rawPPP} {
			if err := p.AddMeta(hash, raw); err != nil {
				t.Fatal(err)
			}
		}
		if cf, err := profile.ParseCounts(counts); cf != nil {
			p.AddCounts(cf, err)
		}
		r, errs := Build(p, nil)
		proofErrors := map[string]bool{}
		for _, err := range errs {
			// Counts at random run through F's contradictions.
			var pe *ProofError
			if !errors.As(err, &pe) {
				t.Fatalf("Build: %v", errs)
			}
			proofErrors[pe.Func] = true
		}
		for _, pkg := range r.Packages {
			for _, fn := range pkg.Funcs {
				if fn.Paths.Covered > fn.Paths.Total || fn.Feasible.Covered > fn.Feasible.Total {
					t.Fatalf("%s ran %d of its %d paths, %d of its %d feasible", fn.Name, fn.Paths.Covered, fn.Paths.Total, fn.Feasible.Covered, fn.Feasible.Total)
				}
				if proofErrors[pkg.Path+"."+fn.Name] && (fn.Infeasible.Analyzed || fn.Feasible != fn.Paths) {
					t.Fatalf("%s's proof is wrong, but it counts %+v", fn.Name, fn.Infeasible)
				}
				if _, err := fn.Decoded(false, 100); err != nil {
					t.Fatalf("paths of %s: %v", fn.Name, err)
				}
				if _, err := fn.Decoded(true, 100); err != nil {
					t.Fatalf("untested paths of %s: %v", fn.Name, err)
				}
			}
		}
		var out bytes.Buffer
		for _, write := range []func() error{
			func() error { return r.WriteText(&out) },
			func() error { return r.WriteJSON(&out) },
			func() error { return r.WriteHTML(&out, HTMLOptions{Sources: noSources}) },
			func() error {
				res, err := r.Residual(10)
				if err == nil {
					err = res.WriteText(&out)
				}
				return err
			},
		} {
			if err := write(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
