// Package d reads and writes memory in the ways a -deps build records,
// and returns in the ways that decide whether a path's record can say the
// call returned.
package d

type point struct{ x, y int }

var origin point

// Move stores through a pointer and returns a field read through it: the
// return reads memory, so its path is recorded apart from its return.
func Move(p *point, dx int) int {
	p.x += dx
	return p.x
}

// Sum reads a slice's elements and returns a local: the path's record says
// the call returned.
func Sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// Counter declares a variable that a closure captures: its first write is
// recorded after the statement.
func Counter() {
	calls := 0
	bump := func() { calls++ }
	bump()
	origin.y = calls
}

// Clamp falls off its end after an if that stores through a pointer: its
// paths are counted in the if's branches, before the end, so their records
// do not say the call returned.
func Clamp(p *point) {
	if p.x < 0 {
		p.x = 0
	}
}
