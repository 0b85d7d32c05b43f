package rt_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pathcover/pathcover/profile"
	"github.com/pathcover/pathcover/rt"
)

// FuzzCountHot counts a random stream of paths (skewed, as path
// frequencies are) in a hot path table, with CountHot and CountHotAtomic
// (one goroutine: the same table), and checks the space-saving
// guarantees against the exact counts: every path in the table ran, and
// its true count is within [count - error, count]; each set's counts add
// up to the runs of its paths; a path that ran more than its set's runs
// over the ways is in the table; and the table is read back as package
// profile reads it.
func FuzzCountHot(f *testing.F) {
	f.Add(uint64(1), uint16(50), uint16(2000), uint8(1))
	f.Add(uint64(2), uint16(5), uint16(100), uint8(0))
	f.Add(uint64(3), uint16(3000), uint16(60000), uint8(4))
	f.Fuzz(func(t *testing.T, seed uint64, paths, runs uint16, logSets uint8) {
		if paths == 0 {
			return
		}
		sets := 1 << (logSets % 8)
		r := rand.New(rand.NewPCG(seed, 7))
		table := make([]uint64, 3*rt.HotWays*sets)
		atomicTable := make([]uint64, len(table))
		exact := make(map[uint64]uint64)
		zipf := rand.NewZipf(r, 1.3, 1, uint64(paths)-1)
		for range runs {
			id := zipf.Uint64() * 7919 % (uint64(paths) * 7919) // spread ids
			rt.CountHot(table, id)
			rt.CountHotAtomic(atomicTable, id)
			exact[id]++
		}
		if !slices.Equal(table, atomicTable) {
			t.Fatal("CountHot and CountHotAtomic made different tables of one goroutine's runs")
		}
		setRuns := make(map[uint64]uint64)
		for id, n := range exact {
			setRuns[profile.HotSet(id, uint64(sets))] += n
		}
		in := make(map[uint64]bool)
		setSums := make(map[uint64]uint64)
		for way := 0; way < len(table); way += 3 {
			key, count, e := table[way], table[way+1], table[way+2]
			if key == 0 {
				continue
			}
			id := key - 1
			set := uint64(way / (3 * rt.HotWays))
			if in[id] || profile.HotSet(id, uint64(sets)) != set {
				t.Fatalf("path %d twice, or in set %d", id, set)
			}
			in[id] = true
			setSums[set] += count
			if exact[id] == 0 || count < exact[id] || count-e > exact[id] {
				t.Fatalf("path %d: count %d, error %d, ran %d times", id, count, e, exact[id])
			}
		}
		for set, n := range setRuns {
			if setSums[set] != n {
				t.Fatalf("set %d: counts add up to %d, its paths ran %d times", set, setSums[set], n)
			}
		}
		for id, n := range exact {
			if n > setRuns[profile.HotSet(id, uint64(sets))]/rt.HotWays && !in[id] {
				t.Fatalf("path %d ran %d of its set's %d runs and is not in the table", id, n, setRuns[profile.HotSet(id, uint64(sets))])
			}
		}
		// Read back as profile reads a segment.
		fn := profile.Func{Name: "f", Paths: uint64(paths) * 7919, Counters: profile.Counters{Kind: profile.CounterHot, Size: len(table)}}
		var words []profile.Word
		for i, v := range table {
			if v != 0 {
				words = append(words, profile.Word{Index: uint64(i), Value: v})
			}
		}
		counts, _ := fn.PathCounts(words)
		errs := fn.PathErrors(words)
		for way := 0; way < len(table); way += 3 {
			if id := table[way] - 1; table[way] != 0 && (counts[id] != table[way+1] || errs[id] != table[way+2]) {
				t.Fatalf("path %d read back as %d ± %d", id, counts[id], errs[id])
			}
		}
		if len(counts) != len(in) {
			t.Fatalf("%d paths read back, %d in the table", len(counts), len(in))
		}
	})
}
