package report

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pathcover/pathcover/numbering"
)

// randomGraph makes a graph of n blocks, entry 0 and exit n-1, where every
// block but the exit has one or two edges forward and some have one back.
func randomGraph(r *rand.Rand, n int) *numbering.Graph {
	g := &numbering.Graph{NumBlocks: n, Entry: 0, Exit: numbering.BlockID(n - 1)}
	for i := 0; i < n-1; i++ {
		for range 1 + r.IntN(2) {
			g.AddEdge(numbering.BlockID(i), numbering.BlockID(i+1+r.IntN(n-1-i)), true)
		}
		if i > 0 && r.IntN(4) == 0 {
			g.AddEdge(numbering.BlockID(i), numbering.BlockID(r.IntN(i+1)), true)
		}
	}
	return g
}

// FuzzLayout checks the drawing of random graphs: every reachable block is
// drawn once, no two boxes overlap, every edge between drawn blocks is
// drawn once, each edge of the DAG goes down a layer or more, and all of it
// lies inside the drawing.
func FuzzLayout(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3, 42, 1000} {
		f.Add(seed, uint8(12))
	}
	f.Add(uint64(7), uint8(2))
	f.Add(uint64(9), uint8(60))
	f.Fuzz(func(t *testing.T, seed uint64, size uint8) {
		n := 2 + int(size)%80
		g := randomGraph(rand.New(rand.NewPCG(seed, 0)), n)
		num, err := numbering.Number(g, nil)
		if err != nil {
			t.Skip(err)
		}
		lay := layOut(num)
		at := map[numbering.BlockID]int{}
		for i, nd := range lay.Nodes {
			if _, dup := at[nd.Block]; dup {
				t.Fatalf("block %d drawn twice", nd.Block)
			}
			at[nd.Block] = i
			if nd.X-nodeWidth/2 < 0 || nd.Y-nodeHeight/2 < 0 || nd.X+nodeWidth/2 > lay.Width || nd.Y+nodeHeight/2 > lay.Height {
				t.Errorf("block %d at (%v, %v) outside %v×%v", nd.Block, nd.X, nd.Y, lay.Width, lay.Height)
			}
			for _, o := range lay.Nodes[:i] {
				if math.Abs(o.X-nd.X) < nodeWidth && math.Abs(o.Y-nd.Y) < nodeHeight {
					t.Errorf("blocks %d and %d overlap", o.Block, nd.Block)
				}
			}
		}
		for b := range g.NumBlocks {
			if _, ok := at[numbering.BlockID(b)]; ok != num.Reachable(numbering.BlockID(b)) {
				t.Errorf("block %d: drawn %v, reachable %v", b, ok, num.Reachable(numbering.BlockID(b)))
			}
		}
		drawn := map[numbering.EdgeID]int{}
		for _, e := range lay.Edges {
			drawn[e.Edge]++
			s, d := lay.Nodes[e.Src], lay.Nodes[e.Dst]
			if s.Block != g.Edges[e.Edge].Src || d.Block != g.Edges[e.Edge].Dst {
				t.Errorf("edge %d drawn from b%d to b%d", e.Edge, s.Block, d.Block)
			}
			if e.Back == num.InDAG(e.Edge) {
				t.Errorf("edge %d: back %v, in the DAG %v", e.Edge, e.Back, num.InDAG(e.Edge))
			}
			if !e.Back && d.Layer <= s.Layer {
				t.Errorf("edge %d of the DAG goes from layer %d to %d", e.Edge, s.Layer, d.Layer)
			}
			if e.LabelX < 0 || e.LabelX > lay.Width || e.LabelY < 0 || e.LabelY > lay.Height {
				t.Errorf("edge %d's label outside the drawing", e.Edge)
			}
		}
		for id, e := range g.Edges {
			_, src := at[e.Src]
			_, dst := at[e.Dst]
			if want := src && dst; (drawn[numbering.EdgeID(id)] == 1) != want || drawn[numbering.EdgeID(id)] > 1 {
				t.Errorf("edge %d drawn %d times", id, drawn[numbering.EdgeID(id)])
			}
		}
	})
}
