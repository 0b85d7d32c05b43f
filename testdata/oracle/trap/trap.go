// Package trap calls functions that panic and recovers.
package trap

import (
	"bytes"
	"runtime"
	"testing"
	"time"
)

func Call0(f func()) {
	defer func() { recover() }()
	f()
}

func Call1[A, R any](f func(A) R, a A) {
	defer func() { recover() }()
	f(a)
}

func Call2[A, B any](f func(A, B), a A, b B) {
	defer func() { recover() }()
	f(a, b)
}

func TB(f func(testing.TB)) {
	defer func() { recover() }()
	f(nil)
}

// AwaitSelectForever waits until some goroutine is blocked in an empty
// select statement, and panics after ten seconds, so that the test says
// why rather than finding a call unfinished. A goroutine that tells
// another it is about to block still has its last path to count after it
// says so; once it is blocked, that count is written. (This package is
// never instrumented, so waiting here adds no paths.)
func AwaitSelectForever() {
	buf := make([]byte, 1<<20)
	for range 10000 {
		n := runtime.Stack(buf, true)
		if bytes.Contains(buf[:n], []byte(" [select (no cases)")) {
			return
		}
		time.Sleep(time.Millisecond)
	}
	panic("no goroutine blocked in select {} within 10s")
}
