package main

// The whole-execution-trace part of the harness (-wet; issue 18): for each
// workload, its tests run once from a build with pppexec -wet, the
// recording is made a WET (package wet), and measured: its sizes before
// and after each tier, per statement executed (the paper's Table I), the
// values' share, and how fast its queries walk it: each goroutine's
// control-flow trace forwards and backwards, every value site's values,
// every statement's accesses (the paper's Tables V to VII), in megabytes
// of the first tier's words a second. And slicing over the WET (the
// paper's 6.1): the compact graph built from the WET's file and the
// metadata alone (slice.LoadWET) against the one built from the recording
// (slice.LoadCompact), the same criteria sliced with both and compared.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/query/slice"
	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/profile"
)

// wetWorkload is one workload's WET measured.
type wetWorkload struct {
	Workload string
	wet.Stats
	Goroutines   int
	BuildSeconds float64
	// Query speeds, megabytes of first-tier words a second: the traces
	// forwards and backwards, the values, the accesses.
	TraceWords, ValueWords, AccessWords int64
	TraceFwdMBs, TraceBackMBs           float64
	ValueMBs, AccessMBs                 float64
	// Slicing: OPT built from the recording and from the WET, the mean
	// time of a slice with each, how many criteria were sliced and how
	// many slices differ.
	OPTBuildSeconds, WETLoadSeconds float64
	OPTSliceMs, WETSliceMs          float64
	SliceCriteria, SliceMismatches  int
}

// wetResults is what a -wet run measured; -json writes it.
type wetResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Workloads []*wetWorkload
	// Long is the long run of -long, if asked for.
	Long     *longRun `json:",omitempty"`
	Warnings []string
}

func (h *harness) runWET(selected []workload, set map[string]bool, run string, long int, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r := &wetResults{Date: time.Now().Format("2006-01-02"), Machine: machine(), GoVersion: goVersion()}
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
		if r.Long, err = h.measureLong("wet", long); err != nil {
			fmt.Fprintf(stderr, "bench: the long run: %v\n", err)
			return 1
		}
		return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
	}
	r.Workloads = measureEach(h, selected, &r.Warnings, h.measureWETWorkload)
	if len(r.Workloads) == 0 {
		fmt.Fprintf(stderr, "bench: no workload could be measured\n")
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

func (h *harness) measureWETWorkload(w workload) (*wetWorkload, error) {
	t, err := h.prepare(w)
	if err != nil {
		return nil, err
	}
	h.log("build %s wet", t.name)
	if t.bins["wet"], _, err = h.build(t, "wet", nil); err != nil {
		return nil, err
	}
	dir := filepath.Join(h.work, "wet", strings.ReplaceAll(t.name, "/", "_"))
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	h.log("%s: tests, recording", t.name)
	if out, err := h.command(t.runDir, []string{"PATHCOVERDIR=" + dir, "PATHCOVERWPPMAX=" + wppBenchLimit}, t.bins["wet"], "-test.run=.", "-test.bench=^$", "-test.short", "-test.timeout=10m"); err != nil {
		h.log("%s: tests: %v", t.name, firstLine(string(out)))
	}
	h.log("%s: building the WET", t.name)
	start := time.Now()
	x, err := wet.BuildDir(dir, nil)
	if err != nil {
		return nil, err
	}
	m := &wetWorkload{Workload: t.name, Stats: x.Stats, Goroutines: len(x.Goroutines), BuildSeconds: time.Since(start).Seconds()}
	if m.Statements == 0 {
		return nil, errors.New("the tests executed no statement the WET knows")
	}
	mbs := func(words int64, d time.Duration) float64 { return float64(8*words) / (1 << 20) / d.Seconds() }

	// The traces, forwards then backwards.
	start = time.Now()
	var cursors []*wet.Cursor
	for g := range x.Goroutines {
		c, _ := x.Cursor(g)
		for {
			if _, ok := c.Next(); !ok {
				break
			}
			m.TraceWords++
		}
		cursors = append(cursors, c)
	}
	m.TraceFwdMBs = mbs(m.TraceWords, time.Since(start))
	start = time.Now()
	for _, c := range cursors {
		for {
			if _, ok := c.Prev(); !ok {
				break
			}
		}
	}
	m.TraceBackMBs = mbs(m.TraceWords, time.Since(start))

	start = time.Now()
	for i := range x.Values {
		for _, v := range x.ValuesOf(&x.Values[i]) {
			m.ValueWords += int64(1 + len(v.Words))
		}
	}
	m.ValueMBs = mbs(m.ValueWords, time.Since(start))
	start = time.Now()
	for i := range x.Accesses {
		m.AccessWords += 6 * int64(len(x.AccessesOf(&x.Accesses[i])))
	}
	m.AccessMBs = mbs(m.AccessWords, time.Since(start))

	h.log("%s: slices, from the recording and from the WET", t.name)
	file := profile.DerivedPath(dir, profile.KindWET)
	if err := x.WriteFile(file); err != nil {
		return nil, err
	}
	x = nil
	if err := measureWETSlices(m, dir, file); err != nil {
		return nil, err
	}
	return m, nil
}

// measureWETSlices slices the same criteria (as bench -slice chooses
// them) with OPT built from the recording in dir and from the WET in
// file, timing each build and slice, and counts the slices that differ.
func measureWETSlices(m *wetWorkload, dir, file string) error {
	start := time.Now()
	o, err := slice.LoadCompact(dir)
	if err != nil {
		return err
	}
	m.OPTBuildSeconds = time.Since(start).Seconds()
	criteria := sliceCriteriaOf(o)
	want, ms, err := sliceAll(criteria, o.Slice, optBudget, nil)
	if err != nil {
		return err
	}
	criteria = criteria[:len(want)] // the budget's
	m.SliceCriteria, m.OPTSliceMs = len(criteria), meanMs(ms)
	o = nil
	runtime.GC()

	start = time.Now()
	w, err := wet.ReadFile(file)
	if err != nil {
		return err
	}
	ow, err := slice.LoadWET(dir, w)
	if err != nil {
		return err
	}
	m.WETLoadSeconds = time.Since(start).Seconds()
	got, ms, err := sliceAll(criteria, ow.Slice, 0, nil)
	if err != nil {
		return fmt.Errorf("from the WET: %v", err)
	}
	m.WETSliceMs, m.SliceMismatches = meanMs(ms), differing(got, want)
	return nil
}

// Markdown renders the results as a table, with the WET paper's figures.
func (r *wetResults) Markdown() string {
	var b strings.Builder
	cmd := "go run ./bench -wet"
	for _, f := range r.Selection {
		cmd += " " + f
	}
	if r.Long != nil {
		fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s.\n", cmd, r.Date, r.Machine, r.GoVersion)
		r.Long.markdown(&b)
		return b.String()
	}
	fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s: each workload's tests (`-test.short`) run once from a `pppexec -pkgs=PKG -wet` build, made a WET (`wet.BuildDir`).\n\n", cmd, r.Date, r.Machine, r.GoVersion)
	b.WriteString("| workload | statements run | values | accesses | recording, B/stmt | tier 1, B/stmt | tier 2, B/stmt | tier 1 / tier 2 | values' share | value groups | build |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var factors, shares, perStmt []float64
	for _, w := range r.Workloads {
		s := float64(w.Statements)
		f := float64(8*w.Tier1Words) / float64(w.Tier2Bytes)
		share := float64(w.ValueBytes) / float64(w.Tier2Bytes)
		factors, shares, perStmt = append(factors, f), append(shares, share), append(perStmt, float64(w.Tier2Bytes)/s)
		groups := "–" // a run from before value groups, or without values
		if w.GroupedValueBytes > 0 {
			groups = fmt.Sprintf("%.2f×", float64(w.SiteValueBytes)/float64(w.GroupedValueBytes))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f | %.2f | %.2f | %.1f× | %.0f%% | %s | %.1f s |\n", w.Workload, count(uint64(w.Statements)), count(uint64(w.ValueRecords)), count(uint64(w.Accesses)),
			float64(w.RecordBytes)/s, float64(8*w.Tier1Words)/s, float64(w.Tier2Bytes)/s, f, 100*share, groups, w.BuildSeconds)
	}
	fmt.Fprintf(&b, "\nThe recording is its records' bytes (the .wpp files' payloads); tier 1 the labels' words, 8 bytes each (timestamps, trace symbols, values, access fields); tier 2 their bidi streams' encodings. Median over workloads: %.2f bytes a statement after tier 2 (the paper: about 0.51), tier 1 / tier 2 %.1f× (mean %.1f×; the paper's average compression, the mean of its runs', 41.3×; its tier 2 alone: 6 to 11× on values, 47 to 1172× on timestamps), values %.0f%% of tier 2 (the paper: about two thirds). Value groups: the value sites' second-tier streams each on its own, over the same with the sites of a group sharing their timestamps and, where it pays, one pattern of their distinct tuples (the paper's 3.2).\n\n",
		median(perStmt), median(factors), mean(factors), 100*median(shares))
	b.WriteString("| workload | trace forwards | backwards | values | accesses |\n|---|---:|---:|---:|---:|\n")
	for _, w := range r.Workloads {
		fmt.Fprintf(&b, "| %s | %.1f MB/s | %.1f MB/s | %.1f MB/s | %.1f MB/s |\n", w.Workload, w.TraceFwdMBs, w.TraceBackMBs, w.ValueMBs, w.AccessMBs)
	}
	b.WriteString("\nQuery speeds in megabytes of first-tier words a second, decompressing as they walk: every goroutine's trace forwards then backwards, every value site's values, every statement's accesses (the paper, tier 2: 126 MB/s for traces, 1.6 MB/s for values, 1.3 MB/s for addresses).\n")
	if slices.ContainsFunc(r.Workloads, func(w *wetWorkload) bool { return w.SliceCriteria > 0 }) {
		b.WriteString("\n| workload | OPT from the recording: build | mean slice | OPT from the WET: load | mean slice | slices, differing |\n|---|---:|---:|---:|---:|---:|\n")
		for _, w := range r.Workloads {
			if w.SliceCriteria == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %.2f s | %s | %.2f s | %s | %d, %d |\n", w.Workload, w.OPTBuildSeconds, millis(w.OPTSliceMs), w.WETLoadSeconds, millis(w.WETSliceMs), w.SliceCriteria, w.SliceMismatches)
		}
		b.WriteString("\nSlices over the WET (the paper's 6.1): the compact graph (OPT) built from the WET's file and the metadata alone (`slice.LoadWET`: the traces give each call's paths, the accesses' labels the dependences through memory), against the one built from the recording (`slice.LoadCompact`); the same statements that ran, chosen at random as `-slice` chooses them, sliced from their last execution with both.\n")
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "\nNot measured: %s\n", w)
	}
	return b.String()
}

// renderWET writes the outputs of a -wet run saved by -json.
func renderWET(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r, ok := readResults[wetResults](file, "-wet", stderr)
	if !ok {
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}
