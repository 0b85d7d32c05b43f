// Package constructs has a function for each construct the CFG builder
// handles. The comment on each gives its number of acyclic paths, worked
// out by hand: a path runs from the function's start, or from where a loop
// starts again (its post block, or the target of a goto back), to a return,
// a call that never returns, or the loop's back edge.
package constructs

import (
	"iter"
	"log"
	"os"
	"runtime"
	"testing"
)

// paths 3: y > 10; x < 0; else.
func ifElseChain(x int) int {
	if y := x * 2; y > 10 {
		return 1
	} else if x < 0 {
		return 2
	} else {
		x++
	}
	return x
}

// paths 2: && and || are one decision.
func andOr(a, b, c bool) int {
	if a && b || c {
		return 1
	}
	return 0
}

// paths 4: {entry, post} × {body then back, exit}.
func forThree(n int) (s int) { // want `forThree has 4 acyclic paths, more than -pathcover.maxpaths=3; the for loop at line \d+ multiplies them most, by 2`
	for i := 0; i < n; i++ {
		s += i
	}
	return
}

// paths 4: as forThree.
func forCond(n int) { // want `forCond has 4 acyclic paths`
	for n > 0 {
		n--
	}
}

// paths 4: {entry, post} × {break, around}.
func forBreak(ch chan int) { // want `forBreak has 4 acyclic paths`
	for {
		if <-ch == 0 {
			break
		}
	}
}

// paths 2: entry and post, each around the loop.
func forInfinite() {
	for {
	}
}

// paths 4 each: {entry, post} × {next, done}.
func rangeSlice(xs []int) (s int) { // want `rangeSlice has 4 acyclic paths.*the range loop at line \d+ multiplies them most, by 2`
	for _, x := range xs {
		s += x
	}
	return
}

func rangeArray(xs [4]int) (s int) { // paths 4, 1 infeasible (4 elements: no leaving at once), 3 left: within the limit
	for i := range xs {
		s += i
	}
	return
}

func rangeString(s string) (n int) { // want `rangeString has 4 acyclic paths`
	for range s {
		n++
	}
	return
}

func rangeMap(m map[string]int) (n int) { // want `rangeMap has 4 acyclic paths`
	for k, v := range m {
		n += len(k) + v
	}
	return
}

func rangeChan(ch chan int) (n int) { // want `rangeChan has 4 acyclic paths`
	for v := range ch {
		n += v
	}
	return
}

func rangeInt(n int) (s int) { // want `rangeInt has 4 acyclic paths`
	for i := range n {
		s += i
	}
	return
}

// paths 6: {entry, post} × {done, return inside, around}.
func rangeFunc(seq iter.Seq[int]) int { // want `rangeFunc has 6 acyclic paths.*range loop.*by 3`
	for x := range seq {
		if x > 3 {
			return x
		}
	}
	return -1
}

// paths 4: case 1, 2; case 3 falling into default; case 4 (tested before
// default, which is in the middle); default.
func exprSwitch(x int) string { // want `exprSwitch has 4 acyclic paths, more than -pathcover.maxpaths=3; the switch statement at line \d+ multiplies them most, by 4$`
	switch x {
	case 1, 2:
		return "small"
	case 3:
		fallthrough
	default:
		return "other"
	case 4:
		return "four"
	}
}

// paths 4: three cases and no match.
func typeSwitch(v any) int { // want `typeSwitch has 4 acyclic paths.*the type switch at line \d+ multiplies them most, by 4`
	switch t := v.(type) {
	case int:
		return t
	case string, []byte:
		return 1
	case nil:
		return 0
	}
	return -1
}

// paths 2.
func selectDefault(ch chan int) int {
	select {
	case v := <-ch:
		return v
	default:
		return 0
	}
}

// paths 1: select {} blocks forever.
func selectEmpty() {
	select {}
}

// paths 4: {entry, the label after goto} × {goto, return}.
func gotoLoop(n int) int { // want `gotoLoop has 4 acyclic paths.*if statement.*by 2`
	i := 0
loop:
	if i < n {
		i++
		goto loop
	}
	return i
}

// paths 14: from the entry and the outer post, 5 each: outer done; inner
// done; continue outer; break outer; inner around. From the inner post, 4:
// all but the outer done.
func labeled(xs [][]int) int { // want `labeled has 14 acyclic paths.*the range loop at line 178 multiplies them most, by 5$`
outer:
	for _, row := range xs {
		for _, x := range row {
			if x < 0 {
				continue outer
			}
			if x == 0 {
				break outer
			}
		}
	}
	return 0
}

// paths 1; the literals have 1 each.
func deferGo() {
	defer func() { recover() }()
	go func() {}()
}

// paths 3: t.Fatal, log.Fatalf, os.Exit.
func noReturns(t *testing.T, err error) {
	if err != nil {
		t.Fatal(err)
	}
	if err == nil {
		log.Fatalf("no error")
	}
	os.Exit(1)
}

// paths 1.
func named() (x int, err error) {
	x = 1
	return
}

// paths 6: as rangeFunc.
func generic[T comparable](xs []T, y T) int { // want `generic has 6 acyclic paths`
	for i, x := range xs {
		if x == y {
			return i
		}
	}
	return -1
}

type list[T any] struct{ items []T }

// paths 6.
func (l *list[T]) Each(f func(T) bool) { // want `\(\*list\).Each has 6 acyclic paths`
	for _, x := range l.items {
		if !f(x) {
			return
		}
	}
}

// paths 4; the literal, closures.func1, has 2.
func closures(xs []int) []func() int { // want `closures has 4 acyclic paths`
	var fs []func() int
	for _, x := range xs {
		fs = append(fs, func() int {
			if x > 0 {
				return x
			}
			return -x
		})
	}
	return fs
}

// paths 2.
func panicky(x int) int {
	if x < 0 {
		panic("negative")
	}
	return x
}

// paths 1: the call never returns, which ctrlflow's facts say.
func mustNot() {
	neverReturns()
}

func neverReturns() { panic("never") }

// paths 1: through the testing.TB interface.
func tbFatal(tb testing.TB) {
	tb.Fatalf("fatal")
}

// paths 1.
func goexit() {
	runtime.Goexit()
}

// paths 1: the init functions are init.0 and init.1.
func init() {}

func init() {}

// glob..func1 has 2 paths.
var global = func(x int) int {
	if x > 0 {
		return 1
	}
	return 0
}

// paths 4096: twelve ifs in a row.
func manyIfs(a [12]bool) (n int) { // want `manyIfs has 4096 acyclic paths.*the if statement at line \d+ multiplies them most, by 2, one of 12 branching statements in sequence$`
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
	return
}

// paths 13: six cases of two paths each, and no match.
func bigSwitch(x, y int) int { // want `bigSwitch has 13 acyclic paths.*the switch statement at line \d+ multiplies them most, by 13$`
	switch x {
	case 0:
		if y > 0 {
			return 1
		}
	case 1:
		if y > 1 {
			return 2
		}
	case 2:
		if y > 2 {
			return 3
		}
	case 3:
		if y > 3 {
			return 4
		}
	case 4:
		if y > 4 {
			return 5
		}
	case 5:
		if y > 5 {
			return 6
		}
	}
	return 0
}

// paths 2: the return after a goto label has no site of its own (nothing
// can go between the label and its statement); the counter updates go on
// the edges into the label instead.
func gotoReturn(x int) int {
	if x > 0 {
		goto L
	}
	x++
L:
	return x
}

// A loop whose body ends in an if-else-if chain: the code of the edge that
// goes round again, after the chain, must run after every branch, the first
// too, not only inside the else that wraps the else if.
func elseIfLoop(xs []int) (n int) { // want `elseIfLoop has 8 acyclic paths.*the range loop at line \d+ multiplies them most, by 4`
	for _, x := range xs {
		if x > 0 {
			n += x
		} else if x < 0 {
			n--
		} else {
			return n
		}
	}
	return n
}

// Loops that call, in the condition, the post statement and one branch of
// the body, around a loop that does not: a -flight build may hold the
// ring's position in a local only from a record to the next with no call
// between (the callees record too).
func loopCalls(xs []int) (n int) { // want `loopCalls has 11 acyclic paths.*the for loop at line \d+ multiplies them most, by 4`
	for i := 0; i < size(xs); i = next(i) {
		for j := 0; j < i; j++ {
			n += j
		}
		if xs[i] > 0 {
			n += twice(xs[i])
		} else {
			f := func() int { return xs[i] }
			n -= f()
		}
	}
	return n
}

func size(xs []int) int { return len(xs) }

func next(i int) int { return i + 1 }

func twice(x int) int {
	if x > 100 {
		return x
	}
	return 2 * x
}
