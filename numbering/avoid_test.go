package numbering

import (
	"math/rand/v2"
	"testing"
)

// FuzzPathsTakingAny checks the counts of paths through sets of edges
// against decoding every path and looking for the edges in it.
func FuzzPathsTakingAny(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		g, opts := graphFromBytes(data)
		if g == nil {
			return
		}
		n, err := Number(g, opts)
		if err != nil || n.NumPaths() > 5000 || len(g.Edges) == 0 {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(len(data)), uint64(n.NumPaths())))
		var sets [][]EdgeID
		for range 1 + rng.IntN(4) {
			var s []EdgeID
			for range 1 + rng.IntN(3) {
				s = append(s, EdgeID(rng.IntN(len(g.Edges))))
			}
			sets = append(sets, s)
		}
		var paths [][]EdgeID
		for id := range n.NumPaths() {
			p, err := n.Decode(id)
			if err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		var anyWant uint64
		for _, p := range paths {
			for _, s := range sets {
				if n.Takes(p, s) {
					anyWant++
					break
				}
			}
		}
		for _, s := range sets {
			var want uint64
			for _, p := range paths {
				if n.Takes(p, s) {
					want++
				}
			}
			if got := n.PathsThrough(s); got != want {
				t.Fatalf("PathsThrough(%v) = %d, decoding every path finds %d", s, got, want)
			}
		}
		got, exact := n.PathsTakingAny(sets, 1<<16)
		if !exact || got != anyWant {
			t.Fatalf("PathsTakingAny(%v) = %d (exact %v), decoding every path finds %d", sets, got, exact, anyWant)
		}
		// With too few states allowed, a lower bound.
		if low, exact := n.PathsTakingAny(sets, 1); !exact && low > anyWant {
			t.Fatalf("PathsTakingAny(%v) with one state = %d, above the %d there are", sets, low, anyWant)
		}
	})
}
