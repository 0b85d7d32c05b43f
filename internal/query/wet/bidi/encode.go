package bidi

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A stream's encoding, with its cursor at 0 (so its left stack is empty
// and its left table zero). Every number is a uvarint (encoding/binary).
//
//	stream = kind order tableBits n
//	         window                       min(W, n) values: v[0..W)
//	         table                        the tabled kinds only (FCM, DFCM,
//	                                      FCM2, DFCM2): the right table
//	         nbits bytes                  the right stack: ⌈nbits/8⌉ bytes,
//	                                      bit i in byte i/8, bit i%8
//	table  = nnz { gap value }^nnz        its nonzero entries, by index:
//	                                      gap is the index less the last
//	                                      one's plus one (the first: 0)
//
// The right stack holds a bit for each value after the window at least,
// or for maxValuesPerBit values with Runs: so a stream of n bytes holds at
// most 8·22·n values plus its window, which bounds what decoding it can
// allocate (a reader that takes all the values of a Runs stream, 176
// values a byte, needs up to 1408 bytes of memory for each of its bytes).
//
// W is the method's window (Order, or Order+1 for DFCM, DFCM2 and
// LastNStride, 1 for Raw). A two-way table (FCM2, DFCM2) has 2^(tableBits+1)
// entries: a context's two are at 2i and 2i+1. Parse checks every field, that the right stack holds at
// least a bit for each value after the window, and then walks the stream
// to its end and back: every pop must succeed, the right stack and table
// must be empty at the end, and the left ones empty again at 0. So a
// stream that Parse accepts never fails to step.

// AppendBinary appends the stream's encoding to b. The cursor goes to 0.
func (s *Stream) AppendBinary(b []byte) ([]byte, error) {
	s.Seek(0)
	m := s.method
	b = binary.AppendUvarint(b, uint64(m.Kind))
	b = binary.AppendUvarint(b, uint64(m.Order))
	b = binary.AppendUvarint(b, uint64(m.TableBits))
	b = binary.AppendUvarint(b, uint64(s.n))
	for _, v := range s.win[:min(len(s.win), s.n)] {
		b = binary.AppendUvarint(b, v)
	}
	if t, ok := s.rc.(*tableCoder); ok {
		nnz := 0
		for _, e := range t.table {
			if e != 0 {
				nnz++
			}
		}
		b = binary.AppendUvarint(b, uint64(nnz))
		next := 0
		for i, e := range t.table {
			if e != 0 {
				b = binary.AppendUvarint(b, uint64(i-next))
				b = binary.AppendUvarint(b, e)
				next = i + 1
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(s.right.n))
	for i := 0; i < s.right.n; i += 8 {
		b = append(b, byte(s.right.w[i>>6]>>uint(i&63)))
	}
	return b, nil
}

// MarshalBinary returns the stream's encoding. The cursor goes to 0.
func (s *Stream) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil) }

// maxLen bounds the values of a stream Parse accepts.
const maxLen = 1 << 40

// Parse reads a stream's encoding from the start of b and returns the
// stream, cursor at 0, and the bytes it took.
func Parse(b []byte) (*Stream, int, error) {
	pos := 0
	uv := func(what string) (uint64, error) {
		v, n := binary.Uvarint(b[pos:])
		if n <= 0 {
			return 0, fmt.Errorf("byte %d: %s: truncated or overlong number", pos, what)
		}
		pos += n
		return v, nil
	}
	var head [4]uint64
	for i, what := range []string{"kind", "order", "table size", "length"} {
		v, err := uv(what)
		if err != nil {
			return nil, 0, err
		}
		head[i] = v
	}
	if head[0] >= uint64(numKinds) || head[1] > MaxOrder || head[2] > MaxTableBits || head[3] > maxLen {
		return nil, 0, fmt.Errorf("bad stream header %v", head)
	}
	m := Method{Kind: Kind(head[0]), Order: int(head[1]), TableBits: int(head[2])}
	if err := m.check(); err != nil {
		return nil, 0, err
	}
	n := int(head[3])
	s := newStream(m, n)
	for i := range min(len(s.win), n) {
		v, err := uv("window")
		if err != nil {
			return nil, 0, err
		}
		s.win[i] = v
	}
	if t, ok := s.rc.(*tableCoder); ok {
		nnz, err := uv("table entries")
		if err != nil {
			return nil, 0, err
		}
		if nnz > uint64(len(t.table)) {
			return nil, 0, fmt.Errorf("%d table entries in a table of %d", nnz, len(t.table))
		}
		next := uint64(0)
		for range nnz {
			gap, err := uv("table index")
			if err != nil {
				return nil, 0, err
			}
			v, err := uv("table entry")
			if err != nil {
				return nil, 0, err
			}
			i := next + gap
			if gap >= uint64(len(t.table)) || i >= uint64(len(t.table)) || v == 0 {
				return nil, 0, fmt.Errorf("byte %d: table entry %d of %d is %d", pos, i, len(t.table), v)
			}
			t.table[i] = v
			next = i + 1
		}
	}
	nbits, err := uv("stack bits")
	if err != nil {
		return nil, 0, err
	}
	nbytes := (nbits + 7) / 8
	if nbits > uint64(len(b)-pos)*8 || nbytes > uint64(len(b)-pos) {
		return nil, 0, fmt.Errorf("a stack of %d bits in %d bytes", nbits, len(b)-pos)
	}
	if after := n - min(len(s.win), n); uint64(after) > nbits*m.valuesPerBit() {
		return nil, 0, fmt.Errorf("%d values after the window in %d bits", after, nbits)
	}
	s.right.w = make([]uint64, (nbits+63)/64)
	for i := range int(nbytes) {
		s.right.w[i>>3] |= uint64(b[pos+i]) << uint(8*(i&7))
	}
	s.right.n = int(nbits)
	if r := nbits & 63; r != 0 && s.right.w[len(s.right.w)-1]>>r != 0 {
		return nil, 0, errors.New("bits past the stack's top")
	}
	pos += int(nbytes)
	if err := s.validate(); err != nil {
		return nil, 0, err
	}
	return s, pos, nil
}

// validate walks a parsed stream to its end and back to 0, checking that
// every step can be taken and that the stacks and tables come out as a
// stream that Encode made would have them.
func (s *Stream) validate() (err error) {
	defer func() {
		if recover() != nil {
			err = fmt.Errorf("a value after %d of %d cannot be decoded", s.pos, s.n)
		}
	}()
	s.Seek(s.n)
	if s.right.n != 0 || !zeroTable(s.rc) {
		return fmt.Errorf("%d bits left on the stack at the end", s.right.n)
	}
	s.Seek(0)
	if s.left.n != 0 || !zeroTable(s.lc) {
		return errors.New("the stream does not walk back to where it started")
	}
	return nil
}

func zeroTable(c coder) bool {
	if t, ok := c.(*tableCoder); ok {
		for _, e := range t.table {
			if e != 0 {
				return false
			}
		}
	}
	return true
}
