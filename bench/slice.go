package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathcover/pathcover/ddg"
)

// The -slice run measures dynamic slicing (issue 17) on each workload's
// tests: a -deps build records them, ddg.Load replays the recording into
// the full dependence graph (FP), and 25 criteria, statements that ran
// chosen at random with a fixed seed, are sliced. The compact graph (OPT)
// and the demand-driven slicer (LP) are not built yet; a run too large for
// the full graph is reported as such.

// sliceCriteria is how many criteria are sliced per workload.
const sliceCriteria = 25

// sliceWorkload is one workload's slicing measured.
type sliceWorkload struct {
	Workload string
	// TooLarge says the run passed ddg.DefaultMaxNodes statement
	// executions, and nothing else was measured.
	TooLarge    bool
	RecordBytes int64 // the .wpp files, memory accesses included
	Nodes       int   // statement executions
	Dependences int   // data, memory, control and call edges
	// MemoryDeps are the dependences through memory: the only ones that
	// the paths and the call tree do not determine, which a compact graph
	// would have to label one by one.
	MemoryDeps   int
	GraphBytes   uint64
	LoadSeconds  float64
	Criteria     int
	SliceMs      float64 // mean time of one slice
	SliceStmts   float64 // mean statements in a slice
	SliceNodes   float64 // mean executions in a slice
	ExecutedStmt int     // distinct statements executed (the paper's USE)
}

type sliceResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Workloads []*sliceWorkload
	Warnings  []string
}

func (h *harness) measureSliceWorkload(w workload) (*sliceWorkload, error) {
	t, err := h.prepare(w)
	if err != nil {
		return nil, err
	}
	h.log("build %s deps", t.name)
	bin, _, err := h.build(t, "deps", nil)
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
	names, _ := filepath.Glob(filepath.Join(dir, "*.wpp"))
	if len(names) == 0 {
		return nil, errors.New("the tests recorded nothing")
	}
	for _, n := range names {
		size, err := fileSize(n)
		if err != nil {
			return nil, err
		}
		m.RecordBytes += size
	}
	h.log("%s: loading", t.name)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	g, err := ddg.Load(dir, 0)
	if errors.Is(err, ddg.ErrTooLarge) {
		m.TooLarge = true
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	m.LoadSeconds = time.Since(start).Seconds()
	runtime.GC()
	runtime.ReadMemStats(&after)
	m.GraphBytes = after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
	m.Nodes = len(g.Nodes)
	executed := make(map[ddg.Stmt]bool)
	for i := range g.Nodes {
		n := &g.Nodes[i]
		m.Dependences += len(n.Data) + len(n.Memory)
		m.MemoryDeps += len(n.Memory)
		if n.Control >= 0 {
			m.Dependences++
		}
		if n.Call >= 0 {
			m.Dependences++
		}
		if n.Stmt > 0 {
			executed[g.Stmt(int32(i))] = true
		}
	}
	m.ExecutedStmt = len(executed)
	stmts := slices.Collect(func(yield func(ddg.Stmt) bool) {
		for s := range executed {
			if !yield(s) {
				return
			}
		}
	})
	slices.SortFunc(stmts, func(a, b ddg.Stmt) int {
		return strings.Compare(fmt.Sprintf("%s:%08d:%04d", a.File, a.Line, a.Col), fmt.Sprintf("%s:%08d:%04d", b.File, b.Line, b.Col))
	})
	r := rand.New(rand.NewPCG(17, 17))
	var total time.Duration
	for range min(sliceCriteria, len(stmts)) {
		st := stmts[r.IntN(len(stmts))]
		start := time.Now()
		s, err := g.Slice(ddg.Criterion{File: st.File, Line: st.Line, Col: st.Col})
		total += time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("slice of %s:%d: %v", st.File, st.Line, err)
		}
		m.Criteria++
		m.SliceStmts += float64(len(s.Stmts))
		m.SliceNodes += float64(len(s.Steps))
	}
	if m.Criteria > 0 {
		m.SliceMs = float64(total.Microseconds()) / 1e3 / float64(m.Criteria)
		m.SliceStmts /= float64(m.Criteria)
		m.SliceNodes /= float64(m.Criteria)
	}
	return m, nil
}

// Markdown renders the results as a table.
func (r *sliceResults) Markdown() string {
	var b strings.Builder
	cmd := "go run ./bench -slice"
	for _, f := range r.Selection {
		cmd += " " + f
	}
	fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s: each workload's tests (`-test.short`) run once from a `pppexec -pkgs=PKG -deps` build, replayed into the full dependence graph (FP), and %d statements that ran, chosen at random, sliced from their last execution.\n\n", cmd, r.Date, r.Machine, r.GoVersion, sliceCriteria)
	b.WriteString("| workload | recording | statement executions | dependences | through memory | graph in memory | replay | statements run | mean slice: statements, executions | mean slice time |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, w := range r.Workloads {
		if w.TooLarge {
			fmt.Fprintf(&b, "| %s | %s | more than %s | | | | | | (too large for FP) | |\n", w.Workload, byteSize(w.RecordBytes), count(uint64(ddg.DefaultMaxNodes)))
			continue
		}
		mem := 0.0
		if w.Dependences > 0 {
			mem = 100 * float64(w.MemoryDeps) / float64(w.Dependences)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.1f%% | %s | %.1f s | %d | %.0f, %.0f | %s |\n", w.Workload, byteSize(w.RecordBytes), count(uint64(w.Nodes)), count(uint64(w.Dependences)), mem,
			byteSize(int64(w.GraphBytes)), w.LoadSeconds, w.ExecutedStmt, w.SliceStmts, w.SliceNodes, millis(w.SliceMs))
	}
	b.WriteString("\nDependences through memory are the only ones that the paths and the call tree do not determine (locals, parameters, results and control follow from them). The compact graph (OPT) and the demand-driven slicer (LP) are not built yet, so the paper's comparisons (OPT at 6% of FP; OPT against LP slice times) have no figures here.\n")
	return b.String()
}

// runSlice is the -slice run.
func (h *harness) runSlice(selected []workload, set map[string]bool, run string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r := &sliceResults{Date: time.Now().Format("2006-01-02"), Machine: machine(), GoVersion: runtime.Version()}
	if set["quick"] {
		r.Selection = append(r.Selection, "-quick")
	}
	if set["run"] {
		r.Selection = append(r.Selection, "-run="+strconv.Quote(run))
	}
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		r.GoVersion = strings.TrimSpace(string(out))
	}
	h.log("work directory %s", h.work)
	if err := h.buildPPPExec(); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	for _, w := range selected {
		m, err := h.measureSliceWorkload(w)
		if err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: %v", w.Pkg, firstLine(err.Error())))
			h.log("%s: %v", w.Pkg, err)
			continue
		}
		r.Workloads = append(r.Workloads, m)
	}
	if len(r.Workloads) == 0 {
		fmt.Fprintln(stderr, "bench: no workload could be measured")
		return 1
	}
	return writeSliceOutputs(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

// renderSlice writes the outputs of a -slice run saved by -json.
func renderSlice(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	var r sliceResults
	if err := json.Unmarshal(data, &r); err != nil || len(r.Workloads) == 0 || slices.Contains(r.Workloads, nil) {
		fmt.Fprintf(stderr, "bench: %s: not the JSON of a -slice run\n", file)
		return 1
	}
	return writeSliceOutputs(&r, stdout, stderr, jsonOut, mdOut, readme, section)
}

func writeSliceOutputs(r *sliceResults, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	md := r.Markdown()
	fmt.Fprint(stdout, md)
	err := func() error {
		if jsonOut != "" {
			data, err := json.MarshalIndent(r, "", "\t")
			if err != nil {
				return err
			}
			if err := os.WriteFile(jsonOut, append(data, '\n'), 0o644); err != nil {
				return err
			}
		}
		if mdOut != "" {
			if err := os.WriteFile(mdOut, []byte(md), 0o644); err != nil {
				return err
			}
		}
		if readme != "" {
			old, err := os.ReadFile(readme)
			if err != nil {
				return err
			}
			s, err := spliceReadme(string(old), section, md)
			if err != nil {
				return fmt.Errorf("%s: %v", readme, err)
			}
			return os.WriteFile(readme, []byte(s), 0o644)
		}
		return nil
	}()
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	return 0
}
