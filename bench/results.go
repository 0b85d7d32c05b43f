package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// results is everything a run measured; -json writes it. (The types of
// this command are unexported: package main has no importers. Their fields
// are exported for encoding/json, and named as the JSON files have them.)
type results struct {
	Date      string // YYYY-MM-DD
	Machine   string // CPU model and count, OS and architecture
	GoVersion string
	Rounds    int
	Benchtime string
	Quick     bool
	// CPU is the benchmarks' -test.cpu (0 in results saved before it was
	// recorded: 1).
	CPU       int
	Selection []string // -run and -pppflags, as given
	Modes     []string // the modes compared with plain, in table order

	Benchmarks []*benchResult
	Summary    []modeSummary
	Sizes      []*binarySizes
	Builds     []*coldBuilds
	Increments []*incrementCounts
	Targets    []targetResult
	Warnings   []string // workloads or modes that could not be measured, and why
}

// A benchResult is one benchmark's times and ratios to plain per mode.
type benchResult struct {
	Workload string
	Name     string
	// NsPerOp holds each round's ns/op, per mode (plain included).
	NsPerOp map[string][]float64
	// Ratio is the median over rounds of time(mode)/time(plain) taken in
	// the same round, per mode.
	Ratio map[string]float64
}

// A modeSummary sums up one mode over all benchmarks.
type modeSummary struct {
	Mode string
	// MedianOverhead and GeomeanOverhead are the median and geometric mean
	// of the benchmarks' ratios, minus one.
	MedianOverhead  float64
	GeomeanOverhead float64
	// SizeRatio is the median over workloads of the test binary's size
	// over plain's, MaxSizeRatio the largest.
	SizeRatio, MaxSizeRatio float64
	// BuildRatio is the median over the cold builds measured of the build
	// time over plain's; 0 if not measured.
	BuildRatio float64
}

// binarySizes are one workload's test binary sizes in bytes, per mode.
type binarySizes struct {
	Workload string
	Bytes    map[string]int64
}

// coldBuilds are one workload's cold build times in seconds, per mode, one per
// round.
type coldBuilds struct {
	Workload string
	Seconds  map[string][]float64
}

// incrementCounts are one workload's register increments executed by its
// benchmarks, under the placement pppexec uses and under a naive one.
type incrementCounts struct {
	Workload string
	// Naive and Optimized count register increments (r += c and r = c with
	// c ≠ 0); NaiveOps and OptimizedOps count every register and counter
	// operation (increments, r = 0, count updates).
	Naive, Optimized       float64
	NaiveOps, OptimizedOps float64
	Funcs                  int // functions that ran
}

// Ratio is how many times fewer increments the placement executes.
func (in *incrementCounts) Ratio() float64 { return in.Naive / in.Optimized }

// A targetResult is one of the goals of issue 6 and whether this run met it.
type targetResult struct {
	Name     string
	Measured string
	Goal     string
	Met      bool
}

// check reports what keeps r, read back from JSON, from being summarized.
func (r *results) check() error {
	if len(r.Benchmarks) == 0 {
		return fmt.Errorf("no benchmarks")
	}
	for _, m := range r.Modes {
		if !slices.Contains(allModes[1:], m) {
			return fmt.Errorf("unknown mode %q", m)
		}
	}
	for _, b := range r.Benchmarks {
		if b == nil {
			return fmt.Errorf("a null benchmark")
		}
	}
	for _, s := range r.Sizes {
		if s == nil {
			return fmt.Errorf("null sizes")
		}
	}
	for _, b := range r.Builds {
		if b == nil {
			return fmt.Errorf("null builds")
		}
	}
	for _, in := range r.Increments {
		if in == nil {
			return fmt.Errorf("null increments")
		}
	}
	return nil
}

// median returns the median of xs, NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// mean returns the arithmetic mean of xs, NaN for none.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// geomean returns the geometric mean of positive xs, NaN for none.
func geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

// pairedRatio returns the median over rounds of a[i]/b[i], skipping rounds
// where either is missing (≤ 0).
func pairedRatio(a, b []float64) float64 {
	var rs []float64
	for i := range min(len(a), len(b)) {
		if a[i] > 0 && b[i] > 0 {
			rs = append(rs, a[i]/b[i])
		}
	}
	return median(rs)
}

// summarize fills in the ratios, the mode summaries and the targets.
func (r *results) summarize() {
	for _, b := range r.Benchmarks {
		b.Ratio = make(map[string]float64)
		for _, m := range r.Modes {
			if x := pairedRatio(b.NsPerOp[m], b.NsPerOp["plain"]); !math.IsNaN(x) {
				b.Ratio[m] = x
			}
		}
	}
	r.Summary = nil
	for _, m := range r.Modes {
		s := modeSummary{Mode: m}
		var ratios, sizes, builds []float64
		for _, b := range r.Benchmarks {
			if x, ok := b.Ratio[m]; ok {
				ratios = append(ratios, x)
			}
		}
		for _, z := range r.Sizes {
			if z.Bytes[m] > 0 && z.Bytes["plain"] > 0 {
				sizes = append(sizes, float64(z.Bytes[m])/float64(z.Bytes["plain"]))
			}
		}
		for _, bl := range r.Builds {
			if x := pairedRatio(bl.Seconds[m], bl.Seconds["plain"]); !math.IsNaN(x) {
				builds = append(builds, x)
			}
		}
		s.MedianOverhead = median(ratios) - 1
		s.GeomeanOverhead = geomean(ratios) - 1
		s.SizeRatio = median(sizes)
		if len(sizes) > 0 {
			s.MaxSizeRatio = slices.Max(sizes)
		}
		if len(builds) > 0 {
			s.BuildRatio = median(builds)
		}
		r.Summary = append(r.Summary, s)
	}
	r.Targets = r.targets()
}

func (r *results) mode(name string) (modeSummary, bool) {
	for _, s := range r.Summary {
		if s.Mode == name {
			return s, !math.IsNaN(s.MedianOverhead)
		}
	}
	return modeSummary{}, false
}

// targets checks the goals of issue 6 against the figures.
func (r *results) targets() []targetResult {
	var ts []targetResult
	chosen := func(modes ...string) bool {
		for _, m := range modes {
			if slices.Contains(r.Modes, m) {
				return true
			}
		}
		return false
	}
	add := func(name, goal string, have bool, measured string, met bool) {
		if !have {
			measured, met = "not measured", false
		}
		ts = append(ts, targetResult{Name: name, Goal: goal, Measured: measured, Met: met})
	}
	bl, okBL := r.mode("bl")
	count, okCount := r.mode("count")
	if r.CPU > 1 {
		r.parallelTargets(chosen, add)
		return ts
	}
	// A target whose modes were not chosen (-modes) is left out.
	if chosen("bl") && chosen("count") {
		add("Ball-Larus overhead, median", "≤ -covermode=count's", okBL && okCount,
			fmt.Sprintf("%s against %s", pct(bl.MedianOverhead), pct(count.MedianOverhead)), bl.MedianOverhead <= count.MedianOverhead)
	}
	ppp, okPPP := r.mode("ppp")
	if chosen("ppp") {
		add("PPP overhead, median", "≤ 10%", okPPP, pct(ppp.MedianOverhead), ppp.MedianOverhead <= 0.10)
	}
	bla, okBLA := r.mode("blatomic")
	atomic, okAtomic := r.mode("atomic")
	if chosen("blatomic") && chosen("atomic") {
		add("atomic Ball-Larus overhead, median", "≤ -covermode=atomic's", okBLA && okAtomic,
			fmt.Sprintf("%s against %s", pct(bla.MedianOverhead), pct(atomic.MedianOverhead)), bla.MedianOverhead <= atomic.MedianOverhead)
	}
	var incs []float64
	for _, in := range r.Increments {
		if in.Optimized > 0 {
			incs = append(incs, in.Ratio())
		}
	}
	m := median(incs)
	if chosen("bl") {
		add("register increments, naive over optimized placement, median over workloads", "≥ 3×", len(incs) > 0, fmt.Sprintf("%.2f×", m), m >= 3)
	}
	maxSize := 0.0
	for _, mode := range []string{"bl", "blatomic", "ppp"} {
		if s, ok := r.mode(mode); ok {
			maxSize = max(maxSize, s.MaxSizeRatio)
		}
	}
	if chosen("bl", "blatomic", "ppp") {
		add("binary size over plain, largest of bl, blatomic and ppp", "≤ 1.3×", maxSize > 0, fmt.Sprintf("%.2f×", maxSize), maxSize <= 1.3)
	}
	build := 0.0
	for _, mode := range []string{"bl", "ppp"} {
		if s, ok := r.mode(mode); ok {
			build = max(build, s.BuildRatio)
		}
	}
	if len(r.Builds) > 0 && chosen("bl", "ppp") {
		add("cold build time over plain, median, larger of bl and ppp", "≤ 1.5×", build > 0, fmt.Sprintf("%.2f×", build), build <= 1.5)
	}
	r.serialTargets(chosen, add)
	r.productionTargets(chosen, add)
	return ts
}

// serialTargets are the goals of issue 19 for benchmarks on one P: Ball-Larus
// and PPP cheaper than statement coverage (at the median by half, in the
// geometric mean, and on every benchmark within 25 points), and IPPP
// within a small factor of PPP.
func (r *results) serialTargets(chosen func(...string) bool, add func(name, goal string, have bool, measured string, met bool)) {
	count, okCount := r.mode("count")
	for _, m := range []struct{ mode, name string }{{"bl", "Ball-Larus"}, {"ppp", "PPP"}} {
		if !chosen(m.mode) || !chosen("count") {
			continue
		}
		s, ok := r.mode(m.mode)
		against := func(x, y float64) string { return pct(x) + " against " + pct(y) }
		add(m.name+" overhead, median", "≤ ½ of -covermode=count's", ok && okCount,
			against(s.MedianOverhead, count.MedianOverhead), s.MedianOverhead <= count.MedianOverhead/2)
		add(m.name+" overhead, geomean", "≤ -covermode=count's", ok && okCount,
			against(s.GeomeanOverhead, count.GeomeanOverhead), s.GeomeanOverhead <= count.GeomeanOverhead)
		lead, where := r.largestLead(m.mode, "count")
		add(m.name+"'s largest lead over -covermode=count, one benchmark", "≤ 25 points", where != "",
			fmt.Sprintf("%+.1f points (%s)", 100*lead, where), lead <= 0.25)
	}
	if !chosen("ippp") || !chosen("ppp") {
		return
	}
	ippp, okIPPP := r.mode("ippp")
	ppp, okPPP := r.mode("ppp")
	add("IPPP overhead, median", "≤ 1.3× PPP's", okIPPP && okPPP,
		fmt.Sprintf("%s against %s (%.1f×)", pct(ippp.MedianOverhead), pct(ppp.MedianOverhead), ippp.MedianOverhead/ppp.MedianOverhead),
		ippp.MedianOverhead <= 1.3*ppp.MedianOverhead)
	add("IPPP overhead, geomean", "≤ 1.5× PPP's", okIPPP && okPPP,
		fmt.Sprintf("%s against %s (%.1f×)", pct(ippp.GeomeanOverhead), pct(ppp.GeomeanOverhead), ippp.GeomeanOverhead/ppp.GeomeanOverhead),
		ippp.GeomeanOverhead <= 1.5*ppp.GeomeanOverhead)
	add("IPPP binary size over plain, largest", "≤ 1.25×", ippp.MaxSizeRatio > 0,
		fmt.Sprintf("%.2f×", ippp.MaxSizeRatio), ippp.MaxSizeRatio <= 1.25)
}

// largestLead returns the largest amount by which mode's overhead exceeds
// other's on one benchmark, and that benchmark ("" if none has both).
func (r *results) largestLead(mode, other string) (lead float64, where string) {
	for _, b := range r.Benchmarks {
		x, ok1 := b.Ratio[mode]
		y, ok2 := b.Ratio[other]
		if ok1 && ok2 && (where == "" || x-y > lead) {
			lead, where = x-y, b.Workload+" "+b.Name
		}
	}
	return lead, where
}

// parallelTargets are the goals of issue 19 for the RunParallel
// benchmarks on several Ps (-parallel), where every goroutine counts at
// once: path profiling no dearer than statement coverage, and atomic
// Ball-Larus a quarter of -covermode=atomic at most.
func (r *results) parallelTargets(chosen func(...string) bool, add func(name, goal string, have bool, measured string, met bool)) {
	count, okCount := r.mode("count")
	for _, m := range []struct{ mode, name string }{{"bl", "Ball-Larus"}, {"ppp", "PPP"}, {"blshard", "Ball-Larus with -shard=p"}, {"pppshard", "PPP with -shard=p"}} {
		s, ok := r.mode(m.mode)
		if !chosen(m.mode) || !chosen("count") {
			continue
		}
		add(fmt.Sprintf("%s overhead at -test.cpu=%d, median", m.name, r.CPU), "≤ -covermode=count's", ok && okCount,
			fmt.Sprintf("%s against %s", pct(s.MedianOverhead), pct(count.MedianOverhead)), s.MedianOverhead <= count.MedianOverhead)
		add(fmt.Sprintf("%s overhead at -test.cpu=%d, geomean", m.name, r.CPU), "≤ -covermode=count's", ok && okCount,
			fmt.Sprintf("%s against %s", pct(s.GeomeanOverhead), pct(count.GeomeanOverhead)), s.GeomeanOverhead <= count.GeomeanOverhead)
	}
	atomic, okAtomic := r.mode("atomic")
	for _, m := range []struct{ mode, name string }{{"blatomic", "atomic Ball-Larus"}, {"blatomicshard", "atomic Ball-Larus with -shard=p"}} {
		bla, okBLA := r.mode(m.mode)
		if !chosen(m.mode) || !chosen("atomic") {
			continue
		}
		add(fmt.Sprintf("%s overhead at -test.cpu=%d, median", m.name, r.CPU), "≤ ¼ of -covermode=atomic's", okBLA && okAtomic,
			fmt.Sprintf("%s against %s", pct(bla.MedianOverhead), pct(atomic.MedianOverhead)), bla.MedianOverhead <= atomic.MedianOverhead/4)
	}
}

// productionTargets adds the targets of the production modes (issue 21):
// the flight recorder's, and the hot path tables' against arrays and
// against hash tables for the same functions.
func (r *results) productionTargets(chosen func(...string) bool, add func(name, goal string, have bool, measured string, met bool)) {
	r.costTargets(chosen, add)
	ht, ok := r.mode("hot")
	if !ok && !chosen("hot") {
		return
	}
	bl, okBL := r.mode("bl")
	add("hot path tables' overhead, median, against Ball-Larus arrays", "≤ bl's", ok && okBL, pct(ht.MedianOverhead)+" vs "+pct(bl.MedianOverhead), ht.MedianOverhead <= bl.MedianOverhead)
	if hs, okHash := r.mode("hash"); okHash {
		add("hot path tables' overhead, median, against hash tables for the same functions", "≤ hash's", ok, pct(ht.MedianOverhead)+" vs "+pct(hs.MedianOverhead), ht.MedianOverhead <= hs.MedianOverhead)
	}
}

// costTargets are the goals of issue 48, on one P, each a row met or not:
// a flight recorder cheap enough to leave on, recording modes a suite can
// afford, IPPP near PPP, and counters per P nearly as cheap as one copy.
func (r *results) costTargets(chosen func(...string) bool, add func(name, goal string, have bool, measured string, met bool)) {
	if f, ok := r.mode("flight"); ok || chosen("flight") {
		worst, where := r.largestOverhead("flight")
		add("flight overhead", "≤ +10% median, ≤ +15% geomean, every benchmark ≤ +50% (aim +5%)", ok && where != "",
			fmt.Sprintf("%s median, %s geomean, at most %s (%s)", pct(f.MedianOverhead), pct(f.GeomeanOverhead), pct(worst), where),
			f.MedianOverhead <= 0.10 && f.GeomeanOverhead <= 0.15 && worst <= 0.50)
	}
	for _, m := range []struct {
		mode, name string
		times      float64 // plain's time, at most
	}{{"wpp", "wpp overhead", 2}, {"deps", "deps overhead", 4}, {"wet", "wet overhead", 10}} {
		if s, ok := r.mode(m.mode); ok || chosen(m.mode) {
			add(m.name, fmt.Sprintf("≤ %g× plain, median", m.times), ok,
				fmt.Sprintf("%.2f× (%s)", 1+s.MedianOverhead, pct(s.MedianOverhead)), 1+s.MedianOverhead <= m.times)
		}
	}
	if chosen("ippp") && chosen("ppp") {
		ippp, okIPPP := r.mode("ippp")
		ppp, okPPP := r.mode("ppp")
		add("IPPP overhead", "≤ 1.5× PPP's, median", okIPPP && okPPP,
			fmt.Sprintf("%s against %s (%.1f×)", pct(ippp.MedianOverhead), pct(ppp.MedianOverhead), ippp.MedianOverhead/ppp.MedianOverhead),
			ippp.MedianOverhead <= 1.5*ppp.MedianOverhead)
	}
	if chosen("blshard") && chosen("bl") {
		sh, okSh := r.mode("blshard")
		bl, okBL := r.mode("bl")
		gap := 100 * (sh.MedianOverhead - bl.MedianOverhead)
		add("sharded overhead, serial", "≤ Ball-Larus's + 5 points, median", okSh && okBL,
			fmt.Sprintf("%s against %s (%+.1f points)", pct(sh.MedianOverhead), pct(bl.MedianOverhead), gap), gap <= 5)
	}
}

// largestOverhead returns mode's largest overhead over plain on one
// benchmark, and which ("" if none ran it).
func (r *results) largestOverhead(mode string) (worst float64, where string) {
	for _, b := range r.Benchmarks {
		if x, ok := b.Ratio[mode]; ok && (where == "" || x-1 > worst) {
			worst, where = x-1, b.Workload+" "+b.Name
		}
	}
	return worst, where
}

// pct formats an overhead in percent.
func pct(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%+.1f%%", 100*x)
}

// Markdown renders the results as tables.
func (r *results) Markdown() string {
	var b strings.Builder
	cmd := "go run ./bench"
	if r.Quick {
		cmd += " -quick"
	}
	for _, f := range r.Selection {
		cmd += " " + f
	}
	fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s: %d rounds, `-benchtime=%s`, `-test.cpu=%d`, modes in random order each round.\n\n",
		cmd, r.Date, r.Machine, r.GoVersion, r.Rounds, r.Benchtime, max(r.CPU, 1))
	b.WriteString("| mode | overhead, median | overhead, geomean | binary size | cold build |\n|---|---:|---:|---:|---:|\n")
	for _, s := range r.Summary {
		build := "–"
		if s.BuildRatio > 0 {
			build = fmt.Sprintf("%.2f×", s.BuildRatio)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f× (max %.2f×) | %s |\n", modeTitle[s.Mode], pct(s.MedianOverhead), pct(s.GeomeanOverhead), s.SizeRatio, s.MaxSizeRatio, build)
	}
	if len(r.Targets) > 0 {
		b.WriteString("\n| target | goal | measured | met |\n|---|---|---|---|\n")
	}
	for _, t := range r.Targets {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t.Name, t.Goal, t.Measured, map[bool]string{true: "yes", false: "**no**"}[t.Met])
	}
	if len(r.Increments) > 0 {
		b.WriteString("\n| workload | increments, naive | optimized | ratio | all register and counter ops, naive | optimized |\n|---|---:|---:|---:|---:|---:|\n")
		for _, in := range r.Increments {
			fmt.Fprintf(&b, "| %s | %.4g | %.4g | %.2f× | %.4g | %.4g |\n", in.Workload, in.Naive, in.Optimized, in.Ratio(), in.NaiveOps, in.OptimizedOps)
		}
	}
	if len(r.Builds) > 0 {
		b.WriteString("\nCold builds (`go test -c`, new GOCACHE), seconds per round:\n\n| workload |")
		cols := []string{"plain"}
		for _, m := range r.Modes {
			if slices.Contains(buildModes, m) || m == "ippp" {
				cols = append(cols, m)
			}
		}
		for _, m := range cols {
			fmt.Fprintf(&b, " %s |", m)
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(cols)) + "\n")
		for _, bl := range r.Builds {
			fmt.Fprintf(&b, "| %s |", bl.Workload)
			for _, m := range cols {
				var s []string
				for _, x := range bl.Seconds[m] {
					s = append(s, fmt.Sprintf("%.1f", x))
				}
				fmt.Fprintf(&b, " %s |", strings.Join(s, ", "))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n<details><summary>Overhead per benchmark</summary>\n\n| benchmark |")
	for _, m := range r.Modes {
		fmt.Fprintf(&b, " %s |", m)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(r.Modes)) + "\n")
	for _, bm := range r.Benchmarks {
		fmt.Fprintf(&b, "| %s %s |", bm.Workload, strings.TrimPrefix(bm.Name, "Benchmark"))
		for _, m := range r.Modes {
			x, ok := bm.Ratio[m]
			if !ok {
				x = math.NaN()
			}
			fmt.Fprintf(&b, " %s |", pct(x-1))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n</details>\n")
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "\nNot measured: %s\n", w)
	}
	return b.String()
}

var modeTitle = map[string]string{
	"count":         "`-covermode=count`",
	"atomic":        "`-covermode=atomic`",
	"bl":            "Ball-Larus",
	"blatomic":      "Ball-Larus, atomic",
	"blshard":       "Ball-Larus, counters per P (`-shard=p`)",
	"blatomicshard": "Ball-Larus, atomic, counters per P (`-shard=p -atomic`)",
	"pppshard":      "PPP, counters per P (`-shard=p`)",
	"ppp":           "PPP",
	"ippp":          "IPPP (PPP and supergraphs)",
	"wpp":           "Ball-Larus and whole program paths (`-wpp`)",
	"deps":          "slicing's recording (`-deps`: whole program paths and memory accesses)",
	"wet":           "whole execution traces' recording (`-wet`: `-deps` and values)",
	"flight":        "path flight recorder (`-flight=64`: each goroutine's last 64 paths, no counts)",
	"hash":          "Ball-Larus, functions past 16 paths in hash tables (`-arraylimit=16`)",
	"hot":           "Ball-Larus, functions past 16 paths in hot path tables (`-arraylimit=16 -hot=16`)",
	"pgocpu":        "PGO from a CPU profile of the benchmarks (`-pgo=cpu.pprof`)",
	"pgopaths":      "PGO from a path profile of the benchmarks (`pathcover export -format pgo`)",
}

// JSON is the results, indented.
func (r *results) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "\t") }

// spliceReadme replaces the lines between the begin and end markers of
// section in readme ("<!-- bench:begin -->" for section bench) with table;
// it fails if the markers are missing.
func spliceReadme(readme, section, table string) (string, error) {
	begin, end := "<!-- "+section+":begin -->\n", "<!-- "+section+":end -->"
	i := strings.Index(readme, begin)
	j := strings.Index(readme, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("no %q and %q lines", strings.TrimSpace(begin), end)
	}
	return readme[:i+len(begin)] + table + readme[j:], nil
}

func sortBenchmarks(bs []*benchResult, order map[string]int) {
	slices.SortStableFunc(bs, func(a, b *benchResult) int {
		return cmp.Or(cmp.Compare(order[a.Workload], order[b.Workload]), strings.Compare(a.Name, b.Name))
	})
}
