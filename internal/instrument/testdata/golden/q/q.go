// Package q calls package p: sites whose callees are in another package.
package q

import "example.com/p"

// Describe calls p.Sign and p.Classify.
func Describe(x int) string {
	if p.Sign(x) > 0 {
		return "+" + p.Classify(x)
	}
	return p.Classify(x)
}
