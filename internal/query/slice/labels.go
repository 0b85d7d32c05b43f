package slice

import (
	"encoding/binary"
	"slices"
	"sort"
)

// labels are OPT's dependences through memory, the only ones it keeps:
// for each node that read memory, the nodes that wrote what it read. They
// are packed in blocks of labelBlock reading nodes, each a run of
// uvarints: the node less the one before, the number of writers, the
// first writer as a signed distance from the node (zigzag), the others
// less the one before (they are sorted). A lookup decodes one block, kept
// for the lookups after it.
type labels struct {
	data   []byte
	blocks []labelIndex
	count  int // dependences
	// readers are the reading nodes packed, prev the last (add).
	readers int
	prev    int32
	// last is the block decoded last, plus one (0: none): a slice asks
	// for the nodes of a block in turn.
	last int
	dec  decodedBlock
}

// A decodedBlock is a block of labels decoded: writers[ends[i-1]:ends[i]]
// are the writers of readers[i].
type decodedBlock struct {
	readers, ends, writers []int32
}

type labelIndex struct {
	first int32 // the first reading node of the block
	off   uint32
}

// labelBlock is 16: a lookup outside the block decoded last decodes a
// whole block (a slice that jumps across the run pays it at each node;
// one that goes back through it, once a block). The index takes half a
// byte a reading node.
const labelBlock = 16

// packLabels packs pairs, reader<<32 | writer, sorted and distinct.
func packLabels(pairs []uint64) labels {
	var l labels
	l.add(pairs)
	l.data = slices.Clip(l.data)
	l.blocks = slices.Clip(l.blocks)
	return l
}

// add packs pairs, reader<<32 | writer, sorted and distinct, whose readers
// all come after those packed before: OPT packs each process's labels in
// turn, as its nodes are numbered after the process before.
func (l *labels) add(pairs []uint64) {
	l.count += len(pairs)
	for i := 0; i < len(pairs); {
		n := int32(pairs[i] >> 32)
		j := i
		for j < len(pairs) && int32(pairs[j]>>32) == n {
			j++
		}
		if l.readers%labelBlock == 0 {
			l.blocks = append(l.blocks, labelIndex{n, uint32(len(l.data))})
			l.prev = n
		}
		l.readers++
		l.data = binary.AppendUvarint(l.data, uint64(n-l.prev))
		l.data = binary.AppendUvarint(l.data, uint64(j-i))
		w := int32(uint32(pairs[i]))
		l.data = binary.AppendVarint(l.data, int64(n)-int64(w))
		for k := i + 1; k < j; k++ {
			v := int32(uint32(pairs[k]))
			l.data = binary.AppendUvarint(l.data, uint64(v-w))
			w = v
		}
		l.prev = n
		i = j
	}
}

func (l *labels) bytes() int64 { return int64(len(l.data)) + 8*int64(len(l.blocks)) + 24 }

// of returns the writers node n read from, valid until the next call.
func (l *labels) of(n int32) []int32 {
	b := l.last - 1
	if !l.holds(b, n) {
		// The block before next: a slice goes through the run backwards.
		if b--; !l.holds(b, n) {
			b = sort.Search(len(l.blocks), func(i int) bool { return l.blocks[i].first > n }) - 1
			if b < 0 {
				return nil
			}
		}
		l.decode(b)
	}
	k, ok := slices.BinarySearch(l.dec.readers, n)
	if !ok {
		return nil
	}
	from := int32(0)
	if k > 0 {
		from = l.dec.ends[k-1]
	}
	return l.dec.writers[from:l.dec.ends[k]:l.dec.ends[k]]
}

// holds says whether block b holds node n's labels, if any.
func (l *labels) holds(b int, n int32) bool {
	return b >= 0 && b < len(l.blocks) && l.blocks[b].first <= n && (b+1 == len(l.blocks) || n < l.blocks[b+1].first)
}

// decode decodes block b into l.dec, and reports whether its bytes held
// the block whole (a graph read from a file is checked with it:
// checkLabels).
func (l *labels) decode(b int) bool {
	start, end := int(l.blocks[b].off), len(l.data)
	if b+1 < len(l.blocks) {
		end = int(l.blocks[b+1].off)
	}
	d := &l.dec
	d.readers, d.ends, d.writers = d.readers[:0], d.ends[:0], d.writers[:0]
	l.last = b + 1
	if start > end || end > len(l.data) {
		return false
	}
	data := l.data[start:end]
	ok := true
	uv := func(k *int) uint64 {
		v, m := binary.Uvarint(data[*k:])
		if m <= 0 {
			ok, m = false, 0
		}
		*k += m
		return v
	}
	reader := l.blocks[b].first
	for k := 0; k < len(data) && ok; {
		reader += int32(uv(&k))
		cnt := uv(&k)
		first, m := binary.Varint(data[k:])
		if m <= 0 || cnt == 0 || cnt > uint64(len(data)) {
			ok = false
			break
		}
		k += m
		w := int32(int64(reader) - first)
		d.writers = append(d.writers, w)
		for range cnt - 1 {
			w += int32(uv(&k))
			d.writers = append(d.writers, w)
		}
		d.readers = append(d.readers, reader)
		d.ends = append(d.ends, int32(len(d.writers)))
	}
	return ok
}
