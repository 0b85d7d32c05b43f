package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The -module run profiles the whole test suite of a module of hundreds
// of packages (largeModule, from the module proxy, copied as the main
// module), as a user of a large module would: go test -cover ./... and
// pathcover test ./... (every package of the module instrumented, tests
// attributed), both with -count=1 and a warm build cache (one untimed run
// of each first), in -rounds interleaved rounds, their order random each
// round. Then each reader of the last profile once, timed, with its peak
// memory: report, html (and the page's size), export -format lcov and
// pprof, gate. A test that fails fails in both; the suite's exit is
// recorded, not judged.

// largeModule is the module measured: k8s.io/client-go, 388 packages.
const largeModule = "k8s.io/client-go@v0.37.2"

// moduleResults are the figures of a -module run.
type moduleResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Module    string
	Packages  int
	// Seconds are the suite's wall times by tool ("go test -cover",
	// "pathcover test"), one per round.
	Seconds  map[string][]float64
	Exits    map[string][]int
	Readers  []readerRow
	PageMB   float64
	Warnings []string
}

// A readerRow is one command that reads the profile.
type readerRow struct {
	Command string
	Seconds float64
	PeakMB  float64
}

func (r *moduleResults) measured() bool { return len(r.Seconds["pathcover test"]) > 0 }

// runModule is the -module run.
func (h *harness) runModule(set map[string]bool, rounds int, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r := &moduleResults{Date: time.Now().Format("2006-01-02"), Machine: machine(), GoVersion: goVersion(), Module: largeModule,
		Seconds: map[string][]float64{}, Exits: map[string][]int{}}
	if set["rounds"] {
		r.Selection = append(r.Selection, "-rounds="+strconv.Itoa(rounds))
	}
	if err := h.module(r, rounds); err != nil {
		fmt.Fprintf(stderr, "bench: -module: %v\n", err)
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

func (h *harness) module(r *moduleResults, rounds int) error {
	if err := h.buildPPPExec(); err != nil {
		return err
	}
	mod, _, _ := strings.Cut(largeModule, "@")
	t, err := h.prepare(workload{Pkg: mod, Module: largeModule})
	if err != nil {
		return err
	}
	dir := t.buildDir
	out, err := h.command(dir, nil, "go", "list", "./...")
	if err != nil {
		return err
	}
	r.Packages = len(strings.Fields(string(out)))
	prof := filepath.Join(h.work, "module-profile")
	suites := map[string][]string{
		"go test -cover": {"go", "test", "-cover", "-count=1", "./..."},
		"pathcover test": {h.pathcover, "test", "-dir", prof, "-count=1", "./..."},
	}
	tools := []string{"go test -cover", "pathcover test"}
	for round := -1; round < rounds; round++ {
		rand.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		for _, tool := range tools {
			if tool == "pathcover test" {
				os.RemoveAll(prof)
			}
			h.log("%s, round %d of %d", tool, round+1, rounds)
			args := suites[tool]
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir, cmd.Env = dir, h.env
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start).Seconds()
			code := 0
			if err != nil {
				if cmd.ProcessState == nil {
					return fmt.Errorf("%s: %v", tool, err)
				}
				code = cmd.ProcessState.ExitCode()
			}
			if round >= 0 { // the first round fills the build cache
				r.Seconds[tool] = append(r.Seconds[tool], took)
				r.Exits[tool] = append(r.Exits[tool], code)
			}
		}
	}
	page := filepath.Join(h.work, "module.html")
	for _, args := range [][]string{
		{"report", "-dir", prof},
		{"html", "-dir", prof, "-o", page},
		{"export", "-dir", prof, "-format", "lcov", "-o", filepath.Join(h.work, "module.info")},
		{"export", "-dir", prof, "-format", "pprof", "-o", filepath.Join(h.work, "module.pprof")},
		{"gate", "-dir", prof, "-min", "1"},
	} {
		cmd := exec.Command(h.pathcover, args...)
		cmd.Dir, cmd.Env = dir, h.env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start).Seconds()
		name := strings.Join(fleetArgs(args), " ")
		if err != nil && !(args[0] == "gate" && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 1) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: %v: %s", name, err, firstLine(string(out))))
			continue
		}
		r.Readers = append(r.Readers, readerRow{Command: name, Seconds: took, PeakMB: peakMB(cmd.ProcessState)})
	}
	if fi, err := os.Stat(page); err == nil {
		r.PageMB = float64(fi.Size()) / (1 << 20)
	}
	return nil
}

// renderModule writes the outputs of a -module run saved by -json.
func renderModule(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r, ok := readResults[moduleResults](file, "-module", stderr)
	if !ok {
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

// Markdown renders the suite's times, their ratio, and the readers.
func (r *moduleResults) Markdown() string {
	var b strings.Builder
	cmd := "go run ./bench -module"
	for _, f := range r.Selection {
		cmd += " " + f
	}
	fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s: the whole test suite of %s (%d packages), `-count=1`, warm build cache, in interleaved rounds after one untimed run of each.\n\n",
		cmd, r.Date, r.Machine, r.GoVersion, r.Module, r.Packages)
	b.WriteString("| suite | runs (s) | exit | median (s) |\n|---|---|---|---:|\n")
	for _, tool := range []string{"go test -cover", "pathcover test"} {
		var runs, exits []string
		for i, s := range r.Seconds[tool] {
			runs = append(runs, fmt.Sprintf("%.0f", s))
			exits = append(exits, strconv.Itoa(r.Exits[tool][i]))
		}
		fmt.Fprintf(&b, "| `%s ./...` | %s | %s | %.0f |\n", tool, strings.Join(runs, ", "), strings.Join(exits, ", "), median(r.Seconds[tool]))
	}
	ratio := median(r.Seconds["pathcover test"]) / median(r.Seconds["go test -cover"])
	fmt.Fprintf(&b, "\n`pathcover test` took %.2f× `go test -cover`'s time (median over median; goal ≤ 1.3×: %s).\n\n", ratio, map[bool]string{true: "met", false: "**not met**"}[ratio <= 1.3])
	b.WriteString("| reader | time (s) | peak memory (MB) |\n|---|---:|---:|\n")
	for _, row := range r.Readers {
		fmt.Fprintf(&b, "| `pathcover %s` | %.1f | %.0f |\n", row.Command, row.Seconds, row.PeakMB)
	}
	fmt.Fprintf(&b, "\nThe page is %.1f MB.\n", r.PageMB)
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "\nNot measured: %s\n", w)
	}
	return b.String()
}
