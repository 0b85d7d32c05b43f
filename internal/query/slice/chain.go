package slice

import (
	"errors"
	"slices"
	"strings"
)

// A slice's steps are executions: a loop's ten rounds are ten steps of the
// same statements, and a slice of a whole suite has millions of them. A
// developer reads it as statements: the criterion, what it needed, what
// that needed, each once. The chain is that tree: each statement of the
// slice under the statement whose step first needed it, breadth first
// from the criterion (so at its nearest distance from it), with how many
// of its executions the slice holds.
//
//	criterion            return n, nil
//	  n                    n, err := p.expr(0)           ×1
//	    result               return x, nil               ×8
//	      x                    x = &Binary{...}          ×7
//
// Building it walks the steps until each statement is met, keeping a word
// per step walked (which statement it executes) to find each first step's
// parent: memory of the slice's size at most, not the run's.

// A Link is one statement of a slice's chain.
type Link struct {
	// Stmt is the statement's index in Slice.Stmts; Execs how many of
	// its executions the slice holds (Slice.Execs).
	Stmt  int
	Execs int
	// Parent is the index in the chain of the link whose statement's step
	// first needed this one (-1 for the criterion's), Via what carried
	// the dependence (Step.Via), Depth its depth in the chain.
	Parent int
	Via    string
	Depth  int
	// First is the statement's first step: the execution nearest the
	// criterion, whose values the chain shows.
	First Step
}

// Chain returns the slice's statements as a tree in depth-first order:
// each link followed by the links it brought in, in the order the slice's
// walk met them.
func (s *Slice) Chain() ([]Link, error) {
	index := make(map[Stmt]int, len(s.Stmts))
	for i, st := range s.Stmts {
		index[st] = i
	}
	stmtOfStep := make([]int32, 0, s.numSteps)
	linkOf := make([]int, len(s.Stmts)) // in found, or -1
	for i := range linkOf {
		linkOf[i] = -1
	}
	var found []Link // in the order met
	// The walk stops once every statement is met: a slice of millions of
	// executions has met its few hundred statements long before its end.
	errAllMet := errors.New("every statement met")
	err := s.Walk(func(i int, st Step) error {
		if len(found) == len(s.Stmts) {
			return errAllMet
		}
		k, ok := index[st.Stmt]
		if !ok {
			k = -1
		}
		stmtOfStep = append(stmtOfStep, int32(k))
		if k < 0 || linkOf[k] >= 0 {
			return nil
		}
		parent := -1
		if st.From >= 0 && st.From < len(stmtOfStep) {
			if p := stmtOfStep[st.From]; p >= 0 {
				parent = linkOf[p]
			}
		}
		if parent < 0 && len(found) > 0 {
			parent = 0 // a second root (none from the walks): under the criterion
		}
		linkOf[k] = len(found)
		found = append(found, Link{Stmt: k, Execs: s.Execs[k], Parent: parent, Via: st.Via, First: st})
		return nil
	})
	if err != nil && err != errAllMet {
		return nil, err
	}
	children := make([][]int, len(found))
	for i, l := range found {
		if l.Parent >= 0 {
			children[l.Parent] = append(children[l.Parent], i)
		}
	}
	for _, cs := range children {
		besideTheirVariable(found, cs)
	}
	chain := make([]Link, 0, len(found))
	newIndex := make([]int, len(found))
	var visit func(i, depth int)
	visit = func(i, depth int) {
		l := found[i]
		l.Depth = depth
		if l.Parent >= 0 {
			l.Parent = newIndex[l.Parent]
		}
		newIndex[i] = len(chain)
		chain = append(chain, l)
		for _, c := range children[i] {
			visit(c, depth+1)
		}
	}
	// An explicit stack would spare the recursion; a chain as deep as the
	// program's statements are many is what Go's growing stacks are for.
	for i, l := range found {
		if l.Parent < 0 {
			visit(i, 0)
		}
	}
	return chain, nil
}

// besideTheirVariable moves each link of cs (a link's children, in the
// order met) that a potential dependence brought in right after the
// sibling that brought in the definition of its variable, if there is
// one: "n := 0, and the condition that could have set n" read together,
// before the dependences of the other variables.
func besideTheirVariable(found []Link, cs []int) {
	for i := 0; i < len(cs); i++ {
		v, ok := strings.CutPrefix(found[cs[i]].Via, PotentialVia(""))
		if !ok {
			continue
		}
		at := slices.IndexFunc(cs[:i], func(c int) bool { return found[c].Via == v })
		if at < 0 {
			continue
		}
		// After the definition and the potential links already beside it.
		for at+1 < i && found[cs[at+1]].Via == found[cs[i]].Via {
			at++
		}
		c := cs[i]
		copy(cs[at+2:i+1], cs[at+1:i])
		cs[at+1] = c
	}
}
