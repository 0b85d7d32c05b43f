package numbering

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The properties below are checked on every graph the tests and the fuzzer
// make. The oracles do not use the numbering's DAG: paths are enumerated on
// the graph itself, from the set of cut edges, and executions are random
// walks on the graph run through the ops the instrumentation would insert.

// maxEnumerate bounds the graphs whose paths are all enumerated.
const maxEnumerate = 3000

// checkNumbering checks every property of n that does not need weights, then
// places with the static weights and checks the placement.
func checkNumbering(t *testing.T, n *Numbering) {
	t.Helper()
	g := n.Graph()
	// The DAG is acyclic and made of the graph's uncut reachable edges and
	// dummies as documented.
	pos := make(map[BlockID]int)
	for i, v := range n.Topo() {
		pos[v] = i
	}
	for id := range n.NumDAGEdges() {
		e := n.Edge(EdgeID(id))
		if !n.InDAG(EdgeID(id)) {
			if id >= len(g.Edges) {
				t.Fatalf("dummy e%d not in the DAG", id)
			}
			if _, cut := n.CutKind(EdgeID(id)); !cut && n.Reachable(e.Src) {
				t.Fatalf("reachable uncut e%d not in the DAG", id)
			}
			continue
		}
		if pos[e.Src] >= pos[e.Dst] {
			t.Fatalf("DAG edge e%d goes against the topological order", id)
		}
		switch e.Kind {
		case RealEdge:
			if ge := g.Edges[id]; ge.Src != e.Src || ge.Dst != e.Dst {
				t.Fatalf("real e%d differs from the graph's", id)
			}
		case StartEdge:
			if e.Src != n.Root() {
				t.Fatalf("start e%d does not leave the root", id)
			}
		case EndEdge:
			if e.Dst != g.Exit || g.Edges[e.Cut].Src != e.Src {
				t.Fatalf("end e%d does not stand for cut e%d", id, e.Cut)
			}
		}
	}
	for _, c := range n.Cuts() {
		if !g.Edges[c.Edge].Probe {
			t.Fatalf("cut e%d cannot hold a probe", c.Edge)
		}
	}
	if n.NumPaths() > DefaultMaxPaths {
		t.Fatalf("N = %d > 2^63", n.NumPaths())
	}
	hasLimit := slices.ContainsFunc(n.Cuts(), func(c Cut) bool { return c.Kind == CutLimit })
	if !hasLimit && n.Total().Cmp(new(big.Int).SetUint64(n.NumPaths())) != 0 {
		t.Fatalf("total %s ≠ N %d without limit cuts", n.Total(), n.NumPaths())
	}

	p, err := n.Place(nil)
	var uc *UnprobedCycleError
	if errors.As(err, &uc) || errors.Is(err, ErrInvalidGraph) {
		t.Logf("placement refused: %v", err)
		return
	}
	if err != nil {
		t.Fatalf("Place: %v", err)
	}
	for id := range n.NumDAGEdges() {
		if op, ok := p.Op(EdgeID(id)); ok && !p.probe(EdgeID(id)) {
			t.Fatalf("op %v on e%d, which cannot hold a probe", op.Kind, id)
		}
		if p.Inc(EdgeID(id)) != 0 && p.InTree(EdgeID(id)) {
			t.Fatalf("tree edge e%d has an increment", id)
		}
	}

	if err := p.Check(nil, maxEnumerate); err != nil {
		t.Fatal(err)
	}
	if paths, all := n.enumerate(maxEnumerate); all && !hasLimit && n.Total().Cmp(big.NewInt(int64(len(paths)))) != 0 {
		t.Fatalf("%d paths on the graph, total %s", len(paths), n.Total())
	}
	// A random third of the paths are interesting.
	rng := rand.New(rand.NewPCG(n.NumPaths(), uint64(len(g.Edges))))
	var interesting []uint64
	for range min(n.NumPaths(), 3000) / 3 {
		interesting = append(interesting, rng.Uint64N(n.NumPaths()))
	}
	q, err := p.PPP(interesting)
	if err != nil {
		t.Fatalf("PPP: %v", err)
	}
	if q.Len() > 0 && q.Delta() < 1 {
		t.Fatalf("δ = %v < 1", q.Delta())
	}
	if err := p.Check(q, maxEnumerate); err != nil {
		t.Fatal(err)
	}
	checkRandomWalksPlaced(t, p, 20, int64(n.NumPaths()))
	checkLikelyPaths(t, p)
}

// checkLikelyPaths checks that the likely path of each count with a
// register is a path, and one that takes the count's edge.
func checkLikelyPaths(t *testing.T, p *Placement) {
	t.Helper()
	for id := range p.NumDAGEdges() {
		op, ok := p.Op(EdgeID(id))
		if !ok || op.Kind != OpCount {
			continue
		}
		path, ok := p.LikelyPath(EdgeID(id))
		if !ok {
			t.Fatalf("no likely path at e%d, which counts", id)
		}
		if path >= p.NumPaths() {
			t.Fatalf("likely path %d at e%d is not a path (N = %d)", path, id, p.NumPaths())
		}
		edges, err := p.Decode(path)
		if err != nil {
			t.Fatalf("likely path %d at e%d: %v", path, id, err)
		}
		if !slices.Contains(edges, EdgeID(id)) {
			t.Fatalf("likely path %d at e%d takes %v, not the edge", path, id, edges)
		}
	}
}

// checkRandomWalks places n with static weights and runs random executions.
func checkRandomWalks(t *testing.T, n *Numbering, walks int, seed int64) {
	t.Helper()
	p, err := n.Place(nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRandomWalksPlaced(t, p, walks, seed)
}

// checkRandomWalksPlaced runs random executions of the graph through the
// instrumentation's ops and checks that the ids counted are the paths taken,
// and that edge and block counts come back exactly from the path counts and
// from the chord counts. A walk that cannot get out of a loop is stopped, as
// if the process were killed: only the paths it completed count.
func checkRandomWalksPlaced(t *testing.T, p *Placement, walks int, seed int64) {
	t.Helper()
	g := p.Graph()
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(walks)))
	dist := distToExit(g)
	wantEdges := make([]uint64, len(g.Edges))
	wantBlocks := make([]uint64, g.NumBlocks)
	pathCounts := map[uint64]uint64{}
	chordCounts := map[EdgeID]uint64{}
	var calls int64
	for range walks {
		var r register
		// What the running path has done, committed when it completes.
		var edges []EdgeID
		var blocks []BlockID
		var dag []EdgeID
		commit := func() {
			for _, e := range edges {
				wantEdges[e]++
			}
			for _, b := range blocks {
				wantBlocks[b]++
			}
			for _, e := range dag {
				if !p.InTree(e) {
					chordCounts[e]++
				}
			}
			// Calls, as a profile defines them: paths that start at the
			// entry less cut edges into it. (A walk killed after a cut
			// edge into the entry shows one call too few: its last
			// restart is counted, the path it began is not.)
			if dag[0] == p.Start(g.Entry) {
				calls++
			}
			for _, e := range edges {
				if _, cut := p.CutKind(e); cut && g.Edges[e].Dst == g.Entry {
					calls--
				}
			}
			edges, blocks, dag = nil, nil, nil
		}
		v := g.Entry
		dag = append(dag, p.Start(v))
		blocks = append(blocks, v)
		pathStart := 0 // index in r.counted of the running path's counts
		run(t, &r, p.EntryOps(), nil)
		for steps := 0; v != g.Exit; steps++ {
			var out []EdgeID
			for id, e := range g.Edges {
				if e.Src == v && (steps < 60 || (dist[v] > 0 && dist[e.Dst] < dist[v])) {
					out = append(out, EdgeID(id))
				}
			}
			if len(out) == 0 || steps > 200 {
				break // killed
			}
			id := out[rng.IntN(len(out))]
			edges = append(edges, id)
			v = g.Edges[id].Dst
			end := p.End(id)
			if end == NoEdge {
				run(t, &r, p.EdgeOps(id), nil)
				dag = append(dag, id)
				blocks = append(blocks, v)
				continue
			}
			// A cut edge: its ops are the end op, then the start op, which
			// belongs to the next path (and may count it at once).
			endOps, startOps := p.appendOp(nil, end), p.appendOp(nil, p.Start(v))
			if ops := p.EdgeOps(id); !slices.Equal(ops, append(slices.Clone(endOps), startOps...)) {
				t.Fatalf("EdgeOps(e%d) = %v; want the end op then the start op", id, ops)
			}
			run(t, &r, endOps, nil)
			dag = append(dag, end)
			checkCounted(t, p.Numbering, r.counted[pathStart:], dag)
			commit()
			pathStart = len(r.counted)
			run(t, &r, startOps, nil)
			dag = append(dag, p.Start(v))
			blocks = append(blocks, v)
		}
		if v == g.Exit {
			checkCounted(t, p.Numbering, r.counted[pathStart:], dag)
			commit()
		}
		// A killed walk may have counted its last path early (a path known
		// at its start is counted there); those counts stand, as they would
		// in a real process.
		for _, c := range r.counted {
			pathCounts[c.BL]++
		}
		if v != g.Exit && len(r.counted) > pathStart {
			// The profile says the whole path ran: expect that.
			whole, err := p.Decode(r.counted[pathStart].BL)
			if err != nil {
				t.Fatalf("early count %d: %v", r.counted[pathStart].BL, err)
			}
			if !slices.Equal(whole[:len(dag)], dag) {
				t.Fatalf("path counted early as %v, but the walk took %v", whole, dag)
			}
			edges, blocks, dag = p.GraphEdges(whole), p.Blocks(whole), whole
			commit()
		}
	}
	fromPaths, err := p.CountsFromPaths(pathCounts)
	if err != nil {
		t.Fatalf("CountsFromPaths: %v", err)
	}
	fromChords, err := p.CountsFromChords(chordCounts)
	if err != nil {
		t.Fatalf("CountsFromChords: %v", err)
	}
	for name, got := range map[string]*Counts{"paths": fromPaths, "chords": fromChords} {
		if !slices.Equal(got.Edges, wantEdges) {
			t.Fatalf("edge counts from %s = %v; want %v", name, got.Edges, wantEdges)
		}
		if !slices.Equal(got.Blocks, wantBlocks) {
			t.Fatalf("block counts from %s = %v; want %v", name, got.Blocks, wantBlocks)
		}
		if int64(got.Calls) != max(calls, 0) {
			t.Fatalf("calls from %s = %d; want %d", name, got.Calls, max(calls, 0))
		}
	}
}

// run runs ops on r, failing the test on an error.
func run(t *testing.T, r *register, ops []Op, q *PPP) {
	t.Helper()
	if err := r.Run(ops, q); err != nil {
		t.Fatal(err)
	}
}

// checkCounted checks that exactly the path cur was counted.
func checkCounted(t *testing.T, n *Numbering, counted []counted, cur []EdgeID) {
	t.Helper()
	want, err := n.Encode(cur)
	if err != nil {
		t.Fatalf("walk made a non-path %v: %v", cur, err)
	}
	if len(counted) != 1 || counted[0].BL != want {
		t.Fatalf("path %v (id %d) counted as %v", cur, want, counted)
	}
}

// distToExit returns each block's distance to the exit in edges.
func distToExit(g *Graph) []int {
	dist := make([]int, g.NumBlocks)
	for i := range dist {
		dist[i] = -1
	}
	dist[g.Exit] = 0
	for work := []BlockID{g.Exit}; len(work) > 0; work = work[1:] {
		for _, e := range g.Edges {
			if e.Dst == work[0] && dist[e.Src] < 0 {
				dist[e.Src] = dist[work[0]] + 1
				work = append(work, e.Src)
			}
		}
	}
	return dist
}

// randomGraph makes a control-flow graph with n blocks: block 0 is the entry,
// n-1 the exit. Every block but the exit gets an edge forward, so all reach
// the exit; then back edges, self loops and jumps into loops make loops with
// several exits and irreducible regions. Blocks that nothing jumps to are
// unreachable. A few edges cannot hold a probe.
func randomGraph(rng *rand.Rand, n int) (*Graph, *Options) {
	g := &Graph{NumBlocks: n, Entry: 0, Exit: BlockID(n - 1)}
	opts := &Options{}
	probe := func() bool { return rng.IntN(16) != 0 }
	for v := range n - 1 {
		// Edges into the exit are returns, which always hold a probe in Go.
		w := BlockID(v + 1 + rng.IntN(min(3, n-1-v)))
		g.AddEdge(BlockID(v), w, w == g.Exit || probe())
		switch rng.IntN(6) {
		case 0, 1:
			g.AddEdge(BlockID(v), BlockID(v+1+rng.IntN(n-1-v)), probe())
		case 2:
			id := g.AddEdge(BlockID(v), BlockID(rng.IntN(v+1)), probe()) // back edge or self loop
			if rng.IntN(2) == 0 {
				opts.Preferred = append(opts.Preferred, id)
			}
		case 3:
			g.AddEdge(BlockID(v), BlockID(rng.IntN(n-1)), probe()) // anywhere
		}
	}
	if rng.IntN(4) == 0 {
		opts.MaxPaths = 1 + rng.Uint64N(200)
		if rng.IntN(2) == 0 {
			for id := range g.Edges {
				if rng.IntN(4) == 0 {
					opts.Keep = append(opts.Keep, EdgeID(id))
				}
			}
		}
	}
	return g, opts
}

func TestRandomGraphs(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 100
	}
	for seed := range n {
		rng := rand.New(rand.NewPCG(uint64(seed), 1))
		g, opts := randomGraph(rng, 2+rng.IntN(25))
		checkGraph(t, g, opts)
	}
}

// checkGraph numbers g and checks all properties, or checks that the error
// Number gives is deserved.
func checkGraph(t *testing.T, g *Graph, opts *Options) {
	t.Helper()
	n, err := Number(g, opts)
	if err != nil {
		var uc *UnprobedCycleError
		switch {
		case errors.As(err, &uc):
			for _, id := range uc.Edges {
				if g.Edges[id].Probe {
					t.Fatalf("%v names e%d, which can hold a probe", err, id)
				}
			}
		case errors.Is(err, ErrTooManyPaths):
			if opts == nil || opts.MaxPaths == 0 {
				t.Fatalf("%v with the default limit", err)
			}
		case errors.Is(err, ErrInvalidGraph), errors.Is(err, ErrNoPath), errors.Is(err, ErrBadOptions):
			if wellFormed(g, opts) {
				t.Fatalf("Number refused a well-formed graph: %v", err)
			}
		default:
			t.Fatalf("Number: unexpected error %v", err)
		}
		return
	}
	if !wellFormed(g, opts) {
		t.Fatalf("Number accepted a malformed graph %+v", g)
	}
	checkNumbering(t, n)
	if opts != nil {
		for _, id := range opts.Keep {
			// No limit cut enters the block that a kept edge of the DAG
			// enters. (A kept edge that closes a cycle is cut all the same,
			// and its path starts again at that block.)
			if k, cut := n.CutKind(id); !n.reachable[g.Edges[id].Src] || (cut && k != CutLimit) {
				continue
			}
			for _, c := range n.Cuts() {
				if c.Kind == CutLimit && g.Edges[c.Edge].Dst == g.Edges[id].Dst {
					t.Fatalf("kept edge e%d enters b%d, which a limit cut (e%d) made a start", id, g.Edges[id].Dst, c.Edge)
				}
			}
		}
	}
}

// wellFormed is an independent check of what Number requires of a graph,
// short of probe placement.
func wellFormed(g *Graph, opts *Options) bool {
	if g == nil || g.NumBlocks < 2 || g.Entry == g.Exit {
		return false
	}
	in := func(b BlockID) bool { return b >= 0 && int(b) < g.NumBlocks }
	if !in(g.Entry) || !in(g.Exit) {
		return false
	}
	for _, e := range g.Edges {
		if !in(e.Src) || !in(e.Dst) || e.Src == g.Exit {
			return false
		}
	}
	if opts != nil {
		if opts.MaxPaths > DefaultMaxPaths {
			return false
		}
		for _, id := range slices.Concat(opts.Preferred, opts.Keep) {
			if id < 0 || int(id) >= len(g.Edges) {
				return false
			}
		}
	}
	reach := map[BlockID]bool{g.Entry: true}
	for changed := true; changed; {
		changed = false
		for _, e := range g.Edges {
			if reach[e.Src] && !reach[e.Dst] {
				reach[e.Dst], changed = true, true
			}
		}
	}
	// Every reachable block must lead to the exit or onto a cycle, whose cut
	// edge ends a path at the exit.
	dist := distToExit(g)
	onCycle := map[BlockID]bool{}
	for _, e := range g.Edges {
		if reach[e.Src] && reaches(g, e.Dst, e.Src) {
			onCycle[e.Src] = true
		}
	}
	for v := range reach {
		if dist[v] >= 0 {
			continue
		}
		leads := false
		for u := range onCycle {
			leads = leads || reaches(g, v, u)
		}
		if !leads {
			return false
		}
	}
	if opts != nil {
		// A preferred edge on a cycle must hold a probe.
		for _, id := range opts.Preferred {
			e := g.Edges[id]
			if reach[e.Src] && !e.Probe && reaches(g, e.Dst, e.Src) {
				return false
			}
		}
	}
	return true
}

func reaches(g *Graph, from, to BlockID) bool {
	seen := map[BlockID]bool{from: true}
	for work := []BlockID{from}; len(work) > 0; work = work[1:] {
		if work[0] == to {
			return true
		}
		for _, e := range g.Edges {
			if e.Src == work[0] && !seen[e.Dst] {
				seen[e.Dst] = true
				work = append(work, e.Dst)
			}
		}
	}
	return false
}

// TestKeepLadder numbers 30 ifs in a row (2^30 paths) under a limit of 1000
// paths, keeping the edges of one path through ifs 15 to 24, where the
// limit would cut: a path must still run along all of them, while the limit
// is met by cuts elsewhere. Keeping every edge leaves no cut to make.
func TestKeepLadder(t *testing.T) {
	const ifs, keptFrom, keptTo = 30, 15, 25
	g := &Graph{}
	entry, exit := g.AddBlock(), g.AddBlock()
	g.Entry, g.Exit = entry, exit
	var kept []EdgeID
	cur := entry
	for i := range ifs {
		then, join := g.AddBlock(), g.AddBlock()
		thenEdge := g.AddEdge(cur, then, true)
		elseEdge := g.AddEdge(cur, join, true)
		joinEdge := g.AddEdge(then, join, true)
		switch {
		case i < keptFrom || i >= keptTo:
		case i%2 == 0:
			kept = append(kept, thenEdge, joinEdge)
		default:
			kept = append(kept, elseEdge)
		}
		cur = join
	}
	g.AddEdge(cur, exit, true)

	n, err := Number(g, &Options{MaxPaths: 1000, Keep: kept})
	if err != nil {
		t.Fatal(err)
	}
	if n.NumPaths() > 1000 || len(n.Cuts()) == 0 {
		t.Fatalf("%d paths and cuts %v: want limit cuts bringing 2^%d under 1000", n.NumPaths(), n.Cuts(), ifs)
	}
	checkNumbering(t, n)
	whole := false
	for id := range n.NumPaths() {
		path, err := n.Decode(id)
		if err != nil {
			t.Fatal(err)
		}
		edges := n.GraphEdges(path)
		whole = whole || containsRun(edges, kept)
	}
	if !whole {
		t.Errorf("no path runs along the kept edges %v (cuts %v)", kept, n.Cuts())
	}
	// Without Keep, the limit cuts the kept path.
	plain, err := Number(g, &Options{MaxPaths: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for id := range plain.NumPaths() {
		path, _ := plain.Decode(id)
		if containsRun(plain.GraphEdges(path), kept) {
			t.Errorf("without Keep, path %d still runs along the kept edges: the test shows nothing", id)
		}
	}

	all := make([]EdgeID, len(g.Edges))
	for i := range all {
		all[i] = EdgeID(i)
	}
	if _, err := Number(g, &Options{MaxPaths: 1000, Keep: all}); !errors.Is(err, ErrTooManyPaths) || !strings.Contains(err.Error(), "kept edges") {
		t.Errorf("every edge kept: %v, want ErrTooManyPaths naming the kept edges", err)
	}
	if _, err := Number(g, &Options{Keep: []EdgeID{EdgeID(len(g.Edges))}}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("a kept edge out of range: %v, want ErrBadOptions", err)
	}
}

// containsRun reports whether run occurs in edges, in a row.
func containsRun(edges, run []EdgeID) bool {
	for i := 0; i+len(run) <= len(edges); i++ {
		if slices.Equal(edges[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
