// Package logv is the values test's own account of the values its
// program gives its variables: each call writes a line, the variable's
// name and the words a -wet build records for a value of its kind, read
// here by code of its own. It is not instrumented.
package logv

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
	"unsafe"
)

var lines []string

func add(name string, words ...uint64) bool {
	var b strings.Builder
	b.WriteString(name)
	for _, w := range words {
		fmt.Fprintf(&b, " %d", w)
	}
	lines = append(lines, b.String())
	return true
}

// Flush prints the lines.
func Flush() {
	fmt.Fprintln(os.Stdout, strings.Join(lines, "\n"))
}

func Int[T ~int | ~int8 | ~int16 | ~int32 | ~int64](name string, v T) bool {
	return add(name, uint64(int64(v)))
}

func Uint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](name string, v T) bool {
	return add(name, uint64(v))
}

func Float[T ~float32 | ~float64](name string, v T) bool {
	return add(name, math.Float64bits(float64(v)))
}

func Complex(name string, v complex128) bool {
	return add(name, math.Float64bits(real(v)), math.Float64bits(imag(v)))
}

func Bool[T ~bool](name string, v T) bool {
	if v {
		return add(name, 1)
	}
	return add(name, 0)
}

// prefix is the words of content's first 24 bytes, little-endian, zero
// after its end: what a -wet build records of a string's or a byte
// slice's content.
func prefix(content []byte) []uint64 {
	var b [24]byte
	copy(b[:], content)
	return []uint64{binary.LittleEndian.Uint64(b[0:]), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])}
}

func String(name, s string) bool {
	return add(name, append([]uint64{uint64(uintptr(unsafe.Pointer(unsafe.StringData(s)))), uint64(len(s))}, prefix([]byte(s))...)...)
}

func Bytes(name string, s []byte) bool {
	return add(name, append([]uint64{uint64(uintptr(unsafe.Pointer(unsafe.SliceData(s)))), uint64(len(s)), uint64(cap(s))}, prefix(s)...)...)
}

func Slice[E any](name string, s []E) bool {
	return add(name, uint64(uintptr(unsafe.Pointer(unsafe.SliceData(s)))), uint64(len(s)), uint64(cap(s)))
}

func Pointer[T any](name string, p *T) bool {
	return add(name, uint64(uintptr(unsafe.Pointer(p))))
}

func Map[K comparable, V any](name string, m map[K]V) bool {
	return add(name, uint64(*(*uintptr)(unsafe.Pointer(&m))))
}

func Func[F any](name string, f F) bool {
	return add(name, uint64(*(*uintptr)(unsafe.Pointer(&f))))
}

func Iface(name string, e any) bool {
	w := (*[2]uintptr)(unsafe.Pointer(&e))
	return add(name, uint64(w[0]), uint64(w[1]))
}

// Error is Iface for an error: its own interface type.
func Error(name string, e error) bool {
	w := (*[2]uintptr)(unsafe.Pointer(&e))
	return add(name, uint64(w[0]), uint64(w[1]))
}

// Pass returns tag: it stands for a switch's tag, after a log.
func Pass[T any](_ bool, tag T) T { return tag }

func Chan[E any](name string, c chan E) bool {
	return add(name, uint64(*(*uintptr)(unsafe.Pointer(&c))))
}
