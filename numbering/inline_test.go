package numbering

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"
)

// diamond is if/else: entry → then | else → exit, 2 paths.
func diamond() *Graph {
	g := &Graph{NumBlocks: 4, Entry: 0, Exit: 3}
	g.AddEdge(0, 1, true)
	g.AddEdge(0, 2, true)
	g.AddEdge(1, 3, true)
	g.AddEdge(2, 3, true)
	return g
}

// TestInlineFig312 is thesis Fig. 3.12: foo branches, and one side calls
// bar, which branches. foo alone has 2 paths and bar 2; the supergraph has
// 3: foo's path without the call, and foo's other path through either of
// bar's. Two calls in one block multiply: 1 + 2·2 = 5.
func TestInlineFig312(t *testing.T) {
	foo := diamond()
	sg, err := Inline(foo, nil, []CallSite{{Block: 1, Callee: diamond()}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := Number(&sg.Graph, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n.NumPaths() != 3 {
		t.Errorf("one call: %d paths, want 3", n.NumPaths())
	}
	// The caller's edges keep their ids; e0 into the calling block still
	// starts there, and e2 out of it now leaves from the block after the call.
	if sg.Graph.Edges[0] != foo.Edges[0] || sg.Graph.Edges[2].Dst != foo.Edges[2].Dst || sg.Graph.Edges[2].Src == foo.Edges[2].Src {
		t.Errorf("caller edges moved: %v", sg.Graph.Edges[:4])
	}
	if o := sg.Blocks[sg.Graph.Edges[2].Src]; o != (BlockOrigin{Site: -1, Block: 1, After: 1}) {
		t.Errorf("block after the call: origin %+v", o)
	}

	sg, err = Inline(foo, nil, []CallSite{{Block: 1, Callee: diamond()}, {Block: 1, Callee: diamond()}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err = Number(&sg.Graph, nil); err != nil {
		t.Fatal(err)
	}
	if n.NumPaths() != 5 {
		t.Errorf("two calls in one block: %d paths, want 5", n.NumPaths())
	}
}

func TestInlineErrors(t *testing.T) {
	foo := diamond()
	for name, sites := range map[string][]CallSite{
		"site in exit":    {{Block: 3, Callee: diamond()}},
		"site off graph":  {{Block: 9, Callee: diamond()}},
		"nil callee":      {{Block: 1}},
		"bad callee":      {{Block: 1, Callee: &Graph{NumBlocks: 1}}},
		"preferred range": {{Block: 1, Callee: diamond(), Preferred: []EdgeID{4}}},
	} {
		if _, err := Inline(foo, nil, sites); !errors.Is(err, ErrInvalidGraph) {
			t.Errorf("%s: got %v, want ErrInvalidGraph", name, err)
		}
	}
	if _, err := Inline(foo, []EdgeID{-1}, nil); !errors.Is(err, ErrInvalidGraph) {
		t.Errorf("bad caller preferred edge: %v", err)
	}
}

// randomDAG makes an acyclic graph of n blocks: entry 0, exit n-1, every
// block with an edge forward.
func randomDAG(rng *rand.Rand, n int) *Graph {
	g := &Graph{NumBlocks: n, Entry: 0, Exit: BlockID(n - 1)}
	for v := range n - 1 {
		g.AddEdge(BlockID(v), BlockID(v+1+rng.IntN(min(3, n-1-v))), true)
		if rng.IntN(2) == 0 {
			g.AddEdge(BlockID(v), BlockID(v+1+rng.IntN(n-1-v)), true)
		}
	}
	return g
}

// pathsFrom counts the paths from each block of an acyclic g to its exit,
// with the paths through block b multiplied by mult[b].
func pathsFrom(g *Graph, mult map[BlockID]*big.Int) *big.Int {
	memo := make([]*big.Int, g.NumBlocks)
	var count func(b BlockID) *big.Int
	count = func(b BlockID) *big.Int {
		if memo[b] != nil {
			return memo[b]
		}
		sum := new(big.Int)
		if b == g.Exit {
			sum.SetInt64(1)
		}
		for _, e := range g.Edges {
			if e.Src == b {
				sum.Add(sum, count(e.Dst))
			}
		}
		if m, ok := mult[b]; ok {
			sum.Mul(sum, m)
		}
		memo[b] = sum
		return sum
	}
	return count(g.Entry)
}

// TestInlineCounts checks, on random acyclic callers and callees, that the
// supergraph has as many paths as the caller's paths with each call site
// on them multiplied by its callee's paths: the segments it numbers are
// exactly the interprocedural ones.
func TestInlineCounts(t *testing.T) {
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		caller := randomDAG(rng, 2+rng.IntN(10))
		var sites []CallSite
		mult := map[BlockID]*big.Int{}
		for range rng.IntN(4) {
			b := BlockID(rng.IntN(caller.NumBlocks - 1))
			callee := randomDAG(rng, 2+rng.IntN(8))
			sites = append(sites, CallSite{Block: b, Callee: callee})
			if mult[b] == nil {
				mult[b] = big.NewInt(1)
			}
			mult[b].Mul(mult[b], pathsFrom(callee, nil))
		}
		sg, err := Inline(caller, nil, sites)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkOrigins(t, caller, sites, sg)
		n, err := Number(&sg.Graph, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if want := pathsFrom(caller, mult); n.Total().Cmp(want) != 0 {
			t.Errorf("seed %d: supergraph has %v paths, want %v", seed, n.Total(), want)
		}
	}
}

// TestInlineRandomGraphs inlines random graphs with loops, unreachable
// blocks and unprobed edges into each other, and checks every numbering
// property on the supergraph whenever caller and callees number.
func TestInlineRandomGraphs(t *testing.T) {
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 9))
		caller, opts := randomGraph(rng, 2+rng.IntN(12))
		if _, err := Number(caller, &Options{Preferred: opts.Preferred}); err != nil {
			continue
		}
		var sites []CallSite
		for range 1 + rng.IntN(3) {
			callee, copts := randomGraph(rng, 2+rng.IntN(8))
			if _, err := Number(callee, &Options{Preferred: copts.Preferred}); err != nil {
				continue
			}
			sites = append(sites, CallSite{Block: BlockID(rng.IntN(caller.NumBlocks - 1)), Callee: callee, Preferred: copts.Preferred})
		}
		sg, err := Inline(caller, opts.Preferred, sites)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkOrigins(t, caller, sites, sg)
		checkGraph(t, &sg.Graph, &Options{Preferred: sg.Preferred, MaxPaths: opts.MaxPaths})
	}
}

// checkOrigins checks that every supergraph edge joins the blocks its
// origin says it does.
func checkOrigins(t *testing.T, caller *Graph, sites []CallSite, sg *Supergraph) {
	t.Helper()
	if len(sg.Blocks) != sg.Graph.NumBlocks || len(sg.Edges) != len(sg.Graph.Edges) {
		t.Fatalf("%d block and %d edge origins for %d blocks and %d edges", len(sg.Blocks), len(sg.Edges), sg.Graph.NumBlocks, len(sg.Graph.Edges))
	}
	// nth[i] is how many calls of its block come before site i.
	nth := make([]int, len(sites))
	seen := map[BlockID]int{}
	for i, s := range sites {
		nth[i] = seen[s.Block]
		seen[s.Block]++
	}
	for id, e := range sg.Graph.Edges {
		o := sg.Edges[id]
		src, dst := sg.Blocks[e.Src], sg.Blocks[e.Dst]
		var want [2]BlockOrigin
		switch {
		case o.Site < 0:
			ce := caller.Edges[o.Edge]
			want = [2]BlockOrigin{{Site: -1, Block: ce.Src, After: seen[ce.Src]}, {Site: -1, Block: ce.Dst}}
			if e.Probe != ce.Probe {
				t.Errorf("edge %d: probe %v, caller's e%d has %v", id, e.Probe, o.Edge, ce.Probe)
			}
		case o.Edge == CallEdge:
			s := sites[o.Site]
			want = [2]BlockOrigin{{Site: -1, Block: s.Block, After: nth[o.Site]}, {Site: o.Site, Block: s.Callee.Entry}}
		case o.Edge == ReturnEdge:
			s := sites[o.Site]
			want = [2]BlockOrigin{{Site: o.Site, Block: s.Callee.Exit}, {Site: -1, Block: s.Block, After: nth[o.Site] + 1}}
			if e.Probe {
				t.Errorf("return edge %d can hold a probe", id)
			}
		default:
			ce := sites[o.Site].Callee.Edges[o.Edge]
			want = [2]BlockOrigin{{Site: o.Site, Block: ce.Src}, {Site: o.Site, Block: ce.Dst}}
		}
		if src != want[0] || dst != want[1] {
			t.Errorf("edge %d (origin %+v) joins %+v and %+v, want %+v", id, o, src, dst, want)
		}
	}
}

// TestInlineNested inlines random trees of call sites: the supergraph has
// as many paths as the caller's paths weighted, at each block with sites,
// by the paths of those sites' callees with their own sites inlined; and
// every edge joins blocks of the function its origin names, as that
// function's edge does.
func TestInlineNested(t *testing.T) {
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		caller := randomDAG(rng, 2+rng.IntN(8))
		var sites []NestedSite
		for range rng.IntN(6) {
			parent, g := -1, caller
			if len(sites) > 0 && rng.IntN(2) == 0 {
				parent = rng.IntN(len(sites))
				g = sites[parent].Callee
			}
			if g.NumBlocks < 2 {
				continue
			}
			b := BlockID(rng.IntN(g.NumBlocks))
			if b == g.Exit {
				continue
			}
			sites = append(sites, NestedSite{Parent: parent, Block: b, Callee: randomDAG(rng, 2+rng.IntN(6))})
		}
		sg, err := InlineNested(caller, nil, sites)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		// paths(node) is the number of paths of node's function with its
		// sites inlined.
		var paths func(node int) *big.Int
		paths = func(node int) *big.Int {
			g := caller
			if node >= 0 {
				g = sites[node].Callee
			}
			mult := map[BlockID]*big.Int{}
			for i, s := range sites {
				if s.Parent != node {
					continue
				}
				if mult[s.Block] == nil {
					mult[s.Block] = big.NewInt(1)
				}
				mult[s.Block].Mul(mult[s.Block], paths(i))
			}
			return pathsFrom(g, mult)
		}
		n, err := Number(&sg.Graph, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if want := paths(-1); n.Total().Cmp(want) != 0 {
			t.Errorf("seed %d: nested supergraph has %v paths, want %v", seed, n.Total(), want)
		}
		for id, e := range sg.Graph.Edges {
			o := sg.Edges[id]
			if o.Edge == CallEdge || o.Edge == ReturnEdge {
				continue
			}
			g := caller
			if o.Site >= 0 {
				g = sites[o.Site].Callee
			}
			src, dst := sg.Blocks[e.Src], sg.Blocks[e.Dst]
			ge := g.Edges[o.Edge]
			if src.Site != o.Site || dst.Site != o.Site || src.Block != ge.Src || dst.Block != ge.Dst {
				t.Fatalf("seed %d: edge %d from %+v to %+v, its origin %+v joins b%d and b%d", seed, id, src, dst, o, ge.Src, ge.Dst)
			}
		}
	}
	if _, err := InlineNested(&Graph{NumBlocks: 2, Exit: 1}, nil, []NestedSite{{Parent: 0}}); err == nil {
		t.Error("a site that is its own parent inlined")
	}
}
