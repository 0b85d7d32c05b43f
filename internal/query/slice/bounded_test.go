//go:build unix

package slice

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// longMeta is a package of three functions, each of one path:
//
//	func Main() {             // line 10
//		acc = Loop(acc)       // line 11: each path a round
//	}
//	func Loop(x int) int {    // line 20
//		x = F(x)              // line 21: reads memory F wrote the round before
//		return x              // line 22
//	}                         // (each path a round)
//	func F(x int) int {       // line 30
//		return x + 1          // line 31: writes memory
//	}
//
// Main's rounds are independent (Main's statement defines acc without
// using it), so a slice of one is the one Loop call it made: small, while
// the graph holds the whole run.
func longMeta(t testing.TB) (hash string, raw []byte) {
	fn := func(name string, line int, deps *profile.Deps) profile.Func {
		g := numbering.Graph{}
		entry, exit, a := g.AddBlock(), g.AddBlock(), g.AddBlock()
		g.Entry, g.Exit = entry, exit
		g.AddEdge(entry, a, true)
		g.AddEdge(a, exit, true)
		n, err := numbering.Number(&g, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := profile.GraphFunc(&g, nil)
		f.Name, f.Line, f.EndLine = name, line, line+3
		f.Paths, f.Total = n.NumPaths(), n.Total().String()
		f.Counters = profile.Counters{Kind: profile.CounterArray, Size: int(n.NumPaths())}
		f.Deps = deps
		return f
	}
	x := []profile.DepVar{{Name: "x", Kind: profile.ValueInt}}
	funcs := []profile.Func{
		fn("Main", 10, &profile.Deps{
			Vars:   []profile.DepVar{{Name: "acc", Kind: profile.ValueInt}},
			Stmts:  []profile.DepStmt{{Line: 10}, {Line: 11, Defs: []int32{0}, Calls: []profile.DepCall{{Package: "p", Func: "Loop"}}}},
			Blocks: [][]int32{nil, nil, {1}},
		}),
		fn("Loop", 20, &profile.Deps{
			Vars: x, Params: []int32{0}, Results: []int32{0},
			Stmts: []profile.DepStmt{
				{Line: 20, Defs: []int32{0}},
				{Line: 21, Defs: []int32{0}, Uses: []int32{0}, Calls: []profile.DepCall{{Package: "p", Func: "F", Args: [][]int32{{0}}}}},
				{Line: 22, Uses: []int32{0}, Return: true},
			},
			Blocks: [][]int32{nil, nil, {1, 2}},
		}),
		fn("F", 30, &profile.Deps{
			Vars: x, Params: []int32{0}, Results: []int32{0},
			Stmts:  []profile.DepStmt{{Line: 30, Defs: []int32{0}}, {Line: 31, Uses: []int32{0}, Return: true}},
			Blocks: [][]int32{nil, nil, {1}},
		}),
	}
	words := 0
	for i := range funcs {
		funcs[i].Counters.Offset = words
		words += funcs[i].Counters.Size
	}
	m := &profile.Meta{Format: profile.MetaFormat, Package: "p", Mode: profile.ModeBallLarus, Files: []string{"p.go"}, Words: words, Funcs: funcs}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := profile.ParseMeta(raw); err != nil {
		t.Fatal(err)
	}
	return profile.Hash(raw), raw
}

// longRun is a recording of longMeta's Main, made as it is read: main
// rounds of Main, each a Loop call of rounds rounds, each a call of F
// that stores 8 bytes, read back by the Loop's next round.
type longRun struct {
	hash         string
	main, rounds int
}

func (longRun) Header() profile.WPPHeader     { return profile.WPPHeader{Limit: 1 << 30, Ended: true} }
func (longRun) Name() string                  { return "long.wpp" }
func (r longRun) Packages() map[uint32]string { return map[uint32]string{1: r.hash} }
func (longRun) Goroutines() []uint64          { return []uint64{1} }

// addr is where F stores in round i of a Loop call.
func (longRun) addr(i int) uint64 { return 0xc000000000 + 8*uint64(i%512) }

func (r longRun) Events(g uint64, fn func(*profile.WPPEvent) error) error {
	e := &profile.WPPEvent{}
	emit := func(ev profile.WPPEvent) error { *e = ev; return fn(e) }
	steps := []profile.WPPEvent{
		{Kind: profile.WPPEnter, Pkg: 1, Func: 2},
		{Kind: profile.WPPMemory, Stmt: 1, Access: profile.WPPStore, Seq: 1, Size: 8},
		{Kind: profile.WPPPath},
		{Kind: profile.WPPReturn},
		{Kind: profile.WPPPath},
	}
	if err := emit(profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1, Func: 0}); err != nil {
		return err
	}
	for range r.main {
		if err := emit(profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1, Func: 1}); err != nil {
			return err
		}
		for i := range r.rounds {
			if i > 0 {
				if err := emit(profile.WPPEvent{Kind: profile.WPPMemory, Stmt: 1, Access: profile.WPPLoad, Seq: 1, Addr: r.addr(i - 1), Size: 8}); err != nil {
					return err
				}
			}
			for k, ev := range steps {
				if k == 1 {
					ev.Addr = r.addr(i)
				}
				if err := emit(ev); err != nil {
					return err
				}
			}
		}
		if err := emit(profile.WPPEvent{Kind: profile.WPPReturn}); err != nil {
			return err
		}
		if err := emit(profile.WPPEvent{Kind: profile.WPPPath}); err != nil {
			return err
		}
	}
	return emit(profile.WPPEvent{Kind: profile.WPPReturn})
}

// nodes is how many statement executions the run has: Main's entry, and
// in each main round Main's statement, Loop's entry, and per round
// Loop's two statements, F's entry and F's statement.
func (r longRun) nodes() int { return 1 + r.main*(2+4*r.rounds) }

// write writes r as a recording in dir, beside its metadata.
func (r longRun) write(t testing.TB, dir string, raw []byte) {
	var evs []profile.WPPEvent
	if err := r.Events(1, func(e *profile.WPPEvent) error { evs = append(evs, *e); return nil }); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := profile.WriteWPP(&buf, r.Header(), []string{r.hash}, map[uint64][]profile.WPPEvent{1: evs}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pathcover.1.1.wpp"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, r.hash+".meta"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// slicedLimit is the memory the child may map (RLIMIT_DATA: its heap,
// every private writable mapping), and slicedSoftLimit the collector's
// soft limit within it, as pathcover sets its own (1.5 GiB, for 2 GB).
// Not RLIMIT_AS: Go reserves address space it never touches
// (TestBuildBoundedMemory). A mapping counts from when the heap first
// grows into it, and the heap grows to its soft limit before the
// collector works hard, plus what large objects leave unused between
// them: run without the limit, the child's heap mapped 975 MB with a
// soft limit of 768 MiB, of which 431 MB were in use at the end; with
// 640 MiB it passed alone and died in CI, beside other tests; with
// 512 MiB, three at once on two cores pass, each at about 570 MB of
// resident memory.
const (
	slicedLimit     = 1 << 30
	slicedSoftLimit = 512 << 20
)

// longCriteria are the statements sliced: Main's last round, and its
// first.
var longCriteria = []Criterion{{File: "p.go", Line: 11}, {File: "p.go", Line: 11, Instance: 1}}

// TestSliceBoundedMemory builds the compact graph (OPT) of a run of more
// than 50 M statement executions in a process that may map at most
// 1 GiB, and slices it; the slices must be those the full graph (FP, the
// oracle) gives on runs of the same program ten thousand times shorter,
// and the graph must have every node. The full graph of the long run
// would take some 5 GB; its calls as read, 28 bytes each, 350 MB.
func TestSliceBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the compact graph of 50 M statement executions")
	}
	hash, raw := longMeta(t)
	long := longRun{hash: hash, main: 12_500, rounds: 1000}
	if os.Getenv("PATHCOVER_SLICE_BOUNDED_CHILD") == "1" {
		slicedChild(t, long, raw)
		return
	}
	if long.nodes() < 50_000_000 {
		t.Fatalf("the run has %d statement executions: the test asks for 50 M", long.nodes())
	}
	// The oracle: FP on runs of 1 and 3 main rounds, whose slices must
	// not depend on how many there were.
	var want []string
	for _, m := range []int{1, 3} {
		dir := t.TempDir()
		short := longRun{hash: hash, main: m, rounds: long.rounds}
		short.write(t, dir, raw)
		g, err := Load(dir, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Nodes) != short.nodes() {
			t.Fatalf("FP: %d nodes in %d main rounds, want %d", len(g.Nodes), m, short.nodes())
		}
		var got []string
		for _, c := range longCriteria {
			s, err := g.Slice(c)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, describeSlice(s))
		}
		if want != nil && !slices.Equal(got, want) {
			t.Fatalf("FP's slices of %d main rounds differ from those of 1:\n%q\n%q", m, got, want)
		}
		want = got
	}
	if !strings.Contains(want[0], "p.go:31 ×1000") {
		t.Fatalf("the slice of a round does not hold its Loop's calls of F:\n%s", want[0])
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestSliceBoundedMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "PATHCOVER_SLICE_BOUNDED_CHILD=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "cannot limit the memory") {
		t.Skipf("%s", out)
	}
	if err != nil {
		t.Fatalf("the slice under a %d MiB limit failed: %v\n%s", slicedLimit>>20, err, out)
	}
	var got []string
	for _, line := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "slice "); ok {
			got = append(got, strings.ReplaceAll(s, ";", "\n"))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("OPT's slices of %d statement executions:\n%q\nFP's of the short runs:\n%q\n%s", long.nodes(), got, want, out)
	}
}

// slicedChild builds OPT of the long run under the limit and prints its
// slices.
func slicedChild(t *testing.T, long longRun, raw []byte) {
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: slicedLimit, Max: slicedLimit}); err != nil {
		t.Skipf("cannot limit the memory: %v", err)
	}
	debug.SetMemoryLimit(slicedSoftLimit)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, long.hash+".meta"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := loadCompactFrom(dir, long)
	if err != nil {
		t.Fatal(err)
	}
	if o.Nodes() != long.nodes() || len(o.Problems) > 0 {
		t.Fatalf("OPT: %d nodes, want %d; problems %q", o.Nodes(), long.nodes(), o.Problems)
	}
	for _, c := range longCriteria {
		s, err := o.Slice(c)
		if err != nil {
			t.Fatal(err)
		}
		if s.Instances != long.main {
			t.Fatalf("%d executions of p.go:11, want %d", s.Instances, long.main)
		}
		fmt.Printf("slice %s\n", strings.ReplaceAll(describeSlice(s), "\n", ";"))
	}
	fmt.Printf("nodes %s\n", strconv.Itoa(o.Nodes()))
}

// describeSlice gives a slice's statements and how many executions of
// each it holds.
func describeSlice(s *Slice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d steps", s.NumSteps())
	for i, st := range s.Stmts {
		fmt.Fprintf(&b, "\n%s:%d ×%d", st.File, st.Line, s.Execs[i])
	}
	return b.String()
}
