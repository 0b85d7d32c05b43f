package expr

import (
	"math"
	"testing"
)

func TestEval(t *testing.T) {
	env := map[string]float64{"x": 3, "y": 4}
	for src, want := range map[string]float64{
		"1 + 2 * 3":        7,
		"(1 + 2) * 3":      9,
		"2 ^ 3 ^ 2":        512,
		"-x + y":           1,
		"sqrt(x*x + y*y)":  5,
		"max(x, y, 2) % 3": 1,
		"abs(-2.5e1)":      25,
		"10 / 4 - 1":       1.5,
	} {
		got, err := Eval(src, env)
		if err != nil || math.Abs(got-want) > 1e-9 {
			t.Errorf("Eval(%q) = %v, %v; want %v", src, got, err, want)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, src := range []string{"1 +", "(1", "1 / 0", "z", "f(1)", "1 $ 2"} {
		if _, err := Eval(src, nil); err == nil {
			t.Errorf("Eval(%q) succeeded", src)
		}
	}
}

// benchExprs are typical inputs, for the benchmarks that measure profiling
// overhead (pathcover's docs/performance.md compares Ball-Larus and PPP
// builds on them).
var benchExprs = []string{
	"1 + 2 * 3",
	"(1 + 2) * 3 - 4 / 5",
	"2 ^ 3 ^ 2 % 7",
	"-x + y * -x",
	"sqrt(x*x + y*y) + abs(-2.5e1)",
	"max(x, y, 2, 8, 1) - min(3, x)",
	"((((x))))",
	"pi * x ^ 2",
}

func BenchmarkEval(b *testing.B) {
	env := map[string]float64{"x": 3, "y": 4}
	for b.Loop() {
		for _, src := range benchExprs {
			if _, err := Eval(src, env); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkLex(b *testing.B) {
	for b.Loop() {
		for _, src := range benchExprs {
			if _, err := lex(src); err != nil {
				b.Fatal(err)
			}
		}
	}
}
