package main

// A long run, for -wet -long N, -slice -long N and -wpp -long N:
// example/cmd/calc built with pppexec -wet (or -deps, or -wpp) and fed N
// lines of input (the same line), its recording made a WET by pathcover
// wet build (-wet) and sliced by pathcover slice with each graph, or
// compacted by pathcover wpp compact and its hot paths found (-wpp), each
// command a process of its own, timed, with its peak memory (the
// kernel's maximum resident set). This is the scale the explain half is
// asked to reach (hundreds of millions of statements in 2 GB), which the
// workloads' test suites are far from. A -wet run records it all (its cap
// raised to 4 GiB); -deps and -wpp runs keep the default cap, so that
// what they measure is what a user's recording of a long run holds.

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/internal/query/slice"
	"github.com/pathcover/pathcover/profile"
)

// longRun is a long run measured.
type longRun struct {
	// Record is how calc was built: "wet" (or "", before -slice -long)
	// or "deps".
	Record         string `json:",omitempty"`
	Lines          int
	RecordingBytes int64
	// Statements is what the WET says (-wet); Nodes the statement
	// executions pathcover slice says the run had, which count each
	// call's entry as well.
	Statements int64
	Nodes      int64 `json:",omitempty"`
	Tier1Bytes int64
	Tier2Bytes int64
	// Cut says the recording reached its cap.
	Cut bool `json:",omitempty"`
	// GraphFileBytes is the compact graph's file, profile.ddg, which the
	// first slice -graph opt writes and the next reads.
	GraphFileBytes int64 `json:",omitempty"`
	// A -wpp run's: the TWPP's size, and the calls and paths it holds
	// (Build is wpp compact, Slices wpp hot).
	TWPPBytes    int64 `json:",omitempty"`
	Calls, Paths int64 `json:",omitempty"`
	Build        longStep
	// Slices are pathcover slice of the criterion with each graph.
	Criterion string
	Slices    []longStep
	// Many are the workloads' 25 criteria sliced by one process that
	// built OPT once, as the paper times its slices.
	Many *manySlices `json:",omitempty"`
}

// manySlices are sliceCriteria criteria sliced by OPT, built once.
type manySlices struct {
	BuildSeconds float64
	Criteria     int // sliced within optBudget
	Seconds      []float64
	MeanSteps    float64
}

// measureMany builds OPT of the recording in dir in this process and
// slices the criteria the workloads are sliced at (sliceCriteriaOf),
// until optBudget is spent.
func measureMany(dir string, log func(string, ...any)) (*manySlices, error) {
	log("long run: OPT, built once, %d criteria", sliceCriteria)
	start := time.Now()
	o, err := slice.LoadCompact(dir)
	if err != nil {
		return nil, err
	}
	m := &manySlices{BuildSeconds: time.Since(start).Seconds()}
	steps := 0
	_, times, err := sliceAll(sliceCriteriaOf(o), o.Slice, optBudget, func(s *slice.Slice) { steps += s.NumSteps() })
	if err != nil {
		return nil, err
	}
	for _, t := range times {
		m.Seconds = append(m.Seconds, t.Seconds())
	}
	m.Criteria = len(times)
	m.MeanSteps = float64(steps) / float64(max(1, m.Criteria))
	return m, nil
}

// markdown writes the criteria's times as a sentence.
func (m *manySlices) markdown(b *strings.Builder) {
	times := make([]time.Duration, len(m.Seconds))
	var slowest float64
	for i, s := range m.Seconds {
		times[i] = time.Duration(s * float64(time.Second))
		slowest = max(slowest, s)
	}
	budget := ""
	if m.Criteria < sliceCriteria {
		budget = fmt.Sprintf(" (%d of them within %.0f minutes)", m.Criteria, optBudget.Minutes())
	}
	fmt.Fprintf(b, "\nThe %d criteria the workloads are sliced at (statements that ran, chosen at random with a fixed seed), sliced from their last execution by one process that built the compact graph once (%.1f s)%s: median %.2f s, mean %.2f s, slowest %.2f s; %.0f statement executions in a slice on average.\n",
		sliceCriteria, m.BuildSeconds, budget, medianMs(times)/1e3, meanMs(times)/1e3, slowest, m.MeanSteps)
}

// longStep is one command: its wall time and peak memory.
type longStep struct {
	Name    string
	Seconds float64
	PeakMB  float64
	Error   string `json:",omitempty"`
}

// longCalcLine is the line fed to calc, and longCriterion the statement
// sliced: where a line's result is computed (each line's computation
// depends on the scanner's state, so a slice goes back through every
// line).
const (
	longCalcLine  = "1+2*x"
	longCriterion = "example/expr/parse.go:179"
)

// measureLong records calc, built with pppexec -record (wet or deps), on
// lines lines, and measures the commands.
func (h *harness) measureLong(record string, lines int) (*longRun, error) {
	bin := filepath.Join(h.work, "bin", "calc-"+record)
	h.log("long run: build calc -%s", record)
	if _, err := h.command(h.root, nil, "go", "build", "-toolexec", h.pppexec+" -"+record, "-o", bin, "./example/cmd/calc"); err != nil {
		return nil, err
	}
	pc, err := h.buildPathcover(h.root, "long")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(h.work, record+"-long")
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	input := filepath.Join(h.work, "calc-input")
	if err := os.WriteFile(input, []byte(strings.Repeat(longCalcLine+"\n", lines)), 0o644); err != nil {
		return nil, err
	}
	h.log("long run: calc on %d lines", lines)
	in, err := os.Open(input)
	if err != nil {
		return nil, err
	}
	run := exec.Command(bin, "x=1")
	run.Stdin = in
	run.Env = append(append([]string(nil), h.env...), "PATHCOVERDIR="+dir)
	if record == "wet" {
		run.Env = append(run.Env, "PATHCOVERWPPMAX="+strconv.Itoa(4<<30))
	}
	out, err := run.CombinedOutput()
	in.Close()
	if err != nil {
		return nil, fmt.Errorf("calc: %v\n%s", err, lastLines(out))
	}
	os.Remove(input)
	r := &longRun{Record: record, Lines: lines, Criterion: longCriterion}
	wpps, _ := filepath.Glob(filepath.Join(dir, "*.wpp"))
	for _, name := range wpps {
		f, err := profile.OpenWPP(name)
		if err != nil {
			return nil, err
		}
		r.Cut = r.Cut || f.Header.LimitReached
		f.Close()
		if st, err := os.Stat(name); err == nil {
			r.RecordingBytes += st.Size()
		}
	}
	if record == "wpp" {
		return r, h.compactLong(r, pc, dir)
	}
	graphs := []string{"opt", "lp", "fp"}
	if record == "wet" {
		if err := h.buildLongWET(r, pc, dir); err != nil || r.Build.Error != "" {
			return r, err
		}
		graphs = []string{"opt", "lp", "wet"}
	}
	os.Remove(profile.DerivedPath(dir, profile.KindDDG))
	for _, graph := range slices.Insert(graphs, 1, "opt again") {
		// The compact graph's first slice builds it and keeps it in the
		// directory; the next one reads it.
		h.log("long run: slice -graph %s", graph)
		step, stdout := h.timedCommand("slice -graph "+graph, pc, "slice", "-dir", dir, "-graph", strings.Fields(graph)[0], filepath.Join(h.root, longCriterion))
		r.Slices = append(r.Slices, step)
		// "slice of execution I of J: S statements, E statement
		// executions of the run's N"
		if m := runNodes.FindStringSubmatch(stdout); m != nil && r.Nodes == 0 {
			r.Nodes, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	if r.Nodes == 0 {
		return r, fmt.Errorf("no pathcover slice said the run's size")
	}
	if info, err := os.Stat(profile.DerivedPath(dir, profile.KindDDG)); err == nil {
		r.GraphFileBytes = info.Size()
	}
	os.Remove(profile.DerivedPath(dir, profile.KindWET))
	os.Remove(profile.DerivedPath(dir, profile.KindDDG))
	var err2 error
	if r.Many, err2 = measureMany(dir, h.log); err2 != nil {
		return r, fmt.Errorf("OPT built once: %v", err2)
	}
	return r, nil
}

// runNodes finds the run's size in pathcover slice's first line.
var runNodes = regexp.MustCompile(`statement executions of the run's (\d+)\n`)

// compactLong runs pathcover wpp compact and wpp hot on the long run's
// recording in dir, into r.
func (h *harness) compactLong(r *longRun, pc, dir string) error {
	h.log("long run: wpp compact")
	var stdout string
	r.Build, stdout = h.timedCommand("wpp compact", pc, "wpp", "compact", "-dir", dir)
	if r.Build.Error != "" {
		return nil
	}
	// "…: P processes, G goroutines, C calls of F functions, N paths; …"
	m := compactSummary.FindStringSubmatch(stdout)
	if m == nil {
		return fmt.Errorf("pathcover wpp compact's summary did not say the TWPP's calls and paths:\n%s", stdout)
	}
	r.Calls, _ = strconv.ParseInt(m[1], 10, 64)
	r.Paths, _ = strconv.ParseInt(m[2], 10, 64)
	twpp := profile.DerivedPath(dir, profile.KindTWPP)
	if info, err := os.Stat(twpp); err == nil {
		r.TWPPBytes = info.Size()
	}
	h.log("long run: wpp hot")
	step, _ := h.timedCommand("wpp hot", pc, "wpp", "hot", "-dir", dir)
	r.Slices = append(r.Slices, step)
	os.Remove(twpp)
	return nil
}

// compactSummary finds the calls and paths in pathcover wpp compact's
// summary.
var compactSummary = regexp.MustCompile(`(\d+) calls of \d+ functions, (\d+) paths;`)

// buildLongWET runs pathcover wet build on the long run's recording in
// dir, into r.Build and r's sizes.
func (h *harness) buildLongWET(r *longRun, pc, dir string) error {
	h.log("long run: wet build")
	var stdout string
	r.Build, stdout = h.timedCommand("wet build", pc, "wet", "build", "-dir", dir)
	if r.Build.Error != "" {
		return nil
	}
	// "…: G goroutines, P path executions, S statement executions, …" and
	// "recording R bytes (…), labels L bytes (…), compressed C bytes (…)".
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		for i := 1; i < len(f); i++ {
			n, err := strconv.ParseInt(f[i-1], 10, 64)
			if err != nil {
				continue
			}
			switch {
			case f[i] == "statement":
				r.Statements = n
			case i >= 2 && f[i-2] == "labels":
				r.Tier1Bytes = n
			case i >= 2 && f[i-2] == "compressed":
				r.Tier2Bytes = n
			}
		}
	}
	if r.Statements == 0 || r.Tier1Bytes == 0 || r.Tier2Bytes == 0 {
		return fmt.Errorf("pathcover wet build's summary did not say the WET's sizes:\n%s", stdout)
	}
	return nil
}

// timedCommand runs a command, and returns its wall time and peak memory
// and its standard output; a failure is in the step's Error. The command
// runs under a small helper process (peakHelper): a process started
// from this one would count this one's memory in its peak (Linux keeps
// the high-water mark of the address space it replaced at exec, and Go
// starts commands sharing its own).
func (h *harness) timedCommand(name, bin string, args ...string) (longStep, string) {
	self, err := os.Executable()
	if err != nil {
		return longStep{Name: name, Error: err.Error()}, ""
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return longStep{Name: name, Error: err.Error()}, ""
	}
	cmd := exec.Command(self, append([]string{bin}, args...)...)
	cmd.Env = append(append([]string(nil), h.env...), peakHelperEnv+"=1")
	cmd.ExtraFiles = []*os.File{pw}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	step := longStep{Name: name, Seconds: time.Since(start).Seconds()}
	pw.Close()
	peak, _ := io.ReadAll(pr)
	pr.Close()
	if err != nil {
		step.Error = fmt.Sprintf("%v: %s", err, lastLines([]byte(stderr.String())))
	}
	if step.PeakMB, err = strconv.ParseFloat(strings.TrimSpace(string(peak)), 64); err != nil && step.Error == "" {
		step.Error = fmt.Sprintf("no peak memory from the helper (%q)", peak)
	}
	return step, string(out)
}

// peakHelperEnv set to 1 makes bench the helper of timedCommand.
const peakHelperEnv = "PATHCOVER_BENCH_PEAK_HELPER"

// peakHelper runs the command args, its output and errors passed
// through, writes its peak memory in megabytes to file descriptor 3 and
// exits with its status.
func peakHelper(args []string) int {
	if len(args) == 0 {
		return 2
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	err := cmd.Run()
	if cmd.ProcessState != nil {
		fmt.Fprintf(os.NewFile(3, "peak"), "%.1f\n", peakMB(cmd.ProcessState))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() > 0 {
			return cmd.ProcessState.ExitCode()
		}
		return 1
	}
	return 0
}

// lastLines returns the end of a command's output.
func lastLines(out []byte) string {
	if len(out) > 500 {
		out = out[len(out)-500:]
	}
	return strings.TrimSpace(string(out))
}

// markdown renders the long run as a table.
func (r *longRun) markdown(b *strings.Builder) {
	record := cmp.Or(r.Record, "wet")
	if record == "wpp" {
		r.markdownWPP(b)
		return
	}
	fmt.Fprintf(b, "\n| `calc -%s`, lines | statement executions | recording | tier 1 | tier 2 | step | time | peak memory |\n|---:|---:|---:|---:|---:|---|---:|---:|\n", record)
	steps := r.Slices
	if r.Build.Name != "" {
		steps = append([]longStep{r.Build}, r.Slices...)
	}
	sizes := func(n int64) string {
		if n == 0 {
			return "–"
		}
		return megabytes(n)
	}
	for i, s := range steps {
		head := "| | | | | "
		if i == 0 {
			stmts := count(uint64(r.Statements))
			if r.Nodes > 0 {
				stmts = count(uint64(r.Nodes))
			}
			cut := ""
			if r.Cut {
				cut = " (cut at its cap)"
			}
			head = fmt.Sprintf("| %s | %s | %s%s | %s | %s ", count(uint64(r.Lines)), stmts, megabytes(r.RecordingBytes), cut, sizes(r.Tier1Bytes), sizes(r.Tier2Bytes))
		}
		peak := "–" // the system does not say
		if s.PeakMB > 0 {
			peak = fmt.Sprintf("%.0f MB", s.PeakMB)
		}
		if s.Error != "" {
			fmt.Fprintf(b, "%s| `%s` | failed | %s |\n", head, s.Name, peak)
			continue
		}
		fmt.Fprintf(b, "%s| `%s` | %.1f s | %s |\n", head, s.Name, s.Seconds, peak)
	}
	mode := "-wet"
	if record == "deps" {
		mode = "-slice"
	}
	fmt.Fprintf(b, "\nA long run (`go run ./bench %s -long %d`): `example/cmd/calc` built with `pppexec -%s`, fed %d lines of `%s` (`x=1`",
		mode, r.Lines, record, r.Lines, longCalcLine)
	if record == "wet" {
		b.WriteString("; `PATHCOVERWPPMAX` raised to 4 GiB), its recording made a WET by `pathcover wet build` and")
	} else {
		fmt.Fprintf(b, "; the default cap on the recording, %d GiB), its recording", buildspec.DefaultWPPLimit>>30)
	}
	fmt.Fprintf(b, " sliced at `%s` (where each line's result is computed: every slice goes back through every line) with each graph:", r.Criterion)
	graphs := map[string]string{
		"slice -graph opt":       "from the recording, the compact graph (`-graph opt`, which keeps it in `profile.ddg`)",
		"slice -graph opt again": fmt.Sprintf("the compact graph again (read from `profile.ddg`, %s)", megabytes(r.GraphFileBytes)),
		"slice -graph lp":        "on demand (`lp`)",
		"slice -graph fp":        fmt.Sprintf("the full graph (`fp`, which refuses more than %s statement executions)", count(uint64(slice.DefaultMaxNodes))),
		"slice -graph wet":       "from the WET (`wet`)",
	}
	for i, s := range r.Slices {
		sep := ","
		if i == 0 {
			sep = ""
		} else if i == len(r.Slices)-1 {
			sep = " and"
		}
		fmt.Fprintf(b, "%s %s", sep, cmp.Or(graphs[s.Name], "`"+s.Name+"`"))
	}
	b.WriteString("; each step a process of its own, its peak the kernel's maximum resident set.")
	if r.Nodes > 0 {
		b.WriteString(" Statement executions are the slicer's, which counts each call's entry as one")
		if r.Statements > 0 {
			fmt.Fprintf(b, " (the WET counts %s without them)", count(uint64(r.Statements)))
		}
		b.WriteString(".")
	}
	b.WriteString("\n")
	for _, s := range steps {
		if s.Error != "" {
			fmt.Fprintf(b, "\n`%s` failed: %s\n", s.Name, s.Error)
		}
	}
	if r.Many != nil {
		r.Many.markdown(b)
	}
	papersAtScale(b)
}

// markdownWPP renders a -wpp long run.
func (r *longRun) markdownWPP(b *strings.Builder) {
	fmt.Fprintf(b, "\n| `calc -wpp`, lines | paths | calls | recording | TWPP | step | time | peak memory |\n|---:|---:|---:|---:|---:|---|---:|---:|\n")
	cut := ""
	if r.Cut {
		cut = " (cut at its cap)"
	}
	for i, s := range append([]longStep{r.Build}, r.Slices...) {
		head := "| | | | | "
		if i == 0 {
			head = fmt.Sprintf("| %s | %s | %s | %s%s | %s ", count(uint64(r.Lines)), count(uint64(r.Paths)), count(uint64(r.Calls)), megabytes(r.RecordingBytes), cut, byteSize(r.TWPPBytes))
		}
		if s.Error != "" {
			fmt.Fprintf(b, "%s| `%s` | failed | %.0f MB |\n", head, s.Name, s.PeakMB)
			continue
		}
		fmt.Fprintf(b, "%s| `%s` | %.2f s | %.0f MB |\n", head, s.Name, s.Seconds, s.PeakMB)
	}
	fmt.Fprintf(b, "\nA long run (`go run ./bench -wpp -long %d`): `example/cmd/calc` built with `pppexec -wpp`, fed %d lines of `%s` (`x=1`; the default cap on the recording, %d GiB), its recording compacted by `pathcover wpp compact`", r.Lines, r.Lines, longCalcLine, buildspec.DefaultWPPLimit>>30)
	if r.Build.Error == "" && r.Build.Seconds > 0 {
		fmt.Fprintf(b, " (%.1f MB of .wpp files a second)", float64(r.RecordingBytes)/1e6/r.Build.Seconds)
	}
	b.WriteString(" and its hot paths found by `pathcover wpp hot` (the defaults: 10 sequences of up to 4 paths); each step a process of its own, its peak the kernel's maximum resident set.\n")
	for _, s := range append([]longStep{r.Build}, r.Slices...) {
		if s.Error != "" {
			fmt.Fprintf(b, "\n`%s` failed: %s\n", s.Name, s.Error)
		}
	}
}

// papersAtScale writes the papers' figures for runs of this size, from
// their tables, for the rows above to be read beside.
func papersAtScale(b *strings.Builder) {
	b.WriteString(`
The papers, on C programs (SPECint) compiled by Trimaran, on workstations of 2004:

| paper | statements executed | held in | build | one slice |
|---|---:|---:|---:|---:|
| Zhang and Gupta, PLDI'04 (OPT; Tables 1, 2, 4, 7) | 67-220 M | OPT graph 20.9-210.2 MB | 23.5-65.3 min | 1.7-36.3 s (mean of 25 slices) |
| Zhang, Gupta and Zhang, WET (Tables I, VIII) | 365-751 M | WET 331 MB on average | – | 14.3 s tier 1, 91.0 s tier 2 (runs cut at 114-139 M) |

Their criteria are 25 memory references each; the rows above slice one statement whose slice spans the whole run.
`)
}

// megabytes formats a size in megabytes.
func megabytes(n int64) string {
	if mb := float64(n) / 1e6; mb < 100 {
		return fmt.Sprintf("%.1f MB", mb)
	}
	return fmt.Sprintf("%.0f MB", float64(n)/1e6)
}
