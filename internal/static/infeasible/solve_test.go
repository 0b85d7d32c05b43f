package infeasible

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"testing"
)

// A solverCase builds atoms over a few integer terms from fuzz bytes, each
// term with the values it is tried at: an int at -3..3, a length (not
// negative) at 0..3, a uint8 at 0..2 and 254..255, a φ of two constants at
// those. If unsat says the atoms contradict, no assignment of those values
// may satisfy them all: unsat must be sound over any values, so over these.
type solverCase struct {
	t      *terms
	vars   []term
	domain [][]int64
	atoms  []atom
}

func newSolverCase(data []byte) *solverCase {
	c := &solverCase{t: &terms{ids: make(map[string]term)}}
	intT, uint8T := types.Typ[types.Int], types.Typ[types.Uint8]
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	konst := func(v int64, typ types.Type) term { return c.t.constant(constant.MakeInt64(v), typ) }
	nvars := 2 + int(next()%3)
	for i := range nvars {
		kind := next() % 4
		info := termInfo{key: fmt.Sprintf("v%d", i), typ: intT, text: fmt.Sprintf("v%d", i)}
		var dom []int64
		switch kind {
		case 0:
			dom = []int64{-3, -2, -1, 0, 1, 2, 3}
		case 1:
			info.nonNeg = true
			dom = []int64{0, 1, 2, 3}
		case 2:
			info.typ = uint8T
			dom = []int64{0, 1, 2, 254, 255}
		case 3:
			a, b := int64(next()%5)-2, int64(next()%5)-2
			info.oneOf = []term{konst(a, intT), konst(b, intT)}
			dom = []int64{a, b}
		}
		c.vars = append(c.vars, c.t.intern(info))
		c.domain = append(c.domain, dom)
	}
	ops := []token.Token{token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ}
	for natoms := 1 + int(next()%5); len(c.atoms) < natoms && len(data) > 0; {
		op := ops[next()%6]
		x := c.vars[int(next())%nvars]
		var y term
		if b := next(); b%2 == 0 {
			y = c.vars[int(b/2)%nvars]
		} else {
			// A constant of x's type, as Go requires of x == k.
			k := int64(b/2%9) - 3
			if c.t.info[x].typ == uint8T {
				k += 3
			}
			y = konst(k, c.t.info[x].typ)
		}
		if next()%2 == 0 {
			x, y = y, x
		}
		c.atoms = append(c.atoms, atom{kind: cmpAtom, op: op, x: x, y: y})
	}
	return c
}

// value returns term x's value under assignment vals.
func (c *solverCase) value(x term, vals []int64) int64 {
	for i, v := range c.vars {
		if v == x {
			return vals[i]
		}
	}
	n, _ := constant.Int64Val(c.t.info[x].value)
	return n
}

// satisfiable searches the domain for an assignment that meets every atom.
func (c *solverCase) satisfiable() ([]int64, bool) {
	vals := make([]int64, len(c.vars))
	var search func(i int) bool
	search = func(i int) bool {
		if i == len(c.vars) {
			for _, a := range c.atoms {
				x, y := c.value(a.x, vals), c.value(a.y, vals)
				if !constant.Compare(constant.MakeInt64(x), a.op, constant.MakeInt64(y)) {
					return false
				}
			}
			return true
		}
		for _, v := range c.domain[i] {
			vals[i] = v
			if search(i + 1) {
				return true
			}
		}
		return false
	}
	return vals, search(0)
}

func (c *solverCase) String() string {
	s := ""
	for _, a := range c.atoms {
		s += a.String(c.t) + "; "
	}
	return s
}

// FuzzSolver checks that what the solver calls a contradiction has no
// solution (soundness), on random conjunctions of comparisons.
func FuzzSolver(f *testing.F) {
	f.Add([]byte{0, 0, 0, 2, 4, 0, 3, 3, 0, 2})       // x > 0 && x <= 0 shapes
	f.Add([]byte{1, 1, 1, 3, 2, 0, 0, 5, 1, 2, 3, 0}) // lengths
	f.Add([]byte{2, 3, 2, 0, 1, 4, 2, 1, 0, 9, 1})    // φ of constants
	f.Add([]byte{0, 2, 0, 0, 4, 2, 1, 2, 2, 2, 3, 4, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newSolverCase(data)
		if !unsat(c.t, c.atoms) {
			return
		}
		if vals, ok := c.satisfiable(); ok {
			t.Fatalf("unsat says %s contradict, but %v meets them all", c, vals)
		}
	})
}

// TestSolverProves checks that the solver proves what it is meant to, on
// random cases: some contradictions are found (the test would pass with
// an unsat that never says true otherwise).
func TestSolverProves(t *testing.T) {
	proved, unsatisfiable := 0, 0
	for i := range 20000 {
		data := []byte(fmt.Sprintf("%08x%08x", i*2654435761, i*40503))
		c := newSolverCase(data)
		_, sat := c.satisfiable()
		if !sat {
			unsatisfiable++
		}
		if unsat(c.t, c.atoms) {
			proved++
			if sat {
				t.Fatalf("unsat says %s contradict, but they can hold", c)
			}
		}
	}
	if proved == 0 || proved < unsatisfiable/4 {
		t.Errorf("proved %d contradictions of %d cases with no solution in the domain", proved, unsatisfiable)
	}
	t.Logf("proved %d of %d cases with no solution in the domain", proved, unsatisfiable)
}
