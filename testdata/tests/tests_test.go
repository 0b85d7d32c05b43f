package constructs

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// mark prints the goroutine the test runs on, and the test's name.
func mark(t *testing.T) {
	var buf [64]byte
	fields := strings.Fields(string(buf[:runtime.Stack(buf[:], false)]))
	fmt.Printf("ATTR %s %s\n", fields[1], t.Name())
}

func TestMain(m *testing.M) {
	ifElseChain(-1) // outside any test
	code := m.Run()
	andOr(true, true, true) // outside any test
	os.Exit(code)
}

func TestSequential(t *testing.T) {
	mark(t)
	for x := range 4 {
		ifElseChain(x)
	}
}

// TestParallelA pauses, and runs with TestParallelB after the sequential
// tests.
func TestParallelA(t *testing.T) {
	mark(t)
	exprSwitch(1) // before t.Parallel: TestParallelA's alone
	t.Parallel()
	for x := range 200 {
		exprSwitch(x % 5)
		rangeSlice([]int{x, -x})
	}
}

func TestSubtests(t *testing.T) {
	mark(t)
	andOr(true, false, false)
	for _, x := range []int{1, 5, 9} {
		t.Run(fmt.Sprint(x), func(t *testing.T) {
			mark(t)
			ifElseChain(x)
			forThree(x)
		})
	}
	andOr(false, true, false)
}

// TestGoroutines runs code on goroutines it waits for: its own.
func TestGoroutines(t *testing.T) {
	mark(t)
	var wg sync.WaitGroup
	for x := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			forThree(x)
		}()
	}
	wg.Wait()
}

func TestParallelB(t *testing.T) {
	mark(t)
	t.Parallel()
	for x := range 200 {
		ifElseChain(x % 7)
		andOr(x%2 == 0, x%3 == 0, false)
	}
}

// TestParallelSubtests's subtests run in parallel once its function has
// returned; its cleanup runs after them.
func TestParallelSubtests(t *testing.T) {
	mark(t)
	t.Cleanup(func() { andOr(false, false, true) })
	for _, x := range []int{2, 3} {
		t.Run(fmt.Sprint(x), func(t *testing.T) {
			mark(t)
			t.Parallel()
			for i := range 50 {
				manyIfs([12]bool{i%x == 0, i%2 == 1})
			}
		})
	}
}

// TestSynctest runs code in a bubble, whose test package testing runs
// with the test's own name: it is the test's.
func TestSynctest(t *testing.T) {
	mark(t)
	synctest.Test(t, func(t *testing.T) {
		mark(t) // a goroutine of the bubble's, which the test started
		forThree(2)
	})
	andOr(true, false, true)
}
