package wire

import (
	"encoding/binary"
	"fmt"
)

// A Decoder reads B from Pos. After the first error (Err), every read
// returns zero values, so that a reader checks once, at the end.
type Decoder struct {
	B    []byte // what is read
	Pos  int    // the next byte's index in B
	Off  int    // B[0]'s offset in its file, for messages
	What string // what B is, for messages ("header", "function section")
	Err  error  // the first error
}

// Fail records an error at the current position, unless one is recorded.
func (d *Decoder) Fail(format string, args ...any) {
	if d.Err != nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if d.What != "" {
		d.Err = fmt.Errorf("%s, offset %d: %s", d.What, d.Off+d.Pos, msg)
	} else {
		d.Err = fmt.Errorf("byte %d: %s", d.Off+d.Pos, msg)
	}
}

// Uvarint reads a number; what, if not "", names it in the error.
func (d *Decoder) Uvarint(what string) uint64 {
	if d.Err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.B[d.Pos:])
	if n <= 0 {
		if what != "" {
			d.Fail("%s: truncated or overlong number", what)
		} else {
			d.Fail("truncated or overlong number")
		}
		return 0
	}
	d.Pos += n
	return v
}

// Small reads a number below limit.
func (d *Decoder) Small(what string, limit uint64) uint64 {
	v := d.Uvarint(what)
	if d.Err == nil && v >= limit {
		d.Fail("%s %d out of range", what, v)
		return 0
	}
	return v
}

// Index reads an index below n.
func (d *Decoder) Index(what string, n int) int {
	v := d.Uvarint(what)
	if d.Err == nil && v >= uint64(n) {
		d.Fail("%s %d out of range [0,%d)", what, v, n)
		return 0
	}
	return int(v)
}

// Count reads a number of items of at least min bytes each (min > 0),
// which must fit in what is left: a count can never make a reader
// allocate more than the input holds.
func (d *Decoder) Count(what string, min int) int {
	v := d.Uvarint(what)
	if d.Err == nil && v > uint64(len(d.B)-d.Pos)/uint64(min) {
		d.Fail("%d %s cannot fit in %d bytes", v, what, len(d.B)-d.Pos)
		return 0
	}
	return int(v)
}

// Bytes reads n bytes, which it returns without copying.
func (d *Decoder) Bytes(n int) []byte {
	if d.Err != nil {
		return nil
	}
	if n < 0 || n > len(d.B)-d.Pos {
		d.Fail("truncated")
		return nil
	}
	b := d.B[d.Pos : d.Pos+n]
	d.Pos += n
	return b
}

// Left returns how many bytes are left to read.
func (d *Decoder) Left() int { return len(d.B) - d.Pos }

// End returns the first error, or one saying that bytes are left over.
func (d *Decoder) End() error {
	if d.Err == nil && d.Pos != len(d.B) {
		d.Fail("%d bytes left over", len(d.B)-d.Pos)
	}
	return d.Err
}
