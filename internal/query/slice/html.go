package slice

import (
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pathcover/pathcover/internal/source"
)

// sliceContext is how many lines around a slice's lines the page shows.
const sliceContext = 2

// maxPageSteps is how many steps the page lists: a slice of a whole suite
// holds millions.
const maxPageSteps = 10000

// WriteHTML writes a page that shows slice s on the source: each file with
// statements in the slice, its lines in the slice highlighted (the
// criterion's marked) and a few lines around them, then each step of the
// slice with the dependence that brought it in. Sources are read through
// src, so only files that can belong to profiled packages are shown; every
// byte of them is escaped.
func (s *Slice) WriteHTML(w io.Writer, title string, src *source.Files) error {
	type line struct {
		N        int
		Text     string
		In, Crit bool
		Gap      bool // lines left out before this one
	}
	type file struct {
		Name    string
		Lines   []line
		Problem string
	}
	type step struct {
		N, Depth, From int
		Where, Func    string
		Via            string
	}
	// A link of the chain (Chain), as pathcover slice writes it: a
	// function's heading where it changes, each statement once.
	type link struct {
		Heading      string // the function and its file, where it changes
		Line, Indent int
		Via, Text    string
		Execs        int
	}
	// The page shows the first steps: the shortest chains back to the
	// criterion, step 0.
	shown, err := s.Steps(0, maxPageSteps)
	if err != nil {
		return err
	}
	crit := Stmt{}
	if len(shown) > 0 {
		crit = shown[0].Stmt
	}
	inSlice := make(map[string]map[int]bool)
	for _, st := range s.Stmts {
		if inSlice[st.File] == nil {
			inSlice[st.File] = make(map[int]bool)
		}
		for l := st.Line; l <= max(st.Line, st.EndLine); l++ {
			inSlice[st.File][l] = true
		}
	}
	var files []file
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range inSlice {
			if !yield(n) {
				return
			}
		}
	}) {
		f := file{Name: source.NamesIn(".").File(name)}
		data, err := src.ReadFile(name)
		if err != nil {
			f.Problem = err.Error()
			files = append(files, f)
			continue
		}
		text := source.Lines(data)
		last := 0
		for i, t := range text {
			n := i + 1
			near := false
			for d := -sliceContext; d <= sliceContext; d++ {
				near = near || inSlice[name][n+d]
			}
			if !near {
				continue
			}
			f.Lines = append(f.Lines, line{N: n, Text: t, In: inSlice[name][n], Crit: name == crit.File && n == crit.Line, Gap: last != 0 && n != last+1})
			last = n
		}
		files = append(files, f)
	}
	chain, err := s.Chain()
	if err != nil {
		return err
	}
	names := source.NamesIn(".")
	var links []link
	in := ""
	for _, l := range chain {
		st := s.Stmts[l.Stmt]
		lk := link{Line: st.Line, Indent: min(l.Depth, maxPageIndent), Execs: l.Execs}
		if l.Parent >= 0 {
			lk.Via = l.Via
		}
		if fn := source.FuncName(st.Package, st.Func); fn != in || l.Depth == 0 {
			lk.Heading = fmt.Sprintf("%s (%s)", fn, names.FileOf(st.File, st.Package))
			in = fn
		}
		lk.Text, _ = src.Statement(st.File, st.Sum, st.Line, st.Col, st.EndLine, st.EndCol)
		links = append(links, lk)
	}
	var steps []step
	for i, st := range shown {
		steps = append(steps, step{N: i, Depth: st.Depth, From: st.From, Where: fmt.Sprintf("%s:%d:%d", filepath.Base(st.Stmt.File), st.Stmt.Line, st.Stmt.Col), Func: st.Stmt.Func, Via: st.Via})
	}
	return sliceTemplate.Execute(w, struct {
		Title       string
		Instances   int
		Total, More int
		Files       []file
		Chain       []link
		Steps       []step
		Memory      []string
	}{title, s.Instances, s.NumSteps(), s.NumSteps() - len(shown), files, links, steps, s.Memory})
}

// maxPageIndent is the deepest the page indents a link of the chain.
const maxPageIndent = 12

var sliceTemplate = template.Must(template.New("slice").Funcs(template.FuncMap{
	"indent": func(n int) string { return strings.Repeat("\u00a0\u00a0", n) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 1em 2em; }
pre { margin: 0; }
.src { border: 1px solid #ccc; margin-bottom: 1.5em; }
.ln { color: #888; display: inline-block; width: 4em; text-align: right; padding-right: 1em; user-select: none; }
.in { background: #fff3b0; }
.crit { background: #ffb3b3; font-weight: bold; }
.gap { color: #888; }
.out { color: #666; }
table { border-collapse: collapse; } td { padding: 0 .8em; font-family: monospace; }
</style></head><body>
<h1>{{.Title}}</h1>
<p>{{.Total}} statement executions in the slice, of the criterion's execution of {{.Instances}}; its statement in red, the others in yellow.</p>
{{range .Files}}<h2>{{.Name}}</h2>
{{if .Problem}}<p>not shown: {{.Problem}}</p>{{else}}<div class="src">{{range .Lines}}{{if .Gap}}<pre class="gap">	…</pre>{{end}}<pre class="{{if .Crit}}crit{{else if .In}}in{{else}}out{{end}}"><span class="ln">{{.N}}</span>{{.Text}}</pre>{{end}}</div>{{end}}
{{end}}
{{if .Memory}}<h2>Reads not recorded, where the slice stops</h2><ul>{{range .Memory}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
<h2>The chain: each statement under the one that first needed it</h2>
<table>{{range .Chain}}{{if .Heading}}<tr><td colspan="3"><b>in {{.Heading}}</b></td></tr>
{{end}}<tr><td>{{.Line}}</td><td>{{indent .Indent}}{{if .Via}}[{{.Via}}] {{end}}{{.Text}}</td><td>{{if gt .Execs 1}}×{{.Execs}}{{end}}</td></tr>
{{end}}</table>
<h2>Steps</h2>
<table>{{range .Steps}}<tr><td>{{.N}}</td><td>{{indent .Depth}}{{.Where}}</td><td>{{.Func}}</td><td>{{if ge .From 0}}{{.Via}}, for step {{.From}}{{end}}</td></tr>
{{end}}</table>
{{if .More}}<p>and {{.More}} more steps, which pathcover slice -why lists.</p>{{end}}
</body></html>
`))
