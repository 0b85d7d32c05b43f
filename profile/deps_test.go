package profile

import "testing"

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
