package numbering

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"testing"
)

// namedGraph builds a graph from edges "src dst" over named blocks, adding
// blocks as they appear. The first block named is the entry; exit is named.
type namedGraph struct {
	g     Graph
	ids   map[string]BlockID
	names []string
	edges map[string]EdgeID
}

func newNamedGraph(entry, exit string, edges ...string) *namedGraph {
	ng := &namedGraph{ids: map[string]BlockID{}, edges: map[string]EdgeID{}}
	ng.g.Entry = ng.block(entry)
	ng.g.Exit = ng.block(exit)
	for _, e := range edges {
		var src, dst string
		for i := range e {
			if e[i] == ' ' {
				src, dst = e[:i], e[i+1:]
			}
		}
		ng.edges[src+dst] = ng.g.AddEdge(ng.block(src), ng.block(dst), true)
	}
	return ng
}

func (ng *namedGraph) block(name string) BlockID {
	if id, ok := ng.ids[name]; ok {
		return id
	}
	id := ng.g.AddBlock()
	ng.ids[name] = id
	ng.names = append(ng.names, name)
	return id
}

// path spells a DAG path from its blocks, e.g. "sacdt", for graphs with
// one-letter names, no parallel edges and no cuts.
func (ng *namedGraph) path(t *testing.T, n *Numbering, blocks string) []EdgeID {
	t.Helper()
	p := []EdgeID{n.Start(ng.ids[blocks[:1]])}
	for i := 1; i < len(blocks); i++ {
		id, ok := ng.edges[blocks[i-1:i+1]]
		if !ok {
			t.Fatalf("no edge %s in path %s", blocks[i-1:i+1], blocks)
		}
		p = append(p, id)
	}
	return p
}

// fig34 is the DAG of thesis Fig. 3.4. The out edges are listed in the order
// the figure's numbering visits them: (a,c) before (a,b), (c,d) before (c,t).
func fig34() *namedGraph {
	return newNamedGraph("s", "t",
		"s a", "s b", "a c", "a b", "b c", "c d", "c t", "d t")
}

// TestThesisFig34BallLarus checks the Ball-Larus ids the thesis gives in
// §3.2.3: sacdt, sact and sbct are 0, 1 and 5 of six paths.
func TestThesisFig34BallLarus(t *testing.T) {
	ng := fig34()
	n, err := Number(&ng.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n.NumPaths() != 6 || n.Total().Cmp(big.NewInt(6)) != 0 {
		t.Fatalf("N = %d, total %s; want 6", n.NumPaths(), n.Total())
	}
	for path, want := range map[string]uint64{
		"sacdt": 0, "sact": 1, "sabcdt": 2, "sabct": 3, "sbcdt": 4, "sbct": 5,
	} {
		got, err := n.Encode(ng.path(t, n, path))
		if err != nil || got != want {
			t.Errorf("id of %s = %d, %v; want %d", path, got, err, want)
		}
	}
}

// TestThesisFig34PPP runs the example of thesis §3.3.2: I = {sacdt, sact,
// sbct} gets PPP ids 0, 1, 2 with the edge weights of Fig. 3.4(b).
func TestThesisFig34PPP(t *testing.T) {
	ng := fig34()
	n, err := Number(&ng.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := n.Place(nil)
	if err != nil {
		t.Fatal(err)
	}
	q, err := p.PPP([]uint64{0, 1, 5})
	if err != nil {
		t.Fatal(err)
	}
	for bl, want := range map[uint64]uint64{0: 0, 1: 1, 5: 2} {
		if got, ok := q.ID(bl); !ok || got != want {
			t.Errorf("PPP id of BL %d = %d, %v; want %d", bl, got, ok, want)
		}
	}
	if q.Size() != 3 || q.Delta() != 1 {
		t.Errorf("size %d, δ %v; want 3, 1", q.Size(), q.Delta())
	}
	// Steps 2–6 of §3.3.2.
	for edge, want := range map[string]int64{"dt": 0, "cd": 0, "ct": 1, "bc": -1, "ac": 0, "sa": 0, "sb": 2} {
		if got, ok := q.Weight(ng.edges[edge]); !ok || got != want {
			t.Errorf("W(%s) = %d, %v; want %d", edge, got, ok, want)
		}
	}
	if _, ok := q.Weight(ng.edges["ab"]); ok {
		t.Errorf("W(ab) is set; no interesting path takes it")
	}
	// The uninteresting paths alias interesting ones: sabct has PPP id 0 like
	// sacdt, and sbcdt has 1 like sact (the thesis's text says 2 for sbcdt,
	// but the weights of its own Fig. 3.4(b) sum to 1, and it says sbcdt
	// aliases sact). The Ball-Larus check tells them apart.
	for path, wantPPP := range map[string]uint64{"sabct": 0, "sbcdt": 1} {
		edges := ng.path(t, n, path)
		var ppp uint64
		for _, e := range edges {
			w, _ := q.Weight(e)
			ppp += uint64(w)
		}
		bl, _ := n.Encode(edges)
		if ppp != wantPPP {
			t.Errorf("PPP id of %s = %d; want %d", path, ppp, wantPPP)
		}
		if q.accepts(ppp, bl) {
			t.Errorf("alias check accepts uninteresting %s (PPP %d, BL %d)", path, ppp, bl)
		}
	}
	for ppp, want := range []uint64{0, 1, 5} {
		if bl, ok := q.BL(uint64(ppp)); !ok || bl != want {
			t.Errorf("slot %d holds %d, %v; want %d", ppp, bl, ok, want)
		}
	}
	if q.BLDelta() != 2 {
		t.Errorf("Ball-Larus δ = %v; want (5-0+1)/3 = 2", q.BLDelta())
	}
}

// fig1 is the CFG of Ball-Larus 1994 Fig. 1: a loop headed by P whose body
// branches to A or B, with a second exit at R.
func fig1() *namedGraph {
	return newNamedGraph("P", "EXIT",
		"P Q", "P EXIT", "Q A", "Q B", "A R", "B R", "R EXIT", "R C", "C P")
}

// TestBallLarus94Fig1 checks the heuristic weighting of §5.1 on the paper's
// Fig. 1 and the optimal placement of Fig. 3(b). The weights are not printed
// in the text, but they are pinned down by it: the edges weigh 53.5 in all,
// the optimal chords 11.5, and the vertex placement {A, B, C, EXIT} 21.5.
func TestBallLarus94Fig1(t *testing.T) {
	ng := fig1()
	n, err := Number(&ng.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := n.StaticWeights()
	want := map[string]float64{
		"PQ": 10.5, "PEXIT": 0.5, "QA": 5.25, "QB": 5.25, "AR": 5.25,
		"BR": 5.25, "REXIT": 0.5, "RC": 10, "CP": 10,
	}
	var total float64
	for name, wantW := range want {
		if got := w[ng.edges[name]]; math.Abs(got-wantW) > 1e-9 {
			t.Errorf("weight of %s = %v; want %v", name, got, wantW)
		}
		total += w[ng.edges[name]]
	}
	if total+1 != 53.5 { // +1 for EXIT→P
		t.Errorf("total weight %v + 1; want 53.5", total)
	}
	vertex := w[ng.edges["AR"]] + w[ng.edges["BR"]] + w[ng.edges["RC"]] + w[ng.edges["PEXIT"]] + w[ng.edges["REXIT"]]
	if vertex != 21.5 {
		t.Errorf("cost of vertex placement {A,B,C,EXIT} = %v; want 21.5", vertex)
	}
	p, err := n.Place(w)
	if err != nil {
		t.Fatal(err)
	}
	var chordCost float64
	chords := map[EdgeID]bool{}
	for _, c := range p.Chords() {
		chords[c] = true
		chordCost += p.DAGWeight(c)
	}
	for _, name := range []string{"AR", "BR", "PEXIT", "REXIT"} {
		if !chords[ng.edges[name]] {
			t.Errorf("%s is not a chord; Fig. 3(b) puts counters on A→R, B→R, P→EXIT, R→EXIT", name)
		}
	}
	if len(chords) != 4 || chordCost != 11.5 {
		t.Errorf("%d chords costing %v; want 4 costing 11.5", len(chords), chordCost)
	}
	// Five paths: P→EXIT, and P Q {A,B} R then EXIT or the back edge.
	if n.NumPaths() != 5 {
		t.Errorf("N = %d; want 5", n.NumPaths())
	}
	if k, ok := n.CutKind(ng.edges["CP"]); !ok || k != CutBackEdge {
		t.Errorf("C→P cut = %v, %v; want a back edge", k, ok)
	}
}

// TestIfChain70 is the case: a function with 70 ifs in a row has
// 2^70 paths, more than uint64 ids allow, and is cut until they fit.
func TestIfChain70(t *testing.T) {
	g := ifChain(70)
	n, err := Number(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := new(big.Int).Lsh(big.NewInt(1), 70)
	if n.Total().Cmp(want) != 0 {
		t.Errorf("total = %s; want 2^70", n.Total())
	}
	if n.NumPaths() > DefaultMaxPaths || n.NumPaths() < 1<<40 {
		t.Errorf("N = %d; want at most 2^63 and not needlessly small", n.NumPaths())
	}
	limit := 0
	for _, c := range n.Cuts() {
		if c.Kind == CutLimit {
			limit++
		}
	}
	if limit == 0 {
		t.Errorf("no limit cuts: %v", n.Cuts())
	}
	checkRandomWalks(t, n, 200, 1)
}

// ifChain builds n ifs in a row: each condition block branches to a then
// block or straight to the next condition.
func ifChain(n int) *Graph {
	g := &Graph{}
	g.Entry = g.AddBlock()
	cond := g.Entry
	for range n {
		then := g.AddBlock()
		next := g.AddBlock()
		g.AddEdge(cond, then, true)
		g.AddEdge(cond, next, true)
		g.AddEdge(then, next, true)
		cond = next
	}
	g.Exit = g.AddBlock()
	g.AddEdge(cond, g.Exit, true)
	return g
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		g    *Graph
		opts *Options
		want error
	}{
		{"nil", nil, nil, ErrInvalidGraph},
		{"empty", &Graph{}, nil, ErrInvalidGraph},
		{"dangling edge", &Graph{NumBlocks: 2, Exit: 1, Edges: []Edge{{0, 1, true}, {0, 5, true}}}, nil, ErrInvalidGraph},
		{"negative block", &Graph{NumBlocks: 2, Exit: 1, Edges: []Edge{{-1, 1, true}}}, nil, ErrInvalidGraph},
		{"entry out of range", &Graph{NumBlocks: 2, Entry: 7, Exit: 1}, nil, ErrInvalidGraph},
		{"entry is exit", &Graph{NumBlocks: 2, Entry: 1, Exit: 1}, nil, ErrInvalidGraph},
		{"edge out of exit", &Graph{NumBlocks: 2, Exit: 1, Edges: []Edge{{0, 1, true}, {1, 0, true}}}, nil, ErrInvalidGraph},
		{"no path", &Graph{NumBlocks: 3, Exit: 2, Edges: []Edge{{0, 1, true}}}, nil, ErrNoPath},
		{"stuck block", &Graph{NumBlocks: 3, Exit: 2, Edges: []Edge{{0, 1, true}, {0, 2, true}}}, nil, ErrInvalidGraph},
		{"preferred out of range", &Graph{NumBlocks: 2, Exit: 1, Edges: []Edge{{0, 1, true}}}, &Options{Preferred: []EdgeID{3}}, ErrBadOptions},
		{"max paths too big", &Graph{NumBlocks: 2, Exit: 1, Edges: []Edge{{0, 1, true}}}, &Options{MaxPaths: math.MaxUint64}, ErrBadOptions},
		{"unprobed loop", &Graph{NumBlocks: 3, Exit: 2, Edges: []Edge{{0, 1, true}, {1, 0, false}, {1, 2, true}, {0, 0, true}}}, nil, nil},
		{"unprobed cycle", &Graph{NumBlocks: 3, Exit: 2, Edges: []Edge{{0, 1, false}, {1, 0, false}, {1, 2, true}}}, nil, ErrInvalidGraph},
		{"unprobed preferred", &Graph{NumBlocks: 3, Exit: 2, Edges: []Edge{{0, 1, true}, {1, 0, false}, {1, 2, true}}}, &Options{Preferred: []EdgeID{1}}, ErrBadOptions},
		{"too many paths", ifChain(20), &Options{MaxPaths: 1}, ErrTooManyPaths},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Number(tt.g, tt.opts)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Number: %v", err)
				}
				checkNumbering(t, n)
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Number = %v; want an error wrapping %v", err, tt.want)
			}
			t.Log(err)
		})
	}
}

func TestUnprobedTreeCycle(t *testing.T) {
	// A diamond whose four edges cannot hold probes: its two paths can only
	// be told apart by code on one of them.
	g := &Graph{NumBlocks: 4, Exit: 3}
	g.AddEdge(0, 1, false)
	g.AddEdge(0, 2, false)
	g.AddEdge(1, 3, false)
	g.AddEdge(2, 3, false)
	n, err := Number(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = n.Place(nil)
	var uc *UnprobedCycleError
	if !errors.As(err, &uc) || uc.Directed || len(uc.Edges) != 4 {
		t.Fatalf("Place = %v; want an UnprobedCycleError naming the 4 edges", err)
	}
	t.Log(err)
}

func TestBadPaths(t *testing.T) {
	ng := fig34()
	n, err := Number(&ng.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Decode(6); !errors.Is(err, ErrBadPath) {
		t.Errorf("Decode(6) = %v; want ErrBadPath", err)
	}
	p, err := n.Place(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PPP([]uint64{1, 6}); !errors.Is(err, ErrBadPath) {
		t.Errorf("PPP with id 6 of 6 = %v; want ErrBadPath", err)
	}
	for _, bad := range [][]EdgeID{
		nil,
		{n.Start(ng.ids["s"])},                 // stops early
		{ng.edges["sa"]},                       // does not start at the root
		{n.Start(ng.ids["s"]), ng.edges["bc"]}, // not connected
		{n.Start(ng.ids["s"]), 99},             // no such edge
	} {
		if _, err := n.Encode(bad); !errors.Is(err, ErrBadPath) {
			t.Errorf("Encode(%v) = %v; want ErrBadPath", bad, err)
		}
	}
	if _, err := n.CountsFromPaths(map[uint64]uint64{9: 1}); !errors.Is(err, ErrBadPath) {
		t.Errorf("CountsFromPaths with id 9 = %v; want ErrBadPath", err)
	}
	if _, err := p.CountsFromChords(map[EdgeID]uint64{p.Chords()[0]: 5, ng.edges["sa"] + 100: 1}); !errors.Is(err, ErrBadCounts) {
		t.Errorf("CountsFromChords with a non-chord = %v; want ErrBadCounts", err)
	}
	if _, err := n.Place(Weights{1, 2}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("Place with 2 weights = %v; want ErrBadOptions", err)
	}
}

// TestBallLarus94Fig1Ops checks the ops and costs of the placement on Fig. 1,
// worked out by hand. Ball-Larus weights (out edges in graph order): P→EXIT
// 4, Q→B 2, R→C 1, the rest 0. The tree holds root→P, P→Q, Q→A, Q→B, R→C and
// C→EXIT (the end edge of the back edge C→P), so the potentials are φ(B) = 2,
// φ(R) = −1 and 0 elsewhere; the chords get A→R 1, B→R 3, P→EXIT 4 and
// R→EXIT −1. P, Q, A and B are clean (no chord above them) and C is final.
func TestBallLarus94Fig1Ops(t *testing.T) {
	ng := fig1()
	n, err := Number(&ng.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := n.StaticWeights()
	p, err := n.Place(w)
	if err != nil {
		t.Fatal(err)
	}
	minus1 := uint64(math.MaxUint64)
	want := map[string][]Op{
		"PQ": nil, "QA": nil, "QB": nil,
		"PEXIT": {{OpCountConst, ng.edges["PEXIT"], 4}},
		"AR":    {{OpSet, ng.edges["AR"], 1}},
		"BR":    {{OpSet, ng.edges["BR"], 3}},
		"REXIT": {{OpCount, ng.edges["REXIT"], minus1}},
		"RC":    {{OpCount, ng.edges["RC"], 0}},
		"CP":    nil, // its end edge is final; its start edge is clean
	}
	for name, ops := range want {
		if got := p.EdgeOps(ng.edges[name]); !slices.Equal(got, ops) {
			t.Errorf("ops of %s = %v; want %v", name, got, ops)
		}
	}
	if ops := p.EntryOps(); len(ops) != 0 {
		t.Errorf("entry ops = %v; want none", ops)
	}
	// Naive: r += W on P→EXIT, Q→B, R→C; r = 0 at each path start (root→P,
	// 11 times); a counter update on each edge into the exit.
	naive, opt := p.Cost(w)
	if naive != (ProbeCost{Increments: 0.5 + 5.25 + 10, Inits: 11, Updates: 11}) {
		t.Errorf("naive dynamic cost %+v", naive)
	}
	if opt != (ProbeCost{Increments: 5.25 + 5.25, Inits: 0, Updates: 0.5 + 0.5 + 10}) {
		t.Errorf("optimized dynamic cost %+v", opt)
	}
	naive, opt = p.Cost(nil)
	if naive != (ProbeCost{Increments: 3, Inits: 1, Updates: 3}) || opt != (ProbeCost{Increments: 2, Updates: 3}) {
		t.Errorf("static costs: naive %+v, optimized %+v", naive, opt)
	}
}

// TestInfiniteLoop: func f() { for {} } never reaches its exit, but every
// trip around the loop is a path that ends at the back edge.
func TestInfiniteLoop(t *testing.T) {
	g := &Graph{}
	entry, exit, body, post := g.AddBlock(), g.AddBlock(), g.AddBlock(), g.AddBlock()
	g.Entry, g.Exit = entry, exit
	g.AddEdge(entry, body, true)
	toPost := g.AddEdge(body, post, true)
	g.AddEdge(post, body, false) // a post statement cannot hold code
	n, err := Number(g, &Options{Preferred: []EdgeID{toPost}})
	if err != nil {
		t.Fatal(err)
	}
	// entry→body→cut and post→body→cut.
	if n.NumPaths() != 2 {
		t.Errorf("N = %d; want 2", n.NumPaths())
	}
	checkNumbering(t, n)
}

// TestStaticWeightsGoLoop: a Go for loop is cut at its post block, but the
// heuristic's loop is headed by the condition: entered once, it runs 11
// times, leaves once, and goes round 10 times.
func TestStaticWeightsGoLoop(t *testing.T) {
	ng := newNamedGraph("entry", "exit",
		"entry head", "head body", "head done", "body post", "post head", "done exit")
	n, err := Number(&ng.g, &Options{Preferred: []EdgeID{ng.edges["bodypost"]}})
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := n.CutKind(ng.edges["bodypost"]); !ok || k != CutPreferred {
		t.Fatalf("body→post cut = %v, %v; want preferred", k, ok)
	}
	w := n.StaticWeights()
	for edge, want := range map[string]float64{
		"entryhead": 1, "headbody": 10, "headdone": 1, "bodypost": 10, "posthead": 10, "doneexit": 1,
	} {
		if got := w[ng.edges[edge]]; got != want {
			t.Errorf("weight of %s = %v; want %v", edge, got, want)
		}
	}
}

// TestStaticWeightsNestedLoop: a loop inside a loop, as Go cuts them (at
// their post blocks), with a return from the inner body that leaves both.
// The outer loop's head runs 11 times per call, and the loop leaves by its
// condition or the return (1/2 of the entry each); the inner loop is
// entered on each of the outer's 10.5 rounds and its head runs 11 times per
// entry. The inner body's blocks
// are part of the outer body: when the search for the outer body skipped
// the inner back edge, the edge into them counted as an exit of the outer
// loop and the inner body weighed a hundredth of this.
func TestStaticWeightsNestedLoop(t *testing.T) {
	ng := newNamedGraph("entry", "exit",
		"entry ohead", "ohead obody", "ohead odone", "odone exit",
		"obody ihead", "ihead ibody", "ihead idone", "ibody ret", "ret exit", "ibody ipost", "ipost ihead",
		"idone opost", "opost ohead")
	n, err := Number(&ng.g, &Options{Preferred: []EdgeID{ng.edges["ibodyipost"], ng.edges["idoneopost"]}})
	if err != nil {
		t.Fatal(err)
	}
	w := n.StaticWeights()
	// Outer: entered once, 11 rounds of its head; exits odone and the
	// return share the one entry, 1/2 each; obody gets the other 10.5.
	// Inner: entered 10.5 times, 115.5 rounds of its head; its exits idone
	// and the return get 10.5/2 each, but the return leaves the outer loop
	// too and takes the smaller share, 1/2.
	for edge, want := range map[string]float64{
		"entryohead": 1, "oheadodone": 0.5, "oheadobody": 10.5,
		"obodyihead": 10.5, "iheadidone": 5.25, "iheadibody": 115.5 - 5.25,
		"ibodyret": 0.5, "ibodyipost": 115.5 - 5.25 - 0.5, "ipostihead": 115.5 - 5.25 - 0.5,
	} {
		if got := w[ng.edges[edge]]; math.Abs(got-want) > 1e-9 {
			t.Errorf("weight of %s = %v; want %v", edge, got, want)
		}
	}
}
