// Package golden holds the tricky cases whose graphs, numberings and
// placements are compared with hand-checked dumps in *.golden.
package golden

import "iter"

func fallthroughChain(x int) (s string) {
	switch {
	case x < 0:
		s = "negative"
		fallthrough
	case x == 0:
		s += "small"
	default:
		s = "large"
	}
	return s
}

// The loop top..middle is entered at top (falling in) and at middle (the
// goto): it is irreducible.
func gotoIntoLoop(n int) int {
	i := 0
	if n > 10 {
		goto middle
	}
top:
	i++
middle:
	i += 2
	if i < n {
		goto top
	}
	return i
}

func selectInLoop(in <-chan int, quit <-chan struct{}) (sum int) {
	for {
		select {
		case v, ok := <-in:
			if !ok {
				return
			}
			sum += v
		case <-quit:
			return
		}
	}
}

func labeledContinue(xs []int) (n int) {
loop:
	for _, x := range xs {
		switch {
		case x < 0:
			continue loop
		case x == 0:
			break loop
		}
		n++
	}
	return
}

func rangeFuncReturn(seq iter.Seq[int]) (int, bool) {
	for x := range seq {
		if x%2 == 0 {
			return x, true
		}
	}
	return 0, false
}
