package slice

import (
	"slices"
	"testing"
)

// TestBesideTheirVariable: a potential dependence's link comes right
// after the link of its variable's definition, in the order they were
// met, and stays where it is when no sibling defines its variable.
func TestBesideTheirVariable(t *testing.T) {
	for _, tc := range []struct {
		vias []string
		want []int
	}{
		{[]string{"n", "i", PotentialVia("n"), PotentialVia("n"), "x"}, []int{0, 2, 3, 1, 4}},
		{[]string{"i", PotentialVia("n"), "n"}, []int{0, 1, 2}}, // met before the definition
		{[]string{PotentialVia("k"), "n", PotentialVia("i"), "i"}, []int{0, 1, 2, 3}},
		{[]string{"i", "n", "result", PotentialVia("i"), PotentialVia("n")}, []int{0, 3, 1, 4, 2}},
	} {
		found := make([]Link, len(tc.vias))
		cs := make([]int, len(tc.vias))
		for i, v := range tc.vias {
			found[i].Via, cs[i] = v, i
		}
		besideTheirVariable(found, cs)
		if !slices.Equal(cs, tc.want) {
			t.Errorf("%q: %v, want %v", tc.vias, cs, tc.want)
		}
	}
}
