package rt

import "sync/atomic"

// Hot path tables (pppexec -hot=SIZE): a function with too many paths for
// an array counts them in a table of SIZE entries that keeps its hottest
// paths, with a bound on each count, instead of a hash table that stops
// counting new paths when it is full. It is the PPP thesis's hardware
// table (chapter 5: sets of 4 ways, least frequently used replaced) done
// in software with the space-saving rule of Metwally, Agrawal and El
// Abbadi (2005) within each set: a path that finds its set full replaces
// the way with the smallest count c, and takes the count c+1 with the
// error c. So, for every path in the table, true count ≤ count ≤ true
// count + error; the counts of a set add up to the runs of its paths; and
// a path whose true count is more than its set's runs over 4 is always
// in it.
//
// The table is a power of two of HotWays-way sets of three words per way:
// key (id+1), count, error; a path's set is HotSet's. CountHot, for builds
// without -atomic, reads and writes them as counters are, so that a hit
// costs what a hash table's would without its atomic add; goroutines that
// count in one table at once may lose runs to each other, as counters
// do, and a way replaced by two at once may end with either's key and
// the other's count. CountHotAtomic, for -atomic and -race builds, claims
// empty ways and replaces keys with compare and swap and adds atomically:
// it loses only a run that finds its way replaced under it. Package
// profile reads the layout (CounterHot).

// HotWays is the ways of each set of a hot path table.
const HotWays = 4

// HotSet is the set of path id in a table of sets sets, a power of two
// (profile.HotSet is the same).
func HotSet(id, sets uint64) uint64 { return (id * 0x9E3779B97F4A7C15) >> 40 & (sets - 1) }

// CountHot counts path id in a hot path table of len(table)/12 sets.
func CountHot(table []uint64, id uint64) {
	sets := uint64(len(table)) / (3 * HotWays)
	if sets == 0 {
		return
	}
	key := id + 1
	set := (*[3 * HotWays]uint64)(table[3*HotWays*HotSet(id, sets):])
	for w := 0; w < 3*HotWays; w += 3 {
		if set[w] == key {
			set[w+1]++
			return
		}
	}
	least := 0
	for w := 0; w < 3*HotWays; w += 3 {
		if set[w] == 0 {
			set[w], set[w+1] = key, 1
			return
		}
		if set[w+1] < set[least+1] {
			least = w
		}
	}
	c := set[least+1]
	set[least], set[least+1], set[least+2] = key, c+1, c
}

// CountHotAtomic is CountHot for -atomic and -race builds.
func CountHotAtomic(table []uint64, id uint64) {
	sets := uint64(len(table)) / (3 * HotWays)
	if sets == 0 {
		return
	}
	key := id + 1
	set := (*[3 * HotWays]uint64)(table[3*HotWays*HotSet(id, sets):])
	for w := 0; w < 3*HotWays; w += 3 {
		if atomic.LoadUint64(&set[w]) == key {
			atomic.AddUint64(&set[w+1], 1)
			return
		}
	}
	hotMissAtomic(set, key)
}

// hotMissAtomic counts a path that is not in its set: into an empty way,
// or in place of the way with the smallest count.
func hotMissAtomic(set *[3 * HotWays]uint64, key uint64) {
	for w := 0; w < 3*HotWays; w += 3 {
		if atomic.LoadUint64(&set[w]) == 0 && atomic.CompareAndSwapUint64(&set[w], 0, key) {
			atomic.AddUint64(&set[w+1], 1)
			return
		}
		if atomic.LoadUint64(&set[w]) == key { // another goroutine put it there
			atomic.AddUint64(&set[w+1], 1)
			return
		}
	}
	least := 0
	for w := 3; w < 3*HotWays; w += 3 {
		if atomic.LoadUint64(&set[w+1]) < atomic.LoadUint64(&set[least+1]) {
			least = w
		}
	}
	old := atomic.LoadUint64(&set[least])
	c := atomic.LoadUint64(&set[least+1])
	if !atomic.CompareAndSwapUint64(&set[least], old, key) {
		return // another goroutine replaced it first: this run is lost
	}
	atomic.StoreUint64(&set[least+2], c)
	atomic.StoreUint64(&set[least+1], c+1)
}
