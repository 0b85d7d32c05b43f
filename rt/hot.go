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
// The table is HotWays-way sets of three words per way: key (id+1),
// count, error. Keys, counts and errors are read and written atomically;
// goroutines that replace the same way at once may lose a run to each
// other (as counting without -atomic can), never break a way into a key
// with another's count. Package profile reads the layout (CounterHot).

// HotWays is the ways of each set of a hot path table.
const HotWays = 4

// CountHot counts path id in a hot path table of len(table)/12 sets.
func CountHot(table []uint64, id uint64) {
	sets := uint64(len(table)) / (3 * HotWays)
	if sets == 0 {
		return
	}
	key := id + 1
	set := table[3*HotWays*home(id, sets):][:3*HotWays]
	for w := 0; w < 3*HotWays; w += 3 {
		if atomic.LoadUint64(&set[w]) == key {
			atomic.AddUint64(&set[w+1], 1)
			return
		}
	}
	hotMiss(set, key)
}

// hotMiss counts a path that is not in its set: into an empty way, or in
// place of the way with the smallest count.
func hotMiss(set []uint64, key uint64) {
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
