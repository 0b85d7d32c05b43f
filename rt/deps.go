package rt

import (
	"sync/atomic"
	"unsafe"
)

// Memory accesses (pppexec -deps): besides its whole program path, each
// goroutine records the accesses to memory that its instrumented
// statements make, into the same stream (the memory event of
// profile/wpp.go), so that the slicer can find which statement instance
// wrote what another one read. The generated code wraps each access in a
// call of one of the functions below, which records it and gives the
// access back unchanged (internal/instrument/memory.go): *p in
// x := *p becomes *Access(f, op, p).
//
// op is the statement's index in the function's Deps.Stmts shifted left
// by 5, with the access kind (profile.WPPAccess) in its low 3 bits; rt
// adds the flags.
//
// Every access takes a number from depSeq, one counter for the process:
// in a program without data races, an access that happens before another
// (in the memory model's sense) takes a smaller number, since the
// synchronisation that orders them orders the atomic additions too. So the
// slicer can replay the accesses of all goroutines in one order, in which
// each read follows the write it read. In a program with races the order
// is one of the possible ones, not necessarily the one that happened.

// depSeq numbers accesses in the process.
var depSeq atomic.Uint64

// The access kinds, as profile.WPPAccess numbers them.
const (
	depLoad    = 0
	depStore   = 1
	depCopy    = 3
	depSend    = 6
	depRecv    = 7
	depFlagsAt = 3 // the flags' shift in op
)

// mem records one access of size bytes at addr, and src for a copy. An
// access by a call below the current one (in the body of a
// range-over-func loop, which runs inside the iterator's call) says how
// far below, as the body's paths do; one by no call of the goroutine's
// stack cannot be placed and is not recorded.
func (f WPPFrame) mem(op uint64, addr, size, src uintptr) {
	r := f.r
	if r == nil || !r.room(wppMaxEvent) {
		return
	}
	up := uint64(0)
	if f.depth != r.depth {
		if f.depth > r.depth || f.depth == 0 {
			return
		}
		up = uint64(r.depth - f.depth)
	}
	seq := depSeq.Add(1)
	lo, hi := stackBounds()
	a, s := uint64(addr), uint64(src)
	if lo <= addr && addr < hi {
		a = uint64(hi - addr)
		op |= 1 << depFlagsAt
	}
	if op&7 == depCopy {
		if lo <= src && src < hi {
			s = uint64(hi - src)
			op |= 2 << depFlagsAt
		}
		if up > 0 {
			r.put(wppControlMemoryUp<<2|wppTagControl, up, op, seq-r.seq, a, uint64(size), s)
		} else {
			r.put(wppControlMemory<<2|wppTagControl, op, seq-r.seq, a, uint64(size), s)
		}
	} else if up > 0 {
		r.put(wppControlMemoryUp<<2|wppTagControl, up, op, seq-r.seq, a, uint64(size))
	} else {
		r.put(wppControlMemory<<2|wppTagControl, op, seq-r.seq, a, uint64(size))
	}
	r.seq = seq
}

// Access records a load, a store or both (x op= y) of *p, by kind of op,
// and returns p.
func Access[T any](f WPPFrame, op uint64, p *T) *T {
	f.mem(op, uintptr(unsafe.Pointer(p)), unsafe.Sizeof(*p), 0)
	return p
}

// A MapEntry is an access to an entry of a map, whose key is still to
// come: m[k] becomes m[MapOf(f, op, m).Key(k)], so that k converts to the
// map's key type as it did.
type MapEntry[K comparable] struct {
	f  WPPFrame
	op uint64
	m  uintptr
}

// MapOf starts an access (by op, a read or a write) to an entry of m.
func MapOf[M ~map[K]V, K comparable, V any](f WPPFrame, op uint64, m M) MapEntry[K] {
	return MapEntry[K]{f, op, uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&m)))}
}

// Key records the access to the entry of key k and returns k.
func (e MapEntry[K]) Key(k K) K {
	if r := e.f.r; r != nil && !r.stopped {
		e.f.mem(e.op, e.m, keyHash(k), 0)
	}
	return k
}

// Send records a send on c and returns c.
func Send[E any](f WPPFrame, op uint64, c chan<- E) chan<- E {
	f.mem(op|depSend, uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&c))), 0, 0)
	return c
}

// Recv records a receive from c and returns c.
func Recv[E any](f WPPFrame, op uint64, c <-chan E) <-chan E {
	f.mem(op|depRecv, uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&c))), 0, 0)
	return c
}

// Chan records a send or a receive (by op) on c, a channel: for the case
// of a select that ran, at the start of its body.
func Chan[C any](f WPPFrame, op uint64, c C) {
	f.mem(op, uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&c))), 0, 0)
}

// Copy is copy(dst, src), recording a load of the elements copied and a
// store of them: the copy is the statement that wrote dst's.
func Copy[E any](f WPPFrame, op uint64, dst, src []E) int {
	n := copy(dst, src)
	if n > 0 {
		size := uintptr(n) * unsafe.Sizeof(dst[0])
		f.mem(op&^7|depLoad, uintptr(unsafe.Pointer(unsafe.SliceData(src))), size, 0)
		f.mem(op&^7|depStore, uintptr(unsafe.Pointer(unsafe.SliceData(dst))), size, 0)
	}
	return n
}

// CopyString is copy(dst, src) from a string: a store of the bytes copied.
func CopyString(f WPPFrame, op uint64, dst []byte, src string) int {
	n := copy(dst, src)
	if n > 0 {
		f.mem(op&^7|depStore, uintptr(unsafe.Pointer(unsafe.SliceData(dst))), uintptr(n), 0)
	}
	return n
}

// Append is s = append(old, ...), given old and the result: the elements
// appended are stored by the statement (op, a store), and if the result
// has a new array the elements of old moved into it.
func Append[S ~[]E, E any](f WPPFrame, op uint64, old, s S) S {
	if f.r == nil || len(s) == 0 {
		return s
	}
	size := unsafe.Sizeof(s[0])
	at := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	from := uintptr(unsafe.Pointer(unsafe.SliceData(old)))
	if len(old) > 0 && at != from {
		f.mem(op&^7|depCopy, at, uintptr(len(old))*size, from)
	}
	if len(s) > len(old) {
		f.mem(op, at+uintptr(len(old))*size, uintptr(len(s)-len(old))*size, 0)
	}
	return s
}

// Made records that the elements of s, a new slice (make, a literal), were
// stored, and returns s.
func Made[S ~[]E, E any](f WPPFrame, op uint64, s S) S {
	if len(s) > 0 {
		f.mem(op, uintptr(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(s[0]), 0)
	}
	return s
}

// Elems records a read of all the elements of s, which a range loop reads,
// and returns s.
func Elems[S ~[]E, E any](f WPPFrame, op uint64, s S) S {
	if len(s) > 0 {
		f.mem(op, uintptr(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(s[0]), 0)
	}
	return s
}
