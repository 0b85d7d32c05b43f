package rt

import "sync/atomic"

// Residual paths are the paths of a PPP build that are not among its
// interesting (tested) paths: their PPP id falls outside the function's
// array, or the Ball-Larus id in the slot is another path's. Every one is
// recorded exactly, with its count, in its function's residual table.
//
// A function's table is a chain of open-addressing tables of (id+1, count)
// pairs, each a segment of the counter file (so it survives exits and kills
// like the counters), made when the first residual path of the function
// runs. A table that has no room for a new id within residualWindow probes
// of the id's home slot gets a successor twice its size. Ids never move and
// slots never empty, so an id is in the first table whose window holds it,
// and concurrent goroutines agree on where: a slot is claimed by compare and
// swap. Past residualLimitWords of tables in one process, runs that find no
// room are counted in the last table's lost word.

const (
	residualWindow     = 32
	residualFirstSlots = 252     // one 4 KiB page with the segment header
	residualLimitWords = 1 << 27 // 1 GiB of tables per process
)

// Residuals are one package's residual tables, one chain per function.
type Residuals struct {
	hash  string
	dir   string // where tables go; empty for memory
	heads []atomic.Pointer[residualTable]
	// firsts are the package's own ResidualHeads (Share), or nil.
	firsts []ResidualHead
}

// A ResidualHead is where generated code finds a function's first residual
// table, in an array of the package's own (one per function, shared with
// rt by Residuals.Share), so that counting a residual path in its home
// slot loads the table's address from a fixed place and then the slot:
// through the package's Residuals it was five loads, each waiting for the
// one before (the Residuals, its heads, the function's table, the table's
// slots, the slot). Under perf, fastjson's Validate under IPPP (whose
// benchmark runs many segments its tests did not) spent a third of its
// samples recording residual paths that way, a sixth this way.
type ResidualHead struct {
	first atomic.Pointer[[2 * residualFirstSlots]uint64]
}

// Slot returns the count word of the residual path with Ball-Larus id bl
// of the function whose head h is, when the path is in its home slot of
// the function's first table (the common case of a residual path that runs
// again and again), and nil otherwise. It is small enough for the compiler
// to inline (TestWPPInlined checks it), so that the function that
// instrumented code calls to record a residual path counts such a path
// with no further call, and a supergraph's count at the end of a callee's
// loop round finds it with no call at all (instrument's
// residualRoundStmt).
func (h *ResidualHead) Slot(bl uint64) *uint64 {
	if t := h.first.Load(); t != nil {
		if i := homeSmall(bl, residualFirstSlots); t[2*i] == bl+1 {
			return &t[2*i+1]
		}
	}
	return nil
}

// Share makes heads, one per function of the package, the package's
// ResidualHeads: each function's first table is stored in its head when it
// is made, and now for those made already (functions that package
// variables' initializers ran before this one). It returns true, for a
// variable initializer to call it.
func (r *Residuals) Share(heads []ResidualHead) bool {
	if r == nil || len(heads) != len(r.heads) {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	r.firsts = heads
	for fn := range r.heads {
		if t := r.heads[fn].Load(); t != nil {
			heads[fn].first.Store((*[2 * residualFirstSlots]uint64)(t.slots))
		}
	}
	return true
}

type residualTable struct {
	slots []uint64 // pairs (id+1, count)
	lost  *uint64
	next  atomic.Pointer[residualTable]
}

// residualWords counts the words of all residual tables of the process; it
// is changed under mu.
var residualWords int

// Count records a run of the residual path with Ball-Larus id bl of the
// package's function fn, atomically (-atomic and -race builds).
func (r *Residuals) Count(fn int, bl uint64) { r.count(fn, bl, true) }

// CountPlain is Count for builds that count plainly: the run is added by a
// plain increment, so goroutines that race on one path may lose runs of
// it, as they may of an array's paths, but a slot is still claimed by
// compare and swap, so no run is ever added to another path. (Under perf,
// two thirds of the samples in a residual table's count were on its atomic
// add, on fastjson's Validate under IPPP, where residual counts took a
// third of the time.)
func (r *Residuals) CountPlain(fn int, bl uint64) { r.count(fn, bl, false) }

func (r *Residuals) count(fn int, bl uint64, atomically bool) {
	if r == nil || fn < 0 || fn >= len(r.heads) {
		return
	}
	t := r.heads[fn].Load()
	if t == nil {
		if t = r.grow(fn, nil); t == nil {
			return
		}
	}
	key := bl + 1
	for {
		if t.count(key, atomically) {
			return
		}
		next := t.next.Load()
		if next == nil {
			if next = r.grow(fn, t); next == nil {
				atomic.AddUint64(t.lost, 1)
				return
			}
		}
		t = next
	}
}

// count adds a run of key to t, atomically or not, if key has a slot in
// its window, claiming one if needed; it reports false if the window is
// full of other keys.
func (t *residualTable) count(key uint64, atomically bool) bool {
	n := uint64(len(t.slots) / 2)
	i := home(key-1, n)
	for range min(n, residualWindow) {
		k := atomic.LoadUint64(&t.slots[2*i])
		if k == 0 && atomic.CompareAndSwapUint64(&t.slots[2*i], 0, key) {
			k = key
		} else if k == 0 {
			k = atomic.LoadUint64(&t.slots[2*i])
		}
		if k == key {
			if atomically {
				atomic.AddUint64(&t.slots[2*i+1], 1)
			} else {
				t.slots[2*i+1]++
			}
			return true
		}
		if i++; i == n {
			i = 0
		}
	}
	return false
}

// grow makes the table after last (the first table if last is nil) unless
// another goroutine has, and returns it; nil if the process has used its
// limit.
func (r *Residuals) grow(fn int, last *residualTable) *residualTable {
	mu.Lock()
	defer mu.Unlock()
	if last == nil {
		if t := r.heads[fn].Load(); t != nil {
			return t
		}
	} else if t := last.next.Load(); t != nil {
		return t
	}
	slots := residualFirstSlots
	if last != nil {
		slots = 2 * len(last.slots)
	}
	if residualWords+2*slots > residualLimitWords {
		return nil
	}
	residualWords += 2 * slots
	t := &residualTable{}
	if r.dir != "" && !disabled {
		var header []uint64
		w, err := segment(r.dir, residualMagic, r.hash, 2*slots, func(h, _ []uint64) {
			h[residualFuncWord] = uint64(fn)
			header = h
		})
		if err != nil {
			warn(r.dir, err)
		} else {
			t.slots, t.lost = w, &header[residualLostWord]
		}
	}
	if t.slots == nil {
		t.slots, t.lost = make([]uint64, 2*slots), new(uint64)
	}
	if last == nil {
		r.heads[fn].Store(t)
		if r.firsts != nil {
			r.firsts[fn].first.Store((*[2 * residualFirstSlots]uint64)(t.slots))
		}
	} else {
		last.next.Store(t)
	}
	return t
}

// CountKnown counts a run of path bl in a PPP hash table of a function's
// interesting paths, whose keys (id+1) pppexec filled in, and reports
// whether bl is among them. The table is laid out as CountHashed's, without
// the lost word; keys never change, so only the count is atomic.
func CountKnown(table []uint64, bl uint64) bool {
	n := uint64(len(table) / 2)
	if n == 0 {
		return false
	}
	key := bl + 1
	i := home(bl, n)
	for range n {
		switch table[2*i] {
		case key:
			atomic.AddUint64(&table[2*i+1], 1)
			return true
		case 0:
			return false
		}
		if i++; i == n {
			i = 0
		}
	}
	return false
}

// home is the slot where the probes for id start in a table of n slots:
// package profile's HashHome, which pppexec lays out PPP tables with (a
// multiply and a shift, where a division would cost tens of cycles on
// every residual and hash-table count).
func home(id, n uint64) uint64 {
	if n > 1<<32 {
		return (id * 0x9E3779B97F4A7C15 >> 32) % n
	}
	return homeSmall(id, n)
}

// homeSmall is home for a table of at most 2^32 slots, without the test.
func homeSmall(id, n uint64) uint64 { return (id * 0x9E3779B97F4A7C15 >> 32) * n >> 32 }
