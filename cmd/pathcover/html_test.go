package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/pathcover/pathcover/internal/cdp"
	"github.com/pathcover/pathcover/internal/report"
)

// trickySource has what must never reach the page unescaped: the end of a
// script, comments and tags, in a comment and in strings.
const trickySource = `package m

func Render(s string, n int) string {
	// Wraps s: </script><script>document.title = "pwned"</script> <!-- x --> <b>bold</b>
	out := "<b>" + s + "</b>"
	if n > 0 {
		out += "</script><!--"
	}
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			out += "&amp;"
		} else {
			out += "<i>"
		}
	}
	return out
}

func Twice(n int) int {
	if n > 10 {
		return n
	}
	return 2 * n
}
`

// The file's name has characters HTML escapes too.
const trickyFile = "a&b<c>.go"

// htmlPage profiles the tricky module's tests and writes its page.
func htmlPage(t *testing.T) (page, prof, dir string) {
	t.Helper()
	dir = module(t, map[string]string{
		trickyFile: trickySource,
		"m_test.go": `package m

import "testing"

func TestRender(t *testing.T) {
	Render("a", 0)
	Render("b", 3)
	Render("c", 3)
	Twice(1)
}
`,
	})
	prof = filepath.Join(t.TempDir(), "prof")
	if out, code := run(t, dir, bin, "test", "-dir", prof, "./..."); code != 0 {
		t.Fatalf("pathcover test: exit %d\n%s", code, out)
	}
	page = filepath.Join(t.TempDir(), "paths.html")
	if out, code := run(t, dir, bin, "html", "-dir", prof, "-o", page); code != 0 {
		t.Fatalf("pathcover html: exit %d\n%s", code, out)
	}
	return page, prof, dir
}

// TestHTML checks the page without a browser: it parses, has one script,
// shows the tricky source and file name as text, and fetches nothing.
func TestHTML(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	page, prof, dir := htmlPage(t)
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var scripts int
	var text strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "script" {
				scripts++
				for _, a := range n.Attr {
					if a.Key == "src" {
						t.Errorf("the page loads a script: %s", a.Val)
					}
				}
			}
			if n.Data == "link" || n.Data == "img" || n.Data == "iframe" {
				t.Errorf("the page has a <%s>", n.Data)
			}
		}
		if n.Type == html.TextNode && (n.Parent == nil || n.Parent.Data != "script" && n.Parent.Data != "style") {
			text.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if scripts != 1 {
		t.Errorf("%d script elements, want 1", scripts)
	}
	checkPageData(t, data, dir)
	if strings.Contains(text.String(), "pwned") {
		t.Errorf("the page's markup holds the source")
	}
	if bytes.Contains(data, []byte("http://")) || bytes.Contains(data, []byte("https://")) {
		for _, m := range regexp.MustCompile(`https?://[^"' )]+`).FindAll(data, -1) {
			if string(m) != "http://www.w3.org/2000/svg" {
				t.Errorf("the page names %s", m)
			}
		}
	}

	// The source is the one profiled, and the page says nothing of it;
	// once it changes, the page says so.
	if strings.Contains(pageNotes(t, data), "changed since the build") {
		t.Errorf("the page says the source changed, which it did not")
	}
	src := filepath.Join(dir, trickyFile)
	if err := os.WriteFile(src, []byte(trickySource+"\n// edited\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, dir, bin, "html", "-dir", prof, "-o", page); code != 0 {
		t.Fatalf("pathcover html: exit %d\n%s", code, out)
	} else if data, _ := os.ReadFile(page); !strings.Contains(pageNotes(t, data), trickyFile+" has changed since the build") {
		t.Errorf("the page does not say that %s changed", trickyFile)
	}

	// Usage errors.
	if out, code := run(t, dir, bin, "html", "-dir", prof); code != 2 || !strings.Contains(out, "give -o FILE") {
		t.Errorf("html without -o: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "html", "-dir", filepath.Join(dir, "nowhere"), "-o", page); code != exitNoData {
		t.Errorf("html of a missing profile: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "html", "-dir", prof, "-o", page, "example.com/none"); code != exitNoData || !strings.Contains(out, "example.com/none match no package of the profile") {
		t.Errorf("html of no package: exit %d\n%s", code, out)
	}
}

// checkPageData checks the compressed data of the page of htmlPage's
// module in dir: the paths, graphs and sources, one set a function, the
// sources as text that the script puts into the page as text (the
// browser test sees it there), files named by package, and no path of
// the machine that ran the tests.
func checkPageData(t *testing.T, data []byte, dir string) {
	t.Helper()
	js, err := report.PageData(data)
	var pd struct {
		Funcs map[string]struct {
			View struct{ Where, SourceNote string }
		}
		SVG   map[string]string
		Files [][]string
		Src   map[string][3]int
		// The index, a line a function, which the script puts into the
		// page.
		Index struct{ Nav, Rows, Sections string }
	}
	if err != nil || json.Unmarshal(js, &pd) != nil || len(pd.Funcs) == 0 || len(pd.Funcs) != strings.Count(pd.Index.Sections, `<section class="func"`) || len(pd.SVG) != len(pd.Funcs) || len(pd.Src) != len(pd.Funcs) {
		t.Fatalf("the page's data: %v, %d functions, %d sections, %d graphs, %d sources", err, len(pd.Funcs), strings.Count(pd.Index.Sections, `<section class="func"`), len(pd.SVG), len(pd.Src))
	}
	for name, part := range map[string]string{"nav": pd.Index.Nav, "rows": pd.Index.Rows} {
		if n := strings.Count(part, `data-func="`); n != len(pd.Funcs) {
			t.Errorf("the index's %s has %d functions, the data %d", name, n, len(pd.Funcs))
		}
	}
	if strings.Contains(string(data), `<section class="func"`) || strings.Contains(string(data), `<tr data-func=`) {
		t.Error("the page's HTML holds the index's lines, which its data holds")
	}
	var sources, wheres strings.Builder
	for _, f := range pd.Files {
		sources.WriteString(strings.Join(f, "\n"))
	}
	for _, f := range pd.Funcs {
		wheres.WriteString(f.View.Where + "\n")
	}
	for _, want := range []string{
		`// Wraps s: </script><script>document.title = "pwned"</script> <!-- x --> <b>bold</b>`,
		`out += "</script><!--"`,
		`out := "<b>" + s + "</b>"`,
	} {
		if !strings.Contains(sources.String(), want) {
			t.Errorf("the page's sources lack %q", want)
		}
	}
	if want := "example.com/m/" + trickyFile + ":3"; !strings.Contains(wheres.String(), want) { // files named by package, as go tool cover does
		t.Errorf("the page's functions are not placed at %q:\n%s", want, wheres.String())
	}
	// No path of the machine that ran the tests: a page is shared.
	real, _ := filepath.EvalSymlinks(dir)
	for _, b := range [][]byte{data, js} {
		if bytes.Contains(b, []byte(dir)) || bytes.Contains(b, []byte(real)) {
			t.Errorf("the page names the module's directory %s", dir)
		}
	}
}

// openPage opens page in the browser and waits until its script has
// inflated its data; eval evaluates an expression there into result.
func openPage(t *testing.T, chromium, page string) (p *cdp.Page, eval func(expr string, result any)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	b, err := cdp.Start(ctx, chromium, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	p, err = b.Open("file://" + page)
	if err != nil {
		t.Fatal(err)
	}
	eval = func(expr string, result any) {
		t.Helper()
		if err := p.Eval(expr, result); err != nil {
			t.Fatal(err)
		}
	}
	// The script inflates the paths and graphs once the page has loaded.
	deadline := time.Now().Add(30 * time.Second)
	for ready := ""; ready != "1"; {
		eval(`document.body.dataset.ready || ""`, &ready)
		if ready != "1" {
			if time.Now().After(deadline) {
				t.Fatal("the page's data never loaded")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return p, eval
}

// pageNotes returns the notes of a page's functions on their sources.
func pageNotes(t *testing.T, data []byte) string {
	t.Helper()
	js, err := report.PageData(data)
	if err != nil {
		t.Fatal(err)
	}
	var pd struct {
		Funcs map[string]struct{ View struct{ SourceNote string } }
	}
	if err := json.Unmarshal(js, &pd); err != nil {
		t.Fatal(err)
	}
	var notes strings.Builder
	for _, f := range pd.Funcs {
		notes.WriteString(f.View.SourceNote + "\n")
	}
	return notes.String()
}

// TestHTMLBrowser loads the page in headless Chromium, chooses paths with
// the mouse and the keyboard, and checks that what is highlighted is the
// path chosen, as pathcover paths decodes it: its branches as badges on
// their lines, and its edges in the graph.
func TestHTMLBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test and starts a browser")
	}
	chromium, err := cdp.Find()
	if err != nil {
		t.Skipf("no browser (.ci/run installs Debian's chromium): %v", err)
	}
	page, prof, dir := htmlPage(t)
	shots := os.Getenv("PATHCOVER_ARTIFACTS")
	if shots == "" {
		shots = t.TempDir()
	}
	p, eval := openPage(t, chromium, page)
	shot := func(name string) {
		file := filepath.Join(shots, name+".png")
		if err := p.Screenshot(file); err != nil {
			t.Errorf("screenshot: %v", err)
			return
		}
		t.Logf("screenshot %s", file)
	}
	var title string
	eval("document.title", &title)
	if strings.Contains(title, "pwned") {
		t.Fatal("the source's script ran")
	}

	// Choose Render in the index: its path that ran most is chosen. Then
	// choose its second one with the mouse.
	if err := p.Click(`nav a[title^="example.com/m.Render:"]`); err != nil {
		t.Fatal(err)
	}
	var shown string
	eval(`document.querySelector("section.func.shown h2").textContent`, &shown)
	if shown != "example.com/m.Render" {
		t.Fatalf("after clicking Render in the index, the page shows %q", shown)
	}
	var line string
	eval(`document.querySelector("section.shown .ln[data-line='4']").textContent`, &line)
	if !strings.Contains(line, `</script><script>document.title = "pwned"</script> <!-- x --> <b>bold</b>`) {
		t.Errorf("line 4 shows %q", line)
	}
	shot("first")
	ran := decodedPaths(t, dir, prof, false)
	if len(ran) < 2 {
		t.Fatalf("Render ran %d paths, the test needs 2", len(ran))
	}
	checkSelected(t, p, 0, ran[0])
	if err := p.Click(`section.shown .paths li[data-index="1"]`); err != nil {
		t.Fatal(err)
	}
	checkSelected(t, p, 1, ran[1])
	shot("clicked")

	// The keyboard: k goes back up, t to the paths that never ran.
	if err := p.Press("k"); err != nil {
		t.Fatal(err)
	}
	checkSelected(t, p, 0, ran[0])
	if err := p.Press("t"); err != nil {
		t.Fatal(err)
	}
	untested := decodedPaths(t, dir, prof, true)
	checkSelected(t, p, 0, untested[0])
	if err := p.Press("ArrowDown"); err != nil {
		t.Fatal(err)
	}
	checkSelected(t, p, 1, untested[1])
	shot("untested")

	// ] shows the next function in the index, [ the one before.
	var next string
	eval(`(() => { const a = Array.from(document.querySelectorAll("nav a[data-func]"));
		const i = a.findIndex(x => x.classList.contains("current"));
		return i + 1 < a.length ? a[i + 1].title.split(":")[0] : a[i].title.split(":")[0]; })()`, &next)
	if err := p.Press("]"); err != nil {
		t.Fatal(err)
	}
	eval(`document.querySelector("section.func.shown h2").textContent`, &shown)
	if shown != next {
		t.Errorf("after ], the page shows %q, want %q", shown, next)
	}
	shot("next")

	// The overview: o shows it; its function table sorts by a column and
	// the filter keeps what matches, in the table and in the index.
	if err := p.Press("o"); err != nil {
		t.Fatal(err)
	}
	var overview struct {
		Shown bool
		Rows  int
		Links int
	}
	eval(`({Shown: document.getElementById("overview").classList.contains("shown"), Rows: document.querySelectorAll("#functions tbody tr").length, Links: document.querySelectorAll("nav a[data-func]").length})`, &overview)
	if !overview.Shown || overview.Rows == 0 || overview.Rows != overview.Links {
		t.Errorf("overview: %+v", overview)
	}
	if err := p.Click(`#functions th:nth-child(6)`); err != nil { // untested
		t.Fatal(err)
	}
	var untestedCol []int
	eval(`Array.from(document.querySelectorAll("#functions tbody tr")).map(tr => Number(tr.children[5].textContent))`, &untestedCol)
	if !slices.IsSortedFunc(untestedCol, func(a, b int) int { return b - a }) || len(untestedCol) != overview.Rows {
		t.Errorf("sorted by untested paths: %v", untestedCol)
	}
	shot("overview")
	var kept struct{ Rows, Links []string }
	eval(`(() => { const f = document.getElementById("filter"); f.value = "twice"; f.dispatchEvent(new Event("input"));
		return {Rows: Array.from(document.querySelectorAll("#functions tbody tr:not([hidden]) td:first-child")).map(td => td.textContent),
			Links: Array.from(document.querySelectorAll("nav a[data-func]:not([hidden]) .name")).map(s => s.textContent)}; })()`, &kept)
	if !slices.Equal(kept.Rows, []string{"Twice"}) || !slices.Equal(kept.Links, []string{"Twice"}) {
		t.Errorf("filter twice keeps %+v", kept)
	}
}

// A decodedPath is a path as pathcover paths prints it.
type decodedPath struct {
	id    int
	steps []string // line: description
}

// decodedPaths runs pathcover paths on Render and parses what it prints.
func decodedPaths(t *testing.T, dir, prof string, untested bool) []decodedPath {
	t.Helper()
	args := []string{"paths", "-dir", prof, "Render"}
	if untested {
		args = []string{"paths", "-untested", "-dir", prof, "Render"}
	}
	out, code := run(t, dir, bin, args...)
	if code != 0 {
		t.Fatalf("pathcover paths: exit %d\n%s", code, out)
	}
	var paths []decodedPath
	header := regexp.MustCompile(`^path (\d+),`)
	step := regexp.MustCompile(`^\t[^\t]*:(\d+):\d+\t(.*)$`)
	for _, l := range strings.Split(out, "\n") {
		if m := header.FindStringSubmatch(l); m != nil {
			id, _ := strconv.Atoi(m[1])
			paths = append(paths, decodedPath{id: id})
		} else if m := step.FindStringSubmatch(l); m != nil && len(paths) > 0 {
			p := &paths[len(paths)-1]
			p.steps = append(p.steps, m[1]+": "+m[2])
		}
	}
	return paths
}

// checkSelected checks that the index-th path of the list shown is chosen
// and is want: its id, its badges, and an edge highlighted for each branch
// taken at least.
func checkSelected(t *testing.T, p *cdp.Page, index int, want decodedPath) {
	t.Helper()
	var got struct {
		Selected []string
		Badges   []string
		Lit      []int
		Edges    int
	}
	if err := p.Eval(`(() => {
		const s = document.querySelector("section.func.shown");
		return {
			Selected: Array.from(s.querySelectorAll(".paths li.sel")).map(li => li.dataset.index + " " + li.textContent),
			Badges: Array.from(s.querySelectorAll(".ln .step")).map(b => b.parentElement.dataset.line + ": " + b.textContent),
			Lit: Array.from(s.querySelectorAll(".ln.on")).map(l => Number(l.dataset.line)),
			Edges: s.querySelectorAll("svg .edge.on").length,
		};
	})()`, &got); err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("%d path %d", index, want.id)
	if len(got.Selected) != 1 || !(got.Selected[0] == prefix || strings.HasPrefix(got.Selected[0], prefix+" ")) {
		t.Errorf("selected %q, want %q", got.Selected, prefix)
	}
	// The page shows the badges in line order, the path in its own.
	slices.Sort(got.Badges)
	steps := slices.Sorted(slices.Values(want.steps))
	if !slices.Equal(got.Badges, steps) {
		t.Errorf("path %d: badges %q, want %q", want.id, got.Badges, want.steps)
	}
	for _, s := range want.steps {
		l, _ := strconv.Atoi(strings.SplitN(s, ":", 2)[0])
		if !slices.Contains(got.Lit, l) {
			t.Errorf("path %d: line %d of %q not highlighted (lit: %v)", want.id, l, s, got.Lit)
		}
	}
	if got.Edges < len(want.steps) {
		t.Errorf("path %d: %d edges highlighted, fewer than its %d branches", want.id, got.Edges, len(want.steps))
	}
}

// pageText returns what a page shows once its script has run: its HTML
// and the index's lines (a function's link, its overview row, its
// section), which the page's compressed data holds.
func pageText(t *testing.T, page []byte) string {
	t.Helper()
	js, err := report.PageData(page)
	var pd struct {
		Index struct{ Nav, Rows, Sections string }
	}
	if err != nil || json.Unmarshal(js, &pd) != nil {
		t.Fatalf("the page's data: %v", err)
	}
	return string(page) + pd.Index.Nav + pd.Index.Rows + pd.Index.Sections
}
