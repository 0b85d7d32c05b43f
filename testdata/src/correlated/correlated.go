// Package correlated holds functions whose branches test related
// conditions, for the proofs of infeasible paths (internal/static/infeasible) and
// the vet tool's counts of them. Each function says how many acyclic paths
// it has and how many of them cannot run, worked out by hand; "proved" is
// how many the analysis must prove infeasible, which is less where a path
// cannot run for a reason it does not see. The vet tool, with
// -pathcover.maxpaths=3, reports the functions with more than 3 paths left
// once the infeasible ones are taken out, as the want comments say.
package correlated

// sameTest tests one condition twice. Paths 4: the 2 that take one way at
// the first if and the other at the second are infeasible. Proved 2.
func sameTest(x int) (s int) {
	if x > 0 {
		s++
	}
	if x > 0 {
		s += 2
	}
	return
}

// bounds tests two intervals that do not meet. Paths 4: x > 10 and x < 5
// together cannot hold. Proved 1.
func bounds(x int) (s int) {
	if x > 10 {
		s++
	}
	if x < 5 {
		s--
	}
	return
}

// nilness returns early on nil. Paths 3: nil returns; non-nil then finds
// p == nil false. Proved 1 (p != nil after p == nil was false, then its
// else).
func nilness(p *int) int {
	if p == nil {
		return 0
	}
	if p != nil {
		return *p
	} else {
		return -1
	}
}

// tagThenTest switches on a string, then tests it again. Paths 6: three
// ways through the switch ("a", "b", neither) times the if. Case "a" with
// s == "a" false, case "b" with s == "a" true, and neither with s == "a"
// true cannot run. Proved 3.
func tagThenTest(s string) (n int) {
	switch s {
	case "a":
		n = 1
	case "b":
		n = 2
	}
	if s == "a" {
		n *= 10
	}
	return
}

// typeTwice switches on a dynamic type twice. Paths 6: int or default at
// the first, int, string or neither at the second. An int is int at both:
// (int, string), (int, neither) and (default, int) cannot run. Proved 3.
func typeTwice(x any) (n int) {
	switch x.(type) {
	case int:
		n = 1
	default:
		n = 2
	}
	switch x.(type) {
	case int:
		n++
	case string:
		n--
	}
	return
}

// constants gives k one of two constants, then tests for a third. Paths
// 4: k == 2 never holds. Proved 2.
func constants(a bool) (n int) {
	k := 0
	if a {
		k = 1
	}
	if k == 2 {
		n = 1
	}
	return
}

// lengths makes a slice as long as another, then ranges over the first
// and tests the second. Paths: the range leaves at once (no elements) or
// not (then the path ends where the loop goes round), and the if: from the
// entry, done then either way of the if (2), next (1); from the loop's
// head again, next (1), done then either way (2): 6. Leaving at once
// with len(out) > 0 cannot run, nor, after a round (the path starts where
// the loop goes round again, so in had an element), finding len(out) > 0
// false. Proved 2.
func lengths(in []int) (n int) { // want `lengths has 6 acyclic paths \(2 proved infeasible\)`
	out := make([]int, len(in))
	for i := range in {
		out[i] = in[i]
	}
	if len(out) > 0 {
		n = out[0]
	}
	return
}

// array ranges over an array, which always has a first element. Paths 4:
// from the entry next or done, from the loop's head again next or done.
// Done from the entry cannot run. Proved 1.
func array(a [3]int) (s int) {
	for _, x := range a {
		s += x
	}
	return
}

// firstRound tests a loop variable in the loop. Paths 6: from the entry,
// the condition false (return), or true and then either way of the if
// (the round ends); the same from the loop's head again. In the first
// round i == 0, so its if's false way cannot run there. Proved 1 (in
// later rounds i != 0 too, unless n wraps, which the analysis does not
// follow).
func firstRound(n int) (s int) { // want `firstRound has 6 acyclic paths \(1 proved infeasible\)`
	for i := 0; i < n; i++ {
		if i == 0 {
			s++
		}
	}
	return
}

// wraps tests x, then x + 1: x + 1 wraps to the smallest int when x is
// the largest, so nothing is infeasible. Paths 4. Proved 0.
func wraps(x int) (s int) { // want `wraps has 4 acyclic paths, more than`
	if x > 0 {
		s++
	}
	y := x + 1
	if y > 0 {
		s += 2
	}
	return
}

// redefined tests x, assigns it anew, and tests it again: the two tests
// are of different values. Paths 4. Proved 0.
func redefined(f func() int) (s int) { // want `redefined has 4 acyclic paths, more than`
	x := f()
	if x > 0 {
		s++
	}
	x = f()
	if x > 0 {
		s += 2
	}
	return
}

// memory reads a field twice: another goroutine may write it in between,
// so nothing is proved, although in a single goroutine (F, T) cannot run.
// Paths 4. Proved 0.
func memory(p *struct{ n int }) (s int) { // want `memory has 4 acyclic paths, more than`
	if p.n > 0 {
		p.n = 0
	}
	if p.n > 0 {
		s = 1
	}
	return
}

// floats tests a float against itself: x == x is false for NaN, so both
// ways of the second if can run. Paths 4: x > 0 and x != x together
// cannot hold (NaN is not > 0), but comparisons of floats are not followed.
// Proved 0.
func floats(x float64) (s int) { // want `floats has 4 acyclic paths, more than`
	if x > 0 {
		s++
	}
	if x == x {
		s += 2
	}
	return
}

// threeWay needs three facts together: x < y, y < z, and z < x cannot
// all hold. Paths 8. Proved 1.
func threeWay(x, y, z int) (s int) { // want `threeWay has 8 acyclic paths \(1 proved infeasible\)`
	if x < y {
		s++
	}
	if y < z {
		s += 2
	}
	if z < x {
		s += 4
	}
	return
}

// andOr combines conditions: a && b true, then a false, cannot run.
// Paths 4. Proved 1.
func andOr(a, b bool) (s int) {
	if a && b {
		s++
	}
	if !a {
		s += 2
	}
	return
}

// manyTests has 2^11 = 2048 paths: eleven ifs on x, against bounds from
// 10 down to 0. Once x > i held, x > j holds for every later, smaller j:
// the paths that can run take the false way at some first ifs and the
// true way at all after them, 12 of them. Proved 2036.
func manyTests(x int) (s int) { // want `manyTests has 2048 acyclic paths \(2036 proved infeasible\), more than -pathcover.maxpaths=3`
	if x > 10 {
		s++
	}
	if x > 9 {
		s++
	}
	if x > 8 {
		s++
	}
	if x > 7 {
		s++
	}
	if x > 6 {
		s++
	}
	if x > 5 {
		s++
	}
	if x > 4 {
		s++
	}
	if x > 3 {
		s++
	}
	if x > 2 {
		s++
	}
	if x > 1 {
		s++
	}
	if x > 0 {
		s++
	}
	return
}

// sameTwice gives k 0, or 1 on two ways. Paths 6: a, then b, choose k,
// and k == 1 is tested. (a, k != 1), (b, k != 1) and (neither,
// k == 1) cannot run, but only a and b say which way k went, and k's
// value is not followed back to them. Proved 0: k is 0 or 1, not 1.
func sameTwice(a, b bool) (n int) { // want `sameTwice has 6 acyclic paths, more than`
	k := 0
	if a {
		k = 1
	} else if b {
		k = 1
	}
	if k == 1 {
		n = 1
	}
	return
}

// loopView leaves a loop that always runs two rounds, then gives w v or
// -2, and tests x against 0 and w. Paths 20: from the entry, the loop's
// test false (then 8 ways through the three ifs) or true (then a either
// way, and the round ends); the same from the loop's head again. The
// first round cannot end the loop (i == 0): 8 paths. x < -5 and x > 0
// cannot both hold: 2 more, after a later round. x < -5 with x == w
// cannot either (w is -2 there), but w is not followed to the branch
// that set it. Proved 10. (On the paths of the first round, v is 0 and
// w 0 or -2; after a later round v may be 2: x == w with x > 0 can run.)
func loopView(x int, a bool) (s int) { // want `loopView has 20 acyclic paths \(10 proved infeasible\)`
	v := 0
	for i := 0; i < 2; i++ {
		if a {
			v = 2
		}
	}
	w := v
	if x < -5 {
		w = -2
	}
	if x > 0 {
		s++
	}
	if x == w {
		s += 2
	}
	return
}

// roundAgain ranges over s, going round early past negative elements,
// then tests whether s is empty. Paths 8: from the entry, an element (then
// either way of the if, and the round ends) or none (then either way of
// len(s) == 0); the same from where the loop goes round again (the end of
// a round and the continue both lead there). None at once with
// len(s) == 0 false cannot run, nor, after a round, len(s) == 0 true.
// Proved 2.
func roundAgain(s []int) (n int) { // want `roundAgain has 8 acyclic paths \(2 proved infeasible\)`
	for _, x := range s {
		if x < 0 {
			continue
		}
		n += x
	}
	if len(s) == 0 {
		n = -1
	}
	return
}

// channel ranges over a channel, whose elements are not counted: nothing
// is proved of it. Paths 4: from the entry and from where the loop goes
// round again, an element or none. Proved 0.
func channel(c chan int) (n int) { // want `channel has 4 acyclic paths, more than`
	for x := range c {
		n += x
	}
	return
}

// twoLoops ranges over s twice. Paths 8: from the entry, an element at the
// first loop (the round ends), or none and then, at the second, an element
// or none; the same from where the first loop goes round again; from
// where the second does, an element or none. None at the first loop and
// an element at the second cannot run, nor, after a round of the first,
// none at the second. Proved 2. (A path never starts in both loops.)
func twoLoops(s []int) (n int) { // want `twoLoops has 8 acyclic paths \(2 proved infeasible\)`
	for _, x := range s {
		n += x
	}
	for _, x := range s {
		n -= x
	}
	return
}
