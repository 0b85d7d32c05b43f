// Package ip is the program of the interprocedural oracle test: callers
// whose call sites pppexec -ippp follows into their callees. The functions
// named leaf* are called only at such sites (the test relies on it); the
// others show what a site can be: a method on a pointer or a value, a
// variadic callee, calls nested in arguments, several calls in one block,
// a callee with a loop (its segments end inside the clone), a callee that
// is a caller itself, recursion, a closure inside a callee, callees in
// another package (package ext), and calls that are not sites (in a return
// statement, through a function value, of a generic function).
package ip

import "example.com/ippp/ext"

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

func fact(n int) int {
	if n <= 1 {
		return 1
	}
	r := fact(n - 1)
	return n * r
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

// Tail calls fact where the caller's path has already ended.
func Tail(x int) int {
	if x > 3 {
		return fact(x)
	}
	return fact(1)
}
