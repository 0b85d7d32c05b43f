package export

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzProtoVarint: the varints and fields are protobuf's, as
// encoding/binary writes varints.
func FuzzProtoVarint(f *testing.F) {
	for _, x := range []uint64{0, 1, 127, 128, 300, math.MaxInt64, math.MaxUint64} {
		f.Add(x, 5)
	}
	f.Fuzz(func(t *testing.T, x uint64, field int) {
		field = 1 + field&15
		var b protoBuf
		b.varint(x)
		if want := binary.AppendUvarint(nil, x); string(b) != string(want) {
			t.Fatalf("varint(%d) = %x, want %x", x, []byte(b), want)
		}
		var fb protoBuf
		fb.uint64Field(field, x)
		if x == 0 {
			if len(fb) != 0 {
				t.Fatalf("a zero field written: %x", []byte(fb))
			}
			return
		}
		key, n := binary.Uvarint(fb)
		if key != uint64(field)<<3|wireVarint {
			t.Fatalf("key %d, want field %d varint", key, field)
		}
		if v, m := binary.Uvarint(fb[n:]); v != x || n+m != len(fb) {
			t.Fatalf("field value %d (%d bytes of %d), want %d", v, n+m, len(fb), x)
		}
	})
}

// TestProtoPacked: packed numbers are a length and the varints.
func TestProtoPacked(t *testing.T) {
	var b protoBuf
	b.packedField(2, []uint64{1, 300, 0})
	want := []byte{2<<3 | wireBytes, 4, 1, 0xac, 0x02, 0}
	if string(b) != string(want) {
		t.Fatalf("packed %x, want %x", []byte(b), want)
	}
	if clampInt64(math.MaxUint64) != math.MaxInt64 || clampInt64(7) != 7 {
		t.Fatal("clampInt64")
	}
}
