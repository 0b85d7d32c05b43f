package slice_test

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pathcover/pathcover/internal/query/slice"
	"github.com/pathcover/pathcover/internal/query/wet"
)

// The oracle: the compact graph (OPT) and the demand-driven slicer (LP)
// must give exactly the full graph's (FP) slices, which TestHandSlices
// holds to slices worked out by hand.

// oraclePrograms are the programs the oracle records: the constructs of
// the hand-checked slices, and a program of goroutines, channels,
// callbacks, panics and iterators.
var oraclePrograms = []struct{ dir, pkg string }{
	{"testdata/constructs", "example.com/constructs"},
	{"testdata/mixed", "example.com/mixed"},
}

// recordProgram records the program in dir (relative) with pppexec's
// mode, once for all the tests.
func recordProgram(t *testing.T, dir, pkg, mode string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return recordMode(t, abs, pkg, mode)
}

// TestOPTNodes requires every node of OPT and LP to have FP's
// dependences: data, definitions, memory, control and call.
func TestOPTNodes(t *testing.T) {
	for _, p := range oraclePrograms {
		t.Run(filepath.Base(p.dir), func(t *testing.T) {
			prof := recordProgram(t, p.dir, p.pkg, "-deps")
			gs := openGraphs(t, prof)
			fp, opt := gs.fp, gs.opt
			if len(fp.Nodes) < 100 {
				t.Fatalf("%d nodes: the program did not run", len(fp.Nodes))
			}
			// What the bench counts: every dependence, those OPT labels
			// (through memory), the statements that ran.
			var deps, memory int64
			executed := make(map[slice.Stmt]bool)
			for i := range fp.Nodes {
				n := &fp.Nodes[i]
				deps += int64(len(n.Data) + len(n.Memory))
				memory += int64(len(n.Memory))
				if n.Control >= 0 {
					deps++
				}
				if n.Call >= 0 {
					deps++
				}
				if n.Stmt > 0 {
					executed[fp.Stmt(int32(i))] = true
				}
			}
			if d, l := opt.Count(); d != deps || l != memory || memory == 0 {
				t.Errorf("OPT counts %d dependences, %d labelled; FP has %d, %d through memory", d, l, deps, memory)
			}
			if got := opt.Executed(); len(got) != len(executed) || !slices.IsSortedFunc(got, func(a, b slice.Stmt) int {
				return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
			}) {
				t.Errorf("OPT lists %d statements that ran, FP %d", len(got), len(executed))
			} else {
				for _, st := range got {
					if !executed[st] {
						t.Errorf("OPT lists %+v as run, FP not", st)
					}
				}
			}
			if opt.Bytes() <= 0 || opt.Bytes() >= fp.Bytes() {
				t.Errorf("OPT holds %d bytes, FP %d", opt.Bytes(), fp.Bytes())
			}
			for _, g := range gs.all[1:] {
				if !slices.Equal(sorted(g.problems), sorted(fp.Problems)) {
					t.Errorf("%s's problems %q, FP's %q", g.name, g.problems, fp.Problems)
				}
				bad := 0
				for n := range int32(len(fp.Nodes)) {
					want := describe(fp.Funcs, &fp.Nodes[n])
					got, err := g.node(n)
					if err != nil {
						t.Fatalf("%s: node %d: %v", g.name, n, err)
					}
					if d := describe(g.funcs(), got); d != want {
						if bad++; bad <= 5 {
							t.Errorf("%s: node %d:\n got %s\nwant %s", g.name, n, d, want)
						}
					}
				}
				if _, err := g.node(int32(len(fp.Nodes))); err == nil {
					t.Errorf("%s has a node past FP's %d", g.name, len(fp.Nodes))
				}
			}
			// A slice asks for nodes going down the run, and across it:
			// OPT's cursor (templates of the calls' shapes) must give
			// FP's nodes in those orders too, and give most of them.
			order := make([]int32, len(fp.Nodes))
			for i := range order {
				order[i] = int32(len(order) - 1 - i)
			}
			down := slices.Clone(order)
			rand.New(rand.NewPCG(5, 6)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for i, ns := range [][]int32{down, order, down, order} {
				fresh, err := slice.LoadCompact(prof)
				if err != nil {
					t.Fatal(err)
				}
				windowed := i >= 2 // calls of more than 3 statements replayed: the cursor gives the others
				if windowed {
					slice.ReplayInWindows(fresh, 3)
				}
				for _, n := range ns {
					got, err := fresh.Node(n)
					if err != nil {
						t.Fatalf("OPT: node %d: %v", n, err)
					}
					if d, want := describe(fresh.Funcs(), got), describe(fp.Funcs, &fp.Nodes[n]); d != want {
						t.Fatalf("OPT, nodes asked out of order: node %d:\n got %s\nwant %s", n, d, want)
					}
				}
				t.Logf("cursor: %d of %d nodes (windowed: %v)", slice.CursorAnswered(fresh), len(ns), windowed)
				if !windowed && slice.CursorAnswered(fresh) < len(ns)/2 {
					t.Errorf("OPT's cursor gave %d of %d nodes", slice.CursorAnswered(fresh), len(ns))
				}
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// describe prints a node with its function by name (the graphs number
// functions each their way).
func describe(funcs []*slice.Func, n *slice.Node) string {
	norm := func(s []int32) []int32 {
		if len(s) == 0 {
			return nil
		}
		return s
	}
	return fmt.Sprintf("%s stmt %d data %v defs %v memory %v control %d call %d potential %v", funcs[n.Func].Name(), n.Stmt, norm(n.Data), norm(n.Defs), norm(n.Memory), n.Control, n.Call, norm(n.Potential))
}

// TestOPTSlices slices, with each graph, every statement that ran: every
// execution of those that ran at most 12 times, else the first, the second,
// the last and 6 chosen at random (seeded); from each variable a statement
// reads, and from the whole line; and requires OPT's and LP's slices to be
// FP's: the same executions, steps, statements and memory not recorded.
func TestOPTSlices(t *testing.T) {
	for _, p := range oraclePrograms {
		t.Run(filepath.Base(p.dir), func(t *testing.T) {
			gs := openGraphs(t, recordProgram(t, p.dir, p.pkg, "-deps"))
			fp := gs.fp
			criteria := oracleCriteria(fp)
			if len(criteria) < 100 {
				t.Fatalf("%d criteria", len(criteria))
			}
			for _, c := range criteria {
				want, wantErr := gs.all[0].slice(c)
				if wantErr == nil {
					checkChain(t, want)
				}
				for _, g := range gs.all[1:] {
					got, err := g.slice(c)
					if (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error() {
						t.Fatalf("%s: %+v: error %v, FP's %v", g.name, c, err, wantErr)
					}
					if !slice.SameSlice(t, got, want) {
						t.Fatalf("%s: %+v: slice\n%+v\nFP's\n%+v", g.name, c, got, want)
					}
				}
			}
			t.Logf("%d criteria, %d nodes", len(criteria), len(fp.Nodes))
		})
	}
}

// oracleCriteria returns the criteria of a run (see TestOPTSlices).
func oracleCriteria(g *slice.Graph) []slice.Criterion {
	type place struct {
		file      string
		line, col int
	}
	count := make(map[place]int)
	vars := make(map[place][]string)
	var places []place
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if n.Stmt == 0 {
			continue
		}
		st := g.Stmt(int32(i))
		p := place{st.File, st.Line, st.Col}
		if count[p] == 0 {
			places = append(places, p)
			f := g.Funcs[n.Func]
			for _, v := range f.Deps.Stmts[n.Stmt].Uses {
				vars[p] = append(vars[p], f.Deps.Vars[v].Name)
			}
		}
		count[p]++
	}
	r := rand.New(rand.NewPCG(17, 4))
	var cs []slice.Criterion
	lines := make(map[place]bool)
	for _, p := range places {
		c := slice.Criterion{File: p.file, Line: p.line, Col: p.col}
		n := len(g.Find(c))
		if n <= 12 {
			for i := range n {
				c.Instance = i + 1
				cs = append(cs, c)
			}
		} else {
			for _, i := range []int{1, 2, 0, 1 + r.IntN(n), 1 + r.IntN(n), 1 + r.IntN(n), 1 + r.IntN(n), 1 + r.IntN(n), 1 + r.IntN(n)} {
				c.Instance = i
				cs = append(cs, c)
			}
		}
		for _, v := range vars[p] {
			cs = append(cs, slice.Criterion{File: p.file, Line: p.line, Col: p.col, Var: v}, slice.Criterion{File: p.file, Line: p.line, Col: p.col, Var: v, Instance: 1})
		}
		if l := (place{p.file, p.line, 0}); !lines[l] {
			lines[l] = true
			cs = append(cs, slice.Criterion{File: p.file, Line: p.line}, slice.Criterion{File: filepath.Base(p.file), Line: p.line, Instance: 1 + r.IntN(n)})
		}
	}
	// And criteria that find nothing, or ask for an execution that was
	// not.
	cs = append(cs, slice.Criterion{File: "nosuch.go", Line: 1}, slice.Criterion{File: places[0].file, Line: places[0].line, Instance: 1 << 20})
	// Each again as a relevant slice.
	for _, c := range slices.Clone(cs) {
		c.Potential = true
		cs = append(cs, c)
	}
	return cs
}

// TestWETSlices builds OPT from the WET of a -wet recording, read back
// from its file, and requires every node and every slice of the oracle's
// criteria to be those of FP on the same recording.
func TestWETSlices(t *testing.T) {
	for _, p := range oraclePrograms {
		t.Run(filepath.Base(p.dir), func(t *testing.T) {
			prof := recordProgram(t, p.dir, p.pkg, "-wet")
			fp, err := slice.Load(prof, 0)
			if err != nil {
				t.Fatal(err)
			}
			built, err := wet.BuildDir(prof, nil)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := built.Write(&buf); err != nil {
				t.Fatal(err)
			}
			w, err := wet.Parse(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			g, err := slice.LoadWET(prof, w)
			if err != nil {
				t.Fatal(err)
			}
			if g.Nodes() != len(fp.Nodes) || len(fp.Nodes) < 100 {
				t.Fatalf("%d nodes from the WET, FP %d", g.Nodes(), len(fp.Nodes))
			}
			if d, l := g.Count(); l == 0 || d == 0 {
				t.Errorf("%d dependences, %d through memory", d, l)
			}
			bad := 0
			for n := range int32(len(fp.Nodes)) {
				got, err := g.Node(n)
				if err != nil {
					t.Fatalf("node %d: %v", n, err)
				}
				if d, want := describe(g.Funcs(), got), describe(fp.Funcs, &fp.Nodes[n]); d != want {
					if bad++; bad <= 5 {
						t.Errorf("node %d:\n got %s\nwant %s", n, d, want)
					}
				}
			}
			criteria := oracleCriteria(fp)
			for _, c := range criteria {
				want, wantErr := fp.Slice(c)
				got, err := g.Slice(c)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || !slice.SameSlice(t, got, want) {
					t.Fatalf("%+v: slice\n%+v (%v)\nFP's\n%+v (%v)", c, got, err, want, wantErr)
				}
			}
			// The values the WET gives each node are those the recording
			// gives it (in the order of their sites, which the WET keeps
			// apart).
			all := make([]int32, len(fp.Nodes))
			for n := range all {
				all[n] = int32(n)
			}
			want, _, err := slice.ValuesOf(prof, all)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := slice.ValuesOfWET(prof, w, all)
			if err != nil {
				t.Fatal(err)
			}
			text := func(vs []slice.Value) []string {
				var out []string
				for _, v := range vs {
					out = append(out, fmt.Sprintf("%s %v %v", v.Var, v.After, v.Words))
				}
				slices.Sort(out)
				return out
			}
			values := 0
			for n := range all {
				values += len(want[int32(n)])
				if a, b := text(got[int32(n)]), text(want[int32(n)]); !slices.Equal(a, b) {
					t.Fatalf("node %d: values %q from the WET, %q from the recording", n, a, b)
				}
			}
			if values < 50 {
				t.Errorf("%d values at %d nodes", values, len(want))
			}
			t.Logf("%d criteria, %d nodes, %d values; FP's problems %q, the WET's %q", len(criteria), len(fp.Nodes), values, fp.Problems, g.Problems)
		})
	}
}
