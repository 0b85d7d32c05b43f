package main

import (
	"errors"
	"fmt"
	"go/ast"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/internal/pkgpattern"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/internal/static/infeasible"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// The -infeasible run measures what pppexec proves infeasible (issue 20)
// on each workload's tests: a Ball-Larus build runs them, and the report
// of their profile says how many paths, and how many of those that never
// ran, were proved infeasible, and how many functions' coverage that
// changes. It is also a soundness check at the scale of real code: a path
// that ran through a contradiction fails the run. The analysis is timed on
// its own, outside the build: the package loaded, its SSA form built and
// every function analysed, against the graphs built and numbered.

// infeasibleWorkload is one workload's proofs measured.
type infeasibleWorkload struct {
	Workload string
	Funcs    int // functions in the report
	Analyzed int // of them, analysed by the build
	// Changed counts the functions with a path proved infeasible, whose
	// coverage the report gives over fewer paths than before.
	Changed int
	// Bound counts the functions whose count of infeasible paths is a
	// bound (too many contradictions to count exactly).
	Bound      int
	Paths      uint64 // acyclic paths numbered, summed (saturating)
	Saturated  bool   // Paths stopped at the largest uint64
	Ran        uint64
	Infeasible uint64 // proved infeasible, summed
	// Small* are the same over the functions with at most smallPaths
	// paths, where the shares are not one huge function's.
	SmallPaths, SmallRan, SmallInfeasible uint64
	// Coverage of all paths and of the feasible ones, in percent.
	CoverAll, CoverFeasible float64
	// Unsound are the paths that ran through a contradiction: a bug.
	Unsound []string `json:",omitempty"`
	// Times of the analysis alone: the graphs built and numbered, and the
	// SSA form built and every function analysed.
	NumberSeconds, AnalysisSeconds float64
}

// smallPaths bounds the functions of the Small* sums.
const smallPaths = 1 << 16

type infeasibleResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Workloads []*infeasibleWorkload
	Warnings  []string
}

func (r *infeasibleResults) measured() bool { return measured(r.Workloads) }

// runInfeasible is the -infeasible run.
func (h *harness) runInfeasible(selected []workload, set map[string]bool, run string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r := &infeasibleResults{Date: time.Now().Format("2006-01-02"), Machine: machine(), GoVersion: goVersion()}
	if set["run"] {
		r.Selection = append(r.Selection, "-run="+strconv.Quote(run))
	}
	h.log("work directory %s", h.work)
	if err := h.buildPPPExec(); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	r.Workloads = measureEach(h, selected, &r.Warnings, h.measureInfeasibleWorkload)
	unsound := 0
	for _, m := range r.Workloads {
		unsound += len(m.Unsound)
	}
	if len(r.Workloads) == 0 {
		fmt.Fprintln(stderr, "bench: no workload could be measured")
		return 1
	}
	if code := writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section); code != 0 {
		return code
	}
	if unsound > 0 {
		fmt.Fprintf(stderr, "bench: %d paths proved infeasible ran: the proofs are wrong (see the table)\n", unsound)
		return 1
	}
	return 0
}

// renderInfeasible writes the outputs of a -infeasible run saved by -json.
func renderInfeasible(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r, ok := readResults[infeasibleResults](file, "-infeasible", stderr)
	if !ok {
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

func (h *harness) measureInfeasibleWorkload(w workload) (*infeasibleWorkload, error) {
	t, err := h.prepare(w)
	if err != nil {
		return nil, err
	}
	h.log("build %s bl", t.name)
	if t.bins["bl"], _, err = h.build(t, "bl", nil); err != nil {
		return nil, err
	}
	h.log("%s: tests", t.name)
	dir, err := h.profileTests(t, "bl", "infeasible")
	if err != nil {
		return nil, err
	}
	p, problems, err := profile.Load(dir)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	rep, errs := report.Build(p, &report.Options{Packages: pkgpattern.ImportPaths(t.Pkg)})
	m := &infeasibleWorkload{Workload: t.name}
	for _, err := range errs {
		var pe *report.ProofError
		if errors.As(err, &pe) {
			m.Unsound = append(m.Unsound, pe.Error())
		}
	}
	if len(rep.Packages) == 0 {
		return nil, fmt.Errorf("the profile has no package %s", t.Pkg)
	}
	for _, pkg := range rep.Packages {
		for _, f := range pkg.Funcs {
			m.add(f)
		}
	}
	m.CoverAll, m.CoverFeasible = rep.Paths.Percent(), rep.Feasible.Percent()
	h.log("%s: analysis alone", t.name)
	m.NumberSeconds, m.AnalysisSeconds, err = timeAnalysis(t)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// add counts one function of the report.
func (m *infeasibleWorkload) add(f *report.Func) {
	m.Funcs++
	in := f.Infeasible
	if in.Analyzed {
		m.Analyzed++
	}
	if in.Paths > 0 {
		m.Changed++
	}
	if in.Bound {
		m.Bound++
	}
	m.Paths = numbering.SatAdd(m.Paths, f.Paths.Total)
	m.Saturated = m.Saturated || m.Paths == math.MaxUint64
	m.Ran += f.Paths.Covered
	m.Infeasible = numbering.SatAdd(m.Infeasible, in.Paths)
	if f.Paths.Total <= smallPaths {
		m.SmallPaths += f.Paths.Total
		m.SmallRan += f.Paths.Covered
		m.SmallInfeasible += in.Paths
	}
}

// timeAnalysis loads the workload's package as pppexec sees it (with its
// tests' files, its imports from their export data) and times, apart,
// building and numbering every function's graph, and building the SSA form
// and analysing every function.
func timeAnalysis(t *target) (number, analysis float64, err error) {
	mode := packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
		packages.NeedTypes | packages.NeedTypesSizes | packages.NeedSyntax | packages.NeedTypesInfo
	cfg := &packages.Config{Mode: mode, Dir: t.buildDir, Tests: true}
	pkgs, err := packages.Load(cfg, t.pkgArg)
	if err != nil {
		return 0, 0, err
	}
	var p *packages.Package
	for _, q := range pkgs {
		// The package with its in-package tests: "pkg [pkg.test]", or the
		// package alone if it has none.
		if q.Name != "main" && !strings.HasSuffix(q.PkgPath, "_test") && (p == nil || strings.Contains(q.ID, "[")) {
			p = q
		}
	}
	if p == nil || len(p.Errors) > 0 {
		return 0, 0, fmt.Errorf("loading %s: %v", t.Pkg, p)
	}
	start := time.Now()
	graphs, err := funcgraph.BuildFiles(p.Syntax, &funcgraph.Config{Info: p.TypesInfo})
	if err != nil {
		return 0, 0, err
	}
	numbered := make(map[ast.Node]*funcgraph.Numbered, len(graphs))
	for _, g := range graphs {
		numbered[g.Node] = funcgraph.Number(g)
	}
	number = time.Since(start).Seconds()
	start = time.Now()
	fns := infeasible.BuildPackage(p.Fset, p.Types, p.Syntax, p.TypesInfo, nil)
	for node, n := range numbered {
		infeasible.Analyze(n, fns[node], p.TypesInfo)
	}
	return number, time.Since(start).Seconds(), nil
}

// Markdown renders the results as a table.
func (r *infeasibleResults) Markdown() string {
	var b strings.Builder
	cmd := "go run ./bench -infeasible"
	for _, f := range r.Selection {
		cmd += " " + f
	}
	fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s: each workload's tests (`-test.short`) run once from a `pppexec -pkgs=PKG` build, and the report of their profile; the analysis then timed alone, on the package with its tests' files (`go/packages`), against building and numbering its graphs.\n\n", cmd, r.Date, r.Machine, r.GoVersion)
	b.WriteString("| workload | functions (analysed) | coverage changes | paths | proved infeasible | of the untested | functions ≤ 2^16 paths: proved infeasible, of the untested | path coverage: all, feasible | graphs numbered | SSA + proofs | ran but proved infeasible |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, w := range r.Workloads {
		paths := count(w.Paths)
		if w.Saturated {
			paths = "≥" + paths
		}
		bound := ""
		if w.Bound > 0 {
			bound = fmt.Sprintf(" (%d counted as a bound)", w.Bound)
		}
		fmt.Fprintf(&b, "| %s | %d (%d) | %d%s | %s | %s (%s) | %s | %s, %s | %.1f%%, %.1f%% | %s | %s | %d |\n",
			w.Workload, w.Funcs, w.Analyzed, w.Changed, bound, paths,
			count(w.Infeasible), share(w.Infeasible, w.Paths), share(w.Infeasible, w.Paths-min(w.Paths, w.Ran)),
			share(w.SmallInfeasible, w.SmallPaths), share(w.SmallInfeasible, w.SmallPaths-w.SmallRan),
			w.CoverAll, w.CoverFeasible, millis(1e3*w.NumberSeconds), millis(1e3*w.AnalysisSeconds), len(w.Unsound))
	}
	b.WriteString("\nPaths and shares are over every function of the package; a few functions with billions of paths (a long run of ifs) make most of them, so the same shares are given over the functions with at most 2^16 paths. A function's coverage changes when a path of it is proved infeasible: its report then gives the coverage of the feasible paths. The last column must be 0: a path that ran cannot be infeasible.\n")
	for _, w := range r.Workloads {
		for _, u := range w.Unsound {
			fmt.Fprintf(&b, "\n- %s: %s", w.Workload, u)
		}
	}
	return b.String()
}

// share is a of b in percent, "–" for nothing.
func share(a, b uint64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}
