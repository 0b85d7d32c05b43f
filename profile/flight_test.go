package profile

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// flightBuilder writes a flight file as the drawing in flight.go says,
// independently of rt's writer.
type flightBuilder struct {
	order   binary.ByteOrder
	entries uint64
	extent  uint64
	state   uint64
	goid    uint64
	// sig and msg are what a failure's hook writes besides the state.
	sig    uint64
	msg    string
	blocks [][]uint64 // each block's words, tag first
}

func (b *flightBuilder) pkg(hash string, first, funcs uint64) {
	w := []uint64{1<<32 | 64, first, funcs, 0, 0, 0, 0, 0} // the checksum: bytes() writes it
	h := []byte(hash)
	for i := range 4 {
		w[3+i] = binary.LittleEndian.Uint64(h[8*i:]) // bytes in file order
	}
	b.blocks = append(b.blocks, w)
}

// ring adds a ring whose entries were written in order (it wraps).
func (b *flightBuilder) ring(goid uint64, written []uint64) {
	w := make([]uint64, 4+b.entries+1)
	w[0], w[1], w[2], w[3] = 2<<32|(40+8*b.entries), goid, uint64(len(written)), b.entries-1
	for i, e := range written {
		w[4+uint64(i)%b.entries] = e
	}
	w[len(w)-1] = ^goid
	b.blocks = append(b.blocks, w)
}

func (b *flightBuilder) bytes() []byte {
	out := make([]byte, 4096)
	copy(out, flightMagic)
	put := func(off int, v uint64) { b.order.PutUint64(out[off:], v) }
	put(8, byteOrderMark)
	put(16, b.entries)
	put(24, b.state)
	put(32, b.goid)
	put(48, 42)
	put(64, 1<<30)
	put(72, b.extent)
	put(88, ^b.state)
	put(96, ^b.goid)
	if b.sig != 0 {
		put(120, b.sig)
		put(128, ^b.sig)
	}
	if b.msg != "" {
		put(136, uint64(len(b.msg)))
		put(144, ^uint64(len(b.msg)))
		copy(out[1024:], b.msg)
	}
	ext := []byte{}
	flush := func() {
		if len(ext) > 0 {
			out = append(out, ext...)
			out = append(out, make([]byte, int(b.extent)-len(ext))...)
			ext = ext[:0]
		}
	}
	for _, blk := range b.blocks {
		if len(ext)+8*len(blk) > int(b.extent) {
			flush()
		}
		for i, v := range blk {
			var word [8]byte
			if i >= 3 && blk[0]>>32 == 1 {
				binary.LittleEndian.PutUint64(word[:], v) // the hash's bytes
			} else {
				b.order.PutUint64(word[:], v)
			}
			ext = append(ext, word[:]...)
		}
		if blk[0]>>32 == 1 {
			b.order.PutUint64(ext[len(ext)-8:], uint64(Checksum(ext[len(ext)-64:len(ext)-8])))
		}
	}
	flush()
	if b.state == uint64(FlightSnapshot) {
		put(104, uint64(len(out)))
		resumFlightHeader(out, b.order)
		put(112, 1<<32|uint64(ChecksumUpdate(Checksum(out[:112]), out[4096:])))
	}
	return resumFlightHeader(out, b.order)
}

// resumFlightHeader writes the checksum of a flight file's header again.
func resumFlightHeader(out []byte, order binary.ByteOrder) []byte {
	fixed := bytes.Clone(out[:80])
	clear(fixed[24:40])
	clear(fixed[56:64])
	order.PutUint64(out[80:], uint64(Checksum(fixed)))
	return out
}

const (
	hashA = "0123456789abcdef0123456789abcdef"
	hashB = "fedcba9876543210fedcba9876543210"
)

func sampleFlight(order binary.ByteOrder) *flightBuilder {
	b := &flightBuilder{order: order, entries: 4, extent: 4096, state: 2, goid: 7}
	b.pkg(hashA, 1, 3)
	b.pkg(hashB, 4, 2)
	// Goroutine 7: five paths, the oldest overwritten.
	b.ring(7, []uint64{1<<40 + 0, 2<<40 + 5, 4<<40 + 1, 3<<40 + 9, 5<<40 + 2})
	// Goroutine 3: a long id (two entries), then one path.
	b.ring(3, []uint64{1 << 45, 2<<40 + FlightLongID, 1<<40 + 3})
	// Goroutine 9: the long id's value was overwritten, its marker kept.
	b.ring(9, []uint64{1 << 45, 2<<40 + FlightLongID, 1<<40 + 1, 1<<40 + 2, 1<<40 + 3})
	return b
}

// TestParseFlightHandWritten reads files written from the drawing, in
// both byte orders.
func TestParseFlightHandWritten(t *testing.T) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		fl, err := ParseFlight(sampleFlight(order).bytes())
		if err != nil {
			t.Fatalf("%v: %v", order, err)
		}
		if fl.State != FlightPanic || fl.Goid != 7 || fl.Entries != 4 || fl.PID != 42 || len(fl.Packages) != 2 {
			t.Fatalf("%v: header %+v", order, fl)
		}
		want := map[uint64][]FlightPath{
			7: {{hashA, 1, 5}, {hashB, 0, 1}, {hashA, 2, 9}, {hashB, 1, 2}},
			3: {{hashA, 1, 1 << 45}, {hashA, 0, 3}},
			9: {{hashA, 0, 1}, {hashA, 0, 2}, {hashA, 0, 3}},
		}
		if len(fl.Rings) != 3 {
			t.Fatalf("%d rings", len(fl.Rings))
		}
		// The header alone, read from a file, says the same of the end.
		name := filepath.Join(t.TempDir(), "x.flight")
		if err := os.WriteFile(name, sampleFlight(order).bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := ReadFlightHeader(name)
		if err != nil || h.State != fl.State || h.Goid != fl.Goid || h.Entries != fl.Entries || h.PID != fl.PID || len(h.Rings) != 0 {
			t.Errorf("%v: header %+v, %v", order, h, err)
		}
		for g, paths := range want {
			r := fl.Ring(g)
			if r == nil || !slices.Equal(r.Paths, paths) {
				t.Errorf("%v: goroutine %d: %+v, want %v", order, g, r, paths)
			}
		}
	}
}

// TestParseFlightBad: every kind of damage is a clear error.
func TestParseFlightBad(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(b *flightBuilder)
		raw  func([]byte) []byte
		want string
	}{
		{name: "magic", raw: func(b []byte) []byte { b[0] = 'x'; return b }, want: "not a flight file"},
		{name: "short", raw: func(b []byte) []byte { return b[:100] }, want: "not a flight file"},
		{name: "order", raw: func(b []byte) []byte { b[8] = 9; return b }, want: "byte-order"},
		{name: "entries", edit: func(b *flightBuilder) { b.entries = 3; b.blocks = nil }, want: "power of two"},
		{name: "state", edit: func(b *flightBuilder) { b.state = 9 }, want: "unknown state"},
		{name: "extent", raw: func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[72:], 8)
			return resumFlightHeader(b, binary.LittleEndian)
		}, want: "cannot hold a ring"},
		{name: "header checksum", raw: func(b []byte) []byte { b[48] ^= 1; return b }, want: "header: checksum"},
		{name: "state's complement", raw: func(b []byte) []byte { b[24] ^= 1; return b }, want: "complement"},
		{name: "package checksum", raw: func(b []byte) []byte { b[4096+8] ^= 1; return b }, want: "package block at offset 4096"},
		{name: "old version", raw: func(b []byte) []byte { b[7] = '1'; return b }, want: "another version of pathcover"},
		{name: "ring's goroutine", raw: func(b []byte) []byte { b[4096+128+8+7] ^= 0x80; return b }, want: "does not match its check"},
		{name: "ring's check", raw: func(b []byte) []byte { b[4096+128+32+8*4] ^= 1; return b }, want: "does not match its check"},
		{name: "function", edit: func(b *flightBuilder) { b.ring(11, []uint64{9<<40 + 1}) }, want: "of no package"},
		{name: "overlap", edit: func(b *flightBuilder) { b.pkg(hashB, 2, 2) }, want: "number the same functions"},
		{name: "twice", edit: func(b *flightBuilder) { b.ring(7, []uint64{1 << 40}) }, want: "two rings of goroutine 7"},
		{name: "hash", edit: func(b *flightBuilder) { b.pkg(strings.Repeat("G", 32), 10, 1) }, want: "bad package block"},
		{name: "kind", edit: func(b *flightBuilder) { b.blocks = append(b.blocks, []uint64{3<<32 | 16, 0}) }, want: "unknown block"},
		{name: "size", edit: func(b *flightBuilder) { b.blocks = append(b.blocks, []uint64{1<<32 | 1<<20}) }, want: "does not fit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := sampleFlight(binary.LittleEndian)
			if tc.edit != nil {
				tc.edit(b)
			}
			raw := b.bytes()
			if tc.raw != nil {
				raw = tc.raw(raw)
			}
			_, err := ParseFlight(raw)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestFlightRingHandedOver: a ring whose position is 0 and whose goroutine
// and check disagree is being handed to a new goroutine (the runtime
// writes the position, the check, then the goroutine): it is skipped, not
// called corrupt, and the other rings are read.
func TestFlightRingHandedOver(t *testing.T) {
	raw := sampleFlight(binary.LittleEndian).bytes()
	const ring7 = 4096 + 128
	binary.LittleEndian.PutUint64(raw[ring7+16:], 0)              // pos
	binary.LittleEndian.PutUint64(raw[ring7+32+8*4:], ^uint64(8)) // the check of goroutine 8
	fl, err := ParseFlight(raw)
	if err != nil {
		t.Fatal(err)
	}
	var goids []uint64
	for _, r := range fl.Rings {
		goids = append(goids, r.Goid)
	}
	if !reflect.DeepEqual(goids, []uint64{3, 9}) {
		t.Errorf("rings of goroutines %v, want [3 9]", goids)
	}
}

// TestFlightMessage: the signal and the message a failure's hook wrote
// are read, made valid UTF-8; a length or a signal that does not match its
// complement, or a message longer than its room, is a corrupt file.
func TestFlightMessage(t *testing.T) {
	b := sampleFlight(binary.LittleEndian)
	b.sig, b.msg = 3, "fatal error: concurrent map writes \xff"
	fl, err := ParseFlight(b.bytes())
	if err != nil || fl.Signal != 3 || fl.Message != "fatal error: concurrent map writes \uFFFD" {
		t.Fatalf("signal %d, message %q, %v", fl.Signal, fl.Message, err)
	}
	for _, damage := range []struct {
		off int
		v   uint64
	}{{128, 0}, {144, 7}, {136, 3073}} {
		data := b.bytes()
		binary.LittleEndian.PutUint64(data[damage.off:], damage.v)
		if damage.off == 136 {
			binary.LittleEndian.PutUint64(data[144:], ^damage.v)
		}
		if _, err := ParseFlight(data); err == nil {
			t.Errorf("word %d set to %d: read without an error", damage.off, damage.v)
		}
	}
	// A file of no failure: none of either.
	if fl, err := ParseFlight(sampleFlight(binary.LittleEndian).bytes()); err != nil || fl.Signal != 0 || fl.Message != "" {
		t.Errorf("no failure: signal %d, message %q, %v", fl.Signal, fl.Message, err)
	}
}

// FuzzParseFlight: no input makes ParseFlight panic or hang, and what it
// accepts is consistent: every path names a function of its packages,
// rings hold at most N paths and are sorted by goroutine.
func FuzzParseFlight(f *testing.F) {
	f.Add(sampleFlight(binary.LittleEndian).bytes())
	f.Add(sampleFlight(binary.BigEndian).bytes())
	empty := &flightBuilder{order: binary.LittleEndian, entries: 2, extent: 4096}
	f.Add(empty.bytes())
	failed := sampleFlight(binary.LittleEndian)
	failed.sig, failed.msg = 11, "runtime error: invalid memory address or nil pointer dereference"
	f.Add(failed.bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		fl, err := ParseFlight(b)
		if err != nil {
			return
		}
		funcs := make(map[string]uint64)
		for _, p := range fl.Packages {
			funcs[p.Hash] = p.Funcs
		}
		for i, r := range fl.Rings {
			if i > 0 && fl.Rings[i-1].Goid >= r.Goid {
				t.Fatalf("rings out of order")
			}
			if len(r.Paths) > fl.Entries || uint64(len(r.Paths)) > r.Written {
				t.Fatalf("goroutine %d: %d paths, %d entries, %d written", r.Goid, len(r.Paths), fl.Entries, r.Written)
			}
			for _, p := range r.Paths {
				if n, ok := funcs[p.Hash]; !ok || uint64(p.Func) >= n {
					t.Fatalf("path of function %d of %s", p.Func, p.Hash)
				}
			}
		}
	})
}

// TestFlightBitFlips flips each bit of a snapshot, whose every part has a
// checksum: the reader says the file is corrupt, or reads exactly the
// flight written, never another.
func TestFlightBitFlips(t *testing.T) {
	b := sampleFlight(binary.LittleEndian)
	b.state = uint64(FlightSnapshot)
	good := b.bytes()
	want, err := ParseFlight(good)
	if err != nil {
		t.Fatal(err)
	}
	for bit := range 8 * len(good) {
		bad := bytes.Clone(good)
		bad[bit/8] ^= 1 << (bit % 8)
		if got, err := ParseFlight(bad); err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("bit %d of %d flipped: read another flight with no error", bit, 8*len(good))
		}
	}
}
