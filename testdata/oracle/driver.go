package constructs

import (
	"errors"
	"iter"
	"os"
	"slices"
	"sync"

	"example.com/oracle/trap"
)

// Drive calls the constructs with inputs that take many of their paths.
func Drive() int {
	sum := 0
	lo, hi := -3, 12
	if os.Getenv("ORACLE_TESTED") != "" {
		// A smaller run, whose paths are the tested ones of a PPP build.
		lo, hi = 0, 4
	}
	for x := lo; x <= hi; x++ {
		sum += ifElseChain(x)
		sum += andOr(x%2 == 0, x%3 == 0, x > 8)
		sum += forThree(x)
		forCond(x)
		sum += len(exprSwitch(x))
		sum += panicky(max(x, 0))
		sum += gotoLoop(x)
		sum += gotoReturn(x)
		sum += bigSwitch(x%7, x%4)
		sum += manyIfs([12]bool{x%2 == 0, x%3 == 0, x%5 == 0, x > 5, x < 0, x == 4, true, false, x%2 == 1, x > 10, x == 7, x < -1})
	}
	inputs := [][]int{nil, {1}, {1, 2, 3}, {-1, 0, 4}, {5, -5, 0, 9}, {-2, 3, -1, 1, 2}}
	for _, xs := range inputs {
		sum += rangeSlice(xs)
		sum += elseIfLoop(xs)
		sum += loopCalls(xs)
		sum += rangeInt(len(xs))
		sum += generic(xs, 0)
		sum += generic(xs, 4)
		sum += rangeFunc(slices.Values(xs))
		sum += rangeFunc(limit(xs))
		var arr [4]int
		copy(arr[:], xs)
		sum += rangeArray(arr)
		for _, f := range closures(xs) {
			sum += f()
		}
		l := &list[int]{items: xs}
		l.Each(func(x int) bool { return x >= 0 })
	}
	sum += labeled([][]int{{1, 2}, {3, -1, 4}, {5, 0, 6}, {7}})
	sum += labeled([][]int{{1}, {2, 3}})
	sum += rangeString("héllo, wörld")
	sum += rangeMap(map[string]int{"a": 1, "bb": 2})
	ch := make(chan int, 4)
	ch <- 1
	ch <- 2
	close(ch)
	sum += rangeChan(ch)
	for _, v := range []any{1, "s", []byte("b"), nil, 2.5} {
		sum += typeSwitch(v)
	}
	full := make(chan int, 1)
	full <- 7
	sum += selectDefault(full) + selectDefault(full)
	brk := make(chan int, 3)
	brk <- 1
	brk <- 0
	forBreak(brk)
	x, _ := named()
	sum += x + global(3) + global(-3)
	deferOnly()
	if os.Getenv("ORACLE_CONCURRENT") != "" {
		concurrent() // exact only with atomic counters
	}
	sum += fib(12)

	// Calls that panic, each through trap so that only the callee's path
	// ends at the panic.
	trap.Call1(panicky, -1)
	trap.Call0(mustNot)
	trap.Call0(neverReturns)
	trap.TB(tbFatal)
	trap.Call2(noReturns, nil, errors.New("an error"))
	var wg sync.WaitGroup
	wg.Go(goexit)
	wg.Wait()
	return sum
}

// Exit ends the program through log.Fatalf: its path ends at a call that
// never returns, and the counts must survive the exit. With
// ORACLE_CONCURRENT set, a goroutine is still alive then, parked after
// some work (its paths must be in the flight recorder's file: the rings
// of goroutines that ended may have gone to others). With ORACLE_PANIC
// set, a goroutine of its own panics first, after some work, and the
// panic ends the program (the flight recorder's test).
func Exit() {
	if os.Getenv("ORACLE_CONCURRENT") != "" {
		worked := make(chan int)
		go parked(worked)
		<-worked
		trap.AwaitSelectForever() // parked's last path is counted after it sends
	}
	if os.Getenv("ORACLE_PANIC") != "" {
		done := make(chan int)
		go func() {
			sum := 0
			for x := range 6 {
				sum += ifElseChain(x) + forThree(x) + gotoLoop(x)
			}
			var m map[int]int
			m[sum]++ // assignment to entry in nil map
			done <- sum
		}()
		<-done
	}
	noReturns(nil, nil)
}

// parked does some work, says so on worked, and waits for the program to
// end.
func parked(worked chan<- int) {
	sum := 0
	for x := range 5 {
		sum += ifElseChain(x)
	}
	worked <- sum
	select {}
}

// limit yields xs, stopping early at a negative number.
func limit(xs []int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for _, x := range xs {
			if x < 0 || !yield(x) {
				return
			}
		}
	}
}

func deferOnly() (n int) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	for i := range 3 {
		if i == 2 {
			panic("two")
		}
		n += i
	}
	return n
}

// concurrent runs functions on several goroutines and waits for them all.
func concurrent() {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for x := range 20 {
				ifElseChain(x - g)
			}
		})
	}
	wg.Wait()
	// A second wave, started by sync's code as the first was: its
	// goroutines run on the g's the first left, and must not record into
	// the recorders those left (-wpp builds).
	for g := range 4 {
		wg.Go(func() { ifElseChain(g + 1) })
	}
	wg.Wait()
	// Goroutines started by go statements of instrumented code, which a
	// -wpp build links to the call that started them.
	done := make(chan int)
	for g := range 2 {
		go func(n int) {
			ifElseChain(n)
			done <- n
		}(g)
	}
	go sendFib(done, 5)
	<-done
	<-done
	<-done
}

func sendFib(c chan<- int, n int) { c <- fib(n) }

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}
