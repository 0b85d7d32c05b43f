package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The -vet run times the vet tool against stock go vet on the standard
// library, every package with its tests, in interleaved rounds. The
// compiled packages are cached by a first, untimed run of each; each timed
// run gives its analyzers a flag value it has not had before, in this run
// or an earlier one (a number drawn at random), so that vet analyzes again
// instead of reusing its cached results: pathcover a new
// -pathcover.maxpaths (between 1000 and 2000, so it reports alike),
// stock vet a new -printf.funcs (a function name no package has).

// vetResults are the times of a -vet run, in seconds, by tool, one per
// round.
type vetResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Packages  string
	Seconds   map[string][]float64 // "pathcover", "stock"
	Warnings  []string
}

func (r *vetResults) measured() bool {
	return len(r.Seconds["pathcover"]) > 0 && len(r.Seconds["stock"]) > 0
}

// runVet is the -vet run.
func (h *harness) runVet(set map[string]bool, rounds int, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r := &vetResults{Date: time.Now().Format("2006-01-02"), Machine: machine(), GoVersion: goVersion(), Packages: "std", Seconds: map[string][]float64{}}
	if set["rounds"] {
		r.Selection = append(r.Selection, "-rounds="+strconv.Itoa(rounds))
	}
	tool := filepath.Join(h.work, "bin", "pathcover")
	if _, err := h.command(h.root, nil, "go", "build", "-o", tool, "./cmd/pathcover"); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	nonce := rand.IntN(1 << 30)
	args := map[string]func(round int) []string{
		"pathcover": func(round int) []string {
			return []string{"vet", "-vettool=" + tool, "-pathcover.maxpaths=" + strconv.Itoa(1001+(nonce+round)%999), r.Packages}
		},
		"stock": func(round int) []string {
			return []string{"vet", fmt.Sprintf("-printf.funcs=pathcoverBench%dx%d", nonce, round+1), r.Packages}
		},
	}
	tools := []string{"pathcover", "stock"}
	for round := -1; round < rounds; round++ {
		rand.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		for _, name := range tools {
			h.log("%s vet, round %d of %d", name, round+1, rounds)
			start := time.Now()
			// vet exits 1 when it reports something: stock vet finds
			// nothing in std, pathcover its functions over the limit.
			out, err := h.command(h.root, nil, "go", args[name](round)...)
			took := time.Since(start).Seconds()
			if err != nil && !strings.Contains(string(out), ": ") {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s, round %d: %v", name, round+1, firstLine(err.Error())))
				continue
			}
			if round >= 0 { // the first round fills the build cache
				r.Seconds[name] = append(r.Seconds[name], took)
			}
		}
	}
	if !r.measured() {
		fmt.Fprintln(stderr, "bench: vet could not be timed")
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

// renderVet writes the outputs of a -vet run saved by -json.
func renderVet(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r, ok := readResults[vetResults](file, "-vet", stderr)
	if !ok {
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

// Markdown renders the times and their ratio, median over median.
func (r *vetResults) Markdown() string {
	var b strings.Builder
	cmd := "go run ./bench -vet"
	for _, f := range r.Selection {
		cmd += " " + f
	}
	fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s: `go vet -vettool=pathcover %s` against stock `go vet %s`, every package with its tests, in interleaved rounds after one untimed run of each (the compiled packages cached; each timed run with a flag value new to its analyzers, so that vet analyzes again).\n\n", cmd, r.Date, r.Machine, r.GoVersion, r.Packages, r.Packages)
	b.WriteString("| tool | runs (s) | median (s) |\n|---|---|---:|\n")
	for _, name := range []string{"pathcover", "stock"} {
		var runs []string
		for _, s := range r.Seconds[name] {
			runs = append(runs, fmt.Sprintf("%.1f", s))
		}
		fmt.Fprintf(&b, "| %s | %s | %.1f |\n", name, strings.Join(runs, ", "), median(r.Seconds[name]))
	}
	fmt.Fprintf(&b, "\nThe vet tool takes %.2f× stock vet's time (median over median).\n", median(r.Seconds["pathcover"])/median(r.Seconds["stock"]))
	return b.String()
}
