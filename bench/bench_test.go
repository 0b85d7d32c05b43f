package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

func TestParseBenchmarks(t *testing.T) {
	out := []byte(`goos: linux
goarch: amd64
pkg: strconv
cpu: Intel(R) Xeon(R) Processor
BenchmarkQuote-2              	  412342	      2895 ns/op
BenchmarkAppendFloat/Decimal-2	 1000000	        51.20 ns/op	       0 B/op	       0 allocs/op
BenchmarkEncode/Newton/Speed/1e5-16 	     100	  11003100 ns/op	   9.09 MB/s
BenchmarkBroken-2 --- FAIL: BenchmarkBroken
BenchmarkNoTime-2             	     100	        12.0 MB/s
PASS
ok  	strconv	3.1s
`)
	got := parseBenchmarks(out)
	want := map[string]float64{
		"BenchmarkQuote":                   2895,
		"BenchmarkAppendFloat/Decimal":     51.2,
		"BenchmarkEncode/Newton/Speed/1e5": 11003100,
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %v, want %v", k, got[k], v)
		}
	}
}

func TestStatistics(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median odd: %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median even: %v", m)
	}
	if !math.IsNaN(median(nil)) || !math.IsNaN(geomean(nil)) {
		t.Error("median or geomean of nothing is not NaN")
	}
	if g := geomean([]float64{1, 4, 16}); math.Abs(g-4) > 1e-12 {
		t.Errorf("geomean: %v", g)
	}
	// Round 2 of a is missing (0): only rounds 1 and 3 pair up.
	if r := pairedRatio([]float64{2, 0, 9}, []float64{1, 5, 3}); r != 2.5 {
		t.Errorf("pairedRatio: %v, want median of 2 and 3", r)
	}
	if r := pairedRatio([]float64{2}, []float64{1, 1}); r != 2 {
		t.Errorf("pairedRatio of unequal lengths: %v", r)
	}
}

// TestSummarize checks the summaries and targets on made-up figures whose
// results follow by hand.
func TestSummarize(t *testing.T) {
	r := &results{Modes: modes[1:]}
	// Two benchmarks, two rounds. bl is 1.1× and 1.3× plain in benchmark
	// a's rounds (median 1.2), and 1.0× in b's; count 1.5× in both.
	r.Benchmarks = []*benchResult{
		{Workload: "w", Name: "a", NsPerOp: map[string][]float64{
			"plain": {100, 200}, "bl": {110, 260}, "count": {150, 300}, "ppp": {105, 210},
			"atomic": {300, 600}, "blatomic": {200, 400},
		}},
		{Workload: "w", Name: "b", NsPerOp: map[string][]float64{
			"plain": {10, 10}, "bl": {10, 10}, "count": {15, 15}, "ppp": {10, 10},
			"atomic": {30, 30}, "blatomic": {20, 20},
		}},
	}
	r.Sizes = []*binarySizes{{Workload: "w", Bytes: map[string]int64{"plain": 100, "bl": 120, "blatomic": 120, "ppp": 140, "count": 110, "atomic": 110}}}
	r.Builds = []*coldBuilds{{Workload: "w", Seconds: map[string][]float64{"plain": {10, 20}, "bl": {12, 26}, "ppp": {12, 24}, "count": {10, 20}}}}
	r.Increments = []*incrementCounts{{Workload: "w", Naive: 30, Optimized: 10}, {Workload: "v", Naive: 20, Optimized: 10}}
	r.summarize()
	bl, _ := r.mode("bl")
	if math.Abs(bl.MedianOverhead-0.1) > 1e-9 { // median of 1.2 and 1.0
		t.Errorf("bl median overhead %v, want 0.1", bl.MedianOverhead)
	}
	if want := math.Sqrt(1.2) - 1; math.Abs(bl.GeomeanOverhead-want) > 1e-9 {
		t.Errorf("bl geomean overhead %v, want %v", bl.GeomeanOverhead, want)
	}
	if bl.SizeRatio != 1.2 || bl.BuildRatio != 1.25 { // builds: median of 1.2 and 1.3
		t.Errorf("bl size %v, build %v", bl.SizeRatio, bl.BuildRatio)
	}
	met := map[string]bool{}
	for _, tg := range r.Targets {
		met[strings.Fields(tg.Name)[0]+" "+tg.Goal] = tg.Met
	}
	want := map[string]bool{
		"Ball-Larus ≤ -covermode=count's": true,  // 10% ≤ 50%
		"PPP ≤ 10%":                       true,  // median of 5% and 0%
		"atomic ≤ -covermode=atomic's":    true,  // 100% ≤ 200%
		"register ≥ 3×":                   false, // median of 3× and 2×
		"binary ≤ 1.3×":                   false, // ppp 1.4×
		"cold ≤ 1.5×":                     true,  // 1.25×
	}
	for k, v := range want {
		if got, ok := met[k]; !ok || got != v {
			t.Errorf("target %q: met %v (present %v), want %v; all: %+v", k, got, ok, v, r.Targets)
		}
	}
}

// TestIssue19Targets checks the serial targets of issue 19 on made-up
// figures: one benchmark where Ball-Larus leads count by 80 points, and
// IPPP at several times PPP's overhead.
func TestIssue19Targets(t *testing.T) {
	r := &results{Modes: []string{"count", "bl", "ppp", "ippp"}}
	// Ratios to plain, each the same in both rounds: a: count 1.5, bl 1.2,
	// ppp 1.05, ippp 1.3; b: count 1.2, bl 2.0, ppp 1.0, ippp 1.0.
	r.Benchmarks = []*benchResult{
		{Workload: "w", Name: "a", NsPerOp: map[string][]float64{
			"plain": {100, 100}, "count": {150, 150}, "bl": {120, 120}, "ppp": {105, 105}, "ippp": {130, 130},
		}},
		{Workload: "w", Name: "b", NsPerOp: map[string][]float64{
			"plain": {10, 10}, "count": {12, 12}, "bl": {20, 20}, "ppp": {10, 10}, "ippp": {10, 10},
		}},
	}
	r.Sizes = []*binarySizes{{Workload: "w", Bytes: map[string]int64{"plain": 100, "ppp": 110, "ippp": 124}}, {Workload: "v", Bytes: map[string]int64{"plain": 100, "ippp": 126}}}
	r.summarize()
	got := targetsByName(r)
	for _, w := range []struct {
		name, measured string
		met            bool
	}{
		// Medians: count 1.35, bl 1.6, ppp 1.025, ippp 1.15.
		{"Ball-Larus overhead, median", "+60.0% against +35.0%", false},
		{"PPP overhead, median", "+2.5% against +35.0%", true},
		{"Ball-Larus overhead, geomean", "+54.9% against +34.2%", false}, // √2.4, √1.8
		{"PPP overhead, geomean", "+2.5% against +34.2%", true},
		{"Ball-Larus's largest lead over -covermode=count, one benchmark", "+80.0 points (w b)", false},
		{"PPP's largest lead over -covermode=count, one benchmark", "-20.0 points (w b)", true},
		{"IPPP overhead, median", "+15.0% against +2.5% (6.0×)", false},
		{"IPPP overhead, geomean", "+14.0% against +2.5% (5.7×)", false}, // √1.3−1 = 0.1402, √1.05−1 = 0.0247
		{"IPPP binary size over plain, largest", "1.26×", false},
	} {
		g, ok := got[w.name]
		if !ok || g.Measured != w.measured || g.Met != w.met {
			t.Errorf("target %q: %+v (present %v), want measured %q, met %v", w.name, g, ok, w.measured, w.met)
		}
	}
}

func TestSpliceReadme(t *testing.T) {
	in := "a\n<!-- bench:begin -->\nold\n<!-- bench:end -->\nb\n"
	got, err := spliceReadme(in, "bench", "new\n")
	if err != nil || got != "a\n<!-- bench:begin -->\nnew\n<!-- bench:end -->\nb\n" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := spliceReadme("no markers", "bench", "x"); err == nil {
		t.Error("no error without markers")
	}
}

// TestReadmeTable checks that the performance tables of docs/performance.md
// are ones the harness wrote (-readme docs/performance.md).
func TestReadmeTable(t *testing.T) {
	data, err := os.ReadFile("../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	withTargets := map[string]bool{"bench": true, "bench-ippp": true, "bench-tail": true, "bench-builds": true, "bench-parallel": true}
	for _, section := range []string{
		"bench", "bench-tail", "bench-parallel", "bench-parallel-1p", "bench-builds", "bench-ippp",
		"bench-wpp", "bench-recording", "bench-slice", "bench-wet", "bench-wet-long", "bench-slice-long", "bench-wpp-long", "bench-recording-wet",
		"bench-infeasible", "bench-vet", "bench-production", "bench-hot", "bench-pgo", "bench-module",
	} {
		_, rest, ok := strings.Cut(string(data), "<!-- "+section+":begin -->\n")
		table, _, ok2 := strings.Cut(rest, "<!-- "+section+":end -->")
		if !ok || !ok2 {
			t.Fatalf("docs/performance.md has no %s markers", section)
		}
		if !strings.HasPrefix(table, "Measured by `go run ./bench") {
			t.Errorf("the %s table of docs/performance.md does not say how it was measured:\n%s", section, table)
		}
		if withTargets[section] && !strings.Contains(table, "| target | goal | measured | met |") {
			t.Errorf("the %s table of docs/performance.md does not come from the harness:\n%s", section, table)
		}
	}
}

// TestHarness runs the harness on the example's benchmarks, one short round,
// and checks that every mode was built and timed, and that the increments
// it reports equal those counted path by path: each path's count times the
// increments on its decoded edges.
func TestHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds six test binaries")
	}
	work := t.TempDir()
	jsonFile := filepath.Join(work, "results.json")
	var stdout, stderr bytes.Buffer
	code := benchMain([]string{"-run", "example/expr$", "-rounds", "1", "-benchtime", "100x", "-cold", "0",
		"-work", work, "-json", jsonFile}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	var r results
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) > 0 {
		t.Errorf("warnings: %q", r.Warnings)
	}
	if len(r.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks, want BenchmarkEval and BenchmarkLex", len(r.Benchmarks))
	}
	for _, b := range r.Benchmarks {
		for _, m := range modes {
			if len(b.NsPerOp[m]) != 1 || b.NsPerOp[m][0] <= 0 {
				t.Errorf("%s %s: ns/op %v", b.Name, m, b.NsPerOp[m])
			}
		}
	}
	for _, m := range modes {
		if r.Sizes[0].Bytes[m] <= 0 {
			t.Errorf("%s: no binary size", m)
		}
	}
	if !strings.Contains(stdout.String(), "| target | goal | measured | met |") {
		t.Errorf("no Markdown on stdout:\n%s", stdout.String())
	}

	if len(r.Increments) != 1 {
		t.Fatalf("increments: %+v", r.Increments)
	}
	p, problems, err := profile.Load(filepath.Join(work, "increments", "github.com_pathcover_pathcover_example_expr"))
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	var naive, optimized float64
	for hash, m := range p.Metas {
		for fn := range m.Funcs {
			mf := &m.Funcs[fn]
			n, err := mf.Numbering()
			if err != nil {
				t.Fatal(err)
			}
			pl, err := n.Place(nil)
			if err != nil {
				t.Fatal(err)
			}
			for id, c := range p.Counts[hash][fn] {
				path, err := n.Decode(id)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range path {
					if n.Weight(e) != 0 {
						naive += float64(c)
					}
					if op, ok := pl.Op(e); ok && (op.Kind == numbering.OpAdd || op.Kind == numbering.OpSet) && op.Inc != 0 {
						optimized += float64(c)
					}
				}
			}
		}
	}
	if in := r.Increments[0]; in.Naive != naive || in.Optimized != optimized || naive == 0 {
		t.Errorf("increments: harness %v naive, %v optimized; path by path %v, %v", in.Naive, in.Optimized, naive, optimized)
	}
}

// TestRender checks that -from renders a saved run again, with the flags
// that chose its workloads in the heading, and refuses what is not a run.
func TestRender(t *testing.T) {
	dir := t.TempDir()
	r := &results{Date: "2026-01-02", Machine: "m", Rounds: 1, Benchtime: "1x", Modes: modes[1:],
		Selection: []string{`-run="strconv"`},
		Benchmarks: []*benchResult{{Workload: "w", Name: "BenchmarkA", NsPerOp: map[string][]float64{
			"plain": {100}, "bl": {150}, "count": {120}, "ppp": {105}, "atomic": {300}, "blatomic": {200},
		}}}}
	data, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "run.json")
	readme := filepath.Join(dir, "performance.md")
	if err := os.WriteFile(saved, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(readme, []byte("x\n<!-- bench:begin -->\n<!-- bench:end -->\ny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := benchMain([]string{"-from", saved, "-readme", readme}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, _ := os.ReadFile(readme)
	for _, want := range []string{"Measured by `go run ./bench -run=\"strconv\"` on 2026-01-02", "| w A | +20.0% | +200.0% | +50.0% | +100.0% | +5.0% |", "\ny\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the page lacks %q:\n%s", want, got)
		}
	}

	for name, content := range map[string]string{"empty.json": "{}", "bad.json": "{\"Benchmarks\": ["} {
		f := filepath.Join(dir, name)
		os.WriteFile(f, []byte(content), 0o644)
		stderr.Reset()
		if code := benchMain([]string{"-from", f}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), name) {
			t.Errorf("-from %s: exit %d, stderr %q; want 1 and the file named", name, code, stderr.String())
		}
	}
}

// FuzzRender feeds the results reader anything: it may refuse, never panic.
func FuzzRender(f *testing.F) {
	f.Add([]byte(`{"Modes":["bl"],"Benchmarks":[{"NsPerOp":{"plain":[1],"bl":[0,2]}}],"Increments":[{"Naive":1}]}`))
	f.Add([]byte(`{"Benchmarks":[null],"Sizes":[null],"Builds":[{"Seconds":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		f := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		render(f, io.Discard, io.Discard, "", "", "", "bench")
	})
}

// FuzzRenderSlice renders any JSON as a -slice run's: an error or a table,
// never a panic.
func FuzzRenderSlice(f *testing.F) {
	f.Add([]byte(`{"Workloads":[{"Workload":"p","Nodes":3,"FPBytes":100,"OPTBytes":10,"OPTSliceMs":0.5,"Criteria":2,"LPCriteria":1},{"Workload":"q","FPTooLarge":true}]}`))
	f.Add([]byte(`{"Workloads":[null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		f := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		renderSlice(f, io.Discard, io.Discard, "", "", "", "bench-slice")
	})
}

// FuzzRenderWET renders any JSON as a -wet run's: an error or a table,
// never a panic.
func FuzzRenderWET(f *testing.F) {
	f.Add([]byte(`{"Workloads":[{"Workload":"p","Statements":300,"Tier1Words":100,"Tier2Bytes":70,"ValueBytes":30,"RecordBytes":400}]}`))
	f.Add([]byte(`{"Workloads":[{"Workload":"p"}]}`))
	f.Add([]byte(`{"Workloads":[null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		f := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		renderWET(f, io.Discard, io.Discard, "", "", "", "bench-wet")
	})
}

// FuzzRenderBuilds renders any JSON as a -builds run's: an error or a
// table, never a panic.
func FuzzRenderBuilds(f *testing.F) {
	f.Add([]byte(`{"Rounds":2,"Workloads":[{"Workload":"m","Cold":{"plain":[10,12],"bl":[11,0],"ppp":[12]},"Rebuild":{"plain":[0.5,0.4],"ppp":[2,1.5],"ppp-nocache":[20]}}]}`))
	f.Add([]byte(`{"Workloads":[null]}`))
	f.Add([]byte(`{"Workloads":[{"Cold":null,"Rebuild":{"ppp":[1e308,-1]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		f := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		renderBuilds(f, io.Discard, io.Discard, "", "", "", "bench-builds")
	})
}

// TestBuildsMarkdown: the ratios of a -builds run are medians over rounds
// of each round's ratio, then over workloads, and a target missed says so.
func TestBuildsMarkdown(t *testing.T) {
	r := &buildResults{Rounds: 2, Workloads: []*buildWorkload{
		{Workload: "a", Cold: map[string][]float64{"plain": {10, 20}, "bl": {11, 22}, "ppp": {12, 24}},
			Rebuild: map[string][]float64{"plain": {1, 2}, "ppp": {1.2, 2.4}, "ppp-buildid": {5, 10}, "ppp-nocache": {10, 20}}},
		{Workload: "b", Cold: map[string][]float64{"plain": {10, 10}, "bl": {10, 10}, "ppp": {13, 13}},
			Rebuild: map[string][]float64{"plain": {1, 1}, "ppp": {2, 2}, "ppp-buildid": {7, 7}, "ppp-nocache": {30, 30}}},
	}}
	md := r.Markdown()
	for _, want := range []string{
		"| a | 1.0, 2.0 | 1.2, 2.4 | 1.20× | 5.0, 10.0 | 5.00× | 10.0, 20.0 | 10.00× |",
		"| b | 1.0, 1.0 | 2.0, 2.0 | 2.00× | 7.0, 7.0 | 7.00× | 30.0, 30.0 | 30.00× |",
		"warm caches, median | ≤ 1.5× | 1.60× | **no** |",  // median of 1.2 and 2
		"larger of bl and ppp | ≤ 1.2× | 1.25× | **no** |", // ppp: median of 1.2 and 1.3
		"takes 6.00× the plain one, and 20.00× without",    // medians of 5 and 7, 10 and 30
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestSwitchMarkdown: the mode-switch table has a row per step with each
// round's seconds, the ratio of the medians, and the totals.
func TestSwitchMarkdown(t *testing.T) {
	r := &switchResults{Date: "2026-11-28", Machine: "m", GoVersion: "go1.26.8", Rounds: 2, Base: "aaa", Head: "bbb",
		Selection: []string{"-switch", "-base=aaa"}, Steps: []string{"first", "-wpp"},
		Seconds: map[string]map[string][]float64{
			"base": {"first": {100, 120}, "-wpp": {60, 80}},
			"head": {"first": {90, 110}, "-wpp": {10, 20}},
		}}
	md := r.Markdown()
	for _, want := range []string{
		"`go run ./bench -switch -base=aaa` on 2026-11-28",
		"| first | 100.0, 120.0 | 90.0, 110.0 | 0.91× |",
		"| -wpp | 60.0, 80.0 | 10.0, 20.0 | 0.21× |",
		"| all steps, medians | 180.0 | 115.0 | 0.64× |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
}

// TestWPPTargets: the whole-program-path targets are the median and the
// slowest compaction speed over workloads of 1 MB or more, and the
// slowest wpp hot over all.
func TestWPPTargets(t *testing.T) {
	r := &wppResults{Workloads: []*wppWorkload{
		{Workload: "a", RawBytes: 100 << 20, CompactSeconds: 1, HotSeconds: 0.5},
		{Workload: "b", RawBytes: 60 << 20, CompactSeconds: 2, HotSeconds: 1.5},
		{Workload: "c", RawBytes: 70 << 20, CompactSeconds: 1, HotSeconds: 0.2},
		{Workload: "tiny", RawBytes: 1 << 10, CompactSeconds: 1, HotSeconds: 0.1},
	}}
	got := r.targets()
	for _, want := range []string{
		"| ≥ 50 MB/s | 70.0 MB/s | yes |",
		"| ≥ 50 MB/s | 30.0 MB/s (b) | **no** |",
		"| < 1 s | 1.50 s (b) | **no** |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("targets lack %q:\n%s", want, got)
		}
	}
	r.Workloads[0].HotSeconds = 0 // a run older than the field
	if got := r.targets(); got != "" {
		t.Errorf("targets of an old run:\n%s", got)
	}
}

// TestPrintedCommandSection: the command a whole program paths, WET or
// slicing table says it was measured by writes, with -readme and no
// -section, into that table's markers (a long run's into its own, not
// over the workloads' table).
func TestPrintedCommandSection(t *testing.T) {
	data, err := os.ReadFile("../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []measurement{"wpp", "wet", "slice"} {
		for _, section := range []string{kind.section(), kind.section() + "-long"} {
			_, rest, ok := strings.Cut(string(data), "<!-- "+section+":begin -->\nMeasured by `go run ./bench ")
			args, _, ok2 := strings.Cut(rest, "`")
			if !ok || !ok2 {
				t.Fatalf("docs/performance.md has no %s table saying how it was measured", section)
			}
			fields := strings.Fields(args)
			if !slices.Contains(fields, "-"+string(kind)) {
				t.Errorf("%s: measured by %q, without -%s", section, args, kind)
			}
			long := slices.ContainsFunc(fields, func(f string) bool { return f == "-long" || strings.HasPrefix(f, "-long=") })
			if got := defaultSection(kind, false, long); got != section {
				t.Errorf("go run ./bench %s -readme docs/performance.md writes into the %s markers, not %s", args, got, section)
			}
		}
	}
}

// TestSavedLongRun: -from finds a long run's section by itself, from the
// results -json saved.
func TestSavedLongRun(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		json string
		long bool
	}{
		"long":    {`{"Date":"2026-12-03","Long":{"Lines":1000000}}`, true},
		"nolong":  {`{"Date":"2026-12-03","Workloads":[]}`, false},
		"null":    {`{"Long":null}`, false},
		"garbage": {`not json`, false},
	} {
		file := filepath.Join(dir, name+".json")
		if err := os.WriteFile(file, []byte(tc.json), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := savedLongRun(file); got != tc.long {
			t.Errorf("%s: savedLongRun = %v, want %v", name, got, tc.long)
		}
	}
	if savedLongRun(filepath.Join(dir, "none.json")) {
		t.Error("a missing file is a long run")
	}
}

// TestIssue48Targets checks the rows of issue 48's goals on made-up
// figures, worked out here: each met or not by its own rule.
func TestIssue48Targets(t *testing.T) {
	r := &results{Modes: []string{"bl", "blshard", "ppp", "ippp", "flight", "wpp", "deps", "wet"}}
	// Ratios to plain: a: bl 1.1, blshard 1.2, ppp 1.1, ippp 1.2, flight
	// 1.05, wpp 1.5, deps 5, wet 8; b: bl 1.3, blshard 1.3, ppp 1.2,
	// ippp 1.2, flight 1.6, wpp 2.5, deps 3, wet 12.
	r.Benchmarks = []*benchResult{
		{Workload: "w", Name: "a", NsPerOp: map[string][]float64{
			"plain": {100, 100}, "bl": {110, 110}, "blshard": {120, 120}, "ppp": {110, 110}, "ippp": {120, 120},
			"flight": {105, 105}, "wpp": {150, 150}, "deps": {500, 500}, "wet": {800, 800},
		}},
		{Workload: "w", Name: "b", NsPerOp: map[string][]float64{
			"plain": {10, 10}, "bl": {13, 13}, "blshard": {13, 13}, "ppp": {12, 12}, "ippp": {12, 12},
			"flight": {16, 16}, "wpp": {25, 25}, "deps": {30, 30}, "wet": {120, 120},
		}},
	}
	r.summarize()
	got := targetsByName(r)
	for _, w := range []struct {
		name, measured string
		met            bool
	}{
		// Medians of two: bl 1.2, blshard 1.25, ppp 1.15, ippp 1.2,
		// flight 1.325, wpp 2.0, deps 4.0, wet 10.0.
		{"flight overhead", "+32.5% median, +29.6% geomean, at most +60.0% (w b)", false}, // √(1.05·1.6) = 1.296
		{"wpp overhead", "2.00× (+100.0%)", true},
		{"deps overhead", "4.00× (+300.0%)", true},
		{"wet overhead", "10.00× (+900.0%)", true},
		{"IPPP overhead", "+20.0% against +15.0% (1.3×)", true},
		{"sharded overhead, serial", "+25.0% against +20.0% (+5.0 points)", true},
	} {
		g, ok := got[w.name]
		if !ok || g.Measured != w.measured || g.Met != w.met {
			t.Errorf("target %q: %+v (present %v), want measured %q, met %v", w.name, g, ok, w.measured, w.met)
		}
	}
}

// targetsByName returns r's targets by their names.
func targetsByName(r *results) map[string]targetResult {
	got := map[string]targetResult{}
	for _, tg := range r.Targets {
		got[tg.Name] = tg
	}
	return got
}
