// Package ip is the program of the interprocedural oracle test: callers
// whose call sites pppexec -ippp follows into their callees. The functions
// named leaf* are called only at such sites (the test relies on it); the
// others show what a site can be: a method on a pointer or a value, a
// variadic callee, calls nested in arguments, several calls in one block,
// a callee with a loop (its segments end inside the clone), a callee that
// is a caller itself, recursion, a closure inside a callee, callees in
// another package (package ext), calls in return statements (their results
// held in variables, so that the clone runs before the return edge's code),
// and calls that are not sites (through a function value, of a generic
// function, in the right operand of &&, of a function that recovers from
// panics, in a return statement whose results cannot be held).
package ip

import (
	"errors"

	"example.com/ippp/ext"
)

type acc struct{ n int }

func (a *acc) add(v int) {
	if v < 0 {
		a.n -= v
	} else {
		a.n += v
	}
}

func (a acc) get() int { return a.n }

func leafLoop(xs ...int) int {
	s := 0
	for _, x := range xs {
		if x%2 == 0 {
			s += x
		} else {
			s--
		}
	}
	return s
}

func leafSign(x int) int {
	if x < 0 {
		return -1
	}
	if x > 0 {
		return 1
	}
	return 0
}

func leafClosure(x int) int {
	f := func(y int) int {
		if y > 2 {
			return y * 2
		}
		return y
	}
	v := f(x)
	return v + 1
}

// mid is a callee of Drive and a caller of its own.
func mid(x int) int {
	v := leafSign(x)
	if v > 0 {
		v += leafLoop(x, x+1)
	}
	return v
}

// safeDiv recovers from a division by zero: a clone of it could return in
// the middle of a segment, so calls of it are not sites.
func safeDiv(a, b int) (q int) {
	defer func() {
		if recover() != nil {
			q = 0
		}
	}()
	return a / b
}

func fact(n int) int {
	if n <= 1 {
		return 1
	}
	r := fact(n - 1)
	return n * r
}

// pair returns a call's results, and a call's result beside a variable.
func pair(x int) (int, int) {
	if x%2 == 0 {
		return x, leafSign(x)
	}
	return leafPair(x)
}

func leafPair(x int) (int, int) {
	if x < 0 {
		return -x, 1
	}
	return x, 0
}

var bumped int

func leafBump(x int) int {
	bumped += x
	if x > 0 {
		return 1
	}
	return 0
}

// order reads bumped in the return statement whose call changes it: the gc
// compiler makes the call first, and so must the held results (the test
// compares the program's output with a plain build's).
func order(x int) (int, int) {
	return bumped, leafBump(x)
}

var errNeg = errors.New("negative")

// named's deferred function changes the results its return statements set.
func named(x int) (r int, err error) {
	defer func() {
		if err == nil {
			r *= 10
		}
	}()
	if x < -5 {
		return 0, errNeg
	}
	return leafSign(x) + leafLoop(x, 2), nil
}

// shadowed's parameter hides the package its result's type is from, so its
// results cannot be held: the call in its return statement is not a site.
func shadowed(ext int) ext.Tally {
	return tallyOf(ext)
}

func tallyOf(n int) ext.Tally {
	var t ext.Tally
	t.LeafAdd(n)
	return t
}

// loopTail returns through a callee with a loop: segments end inside its
// clone, where the loop goes round, and the code after the call (the
// return edge's, held after the results) must not run before them.
func loopTail(x int) int {
	if x > 0 {
		return leafLoop(x, 1, x)
	}
	return 1 + leafLoop(-x)
}

// Drive runs the sites.
func Drive(xs []int) int {
	var a acc
	var tally ext.Tally
	t := 0
	for _, x := range xs {
		a.add(leafSign(x))
		if mid(x) > 0 {
			t++
		}
		t += leafClosure(x) + leafLoop(xs[:len(xs)%3]...)
		tally.LeafAdd(ext.LeafClamp(x, -3, 3))
		// mid may not run when its block does: not a site.
		if leafSign(x) >= 0 && mid(-x) > 0 {
			t++
		}
		t += safeDiv(t, x)
		p, q := pair(x)
		o, b := order(x)
		if n, err := named(x); err == nil {
			t += n
		}
		sq := func(y int) int { return leafSign(y) * y }
		t += p + q + o + b + sq(x) + shadowed(x).Total() + loopTail(x)
	}
	t += ext.LeafSum(xs...) + ext.Max(t, 0)
	switch leafSign(t) {
	case 1:
		t += fact(3)
	case -1:
		t -= fact(2)
	}
	g := fact
	t += g(2)
	return t + a.get() + tally.Total()
}

// Tail calls fact in its return statements.
func Tail(x int) int {
	if x > 3 {
		return fact(x)
	}
	return fact(1)
}

// Wide has 2^64 paths with leafSign inlined: its supergraph's numbering
// cuts paths to fit in 63 bits, sparing the edges that ran.
func Wide(a [64]bool, x int) int {
	n := leafSign(x)
	if a[0] {
		n++
	}
	if a[1] {
		n++
	}
	if a[2] {
		n++
	}
	if a[3] {
		n++
	}
	if a[4] {
		n++
	}
	if a[5] {
		n++
	}
	if a[6] {
		n++
	}
	if a[7] {
		n++
	}
	if a[8] {
		n++
	}
	if a[9] {
		n++
	}
	if a[10] {
		n++
	}
	if a[11] {
		n++
	}
	if a[12] {
		n++
	}
	if a[13] {
		n++
	}
	if a[14] {
		n++
	}
	if a[15] {
		n++
	}
	if a[16] {
		n++
	}
	if a[17] {
		n++
	}
	if a[18] {
		n++
	}
	if a[19] {
		n++
	}
	if a[20] {
		n++
	}
	if a[21] {
		n++
	}
	if a[22] {
		n++
	}
	if a[23] {
		n++
	}
	if a[24] {
		n++
	}
	if a[25] {
		n++
	}
	if a[26] {
		n++
	}
	if a[27] {
		n++
	}
	if a[28] {
		n++
	}
	if a[29] {
		n++
	}
	if a[30] {
		n++
	}
	if a[31] {
		n++
	}
	if a[32] {
		n++
	}
	if a[33] {
		n++
	}
	if a[34] {
		n++
	}
	if a[35] {
		n++
	}
	if a[36] {
		n++
	}
	if a[37] {
		n++
	}
	if a[38] {
		n++
	}
	if a[39] {
		n++
	}
	if a[40] {
		n++
	}
	if a[41] {
		n++
	}
	if a[42] {
		n++
	}
	if a[43] {
		n++
	}
	if a[44] {
		n++
	}
	if a[45] {
		n++
	}
	if a[46] {
		n++
	}
	if a[47] {
		n++
	}
	if a[48] {
		n++
	}
	if a[49] {
		n++
	}
	if a[50] {
		n++
	}
	if a[51] {
		n++
	}
	if a[52] {
		n++
	}
	if a[53] {
		n++
	}
	if a[54] {
		n++
	}
	if a[55] {
		n++
	}
	if a[56] {
		n++
	}
	if a[57] {
		n++
	}
	if a[58] {
		n++
	}
	if a[59] {
		n++
	}
	if a[60] {
		n++
	}
	if a[61] {
		n++
	}
	if a[62] {
		n++
	}
	if a[63] {
		n++
	}
	return n
}
