package wpp

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/profile"
)

// TestsHeld says which tests a recording holds, for one whose process
// went on past the recording (a suite that reached the size limit):
// Whole are the tests whose end it recorded, Cut those it saw start and
// not end, Missing those the process ran (its tests file says) that
// started once recording had stopped. Each lists names in the order the
// tests started.
type TestsHeld struct {
	File                    string
	Cut                     []string // why the recording covers only part of its run
	Whole, Partial, Missing []string
}

// CutTests returns, for each recording (*.wpp) of dir that covers only
// part of its run, which tests it holds: those its test chunks show
// (pathcover test records them), and those the tests file of the same
// process names but the recording does not.
func CutTests(dir string) ([]TestsHeld, error) {
	names, err := profile.Need(dir, profile.KindWPP, "")
	if err != nil {
		return nil, err
	}
	ran, err := testsByPID(dir)
	if err != nil {
		return nil, err
	}
	var out []TestsHeld
	for _, name := range names {
		f, err := profile.OpenWPP(name)
		if err != nil {
			return nil, err
		}
		h := TestsHeld{File: filepath.Base(name), Cut: f.Header.Cut()}
		tests, pid := f.Tests, f.Header.PID
		f.Close()
		if len(h.Cut) == 0 {
			continue
		}
		seen := make(map[string]bool)
		for _, t := range tests {
			seen[t.Name] = true
			if t.Ended {
				h.Whole = append(h.Whole, t.Name)
			} else {
				h.Partial = append(h.Partial, t.Name)
			}
		}
		for _, t := range ran[pid] {
			if !seen[t] {
				h.Missing = append(h.Missing, t)
				seen[t] = true
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// testsByPID returns the tests each process of dir ran, as its tests file
// names them, in the order they were named, by process id.
func testsByPID(dir string) (map[uint64][]string, error) {
	l, err := profile.List(dir)
	if err != nil {
		return nil, err
	}
	ran := make(map[uint64][]string)
	for _, name := range l.Files(profile.KindTests) {
		tf, err := profile.ReadTests(name)
		if tf == nil {
			return nil, err
		}
		// pathcover.<pid>.<n>.counts; a tests file that names none (cut
		// before its first record) tells no process.
		parts := strings.Split(tf.Counts, ".")
		if len(parts) < 3 {
			continue
		}
		pid, err := strconv.ParseUint(parts[1], 10, 64)
		if err != nil {
			continue
		}
		ids := make([]uint64, 0, len(tf.Tests))
		for id := range tf.Tests {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			ran[pid] = append(ran[pid], tf.Tests[id].Name)
		}
	}
	return ran, nil
}

// String says it in one line: why the recording stopped, and its tests.
func (h TestsHeld) String() string {
	list := func(names []string) string {
		const shown = 5
		if len(names) <= shown {
			return strings.Join(names, ", ")
		}
		return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
	}
	s := fmt.Sprintf("%s: %s: holds %d tests whole", h.File, strings.Join(h.Cut, "; "), len(h.Whole))
	if len(h.Partial) > 0 {
		s += fmt.Sprintf("; cut: %s", list(h.Partial))
	}
	if len(h.Missing) > 0 {
		s += fmt.Sprintf("; missing: %s", list(h.Missing))
	}
	return s
}

// TestGoroutines returns the goroutines of recording f that ran test name,
// or a test under it (name/...): the goroutine that ran each, and every
// goroutine those started, directly or not, as their start records say.
// Subtests run on goroutines their parent test starts, so a test's
// goroutines hold its subtests'. It returns nil if f recorded no such
// test.
func TestGoroutines(f *profile.WPPFile, name string) (map[uint64]bool, error) {
	if !ranTest(f.Tests, name) {
		return nil, nil
	}
	// Each goroutine's creator, from its first record.
	children := make(map[uint64][]uint64)
	for _, g := range f.Goroutines() {
		err := f.Events(g, func(e profile.WPPEvent) error {
			if e.Kind == profile.WPPStart && e.Parent != 0 {
				children[e.Parent] = append(children[e.Parent], g)
			}
			return errFirst
		})
		if err != nil && err != errFirst {
			return nil, err
		}
	}
	return TestClosure(f.Tests, name, children), nil
}

// ranTest reports whether tests hold test name or one under it.
func ranTest(tests []profile.WPPTest, name string) bool {
	return slices.ContainsFunc(tests, func(t profile.WPPTest) bool { return isUnder(t.Name, name) })
}

// isUnder reports whether test is test name or one of its subtests.
func isUnder(test, name string) bool {
	return test == name || strings.HasPrefix(test, name+"/")
}

// TestClosure returns the goroutines that ran test name or a test under
// it, as tests say, and those they started (children: each goroutine's),
// directly or not; none if no test of tests is name or under it.
func TestClosure(tests []profile.WPPTest, name string, children map[uint64][]uint64) map[uint64]bool {
	in := make(map[uint64]bool)
	for _, t := range tests {
		if isUnder(t.Name, name) {
			in[t.Goroutine] = true
		}
	}
	queue := slices.Collect(maps.Keys(in))
	for len(queue) > 0 {
		g := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, c := range children[g] {
			if !in[c] {
				in[c] = true
				queue = append(queue, c)
			}
		}
	}
	return in
}

// TestGoroutines returns, by process, the goroutines of t that ran test
// name or a test under it, and those they started (as TestGoroutines of a
// recording). It fails, naming the tests t holds, if none ran test name.
func (t *TWPP) TestGoroutines(name string) (map[*Process]map[uint64]bool, error) {
	in := make(map[*Process]map[uint64]bool)
	var all [][]profile.WPPTest
	for _, p := range t.Processes {
		all = append(all, p.Tests)
		children := make(map[uint64][]uint64)
		for _, g := range p.Goroutines {
			if g.Parent != 0 {
				children[g.Parent] = append(children[g.Parent], g.ID)
			}
		}
		if gs := TestClosure(p.Tests, name, children); len(gs) > 0 {
			in[p] = gs
		}
	}
	if len(in) == 0 {
		return nil, NoSuchTest(name, all)
	}
	return in, nil
}

// NoSuchTest is the error of a query for test name of a recording whose
// processes ran tests (each process's): it names the top-level tests
// that ran, or says that the recording knows of none.
func NoSuchTest(name string, tests [][]profile.WPPTest) error {
	var top []string
	for _, ts := range tests {
		for _, t := range ts {
			if t.Parent == "" {
				top = append(top, t.Name)
			}
		}
	}
	if len(top) == 0 {
		return errors.New("the recording holds no test (record with pathcover test, which records the tests' boundaries)")
	}
	slices.Sort(top)
	return fmt.Errorf("no test %s ran in the recording; its tests are %s", name, strings.Join(slices.Compact(top), ", "))
}

// TracesIn returns the traces of function k that the calls made on the
// goroutines of in (TestGoroutines) took, with how many of those calls
// took each, decoded with dec if not nil; nil if none of them called k.
func (t *TWPP) TracesIn(k FuncKey, in map[*Process]map[uint64]bool, name string, dec Decoder) (*Traces, error) {
	fi, ok := t.funcIndex[k]
	if !ok {
		return nil, nil
	}
	// How many times each node is made in those goroutines: their
	// roots once each, then each node's calls as many times as it is
	// (a node's calls come before it).
	times := make([]uint64, len(t.Nodes))
	for p, gs := range in {
		for _, g := range p.Goroutines {
			if gs[g.ID] {
				for _, r := range g.Roots {
					times[r] = satAdd(times[r], 1)
				}
			}
		}
	}
	f := t.Funcs[fi]
	calls := make([]uint64, len(f.Traces))
	for n := len(t.Nodes) - 1; n >= 0; n-- {
		if times[n] == 0 {
			continue
		}
		nd := t.Nodes[n]
		for _, it := range nd.Items {
			if it.Kind == ItemCall {
				times[it.Node] = satAdd(times[it.Node], times[n])
			}
		}
		if nd.Func == fi {
			calls[nd.Trace] = satAdd(calls[nd.Trace], times[n])
		}
	}
	scoped := &Func{Key: k}
	for i, tr := range f.Traces {
		if calls[i] > 0 {
			scoped.Traces = append(scoped.Traces, &Trace{Paths: tr.Paths, Calls: calls[i]})
		}
	}
	if len(scoped.Traces) == 0 {
		return nil, nil
	}
	return FuncTraces(scoped, name, dec)
}

// errFirst stops a walk of events at the first.
var errFirst = errors.New("first event")

// MaxTraceTests bounds the tests TraceTests tells apart: it keeps a bit
// per test for every node of the call DAG.
const MaxTraceTests = 1024

// TraceTests returns, for each function's traces, the top-level tests
// whose goroutines (and those they started) took each (by name, sorted):
// for the page's traces tab, "which tests did this". The tests are told
// apart by a bit each on every node of the call DAG, propagated from the
// tests' roots down to their callees once, in time linear in the DAG's
// items times the tests over 64; nil if the recording holds no test, or
// more than MaxTraceTests (the error says so).
func (t *TWPP) TraceTests() (func(k FuncKey, trace int) []string, error) {
	var names []string
	for _, p := range t.Processes {
		for _, ts := range p.Tests {
			top, _, _ := strings.Cut(ts.Name, "/")
			names = append(names, top)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return nil, nil
	}
	if len(names) > MaxTraceTests {
		return nil, fmt.Errorf("%d tests, more than the %d whose traces are told apart", len(names), MaxTraceTests)
	}
	words := (len(names) + 63) / 64
	bits := make([]uint64, len(t.Nodes)*words)
	of := func(n int) []uint64 { return bits[n*words : (n+1)*words] }
	for _, p := range t.Processes {
		children := make(map[uint64][]uint64)
		for _, g := range p.Goroutines {
			if g.Parent != 0 {
				children[g.Parent] = append(children[g.Parent], g.ID)
			}
		}
		for ti, name := range names {
			gs := TestClosure(p.Tests, name, children)
			if len(gs) == 0 {
				continue
			}
			for _, g := range p.Goroutines {
				if gs[g.ID] {
					for _, r := range g.Roots {
						of(int(r))[ti/64] |= 1 << (ti % 64)
					}
				}
			}
		}
	}
	// A node's calls come before it: each node's tests are whole when it
	// is reached going down.
	for n := len(t.Nodes) - 1; n >= 0; n-- {
		b := of(n)
		if !slices.ContainsFunc(b, func(w uint64) bool { return w != 0 }) {
			continue
		}
		for _, it := range t.Nodes[n].Items {
			if it.Kind == ItemCall {
				c := of(int(it.Node))
				for w := range b {
					c[w] |= b[w]
				}
			}
		}
	}
	byTrace := make([][][]uint64, len(t.Funcs)) // function, trace: its tests' bits
	for n, nd := range t.Nodes {
		if nd.Func < 0 || nd.Func >= len(t.Funcs) {
			continue
		}
		if byTrace[nd.Func] == nil {
			byTrace[nd.Func] = make([][]uint64, len(t.Funcs[nd.Func].Traces))
		}
		tb := &byTrace[nd.Func][nd.Trace]
		if *tb == nil {
			*tb = make([]uint64, words)
		}
		for w, x := range of(n) {
			(*tb)[w] |= x
		}
	}
	return func(k FuncKey, trace int) []string {
		fi, ok := t.funcIndex[k]
		if !ok || byTrace[fi] == nil || trace < 0 || trace >= len(byTrace[fi]) {
			return nil
		}
		var out []string
		for ti, name := range names {
			if tb := byTrace[fi][trace]; tb != nil && tb[ti/64]&(1<<(ti%64)) != 0 {
				out = append(out, name)
			}
		}
		return out
	}, nil
}
