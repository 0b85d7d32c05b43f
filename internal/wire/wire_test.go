package wire

import (
	"encoding/binary"
	"strings"
	"testing"
)

// FuzzDecoder: whatever the input, reads never panic, never return more
// items than the input can hold, and after an error return zeros.
func FuzzDecoder(f *testing.F) {
	f.Add(binary.AppendUvarint(binary.AppendUvarint(nil, 3), 1<<40), uint8(2))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, min uint8) {
		d := &Decoder{B: b, What: "test"}
		for range 8 {
			left := d.Left()
			if n := d.Count("items", int(min)+1); n > left/(int(min)+1) {
				t.Fatalf("count %d of %d-byte items in %d bytes", n, int(min)+1, left)
			}
			d.Bytes(int(min))
			d.Index("index", 5)
		}
		if d.Err != nil && (d.Uvarint("") != 0 || d.Bytes(0) != nil) {
			t.Fatalf("a read after an error returned something")
		}
	})
}

// TestDecoderErrors: each error says what and where.
func TestDecoderErrors(t *testing.T) {
	for _, tc := range []struct {
		read func(*Decoder)
		b    []byte
		want string
	}{
		{func(d *Decoder) { d.Uvarint("size") }, nil, "header, offset 10: size: truncated or overlong number"},
		{func(d *Decoder) { d.Index("trace", 1) }, []byte{1}, "trace 1 out of range [0,1)"},
		{func(d *Decoder) { d.Small("kind", 4) }, []byte{4}, "kind 4 out of range"},
		{func(d *Decoder) { d.Count("calls", 2) }, []byte{3, 0, 0, 0, 0}, "3 calls cannot fit in 4 bytes"},
		{func(d *Decoder) { d.Bytes(2) }, []byte{1}, "truncated"},
		{func(d *Decoder) { d.Uvarint(""); d.End() }, []byte{1, 2}, "1 bytes left over"},
	} {
		d := &Decoder{B: tc.b, Off: 10, What: "header"}
		tc.read(d)
		if d.Err == nil || !strings.Contains(d.Err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.b, d.Err, tc.want)
		}
	}
	d := &Decoder{B: nil, Off: 3}
	d.Uvarint("n")
	if d.Err == nil || d.Err.Error() != "byte 3: n: truncated or overlong number" {
		t.Errorf("without What: %v", d.Err)
	}
}
