package slice

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// fuzzMeta is a package of one function, a diamond, with statements that
// define, use, call and read memory.
func fuzzMeta(t testing.TB) (hash string, raw []byte) {
	g := numbering.Graph{}
	entry, exit, a, b := g.AddBlock(), g.AddBlock(), g.AddBlock(), g.AddBlock()
	g.Entry, g.Exit = entry, exit
	g.AddEdge(entry, a, true)
	g.AddEdge(entry, b, true)
	g.AddEdge(a, b, true)
	g.AddEdge(b, exit, true)
	n, err := numbering.Number(&g, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := profile.GraphFunc(&g, nil)
	f.Name, f.Line, f.EndLine = "F", 1, 9
	f.Paths, f.Total = n.NumPaths(), n.Total().String()
	f.Counters = profile.Counters{Kind: profile.CounterArray, Size: int(n.NumPaths())}
	f.Deps = &profile.Deps{
		Vars:    []profile.DepVar{{Name: "x", Kind: profile.ValueInt}, {Name: "y", Kind: profile.ValueString}},
		Params:  []int32{0},
		Results: []int32{1},
		Stmts: []profile.DepStmt{
			{Line: 1, Defs: []int32{0}},
			{Line: 2, Defs: []int32{1}, Uses: []int32{0}, Calls: []profile.DepCall{{Package: "p", Func: "F", Args: [][]int32{{0}}}}},
			{Line: 3, Uses: []int32{1}, Defs: []int32{1}, Return: true, Calls: []profile.DepCall{{Method: "M"}}, Defer: true},
			// The entry's condition, which decides whether y is defined
			// before line 3 reads it: a potential dependence of line 3
			// when the path passes line 2 over.
			{Line: 4, Uses: []int32{0}},
		},
		Blocks: [][]int32{{3}, nil, {1}, {2}},
		Values: []profile.DepValue{{Var: 0, Stmt: 1, After: true}, {Var: 1, Stmt: 2}},
	}
	m := &profile.Meta{Format: profile.MetaFormat, Package: "p", Mode: profile.ModeBallLarus, Files: []string{"p.go"}, Words: f.Counters.Size, Funcs: []profile.Func{f}}
	raw, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := profile.ParseMeta(raw); err != nil {
		t.Fatal(err)
	}
	return profile.Hash(raw), raw
}

// FuzzLoad replays random recordings of that package (calls, paths valid
// or not, memory accesses of any size, spawns): Load gives a graph or an
// error, never a panic or a hang, and every slice of it works; the
// compact graph (OPT) and the demand-driven slicer (LP) give the same
// error, or every node with the same dependences and the same slices.
func FuzzLoad(f *testing.F) {
	f.Add(uint64(1), uint16(50))
	f.Add(uint64(2), uint16(400))
	f.Add(uint64(3), uint16(5))
	f.Add(uint64(46), uint16(521)) // values at four nodes
	f.Fuzz(func(t *testing.T, seed uint64, n uint16) {
		hash, raw := fuzzMeta(t)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzRecording(t, dir, hash, seed, n, false)
		g, err := Load(dir, 100000)
		o, oerr := LoadCompact(dir)
		// LP sorts its accesses and reads a few at a time too.
		lp, lerr := openDemand(dir, 1+int(seed%5))
		if lerr == nil {
			defer lp.Close()
		}
		if fmt.Sprint(err) != fmt.Sprint(oerr) || fmt.Sprint(err) != fmt.Sprint(lerr) {
			t.Fatalf("FP's error %v, OPT's %v, LP's %v", err, oerr, lerr)
		}
		if err != nil {
			return
		}
		if !slices.Equal(g.Problems, o.Problems) || !slices.Equal(g.Problems, lp.Problems) {
			t.Errorf("problems: FP's %q, OPT's %q, LP's %q", g.Problems, o.Problems, lp.Problems)
		}
		if o.Nodes() != len(g.Nodes) || lp.Nodes() != len(g.Nodes) {
			t.Fatalf("%d nodes, OPT %d, LP %d", len(g.Nodes), o.Nodes(), lp.Nodes())
		}
		// OPT again, its accesses and labels sorted a few at a time
		// through temporary files (spill), and its calls replayed in
		// windows of a few statements, held in a few kilobytes
		// (replayCache): each call of more is replayed a window at a
		// time from checkpoints.
		windowed, err := LoadCompactSpilling(dir, 1+int(seed%7))
		if err != nil {
			t.Fatal(err)
		}
		ReplayInWindows(windowed, 1+int(seed%4))
		for n := range int32(len(g.Nodes)) {
			want := fuzzNode(g.Funcs, &g.Nodes[n])
			for _, x := range []interface {
				nodeAt(int32) (*Node, error)
				funcAt(int32) *Func
			}{o, lp, windowed} {
				got, err := x.nodeAt(n)
				if err != nil {
					t.Fatalf("node %d: %v", n, err)
				}
				if d := fuzzNode(nil, got); d != fuzzNode(nil, &g.Nodes[n]) || x.funcAt(got.Func).Name() != g.Funcs[g.Nodes[n].Func].Name() {
					t.Fatalf("%T: node %d: %s, FP's %s", x, n, d, want)
				}
			}
		}
		// Going down the run, as a slice does: OPT's cursor moves the
		// other way through the calls.
		for n := int32(len(g.Nodes)) - 1; n >= 0; n-- {
			for _, x := range []*Compact{o, windowed} {
				got, err := x.nodeAt(n)
				if err != nil {
					t.Fatalf("node %d: %v", n, err)
				}
				if d, want := fuzzNode(nil, got), fuzzNode(nil, &g.Nodes[n]); d != want {
					t.Fatalf("node %d, going down: %s, FP's %s", n, d, want)
				}
			}
		}
		// Values are read from the same recording: whole values only, at
		// nodes of the statements their sites name.
		all := make([]int32, len(g.Nodes))
		for n := range all {
			all[n] = int32(n)
		}
		vals, _, verr := ValuesOf(dir, all)
		if verr != nil {
			t.Fatalf("ValuesOf: %v", verr)
		}
		for n, vs := range vals {
			node := &g.Nodes[n]
			for _, v := range vs {
				var site *profile.DepValue
				for i, dv := range g.Funcs[node.Func].Deps.Values {
					if dv.Stmt == node.Stmt && g.Funcs[node.Func].Deps.Vars[dv.Var].Name == v.Var {
						site = &g.Funcs[node.Func].Deps.Values[i]
					}
				}
				if site == nil || site.After != v.After || len(v.Words) != v.Kind.Words() || v.Text != v.Kind.Format(v.Words) {
					t.Fatalf("node %d (statement %d): value %+v", n, node.Stmt, v)
				}
			}
		}
		// The WET of the recording, through its file, gives OPT the same
		// nodes and slices (LoadWET), where the WET can be built.
		var ow *Compact
		if built, err := wet.BuildDir(dir, nil); err == nil {
			var buf bytes.Buffer
			if err := built.Write(&buf); err != nil {
				t.Fatal(err)
			}
			w, err := wet.Parse(buf.Bytes())
			if err != nil {
				t.Fatalf("the WET's file: %v", err)
			}
			// Its accesses sorted on disk, a few at a time.
			spillWET = 1 + int(seed%5)
			ow, err = LoadWET(dir, w)
			spillWET = 1 << 20
			if err != nil {
				t.Fatalf("LoadWET: %v", err)
			}
			if ow.Nodes() != len(g.Nodes) {
				t.Fatalf("%d nodes from the WET, FP %d", ow.Nodes(), len(g.Nodes))
			}
			for n := range int32(len(g.Nodes)) {
				got, err := ow.nodeAt(n)
				if err != nil {
					t.Fatalf("WET: node %d: %v", n, err)
				}
				if d, want := fuzzNode(nil, got), fuzzNode(nil, &g.Nodes[n]); d != want {
					t.Fatalf("WET: node %d: %s, FP's %s", n, d, want)
				}
			}
		}
		for line := 1; line <= 3; line++ {
			for _, c := range []Criterion{{File: "p.go", Line: line}, {File: "p.go", Line: line, Var: "y", Instance: 2}, {File: "p.go", Line: line, Instance: 1}, {File: "p.go", Line: line, Potential: true}, {File: "p.go", Line: line, Var: "y", Potential: true}} {
				want, werr := g.Slice(c)
				got, oerr := o.Slice(c)
				lgot, lerr := lp.Slice(c)
				if fmt.Sprint(werr) != fmt.Sprint(oerr) || fmt.Sprint(werr) != fmt.Sprint(lerr) || !sameSlice(t, want, got) || !sameSlice(t, want, lgot) {
					t.Fatalf("slice %+v: FP's %+v (%v), OPT's %+v (%v), LP's %+v (%v)", c, want, werr, got, oerr, lgot, lerr)
				}
				if ow != nil {
					if wgot, err := ow.Slice(c); fmt.Sprint(werr) != fmt.Sprint(err) || !sameSlice(t, want, wgot) {
						t.Fatalf("slice %+v: FP's %+v (%v), the WET's %+v (%v)", c, want, werr, wgot, err)
					}
				}
			}
		}
	})
}

// fuzzNode prints a node's dependences.
func fuzzNode(funcs []*Func, n *Node) string {
	norm := func(s []int32) []int32 {
		if len(s) == 0 {
			return nil
		}
		return s
	}
	name := ""
	if funcs != nil {
		name = funcs[n.Func].Name()
	}
	return fmt.Sprintf("%s %d data %v defs %v memory %v control %d call %d potential %v", name, n.Stmt, norm(n.Data), norm(n.Defs), norm(n.Memory), n.Control, n.Call, norm(n.Potential))
}

// fuzzRecording writes into dir a random recording of fuzzMeta's package
// (metadata hash): calls (now and then of a function the metadata lacks),
// paths valid or not, memory accesses of any size, some by a call below
// the current one, values, spawns.
// With valid, the recording is one a program could write: every call of a
// function the metadata has, every path one it has, every value whole.
func fuzzRecording(t testing.TB, dir, hash string, seed uint64, n uint16, valid bool) {
	r := rand.New(rand.NewPCG(seed, 9))
	goroutines := make(map[uint64][]profile.WPPEvent)
	for g := range uint64(1 + r.IntN(3)) {
		var evs []profile.WPPEvent
		if g > 0 {
			evs = append(evs, profile.WPPEvent{Kind: profile.WPPStart, Parent: 1, Spawn: uint64(r.IntN(4))})
		}
		depth := 0
		for range int(n) % 600 {
			switch k := r.IntN(10); {
			case k < 3:
				// A function the metadata lacks, now and then: an error.
				fn := uint32(r.IntN(500) / 499)
				if valid {
					fn = 0
				}
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1, Func: fn})
				depth++
			case k < 6 && depth > 0:
				path := uint64(r.IntN(4))
				if valid {
					path %= 2
				}
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPPath, Path: path})
			case k < 8 && depth > 0:
				size := uint64(r.IntN(64))
				if r.IntN(10) == 0 {
					size = r.Uint64()
				}
				// Now and then by a call below the current one (a
				// range-over-func body's).
				up := uint32(0)
				if depth > 1 && r.IntN(6) == 0 {
					up = uint32(1 + r.IntN(depth-1))
				}
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPMemory, Up: up, Stmt: uint32(r.IntN(4)), Access: profile.WPPAccess(r.IntN(8)),
					Flags: uint8(r.IntN(2)), Seq: uint64(1 + r.IntN(3)), Addr: uint64(r.IntN(256)), Size: size, Src: uint64(r.IntN(256))})
			case k == 8 && depth > 0 && r.IntN(2) == 0:
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPSpawn, Spawn: uint64(r.IntN(4))})
			case k == 8 && depth > 0:
				// A word of a value: of a site or not, in turn or not.
				if valid {
					evs = append(evs, profile.WPPEvent{Kind: profile.WPPValue, Site: 0, Value: r.Uint64()})
					continue
				}
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPValue, Site: uint32(r.IntN(3)), Part: uint8(r.IntN(2)), Value: r.Uint64()})
			case depth > 0:
				evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
				depth--
			}
		}
		goroutines[g+1] = evs
	}
	var buf bytes.Buffer
	if err := profile.WriteWPP(&buf, profile.WPPHeader{Limit: 1 << 30}, []string{hash}, goroutines); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pathcover.1.1.wpp"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzLoadWET reads WET files, those of random recordings and what the
// fuzzer makes of them, with fuzzMeta's metadata: a file that wet.Parse
// accepts gives a graph or an error, never a panic or a hang, and its
// slices and values work.
func FuzzLoadWET(f *testing.F) {
	seeds := 0
	for seed := uint64(0); seeds < 4 && seed < 400; seed++ {
		hash, raw := fuzzMeta(f)
		dir := f.TempDir()
		if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o644); err != nil {
			f.Fatal(err)
		}
		fuzzRecording(f, dir, hash, seed, 300, true)
		w, err := wet.BuildDir(dir, nil)
		if err != nil {
			continue // a path the function does not have, or a word out of turn
		}
		seeds++
		var buf bytes.Buffer
		if err := w.Write(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	if seeds < 4 {
		f.Fatalf("%d WETs of random recordings", seeds)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := wet.Parse(data)
		if err != nil {
			return
		}
		hash, raw := fuzzMeta(t)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		o, err := LoadWET(dir, w)
		if err != nil {
			return
		}
		all := make([]int32, o.Nodes())
		for n := range all {
			all[n] = int32(n)
			if _, err := o.Node(int32(n)); err != nil {
				t.Fatalf("node %d: %v", n, err)
			}
		}
		for line := 1; line <= 3; line++ {
			o.Slice(Criterion{File: "p.go", Line: line})
		}
		if _, _, err := ValuesOfWET(dir, w, all); err != nil {
			t.Fatalf("values: %v", err)
		}
	})
}

// sameSlice reports whether slices a and b are the same: criterion,
// statements, executions, memory and every step, walked again (nil and nil
// are the same).
func sameSlice(t *testing.T, a, b *Slice) bool {
	t.Helper()
	if a == nil || b == nil {
		return a == b
	}
	sa, sb := stepsAgreeing(t, a), stepsAgreeing(t, b)
	return a.Criterion == b.Criterion && a.Instances == b.Instances && slices.Equal(a.Stmts, b.Stmts) && slices.Equal(a.Execs, b.Execs) &&
		slices.Equal(a.Memory, b.Memory) && reflect.DeepEqual(sa, sb)
}

// stepsAgreeing returns the steps of s, walked breadth first (walkSlice),
// having required them to be the nodes slicing found (markSlice, in
// another order): as many, each node once, each statement's executions
// as many as s counts.
func stepsAgreeing(t *testing.T, s *Slice) []Step {
	t.Helper()
	steps, err := s.Steps(0, s.NumSteps()+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != s.NumSteps() {
		t.Fatalf("the walk of a slice of %d steps has %d", s.NumSteps(), len(steps))
	}
	nodes := make(map[int32]bool)
	execs := make(map[Stmt]int)
	for _, st := range steps {
		if nodes[st.Node] {
			t.Fatalf("the walk meets node %d twice", st.Node)
		}
		nodes[st.Node] = true
		execs[st.Stmt]++
	}
	if len(execs) != len(s.Stmts) {
		t.Fatalf("the walk meets %d statements, the slice has %d", len(execs), len(s.Stmts))
	}
	for i, st := range s.Stmts {
		if execs[st] != s.Execs[i] {
			t.Fatalf("the walk meets %d executions of %v, the slice counts %d", execs[st], st, s.Execs[i])
		}
	}
	return steps
}

// TestProcessesShareNoMemory requires a read in one process not to depend
// on a write to the same address in another (each package's test binary
// is a process of its own), where it does within one process: with each
// graph.
func TestProcessesShareNoMemory(t *testing.T) {
	hash, raw := fuzzMeta(t)
	store := []profile.WPPEvent{{Kind: profile.WPPEnter, Pkg: 1}, {Kind: profile.WPPMemory, Stmt: 1, Access: profile.WPPStore, Seq: 1, Addr: 4096, Size: 8}, {Kind: profile.WPPPath, Path: 0}, {Kind: profile.WPPReturn}}
	load := []profile.WPPEvent{{Kind: profile.WPPEnter, Pkg: 1}, {Kind: profile.WPPMemory, Stmt: 2, Access: profile.WPPLoad, Seq: 2, Addr: 4096, Size: 8}, {Kind: profile.WPPPath, Path: 0}, {Kind: profile.WPPReturn}}
	for _, tc := range []struct {
		name  string
		files []map[uint64][]profile.WPPEvent
		want  int
	}{
		{"one process", []map[uint64][]profile.WPPEvent{{1: store, 2: append([]profile.WPPEvent{{Kind: profile.WPPStart, Parent: 1}}, load...)}}, 1},
		{"two processes", []map[uint64][]profile.WPPEvent{{1: store}, {1: load}}, 0},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		for i, gs := range tc.files {
			var buf bytes.Buffer
			if err := profile.WriteWPP(&buf, profile.WPPHeader{Limit: 1 << 30, Ended: true}, []string{hash}, gs); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("pathcover.%d.1.wpp", i+1)), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g, err := Load(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		o, err := LoadCompact(dir)
		if err != nil {
			t.Fatal(err)
		}
		lp, err := OpenDemand(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer lp.Close()
		for _, x := range []struct {
			name string
			node func(int32) (*Node, error)
		}{{"FP", func(n int32) (*Node, error) { return &g.Nodes[n], nil }}, {"OPT", o.Node}, {"LP", lp.Node}} {
			deps := 0
			for n := range int32(len(g.Nodes)) {
				nd, err := x.node(n)
				if err != nil {
					t.Fatal(err)
				}
				deps += len(nd.Memory)
			}
			if deps != tc.want || len(g.Problems) > 0 {
				t.Errorf("%s, %s: %d dependences through memory, want %d (problems %q)", tc.name, x.name, deps, tc.want, g.Problems)
			}
		}
	}
}
