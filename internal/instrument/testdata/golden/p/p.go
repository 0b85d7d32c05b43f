// Package p is the input of the golden tests: a few functions of each
// kind of control flow, small enough to read their instrumented code.
package p

// Sign has three paths.
func Sign(x int) int {
	if x < 0 {
		return -1
	} else if x == 0 {
		return 0
	}
	return 1
}

// Sum loops: its paths start and end where the loop goes round.
func Sum(xs []int) (n int) {
	for _, x := range xs {
		if x > 0 {
			n += x
		}
	}
	return n
}

// Classify calls Sign: a site of an interprocedural build.
func Classify(x int) string {
	switch Sign(x) {
	case -1:
		return "negative"
	case 0:
		return "zero"
	}
	return "positive"
}

// Many has 16 paths: more than the hash mode's array limit.
func Many(a, b, c, d bool) (n int) {
	if a {
		n++
	}
	if b {
		n++
	}
	if c {
		n++
	}
	if d {
		n++
	}
	return n
}

// Never is never called: no path of it is interesting in a PPP build.
func Never(x int) int {
	if x > 0 {
		return x
	}
	return -x
}

// Twice calls Sum twice and Sign once: with Classify's call of Sign, sites
// that can share their callee's clone (Options.ShareBlocks).
func Twice(xs []int) int {
	if Sum(xs) > 0 {
		return Sum(xs[1:])
	}
	return Sign(len(xs))
}
