package main

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/query/slice"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/profile"
)

// The -slice run measures dynamic slicing (issue 17) on each workload's
// tests: a -deps -tests build records them (so that a cut recording says
// which tests it holds), and the recording is sliced with
// each of ddg's three graphs: the compact graph (OPT, slice.LoadCompact),
// the full one (FP, slice.Load, unless the run passes its limit) and the
// demand-driven slicer (LP, slice.OpenDemand). The same 25 criteria,
// statements that ran chosen at random with a fixed seed, are sliced from
// their last execution with each; FP's slices must equal OPT's and LP's.

// sliceCriteria is how many criteria are sliced per workload.
const sliceCriteria = 25

// lpBudget is the time LP's slices of one workload may take: it slices
// criteria in order until the budget is spent (at least one), and gives up
// a slice that passes it. optBudget is OPT's: once it is spent, the
// criteria left are not sliced (a slice of a whole test suite can hold
// tens of millions of executions).
const (
	lpBudget  = 3 * time.Minute
	optBudget = 10 * time.Minute
)

// sliceWorkload is one workload's slicing measured.
type sliceWorkload struct {
	Workload    string
	RecordBytes int64 // the .wpp files, memory accesses included
	// Cut says why the recording covers only part of the tests' run, if
	// it does, and the Tests fields which tests it holds whole, in part
	// and not at all (wpp.CutTests).
	Cut                                    []string
	TestsWhole, TestsPartial, TestsMissing int
	Nodes                                  int // statement executions
	Calls                                  int
	Dependences                            int64 // data, memory, control and call edges
	// Labelled are the dependences OPT keeps: those through memory, the
	// only ones that the paths and the call tree do not determine.
	Labelled     int64
	ExecutedStmt int     // distinct statements executed (the paper's USE)
	Criteria     int     // sliced by OPT, within optBudget
	SliceStmts   float64 // mean statements in a slice
	SliceNodes   float64 // mean executions in a slice

	// OPT: its size (heap growth over the build, after a collection, and
	// as it counts itself), build time, mean slice time.
	OPTBytes        uint64
	OPTCounted      int64
	OPTBuildSeconds float64
	OPTSliceMs      float64
	// OPTMedianMs and LPMedianMs are the median slice times (issue 45's
	// target: 10 s on a whole suite).
	OPTMedianMs float64
	// Relevant are OPT's relevant slices (Criterion.Potential, pathcover
	// slice's default) of the same criteria, interleaved with none: their
	// count within optBudget, mean statements and executions, mean and
	// median times.
	RelevantCriteria             int
	RelevantStmts, RelevantNodes float64
	RelevantSliceMs              float64
	RelevantMedianMs             float64

	// FP: refused (past slice.DefaultMaxNodes), or its size, replay time
	// and mean slice time; Mismatches are the criteria whose slices
	// differ from OPT's.
	FPTooLarge     bool
	FPBytes        uint64
	FPCounted      int64
	FPLoadSeconds  float64
	FPSliceMs      float64
	FPMismatches   int
	LPOpenSeconds  float64
	LPBytes        int64 // what it keeps between slices, counted
	LPCriteria     int   // the criteria sliced within lpBudget
	LPGaveUp       bool  // even the first passed it
	LPSliceMs      float64
	LPMedianMs     float64
	LPMismatches   int
	SlicesCompared int // by FP and LP against OPT
}

type sliceResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Workloads []*sliceWorkload
	// Long is the long run of -long, if asked for.
	Long     *longRun `json:",omitempty"`
	Warnings []string
}

// heapGrowth runs build and returns what it left on the heap, after a
// collection before and after.
func heapGrowth(build func() error) (uint64, time.Duration, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := build()
	took := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc), took, err
}

func (h *harness) measureSliceWorkload(w workload) (*sliceWorkload, error) {
	t, err := h.prepare(w)
	if err != nil {
		return nil, err
	}
	h.log("build %s deps", t.name)
	bin, _, err := h.build(t, "depstests", nil)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(h.work, "slice", strings.ReplaceAll(t.name, "/", "_"))
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	h.log("%s: tests, recording", t.name)
	if out, err := h.command(t.runDir, []string{"PATHCOVERDIR=" + dir}, bin, "-test.run=.", "-test.bench=^$", "-test.short", "-test.timeout=10m"); err != nil {
		h.log("%s: tests: %v", t.name, firstLine(string(out)))
	}
	m := &sliceWorkload{Workload: t.name}
	held, err := wpp.CutTests(dir)
	if err != nil {
		return nil, err
	}
	for _, th := range held {
		m.Cut = append(m.Cut, th.Cut...)
		m.TestsWhole += len(th.Whole)
		m.TestsPartial += len(th.Partial)
		m.TestsMissing += len(th.Missing)
	}
	names, err := profile.Need(dir, profile.KindWPP, "the tests recorded nothing")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		size, err := fileSize(n)
		if err != nil {
			return nil, err
		}
		m.RecordBytes += size
	}
	if err := measureSlices(m, dir, h.log); err != nil {
		return nil, err
	}
	return m, nil
}

// measureSlices measures the three graphs of the recording in dir.
func measureSlices(m *sliceWorkload, dir string, log func(string, ...any)) error {
	log("%s: OPT", m.Workload)
	var o *slice.Compact
	bytes, took, err := heapGrowth(func() (err error) {
		o, err = slice.LoadCompact(dir)
		return err
	})
	if err != nil {
		return err
	}
	m.OPTBytes, m.OPTBuildSeconds, m.OPTCounted = bytes, took.Seconds(), o.Bytes()
	m.Nodes, m.Calls = o.Nodes(), o.Calls()
	m.Dependences, m.Labelled = o.Count()
	m.ExecutedStmt = len(o.Executed())
	criteria := sliceCriteriaOf(o)
	wantSlices, times, err := sliceAll(criteria, o.Slice, optBudget, func(s *slice.Slice) {
		m.SliceStmts += float64(len(s.Stmts))
		m.SliceNodes += float64(s.NumSteps())
	})
	if err != nil {
		return err
	}
	criteria = criteria[:len(wantSlices)] // the budget's
	m.Criteria = len(criteria)
	m.OPTSliceMs, m.OPTMedianMs = meanMs(times), medianMs(times)
	if m.Criteria > 0 {
		m.SliceStmts /= float64(m.Criteria)
		m.SliceNodes /= float64(m.Criteria)
	}
	log("%s: OPT, relevant slices", m.Workload)
	relevant := make([]slice.Criterion, len(criteria))
	for i, c := range criteria {
		c.Potential = true
		relevant[i] = c
	}
	relSlices, relTimes, err := sliceAll(relevant, o.Slice, optBudget, func(s *slice.Slice) {
		m.RelevantStmts += float64(len(s.Stmts))
		m.RelevantNodes += float64(s.NumSteps())
	})
	if err != nil {
		return err
	}
	if m.RelevantCriteria = len(relSlices); m.RelevantCriteria > 0 {
		m.RelevantStmts /= float64(m.RelevantCriteria)
		m.RelevantNodes /= float64(m.RelevantCriteria)
	}
	m.RelevantSliceMs, m.RelevantMedianMs = meanMs(relTimes), medianMs(relTimes)
	o = nil

	log("%s: FP", m.Workload)
	var g *slice.Graph
	bytes, took, err = heapGrowth(func() (err error) {
		g, err = slice.Load(dir, 0)
		return err
	})
	switch {
	case errors.Is(err, slice.ErrTooLarge):
		m.FPTooLarge = true
	case err != nil:
		return err
	default:
		m.FPBytes, m.FPLoadSeconds, m.FPCounted = bytes, took.Seconds(), g.Bytes()
		got, times, err := sliceAll(criteria, g.Slice, 0, nil)
		if err != nil {
			return fmt.Errorf("FP: %v", err)
		}
		m.FPSliceMs, m.FPMismatches, m.SlicesCompared = meanMs(times), differing(got, wantSlices), len(criteria)
	}
	g = nil
	runtime.GC()

	log("%s: LP", m.Workload)
	start := time.Now()
	lp, err := slice.OpenDemand(dir)
	if err != nil {
		return err
	}
	defer lp.Close()
	m.LPOpenSeconds, m.LPBytes = time.Since(start).Seconds(), lp.Bytes()
	var lpTimes []time.Duration
	lp.Deadline = time.Now().Add(lpBudget)
	for i, c := range criteria {
		start := time.Now()
		s, err := lp.Slice(c)
		if errors.Is(err, slice.ErrDeadline) {
			if i == 0 {
				m.LPGaveUp = true
			}
			break
		}
		lpTimes = append(lpTimes, time.Since(start))
		if err != nil {
			return fmt.Errorf("LP: slice of %s:%d: %v", c.File, c.Line, err)
		}
		// The slice's steps are walked again to be compared: not under
		// the deadline, which is the slices'.
		deadline := lp.Deadline
		lp.Deadline = time.Time{}
		if fingerprint(s) != wantSlices[i] {
			m.LPMismatches++
		}
		lp.Deadline = deadline
		m.LPCriteria++
	}
	m.LPSliceMs, m.LPMedianMs = meanMs(lpTimes), medianMs(lpTimes)
	return nil
}

// meanMs and medianMs are the mean and the median of times, in
// milliseconds (0 if there are none).
func meanMs(times []time.Duration) float64 {
	var total time.Duration
	for _, t := range times {
		total += t
	}
	return float64(total.Microseconds()) / 1e3 / float64(max(1, len(times)))
}

func medianMs(times []time.Duration) float64 {
	if len(times) == 0 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(times))
	mid := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		mid = (sorted[len(sorted)/2-1] + mid) / 2
	}
	return float64(mid.Microseconds()) / 1e3
}

// sliceAll slices criteria with slice, in order, until budget is spent
// (0: no budget), and returns the fingerprints of the slices made and
// the time each took; each, if not nil, is given each slice.
func sliceAll(criteria []slice.Criterion, slice func(slice.Criterion) (*slice.Slice, error), budget time.Duration, each func(*slice.Slice)) ([]string, []time.Duration, error) {
	var prints []string
	var times []time.Duration
	var total time.Duration
	for _, c := range criteria {
		if budget > 0 && total > budget {
			break
		}
		start := time.Now()
		s, err := slice(c)
		times = append(times, time.Since(start))
		total += times[len(times)-1]
		if err != nil {
			return nil, nil, fmt.Errorf("slice of %s:%d: %v", c.File, c.Line, err)
		}
		prints = append(prints, fingerprint(s))
		if each != nil {
			each(s)
		}
	}
	return prints, times, nil
}

// differing counts the fingerprints of got that differ from want's.
func differing(got, want []string) int {
	n := 0
	for i := range got {
		if got[i] != want[i] {
			n++
		}
	}
	return n
}

// sliceCriteriaOf chooses the criteria to slice: sliceCriteria
// statements that ran, at random with a fixed seed.
func sliceCriteriaOf(o *slice.Compact) []slice.Criterion {
	stmts := o.Executed()
	r := rand.New(rand.NewPCG(17, 17))
	var criteria []slice.Criterion
	for range min(sliceCriteria, len(stmts)) {
		st := stmts[r.IntN(len(stmts))]
		criteria = append(criteria, slice.Criterion{File: st.File, Line: st.Line, Col: st.Col})
	}
	return criteria
}

// stepsCompared is the size of the largest slices whose steps are
// compared: larger ones are compared by their statements, each with its
// executions, and memory (walking a whole suite's slice breadth first
// again, for its steps, takes minutes).
const stepsCompared = 1 << 20

// fingerprint returns a hash of a slice: its criterion, its steps (each
// node, statement and why) if it has at most stepsCompared, statements
// with their executions and memory not recorded. It is written step by
// step, so that a slice of millions of steps takes no more memory.
func fingerprint(s *slice.Slice) string {
	h := sha256.New()
	w := bufio.NewWriter(h)
	fmt.Fprintf(w, "%d %d %d\n", s.Criterion, s.Instances, s.NumSteps())
	if s.NumSteps() <= stepsCompared {
		err := s.Walk(func(_ int, st slice.Step) error {
			_, err := fmt.Fprintf(w, "%d %+v %d %d %s\n", st.Node, st.Stmt, st.Depth, st.From, st.Via)
			return err
		})
		if err != nil {
			fmt.Fprintf(w, "error: %v\n", err)
		}
	}
	for i, st := range s.Stmts {
		fmt.Fprintf(w, "%+v %d\n", st, s.Execs[i])
	}
	for _, m := range s.Memory {
		fmt.Fprintf(w, "%s\n", m)
	}
	w.Flush()
	return fmt.Sprintf("%x", h.Sum(nil))
}

// Markdown renders the results as a table.
func (r *sliceResults) Markdown() string {
	var b strings.Builder
	cmd := "go run ./bench -slice"
	for _, f := range r.Selection {
		cmd += " " + f
	}
	if r.Long != nil {
		fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s.\n", cmd, r.Date, r.Machine, r.GoVersion)
		r.Long.markdown(&b)
		return b.String()
	}
	fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s: each workload's tests (`-test.short`) run once from a `pppexec -pkgs=PKG -deps -tests` build, the recording held by the compact graph (OPT), the full graph (FP, which refuses more than %s statement executions) and the demand-driven slicer (LP), and the same %d statements that ran, chosen at random, sliced from their last execution with each (OPT within %.0f minutes, LP within %.0f, the criteria after left out).\n\n", cmd, r.Date, r.Machine, r.GoVersion, count(uint64(slice.DefaultMaxNodes)), sliceCriteria, optBudget.Minutes(), lpBudget.Minutes())
	b.WriteString("| workload | recording | statement executions | calls | dependences | inferred, not labelled | FP | OPT | OPT/FP | OPT build | mean slice: statements, executions | slice time OPT: mean, median | FP | LP: mean, median | relevant (OPT): statements, executions, median |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, w := range r.Workloads {
		inferred := 0.0
		if w.Dependences > 0 {
			inferred = 100 * float64(w.Dependences-w.Labelled) / float64(w.Dependences)
		}
		fp, ratio, fpTime := fmt.Sprintf("%s (heap %s)", byteSize(w.FPCounted), byteSize(int64(w.FPBytes))), "", millis(w.FPSliceMs)
		if w.FPTooLarge {
			fp, ratio, fpTime = "refused", "", "–"
		} else if w.FPCounted > 0 {
			ratio = fmt.Sprintf("%.1f%% (%.0f×)", 100*float64(w.OPTCounted)/float64(w.FPCounted), float64(w.FPCounted)/float64(max(1, w.OPTCounted)))
		}
		opt := fmt.Sprintf("%s (heap %s)", byteSize(w.OPTCounted), byteSize(int64(w.OPTBytes)))
		optTime := millis(w.OPTSliceMs) + ", " + millis(w.OPTMedianMs)
		if w.Criteria < sliceCriteria {
			optTime += fmt.Sprintf(" (%d of %d)", w.Criteria, sliceCriteria)
		}
		lp := millis(w.LPSliceMs) + ", " + millis(w.LPMedianMs)
		switch {
		case w.LPGaveUp:
			lp = fmt.Sprintf("> %.0f s (none of %d)", lpBudget.Seconds(), w.Criteria)
		case w.LPCriteria < w.Criteria:
			lp += fmt.Sprintf(" (%d of %d)", w.LPCriteria, w.Criteria)
		}
		relevant := fmt.Sprintf("%.0f, %.0f, %s", w.RelevantStmts, w.RelevantNodes, millis(w.RelevantMedianMs))
		if w.RelevantCriteria < w.Criteria {
			relevant += fmt.Sprintf(" (%d of %d)", w.RelevantCriteria, w.Criteria)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.2f%% | %s | %s | %s | %.1f s | %.0f, %.0f | %s | %s | %s | %s |\n", w.Workload, byteSize(w.RecordBytes), count(uint64(w.Nodes)), count(uint64(w.Calls)),
			count(uint64(w.Dependences)), inferred, fp, opt, ratio, w.OPTBuildSeconds, w.SliceStmts, w.SliceNodes, optTime, fpTime, lp, relevant)
	}
	b.WriteString("\nThe last column slices the same criteria again with OPT as relevant slices (potential dependences followed: pathcover slice's default; `-potential=false` gives the dynamic slices of the other columns).\n")
	b.WriteString("\nFP and OPT are what each graph holds, counted (FP: its nodes with their lists of dependences; OPT: its calls, their paths and its labels), and in parentheses the heap each build leaves (after a collection), which adds the metadata both read and, for OPT, the caches of decoded paths. LP keeps ")
	for i, w := range r.Workloads {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s", byteSize(w.LPBytes))
	}
	b.WriteString(" between slices, and prepares in ")
	for i, w := range r.Workloads {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%.1f s", w.LPOpenSeconds)
	}
	b.WriteString(". ")
	mism := 0
	compared := 0
	for _, w := range r.Workloads {
		mism += w.FPMismatches + w.LPMismatches
		compared += w.SlicesCompared + w.LPCriteria
	}
	fmt.Fprintf(&b, "Of the %d slices by FP and LP, %d differ from OPT's.\n", compared, mism)
	for _, w := range r.Workloads {
		if len(w.Cut) > 0 {
			fmt.Fprintf(&b, "\n%s's recording is cut (%s): it holds %d tests whole, %d in part, %d not at all.\n", w.Workload, strings.Join(w.Cut, "; "), w.TestsWhole, w.TestsPartial, w.TestsMissing)
		}
	}
	return b.String()
}

// runSlice is the -slice run.
func (h *harness) runSlice(selected []workload, set map[string]bool, run string, long int, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	// A slice of a whole test suite can hold tens of millions of steps:
	// the collector keeps the heap near what is live.
	debug.SetMemoryLimit(6 << 30)
	r := &sliceResults{Date: time.Now().Format("2006-01-02"), Machine: machine(), GoVersion: goVersion()}
	if set["quick"] {
		r.Selection = append(r.Selection, "-quick")
	}
	if set["run"] {
		r.Selection = append(r.Selection, "-run="+strconv.Quote(run))
	}
	h.log("work directory %s", h.work)
	if err := h.buildPPPExec(); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	if long > 0 {
		r.Selection = []string{fmt.Sprintf("-long %d", long)}
		var err error
		if r.Long, err = h.measureLong("deps", long); err != nil {
			fmt.Fprintf(stderr, "bench: the long run: %v\n", err)
			return 1
		}
		return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
	}
	r.Workloads = measureEach(h, selected, &r.Warnings, h.measureSliceWorkload)
	if len(r.Workloads) == 0 {
		fmt.Fprintln(stderr, "bench: no workload could be measured")
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

// renderSlice writes the outputs of a -slice run saved by -json.
func renderSlice(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r, ok := readResults[sliceResults](file, "-slice", stderr)
	if !ok {
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}
