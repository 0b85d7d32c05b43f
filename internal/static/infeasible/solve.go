package infeasible

// The solver: whether a conjunction of atoms can hold.

import (
	"go/constant"
	"go/token"
	"go/types"
	"math/big"
)

// unsat reports whether the atoms cannot all hold together. It is sound,
// not complete: true only when they provably contradict, by
//
//   - equality: == joins terms into classes; a class may hold one constant,
//     and != between two terms of one class contradicts;
//   - integer bounds: a class of integers lies in an interval, from its
//     type, from lengths being non-negative, from comparisons with
//     constants and from the constants a φ-node can be, narrowed by the
//     constants != excludes; an empty interval contradicts;
//   - differences: comparisons between integer terms are difference
//     constraints, with the bounds; a negative cycle contradicts;
//   - nil: a value that cannot be nil (an allocation) is not == nil;
//   - dynamic types: an interface holds at most one dynamic type, none
//     when nil, and implements an interface exactly when its type does.
func unsat(t *terms, atoms []atom) bool {
	s := &solver{t: t, parent: make(map[term]term)}
	for _, a := range atoms {
		if a.kind == cmpAtom && a.op == token.EQL {
			s.union(a.x, a.y)
		}
	}
	return s.contradicts(atoms)
}

type solver struct {
	t      *terms
	parent map[term]term
}

func (s *solver) find(x term) term {
	p, ok := s.parent[x]
	if !ok || p == x {
		return x
	}
	r := s.find(p)
	s.parent[x] = r
	return r
}

func (s *solver) union(x, y term) {
	x, y = s.find(x), s.find(y)
	if x != y {
		s.parent[x] = y
	}
}

// class is what the solver knows of one class of equal terms.
type class struct {
	consts   []term // the constants in it (a contradiction if two differ)
	nonNil   bool
	nonNeg   bool
	integer  *types.Basic // an integer type of a member
	oneOf    [][]term     // each member φ's possible constants
	lo, hi   *big.Int     // integer bounds, nil if none
	excluded []constant.Value
	isNil    bool
	// dynamic types
	exact    types.Type
	notExact []types.Type
	impl     []types.Type
	notImpl  []types.Type
}

func (s *solver) contradicts(atoms []atom) bool {
	classes := make(map[term]*class)
	get := func(x term) *class {
		r := s.find(x)
		c, ok := classes[r]
		if !ok {
			c = &class{}
			classes[r] = c
		}
		return c
	}
	// Members' own facts.
	seen := make(map[term]bool)
	member := func(x term) {
		if seen[x] {
			return
		}
		seen[x] = true
		info := &s.t.info[x]
		c := get(x)
		if info.value != nil || info.isNil {
			c.consts = append(c.consts, x)
		}
		c.isNil = c.isNil || info.isNil
		c.nonNil = c.nonNil || info.nonNil
		c.nonNeg = c.nonNeg || info.nonNeg
		if b, ok := info.typ.Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
			c.integer = b
		}
		if info.oneOf != nil {
			c.oneOf = append(c.oneOf, info.oneOf)
		}
	}
	for _, a := range atoms {
		member(a.x)
		if a.kind == cmpAtom {
			member(a.y)
		}
	}
	for _, c := range classes {
		if len(c.consts) > 1 {
			for _, k := range c.consts[1:] {
				if !sameConst(s.t, c.consts[0], k) {
					return true
				}
			}
		}
		if c.isNil && c.nonNil {
			return true
		}
	}
	constOf := func(x term) (term, bool) {
		c := get(x)
		if len(c.consts) > 0 {
			return c.consts[0], true
		}
		return 0, false
	}
	var diffs []diff
	for _, a := range atoms {
		switch a.kind {
		case isType, implements:
			c := get(a.x)
			if c.isNil && !a.neg {
				return true // a nil interface has no dynamic type
			}
			switch {
			case a.kind == isType && !a.neg:
				if c.exact != nil && !types.Identical(c.exact, a.typ) {
					return true
				}
				c.exact = a.typ
			case a.kind == isType:
				c.notExact = append(c.notExact, a.typ)
			case !a.neg:
				c.impl = append(c.impl, a.typ)
			default:
				c.notImpl = append(c.notImpl, a.typ)
			}
			continue
		}
		x, y := s.find(a.x), s.find(a.y)
		switch a.op {
		case token.EQL:
			continue
		case token.NEQ:
			if x == y {
				return true
			}
			if k, ok := constOf(y); ok {
				s.exclude(get(x), k)
			}
			if k, ok := constOf(x); ok {
				s.exclude(get(y), k)
			}
			continue
		}
		// An order between integers.
		kx, xConst := constOf(x)
		ky, yConst := constOf(y)
		switch {
		case xConst && yConst:
			vx, vy := s.t.info[kx].value, s.t.info[ky].value
			if vx.Kind() == constant.Int && vy.Kind() == constant.Int && !constant.Compare(vx, a.op, vy) {
				return true
			}
		case yConst:
			if v := s.t.info[ky].value; v.Kind() == constant.Int {
				bound(get(x), a.op, toBig(v))
			}
		case xConst:
			if v := s.t.info[kx].value; v.Kind() == constant.Int {
				bound(get(y), mirror(a.op), toBig(v))
			}
		default:
			diffs = append(diffs, orderDiff(x, y, a.op))
		}
	}
	for r, c := range classes {
		if typesContradict(c) {
			return true
		}
		if s.emptyRange(r, c) {
			return true
		}
	}
	if len(diffs) > 0 && negativeCycle(diffs, classes, s) {
		return true
	}
	return false
}

func sameConst(t *terms, a, b term) bool {
	if a == b {
		return true
	}
	ia, ib := &t.info[a], &t.info[b]
	if ia.isNil || ib.isNil {
		return ia.isNil && ib.isNil
	}
	if ia.value.Kind() != ib.value.Kind() {
		return true // not comparable in Go: not ours to judge
	}
	return constant.Compare(ia.value, token.EQL, ib.value)
}

func (s *solver) exclude(c *class, k term) {
	info := &s.t.info[k]
	if info.isNil {
		c.nonNil = true
		return
	}
	c.excluded = append(c.excluded, info.value)
}

func toBig(v constant.Value) *big.Int {
	n, ok := new(big.Int).SetString(v.ExactString(), 10)
	if !ok {
		return nil
	}
	return n
}

func mirror(op token.Token) token.Token {
	return map[token.Token]token.Token{token.LSS: token.GTR, token.GTR: token.LSS, token.LEQ: token.GEQ, token.GEQ: token.LEQ}[op]
}

// bound narrows c's interval by x op v.
func bound(c *class, op token.Token, v *big.Int) {
	if v == nil {
		return
	}
	one := big.NewInt(1)
	switch op {
	case token.LSS:
		c.hi = minBig(c.hi, new(big.Int).Sub(v, one))
	case token.LEQ:
		c.hi = minBig(c.hi, v)
	case token.GTR:
		c.lo = maxBig(c.lo, new(big.Int).Add(v, one))
	case token.GEQ:
		c.lo = maxBig(c.lo, v)
	}
}

func minBig(a, b *big.Int) *big.Int {
	if a == nil || b.Cmp(a) < 0 {
		return b
	}
	return a
}

func maxBig(a, b *big.Int) *big.Int {
	if a == nil || b.Cmp(a) > 0 {
		return b
	}
	return a
}

// emptyRange reports whether integer class c can hold no value.
func (s *solver) emptyRange(r term, c *class) bool {
	if c.integer != nil {
		lo, hi := intRange(c.integer, false)
		if lo != nil {
			c.lo, c.hi = maxBig(c.lo, toBig(lo)), minBig(c.hi, toBig(hi))
		}
	}
	if c.nonNeg {
		c.lo = maxBig(c.lo, new(big.Int))
	}
	if len(c.consts) > 0 {
		v := s.t.info[c.consts[0]].value
		if v == nil || v.Kind() != constant.Int {
			for _, e := range c.excluded {
				if v != nil && e.Kind() == v.Kind() && constant.Compare(v, token.EQL, e) {
					return true
				}
			}
			return false
		}
		c.lo, c.hi = maxBig(c.lo, toBig(v)), minBig(c.hi, toBig(v))
	}
	// Each φ's constants, within the bounds and not excluded, must leave
	// one.
	for _, set := range c.oneOf {
		left := 0
		for _, k := range set {
			v := s.t.info[k].value
			if v.Kind() == constant.Int {
				n := toBig(v)
				if (c.lo != nil && n.Cmp(c.lo) < 0) || (c.hi != nil && n.Cmp(c.hi) > 0) {
					continue
				}
			}
			if excludedValue(c.excluded, v) || (len(c.consts) > 0 && !sameConst(s.t, c.consts[0], k)) {
				continue
			}
			left++
		}
		if left == 0 {
			return true
		}
	}
	if c.lo == nil || c.hi == nil {
		return false
	}
	// Excluded values at the ends of the interval narrow it.
	for changed := true; changed && c.lo.Cmp(c.hi) <= 0; {
		changed = false
		for _, e := range c.excluded {
			if e.Kind() != constant.Int {
				continue
			}
			n := toBig(e)
			if n.Cmp(c.lo) == 0 {
				c.lo = new(big.Int).Add(c.lo, big.NewInt(1))
				changed = true
			} else if n.Cmp(c.hi) == 0 {
				c.hi = new(big.Int).Sub(c.hi, big.NewInt(1))
				changed = true
			}
		}
	}
	return c.lo.Cmp(c.hi) > 0
}

func excludedValue(excluded []constant.Value, v constant.Value) bool {
	for _, e := range excluded {
		if e.Kind() == v.Kind() && constant.Compare(e, token.EQL, v) {
			return true
		}
	}
	return false
}

// typesContradict reports whether c's dynamic type facts contradict.
func typesContradict(c *class) bool {
	if c.exact != nil {
		for _, t := range c.notExact {
			if types.Identical(t, c.exact) {
				return true
			}
		}
		for _, i := range c.impl {
			if !implementsIface(c.exact, i) {
				return true
			}
		}
		for _, i := range c.notImpl {
			if implementsIface(c.exact, i) {
				return true
			}
		}
	}
	for _, i := range c.impl {
		for _, j := range c.notImpl {
			if types.Identical(i, j) {
				return true
			}
		}
	}
	return false
}

func implementsIface(t, iface types.Type) bool {
	i, ok := iface.Underlying().(*types.Interface)
	return ok && types.Implements(t, i)
}

// A diff is the constraint x - y <= k.
type diff struct {
	x, y term
	k    int64
}

func orderDiff(x, y term, op token.Token) diff {
	switch op {
	case token.LSS:
		return diff{x, y, -1}
	case token.LEQ:
		return diff{x, y, 0}
	case token.GTR:
		return diff{y, x, -1}
	}
	return diff{y, x, 0} // >=
}

// negativeCycle reports whether the difference constraints, with the
// classes' bounds (as differences with a zero node), have no solution:
// Bellman-Ford finds a negative cycle.
func negativeCycle(diffs []diff, classes map[term]*class, s *solver) bool {
	const zero = term(-1)
	type edge struct {
		from, to term
		w        *big.Int
	}
	var edges []edge
	nodes := map[term]bool{zero: true}
	for _, d := range diffs {
		// x - y <= k: an edge y -> x of weight k.
		edges = append(edges, edge{d.y, d.x, big.NewInt(d.k)})
		nodes[d.x], nodes[d.y] = true, true
	}
	for r := range nodes {
		if r == zero {
			continue
		}
		c := classes[s.find(r)]
		if c == nil {
			continue
		}
		if c.hi != nil { // x - 0 <= hi
			edges = append(edges, edge{zero, r, c.hi})
		}
		if c.lo != nil { // 0 - x <= -lo
			edges = append(edges, edge{r, zero, new(big.Int).Neg(c.lo)})
		}
	}
	dist := make(map[term]*big.Int)
	for n := range nodes {
		dist[n] = new(big.Int)
	}
	for range len(nodes) {
		changed := false
		for _, e := range edges {
			d := new(big.Int).Add(dist[e.from], e.w)
			if d.Cmp(dist[e.to]) < 0 {
				dist[e.to] = d
				changed = true
			}
		}
		if !changed {
			return false
		}
	}
	return true
}
