package slice

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOPTLabels packs random memory dependences, writers before and after
// their readers, and reads each reader's back, and none for the others.
func TestOPTLabels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, readers := range []int{0, 1, 63, 64, 65, 1000} {
		want := make(map[int32][]int32)
		var pairs []uint64
		n := int32(0)
		for range readers {
			n += 1 + int32(r.IntN(5))
			for range 1 + r.IntN(4) {
				w := int32(r.IntN(1 << 20))
				if r.IntN(20) == 0 {
					w = 1<<31 - 1 - int32(r.IntN(3))
				}
				pairs = append(pairs, uint64(n)<<32|uint64(uint32(w)))
			}
		}
		slices.Sort(pairs)
		pairs = slices.Compact(pairs)
		for _, p := range pairs {
			want[int32(p>>32)] = append(want[int32(p>>32)], int32(uint32(p)))
		}
		l := packLabels(pairs)
		if l.count != len(pairs) {
			t.Errorf("%d readers: count %d, want %d", readers, l.count, len(pairs))
		}
		for m := int32(0); m <= n+1; m++ {
			if got := l.of(m); !slices.Equal(got, want[m]) {
				t.Fatalf("%d readers: node %d: writers %v, want %v", readers, m, got, want[m])
			}
		}
	}
}
