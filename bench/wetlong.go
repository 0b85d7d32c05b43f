package main

// A long run, for -wet -long N: example/cmd/calc built with pppexec -wet
// and fed N lines of input (the same line), its recording made a WET by
// pathcover wet build and sliced by pathcover slice with each graph, each
// command a process of its own, timed, with its peak memory (the
// kernel's maximum resident set). This is the scale the explain half is
// asked to reach (hundreds of millions of statements in 2 GB), which the
// workloads' test suites are far from.

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pathcover/pathcover/profile"
)

// wetLongRun is a long run measured.
type wetLongRun struct {
	Lines          int
	RecordingBytes int64
	Statements     int64
	Tier1Bytes     int64
	Tier2Bytes     int64
	Build          wetLongStep
	// Slices are pathcover slice of the criterion with each graph.
	Criterion string
	Slices    []wetLongStep
}

// wetLongStep is one command: its wall time and peak memory.
type wetLongStep struct {
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

// measureWETLong records calc on lines lines and measures the commands.
func (h *harness) measureWETLong(lines int) (*wetLongRun, error) {
	bin := filepath.Join(h.work, "bin", "calc-wet")
	h.log("long run: build calc -wet")
	if _, err := h.command(h.root, nil, "go", "build", "-toolexec", h.pppexec+" -wet", "-o", bin, "./example/cmd/calc"); err != nil {
		return nil, err
	}
	pc, err := h.buildPathcover(h.root, "long")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(h.work, "wet-long")
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
	run.Env = append(append([]string(nil), h.env...), "PATHCOVERDIR="+dir, "PATHCOVERWPPMAX="+strconv.Itoa(4<<30))
	out, err := run.CombinedOutput()
	in.Close()
	if err != nil {
		return nil, fmt.Errorf("calc: %v\n%s", err, lastLines(out))
	}
	os.Remove(input)
	r := &wetLongRun{Lines: lines, Criterion: longCriterion}
	wpps, _ := filepath.Glob(filepath.Join(dir, "*.wpp"))
	for _, f := range wpps {
		if st, err := os.Stat(f); err == nil {
			r.RecordingBytes += st.Size()
		}
	}
	h.log("long run: wet build")
	var stdout string
	r.Build, stdout = h.timedCommand("wet build", pc, "wet", "build", "-dir", dir)
	if r.Build.Error != "" {
		return r, nil
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
		return nil, fmt.Errorf("pathcover wet build's summary did not say the WET's sizes:\n%s", stdout)
	}
	for _, graph := range []string{"opt", "wet"} {
		h.log("long run: slice -graph %s", graph)
		step, _ := h.timedCommand("slice -graph "+graph, pc, "slice", "-dir", dir, "-graph", graph, filepath.Join(h.root, longCriterion))
		r.Slices = append(r.Slices, step)
	}
	os.Remove(profile.DerivedPath(dir, profile.KindWET))
	return r, nil
}

// timedCommand runs a command, and returns its wall time and peak memory
// and its standard output; a failure is in the step's Error. The command
// runs under a small helper process (peakHelper): a process started
// from this one would count this one's memory in its peak (Linux keeps
// the high-water mark of the address space it replaced at exec, and Go
// starts commands sharing its own).
func (h *harness) timedCommand(name, bin string, args ...string) (wetLongStep, string) {
	self, err := os.Executable()
	if err != nil {
		return wetLongStep{Name: name, Error: err.Error()}, ""
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return wetLongStep{Name: name, Error: err.Error()}, ""
	}
	cmd := exec.Command(self, append([]string{bin}, args...)...)
	cmd.Env = append(append([]string(nil), h.env...), peakHelperEnv+"=1")
	cmd.ExtraFiles = []*os.File{pw}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	step := wetLongStep{Name: name, Seconds: time.Since(start).Seconds()}
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
func (r *wetLongRun) markdown(b *strings.Builder) {
	fmt.Fprintf(b, "\n| `calc`, lines | statements run | recording | tier 1 | tier 2 | step | time | peak memory |\n|---:|---:|---:|---:|---:|---|---:|---:|\n")
	steps := append([]wetLongStep{r.Build}, r.Slices...)
	for i, s := range steps {
		head := "| | | | | "
		if i == 0 {
			head = fmt.Sprintf("| %s | %s | %s | %s | %s ", count(uint64(r.Lines)), count(uint64(r.Statements)), megabytes(r.RecordingBytes), megabytes(r.Tier1Bytes), megabytes(r.Tier2Bytes))
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
	fmt.Fprintf(b, "\nA long run (`go run ./bench -wet -long %d`): `example/cmd/calc` built with `pppexec -wet`, fed %d lines of `%s` (`x=1`; `PATHCOVERWPPMAX` raised to 4 GiB), its recording made a WET by `pathcover wet build` and sliced at `%s` (where each line's result is computed: every slice goes back through every line) from the recording (`-graph opt`) and from the WET (`-graph wet`); each step a process of its own, its peak the kernel's maximum resident set.\n",
		r.Lines, r.Lines, longCalcLine, r.Criterion)
	for _, s := range steps {
		if s.Error != "" {
			fmt.Fprintf(b, "\n`%s` failed: %s\n", s.Name, s.Error)
		}
	}
}

// megabytes formats a size in megabytes.
func megabytes(n int64) string {
	if mb := float64(n) / 1e6; mb < 100 {
		return fmt.Sprintf("%.1f MB", mb)
	}
	return fmt.Sprintf("%.0f MB", float64(n)/1e6)
}
