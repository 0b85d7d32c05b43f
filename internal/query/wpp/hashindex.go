package wpp

// A hashIndex finds items, numbered 0, 1, … in the order they are added,
// by a 64-bit hash of their contents: open addressing with linear
// probing, the table a power of 2 and at most half full. The items are
// the caller's; find asks it whether item i is the one looked for. The
// compaction's nodes and hot's windows are found in one each: hundreds of
// millions of lookups, where a map keyed by an encoding of the item costs
// more than the rest of the work.
type hashIndex struct {
	slots  []int32  // item+1 by hash; 0 free
	hashes []uint64 // of each item
}

// add adds item len(x.hashes), of hash h.
func (x *hashIndex) add(h uint64) {
	x.hashes = append(x.hashes, h)
	if 2*len(x.hashes) > len(x.slots) {
		x.slots = make([]int32, max(1<<10, 2*len(x.slots)))
		for i, h := range x.hashes {
			x.place(h, i)
		}
		return
	}
	x.place(h, len(x.hashes)-1)
}

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
