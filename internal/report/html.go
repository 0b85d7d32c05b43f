package report

import (
	"bytes"
	"cmp"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pathcover/pathcover/internal/inflate"
	"github.com/pathcover/pathcover/internal/source"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// HTMLOptions say what WriteHTML puts in the page.
type HTMLOptions struct {
	// Paths is how many paths of each kind (ran, untested, residual) are
	// listed per function; 0 means 100.
	Paths int
	// MaxBlocks is the largest graph drawn; 0 means 300 blocks.
	MaxBlocks int
	// Sources reads the source files; nil means those under the roots that
	// the go command reports in the current directory (source.New).
	Sources *source.Files
	// Traces, if set, gives the distinct traces of function index of the
	// metadata hash, from a whole program path (pathcover wpp): the page
	// then lists each function's traces, most calls first.
	Traces func(hash string, index int) []HTMLTrace
	// Flights are the failures the flight recorder left (pathcover
	// flight), which the overview shows first.
	Flights []*FlightReport
}

// An HTMLTrace is a distinct trace of a function: the paths a call took, in
// order, and how many calls took them.
type HTMLTrace struct {
	Paths []uint64
	Calls uint64
	// Tests are the tests that took it, if the recording knows them.
	Tests []string
}

//go:embed html.tmpl
var htmlTemplate string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"percent":        func(c Coverage) string { return strings.TrimSpace(percentText(c)) },
	"ratio":          ratio,
	"infeasibleNote": infeasibleNote,
	"sub":            func(a, b uint64) uint64 { return a - b },
}).Parse(htmlTemplate))

// The page: an index of packages and functions, and for each function a
// section with its source and its graph, hidden but the one chosen. The
// paths are data for the page's script, which highlights the one chosen.
type htmlPage struct {
	Title    string
	Report   *Report
	Packages []*htmlPackage
	Funcs    []*htmlFunc
	Residual bool
	Traces   bool
	Flights  []htmlFlight
	// FlightOnly says the profile holds flight records and no counts: the
	// page shows the failures, and no coverage (every path would read as
	// never run).
	FlightOnly bool
	// Blob is the page's data (pageData), compressed: see PageData.
	Blob string
}

// An htmlFlight is a flight file as the overview shows it: named by its
// base name (not a path of the machine that read it), each path by its
// function, linked to the function's section when the page has it
// (FuncID >= 0), and its lines, the file named by package.
type htmlFlight struct {
	Name, What string
	// Message is the panic's or the fatal error's, headed as the
	// runtime heads it ("panic: ...").
	Message    string
	Goroutines []htmlFlightGoroutine
}

type htmlFlightGoroutine struct {
	FlightGoroutine
	Heading string
	Paths   []htmlFlightPath
}

type htmlFlightPath struct {
	N      int
	Name   string
	FuncID int
	ID     uint64
	Times  int // a run of the same path (a loop's rounds) is one row
	Lines  string
}

// flights turns the flight reports into what the overview shows, linking
// each path to its function's section by package and name.
func flights(reports []*FlightReport, funcs []*htmlFunc) []htmlFlight {
	ids := make(map[[2]string]int)
	for _, hf := range funcs {
		ids[[2]string{hf.Package, hf.Name}] = hf.ID
	}
	var out []htmlFlight
	for _, r := range reports {
		what := r.State
		if r.Goroutine != 0 {
			what += fmt.Sprintf(" in goroutine %d", r.Goroutine)
		}
		if r.Signal != "" {
			what += " (" + r.Signal + ")"
		}
		what += fmt.Sprintf(", process %d, %s; rings of %d paths", r.PID, r.Made.Format("2006-01-02 15:04:05 MST"), r.Entries)
		hf := htmlFlight{Name: filepath.Base(r.File), What: what}
		if r.Message != "" {
			hf.Message = r.messageKind() + ": " + r.Message
		}
		for _, g := range r.Goroutines {
			hg := htmlFlightGoroutine{FlightGoroutine: g, Heading: fmt.Sprintf("goroutine %d", g.Goroutine)}
			if g.Named {
				hg.Heading += ", which " + r.verb()
			}
			hg.Heading += fmt.Sprintf(": %d paths", g.Written)
			if uint64(len(g.Paths)) < g.Written {
				hg.Heading += fmt.Sprintf(", the last %d", len(g.Paths))
			}
			for i, p := range g.Paths {
				if n := len(hg.Paths); n > 0 {
					if last := &hg.Paths[n-1]; last.ID == p.ID && g.Paths[i-1].Func == p.Func && g.Paths[i-1].Package == p.Package {
						last.Times++
						continue
					}
				}
				id, ok := ids[[2]string{p.Package, p.Func}]
				if !ok {
					id = -1
				}
				hg.Paths = append(hg.Paths, htmlFlightPath{N: i + 1, Name: lastElem(p.Package) + "." + p.Func, FuncID: id, ID: p.ID, Times: 1, Lines: stepLines(p.Steps, func(file string) string { return source.NamesIn(".").FileOf(file, profile.PackagePath(p.Package)) })})
			}
			hf.Goroutines = append(hf.Goroutines, hg)
		}
		out = append(out, hf)
	}
	return out
}

// pageData is what the page's script draws from: each function's paths by
// kind, and its graph drawn as SVG, by function ID. The page holds it as
// one string, Blob: the JSON, gzip-compressed, in unpadded base64url
// (characters that no context of the page escapes); the script inflates
// it once when the page loads, and puts a function's graph into the page
// when the function is first shown. Paths and graphs are most of a page's
// size and compress about tenfold, so the page grows gently with the
// module; the index and the overview stay plain HTML.
type pageData struct {
	Funcs map[int]*jsFunc `json:"funcs"`
	SVG   map[int]string  `json:"svg"`
	// Files are the lines of the source files shown, tabs widened; Src
	// places each function's source in them: file index, first and last
	// line. The script puts a function's lines into the page, as text,
	// when the function is first shown: the sources are most of what
	// stays of a page once its paths are compressed.
	Files [][]string     `json:"files"`
	Src   map[int][3]int `json:"src"`
	// Index is the index's HTML, a line a function (pageIndex).
	Index pageIndex `json:"index"`
}

// pageIndex is the part of the page that has a line for each function:
// its link in the navigation (Nav), its row in the overview's table
// (Rows) and its empty section (Sections), as the page's template writes
// them (escaped by html/template, as the rest of the page), which the
// script puts into the page as HTML once the data is inflated. Kept in the
// compressed data, not in the page: k8s.io/client-go's 16,296 functions
// took 13.8 MB of its 17.6 MB page as HTML.
type pageIndex struct {
	Nav      string `json:"nav"`
	Rows     string `json:"rows"`
	Sections string `json:"sections"`
}

// PageData returns the JSON of the data that a page written by WriteHTML
// holds (pageData), for tools and tests that read a page.
func PageData(page []byte) ([]byte, error) {
	_, rest, ok := bytes.Cut(page, []byte(`const blob = "`))
	blob, _, ok2 := bytes.Cut(rest, []byte(`"`))
	if !ok || !ok2 {
		return nil, errors.New("not a pathcover page: no data")
	}
	gz, err := base64.RawURLEncoding.DecodeString(string(blob))
	if err != nil {
		return nil, fmt.Errorf("the page's data: %v", err)
	}
	js, err := inflate.Gzip(gz, pageInflate)
	if err != nil {
		return nil, fmt.Errorf("the page's data: %v", err)
	}
	return js, nil
}

// pageInflate bounds a page's data as PageData inflates it: the JSON that
// WriteHTML compresses shrinks about tenfold, and no page of a real
// module's profile comes near 1 GiB of it.
var pageInflate = inflate.Limits{Max: 1 << 30, Ratio: 64, Floor: 1 << 20}

type htmlPackage struct {
	*Package
	Funcs []*htmlFunc
}

type htmlFunc struct {
	ID int
	*Func
	// Where names the function's file as go tool cover does, by its
	// package's import path, not by a path of the machine that ran it.
	Where      string
	SourceNote string // why the source is not shown, or may not be what ran
}

// The script's data, per function: its paths by kind, and how many more
// of each kind there are than listed.
type jsFunc struct {
	Paths map[string][]jsPath `json:"paths"`
	More  map[string]uint64   `json:"more"`
	View  jsView              `json:"view"`
}

// jsView is what a function's view says besides its paths, graph and
// source: where it is, and why its source or graph is not shown.
type jsView struct {
	Where      string `json:"where"`
	SourceNote string `json:"sourceNote,omitempty"`
	GraphNote  string `json:"graphNote,omitempty"`
}

type jsPath struct {
	ID    uint64   `json:"id"`
	Count uint64   `json:"count"`
	Paths []uint64 `json:"paths,omitempty"` // a trace's paths
	// PathList is a trace's paths as the CLI writes them, a run of one
	// path as id×n (wpp traces).
	PathList string `json:"pathList,omitempty"`
	// Tests are the tests that took a trace, by name.
	Tests []string `json:"tests,omitempty"`
	Lines []int    `json:"lines"` // the lines of the blocks it runs through
	Steps []jsStep `json:"steps"`
	Edges []int    `json:"edges"` // the graph edges it takes
	// Infeasible says that an untested path was proved infeasible; its
	// steps then are the branches that contradict, and why. The steps of
	// another untested path are what it needs (Path.Needs).
	Infeasible bool `json:"infeasible,omitempty"`
}

type jsStep struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// WriteHTML writes the report as one HTML page that needs nothing else: no
// network, no other file.
func (r *Report) WriteHTML(w io.Writer, opt HTMLOptions) error {
	if opt.Paths <= 0 {
		opt.Paths = 100
	}
	if opt.MaxBlocks <= 0 {
		opt.MaxBlocks = 300
	}
	if opt.Sources == nil {
		wd, _ := os.Getwd()
		opt.Sources = source.New(wd)
	}
	page := &htmlPage{Title: "pathcover", Report: r, Traces: opt.Traces != nil}
	residual := map[*Func][]uint64{}
	if res, err := r.Residual(opt.Paths); err == nil {
		page.Residual = true
		for _, rf := range res.Funcs {
			f := r.find(rf)
			for _, p := range rf.Paths {
				residual[f] = append(residual[f], p.ID)
			}
		}
	}
	data := &pageData{Funcs: map[int]*jsFunc{}, SVG: map[int]string{}, Files: [][]string{}, Src: map[int][3]int{}}
	fileIndex := make(map[string]int) // in data.Files
	for _, pkg := range r.Packages {
		hp := &htmlPackage{Package: pkg}
		page.Packages = append(page.Packages, hp)
		for _, f := range pkg.Funcs {
			hf := &htmlFunc{ID: len(page.Funcs), Func: f, Where: pkg.Path + "/" + filepath.Base(f.File)}
			page.Funcs = append(page.Funcs, hf)
			hp.Funcs = append(hp.Funcs, hf)
			shown := data.addSource(hf, opt.Sources, fileIndex)
			if err := data.addFunc(hf, opt, residual[f], shown); err != nil {
				return err
			}
		}
	}
	page.Flights = flights(opt.Flights, page.Funcs)
	page.FlightOnly = len(page.Flights) > 0 && r.Processes == 0
	for _, part := range []struct {
		name string
		to   *string
	}{{"nav", &data.Index.Nav}, {"rows", &data.Index.Rows}, {"sections", &data.Index.Sections}} {
		var b strings.Builder
		if err := pageTemplate.ExecuteTemplate(&b, part.name, page); err != nil {
			return err
		}
		*part.to = b.String()
	}
	if page.FlightOnly {
		data.Index.Rows = "" // no coverage table
	}
	// Encoded straight into the compressor: a large module's JSON is
	// tens of megabytes that need not be held.
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err := json.NewEncoder(zw).Encode(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	page.Blob = base64.RawURLEncoding.EncodeToString(gz.Bytes())
	return pageTemplate.Execute(w, page)
}

// addSource places function hf's source in the page's data, each file's
// lines once (fileIndex: where each file is in Files), or says in
// hf.SourceNote why it is not shown, or may not be what ran. It returns
// the last line shown, 0 for none.
func (data *pageData) addSource(hf *htmlFunc, sources *source.Files, fileIndex map[string]int) int {
	f := hf.Func
	src, err := sources.ReadFile(f.File)
	lines := source.Lines(src)
	switch {
	case err != nil:
		hf.SourceNote = "The source is not shown: " + err.Error()
		return 0
	case f.Line < 1 || f.EndLine > len(lines) || f.Line > f.EndLine:
		hf.SourceNote = "The source is not shown: " + hf.Where + " has changed since the build (the function's lines are not in it)."
		return 0
	}
	if f.sum != "" && f.sum != profile.Hash(src) {
		hf.SourceNote = hf.Where + " has changed since the build: the lines shown are today's, and may not be those that ran."
	}
	fi, ok := fileIndex[f.File]
	if !ok {
		fi = len(data.Files)
		fileIndex[f.File] = fi
		widened := make([]string, len(lines))
		for i, l := range lines {
			widened[i] = strings.ReplaceAll(l, "\t", "    ")
		}
		data.Files = append(data.Files, widened)
	}
	data.Src[hf.ID] = [3]int{fi, f.Line, f.EndLine}
	return f.EndLine
}

// addFunc adds function hf's paths (up to the last line shown), its view
// and its graph to the page's data.
func (data *pageData) addFunc(hf *htmlFunc, opt HTMLOptions, residual []uint64, shown int) error {
	f := hf.Func
	js, err := f.htmlPaths(opt.Paths, residual, shown)
	if err != nil {
		return err
	}
	if opt.Traces != nil {
		if js.Paths["traces"], js.More["traces"], err = f.htmlTraces(opt, shown); err != nil {
			return err
		}
	}
	data.Funcs[hf.ID] = js
	js.View = jsView{Where: fmt.Sprintf("%s:%d · %s", hf.Where, f.Line, f.Summary()), SourceNote: hf.SourceNote}
	if f.Acyclic != "" {
		js.View.Where += " · " + f.Acyclic + " acyclic paths"
	}
	if blocks := f.numbering.Graph().NumBlocks; blocks > opt.MaxBlocks {
		js.View.GraphNote = fmt.Sprintf("The graph has %d blocks, too many to draw.", blocks)
		return nil
	}
	svg, err := f.svg()
	if err != nil {
		return err
	}
	data.SVG[hf.ID] = svg
	return nil
}

// infeasibleNote says, for the page's index, how many paths were proved
// infeasible, and what the coverage shown is of.
func infeasibleNote(r *Report) string {
	var all []*Func
	for _, pkg := range r.Packages {
		all = append(all, pkg.Funcs...)
	}
	n := infeasibleSum(all, r.Paths, r.Feasible)
	if n == "–" {
		return "Coverage of all acyclic paths: the build proved none infeasible (it did not analyse them)."
	}
	total := fmt.Sprint(r.Paths.Total)
	if r.Paths.Saturated {
		total = "at least " + total
	}
	return fmt.Sprintf("Coverage of the feasible paths: %s of the %s acyclic paths were proved infeasible, and are left out.", n, total)
}

// find returns the function of r that a residual report's function is.
func (r *Report) find(rf *ResidualFunc) *Func {
	for _, pkg := range r.Packages {
		if pkg.Path != rf.Package {
			continue
		}
		for _, f := range pkg.Funcs {
			if f.Name == rf.Name && f.File == rf.File && f.Line == rf.Line {
				return f
			}
		}
	}
	return nil
}

// htmlPaths decodes the function's paths for the page: those that ran,
// hottest first; those that never ran, in id order; and the residual ones
// given. Each path's lines are listed up to line last, the end of the
// source shown.
func (f *Func) htmlPaths(limit int, residual []uint64, last int) (*jsFunc, error) {
	js := &jsFunc{Paths: map[string][]jsPath{}, More: map[string]uint64{}}
	ran := make([]uint64, 0, len(f.counts))
	for id := range f.counts {
		ran = append(ran, id)
	}
	slices.SortFunc(ran, func(a, b uint64) int {
		if f.counts[a] != f.counts[b] {
			return cmpDesc(f.counts[a], f.counts[b])
		}
		return cmpDesc(b, a)
	})
	var untested []uint64
	n := f.numbering.NumPaths()
	for id := uint64(0); id < n && len(untested) < limit; id++ {
		if f.counts[id] == 0 {
			untested = append(untested, id)
		}
	}
	if never := n - uint64(len(f.counts)); never > uint64(len(untested)) {
		js.More["untested"] = never - uint64(len(untested))
	}
	if len(ran) > limit {
		js.More["ran"] = uint64(len(ran) - limit)
		ran = ran[:limit]
	}
	for kind, ids := range map[string][]uint64{"ran": ran, "untested": untested, "residual": residual} {
		for _, id := range ids {
			p, err := f.htmlPath(id, last)
			if err != nil {
				return nil, err
			}
			js.Paths[kind] = append(js.Paths[kind], p)
		}
	}
	return js, nil
}

// htmlTraces lists the function's distinct traces (those of all its
// builds, alike ones merged), most calls first, at most opt.Paths, and how
// many more there are: each as one entry whose lines and edges are those
// of all its paths, and whose steps are its paths' in order.
func (f *Func) htmlTraces(opt HTMLOptions, last int) ([]jsPath, uint64, error) {
	calls := make(map[string]uint64)
	paths := make(map[string][]uint64)
	tests := make(map[string][]string)
	for _, b := range f.builds {
		for _, tr := range opt.Traces(b.hash, b.index) {
			k := fmt.Sprint(tr.Paths)
			calls[k] += tr.Calls
			paths[k] = tr.Paths
			tests[k] = append(tests[k], tr.Tests...)
		}
	}
	for k, ts := range tests {
		slices.Sort(ts)
		tests[k] = slices.Compact(ts)
	}
	keys := slices.SortedFunc(maps.Keys(calls), func(a, b string) int {
		return cmp.Or(cmpDesc(calls[a], calls[b]), strings.Compare(a, b))
	})
	var more uint64
	if len(keys) > opt.Paths {
		more, keys = uint64(len(keys)-opt.Paths), keys[:opt.Paths]
	}
	var out []jsPath
	for i, k := range keys {
		t := jsPath{ID: uint64(i + 1), Count: calls[k], Paths: paths[k], PathList: profile.PathRuns(paths[k]), Tests: tests[k], Lines: []int{}, Steps: []jsStep{}, Edges: []int{}}
		lines, edges := map[int]bool{}, map[int]bool{}
		for j := 0; j < len(paths[k]); {
			// A run of one path (a loop's rounds) is listed once, ×n.
			id, n := paths[k][j], 1
			for j+n < len(paths[k]) && paths[k][j+n] == id {
				n++
			}
			j += n
			if id >= f.numbering.NumPaths() {
				return nil, 0, fmt.Errorf("%s.%s: a trace has path %d, of %d", f.Package, f.Name, id, f.numbering.NumPaths())
			}
			p, err := f.htmlPath(id, last)
			if err != nil {
				return nil, 0, err
			}
			for _, l := range p.Lines {
				lines[l] = true
			}
			for _, e := range p.Edges {
				edges[e] = true
			}
			head := fmt.Sprintf("path %d:", id)
			if n > 1 {
				head = fmt.Sprintf("path %d ×%d:", id, n)
			}
			t.Steps = append(t.Steps, jsStep{0, head})
			t.Steps = append(t.Steps, p.Steps...)
		}
		t.Lines = slices.Sorted(maps.Keys(lines))
		t.Edges = slices.Sorted(maps.Keys(edges))
		out = append(out, t)
	}
	return out, more, nil
}

func cmpDesc(a, b uint64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func (f *Func) htmlPath(id uint64, last int) (jsPath, error) {
	n := f.numbering
	dag, err := n.Decode(id)
	if err != nil {
		return jsPath{}, fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
	}
	p := jsPath{ID: id, Count: f.counts[id], Lines: []int{}, Steps: []jsStep{}, Edges: []int{}}
	lines := map[int]bool{}
	for _, b := range n.Blocks(dag) {
		if int(b) >= len(f.meta.Blocks) {
			continue
		}
		// A block's lines lie within the source shown; metadata that says
		// otherwise must not make the page list a billion lines.
		mb := f.meta.Blocks[b]
		for l := max(mb.Line, f.Line, 1); l <= min(mb.EndLine, last); l++ {
			lines[l] = true
		}
	}
	for _, s := range f.steps(dag) {
		if s.Kind == "flow" || s.Kind == "loop" || s.Line == 0 {
			continue
		}
		if s.Line <= last {
			lines[s.Line] = true
		}
		p.Steps = append(p.Steps, jsStep{s.Line, s.Describe()})
	}
	for l := range lines {
		p.Lines = append(p.Lines, l)
	}
	slices.Sort(p.Lines)
	for _, e := range n.GraphEdges(dag) {
		p.Edges = append(p.Edges, int(e))
	}
	if p.Count == 0 {
		var rp Path
		f.explain(&rp, dag)
		if c := rp.Infeasible; c != nil {
			p.Infeasible, p.Steps = true, nil
			for _, b := range c.Branches {
				p.Steps = append(p.Steps, jsStep{b.Line, b.String()})
			}
			p.Steps = append(p.Steps, jsStep{0, "because " + c.Why})
		}
		if rp.Needs != nil {
			// What the path needs, on the lines of its branches.
			p.Steps = []jsStep{}
			for _, c := range rp.Needs {
				text := c.String()
				if c.Implied {
					text += " (follows from the above)"
				}
				p.Steps = append(p.Steps, jsStep{c.Line, text})
			}
		}
	}
	return p, nil
}

// svg draws the function's graph: blocks as boxes labelled with their
// first line, edges with their counts, the edges that carry a register
// increment (chords of the spanning tree) dashed, those that count a path
// marked, and the edges where loops go round drawn up the right side.
func (f *Func) svg() (string, error) {
	n := f.numbering
	pl, err := f.meta.Placement()
	if err != nil {
		return "", err
	}
	counts, err := n.CountsFromPaths(f.counts)
	if err != nil {
		return "", err
	}
	lay := layOut(n)
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg class="cfg" xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f">`,
		lay.Width, lay.Height, lay.Width, lay.Height)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerUnits="userSpaceOnUse" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0 0L8 4L0 8z" fill="context-stroke"/></marker></defs>`)
	for _, e := range lay.Edges {
		class := "edge"
		if e.Back {
			class += " back"
		}
		for _, op := range pl.EdgeOps(e.Edge) {
			switch op.Kind {
			case numbering.OpAdd, numbering.OpSet:
				if op.Inc != 0 {
					class += " chord"
				}
			case numbering.OpCount, numbering.OpCountConst:
				class += " count"
			}
		}
		if counts.Edges[e.Edge] == 0 {
			class += " never"
		}
		fmt.Fprintf(&b, `<g class="%s" data-edge="%d" data-from="%d" data-to="%d"><path d="%s" marker-end="url(#arrow)"/><text x="%.1f" y="%.1f">%s</text><title>edge %d, %s: ran %s times</title></g>`,
			class, e.Edge, lay.Nodes[e.Src].Block, lay.Nodes[e.Dst].Block, e.Path, e.LabelX+4, e.LabelY+4, atLeast(counts.Edges[e.Edge]), e.Edge,
			html.EscapeString(string(f.meta.Edges[e.Edge].Kind)), atLeast(counts.Edges[e.Edge]))
	}
	g := n.Graph()
	for _, nd := range lay.Nodes {
		class, label := "node", fmt.Sprintf("b%d", nd.Block)
		mb := f.meta.Blocks[nd.Block]
		switch {
		case nd.Block == g.Entry:
			class, label = "node entry", "entry"
		case nd.Block == g.Exit:
			class, label = "node exit", "exit"
		case mb.Line > 0:
			label = fmt.Sprintf("line %d", mb.Line)
		}
		if counts.Blocks[nd.Block] == 0 {
			class += " never"
		}
		fmt.Fprintf(&b, `<g class="%s" data-block="%d" data-line="%d"><rect x="%.1f" y="%.1f" width="%.0f" height="%.0f" rx="5"/><text x="%.1f" y="%.1f">%s</text><title>block %d (%s), ran %s times</title></g>`,
			class, nd.Block, mb.Line, nd.X-nodeWidth/2, nd.Y-nodeHeight/2, nodeWidth, nodeHeight, nd.X, nd.Y+4,
			html.EscapeString(label), nd.Block, html.EscapeString(mb.Kind), atLeast(counts.Blocks[nd.Block]))
	}
	b.WriteString("</svg>")
	return b.String(), nil
}

func svgf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
