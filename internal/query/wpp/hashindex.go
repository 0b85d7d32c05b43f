package wpp

// A hashIndex finds items, numbered 0, 1, … in the order they are added,
// by a 64-bit hash of their contents: open addressing with linear
// probing, the table a power of 2 and at most half full. The items are
// the caller's; find asks it whether item i is the one looked for. The
// compaction's nodes and hot's windows are found in one each: hundreds of
// millions of lookups, where a map keyed by an encoding of the item costs
// more than the rest of the work. A table starts small: the compaction
// makes one per function for each goroutine, and encoding/json's suite,
// 555 goroutines, spent a fifth of what it allocated on tables of 1,024
// slots that held a few traces.
type hashIndex struct {
	slots  []int32  // item+1 by hash; 0 free
	hashes []uint64 // of each item
}

// add adds item len(x.hashes), of hash h.
func (x *hashIndex) add(h uint64) {
	x.hashes = append(x.hashes, h)
	if 2*len(x.hashes) > len(x.slots) {
		x.slots = make([]int32, max(minHashSlots, 2*len(x.slots)))
		for i, h := range x.hashes {
			x.place(h, i)
		}
		return
	}
	x.place(h, len(x.hashes)-1)
}

// minHashSlots is the size of a table's first slots (a power of 2).
const minHashSlots = 16

func (x *hashIndex) place(h uint64, i int) {
	mask := uint64(len(x.slots) - 1)
	j := h >> 20 & mask
	for x.slots[j] != 0 {
		j = (j + 1) & mask
	}
	x.slots[j] = int32(i) + 1
}

// find returns the item of hash h for which is returns true, if any.
func (x *hashIndex) find(h uint64, is func(i int) bool) (int, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(x.slots) - 1)
	for j := h >> 20 & mask; x.slots[j] != 0; j = (j + 1) & mask {
		if i := int(x.slots[j]) - 1; x.hashes[i] == h && is(i) {
			return i, true
		}
	}
	return 0, false
}

// A countTable maps uint64 keys to int32 values: buildGrammar's pairs,
// runs and counts, which a Go map made most of writing the call graph of
// a suite whose tests make millions of calls from one function
// (regexp's: 0.73 of the 1.16 s that encodeCalls took, in a profile).
// Open addressing with linear probing, the table a power of 2 and at most
// half full; reset empties it in the time of the slots it used.
type countTable struct {
	keys []uint64 // key+1; 0 free
	vals []int32
	used []uint32 // the slots in use, for reset
}

// slot returns the slot of k, and whether k is in it.
func (m *countTable) slot(k uint64) (uint64, bool) {
	mask := uint64(len(m.keys) - 1)
	j := (k * 0x9e3779b97f4a7c15) >> 32 & mask
	for m.keys[j] != 0 {
		if m.keys[j] == k+1 {
			return j, true
		}
		j = (j + 1) & mask
	}
	return j, false
}

// get returns k's value, or 0 and false.
func (m *countTable) get(k uint64) (int32, bool) {
	if len(m.keys) == 0 {
		return 0, false
	}
	j, ok := m.slot(k)
	return m.vals[j], ok
}

// ref returns k's value, added as 0 if k is not in the table. It is
// valid until the next call of ref.
func (m *countTable) ref(k uint64) *int32 {
	if 2*(len(m.used)+1) > len(m.keys) {
		m.grow()
	}
	j, ok := m.slot(k)
	if !ok {
		m.keys[j], m.vals[j] = k+1, 0
		m.used = append(m.used, uint32(j))
	}
	return &m.vals[j]
}

func (m *countTable) grow() {
	keys, vals := m.keys, m.vals
	n := max(minHashSlots, 2*len(keys))
	m.keys, m.vals, m.used = make([]uint64, n), make([]int32, n), m.used[:0]
	for i, k := range keys {
		if k != 0 {
			*m.ref(k - 1) = vals[i]
		}
	}
}

// reset empties the table, keeping its slots.
func (m *countTable) reset() {
	for _, j := range m.used {
		m.keys[j] = 0
	}
	m.used = m.used[:0]
}
