package b // want package:"1 function"

import "a"

// With a.Die known not to return, case 0 ends its path there: 1 + 2 paths,
// not 2 × 2.
func UsesDie(x int) int { // want UsesDie:"paths 3"
	switch x {
	case 0:
		a.Die("zero")
	}
	if x > 1 {
		return 1
	}
	return 0
}
