package slice_test

import (
	"testing"

	"github.com/pathcover/pathcover/internal/query/slice"
)

// checkChain requires s's chain to hold each of its statements once, in
// depth-first order from the criterion's, each under the statement of the
// step that needed the first step of its own, found here by walking the
// steps: TestOPTSlices runs it on every slice of the oracle programs.
func checkChain(t *testing.T, s *slice.Slice) {
	t.Helper()
	chain, err := s.Chain()
	if err != nil {
		t.Fatal(err)
	}
	index := make(map[slice.Stmt]int)
	for i, st := range s.Stmts {
		index[st] = i
	}
	var stmtOf []int
	first := make(map[int]slice.Step)
	s.Walk(func(i int, st slice.Step) error {
		k := index[st.Stmt]
		stmtOf = append(stmtOf, k)
		if _, ok := first[k]; !ok {
			first[k] = st
		}
		return nil
	})
	if len(chain) != len(s.Stmts) {
		t.Fatalf("a chain of %d links for %d statements", len(chain), len(s.Stmts))
	}
	seen := make(map[int]bool)
	for i, l := range chain {
		if seen[l.Stmt] {
			t.Fatalf("statement %d twice in the chain", l.Stmt)
		}
		seen[l.Stmt] = true
		if l.Execs != s.Execs[l.Stmt] {
			t.Fatalf("link %d: %d executions, the slice's %d", i, l.Execs, s.Execs[l.Stmt])
		}
		f := first[l.Stmt]
		if l.First.Node != f.Node || l.Via != f.Via {
			t.Fatalf("link %d: first step %+v via %q, the walk's %+v", i, l.First, l.Via, f)
		}
		if i == 0 {
			if l.Parent != -1 || l.Depth != 0 || f.From != -1 {
				t.Fatalf("the chain starts with %+v", l)
			}
			continue
		}
		p := l.Parent
		if p < 0 || p >= i || l.Depth != chain[p].Depth+1 || chain[p].Stmt != stmtOf[f.From] {
			t.Fatalf("link %d (%+v) under %d, want under the statement of step %d (%d)", i, l, p, f.From, stmtOf[f.From])
		}
		// Depth first: the parent is the link before, or one of its
		// ancestors.
		a := i - 1
		for a >= 0 && a != p {
			a = chain[a].Parent
		}
		if a != p {
			t.Fatalf("link %d's parent %d is no ancestor of link %d", i, p, i-1)
		}
	}
}
