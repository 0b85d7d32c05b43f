// Package chain has callers whose interprocedural path segments the
// pathcover analyzer counts with -pathcover.interprocedural.
package chain

import "chainlib"

// two has 2 paths.
func two(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Twice has 2 paths; with chainlib.Sign (3 paths) and two (2 paths) inlined
// in its first block and two in its return statement, 2×3×2×2 segments.
// The call of Max is not a site (Max is generic).
func Twice(x int, b bool) int { // want `Twice has 24 interprocedural path segments of depth 1 \(its 2 acyclic paths with the callees of its 3 call sites inlined\), more than -pathcover.maxpaths=3; the call of chainlib.Sign at line 19 multiplies them most, by 3`
	s := chainlib.Sign(x) + two(b) + chainlib.Max(x, 2)
	if b {
		s++
	}
	return s + two(!b)
}

// Once has 3 segments, no more than the limit.
func Once(x int) int {
	v := chainlib.Sign(x)
	return v
}
