package spill

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestColumns appends to many columns at once, values of every size, and
// reads each back every way, against the values kept in memory.
func TestColumns(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		cs := NewColumns(t.TempDir())
		ncols := 1 + r.IntN(8)
		cols := make([]*Column, ncols)
		want := make([][]uint64, ncols)
		for i := range cols {
			cols[i] = cs.New()
		}
		steps := r.IntN(30000)
		for range steps {
			i := r.IntN(ncols)
			v := r.Uint64() >> r.IntN(64)
			cols[i].Append(v)
			want[i] = append(want[i], v)
			if r.IntN(5000) == 0 { // reads between writes see every value
				check(t, seed, cols[i], want[i], r)
			}
		}
		for i := range cols {
			check(t, seed, cols[i], want[i], r)
		}
		if err := cs.Err(); err != nil {
			t.Fatal(err)
		}
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func check(t *testing.T, seed uint64, c *Column, want []uint64, r *rand.Rand) {
	t.Helper()
	if c.Len() != len(want) {
		t.Fatalf("seed %d: Len %d, want %d", seed, c.Len(), len(want))
	}
	var fwd []uint64
	rd := c.Reader()
	for v, ok := rd.Next(); ok; v, ok = rd.Next() {
		fwd = append(fwd, v)
	}
	if !slices.Equal(fwd, want) {
		t.Fatalf("seed %d: Reader gave %d values, not the %d appended", seed, len(fwd), len(want))
	}
	var back []uint64
	if err := c.Backward(func(v uint64) bool { back = append(back, v); return true }); err != nil {
		t.Fatal(err)
	}
	slices.Reverse(back)
	if !slices.Equal(back, want) {
		t.Fatalf("seed %d: Backward differs", seed)
	}
	for range 20 {
		i := r.IntN(len(want) + 1)
		buf := make([]uint64, r.IntN(9000))
		n, err := c.Read(i, buf)
		if err != nil {
			t.Fatal(err)
		}
		if wantN := min(len(buf), len(want)-i); n != wantN || !slices.Equal(buf[:n], want[i:i+n]) {
			t.Fatalf("seed %d: Read(%d, %d) gave %d values, want %d", seed, i, len(buf), n, wantN)
		}
	}
}

// TestColumnsBadDir: a store that cannot make its file says so, and
// reads fail rather than give wrong values.
func TestColumnsBadDir(t *testing.T) {
	cs := NewColumns(t.TempDir() + "/missing")
	c := cs.New()
	for i := range 10000 {
		c.Append(uint64(i))
	}
	if cs.Err() == nil {
		t.Fatal("no error from a store in a missing directory")
	}
	if _, err := c.Read(0, make([]uint64, 10)); err == nil {
		t.Fatal("Read succeeded without its file")
	}
	if err := c.Backward(func(uint64) bool { return true }); err == nil {
		t.Fatal("Backward succeeded without its file")
	}
}
