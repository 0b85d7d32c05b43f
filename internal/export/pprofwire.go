package export

import (
	"math"
)

// A protobuf encoder for the messages of pprof's profile.proto, which is
// all that the pprof and pgo formats need of protocol buffers: varints,
// and length-delimited fields holding strings, packed numbers or nested
// messages. A message is built bottom up in a protoBuf, and nested by
// appending its bytes as a field of its parent.

// protoBuf is a message being encoded.
type protoBuf []byte

const (
	wireVarint = 0
	wireBytes  = 2
)

func (b *protoBuf) varint(x uint64) {
	for x >= 0x80 {
		*b = append(*b, byte(x)|0x80)
		x >>= 7
	}
	*b = append(*b, byte(x))
}

func (b *protoBuf) key(field, wire int) { b.varint(uint64(field)<<3 | uint64(wire)) }

// uint64Field writes a varint field, leaving out zero as proto3 does.
func (b *protoBuf) uint64Field(field int, x uint64) {
	if x == 0 {
		return
	}
	b.key(field, wireVarint)
	b.varint(x)
}

// int64Field writes an int64 field: a negative number as its two's
// complement, in ten bytes, as protobuf does.
func (b *protoBuf) int64Field(field int, x int64) { b.uint64Field(field, uint64(x)) }

func (b *protoBuf) boolField(field int, x bool) {
	if x {
		b.uint64Field(field, 1)
	}
}

// bytesField writes a length-delimited field: a string or a message.
func (b *protoBuf) bytesField(field int, data []byte) {
	b.key(field, wireBytes)
	b.varint(uint64(len(data)))
	*b = append(*b, data...)
}

// stringField writes a string, even an empty one: string_table's first
// entry must be "".
func (b *protoBuf) stringField(field int, s string) {
	b.key(field, wireBytes)
	b.varint(uint64(len(s)))
	*b = append(*b, s...)
}

// packedField writes repeated numbers packed, as proto3 does.
func (b *protoBuf) packedField(field int, xs []uint64) {
	if len(xs) == 0 {
		return
	}
	var packed protoBuf
	for _, x := range xs {
		packed.varint(x)
	}
	b.bytesField(field, packed)
}

// clampInt64 turns a count into a pprof value, which is signed: a count
// past math.MaxInt64 (a saturated sum) stays there.
func clampInt64(x uint64) int64 {
	if x > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(x)
}
