// The values test's program: every variable it defines is followed by a
// log of its value (package logv), where a -wet build records it.
package main

import (
	"errors"

	"example.com/values/logv"
)

type (
	celsius float64
	flag    bool
)

func kinds(i int, u uint8, f celsius, c complex128, b bool, s string, xs []int, p *int, e error, m map[int]int, fn func() int) int {
	logv.Int("i", i)
	logv.Uint("u", u)
	logv.Float("f", f)
	logv.Complex("c", c)
	logv.Bool("b", b)
	logv.String("s", s)
	logv.Slice("xs", xs)
	logv.Pointer("p", p)
	logv.Error("e", e)
	logv.Map("m", m)
	logv.Func("fn", fn)
	bs := []byte(s + ", and more than the twenty-four bytes recorded")
	logv.Bytes("bs", bs)
	n := i + int(u)
	logv.Int("n", n)
	n += len(s) + len(xs) + fn()
	logv.Int("n", n)
	n++
	logv.Int("n", n)
	var ok = flag(b)
	logv.Bool("ok", ok)
	var z float64
	logv.Float("z", z)
	a, d := n, -n
	logv.Int("a", a)
	logv.Int("d", d)
	a, d = d, a
	logv.Int("a", a)
	logv.Int("d", d)
	v, found := m[3]
	logv.Int("v", v)
	logv.Bool("found", found)
	return a
}

func loops(xs []string) (total int) {
	logv.Slice("xs", xs)
	for i := 0; logv.Int("i", i) && i < len(xs); i++ {
		w := len(xs[i]) * 2
		logv.Int("w", w)
	}
	for k, x := range xs {
		logv.Int("k", k)
		logv.String("x", x)
	}
	// A statement after a branch in a loop runs after the round's path is
	// counted: its values are the round's, not the next one's.
	acc := 0
	logv.Int("acc", acc)
	for _, x := range xs {
		logv.String("x", x)
		if len(x) > 1 {
			acc += 10
			logv.Int("acc", acc)
		}
		acc++
		logv.Int("acc", acc)
	}
	for j := 10; ; j-- {
		logv.Int("j", j)
		if j < 8 {
			break
		}
	}
	if q := len(xs); logv.Int("q", q) && q > 1 {
		total = q
		logv.Int("total", total)
	}
	if r := flag(len(xs) > 0); logv.Bool("r", r) && bool(r) {
		total++
		logv.Int("total", total)
	}
	return total
}

func switches(x any, n int) string {
	logv.Iface("x", x)
	logv.Int("n", n)
	switch m := n * 2; logv.Pass(logv.Int("m", m), m) {
	case 4:
		return "four"
	}
	switch h := n / 2; {
	case logv.Int("h", h) && h > 100:
		return "big"
	}
	err := errors.New("e")
	logv.Error("err", err)
	return err.Error()
}

func receive(ch chan int) int {
	logv.Chan("ch", ch)
	select {
	case v, ok := <-ch:
		logv.Int("v", v)
		logv.Bool("ok", ok)
		return v
	default:
	}
	return 0
}

// stores writes a slice's elements after a branch in a loop (after each
// round's path is counted) and returns one of them (a load in a return
// statement, which runs after its path is counted): the WET gives each
// access to its own round.
func stores() int {
	out := make([]int, 2)
	logv.Slice("out", out)
	for i := 0; logv.Int("i", i) && i < 2; i++ {
		v := 0
		logv.Int("v", v)
		if i == 0 {
			v = 100
			logv.Int("v", v)
		} else {
			v = 200
			logv.Int("v", v)
		}
		out[i] = v
	}
	return out[0]
}

// keys sets two keys of a map, one twice, and reads the first back: the
// WET numbers a map's keys, and the read's writer is the last set of its
// key.
func keys() int {
	m := make(map[string]int)
	logv.Map("m", m)
	m["a"] = 1
	m["b"] = 2
	m["a"] = 3
	m["b"] = 4
	v := m["a"]
	logv.Int("v", v)
	return v
}

func closure(base int) func(int) int {
	logv.Int("base", base)
	return func(k int) int {
		logv.Int("k", k)
		s := base + k
		logv.Int("s", s)
		return s
	}
}

func main() {
	one := 1
	kinds(-7, 200, 21.5, complex(1, -2), true, "str", []int{1, 2, 3}, &one, errors.New("x"), map[int]int{3: 9}, func() int { return 4 })
	kinds(1<<40, 0, -0.25, 0, false, "", nil, nil, nil, nil, func() int { return 0 })
	loops([]string{"a", "bb", "ccc"})
	loops(nil)
	switches(3.5, 2)
	switches(nil, 300)
	ch := make(chan int, 1)
	logv.Chan("ch", ch)
	ch <- 42
	receive(ch)
	close(ch)
	receive(ch)
	closure(5)(6)
	stores()
	keys()
	bodies()
	logv.Flush()
}
