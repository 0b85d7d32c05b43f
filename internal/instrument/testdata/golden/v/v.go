// Package v gives its variables values in every way a -wet build records
// them.
package v

import "errors"

type (
	celsius float64
	flag    bool
	pair    struct{ a, b int }
)

// Kinds has a parameter of each kind of value a -wet build records, and
// two it does not (a struct, a type parameter).
func Kinds[T any](i int, u uint8, f celsius, c complex64, b bool, s string, xs []int, p *int, e error, m map[int]int, fn func(), q pair, t T) int {
	n := i + int(u)
	n += len(s) + len(xs)
	var ok = flag(b)
	if ok && p != nil && e == nil && m != nil && fn != nil && real(c) > 0 && f > 0 {
		n++
	}
	return n + q.a
}

// Loops defines variables in a for's init and post statements, a range,
// and an if's init statement whose condition is not a plain bool.
func Loops(xs []string) (total int) {
	for i := 0; i < len(xs); i++ {
		total += i
	}
	for k, x := range xs {
		total += k + len(x)
	}
	j := 0
	for {
		j++
		if j > 3 {
			break
		}
	}
	if d := flag(total > 0); d {
		total--
	}
	return total
}

// Switches defines variables in switches' init statements.
func Switches(x any, n int) string {
	switch m := n * 2; m {
	case 4:
		return "four"
	}
	switch h := n / 2; {
	case h > 1:
		return "big"
	}
	switch k := n; y := x.(type) {
	case int:
		return errors.New("int").Error() + string(rune(y+k))
	}
	return ""
}

// Receive gets values from a select's case.
func Receive(ch chan int) (got int) {
	select {
	case v, ok := <-ch:
		if ok {
			got = v
		}
	default:
	}
	return got
}
