package bidi

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomValues returns a stream of one of the shapes the WET's streams
// have: timestamps that go up by steps, values from a few, counters,
// pointers, noise, and phases of these.
func randomValues(r *rand.Rand) []uint64 {
	n := r.IntN(600)
	if r.IntN(10) == 0 {
		n = r.IntN(6) // shorter than a window
	}
	vals := make([]uint64, n)
	shape := r.IntN(8)
	base, step := r.Uint64(), r.Uint64N(64)
	few := []uint64{r.Uint64(), r.Uint64N(8), 0, r.Uint64()}
	for i := range vals {
		if shape == 6 && i%50 == 0 { // phases
			shape, base = r.IntN(6), r.Uint64()
		}
		switch shape {
		case 0:
			vals[i] = base + uint64(i)*step
		case 1:
			vals[i] = few[r.IntN(len(few))]
		case 2:
			vals[i] = few[i%3]
		case 3:
			vals[i] = r.Uint64()
		case 4:
			vals[i] = base + uint64(r.IntN(4))*8 // a few pointers
		case 7: // runs of hundreds, broken now and then
			vals[i] = base
			if r.IntN(300) == 0 {
				vals[i] = r.Uint64()
			}
		case 5:
			if i > 0 && r.IntN(4) > 0 {
				vals[i] = vals[i-1] + step
			} else {
				vals[i] = r.Uint64N(1 << 20)
			}
		}
	}
	return vals
}

// allMethods returns every method with orders 1 to 4 and two table sizes.
func allMethods() []Method {
	ms := []Method{{Kind: Raw}}
	for o := 1; o <= 4; o++ {
		for _, tb := range []int{1, 4, 10} {
			for _, k := range []Kind{FCM, DFCM, FCM2, DFCM2} {
				ms = append(ms, Method{Kind: k, Order: o, TableBits: tb})
			}
		}
		ms = append(ms, Method{Kind: LastN, Order: o}, Method{Kind: LastNStride, Order: o})
		if o <= 2 {
			ms = append(ms, Method{Kind: Runs, Order: o})
		}
	}
	return ms
}

// walk steps s at random, both ways and by Seek, and checks each value
// against vals, which is what s compresses.
func walk(t *testing.T, r *rand.Rand, s *Stream, vals []uint64, steps int) {
	t.Helper()
	if s.Len() != len(vals) {
		t.Fatalf("%v: length %d, want %d", s.Method(), s.Len(), len(vals))
	}
	for range steps {
		p := s.Pos()
		switch r.IntN(5) {
		case 0, 1:
			v, ok := s.Next()
			if ok != (p < len(vals)) || ok && v != vals[p] || s.Pos() != min(p+1, len(vals)) {
				t.Fatalf("%v: Next at %d of %d gave %d, %v; want %v", s.Method(), p, len(vals), v, ok, vals[min(p, len(vals)-1):min(p+1, len(vals))])
			}
		case 2, 3:
			v, ok := s.Prev()
			if ok != (p > 0) || ok && v != vals[p-1] || s.Pos() != max(p-1, 0) {
				t.Fatalf("%v: Prev at %d gave %d, %v", s.Method(), p, v, ok)
			}
		default:
			i := r.IntN(len(vals) + 1)
			s.Seek(i)
			if s.Pos() != i {
				t.Fatalf("%v: Seek(%d) left the cursor at %d", s.Method(), i, s.Pos())
			}
		}
	}
	if got := s.Values(); !slices.Equal(got, vals) && !(len(got) == 0 && len(vals) == 0) {
		t.Fatalf("%v: Values differ", s.Method())
	}
}

// TestWalks compresses random streams with every method and walks them
// both ways, before and after a round trip through their encoding.
func TestWalks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 25 {
		vals := randomValues(r)
		for _, m := range allMethods() {
			s, err := Encode(vals, m)
			if err != nil {
				t.Fatal(err)
			}
			walk(t, r, s, vals, 3*len(vals)+10)
			// A clone walks apart from the stream it was made from.
			c := s.Clone()
			walk(t, r, c, vals, len(vals)+5)
			walk(t, r, s, vals, len(vals)+5)
			b, err := s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			p, n, err := Parse(b)
			if err != nil || n != len(b) {
				t.Fatalf("%v: Parse of %d bytes: %d, %v", m, len(b), n, err)
			}
			walk(t, r, p, vals, 2*len(vals)+10)
			again, _ := p.MarshalBinary()
			if !bytes.Equal(again, b) {
				t.Fatalf("%v: the encoding changed after a walk", m)
			}
		}
	}
}

// FuzzWalk compresses values made from the input with a method it names
// and walks the stream as the input says.
func FuzzWalk(f *testing.F) {
	f.Add([]byte{1, 2, 1, 2, 1, 2, 1, 2}, uint8(1), uint8(2), []byte{0, 0, 1, 1, 2, 0})
	f.Add([]byte("the same bytes again and the same bytes again"), uint8(2), uint8(3), []byte{9, 8, 7})
	f.Add([]byte{0, 0, 0, 0, 0, 255, 255, 255}, uint8(4), uint8(1), []byte{0, 1, 0, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte, kind, order uint8, ops []byte) {
		var vals []uint64
		for i := 0; i+2 <= len(data); i += 2 {
			vals = append(vals, uint64(data[i])<<(data[i+1]%57)) // values of many sizes
		}
		m := Method{Kind: Kind(kind % uint8(numKinds)), Order: 1 + int(order%4)}
		switch m.Kind {
		case Raw:
			m.Order = 0
		case FCM, DFCM, FCM2, DFCM2:
			m.TableBits = 1 + int(order/4%6)
		case Runs:
			m.Order = 1 + int(order%2)
		}
		s, err := Encode(vals, m)
		if err != nil {
			t.Fatal(err)
		}
		seed := uint64(len(ops))
		for _, o := range ops {
			seed = seed*31 + uint64(o)
		}
		walk(t, rand.New(rand.NewPCG(seed, 3)), s, vals, len(ops)+2*len(vals))
	})
}

// FuzzParse reads any bytes as a stream: an error or a stream that walks
// to its end and back and encodes again to what it read.
func FuzzParse(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, m := range DefaultCandidates(100) {
		s, _ := Encode(nil, m)
		b, _ := s.MarshalBinary()
		f.Add(b)
		vals := randomValues(r)
		s, _ = Encode(vals, m)
		b, _ = s.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, n, err := Parse(data)
		if err != nil {
			return
		}
		if n > len(data) {
			t.Fatalf("took %d of %d bytes", n, len(data))
		}
		vals := s.Values()
		if len(vals) != s.Len() {
			t.Fatalf("%d values of %d", len(vals), s.Len())
		}
		b, _ := s.MarshalBinary()
		p, _, err := Parse(b)
		if err != nil {
			t.Fatalf("its own encoding does not parse: %v", err)
		}
		if got := p.Values(); !slices.Equal(got, vals) {
			t.Fatalf("values changed in a round trip")
		}
	})
}

// TestParseErrors: damaged encodings are errors, never a stream that
// fails later.
func TestParseErrors(t *testing.T) {
	vals := make([]uint64, 200)
	for i := range vals {
		vals[i] = uint64(i%7) * 1000
	}
	s, _ := Encode(vals, Method{Kind: FCM, Order: 2, TableBits: 6})
	good, _ := s.MarshalBinary()
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"kind", append([]byte{9}, good[1:]...)},
		{"order", append([]byte{good[0], 9}, good[2:]...)},
		{"truncated", good[:len(good)-1]},
		{"longer", binary.AppendUvarint(append([]byte{}, good[:3]...), 1<<20)},
	} {
		if _, _, err := Parse(c.b); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	// Flipping any one bit of the stack either fails to parse or gives a
	// stream that walks cleanly (Parse walked it).
	for i := len(good) - 1; i >= len(good)-20; i-- {
		for bit := range 8 {
			b := bytes.Clone(good)
			b[i] ^= 1 << bit
			if p, _, err := Parse(b); err == nil && p.Len() != len(p.Values()) {
				t.Errorf("byte %d bit %d: a stream that does not walk", i, bit)
			}
		}
	}
}

// paperCoder is FCM as the paper's Figs. 9 and 10 print it: a miss stores
// the value, and decoding a miss sets the entry to the value.
type paperCoder struct{ tableCoder }

func (c *paperCoder) push(s *bitStack, v uint64, ctx []uint64) {
	i := c.index(ctx)
	if c.table[i] == v {
		s.push(1, 1)
		return
	}
	s.push(v, 64)
	s.push(0, 1)
	c.table[i] = v
}

func (c *paperCoder) pop(s *bitStack, ctx []uint64) (uint64, bool) {
	i := c.index(ctx)
	hit, ok := s.pop(1)
	if !ok {
		return 0, false
	}
	if hit == 1 {
		return c.table[i], true
	}
	v, ok := s.pop(64)
	c.table[i] = v
	return v, ok
}

// TestPaperBFCMIsLossy walks a stream compressed as the paper prints it:
// it decodes a wrong value, where this package's coder does not. In
// 9 9 5 9 9 7 9 9 7 (order 2), the values after the context 9 9 are pushed
// on the right stack last first: 7 (a miss), 7 (a hit), 5 (a miss, which
// evicts 7). Stepping forward pops them first first: decoding 5's miss
// sets the entry to 5, and the hit after it reads 5 instead of 7.
func TestPaperBFCMIsLossy(t *testing.T) {
	vals := []uint64{9, 9, 5, 9, 9, 7, 9, 9, 7}
	m := Method{Kind: FCM, Order: 2, TableBits: 8}
	paper := func() *Stream {
		s := newStream(m, len(vals))
		s.lc = &paperCoder{*m.coder().(*tableCoder)}
		s.rc = &paperCoder{*m.coder().(*tableCoder)}
		copy(s.win, vals)
		for j := len(vals) - 1; j >= len(s.win); j-- {
			s.rc.push(&s.right, vals[j], s.leftContext(vals[j-len(s.win):j]))
		}
		return s
	}()
	var got []uint64
	for {
		v, ok := paper.Next()
		if !ok {
			break
		}
		got = append(got, v)
	}
	if slices.Equal(got, vals) {
		t.Fatalf("the printed BFCM decoded %v correctly; the test no longer shows its flaw", vals)
	}
	s, _ := Encode(vals, m)
	if got := s.Values(); !slices.Equal(got, vals) {
		t.Fatalf("got %v, want %v", got, vals)
	}
}

// TestCompressChooses: Compress keeps a method that predicts what the
// stream does, by the bits it takes per value after the window: one bit
// for each hit of a stride, and Raw never loses to the others by more
// than a bit a value.
func TestCompressChooses(t *testing.T) {
	strided := make([]uint64, 5000)
	for i := range strided {
		strided[i] = 1<<40 + uint64(i)*24
	}
	s := Compress(strided, nil)
	if b := s.Bits(); b > len(strided)+200 {
		t.Errorf("an arithmetic series takes %d bits for %d values with %v", b, len(strided), s.Method())
	}
	r := rand.New(rand.NewPCG(7, 8))
	noise := make([]uint64, 3000)
	for i := range noise {
		noise[i] = r.Uint64()
	}
	s = Compress(noise, nil)
	rawStream, _ := Encode(noise, Method{Kind: Raw})
	if s.Bits() > rawStream.Bits() {
		t.Errorf("noise: %v takes %d bits, raw %d", s.Method(), s.Bits(), rawStream.Bits())
	}
	if got := s.Values(); !slices.Equal(got, noise) {
		t.Error("noise does not round-trip")
	}
}

func BenchmarkStep(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	vals := make([]uint64, 1<<16)
	for i := range vals {
		vals[i] = uint64(i/3)*16 + uint64(r.IntN(3))
	}
	for _, m := range []Method{{Kind: FCM, Order: 2, TableBits: 12}, {Kind: LastNStride, Order: 2}} {
		s, _ := Encode(vals, m)
		// A step is one value either way: the walk turns at the ends.
		b.Run(m.String(), func(b *testing.B) {
			b.SetBytes(8)
			forward := true
			for b.Loop() {
				if forward {
					_, forward = s.Next()
				} else {
					_, ok := s.Prev()
					forward = !ok
				}
			}
		})
	}
}

// opaque is values as a Source that is not Values, so that EncodeSource
// and CompressSource read it as they read a spilled column.
type opaque struct{ Values }

// TestEncodeSource: a source read from its end gives the stream Encode
// gives for its values in memory, byte for byte, with every method; and
// CompressSource chooses as Compress does, sampling through Read.
func TestEncodeSource(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		vals := randomValues(r)
		for _, m := range allMethods() {
			want, _ := Encode(vals, m)
			got, err := EncodeSource(opaque{vals}, m)
			if err != nil {
				t.Fatal(err)
			}
			wb, _ := want.MarshalBinary()
			gb, _ := got.MarshalBinary()
			if !bytes.Equal(wb, gb) {
				t.Fatalf("%v of %d values: EncodeSource differs from Encode", m, len(vals))
			}
		}
		opt := &Options{WarmUp: 1 + r.IntN(200)}
		want, _ := Compress(vals, opt).MarshalBinary()
		s, err := CompressSource(opaque{vals}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := s.MarshalBinary(); !bytes.Equal(want, got) {
			t.Fatalf("%d values, warm-up %d: CompressSource differs from Compress", len(vals), opt.WarmUp)
		}
	}
}
