package nesting

// The programs of issue 14, item 9: an if whose body ends in an else-if
// chain, and an else-if chain with init statements. Tracing put a witness
// of the outer else if's end inside the wrapper of the inner one, where it
// ran only when the inner one's condition was false.

// L is a lexer's input and position.
type L struct {
	s string
	i int
}

// accept advances past one of the bytes of set and reports whether it did.
func (l *L) accept(set string) bool {
	if l.i < len(l.s) {
		for j := 0; j < len(set); j++ {
			if l.s[l.i] == set[j] {
				l.i++
				return true
			}
		}
	}
	return false
}

func (l *L) Scan() string {
	digits := "0123456789"
	if l.accept("0") {
		if l.accept("x") {
			digits = "hex"
		} else if l.accept("o") {
			digits = "oct"
		} else if l.accept("b") {
			digits = "bin"
		}
	}
	return digits
}

func two2(x int) (bool, int) { return x > 5, 2 * x }

func Id(x int) int {
	out := 0
	if x == 1 {
		out = 1
	} else if ok, i := two2(x); ok {
		out = i
	} else if ok, j := two2(x + 10); ok {
		out = j
	} else {
		out = -1
	}
	return out
}

// Examples runs them with the inputs.
func Examples() int {
	n := 0
	for _, s := range []string{"0x", "0o", "0b", "0", "1", ""} {
		n += len((&L{s: s}).Scan())
	}
	for _, x := range []int{1, 7, 0, -20} {
		n += Id(x)
	}
	return n
}
