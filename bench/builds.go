package main

// The build part of the harness (-builds; issue 19, item 4): how much
// longer a build takes with pppexec than without, measured on copies of
// the module workloads (the edits below change their files), in rounds
// whose modes run in a new random order each:
//
//   - cold: `go test -c` from empty caches (a new GOCACHE and a new
//     PATHCOVERCACHE, so pppexec compiles its runtime and stores every
//     compile in its own cache too), plain, Ball-Larus and PPP;
//   - rebuild: with the caches warm, the package edited (a function
//     appended to one of its files, new in every build), then plain, and PPP with a
//     new tests' profile: the tested profile with one function's counts
//     left out, another function each build, so that its fingerprint is
//     new. That is a build after the user edited the package and ran the
//     tests again; the plain build recompiles what the edit changed. Mode
//     ppp keys the profile in the package's -gcflags (pppexec
//     -profilekey=gcflags, internal/driver/profilekey.go), so that it too
//     recompiles that package (and what depends on it) alone. Mode
//     ppp-buildid keeps the profile in pppexec's build ID, which changes
//     every action ID of the go command: every compile runs again, which
//     pppexec's compile cache (internal/driver/compilecache.go) answers; mode
//     ppp-nocache is that build with the cache off too
//     (PATHCOVERCOMPILECACHE=off), as every PPP build was before either.

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pathcover/pathcover/profile"
)

// buildWorkload is one workload's build times in seconds, per mode, one
// per round.
type buildWorkload struct {
	Workload string
	Cold     map[string][]float64
	Rebuild  map[string][]float64
}

// buildResults is what a -builds run measured; -json writes it.
type buildResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Rounds    int
	Workloads []*buildWorkload
	Warnings  []string
}

var (
	coldBuildModes    = []string{"plain", "bl", "ppp"}
	rebuildBuildModes = []string{"plain", "ppp", "ppp-buildid", "ppp-nocache"}
)

func (h *harness) runBuilds(selected []workload, set map[string]bool, run string, rounds int, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r := &buildResults{Date: time.Now().Format("2006-01-02"), Machine: machine(), GoVersion: goVersion(), Rounds: rounds}
	r.Selection = []string{"-builds"}
	if set["run"] {
		r.Selection = append(r.Selection, fmt.Sprintf("-run=%q", run))
	}
	if set["rounds"] {
		r.Selection = append(r.Selection, fmt.Sprintf("-rounds=%d", rounds))
	}
	h.modes = []string{"plain", "bl", "ppp"}
	if err := h.buildPPPExec(); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	var modules []workload
	for _, w := range selected {
		if w.Module != "" && w.Module != "local" { // a copy: the rebuilds edit its files
			modules = append(modules, w)
		}
	}
	r.Workloads = measureEach(h, modules, &r.Warnings, func(w workload) (*buildWorkload, error) { return h.measureBuilds(w, rounds) })
	if len(r.Workloads) == 0 {
		fmt.Fprintln(stderr, "bench: no module workload could be measured")
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

func (h *harness) measureBuilds(w workload, rounds int) (*buildWorkload, error) {
	t, err := h.prepare(w)
	if err != nil {
		return nil, err
	}
	// The binaries and the tests' profile, which also warm the caches.
	for _, mode := range []string{"plain", "bl", "ppp"} {
		if mode == "ppp" {
			if t.tested, err = h.profileTests(t, "bl", "tested"); err != nil {
				return nil, err
			}
		}
		h.log("build %s %s", t.name, mode)
		if t.bins[mode], _, err = h.build(t, mode, nil); err != nil {
			return nil, err
		}
	}
	edit, restore, err := h.editor(t)
	if err != nil {
		return nil, err
	}
	defer restore()
	tested, _, err := profile.Load(t.tested)
	if err != nil {
		return nil, err
	}
	m := &buildWorkload{Workload: t.name, Cold: map[string][]float64{}, Rebuild: map[string][]float64{}}
	record := func(into map[string][]float64, mode string, round int, d time.Duration) {
		for len(into[mode]) < round {
			into[mode] = append(into[mode], 0)
		}
		into[mode] = append(into[mode], d.Seconds())
	}
	variant := 0
	for round := range rounds {
		for _, mode := range shuffled(rebuildBuildModes) {
			if err := edit(); err != nil {
				return nil, err
			}
			build, env := mode, []string(nil)
			if mode == "ppp-nocache" {
				build, env = "ppp-buildid", []string{"PATHCOVERCOMPILECACHE=off"}
			}
			if build == "ppp" || build == "ppp-buildid" {
				file := filepath.Join(h.work, "variants", fmt.Sprintf("%s.%d.txt", strings.ReplaceAll(t.name, "/", "_"), variant))
				if err := writeVariant(tested, variant, file); err != nil {
					return nil, err
				}
				variant++
				t.tested = file
			}
			h.log("rebuild %s %s, round %d", t.name, mode, round+1)
			_, d, err := h.build(t, build, env)
			if err != nil {
				return nil, err
			}
			record(m.Rebuild, mode, round, d)
		}
		for _, mode := range shuffled(coldBuildModes) {
			h.log("cold build %s %s, round %d", t.name, mode, round+1)
			d, err := h.coldBuild(t, mode)
			if err != nil {
				return nil, err
			}
			record(m.Cold, mode, round, d)
		}
	}
	return m, nil
}

// editor returns a function that appends a new function to one of the
// package's Go files that the build compiles (not a test, not one its
// build constraints leave out, as btree's pre-generics btree.go), and one
// that puts the file back. A function, not a comment: after a comment the
// compiler writes the same object, so the go command does not even link
// again, which no edit of the code spares a build.
func (h *harness) editor(t *target) (edit func() error, restore func(), err error) {
	out, err := h.command(t.buildDir, nil, "go", "list", "-f", "{{range .GoFiles}}{{println .}}{{end}}", t.pkgArg)
	if err != nil {
		return nil, nil, err
	}
	names := strings.Fields(string(out))
	if len(names) == 0 {
		return nil, nil, errors.New("no Go file to edit")
	}
	file := filepath.Join(t.buildDir, names[0])
	orig, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	n := 0
	edit = func() error {
		n++
		return os.WriteFile(file, fmt.Appendf(slices.Clone(orig), "\n// edited for a rebuild (bench -builds)\nfunc pathcoverBenchEdit%d() int { return %d }\n", n, n), 0o644)
	}
	return edit, func() { os.WriteFile(file, orig, 0o644) }, nil
}

// writeVariant writes, as a text profile, p without the counts of its
// k-th function that has any (in the order of metadata hash and function
// index): a new tests' profile, with a fingerprint of its own.
func writeVariant(p *profile.Profile, k int, file string) error {
	type fn struct {
		hash string
		f    int
	}
	var fns []fn
	for _, h := range slices.Sorted(maps.Keys(p.Counts)) {
		for _, f := range slices.Sorted(maps.Keys(p.Counts[h])) {
			fns = append(fns, fn{h, f})
		}
	}
	if len(fns) == 0 {
		return errors.New("the tests' profile has no counts")
	}
	drop := fns[k%len(fns)]
	q := profile.New()
	q.Processes = p.Processes
	q.Metas, q.Raw, q.Lost = p.Metas, p.Raw, p.Lost
	for h, byFunc := range p.Counts {
		q.Counts[h] = map[int]map[uint64]uint64{}
		for f, c := range byFunc {
			if (fn{h, f}) != drop {
				q.Counts[h][f] = c
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	out, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := q.WriteText(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Markdown renders the results: per workload, the seconds of each round,
// and the medians over workloads of the paired ratios to plain, against
// the targets.
func (r *buildResults) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured by `go run ./bench %s` on %s, %s, %s: each module workload's test binary (`go test -c`), %d rounds, the modes of a round in random order.\n\n",
		strings.Join(r.Selection, " "), r.Date, r.Machine, r.GoVersion, r.Rounds)
	b.WriteString("| workload | rebuild: plain | ppp, new profile | ppp / plain | profile in build ID | / plain | and cache off | / plain | cold: plain | bl | ppp | bl / plain | ppp / plain |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	secs := func(xs []float64) string {
		var s []string
		for _, x := range xs {
			s = append(s, fmt.Sprintf("%.1f", x))
		}
		return strings.Join(s, ", ")
	}
	var rebuild, buildID, nocache, coldBL, coldPPP []float64
	for _, w := range r.Workloads {
		rr := pairedRatio(w.Rebuild["ppp"], w.Rebuild["plain"])
		ri := pairedRatio(w.Rebuild["ppp-buildid"], w.Rebuild["plain"])
		rn := pairedRatio(w.Rebuild["ppp-nocache"], w.Rebuild["plain"])
		buildID, nocache = append(buildID, ri), append(nocache, rn)
		cb := pairedRatio(w.Cold["bl"], w.Cold["plain"])
		cp := pairedRatio(w.Cold["ppp"], w.Cold["plain"])
		rebuild, coldBL, coldPPP = append(rebuild, rr), append(coldBL, cb), append(coldPPP, cp)
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f× | %s | %s | %s | %s | %s | %s | %s | %.2f× | %.2f× |\n", w.Workload,
			secs(w.Rebuild["plain"]), secs(w.Rebuild["ppp"]), rr, secs(w.Rebuild["ppp-buildid"]), ratio(ri), secs(w.Rebuild["ppp-nocache"]), ratio(rn),
			secs(w.Cold["plain"]), secs(w.Cold["bl"]), secs(w.Cold["ppp"]), cb, cp)
	}
	met := func(x, limit float64) string {
		if x <= limit {
			return "yes"
		}
		return "**no**"
	}
	mr, mc := median(rebuild), max(median(coldBL), median(coldPPP))
	b.WriteString("\n| target | goal | measured | met |\n|---|---:|---:|---|\n")
	fmt.Fprintf(&b, "| PPP build after a new tests' profile over a plain build after an edit, warm caches, median | ≤ 1.5× | %.2f× | %s |\n", mr, met(mr, 1.5))
	fmt.Fprintf(&b, "| cold build over plain, median, larger of bl and ppp | ≤ 1.2× | %.2f× | %s |\n", mc, met(mc, 1.2))
	if mi, mn := median(buildID), median(nocache); !math.IsNaN(mi) && !math.IsNaN(mn) {
		fmt.Fprintf(&b, "\nWith the profile in pppexec's build ID (`-profilekey=buildid`, the default) the same PPP rebuild takes %.2f× the plain one, and %.2f× without pppexec's compile cache too (medians).\n", mi, mn)
	}
	b.WriteString("\nSeconds per round; ratios are medians over rounds of each round's ratio, then over workloads. Rebuild: the package edited before every build (a function appended), and each PPP build given a new tests' profile (the tested profile less one function's counts); ppp keys it in the package's -gcflags (`pppexec -profilekey=gcflags`). Cold: new GOCACHE and PATHCOVERCACHE.\n")
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "\nWarning: %s\n", w)
	}
	return b.String()
}

// ratio formats a ratio, or a dash for one not measured (results saved
// before the mode existed).
func ratio(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", x)
}

// renderBuilds writes the outputs of a -builds run saved by -json.
func renderBuilds(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r, ok := readResults[buildResults](file, "-builds", stderr)
	if !ok {
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}
