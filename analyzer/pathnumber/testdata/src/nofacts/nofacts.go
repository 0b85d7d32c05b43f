// Package nofacts is analysed without -pathnumber.facts: it has no want,
// as no fact is exported.
package nofacts

func Sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}
