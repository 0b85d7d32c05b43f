package slice

import (
	"encoding/binary"
	"errors"
	"math"
)

// A goroutine's calls as readGor reads them, before the replay numbers
// them (gor.enter, gor.exit): for each call, its function, its parent,
// the end of its subtree and where its paths are in the arena. A long
// goroutine has tens of millions of calls (a main loop's), so they are
// held packed, a block of packBlock calls at a time:
//
//	block b (calls 32b .. 32b+31), once each of its calls has returned:
//	  for each call c of the block:
//	    uvarint fn
//	    uvarint c - parent, 0 for a root
//	    uvarint next - c        (next: the index after c's subtree)
//	    varint  paths - the previous call's paths (0 before the first)
//
// A block is plain while one of its calls is still open (the calls on
// the goroutine's stack: a few blocks); blocks are packed in the order
// they close, which is not their order (the first call, a main, returns
// last), into chunks of dataChunkBits bytes, each block's place kept in
// off. The replay takes the blocks in order (take), and a chunk is freed
// once each of its blocks was taken: what a goroutine holds, read and
// numbered, stays about the size of its packed calls.

// A rcall is a call as readGor reads it: what the replay that numbers it
// needs.
type rcall struct {
	fn, parent, next int32
	paths            uint32
}

// readCalls are a goroutine's calls as read.
type readCalls struct {
	n int32
	// open are the blocks with a call not returned yet (or not added
	// yet: the last block), by block.
	open map[int32]*readCallsBlock
	data [][]byte
	// off is where each packed block is in data (chunk<<dataChunkBits |
	// offset), and left how many blocks of each chunk were not taken.
	off  []uint32
	left []int32
	// peeked is the block decoded last by peek.
	peekedB int32
	peeked  [packBlock]rcall
}

// A readCallsBlock is a block of calls with a call not returned yet.
type readCallsBlock struct {
	calls [packBlock]rcall
	// returned counts its calls that returned.
	returned int32
}

func newReadCalls() *readCalls {
	return &readCalls{open: make(map[int32]*readCallsBlock), peekedB: -1}
}

// add adds call c, open.
func (r *readCalls) add(c rcall) error {
	if r.n >= math.MaxInt32-1 {
		return errors.New("more calls than the compact form holds")
	}
	b := r.n / packBlock
	if r.n%packBlock == 0 {
		r.open[b] = &readCallsBlock{}
		r.off = append(r.off, unpacked)
	}
	r.open[b].calls[r.n%packBlock] = c
	r.n++
	return nil
}

// at returns open call c.
func (r *readCalls) at(c int32) *rcall { return &r.open[c/packBlock].calls[c%packBlock] }

// returned notes that open call c returned, its subtree ending before
// next and its paths at paths in the arena, and packs its block if it
// was the block's last open call.
func (r *readCalls) returned(c, next int32, paths uint32) error {
	b := c / packBlock
	rb := r.open[b]
	rc := &rb.calls[c%packBlock]
	rc.next, rc.paths = next, paths
	rb.returned++
	if rb.returned < packBlock {
		return nil
	}
	return r.pack(b)
}

// done packs the last block, partial: every call has returned.
func (r *readCalls) done() error {
	if len(r.open) == 0 {
		return nil
	}
	b := (r.n - 1) / packBlock
	if rb := r.open[b]; len(r.open) > 1 || rb == nil || rb.returned != r.n-b*packBlock {
		return errors.New("a call did not return")
	}
	return r.pack(b)
}

// pack packs block b.
func (r *readCalls) pack(b int32) error {
	rb := r.open[b]
	delete(r.open, b)
	const most = packBlock * 4 * 5
	k := len(r.data) - 1
	if k < 0 || len(r.data[k])+most > 1<<dataChunkBits {
		if len(r.data) >= 1<<(32-dataChunkBits)-1 {
			return errors.New("more calls than the compact form holds")
		}
		r.data = append(r.data, make([]byte, 0, firstChunk))
		r.left = append(r.left, 0)
		k++
	}
	data := r.data[k]
	r.off[b] = uint32(k)<<dataChunkBits | uint32(len(data))
	r.left[k]++
	prevPaths := uint32(0)
	for i := range min(packBlock, r.n-b*packBlock) {
		c, rc := b*packBlock+i, &rb.calls[i]
		parent := uint64(0)
		if rc.parent >= 0 {
			parent = uint64(c - rc.parent)
		}
		data = binary.AppendUvarint(data, uint64(rc.fn))
		data = binary.AppendUvarint(data, parent)
		data = binary.AppendUvarint(data, uint64(rc.next-c))
		data = binary.AppendVarint(data, int64(rc.paths)-int64(prevPaths))
		prevPaths = rc.paths
	}
	r.data[k] = data
	return nil
}

// decode decodes packed block b into calls.
func (r *readCalls) decode(b int32, calls *[packBlock]rcall) {
	off := r.off[b]
	data := r.data[off>>dataChunkBits][off&(1<<dataChunkBits-1):]
	k := 0
	next := func() uint64 {
		v, n := binary.Uvarint(data[k:])
		k += n
		return v
	}
	paths := int64(0)
	for i := range min(packBlock, r.n-b*packBlock) {
		c, rc := b*packBlock+i, &calls[i]
		rc.fn = int32(next())
		rc.parent = -1
		if p := int32(next()); p > 0 {
			rc.parent = c - p
		}
		rc.next = c + int32(next())
		d, n := binary.Varint(data[k:])
		k += n
		paths += d
		rc.paths = uint32(paths)
	}
}

// peek returns call c of a block not taken yet.
func (r *readCalls) peek(c int32) rcall {
	if b := c / packBlock; b != r.peekedB {
		r.decode(b, &r.peeked)
		r.peekedB = b
	}
	return r.peeked[c%packBlock]
}

// take decodes block b into calls, for the replay, and frees its chunk
// once each of the chunk's blocks was taken.
func (r *readCalls) take(b int32, calls *[packBlock]rcall) {
	r.decode(b, calls)
	k := r.off[b] >> dataChunkBits
	if r.left[k]--; r.left[k] == 0 {
		r.data[k] = nil
	}
	if b == r.peekedB {
		r.peekedB = -1
	}
}

// bytes is what r holds.
func (r *readCalls) bytes() int64 {
	n := int64(len(r.off))*4 + int64(len(r.left))*4 + int64(len(r.open))*(packBlock*16+8)
	for _, d := range r.data {
		n += int64(cap(d))
	}
	return n
}
