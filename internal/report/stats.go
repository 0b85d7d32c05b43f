package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pathcover/pathcover/internal/pkgpattern"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A StatsReport measures how compactly preferential path profiling numbers
// each function's interesting paths I, against the Ball-Larus ids of the
// same paths (thesis §3.6, Figs. 3.17 and 3.18). The measure is
// δ = (max id − min id + 1)/|I|, which is 1 when the ids leave no hole: a PPP
// build counts a function's paths in an array of δ·|I| slots, so δ says what
// an array costs over the paths it holds, and the Ball-Larus δ says what it
// would cost without PPP.
type StatsReport struct {
	// Funcs are the functions with interesting paths, the greatest gain of
	// PPP over Ball-Larus (DeltaBL/DeltaPPP) first; those that could not be
	// numbered come last.
	Funcs   []*FuncStats
	Summary StatsSummary
	// Supergraphs are, for an interprocedural build, the same for each
	// supergraph, whose interesting paths are segments (thesis Fig. 3.20),
	// kept apart from the functions.
	Supergraphs       []*FuncStats  `json:",omitempty"`
	SupergraphSummary *StatsSummary `json:",omitempty"`
}

// FuncStats is one function's δ under both numberings.
type FuncStats struct {
	Package string
	Name    string
	File    string
	Line    int
	// Paths is N, the function's Ball-Larus paths: their ids are [0, N).
	Paths uint64
	// Interesting is |I|: in a PPP build, the paths it was built to count
	// (those its tests ran); in a Ball-Larus build, the paths that ran. Test
	// variants of a package add up.
	Interesting int
	// PPPSize is the number of PPP ids the interesting paths span, which
	// start at 0: the slots of a PPP array for them.
	PPPSize  uint64
	DeltaPPP float64 // PPPSize/|I|
	DeltaBL  float64 // (max − min + 1)/|I| of the Ball-Larus ids
	// Err says why the function could not be numbered (it has too many
	// paths, or PPP ids would pass 2^62); its sizes and δs are then zero,
	// and it is in no figure of the summary.
	Err string `json:",omitempty"`
}

// Ratio is DeltaBL/DeltaPPP, how many times more compact PPP is than
// Ball-Larus numbering (thesis Fig. 3.18); 0 for a function that could not
// be numbered.
func (f *FuncStats) Ratio() float64 {
	if f.DeltaPPP == 0 {
		return 0
	}
	return f.DeltaBL / f.DeltaPPP
}

// StatsSummary is the distribution of δ over the functions that were
// numbered.
type StatsSummary struct {
	Funcs  int // numbered, which the figures below describe
	Failed int // could not be numbered
	PPP    DeltaSummary
	BL     DeltaSummary
	Ratio  RatioSummary // of DeltaBL/DeltaPPP
	// Buckets group the functions by |I|, since δ grows with the number of
	// interesting paths (thesis Fig. 3.17): 1, 2–4, 5–16, 17–64, 65–256 and
	// more, every bucket listed even when empty.
	Buckets []StatsBucket
}

// A DeltaSummary is the distribution of one numbering's δ. Percentiles
// interpolate between the two nearest ranks, so the median of an even
// number of functions is the mean of the middle two.
type DeltaSummary struct {
	Perfect float64 // percent of the functions with δ = 1
	Median  float64
	P90     float64 // 90th percentile
	Max     float64
}

// A RatioSummary is the distribution of DeltaBL/DeltaPPP. The geometric
// mean is the fitting average of ratios: a gain of 4 and a loss of 4 cancel.
type RatioSummary struct {
	Median  float64
	GeoMean float64
	Max     float64
}

// A StatsBucket is the functions whose |I| lies in [Low, High].
type StatsBucket struct {
	Low, High int // High is 0 for no bound
	Funcs     int
	MeanPPP   float64 // mean DeltaPPP
	MeanBL    float64 // mean DeltaBL
	MaxPPP    float64 // largest DeltaPPP
}

// statsBuckets are the bounds of StatsSummary.Buckets: powers of 4 keep the
// buckets few over the range of real functions.
var statsBuckets = [][2]int{{1, 1}, {2, 4}, {5, 16}, {17, 64}, {65, 256}, {257, 0}}

// Stats measures δ for the functions of the packages of p that pkgs
// selects (all, if nil). A function's interesting paths are merged over
// the metadata of its package's test variants that number it alike (the
// same profile.Func.Shape); a function with none is left out. A function
// whose paths are too many to number is listed with its Err; one that
// cannot be numbered for another reason (metadata from another pathcover
// version, ids out of range) is left out with an error, as Build does.
func Stats(p *profile.Profile, pkgs *pkgpattern.Set) (*StatsReport, []error) {
	type key struct{ pkg, name, shape string }
	type entry struct {
		stats *FuncStats
		meta  *profile.Func
		ids   []uint64
	}
	var entries []*entry // in the order met, which is deterministic
	byKey := make(map[key]*entry)
	for _, hash := range sortedKeys(p.Metas) {
		m := p.Metas[hash]
		path := profile.PackagePath(m.Package)
		if !pkgs.Match(m.Package) {
			continue
		}
		for i := range m.Funcs {
			mf := &m.Funcs[i]
			ids := interestingIDs(m.Mode, mf, p.Counts[hash][i])
			if len(ids) == 0 {
				continue
			}
			k := key{path, mf.Name, mf.Shape()}
			e := byKey[k]
			if e == nil {
				e = &entry{
					stats: &FuncStats{Package: path, Name: mf.Name, File: m.Files[mf.File], Line: mf.Line, Paths: mf.Paths},
					meta:  mf,
				}
				byKey[k] = e
				entries = append(entries, e)
			}
			e.ids = append(e.ids, ids...)
		}
	}
	r := &StatsReport{}
	var errs []error
	for _, e := range entries {
		f := e.stats
		slices.Sort(e.ids)
		e.ids = slices.Compact(e.ids)
		f.Interesting = len(e.ids)
		q, err := numberPPP(e.meta, e.ids)
		switch {
		case errors.Is(err, numbering.ErrTooManyPaths):
			// The line names the function already.
			f.Err = strings.TrimPrefix(err.Error(), "function "+f.Name+": ")
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", f.Package, err))
			continue
		default:
			f.PPPSize, f.DeltaPPP, f.DeltaBL = q.Size(), q.Delta(), q.BLDelta()
		}
		if e.meta.Super != nil {
			r.Supergraphs = append(r.Supergraphs, f)
		} else {
			r.Funcs = append(r.Funcs, f)
		}
	}
	// Stable, on the deterministic order of entries, for functions alike
	// in everything shown (two versions of one function).
	for _, funcs := range [][]*FuncStats{r.Funcs, r.Supergraphs} {
		slices.SortStableFunc(funcs, func(a, b *FuncStats) int {
			return cmp.Or(cmp.Compare(b.Ratio(), a.Ratio()), cmp.Compare(a.Package, b.Package),
				cmp.Compare(a.Name, b.Name), cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
		})
	}
	r.Summary = summarize(r.Funcs)
	if len(r.Supergraphs) > 0 {
		s := summarize(r.Supergraphs)
		r.SupergraphSummary = &s
	}
	return r, errs
}

// interestingIDs returns the interesting paths of f in metadata of the
// given mode, counts being what its profile says of f. A PPP build names
// them; for a stale function they belong to another version, so there are
// none. A Ball-Larus build has only what ran, which is what a PPP build
// made from its profile would count.
func interestingIDs(mode profile.Mode, f *profile.Func, counts map[uint64]uint64) []uint64 {
	if mode == profile.ModePPP {
		if f.Stale {
			return nil
		}
		return f.Interesting
	}
	var ids []uint64
	for id, n := range counts {
		if n > 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// numberPPP numbers the function again and its interesting paths ids
// preferentially, as pppexec would. PPP ids depend on the weights alone,
// not on where the increments go, so any placement gives them.
func numberPPP(f *profile.Func, ids []uint64) (*numbering.PPP, error) {
	pl, err := f.Placement()
	if err != nil {
		return nil, err
	}
	q, err := pl.PPP(ids)
	if err != nil {
		return nil, fmt.Errorf("function %s: %w", f.Name, err)
	}
	return q, nil
}

func summarize(funcs []*FuncStats) StatsSummary {
	var s StatsSummary
	var ppp, bl, ratio []float64
	for _, f := range funcs {
		if f.Err != "" {
			s.Failed++
			continue
		}
		ppp = append(ppp, f.DeltaPPP)
		bl = append(bl, f.DeltaBL)
		ratio = append(ratio, f.Ratio())
	}
	s.Funcs = len(ppp)
	s.PPP, s.BL = summarizeDelta(ppp), summarizeDelta(bl)
	if len(ratio) > 0 {
		slices.Sort(ratio)
		var logs float64
		for _, x := range ratio {
			logs += math.Log(x)
		}
		s.Ratio = RatioSummary{
			Median:  quantile(ratio, 0.5),
			GeoMean: math.Exp(logs / float64(len(ratio))),
			Max:     ratio[len(ratio)-1],
		}
	}
	for _, bounds := range statsBuckets {
		b := StatsBucket{Low: bounds[0], High: bounds[1]}
		for _, f := range funcs {
			if f.Err != "" || f.Interesting < b.Low || (b.High > 0 && f.Interesting > b.High) {
				continue
			}
			b.Funcs++
			b.MeanPPP += f.DeltaPPP
			b.MeanBL += f.DeltaBL
			b.MaxPPP = max(b.MaxPPP, f.DeltaPPP)
		}
		if b.Funcs > 0 {
			b.MeanPPP /= float64(b.Funcs)
			b.MeanBL /= float64(b.Funcs)
		}
		s.Buckets = append(s.Buckets, b)
	}
	return s
}

func summarizeDelta(deltas []float64) DeltaSummary {
	if len(deltas) == 0 {
		return DeltaSummary{}
	}
	sorted := slices.Sorted(slices.Values(deltas))
	// δ is an exact quotient of integers, so a perfect one is exactly 1.
	perfect := 0
	for _, d := range sorted {
		if d == 1 {
			perfect++
		}
	}
	return DeltaSummary{
		Perfect: percent(float64(perfect), float64(len(sorted))),
		Median:  quantile(sorted, 0.5),
		P90:     quantile(sorted, 0.9),
		Max:     sorted[len(sorted)-1],
	}
}

// quantile returns the q-quantile of sorted xs, interpolating linearly
// between the two nearest ranks (R's type 7, NumPy's default).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	h := q * float64(len(sorted)-1)
	i := int(h)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// WriteText writes the summary, then a line per function, in the order of
// Funcs; then the same for the supergraphs, if any.
func (r *StatsReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "δ = (max id − min id + 1)/|I| of each function's interesting paths I, PPP ids against Ball-Larus ids (thesis Figs. 3.17, 3.18)\n")
	if err := writeStats(w, "functions", r.Summary, r.Funcs); err != nil {
		return err
	}
	if r.SupergraphSummary == nil {
		return nil
	}
	fmt.Fprintf(w, "\nthe same for supergraphs, whose interesting paths are interprocedural segments (thesis Fig. 3.20)\n")
	return writeStats(w, "supergraphs", *r.SupergraphSummary, r.Supergraphs)
}

func writeStats(w io.Writer, what string, s StatsSummary, funcs []*FuncStats) error {
	fmt.Fprintf(w, "%s numbered: %d", what, s.Funcs)
	if s.Failed > 0 {
		fmt.Fprintf(w, "; could not be: %d", s.Failed)
	}
	fmt.Fprintln(w)
	if s.Funcs > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		fmt.Fprintf(tw, "\tδ = 1\tmedian\t90th percentile\tmax\n")
		for _, row := range []struct {
			name string
			d    DeltaSummary
		}{{"PPP", s.PPP}, {"Ball-Larus", s.BL}} {
			fmt.Fprintf(tw, "%s\t%.1f%%\t%s\t%s\t%s\n", row.name, row.d.Perfect, fmtDelta(row.d.Median), fmtDelta(row.d.P90), fmtDelta(row.d.Max))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "δ Ball-Larus/δ PPP: median %s, geometric mean %s, max %s\n\n",
			fmtDelta(s.Ratio.Median), fmtDelta(s.Ratio.GeoMean), fmtDelta(s.Ratio.Max))
		fmt.Fprintf(tw, "|I|\t%s\tmean δ PPP\tmean δ Ball-Larus\tmax δ PPP\n", what)
		for _, b := range s.Buckets {
			if b.Funcs == 0 {
				fmt.Fprintf(tw, "%s\t0\t-\t-\t-\n", bucketName(b))
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", bucketName(b), b.Funcs, fmtDelta(b.MeanPPP), fmtDelta(b.MeanBL), fmtDelta(b.MaxPPP))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(funcs) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	cwd, _ := os.Getwd()
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "δ BL/PPP\tδ PPP\tδ BL\t|I|\tPPP size\tpaths\tfunction\n")
	for _, f := range funcs {
		where := fmt.Sprintf("%s:%d %s.%s", relative(cwd, f.File), f.Line, f.Package, f.Name)
		if f.Err != "" {
			fmt.Fprintf(tw, "-\t-\t-\t%d\t-\t%d\t%s: %s\n", f.Interesting, f.Paths, where, f.Err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", fmtDelta(f.Ratio()), fmtDelta(f.DeltaPPP), fmtDelta(f.DeltaBL), f.Interesting, f.PPPSize, f.Paths, where)
	}
	return tw.Flush()
}

// fmtDelta formats a δ or a ratio: two decimals, or three digits for the huge
// Ball-Larus δ of a few paths among billions.
func fmtDelta(x float64) string {
	if x >= 1e6 {
		return fmt.Sprintf("%.3g", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func bucketName(b StatsBucket) string {
	switch {
	case b.High == 0:
		return fmt.Sprintf(">%d", b.Low-1)
	case b.Low == b.High:
		return fmt.Sprint(b.Low)
	}
	return fmt.Sprintf("%d–%d", b.Low, b.High)
}

// WriteJSON writes the report as JSON.
func (r *StatsReport) WriteJSON(w io.Writer) error {
	return writeJSON(w, r)
}
