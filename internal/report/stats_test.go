package report

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pathcover/pathcover/internal/pkgpattern"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// chainFunc is a function of k if-statements in a row, none with an else:
// 2^k paths. If i's then edge comes first, with Ball-Larus weight 0, and
// its edge past the then branch second, with weight 2^(k−i) (the paths
// from there), so a path's id is the k-bit number b1…bk whose bit bi is 1
// when if i skips its then branch. The then and skip edges come in that
// order at every if, which the PPP derivations below rely on.
func chainFunc(t testing.TB, name string, line, k int) profile.Func {
	t.Helper()
	var g numbering.Graph
	conds := make([]numbering.BlockID, k+1)
	for i := range k {
		conds[i] = g.AddBlock()
	}
	exit := g.AddBlock()
	conds[k] = exit
	g.Entry, g.Exit = conds[0], exit
	kinds := []profile.EdgeKind{}
	for i := range k {
		then := g.AddBlock()
		g.AddEdge(conds[i], then, true)
		g.AddEdge(conds[i], conds[i+1], true)
		g.AddEdge(then, conds[i+1], true)
		kinds = append(kinds, "true", "false", "flow")
	}
	f := profile.Func{Name: name, Line: line, EndLine: line + 3*k, Entry: int32(g.Entry), Exit: int32(g.Exit)}
	for range g.NumBlocks {
		f.Blocks = append(f.Blocks, profile.Block{Kind: "body", Line: line})
	}
	for i, e := range g.Edges {
		f.Edges = append(f.Edges, profile.Edge{Src: int32(e.Src), Dst: int32(e.Dst), Probe: e.Probe, Kind: kinds[i], Line: line})
	}
	n, err := numbering.Number(&g, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Paths, f.Total = n.NumPaths(), n.Total().String()
	if f.Paths != 1<<k {
		t.Fatalf("chain of %d ifs has %d paths", k, f.Paths)
	}
	f.Counters = profile.Counters{Kind: "array", Size: int(f.Paths)}
	return f
}

// span returns ids 0, 1, …, n−1.
func span(n uint64) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i)
	}
	return ids
}

// blDelta is δ of Ball-Larus ids, computed from the ids the test chose.
func blDelta(ids []uint64) float64 {
	lo, hi := ids[0], ids[0]
	for _, id := range ids {
		lo, hi = min(lo, id), max(hi, id)
	}
	return float64(hi-lo+1) / float64(len(ids))
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(1, math.Abs(b)) }

// Interesting sets of the test profile, by Ball-Larus id (see chainFunc).
var (
	// A, 3 ifs: the path through every then branch and the path past
	// every one. Ball-Larus: δ = (7 − 0 + 1)/2 = 4. PPP: the two part at
	// the first if and nowhere else has two interesting paths with one
	// prefix, so every weight below it is 0 − 0 and the first if's skip
	// edge gets 1: ids 0 and 1, δ = 1.
	idsA3 = []uint64{0b000, 0b111}
	// B, 3 ifs, its ids split between two test variants:
	// {000, 001, 010} in one, {100, 110} in the other, merged
	// {0, 1, 2, 4, 6}: Ball-Larus δ = 7/5. PPP, bottom up, pid the partial
	// id of each path, prefixes told apart by their first bits:
	//   if 3: then edge, paths 000 010 100 110, each its own prefix: 0.
	//         skip edge, 001 (prefix 00, which has 1 id so far): 1 − 0 = 1.
	//         pids 000:0 001:1 010:0 100:0 110:0.
	//   if 2: then edge, prefix 0 has 000 001 (pids 0, 1), prefix 1 has
	//         100 (0): weight 0, and prefix 0 has 2 ids, prefix 1 has 1.
	//         skip edge, 010 (prefix 0) wants 2 − 0, 110 (prefix 1) wants
	//         1 − 0; the join takes 2, leaving a hole at 1 under prefix 1.
	//         pids 000:0 001:1 010:2 100:0 110:2.
	//   if 1: then edge, 000 001 010 with pids 0…2: weight 0, 3 ids.
	//         skip edge, 100 110 with pids 0 and 2: weight 3 − 0.
	//   ids 0 1 2 3 5: PPPSize 6, δ = 6/5; δ BL/δ PPP = (7/5)/(6/5) = 7/6.
	idsB1 = []uint64{0b000, 0b001, 0b010}
	idsB2 = []uint64{0b100, 0b110}
	// C, 1 if, and A again with 2 ifs, in the test variant (another
	// shape, so another function): one path each, δ = 1 under both.
	idsC  = []uint64{1}
	idsA2 = []uint64{0}
	// D, 6 ifs, a PPP build: the paths through the last then branch, the
	// even ids 0…62. Ball-Larus: δ = 63/32. PPP: the last if has no
	// interesting skip, so it weighs 0 and the paths are every
	// combination of the first five ifs once, which PPP numbers 0…31 as
	// Ball-Larus numbers all paths: δ = 1, δ BL/δ PPP = 63/32.
	idsD = func() []uint64 {
		var ids []uint64
		for id := uint64(0); id < 64; id += 2 {
			ids = append(ids, id)
		}
		return ids
	}()
	// E, 9 ifs, a PPP build: ids 0…256, every path through the first then
	// branch and the one past every if. Each if below the first weighs its
	// skip edge as Ball-Larus does (the lone path past the first if takes
	// every then branch), giving 0…255 under the first if's then branch
	// and 0 past it, which the first if's skip edge moves to 256: δ = 1
	// under both.
	idsE = span(257)
)

// statsProfile is a profile of packages p (a Ball-Larus build, with a test
// variant), q (a PPP build) and r (functions that cannot be numbered).
func statsProfile(t *testing.T) *profile.Profile {
	t.Helper()
	p := profile.New()
	add := func(hash string, fn int, ids []uint64) {
		for _, id := range ids {
			p.Add(hash, fn, id, id+1)
		}
	}
	meta := func(pkg string, mode profile.Mode, file string, funcs ...profile.Func) *profile.Meta {
		m := &profile.Meta{Format: profile.MetaFormat, Package: pkg, Mode: mode, Files: []string{file}, Funcs: funcs}
		for i := range m.Funcs {
			m.Funcs[i].Counters.Offset = m.Words
			m.Words += m.Funcs[i].Counters.Size
		}
		return m
	}

	p1 := meta("example.com/p", "bl", "p.go",
		chainFunc(t, "A", 10, 3), chainFunc(t, "B", 30, 3), chainFunc(t, "C", 40, 1), chainFunc(t, "Z", 50, 2))
	p.Metas["p1"] = p1
	add("p1", 0, idsA3)
	add("p1", 1, idsB1)
	add("p1", 2, idsC)
	p.Add("p1", 3, 0, 0) // Z: a zero count is no run

	p2 := meta("example.com/p [example.com/p.test]", "bl", "p.go", chainFunc(t, "A", 20, 2), chainFunc(t, "B", 30, 3))
	p.Metas["p2"] = p2
	add("p2", 0, idsA2)
	add("p2", 1, idsB2)
	add("p2", 1, idsB1[:1]) // counted in both variants, one path

	d, s, e, res := chainFunc(t, "D", 10, 6), chainFunc(t, "S", 20, 3), chainFunc(t, "E", 30, 9), chainFunc(t, "R", 40, 2)
	d.Interesting = idsD
	s.Interesting, s.Stale = idsA3, true // another version's paths
	e.Interesting = idsE
	q := meta("example.com/q", profile.ModePPP, "q.go", d, s, e, res)
	p.Metas["q"] = q
	// What ran in the field is no interesting path of a PPP build.
	p.Add("q", 0, 1, 5)
	p.Add("q", 1, 0, 5)
	p.Add("q", 3, 0, 5)

	// F has 4 paths and a limit of 2 that no cut can meet, since no edge
	// can hold a probe; G's metadata has the wrong number of paths.
	f, g := chainFunc(t, "F", 10, 2), chainFunc(t, "G", 20, 2)
	for i := range f.Edges {
		f.Edges[i].Probe = false
	}
	f.MaxPaths = 2
	g.Paths++
	r := meta("example.com/r", "bl", "r.go", f, g)
	p.Metas["r"] = r
	p.Add("r", 0, 0, 1)
	p.Add("r", 1, 0, 1)
	return p
}

type wantStats struct {
	pkg, name string
	line      int
	paths     uint64
	ids       []uint64 // the interesting set, for |I| and δ BL
	size      uint64
	deltaPPP  float64
	failed    bool
}

func TestStats(t *testing.T) {
	r, errs := Stats(statsProfile(t), nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "example.com/r: function G:") || !strings.Contains(errs[0].Error(), "another pathcover version") {
		t.Errorf("errors: %v; want one, for G's metadata", errs)
	}
	idsB := append(append([]uint64{}, idsB1...), idsB2...)
	// By δ BL/δ PPP: 4 (A), 63/32 (D), 7/6 (B), then 1 by name, then F.
	want := []wantStats{
		{pkg: "example.com/p", name: "A", line: 10, paths: 8, ids: idsA3, size: 2, deltaPPP: 1},
		{pkg: "example.com/q", name: "D", line: 10, paths: 64, ids: idsD, size: 32, deltaPPP: 1},
		{pkg: "example.com/p", name: "B", line: 30, paths: 8, ids: idsB, size: 6, deltaPPP: 6.0 / 5},
		{pkg: "example.com/p", name: "A", line: 20, paths: 4, ids: idsA2, size: 1, deltaPPP: 1},
		{pkg: "example.com/p", name: "C", line: 40, paths: 2, ids: idsC, size: 1, deltaPPP: 1},
		{pkg: "example.com/q", name: "E", line: 30, paths: 512, ids: idsE, size: 257, deltaPPP: 1},
		{pkg: "example.com/r", name: "F", line: 10, paths: 4, ids: []uint64{0}, failed: true},
	}
	if len(r.Funcs) != len(want) {
		for _, f := range r.Funcs {
			t.Logf("%+v", *f)
		}
		t.Fatalf("%d functions, want %d (Z, S, R and G left out)", len(r.Funcs), len(want))
	}
	for i, w := range want {
		f := r.Funcs[i]
		if f.Package != w.pkg || f.Name != w.name || f.Line != w.line || f.Paths != w.paths || f.Interesting != len(w.ids) {
			t.Errorf("function %d: %+v; want %s.%s at line %d, %d paths, %d interesting", i, *f, w.pkg, w.name, w.line, w.paths, len(w.ids))
			continue
		}
		if w.failed {
			if !strings.Contains(f.Err, "too many paths") || f.DeltaPPP != 0 || f.DeltaBL != 0 || f.Ratio() != 0 {
				t.Errorf("%s: %+v; want it failed for too many paths", f.Name, *f)
			}
			continue
		}
		if f.Err != "" || f.PPPSize != w.size || !near(f.DeltaPPP, w.deltaPPP) || !near(f.DeltaBL, blDelta(w.ids)) {
			t.Errorf("%s.%s: size %d δ PPP %v δ BL %v (%s); want %d, %v, %v", f.Package, f.Name, f.PPPSize, f.DeltaPPP, f.DeltaBL, f.Err, w.size, w.deltaPPP, blDelta(w.ids))
		}
		if i < 3 && !near(f.Ratio(), []float64{4, 63.0 / 32, 7.0 / 6}[i]) {
			t.Errorf("%s: ratio %v", f.Name, f.Ratio())
		}
	}

	// Six functions numbered:
	//   δ PPP sorted: 1 1 1 1 1 6/5; five of six are 1.
	//   δ BL sorted: 1 1 1 7/5 63/32 4; three of six are 1.
	//   ratios sorted: 1 1 1 7/6 63/32 4.
	// With six values the median lies halfway between the 3rd and 4th, and
	// the 90th percentile halfway between the 5th and 6th (rank 0.9 × 5 =
	// 4.5, from 0): δ PPP 1 and 1 + 0.2/2 = 1.1; δ BL 1.2 and
	// 63/32 + (4 − 63/32)/2 = 2.984375; ratio 1 + (1/6)/2 = 13/12. The
	// ratios' product is 7/6 × 63/32 × 4 = 147/16.
	s := r.Summary
	wantPPP := DeltaSummary{Perfect: 100 * 5.0 / 6, Median: 1, P90: 1.1, Max: 1.2}
	wantBL := DeltaSummary{Perfect: 50, Median: 1.2, P90: 2.984375, Max: 4}
	wantRatio := RatioSummary{Median: 13.0 / 12, GeoMean: math.Pow(147.0/16, 1.0/6), Max: 4}
	if s.Funcs != 6 || s.Failed != 1 || !nearDelta(s.PPP, wantPPP) || !nearDelta(s.BL, wantBL) ||
		!near(s.Ratio.Median, wantRatio.Median) || !near(s.Ratio.GeoMean, wantRatio.GeoMean) || !near(s.Ratio.Max, wantRatio.Max) {
		t.Errorf("summary %+v;\nwant PPP %+v, BL %+v, ratio %+v", s, wantPPP, wantBL, wantRatio)
	}
	// |I|: A and C 1; A 2; B 5; D 32; E 257; none in 65–256.
	wantBuckets := []StatsBucket{
		{Low: 1, High: 1, Funcs: 2, MeanPPP: 1, MeanBL: 1, MaxPPP: 1},
		{Low: 2, High: 4, Funcs: 1, MeanPPP: 1, MeanBL: 4, MaxPPP: 1},
		{Low: 5, High: 16, Funcs: 1, MeanPPP: 1.2, MeanBL: 1.4, MaxPPP: 1.2},
		{Low: 17, High: 64, Funcs: 1, MeanPPP: 1, MeanBL: 63.0 / 32, MaxPPP: 1},
		{Low: 65, High: 256},
		{Low: 257, High: 0, Funcs: 1, MeanPPP: 1, MeanBL: 1, MaxPPP: 1},
	}
	if len(s.Buckets) != len(wantBuckets) {
		t.Fatalf("buckets %+v", s.Buckets)
	}
	for i, w := range wantBuckets {
		b := s.Buckets[i]
		if b.Low != w.Low || b.High != w.High || b.Funcs != w.Funcs || !near(b.MeanPPP, w.MeanPPP) || !near(b.MeanBL, w.MeanBL) || !near(b.MaxPPP, w.MaxPPP) {
			t.Errorf("bucket %d: %+v, want %+v", i, b, w)
		}
	}

	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	t.Logf("\n%s", out)
	// (147/16)^(1/6) = e^(ln 9.1875 / 6) ≈ e^0.3696 ≈ 1.447.
	for _, want := range []string{"functions numbered: 6; could not be: 1\n", "geometric mean 1.45,", "65–256", ">256"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	// The function lines, in the report's order.
	at := 0
	for _, want := range []string{"p.go:10 example.com/p.A\n", "q.go:10 example.com/q.D\n", "p.go:30 example.com/p.B\n",
		"p.go:20 example.com/p.A\n", "p.go:40 example.com/p.C\n", "q.go:30 example.com/q.E\n", "r.go:10 example.com/r.F: "} {
		i := strings.Index(out[at:], want)
		if i < 0 {
			t.Fatalf("text lacks %q after offset %d", want, at)
		}
		at += i + len(want)
	}
	// Each function line starts its location in the header's function
	// column, counted in runes since the header has δs.
	lines := strings.Split(out, "\n")
	head := slices.IndexFunc(lines, func(l string) bool { return strings.HasSuffix(l, "function") })
	if head < 0 || len(lines) < head+8 {
		t.Fatalf("no table of functions")
	}
	col := utf8.RuneCountInString(lines[head][:strings.Index(lines[head], "function")])
	for _, l := range lines[head+1 : head+8] {
		// The files are p.go, q.go and r.go: the location starts a byte
		// before ".go:".
		if i := strings.Index(l, ".go:"); i < 1 || utf8.RuneCountInString(l[:i-1]) != col {
			t.Errorf("line %q does not start its function at rune %d", l, col)
		}
	}

	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back StatsReport
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Funcs) != 7 || back.Funcs[2].PPPSize != 6 || back.Summary.Funcs != 6 || back.Funcs[6].Err == "" {
		t.Errorf("JSON round trip: %v\n%s", err, js.String())
	}
}

func nearDelta(a, b DeltaSummary) bool {
	return near(a.Perfect, b.Perfect) && near(a.Median, b.Median) && near(a.P90, b.P90) && near(a.Max, b.Max)
}

func TestStatsPatterns(t *testing.T) {
	r, errs := Stats(statsProfile(t), pkgpattern.ImportPaths("example.com/q"))
	if len(errs) != 0 || len(r.Funcs) != 2 || r.Funcs[0].Name != "D" || r.Funcs[1].Name != "E" || r.Summary.Funcs != 2 {
		t.Errorf("Stats of example.com/q: %v, %+v", errs, r.Funcs)
	}
	r, errs = Stats(statsProfile(t), pkgpattern.ImportPaths("example.com/none"))
	if len(errs) != 0 || len(r.Funcs) != 0 || r.Summary.Funcs != 0 || r.Summary.PPP != (DeltaSummary{}) {
		t.Errorf("Stats of no package: %v, %+v", errs, r)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil || !strings.Contains(text.String(), "functions numbered: 0\n") {
		t.Errorf("text of an empty report: %v\n%s", err, text.String())
	}
}

// TestStatsBuckets puts functions at both ends of every bucket.
func TestStatsBuckets(t *testing.T) {
	var funcs []*FuncStats
	for i, n := range []int{1, 2, 4, 5, 16, 17, 64, 65, 256, 257, 10000} {
		// δ PPP i+1 tells the functions apart in the maxima.
		funcs = append(funcs, &FuncStats{Interesting: n, DeltaPPP: float64(i + 1), DeltaBL: 1})
	}
	funcs = append(funcs, &FuncStats{Interesting: 3, Err: "too many paths"})
	s := summarize(funcs)
	// 1 | 2 4 | 5 16 | 17 64 | 65 256 | 257 10000, by index from 0.
	want := []struct {
		funcs         int
		meanPPP, maxP float64
	}{
		{1, 1, 1}, {2, (2 + 3) / 2.0, 3}, {2, (4 + 5) / 2.0, 5}, {2, (6 + 7) / 2.0, 7}, {2, (8 + 9) / 2.0, 9}, {2, (10 + 11) / 2.0, 11},
	}
	for i, w := range want {
		b := s.Buckets[i]
		if b.Funcs != w.funcs || b.MeanPPP != w.meanPPP || b.MaxPPP != w.maxP || b.MeanBL != 1 {
			t.Errorf("bucket %s: %+v, want %d functions, mean δ PPP %v, max %v", bucketName(b), b, w.funcs, w.meanPPP, w.maxP)
		}
	}
	if s.Funcs != 11 || s.Failed != 1 {
		t.Errorf("%d numbered, %d failed; want 11, 1", s.Funcs, s.Failed)
	}
	if names := []string{bucketName(s.Buckets[0]), bucketName(s.Buckets[1]), bucketName(s.Buckets[5])}; names[0] != "1" || names[1] != "2–4" || names[2] != ">256" {
		t.Errorf("bucket names %q", names)
	}
}
