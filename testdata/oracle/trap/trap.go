// Package trap calls functions that panic and recovers.
package trap

import "testing"

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
