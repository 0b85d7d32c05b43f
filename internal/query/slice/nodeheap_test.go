package slice

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNodeHeap: pops give the nodes pushed, greatest first, pushes and
// pops interleaved at random, duplicates included.
func TestNodeHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round := range 200 {
		var h nodeHeap
		var want []int32
		for range r.IntN(300) {
			if len(want) > 0 && r.IntN(3) == 0 {
				slices.Sort(want)
				top := want[len(want)-1]
				want = want[:len(want)-1]
				if got := h.pop(); got != top {
					t.Fatalf("round %d: pop %d, want %d", round, got, top)
				}
				continue
			}
			n := int32(r.IntN(50))
			h.push(n)
			want = append(want, n)
		}
		if h.Len() != len(want) {
			t.Fatalf("round %d: %d left, want %d", round, h.Len(), len(want))
		}
	}
}
