package slice_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/query/slice"
	"github.com/pathcover/pathcover/internal/source"
)

// FuzzSliceHTML writes the slice page of any source with a slice on any
// of its lines: no byte of the source comes out as markup.
func FuzzSliceHTML(f *testing.F) {
	f.Add("package p\n\nfunc F() {\n\tx := a < b\n}\n", uint8(4), uint8(3))
	f.Add("</pre><script>alert(1)</script>\n<!-- & &amp; \"'\n\x00\xff\r\n", uint8(1), uint8(2))
	f.Add("", uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, src string, line, other uint8) {
		dir := t.TempDir()
		file := filepath.Join(dir, "p.go")
		if err := os.WriteFile(file, []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
		crit := slice.Stmt{File: file, Func: "p.F<>", Line: int(line), Col: 1, EndLine: int(line)}
		s := slice.FromSteps(1, []slice.Step{
			{Stmt: crit, From: -1},
			{Stmt: slice.Stmt{File: file, Line: int(other), EndLine: int(other) + 1}, From: 0, Via: "<b>"},
		}, []string{"</li><script>"})
		var page bytes.Buffer
		if err := s.WriteHTML(&page, "<title>", source.Under(dir)); err != nil {
			t.Fatal(err)
		}
		html := page.String()
		if strings.Contains(strings.ToLower(html), "<script") {
			t.Fatalf("the page has a script tag")
		}
		for _, view := range strings.Split(html, `<span class="ln">`)[1:] {
			view, _, _ = strings.Cut(view, "</pre>")
			_, text, _ := strings.Cut(view, "</span>")
			if strings.ContainsAny(text, "<>") {
				t.Fatalf("unescaped source: %q", text)
			}
		}
	})
}
