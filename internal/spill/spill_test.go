package spill

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// rec is a record with a key that repeats and its place in the input, so
// that stability shows.
type rec struct{ key, at uint32 }

var recCodec = Codec[rec]{
	Size: 8,
	Put: func(b []byte, r rec) {
		binary.LittleEndian.PutUint32(b, r.key)
		binary.LittleEndian.PutUint32(b[4:], r.at)
	},
	Get: func(b []byte) rec { return rec{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])} },
}

func byKey(a, b rec) int { return cmp.Compare(a.key, b.key) }

// keyOf spreads a key over the bytes of a uint64, so that the radix sort
// has several bytes to sort by.
func keyOf(r rec) uint64 { return uint64(r.key)*0x0101010101 + uint64(r.key)<<40 }

// FuzzSorter sorts random records with small limits (many runs) and
// requires what slices.SortStableFunc gives, twice in a row (a sorter is
// reused after Each), and no file left in its directory.
func FuzzSorter(f *testing.F) {
	f.Add(uint64(1), uint16(0), uint8(1), uint8(3))
	f.Add(uint64(2), uint16(1000), uint8(7), uint8(50))
	f.Add(uint64(3), uint16(5000), uint8(200), uint8(255))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, limit, keys uint8) {
		dir := t.TempDir()
		r := rand.New(rand.NewPCG(seed, 1))
		s := New(keyOf, recCodec, int(limit), dir)
		defer s.Close()
		for round := range 2 {
			// Keys of several bytes now and then.
			wide := round == 1
			var want []rec
			for i := range uint32(n) {
				x := rec{uint32(r.IntN(int(keys) + 1)), i}
				if wide {
					x.key = r.Uint32() % (uint32(keys)*1000 + 1)
				}
				want = append(want, x)
				if err := s.Add(x); err != nil {
					t.Fatal(err)
				}
			}
			if s.Len() != len(want) {
				t.Fatalf("round %d: Len %d, added %d", round, s.Len(), len(want))
			}
			slices.SortStableFunc(want, byKey)
			var got []rec
			if err := s.Each(func(x rec) error { got = append(got, x); return nil }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d: %d records sorted wrong", round, len(want))
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("round %d: %d files left in the directory", round, len(left))
			}
		}
	})
}

// TestSorterStops requires Each to return fn's error, and the files to
// be gone after Close.
func TestSorterStops(t *testing.T) {
	dir := t.TempDir()
	s := New(keyOf, recCodec, 4, dir)
	for i := range uint32(100) {
		s.Add(rec{100 - i, i})
	}
	stop := errors.New("stop")
	seen := 0
	if err := s.Each(func(rec) error { seen++; return stop }); err != stop || seen != 1 {
		t.Fatalf("Each returned %v after %d records", err, seen)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("%d files left", len(left))
	}
}

// TestSorterBadDir requires a directory that cannot hold the runs to be an
// error that says so, not a panic.
func TestSorterBadDir(t *testing.T) {
	s := New(keyOf, recCodec, 1, "/nonexistent/dir")
	s.Add(rec{1, 0})
	if err := s.Add(rec{2, 1}); err == nil {
		t.Fatal("no error from a directory that does not exist")
	}
}
