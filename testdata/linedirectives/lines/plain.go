package lines

// Loop has no line directive: its positions are its own.
func Loop(n int) (s int) {
	here()
	for i := range n {
		if i%2 == 0 {
			here()
			s += i
		}
	}
	return s
}

// Drive calls every function so that each takes its branches.
func Drive() int {
	sum := 0
	for x := -1; x <= 3; x++ {
		sum += Sign(x) + Lookup(x) + Abs(x) + NoName(x) + Inherit(x) + Inside(x) + Loop(x)
	}
	return sum
}
