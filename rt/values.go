package rt

import "unsafe"

// Values (pppexec -wet): besides its whole program path and its memory
// accesses (-deps), each goroutine records the values its instrumented
// functions give their variables, into the same stream (the value record
// of profile/wpp.go), for the whole execution trace. The generated code
// calls one of the functions below after a statement that defines a
// symbolic variable (or, where that cannot hold code, where the variable
// is next read: internal/instrument/values.go), one by kind of value; each
// reports true, so that it can stand in a condition (x := f(); Value(...)
// && cond).
//
// op is the recording site's index in its function's Deps.Values (which
// says which variable, and where) shifted left by 3; the low 3 bits say
// which word of the value a record holds.

// value records word part of a value at site op>>3 of the frame's call:
// the goroutine's current one, or one below it (in the body of a
// range-over-func loop, inside the iterator's call), which the record
// then says, as the body's paths do.
func (f WPPFrame) value(op uint64, part int, v uint64) {
	r := f.r
	if r == nil || !r.room(wppMaxEvent) {
		return
	}
	switch {
	case r.depth == f.depth:
		r.put(wppControlValue<<2|wppTagControl, op|uint64(part), v)
	case f.depth < r.depth && f.depth > 0:
		r.put(wppControlValueUp<<2|wppTagControl, uint64(r.depth-f.depth), op|uint64(part), v)
	}
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// ValueInt records a signed integer, zigzag-coded.
func ValueInt[T ~int | ~int8 | ~int16 | ~int32 | ~int64](f WPPFrame, op uint64, v T) bool {
	f.value(op, 0, zigzag(int64(v)))
	return true
}

// ValueUint records an unsigned integer.
func ValueUint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](f WPPFrame, op uint64, v T) bool {
	f.value(op, 0, uint64(v))
	return true
}

// ValueFloat records a float, as a float64's bits.
func ValueFloat[T ~float32 | ~float64](f WPPFrame, op uint64, v T) bool {
	x := float64(v)
	f.value(op, 0, *(*uint64)(unsafe.Pointer(&x)))
	return true
}

// ValueComplex records a complex number's parts, as float64s.
func ValueComplex[T ~complex64 | ~complex128](f WPPFrame, op uint64, v T) bool {
	re, im := real(complex128(v)), imag(complex128(v))
	f.value(op, 0, *(*uint64)(unsafe.Pointer(&re)))
	f.value(op, 1, *(*uint64)(unsafe.Pointer(&im)))
	return true
}

// ValueBool records a boolean as 0 or 1.
func ValueBool[T ~bool](f WPPFrame, op uint64, v T) bool {
	var b uint64
	if v {
		b = 1
	}
	f.value(op, 0, b)
	return true
}

// ValueString records a string's data address and length.
func ValueString[T ~string](f WPPFrame, op uint64, v T) bool {
	s := string(v)
	f.value(op, 0, uint64(uintptr(unsafe.Pointer(unsafe.StringData(s)))))
	f.value(op, 1, uint64(len(s)))
	return true
}

// prefixWords is profile.PrefixWords, the words of content ValueText and
// ValueBytes record (rt imports no package of pathcover's).
const prefixWords = 3

// valuePrefix records the first 8*prefixWords bytes of b, little-endian,
// as words part, part+1, ...; zero past b's end. A byte slice's array may
// be written by another goroutine while the program here only holds the
// slice, reading none of it: the copy is not the program's read, and a
// -race build must not report it (a byte torn by such a write is a
// value recorded wrong, not a fault).
//
//go:norace
func (f WPPFrame) valuePrefix(op uint64, part int, b []byte) {
	var w [prefixWords]uint64
	for i := range min(len(b), 8*prefixWords) {
		w[i/8] |= uint64(b[i]) << (8 * (i % 8))
	}
	for i, x := range w {
		f.value(op, part+i, x)
	}
}

// ValueText records a string's data address, its length and its first
// bytes.
func ValueText[T ~string](f WPPFrame, op uint64, v T) bool {
	s := string(v)
	f.value(op, 0, uint64(uintptr(unsafe.Pointer(unsafe.StringData(s)))))
	f.value(op, 1, uint64(len(s)))
	f.valuePrefix(op, 2, unsafe.Slice(unsafe.StringData(s), min(len(s), 8*prefixWords)))
	return true
}

// ValueBytes records a byte slice's array address, length, capacity and
// first bytes.
func ValueBytes[S ~[]E, E ~byte](f WPPFrame, op uint64, v S) bool {
	f.value(op, 0, uint64(uintptr(unsafe.Pointer(unsafe.SliceData(v)))))
	f.value(op, 1, uint64(len(v)))
	f.value(op, 2, uint64(cap(v)))
	f.valuePrefix(op, 3, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), min(len(v), 8*prefixWords)))
	return true
}

// ValueSlice records a slice's array address, length and capacity.
func ValueSlice[S ~[]E, E any](f WPPFrame, op uint64, v S) bool {
	f.value(op, 0, uint64(uintptr(unsafe.Pointer(unsafe.SliceData(v)))))
	f.value(op, 1, uint64(len(v)))
	f.value(op, 2, uint64(cap(v)))
	return true
}

// ValueWord records a value that is one pointer word: a pointer, channel,
// map, function or unsafe.Pointer.
func ValueWord[T any](f WPPFrame, op uint64, v T) bool {
	if unsafe.Sizeof(v) == unsafe.Sizeof(uintptr(0)) {
		f.value(op, 0, uint64(*(*uintptr)(unsafe.Pointer(&v))))
	}
	return true
}

// ValueIface records an interface's two words: its type and its data.
func ValueIface[T any](f WPPFrame, op uint64, v T) bool {
	if unsafe.Sizeof(v) == 2*unsafe.Sizeof(uintptr(0)) {
		w := (*[2]uintptr)(unsafe.Pointer(&v))
		f.value(op, 0, uint64(w[0]))
		f.value(op, 1, uint64(w[1]))
	}
	return true
}
