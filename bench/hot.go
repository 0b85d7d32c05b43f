package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathcover/pathcover/profile"
)

// The -hot run measures hot path tables (pppexec -hot, issue 21) against
// exact counts, as the PPP thesis did for its hardware table (chapter 5):
// each workload's tests run from a Ball-Larus build, whose counts are
// exact (arrays, and hash tables that lose nothing here), and from a
// build where every function with more than hotArrayLimit paths counts in
// a hot path table of hotEntries entries; the run says how many of the
// 100 hottest paths of the exact profile are among the 100 hottest of the
// estimated one, how many functions had a table and what it weighs
// against the hash table the same functions get by default, and how far
// the estimates are from the truth. The overhead of the two builds is
// measured by the main harness (modes hash and hot).

const (
	// hotArrayLimit and hotEntries are the pppexec flags of modes hash
	// and hot: far below the default array limit (2^16 paths), so that
	// the workloads' functions meet the tables at all.
	hotArrayLimit = 16
	hotEntries    = 16
	topPaths      = 100
)

// hotWorkload is one workload's hot path tables measured.
type hotWorkload struct {
	Workload string
	// Funcs counts the functions with a table, of those that ran.
	Funcs, RanFuncs int
	// Overlap is how many of the exact profile's topPaths hottest paths
	// are among the estimated profile's topPaths hottest; Top is how many
	// paths the exact profile has, up to topPaths.
	Overlap, Top int
	// Paths counts the distinct paths that ran in the tables' functions;
	// Kept, those the tables hold at the end.
	Paths, Kept int
	// Within counts the kept paths whose exact count is within their
	// estimate's bounds (all, unless goroutines lost runs to each other).
	Within int
	// MeanError is the mean error bound of the kept paths relative to
	// their count.
	MeanError float64
	// TableBytes is a table's size; HashBytes, the hash table's the same
	// function gets without -hot.
	TableBytes, HashBytes int
	// ExactLost counts the runs the exact profile's own hash tables (of
	// functions past 2^16 paths) lost: 0, or the reference is not exact.
	ExactLost uint64
}

type hotResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Workloads []*hotWorkload
	Warnings  []string
}

func (r *hotResults) measured() bool { return measured(r.Workloads) }

// runHot is the -hot run.
func (h *harness) runHot(selected []workload, set map[string]bool, run string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r := &hotResults{Date: time.Now().Format("2006-01-02"), Machine: machine(), GoVersion: goVersion()}
	if set["run"] {
		r.Selection = append(r.Selection, "-run="+strconv.Quote(run))
	}
	h.log("work directory %s", h.work)
	if err := h.buildPPPExec(); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	r.Workloads = measureEach(h, selected, &r.Warnings, h.measureHotWorkload)
	if len(r.Workloads) == 0 {
		fmt.Fprintln(stderr, "bench: no workload could be measured")
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

// renderHot writes the outputs of a -hot run saved by -json.
func renderHot(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r, ok := readResults[hotResults](file, "-hot", stderr)
	if !ok {
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

// hotPath is a path of a program: its function, named by package and
// name (the two builds compile the same source, but their metadata hashes
// differ, since the counters' layout is in them), its id and its count.
type hotPath struct {
	fn    string
	id    uint64
	count uint64
}

func (h *harness) measureHotWorkload(w workload) (*hotWorkload, error) {
	t, err := h.prepare(w)
	if err != nil {
		return nil, err
	}
	profiles := map[string]*profile.Profile{}
	for _, mode := range []string{"bl", "hot"} {
		h.log("build %s %s", t.name, mode)
		if t.bins[mode], _, err = h.build(t, mode, nil); err != nil {
			return nil, err
		}
		h.log("%s: tests under %s", t.name, mode)
		dir, err := h.profileTests(t, mode, "hot-"+mode)
		if err != nil {
			return nil, err
		}
		p, problems, err := profile.Load(dir)
		if err != nil {
			return nil, err
		}
		if len(problems) > 0 {
			return nil, errors.Join(problems...)
		}
		profiles[mode] = p
	}
	exact, est := profiles["bl"], profiles["hot"]
	m := &hotWorkload{Workload: t.name, HashBytes: 8 * (2*1024 + 1)}
	for _, byFunc := range exact.Lost {
		for _, n := range byFunc {
			m.ExactLost += n
		}
	}
	truths := map[string]map[uint64]uint64{} // function → exact counts
	var exactTop, estTop []hotPath
	for hash, meta := range exact.Metas {
		for fn, byID := range exact.Counts[hash] {
			name := meta.Package + "." + meta.Funcs[fn].Name
			truths[name] = byID
			for id, c := range byID {
				exactTop = append(exactTop, hotPath{name, id, c})
			}
		}
	}
	var relErr float64
	for hash, meta := range est.Metas {
		for fn := range meta.Funcs {
			f := &meta.Funcs[fn]
			got := est.Counts[hash][fn]
			name := meta.Package + "." + f.Name
			for id, c := range got {
				estTop = append(estTop, hotPath{name, id, c})
			}
			if f.Counters.Kind != profile.CounterHot {
				continue
			}
			m.Funcs++
			m.TableBytes = 8 * f.Counters.Size
			if len(got) == 0 {
				continue
			}
			m.RanFuncs++
			truth := truths[name]
			m.Paths += len(truth)
			for id, c := range got {
				m.Kept++
				e := est.Errors[hash][fn][id]
				if t := truth[id]; t <= c && c-e <= t {
					m.Within++
				}
				relErr += float64(e) / float64(c)
			}
		}
	}
	if m.Kept > 0 {
		m.MeanError = relErr / float64(m.Kept)
	}
	type pathKey struct {
		fn string
		id uint64
	}
	top := func(ps []hotPath) map[pathKey]bool {
		slices.SortFunc(ps, func(a, b hotPath) int {
			return cmp.Or(cmp.Compare(b.count, a.count), strings.Compare(a.fn, b.fn), cmp.Compare(a.id, b.id))
		})
		out := map[pathKey]bool{}
		for _, p := range ps[:min(topPaths, len(ps))] {
			out[pathKey{p.fn, p.id}] = true
		}
		return out
	}
	want, got := top(exactTop), top(estTop)
	m.Top = len(want)
	for k := range want {
		if got[k] {
			m.Overlap++
		}
	}
	return m, nil
}

// Markdown renders the results as a table.
func (r *hotResults) Markdown() string {
	var b strings.Builder
	cmd := "go run ./bench -hot"
	for _, f := range r.Selection {
		cmd += " " + f
	}
	fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s: each workload's tests (`-test.short`) run once from a Ball-Larus build (exact counts) and once from `pppexec -arraylimit=%d -hot=%d` (every function with more than %d paths counts in a hot path table of %d entries, %d sets of %d ways), and their profiles compared.\n\n", cmd, r.Date, r.Machine, r.GoVersion, hotArrayLimit, hotEntries, hotArrayLimit, hotEntries, hotEntries/profile.HotWays, profile.HotWays)
	b.WriteString("| workload | top-100 overlap | functions with a table (ran) | their paths that ran | kept in the tables | exact count of the other run within the bounds | mean error bound / count | table size (hash table) |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, w := range r.Workloads {
		fmt.Fprintf(&b, "| %s | %d of %d | %d (%d) | %d | %d | %d of %d | %.1f%% | %d B (%d B) |\n",
			w.Workload, w.Overlap, w.Top, w.Funcs, w.RanFuncs, w.Paths, w.Kept, w.Within, w.Kept, 100*w.MeanError, w.TableBytes, w.HashBytes)
	}
	for _, w := range r.Workloads {
		if w.ExactLost > 0 {
			fmt.Fprintf(&b, "\n%s: the exact profile lost %d runs to a full hash table: its counts are not all exact.\n", w.Workload, w.ExactLost)
		}
	}
	b.WriteString("\nThe overlap is the PPP thesis's metric: of the exact profile's 100 hottest paths (over all functions), how many are among the estimated profile's 100 hottest. The exact counts come from another run of the tests: where the tests draw random inputs (sort, math/big, btree, encoding/json), or run in parallel, the two runs differ, so the bounds column checks the estimates only where the runs are the same. That every estimate holds its true count, in one run, is checked by `cmd/pppexec.TestOracleHot` against the path oracle.\n")
	return b.String()
}
