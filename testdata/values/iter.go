//go:build go1.23

package main

import "example.com/values/logv"

// bodies defines variables in the body of a range-over-func loop, which
// runs inside the iterator's call: their values are recorded as bodies'
// own. The file's //go:build line raises it to go1.23, which a module
// whose go line is older needs to range over a function, and which
// pppexec keeps.
func bodies() int {
	sum := 0
	logv.Int("sum", sum)
	for v := range upTo(3) {
		logv.Int("v", v)
		w := v * 10
		logv.Int("w", w)
		sum += w
		logv.Int("sum", sum)
	}
	return sum
}

func upTo(n int) func(func(int) bool) {
	logv.Int("n", n)
	return func(yield func(int) bool) {
		logv.Func("yield", yield)
		for i := 0; logv.Int("i", i) && i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}
