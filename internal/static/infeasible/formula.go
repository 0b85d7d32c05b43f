package infeasible

// Formulas: what taking an edge says of the function's values.

import (
	"go/token"
	"go/types"
	"strings"
)

// An atom is one fact about terms.
type atom struct {
	kind atomKind
	// op compares x and y (cmpAtom): == and != for any comparable terms
	// the solver knows equality of, <, <=, > and >= for integers.
	op   token.Token
	x, y term
	// typ is a type atom's type: x's dynamic type is typ (isType), or
	// implements the interface typ (implements); neg says it is not.
	typ types.Type
	neg bool
}

type atomKind uint8

const (
	cmpAtom atomKind = iota
	isType
	implements
)

func (a atom) negate() atom {
	switch a.kind {
	case cmpAtom:
		a.op = map[token.Token]token.Token{
			token.EQL: token.NEQ, token.NEQ: token.EQL,
			token.LSS: token.GEQ, token.GEQ: token.LSS,
			token.GTR: token.LEQ, token.LEQ: token.GTR,
		}[a.op]
	default:
		a.neg = !a.neg
	}
	return a
}

func (a atom) String(t *terms) string {
	x := t.info[a.x].text
	switch a.kind {
	case isType:
		if a.neg {
			return x + " is not a " + a.typ.String()
		}
		return x + " is a " + a.typ.String()
	case implements:
		if a.neg {
			return x + " does not implement " + a.typ.String()
		}
		return x + " implements " + a.typ.String()
	}
	y := t.info[a.y].text
	if t.info[a.y].value != nil && t.info[a.y].value.String() == "true" && a.op == token.EQL {
		return x
	}
	if t.info[a.y].value != nil && t.info[a.y].value.String() == "false" && a.op == token.EQL {
		return "!" + x
	}
	return x + " " + a.op.String() + " " + y
}

// A formula is a condition in negation normal form: atoms under and and or.
type formula struct {
	op   formulaOp
	atom atom
	kids []*formula
}

type formulaOp uint8

const (
	fTrue formulaOp = iota
	fFalse
	fAtom
	fAnd
	fOr
)

var (
	truth     = &formula{op: fTrue}
	falsehood = &formula{op: fFalse}
)

func atomFormula(a atom) *formula { return &formula{op: fAtom, atom: a} }

func and(fs ...*formula) *formula {
	var kids []*formula
	for _, f := range fs {
		switch f.op {
		case fTrue:
		case fFalse:
			return falsehood
		case fAnd:
			kids = append(kids, f.kids...)
		default:
			kids = append(kids, f)
		}
	}
	switch len(kids) {
	case 0:
		return truth
	case 1:
		return kids[0]
	}
	return &formula{op: fAnd, kids: kids}
}

func or(fs ...*formula) *formula {
	var kids []*formula
	for _, f := range fs {
		switch f.op {
		case fFalse:
		case fTrue:
			return truth
		case fOr:
			kids = append(kids, f.kids...)
		default:
			kids = append(kids, f)
		}
	}
	switch len(kids) {
	case 0:
		return falsehood
	case 1:
		return kids[0]
	}
	return &formula{op: fOr, kids: kids}
}

func (f *formula) not() *formula {
	switch f.op {
	case fTrue:
		return falsehood
	case fFalse:
		return truth
	case fAtom:
		return atomFormula(f.atom.negate())
	}
	kids := make([]*formula, len(f.kids))
	for i, k := range f.kids {
		kids[i] = k.not()
	}
	if f.op == fAnd {
		return or(kids...)
	}
	return and(kids...)
}

// maxConjuncts bounds the disjunctive normal form of a conjunction that the
// solver expands; past it, the conjunction is taken to be satisfiable
// (sound: only what is proved unsatisfiable makes a path infeasible).
const maxConjuncts = 64

// dnf returns f as a disjunction of conjunctions of atoms, or ok false if
// that has more than maxConjuncts conjunctions.
func (f *formula) dnf() (conj [][]atom, ok bool) {
	switch f.op {
	case fTrue:
		return [][]atom{nil}, true
	case fFalse:
		return nil, true
	case fAtom:
		return [][]atom{{f.atom}}, true
	case fOr:
		for _, k := range f.kids {
			c, ok := k.dnf()
			if !ok || len(conj)+len(c) > maxConjuncts {
				return nil, false
			}
			conj = append(conj, c...)
		}
		return conj, true
	}
	conj = [][]atom{nil}
	for _, k := range f.kids {
		c, ok := k.dnf()
		if !ok || len(conj)*len(c) > maxConjuncts {
			return nil, false
		}
		var next [][]atom
		for _, a := range conj {
			for _, b := range c {
				next = append(next, append(append([]atom(nil), a...), b...))
			}
		}
		conj = next
	}
	return conj, true
}

// terms lists the terms f speaks of.
func (f *formula) terms(add func(term)) {
	switch f.op {
	case fAtom:
		add(f.atom.x)
		if f.atom.kind == cmpAtom {
			add(f.atom.y)
		}
	case fAnd, fOr:
		for _, k := range f.kids {
			k.terms(add)
		}
	}
}

func (f *formula) String(t *terms) string {
	switch f.op {
	case fTrue:
		return "true"
	case fFalse:
		return "false"
	case fAtom:
		return f.atom.String(t)
	}
	sep := " && "
	if f.op == fOr {
		sep = " || "
	}
	parts := make([]string, len(f.kids))
	for i, k := range f.kids {
		parts[i] = k.String(t)
		if k.op == fAnd || k.op == fOr {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, sep)
}
