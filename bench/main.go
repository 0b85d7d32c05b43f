package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/buildspec"
)

func main() {
	if os.Getenv(peakHelperEnv) == "1" {
		os.Exit(peakHelper(os.Args[1:]))
	}
	os.Exit(benchMain(os.Args[1:], os.Stdout, os.Stderr))
}

func benchMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "a few workloads, 3 short rounds, no cold builds: a first look in a few minutes")
	rounds := fs.Int("rounds", 5, "timed `rounds` (3 with -quick)")
	benchtime := fs.String("benchtime", "200ms", "`d` for -test.benchtime (50ms with -quick)")
	run := fs.String("run", "", "measure only the workloads whose import path matches `regexp`")
	cold := fs.Int("cold", 2, "time cold builds of the first `n` workloads measured (0 with -quick)")
	coldRounds := fs.Int("coldrounds", 2, "`rounds` of cold builds")
	jsonOut := fs.String("json", "", "also write the results as JSON to `file`")
	mdOut := fs.String("md", "", "also write the Markdown to `file`")
	readme := fs.String("readme", "", "replace the table between the bench markers of `file` (docs/performance.md)")
	section := fs.String("section", "bench", "with -readme, the `name` of the markers: <!-- name:begin --> and <!-- name:end -->")
	work := fs.String("work", "", "work `dir`, kept (default: a temporary directory, removed)")
	list := fs.Bool("list", false, "list the workloads and their benchmark patterns, and stop")
	verbose := fs.Bool("v", false, "log each step")
	pppFlags := fs.String("pppflags", "", "more pppexec `flags` for the ppp mode, such as -pppalways")
	modeList := fs.String("modes", strings.Join(modes[1:], ","), "comma-separated `modes` to compare with plain, from "+strings.Join(allModes[1:], ", "))
	from := fs.String("from", "", "measure nothing: render the results saved by -json in `file` again (with -md, -readme)")
	wppMode := fs.Bool("wpp", false, "measure whole program paths instead (bench/wpp.go): raw, TWPP and Sequitur sizes and extraction times of the workloads' tests")
	wetMode := fs.Bool("wet", false, "measure whole execution traces instead (bench/wet.go): the WETs of the workloads' tests, their sizes per statement before and after each tier, and their queries' speed")
	long := fs.Int("long", 0, "with -wet, -slice or -wpp, measure a long run instead of the workloads: example/cmd/calc built with pppexec -wet (or -deps or -wpp, under the default cap) on `n` lines, its WET built (-wet) and sliced by pathcover with each graph, or its recording compacted and its hot paths found (-wpp), each step's time and peak memory (bench/long.go; 1000000 lines: 207 M statements, a 1.6 GB -wet recording)")
	sliceMode := fs.Bool("slice", false, "measure dynamic slicing instead (bench/slice.go): the dependence graphs of the workloads' tests and the time of 25 slices of each")
	parallel := fs.Bool("parallel", false, "time the workloads' RunParallel benchmarks instead, at -test.cpu=2 (or -cpu): goroutines on both cores share the counters")
	cpu := fs.Int("cpu", 0, "the benchmarks' -test.cpu: `n` Ps (default 1, or 2 with -parallel); -parallel -cpu=1 times the parallel benchmarks on one P, to weigh what parallel code pays against serial code")
	buildsMode := fs.Bool("builds", false, "measure build times instead (bench/builds.go): cold builds, and rebuilds after an edit (plain) or a new tests' profile (PPP), of the module workloads")
	moduleMode := fs.Bool("module", false, "profile the whole test suite of a module of hundreds of packages instead (bench/module.go), -rounds interleaved rounds (default 2)")
	fleetMode := fs.Bool("fleet", false, "time the readers on profile directories of many processes instead (bench/fleet.go)")
	processes := fs.Int("processes", 10000, "with -fleet, the Ball-Larus processes of the larger directory")
	pppProcesses := fs.Int("pppprocesses", 1000, "with -fleet, the PPP processes of the larger directory")
	vetMode := fs.Bool("vet", false, "time the vet tool against stock go vet on std instead (bench/vet.go), -rounds interleaved rounds (default 3)")
	hotMode := fs.Bool("hot", false, "measure hot path tables against exact counts instead (bench/hot.go): on the workloads' tests, the overlap of the 100 hottest paths, the tables' size, and how close the estimates are")
	infeasibleMode := fs.Bool("infeasible", false, "measure the paths proved infeasible instead (bench/infeasible.go): on the workloads' tests, how many paths and untested paths, and the analysis time")
	switchMode := fs.Bool("switch", false, "measure mode switches instead (bench/switch.go): a user's first pathcover test of the example module from empty caches, then each other mode in turn")
	base := fs.String("base", "", "with -switch: also measure pathcover built at git `revision` (before), in alternate order with the working tree's (after)")
	wppFuncs := fs.Int("wppfuncs", 0, "with -wpp, time the extraction of at most `n` functions per workload, evenly spaced (0: all)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./bench [flags]\n\nbench measures path profiling overhead against go test -cover; see its package doc.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bench: unexpected arguments %q\n", fs.Args())
		return 2
	}
	set, values := map[string]bool{}, map[string]string{}
	fs.Visit(func(f *flag.Flag) { set[f.Name], values[f.Name] = true, f.Value.String() })
	kind := measurementOf(*wppMode, *wetMode, *sliceMode, *buildsMode, *infeasibleMode, *vetMode, *hotMode, *switchMode, *fleetMode, *moduleMode)
	if !set["section"] {
		*section = defaultSection(kind, *parallel, *long > 0 || *from != "" && savedLongRun(*from))
	}
	if *from != "" {
		return kind.render()(*from, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	}
	if *quick {
		quickDefaults(set, rounds, benchtime, cold)
	}
	if *rounds < 1 {
		fmt.Fprintln(stderr, "bench: -rounds must be at least 1")
		return 2
	}
	chosen, err := parseModes(*modeList)
	if err != nil {
		fmt.Fprintf(stderr, "bench: -modes: %v\n", err)
		return 2
	}
	re, err := regexp.Compile(*run)
	if err != nil {
		fmt.Fprintf(stderr, "bench: -run: %v\n", err)
		return 2
	}
	selected := selectWorkloads(re, *quick && !set["run"], *parallel)
	if *list {
		for _, w := range selected {
			fmt.Fprintf(stdout, "%-45s %-40s %s\n", w.Pkg, w.Module, w.Bench)
		}
		return 0
	}
	if len(selected) == 0 {
		fmt.Fprintf(stderr, "bench: no workload matches -run=%q\n", *run)
		return 2
	}
	ppp := buildspec.Default()
	pfs := flag.NewFlagSet("bench -pppflags", flag.ContinueOnError)
	pfs.SetOutput(stderr)
	ppp.AddFlags(pfs)
	if err := pfs.Parse(strings.Fields(*pppFlags)); err != nil {
		return 2
	}
	h := &harness{env: goEnv(), verbose: *verbose, ppp: ppp, modes: chosen, cpu: 1}
	if *parallel {
		h.cpu = 2
	}
	if *cpu != 0 {
		if *cpu < 1 {
			fmt.Fprintf(stderr, "bench: -cpu=%d: want at least 1\n", *cpu)
			return 2
		}
		h.cpu = *cpu
	}
	h.log = func(format string, args ...any) {
		fmt.Fprintf(stderr, "bench: "+format+"\n", args...)
	}
	if h.root, err = repoRoot(); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	if *work != "" {
		h.work, err = filepath.Abs(*work)
		if err == nil {
			err = os.MkdirAll(h.work, 0o755)
		}
	} else {
		h.work, err = os.MkdirTemp("", "pathcover-bench-")
		defer os.RemoveAll(h.work)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	switch kind {
	case "builds":
		if !set["rounds"] {
			*rounds = 3
		}
		return h.runBuilds(selected, set, *run, *rounds, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	case "wet":
		return h.runWET(selected, set, *run, *long, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	case "slice":
		return h.runSlice(selected, set, *run, *long, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	case "wpp":
		return h.runWPP(selected, set, *run, *wppFuncs, *long, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	case "hot":
		return h.runHot(selected, set, *run, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	case "infeasible":
		return h.runInfeasible(selected, set, *run, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	case "switch":
		if !set["rounds"] {
			*rounds = 2
		}
		return h.runSwitch(set, *base, *rounds, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	case "module":
		if !set["rounds"] {
			*rounds = 2
		}
		return h.runModule(set, *rounds, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	case "fleet":
		return h.runFleet(set, *processes, *pppProcesses, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	case "vet":
		if !set["rounds"] {
			*rounds = 3
		}
		return h.runVet(set, *rounds, stdout, stderr, *jsonOut, *mdOut, *readme, *section)
	}
	r := &results{
		Date:      time.Now().Format("2006-01-02"),
		Machine:   machine(),
		GoVersion: goVersion(),
		Rounds:    *rounds,
		Benchtime: *benchtime,
		Quick:     *quick,
		Selection: selectionFlags(set, values, *run, *pppFlags, *modeList),
		CPU:       h.cpu,
		Modes:     chosen[1:],
	}
	if err := h.measure(r, selected, *benchtime, *rounds, *cold, *coldRounds); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	r.summarize()
	md := r.Markdown()
	fmt.Fprint(stdout, md)
	if err := writeOutputs(r, md, *jsonOut, *mdOut, *readme, *section); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	return 0
}

// measure builds and runs everything, recording into r. A workload that
// cannot be built or run is left out with a warning; only a failure that
// leaves nothing to measure is an error.
func (h *harness) measure(r *results, selected []workload, benchtime string, rounds, cold, coldRounds int) error {
	h.log("work directory %s", h.work)
	if err := h.buildPPPExec(); err != nil {
		return err
	}
	var targets []*target
	order := map[string]int{}
	for _, w := range selected {
		t, err := h.setUp(w, r)
		if err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: %v", w.Pkg, firstLine(err.Error())))
			h.log("%s: %v", w.Pkg, err)
			continue
		}
		order[t.name] = len(targets)
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return fmt.Errorf("no workload could be built")
	}

	byKey := map[string]*benchResult{}
	for round := range rounds {
		h.log("round %d of %d", round+1, rounds)
		for _, t := range targets {
			for _, mode := range shuffled(h.modes) {
				res, err := h.runBenchmarks(t, mode, benchtime)
				if err != nil {
					r.Warnings = append(r.Warnings, fmt.Sprintf("%s %s, round %d: %v", t.name, mode, round+1, firstLine(err.Error())))
					h.log("%v", err)
					continue
				}
				for name, ns := range res {
					b := byKey[t.name+" "+name]
					if b == nil {
						b = &benchResult{Workload: t.name, Name: name, NsPerOp: map[string][]float64{}}
						byKey[t.name+" "+name] = b
						r.Benchmarks = append(r.Benchmarks, b)
					}
					// Index by round, so that ratios pair runs of one round.
					for len(b.NsPerOp[mode]) < round {
						b.NsPerOp[mode] = append(b.NsPerOp[mode], 0)
					}
					b.NsPerOp[mode] = append(b.NsPerOp[mode], ns)
				}
			}
		}
	}
	sortBenchmarks(r.Benchmarks, order)

	// The increments are counted from the bl binary: without bl among the
	// modes there is nothing to count them with.
	for _, t := range targets {
		if !slices.Contains(h.modes, "bl") {
			break
		}
		in, err := h.countIncrements(t, benchtime)
		if err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s increments: %v", t.name, firstLine(err.Error())))
			continue
		}
		r.Increments = append(r.Increments, in)
	}

	// Cold builds compare instrumented builds with plain ones: with only
	// plain among the modes there is nothing to compare.
	if len(h.buildModes()) < 2 {
		cold = 0
	}
	for _, t := range targets[:min(cold, len(targets))] {
		b := &coldBuilds{Workload: t.name, Seconds: map[string][]float64{}}
		for round := range coldRounds {
			for _, mode := range shuffled(h.buildModes()) {
				h.log("cold build %s %s, round %d", t.name, mode, round+1)
				d, err := h.coldBuild(t, mode)
				if err != nil {
					r.Warnings = append(r.Warnings, fmt.Sprintf("%s cold build %s: %v", t.name, mode, firstLine(err.Error())))
					continue
				}
				for len(b.Seconds[mode]) < round {
					b.Seconds[mode] = append(b.Seconds[mode], 0)
				}
				b.Seconds[mode] = append(b.Seconds[mode], d.Seconds())
			}
		}
		r.Builds = append(r.Builds, b)
	}
	return nil
}

// setUp prepares a workload and builds its binaries in every mode, and the
// tests' profile that the PPP build needs.
func (h *harness) setUp(w workload, r *results) (*target, error) {
	t, err := h.prepare(w)
	if err != nil {
		return nil, err
	}
	sizes := &binarySizes{Workload: t.name, Bytes: map[string]int64{}}
	build := slices.Clone(h.modes)
	if i := slices.Index(build, "ippp"); i >= 0 {
		build = slices.Insert(build, i, "ipppsites")
	}
	if (slices.Contains(build, "ppp") || slices.Contains(build, "ippp") || slices.Contains(build, "pgopaths")) && !slices.Contains(build, "bl") {
		build = slices.Insert(build, 1, "bl")
	}
	for _, mode := range build {
		var err error
		switch mode {
		case "ppp", "ipppsites":
			if t.tested == "" {
				t.tested, err = h.profileTests(t, "bl", "tested")
			}
		case "ippp":
			t.segments, err = h.profileTests(t, "ipppsites", "segments")
		case "pgocpu":
			t.pgoCPU, err = h.cpuProfile(t)
		case "pgopaths":
			t.pgoPaths, err = h.pathsProfile(t)
		}
		if err != nil {
			return nil, err
		}
		h.log("build %s %s", t.name, mode)
		bin, _, err := h.build(t, mode, nil)
		if err != nil {
			return nil, err
		}
		t.bins[mode] = bin
		fi, err := os.Stat(bin)
		if err != nil {
			return nil, err
		}
		sizes.Bytes[mode] = fi.Size()
	}
	r.Sizes = append(r.Sizes, sizes)
	return t, nil
}

func shuffled(xs []string) []string {
	s := slices.Clone(xs)
	rand.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

// repoRoot is the root of the pathcover module that holds the working
// directory.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("run bench from the pathcover repository: go list -m: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(dir, "cmd", "pppexec")); err != nil {
		return "", fmt.Errorf("run bench from the pathcover repository (%s has no cmd/pppexec)", dir)
	}
	return dir, nil
}

// machine describes this machine: CPU model, count, OS and architecture.
func machine() string {
	model := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%s, %d CPUs, %s/%s", model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
}

// buildModes are the modes whose cold builds are timed, of those chosen.
func (h *harness) buildModes() []string {
	var ms []string
	for _, m := range h.modes {
		if slices.Contains(buildModes, m) || m == "ippp" {
			ms = append(ms, m)
		}
	}
	return ms
}

// selectionFlags are the flags that change what a run measures, beyond
// rounds and benchtime, quoted for the table's heading.
func selectionFlags(set map[string]bool, values map[string]string, run, pppFlags, modeList string) []string {
	var fl []string
	if set["modes"] {
		fl = append(fl, "-modes="+modeList)
	}
	if set["run"] {
		fl = append(fl, "-run="+strconv.Quote(run))
	}
	if set["pppflags"] {
		fl = append(fl, "-pppflags="+strconv.Quote(pppFlags))
	}
	for _, name := range []string{"parallel", "cpu", "cold", "coldrounds"} { // rounds and benchtime are in the text
		switch {
		case !set[name]:
		case values[name] == "true":
			fl = append(fl, "-"+name)
		default:
			fl = append(fl, "-"+name+"="+values[name])
		}
	}
	return fl
}

// render writes the outputs of a run saved by -json, summarized again by
// this version of the harness.
func render(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	var r results
	if err := json.Unmarshal(data, &r); err != nil {
		fmt.Fprintf(stderr, "bench: %s: %v\n", file, err)
		return 1
	}
	if err := r.check(); err != nil {
		fmt.Fprintf(stderr, "bench: %s: not the JSON of a run: %v\n", file, err)
		return 1
	}
	r.summarize()
	md := r.Markdown()
	fmt.Fprint(stdout, md)
	if err := writeOutputs(&r, md, jsonOut, mdOut, readme, section); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	return 0
}

// goVersion is the version of the toolchain that builds the workloads, the
// go command's (not this program's, unless go cannot say).
func goVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(out))
}

// measureEach measures each workload with measure, in order; one that
// cannot be measured is left out, with a warning added to warnings and
// logged.
func measureEach[W any](h *harness, selected []workload, warnings *[]string, measure func(workload) (*W, error)) []*W {
	var out []*W
	for _, w := range selected {
		m, err := measure(w)
		if err != nil {
			*warnings = append(*warnings, fmt.Sprintf("%s: %v", w.Pkg, firstLine(err.Error())))
			h.log("%s: %v", w.Pkg, err)
			continue
		}
		out = append(out, m)
	}
	return out
}

// savedRun is the results of a -builds, -wet, -slice or -wpp run, as
// -json saves them: one entry per workload measured.
type savedRun interface {
	Markdown() string
	// measured reports whether it has workloads, none of them null.
	measured() bool
}

func measured[W any](ws []*W) bool     { return len(ws) > 0 && !slices.Contains(ws, nil) }
func (r *buildResults) measured() bool { return measured(r.Workloads) }
func (r *wetResults) measured() bool   { return measured(r.Workloads) || r.Long != nil }
func (r *sliceResults) measured() bool { return measured(r.Workloads) || r.Long != nil }
func (r *wppResults) measured() bool   { return measured(r.Workloads) || r.Long != nil }

// readResults reads the results of a run of kind (its flag) that -json
// saved in file, saying on stderr why it cannot: a file that is not JSON,
// or has no workload, or a null one.
func readResults[R any, P interface {
	*R
	savedRun
}](file, kind string, stderr io.Writer) (P, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return nil, false
	}
	r := P(new(R))
	if err := json.Unmarshal(data, r); err != nil {
		fmt.Fprintf(stderr, "bench: %s: %v\n", file, err)
		return nil, false
	}
	if !r.measured() {
		fmt.Fprintf(stderr, "bench: %s: not the JSON of a %s run\n", file, kind)
		return nil, false
	}
	return r, true
}

// writeResults prints a run's Markdown and writes its outputs
// (writeOutputs), returning the exit code.
func writeResults(r interface{ Markdown() string }, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	md := r.Markdown()
	fmt.Fprint(stdout, md)
	if err := writeOutputs(r, md, jsonOut, mdOut, readme, section); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	return 0
}

// writeOutputs writes a run's results r as JSON to jsonOut, its Markdown
// md to mdOut, and md into section of the page readme
// (docs/performance.md), where given.
func writeOutputs(r any, md, jsonOut, mdOut, readme, section string) error {
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
		if err := os.WriteFile(readme, []byte(s), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// quickDefaults are -quick's: 3 rounds of 50ms, no cold builds, for the
// flags not given.
func quickDefaults(set map[string]bool, rounds *int, benchtime *string, cold *int) {
	if !set["rounds"] {
		*rounds = 3
	}
	if !set["benchtime"] {
		*benchtime = "50ms"
	}
	if !set["cold"] {
		*cold = 0
	}
}

// parseModes reads -modes: plain, then each mode named, once.
func parseModes(list string) ([]string, error) {
	chosen := []string{"plain"}
	for _, m := range strings.Split(list, ",") {
		if m == "plain" {
			continue // always measured
		}
		if !slices.Contains(allModes[1:], m) || slices.Contains(chosen, m) {
			return nil, fmt.Errorf("%q is not one of %s, or twice", m, strings.Join(allModes[1:], ", "))
		}
		chosen = append(chosen, m)
	}
	return chosen, nil
}

// selectWorkloads returns the workloads whose import path matches re: only
// -quick's with quickOnly, and with parallel those with RunParallel
// benchmarks, which they then time.
func selectWorkloads(re *regexp.Regexp, quickOnly, parallel bool) []workload {
	var selected []workload
	for _, w := range workloads {
		if parallel {
			if w.Parallel == "" {
				continue
			}
			w.Bench = w.Parallel
		}
		if re.MatchString(w.Pkg) && (!quickOnly || w.Quick) {
			selected = append(selected, w)
		}
	}
	return selected
}

// A measurement is what a run of bench measures: overhead (""), or what
// one of -wpp, -wet, -slice, -builds asks for instead.
type measurement string

func measurementOf(wpp, wet, slice, builds, infeasible, vet, hot, modeSwitch, fleet, module bool) measurement {
	switch {
	case module:
		return "module"
	case fleet:
		return "fleet"
	case modeSwitch:
		return "switch"
	case hot:
		return "hot"
	case vet:
		return "vet"
	case infeasible:
		return "infeasible"
	case builds:
		return "builds"
	case wet:
		return "wet"
	case slice:
		return "slice"
	case wpp:
		return "wpp"
	}
	return ""
}

// section is the section of docs/performance.md that a measurement fills
// by default.
func (m measurement) section() string {
	if m == "" {
		return "bench"
	}
	return "bench-" + string(m)
}

// render is the function that renders a measurement's saved results.
func (m measurement) render() func(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	switch m {
	case "builds":
		return renderBuilds
	case "wet":
		return renderWET
	case "slice":
		return renderSlice
	case "wpp":
		return renderWPP
	case "hot":
		return renderHot
	case "infeasible":
		return renderInfeasible
	case "vet":
		return renderVet
	case "fleet":
		return renderFleet
	case "module":
		return renderModule
	case "switch":
		return renderSwitch
	}
	return render
}

// defaultSection is the markers -readme replaces when -section is not
// given: a long run's table has its own (bench-wpp-long beside
// bench-wpp), so that the command docs/performance.md prints for it
// leaves the workloads' table alone.
// savedLongRun reports whether the results saved in file (-json) are of a
// long run (-long), whose table -from renders into the long run's section
// without -long being given again.
func savedLongRun(file string) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		return false // the renderer says why
	}
	var probe struct{ Long json.RawMessage }
	return json.Unmarshal(data, &probe) == nil && len(probe.Long) > 0 && string(probe.Long) != "null"
}

func defaultSection(kind measurement, parallel, long bool) string {
	switch {
	case parallel && kind == "":
		return "bench-parallel"
	case long && (kind == "wpp" || kind == "wet" || kind == "slice"):
		return kind.section() + "-long"
	}
	return kind.section()
}
