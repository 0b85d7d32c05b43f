// Package chainlib is the callee side of package chain: its functions'
// graphs reach chain's analysis as facts.
package chainlib

// Sign has 3 paths.
func Sign(x int) int {
	if x < 0 {
		return -1
	}
	if x > 0 {
		return 1
	}
	return 0
}

// Max is generic: calls of it are not sites.
func Max[T int | float64](a, b T) T {
	if a > b {
		return a
	}
	return b
}
