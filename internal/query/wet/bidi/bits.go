package bidi

import "math/bits"

// A bitStack is a stack of bits: push appends the low k bits of a number,
// pop takes back the last k bits pushed. Bit i of the stack is bit i%64 of
// word i/64; the bits past the top are zero, so that a push can OR them in.
type bitStack struct {
	w []uint64
	n int // bits on the stack
}

func lowMask(k int) uint64 {
	if k >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(k) - 1
}

// push pushes the low k bits of x, k ≤ 64.
func (s *bitStack) push(x uint64, k int) {
	if k == 0 {
		return
	}
	x &= lowMask(k)
	off := s.n & 63
	if off == 0 {
		s.w = append(s.w, x)
	} else {
		s.w[len(s.w)-1] |= x << uint(off)
		if off+k > 64 {
			s.w = append(s.w, x>>uint(64-off))
		}
	}
	s.n += k
}

// pop pops k bits, k ≤ 64; false if the stack has fewer.
func (s *bitStack) pop(k int) (uint64, bool) {
	if k > s.n {
		return 0, false
	}
	if k == 0 {
		return 0, true
	}
	s.n -= k
	idx, off := s.n>>6, s.n&63
	x := s.w[idx] >> uint(off)
	if off+k > 64 {
		x |= s.w[idx+1] << uint(64-off)
	}
	// Clear what was popped: the words past the top go, and the bits
	// past the top of the last word are zeroed.
	if off == 0 {
		s.w = s.w[:idx]
	} else {
		s.w[idx] &= lowMask(off)
		s.w = s.w[:idx+1]
	}
	return x & lowMask(k), true
}

// pushPayload pushes x as a miss stores it: its significant bits, then
// their number k (so that a pop reads the number first) in a code that
// spends fewer bits on the small numbers, as most misses differ from what
// they evict in a few bits: k under 8 in 4 bits (a 0, then k in 3), 8 to
// 23 in 6 (1 0, then k-8 in 4), and more in 8 (1 1, then k-24 in 6).
func (s *bitStack) pushPayload(x uint64) {
	k := bits.Len64(x)
	s.push(x, k)
	switch {
	case k < 8:
		s.push(uint64(k), 3)
		s.push(0, 1)
	case k < 24:
		s.push(uint64(k-8), 4)
		s.push(0b10, 2) // popped 1, then 0
	default:
		s.push(uint64(k-24), 6)
		s.push(0b11, 2)
	}
}

// popPayload pops what pushPayload pushed.
func (s *bitStack) popPayload() (uint64, bool) {
	long, ok := s.pop(1)
	if !ok {
		return 0, false
	}
	var k uint64
	if long == 0 {
		k, ok = s.pop(3)
	} else {
		var longer uint64
		if longer, ok = s.pop(1); ok && longer == 0 {
			k, ok = s.pop(4)
			k += 8
		} else if ok {
			k, ok = s.pop(6)
			k += 24
		}
	}
	if !ok || k > 64 {
		return 0, false
	}
	return s.pop(int(k))
}

// field returns the k bits (k ≤ 64) at bit i of the stack.
func (s *bitStack) field(i, k int) uint64 {
	idx, off := i>>6, i&63
	x := s.w[idx] >> uint(off)
	if off+k > 64 {
		x |= s.w[idx+1] << uint(64-off)
	}
	return x & lowMask(k)
}

// setField sets the k bits (k ≤ 64) at bit i of the stack to x's low k.
func (s *bitStack) setField(i, k int, x uint64) {
	x &= lowMask(k)
	idx, off := i>>6, i&63
	s.w[idx] = s.w[idx]&^(lowMask(k)<<uint(off)) | x<<uint(off)
	if off+k > 64 {
		rest := off + k - 64
		s.w[idx+1] = s.w[idx+1]&^lowMask(rest) | x>>uint(64-off)
	}
}
