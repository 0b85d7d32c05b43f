// Package ext holds callees of package ip in another package: their clones
// are made in this package's compile, under exported names, and called
// from ip's. The functions and methods named Leaf* are called only at
// sites (the test relies on it).
package ext

// LeafClamp has no loop: its segments return to the caller.
func LeafClamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// LeafSum has a loop: a segment through it ends where the loop goes round,
// inside the clone, and is counted by the caller's package.
func LeafSum(xs ...int) int {
	s := 0
	for _, x := range xs {
		if x > 0 {
			s += x
		}
	}
	return s
}

// A Tally counts.
type Tally struct{ n, neg int }

// LeafAdd is a method on a pointer.
func (t *Tally) LeafAdd(v int) {
	if v < 0 {
		t.neg++
	}
	t.n += v
}

// Total is a method on a value.
func (t Tally) Total() int { return t.n - t.neg }

// Max is generic: its calls are not sites.
func Max[T int | float64](a, b T) T {
	if a > b {
		return a
	}
	return b
}
