package profile

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestInTail checks which records after a path's record are its own: a
// run of its tail's statements, each statement's records together.
func TestInTail(t *testing.T) {
	tail := map[int32]bool{4: true, 5: true}
	for _, c := range []struct {
		stmts []int32
		want  int
	}{
		{nil, 0},
		{[]int32{4, 4, 5}, 3},          // the tail's records, one statement's twice in a row
		{[]int32{4, 5, 1, 4}, 2},       // then a statement the tail has not
		{[]int32{4, 5, 4}, 2},          // 4 again after 5: its next execution
		{[]int32{1, 4}, 0},             // the next path's first
		{[]int32{5, 5, 5, 4, 4, 2}, 5}, // all but the last
	} {
		got := InTail(tail, len(c.stmts), func(i int) int32 { return c.stmts[i] })
		if got != c.want {
			t.Errorf("InTail(%v) = %d, want %d", c.stmts, got, c.want)
		}
	}
}

// TestInTailRandom compares InTail with the rule as it reads, on random
// records: a record is the path's while its statement is in the tail and
// was not seen before, unless it follows a record of its own statement.
func TestInTailRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		tail := make(map[int32]bool)
		for range r.IntN(6) {
			tail[int32(r.IntN(30))] = true
		}
		stmts := make([]int32, r.IntN(40))
		for i := range stmts {
			stmts[i] = int32(r.IntN(30))
			if i > 0 && r.IntN(3) == 0 {
				stmts[i] = stmts[i-1]
			}
		}
		want := len(stmts)
		seen := make(map[int32]bool)
		for i, st := range stmts {
			if !tail[st] || seen[st] && stmts[i-1] != st {
				want = i
				break
			}
			seen[st] = true
		}
		if got := InTail(tail, len(stmts), func(i int) int32 { return stmts[i] }); got != want {
			t.Fatalf("InTail(%v, %v) = %d, want %d", tail, stmts, got, want)
		}
	}
}

// TestValueFormat reads each kind's words as the recording writes them
// (zigzag for signed integers, bits for floats), and does not fail on too
// few words (a crafted recording).
func TestValueFormat(t *testing.T) {
	zigzag := func(v int64) uint64 { return uint64(v<<1 ^ v>>63) }
	for _, c := range []struct {
		k     ValueKind
		words []uint64
		want  string
	}{
		{ValueInt, []uint64{zigzag(-5)}, "-5"},
		{ValueInt, []uint64{zigzag(math.MaxInt64)}, strconv.FormatInt(math.MaxInt64, 10)},
		{ValueInt, []uint64{zigzag(math.MinInt64)}, strconv.FormatInt(math.MinInt64, 10)},
		{ValueUint, []uint64{math.MaxUint64}, strconv.FormatUint(math.MaxUint64, 10)},
		{ValueFloat, []uint64{math.Float64bits(-0.25)}, "-0.25"},
		{ValueComplex, []uint64{math.Float64bits(1), math.Float64bits(-2)}, "(1-2i)"},
		{ValueBool, []uint64{1}, "true"},
		{ValueString, []uint64{0x10, 3}, "string of 3 bytes at 0x10"},
		{ValueSlice, []uint64{0x20, 1, 4}, "slice of len 1, cap 4 at 0x20"},
		{ValueIface, []uint64{0, 0}, "nil"},
		{ValueSlice, []uint64{0x20}, "[32]"},
		{ValueInt, nil, "[]"},
		{ValueText, append([]uint64{0x30, 5}, packed("1.9.0")...), `"1.9.0"`},
		{ValueText, append([]uint64{0x30, 0}, packed("")...), `""`},
		{ValueText, append([]uint64{0x30, 40}, packed("abcdefghijklmnopqrstuvwxyz")...), `"abcdefghijklmnopqrstuvwx"… (40 bytes)`},
		{ValueText, append([]uint64{0x30, 3}, packed("a\x00\n")...), `"a\x00\n"`},
		{ValueBytes, append([]uint64{0x40, 2, 8}, packed("hi")...), `[]byte("hi") cap 8`},
		{ValueBytes, append([]uint64{0, 0, 0}, packed("")...), "nil"},
		{ValueText, []uint64{0x30, 5}, "[48 5]"}, // a word short
	} {
		if got := c.k.Format(c.words); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.k, c.words, got, c.want)
		}
	}
}

// packed is the words of a ValueText's or ValueBytes's prefix of s, as rt
// records them: its first PrefixBytes bytes, little-endian, zero after.
func packed(s string) []uint64 {
	var b [PrefixBytes]byte
	copy(b[:], s)
	w := make([]uint64, PrefixWords)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return w
}

// TestMaxValueWords: no kind has more words than MaxValueWords, the
// bound the readers of WETs keep.
func TestMaxValueWords(t *testing.T) {
	most := 0
	for _, k := range []ValueKind{ValueNone, ValueInt, ValueUint, ValueFloat, ValueComplex, ValueBool, ValueString, ValueSlice, ValueWord, ValueIface, ValueText, ValueBytes} {
		if !k.known() {
			t.Errorf("%q is not known", k)
		}
		most = max(most, k.Words())
	}
	if most != MaxValueWords || most > 8 {
		t.Errorf("the most words of a kind %d, MaxValueWords %d (a record's part has 3 bits)", most, MaxValueWords)
	}
}
