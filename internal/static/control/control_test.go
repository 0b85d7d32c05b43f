package control

import (
	"slices"
	"testing"

	"github.com/pathcover/pathcover/numbering"
)

// graph builds a graph of n blocks, entry 0, exit n-1, from edges.
func graph(n int, edges ...[2]int) *numbering.Graph {
	g := &numbering.Graph{NumBlocks: n, Entry: 0, Exit: numbering.BlockID(n - 1)}
	for _, e := range edges {
		g.AddEdge(numbering.BlockID(e[0]), numbering.BlockID(e[1]), true)
	}
	return g
}

// TestExamples checks graphs drawn by hand.
func TestExamples(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    *numbering.Graph
		want map[int][]int // block → edges it depends on
	}{
		{
			// 0 → 1 (then, e0) → 3; 0 → 2 (else, e1) → 3; 3 → 4 exit.
			// The arms depend on their edges; the join on nothing.
			name: "diamond",
			g:    graph(5, [2]int{0, 1}, [2]int{0, 2}, [2]int{1, 3}, [2]int{2, 3}, [2]int{3, 4}),
			want: map[int][]int{1: {0}, 2: {1}},
		},
		{
			// A while loop: 0 → 1 head; 1 → 2 body (e1); 2 → 1 (e2);
			// 1 → 3 exit (e3). The body and the head (run again) depend
			// on the head's true edge.
			name: "loop",
			g:    graph(4, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 1}, [2]int{1, 3}),
			want: map[int][]int{1: {1}, 2: {1}},
		},
		{
			// A loop with a break: head 1 → body 2 (e1) or exit 4 (e2);
			// 2 → 3 (e3, no break) or 4 (e4, break); 3 → 1 (e5). The head
			// runs again, and the latch runs, if the body did not break;
			// the body runs if the head's test held.
			name: "break",
			g:    graph(5, [2]int{0, 1}, [2]int{1, 2}, [2]int{1, 4}, [2]int{2, 3}, [2]int{2, 4}, [2]int{3, 1}),
			want: map[int][]int{1: {3}, 2: {1}, 3: {3}},
		},
		{
			// Two cases to one block (e0, e1), a default (e2): block 1
			// depends on both parallel edges.
			name: "parallel",
			g:    graph(4, [2]int{0, 1}, [2]int{0, 1}, [2]int{0, 2}, [2]int{1, 3}, [2]int{2, 3}),
			want: map[int][]int{1: {0, 1}, 2: {2}},
		},
		{
			// 0 → 1 (e0) or exit 3 (e1); 1 → 2 (e2) → 1 (e3) forever: each
			// block of the loop gets a virtual edge to the exit, so that
			// each depends on the edge into it, as in a loop that could
			// stop anywhere.
			name: "infinite",
			g:    graph(4, [2]int{0, 1}, [2]int{0, 3}, [2]int{1, 2}, [2]int{2, 1}),
			want: map[int][]int{1: {0, 3}, 2: {2}},
		},
	} {
		d, err := ControlDeps(tc.g)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for b := range tc.g.NumBlocks {
			var got []int
			for _, e := range d.Of(numbering.BlockID(b)) {
				got = append(got, int(e))
			}
			if !slices.Equal(got, tc.want[b]) {
				t.Errorf("%s: block %d depends on %v, want %v", tc.name, b, got, tc.want[b])
			}
		}
	}
}

// randomGraph decodes data into a graph of at most 40 blocks.
func randomGraph(data []byte) *numbering.Graph {
	if len(data) < 2 {
		return nil
	}
	n := 2 + int(data[0])%39
	g := &numbering.Graph{NumBlocks: n, Entry: 0, Exit: numbering.BlockID(n - 1)}
	for i := 1; i+1 < len(data) && g.NumEdges() < 100; i += 2 {
		src, dst := int(data[i])%(n-1), int(data[i+1])%n // nothing leaves the exit
		g.AddEdge(numbering.BlockID(src), numbering.BlockID(dst), true)
	}
	return g
}

// naive computes post-dominance and control dependence from their
// definitions, with the same virtual edges for blocks that cannot reach
// the exit: a post-dominates b (a ≠ b) iff b cannot reach the exit
// without a.
func naive(g *numbering.Graph) (pdom func(a, b int) bool, deps [][]int) {
	n := g.NumBlocks
	succ := make([][]int, n)
	for _, e := range g.Edges {
		succ[e.Src] = append(succ[e.Src], int(e.Dst))
	}
	reach := func(from int, avoid int) bool {
		seen := make([]bool, n)
		stack := []int{from}
		for len(stack) > 0 {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if b == avoid || seen[b] {
				continue
			}
			if b == int(g.Exit) {
				return true
			}
			seen[b] = true
			stack = append(stack, succ[b]...)
		}
		return false
	}
	var stuck []int
	for b := range n {
		if !reach(b, -1) {
			stuck = append(stuck, b)
		}
	}
	for _, b := range stuck {
		succ[b] = append(succ[b], int(g.Exit))
	}
	pdom = func(a, b int) bool { return a == b || !reach(b, a) }
	deps = make([][]int, n)
	for id, e := range g.Edges {
		for b := range n {
			if pdom(b, int(e.Dst)) && !(b != int(e.Src) && pdom(b, int(e.Src))) {
				deps[b] = append(deps[b], id)
			}
		}
	}
	return pdom, deps
}

func FuzzControlDeps(f *testing.F) {
	f.Add([]byte{5, 0, 1, 0, 2, 1, 3, 2, 3, 3, 4})
	f.Add([]byte{4, 0, 1, 1, 2, 2, 1, 1, 3})
	f.Add([]byte{6, 0, 1, 1, 2, 2, 1, 0, 5, 3, 3, 4, 4})
	f.Add([]byte{9, 0, 0, 0, 1, 1, 1, 2, 8, 5, 6, 6, 5, 3, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		g := randomGraph(data)
		if g == nil {
			return
		}
		p, err := PostDominators(g)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ControlDeps(g)
		if err != nil {
			t.Fatal(err)
		}
		pdom, deps := naive(g)
		n := g.NumBlocks
		for a := range n {
			for b := range n {
				if got, want := p.Dominates(numbering.BlockID(a), numbering.BlockID(b)), pdom(a, b); got != want {
					t.Fatalf("%d post-dominates %d: %v, want %v (graph %v)", a, b, got, want, g.Edges)
				}
			}
			if a != int(g.Exit) {
				i := p.Idom(numbering.BlockID(a))
				if i < 0 || !pdom(int(i), a) || int(i) == a {
					t.Fatalf("idom(%d) = %d", a, i)
				}
				// The immediate post-dominator is post-dominated by every
				// other strict post-dominator.
				for c := range n {
					if c != a && pdom(c, a) && !pdom(c, int(i)) {
						t.Fatalf("idom(%d) = %d, but %d post-dominates %d and not %d", a, i, c, a, i)
					}
				}
			}
			var got []int
			for _, e := range d.Of(numbering.BlockID(a)) {
				got = append(got, int(e))
			}
			if !slices.Equal(got, deps[a]) {
				t.Fatalf("block %d depends on %v, want %v (graph %v)", a, got, deps[a], g.Edges)
			}
		}
	})
}

func TestMalformed(t *testing.T) {
	g := graph(3, [2]int{0, 1}, [2]int{2, 0}) // an edge out of the exit
	if _, err := ControlDeps(g); err == nil {
		t.Error("an edge out of the exit was accepted")
	}
	g = graph(3, [2]int{0, 7})
	if _, err := ControlDeps(g); err == nil {
		t.Error("an edge to no block was accepted")
	}
}

func BenchmarkControlDeps(b *testing.B) {
	// A chain of 10,000 ifs.
	const n = 10000
	g := &numbering.Graph{NumBlocks: 2*n + 2, Entry: 0, Exit: 2*n + 1}
	for i := range n {
		head, then := numbering.BlockID(2*i), numbering.BlockID(2*i+1)
		g.AddEdge(head, then, true)
		g.AddEdge(head, head+2, true)
		g.AddEdge(then, head+2, true)
	}
	g.AddEdge(2*n, 2*n+1, true)
	for b.Loop() {
		if _, err := ControlDeps(g); err != nil {
			b.Fatal(err)
		}
	}
}
