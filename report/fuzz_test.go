package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

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

// srcTag matches what may stand in the page's source view: its own spans,
// and text in which html/template escaped every <.
var srcTag = regexp.MustCompile(`<(/?)span[ >]`)

// FuzzHTML renders the page of any profile that reads, with any source:
// rendering never fails or panics, and every byte of the source is
// escaped (the only markup in the source view is the page's own, and the
// page has its one script).
func FuzzHTML(f *testing.F) {
	chain := chainFunc(f, "F", 1, 3)
	wide := chainFunc(f, "(*T).M.func1", 2, 1)
	f.Add(htmlSeed(f, chain), "package p\n\nfunc F() {\n\tif a < b && c > d {\n\t}\n}\n")
	f.Add(htmlSeed(f, chain, wide), "</pre><script>alert(1)</script>\n<!-- & &amp; \"'\n\x00\xff\r\n")
	f.Add(htmlSeed(f), "")
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
		if err := r.WriteHTML(&page, HTMLOptions{Sources: SourcesUnder(dir), Paths: 5}); err != nil {
			t.Fatalf("WriteHTML: %v", err)
		}
		html := strings.ToLower(page.String())
		if n, m := strings.Count(html, "<script"), strings.Count(html, "</script"); n != 1 || m != 1 {
			t.Fatalf("the page has %d <script and %d </script", n, m)
		}
		for _, view := range strings.Split(page.String(), `<pre class="src">`)[1:] {
			view, _, _ = strings.Cut(view, "</pre>")
			for i := strings.IndexByte(view, '<'); i >= 0; i = strings.IndexByte(view, '<') {
				if !srcTag.MatchString(view[i:]) {
					t.Fatalf("unescaped < in the source view: %q", view[i:min(len(view), i+40)])
				}
				view = view[i+1:]
			}
		}
	})
}
