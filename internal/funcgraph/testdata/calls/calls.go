package calls

import (
	"fmt"
	"strings"
)

type T struct{ n int }

func (t T) Value() int { return t.n }

func (t *T) Inc() { t.n++ }

type List[E any] struct{ items []E }

func (l *List[E]) Push(e E) { l.items = append(l.items, e) }

func Map[E, F any](s []E, f func(E) F) []F {
	var out []F
	for _, e := range s {
		out = append(out, f(e))
	}
	return out
}

type Stringer interface{ String() string }

func helper(x int) int { return x + 1 }

// Calls has static calls in several blocks, and calls that are not static.
func Calls(t *T, s Stringer, fv func() int, xs []int) int {
	n := helper(t.Value())
	if n > 2 {
		t.Inc()
		_ = s.String()
	} else {
		n += fv()
	}
	defer fmt.Println(strings.ToUpper("x"))
	go helper(len(xs))
	f := func() int { return helper(1) }
	var l List[int]
	l.Push(n)
	_ = Map(xs, func(x int) string { return fmt.Sprint(x) })
	if n < 0 {
		panic(fmt.Sprint(helper(n)))
	}
	if helper(3) > 0 && (helper(4) > 0 || t.Value() > 0) {
		n++
	}
	return n + f() + int(int64(3)) + helper(2)
}

// Results calls in its return statements: they are sites.
func Results(t T, err error) (int, error) {
	if err != nil {
		return 0, fmt.Errorf("wrapped: %w", err)
	}
	return helper(t.Value()), nil
}

// Shadowed names a parameter as the package its result's type is from, so
// its results cannot be held: the calls in its return are not sites.
func Shadowed(strings int) *strings.Builder {
	return build(helper(strings))
}

func build(n int) *strings.Builder { return new(strings.Builder) }

// Spread passes pair's two results as first's arguments: a clone's
// registers could not go before them, so first is no site; pair is.
func Spread() int {
	return first(pair())
}

func pair() (int, error) { return 1, nil }

func first(n int, err error) int { return n }
