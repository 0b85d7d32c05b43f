package main

// Sequitur (Nevill-Manning and Witten, "Identifying Hierarchical Structure
// in Sequences: A linear-time algorithm", JAIR 7, 1997) is the compressor
// Larus used for whole program paths ("Whole Program Paths", PLDI 1999),
// and the baseline Zhang and Gupta compare TWPP with (their Table 5). The
// bench builds it on the same raw stream as TWPP, for that comparison only:
// it is not part of pathcover.
//
// Sequitur reads symbols one at a time and keeps a grammar that generates
// exactly the input, under two invariants:
//
//   - digram uniqueness: no pair of adjacent symbols occurs twice in the
//     grammar without overlapping;
//   - rule utility: every rule but the start rule is used at least twice.
//
// Each new symbol is appended to the start rule; the digram it forms with
// the symbol before is looked up in an index of every digram of the
// grammar. If it occurs elsewhere, both occurrences become a nonterminal:
// the other occurrence is a whole rule's body, and that rule is used, or a
// new rule is made of the digram. Replacing a digram makes new digrams
// around the nonterminal, which are checked in turn; a replacement that
// leaves a rule used once inlines it. Each step is amortized constant time
// (the paper's section 3.3), so building the grammar takes time linear in
// the input.
//
// The implementation follows the authors' C++ (classes.h, classes.cc of
// their distribution): rules are circular doubly linked lists of symbols
// through a guard, the digram index maps a digram to the symbol that
// starts its one indexed occurrence (of overlapping occurrences in a run
// xxx, one is indexed, and join indexes the other when it breaks that
// one: the C++'s triples), and rules count their uses. It differs where
// the C++ takes a shortcut on an argument it does not check:
//
//   - Rule utility. When a match makes or uses rule r, the uses it took
//     away can leave a rule that r's body refers to used once. The C++
//     checks only r's first symbol, and inlines at once, inside the match;
//     here both of r's symbols are checked, and the inlining waits until
//     the match and all it set off are done (underused, drained by add):
//     a rule used once takes part in no digram match (its one use makes
//     every digram around it unique), so its use stays the same symbol
//     until it is inlined.
//   - Inlining (expand) makes two digrams where the rule's use met its
//     neighbours; the C++ indexes one of them without a check. Here both
//     are checked like any new digram (pending, with the symbols'
//     generations, since one check may replace symbols the next names).
//
// No input of the tests has needed either: with the C++'s shortcuts put
// back, the tests below and 150,000 more random inputs kept both
// invariants. Each costs O(1) a match.
//
// The tests (sequitur_test.go) check both invariants, and that the grammar
// expands to the input, after every symbol of random inputs.

import (
	"fmt"
)

// Symbol values: a terminal is its value, below 1<<62; a nonterminal is
// ntBit|rule; a rule's guard is guardBit|rule, equal to no other symbol.
const (
	ntBit       = 1 << 63
	guardBit    = 1 << 62
	maxTerminal = guardBit - 1
)

// A seqSymbol is a node of a rule's circular list.
type seqSymbol struct {
	next, prev int32
	val        uint64
}

// A seqRule is a rule: its guard node and its number of uses.
type seqRule struct {
	guard int32
	uses  int32
}

// A symRef names a symbol slot at one generation: a slot freed and taken
// again is a different symbol.
type symRef struct {
	sym int32
	gen uint32
}

// A sequitur is a grammar being built; the zero value is not ready: use
// newSequitur.
type sequitur struct {
	syms     []seqSymbol
	gens     []uint32 // per slot, incremented when the slot is freed
	freeSym  int32    // head of the free slots, linked through next; -1 if none
	rules    []seqRule
	freeRule []int32
	digrams  map[[2]uint64]int32
	start    int32 // the start rule
	n        int   // symbols added

	// underused are uses of rules used only once, to inline once the
	// current step's matches are done; pending are digrams (by their first
	// symbol) made by inlining, to check.
	underused []symRef
	pending   []symRef
}

func newSequitur() *sequitur {
	q := &sequitur{freeSym: -1, digrams: make(map[[2]uint64]int32)}
	q.start = q.newRule()
	return q
}

func (q *sequitur) newSymbol(v uint64) int32 {
	var i int32
	if q.freeSym >= 0 {
		i = q.freeSym
		q.freeSym = q.syms[i].next
	} else {
		i = int32(len(q.syms))
		if int(i) != len(q.syms) {
			panic("sequitur: more than 2^31 live symbols")
		}
		q.syms = append(q.syms, seqSymbol{})
		q.gens = append(q.gens, 0)
	}
	q.syms[i] = seqSymbol{next: -1, prev: -1, val: v}
	if v&ntBit != 0 {
		q.rules[v&^ntBit].uses++
	}
	return i
}

func (q *sequitur) freeSymbol(i int32) {
	q.gens[i]++
	q.syms[i] = seqSymbol{next: q.freeSym, prev: -1, val: guardBit} // a freed slot is never a digram
	q.freeSym = i
}

func (q *sequitur) newRule() int32 {
	var r int32
	if n := len(q.freeRule); n > 0 {
		r = q.freeRule[n-1]
		q.freeRule = q.freeRule[:n-1]
	} else {
		r = int32(len(q.rules))
		q.rules = append(q.rules, seqRule{})
	}
	g := q.newSymbol(guardBit | uint64(r))
	q.syms[g].next, q.syms[g].prev = g, g
	q.rules[r] = seqRule{guard: g}
	return r
}

func (q *sequitur) isGuard(i int32) bool { return q.syms[i].val&guardBit != 0 }
func (q *sequitur) isNT(i int32) bool    { return q.syms[i].val&ntBit != 0 }
func (q *sequitur) ruleOf(i int32) int32 { return int32(q.syms[i].val &^ (ntBit | guardBit)) }
func (q *sequitur) first(r int32) int32  { return q.syms[q.rules[r].guard].next }
func (q *sequitur) last(r int32) int32   { return q.syms[q.rules[r].guard].prev }
func (q *sequitur) next(i int32) int32   { return q.syms[i].next }
func (q *sequitur) prev(i int32) int32   { return q.syms[i].prev }

// digram is the index key of the digram that starts at i.
func (q *sequitur) digram(i int32) [2]uint64 {
	return [2]uint64{q.syms[i].val, q.syms[q.syms[i].next].val}
}

func (q *sequitur) ref(i int32) symRef { return symRef{i, q.gens[i]} }

// deleteDigram removes the digram that starts at i from the index, if
// that occurrence is the indexed one.
func (q *sequitur) deleteDigram(i int32) {
	if q.isGuard(i) || q.isGuard(q.next(i)) {
		return
	}
	k := q.digram(i)
	if j, ok := q.digrams[k]; ok && j == i {
		delete(q.digrams, k)
	}
}

// join links left to right, removing left's old digram from the index.
// Of two overlapping occurrences of a digram (a run xxx), only one is
// indexed; when the link that breaks the indexed one leaves the other, the
// other is indexed instead (the C++'s triples).
func (q *sequitur) join(left, right int32) {
	if q.syms[left].next >= 0 {
		q.deleteDigram(left)
		if rp, rn := q.prev(right), q.next(right); rp >= 0 && rn >= 0 && !q.isGuard(right) &&
			q.syms[right].val == q.syms[rp].val && q.syms[right].val == q.syms[rn].val {
			q.digrams[q.digram(right)] = right
		}
		if lp, ln := q.prev(left), q.next(left); lp >= 0 && ln >= 0 && !q.isGuard(left) &&
			q.syms[left].val == q.syms[ln].val && q.syms[left].val == q.syms[lp].val {
			q.digrams[q.digram(lp)] = lp
		}
	}
	q.syms[left].next = right
	q.syms[right].prev = left
}

func (q *sequitur) insertAfter(i, y int32) {
	q.join(y, q.next(i))
	q.join(i, y)
}

// deleteSymbol unlinks symbol i (not a guard) and frees it, dropping its
// digram and, for a nonterminal, one use of its rule.
func (q *sequitur) deleteSymbol(i int32) {
	q.join(q.prev(i), q.next(i))
	q.deleteDigram(i)
	if q.isNT(i) {
		q.rules[q.ruleOf(i)].uses--
	}
	q.freeSymbol(i)
}

// add appends terminal t to the input.
func (q *sequitur) add(t uint64) {
	if t > maxTerminal {
		panic(fmt.Sprintf("sequitur: terminal %#x is not below 1<<62", t))
	}
	q.n++
	y := q.newSymbol(t)
	q.insertAfter(q.last(q.start), y)
	q.check(q.prev(y))
	for len(q.underused) > 0 || len(q.pending) > 0 {
		if n := len(q.pending); n > 0 {
			p := q.pending[n-1]
			q.pending = q.pending[:n-1]
			if q.gens[p.sym] == p.gen {
				q.check(p.sym)
			}
			continue
		}
		u := q.underused[len(q.underused)-1]
		q.underused = q.underused[:len(q.underused)-1]
		if q.gens[u.sym] == u.gen && q.isNT(u.sym) && q.rules[q.ruleOf(u.sym)].uses == 1 {
			q.expand(u.sym)
		}
	}
}

// check enforces digram uniqueness on the digram that starts at i: it
// indexes it if it is new, and replaces both occurrences if it is not
// (unless they overlap). It reports whether it changed the grammar.
func (q *sequitur) check(i int32) bool {
	if q.isGuard(i) || q.isGuard(q.next(i)) {
		return false
	}
	k := q.digram(i)
	x, ok := q.digrams[k]
	if !ok {
		q.digrams[k] = i
		return false
	}
	if x == i || q.next(x) == i || q.next(i) == x {
		return false
	}
	q.match(i, x)
	return true
}

// match replaces the digram at s, and the other occurrence at m, by a
// nonterminal: m's rule if m is a whole rule's body, else a new rule.
func (q *sequitur) match(s, m int32) {
	var r int32
	if q.isGuard(q.prev(m)) && q.isGuard(q.next(q.next(m))) {
		r = q.ruleOf(q.prev(m))
		q.substitute(s, r)
	} else {
		r = q.newRule()
		q.insertAfter(q.last(r), q.newSymbol(q.syms[s].val))
		q.insertAfter(q.last(r), q.newSymbol(q.syms[q.next(s)].val))
		// The nonterminal that replaces m makes digrams that occur
		// nowhere else, so this substitution sets off no match, and s
		// survives it.
		q.substitute(m, r)
		q.substitute(s, r)
		// The body's digram: both occurrences it came from are gone from
		// the index. Should the matches that the substitutions set off
		// have made it again elsewhere, that occurrence takes this rule.
		f := q.first(r)
		k := q.digram(f)
		if x, ok := q.digrams[k]; ok && x != f {
			q.match(x, f)
		} else {
			q.digrams[k] = f
		}
	}
	// The uses the substitutions took may leave a rule of r's body used
	// once: its one use is in r's body.
	for _, i := range [2]int32{q.first(r), q.last(r)} {
		if q.isNT(i) && q.rules[q.ruleOf(i)].uses == 1 {
			q.underused = append(q.underused, q.ref(i))
		}
	}
}

// substitute replaces the digram that starts at s by a use of rule r, and
// checks the digrams the use makes.
func (q *sequitur) substitute(s int32, r int32) {
	p := q.prev(s)
	q.deleteSymbol(q.next(p))
	q.deleteSymbol(q.next(p))
	q.insertAfter(p, q.newSymbol(ntBit|uint64(r)))
	if !q.check(p) {
		q.check(q.next(p))
	}
}

// expand replaces i, the one use of its rule, by the rule's body, and
// deletes the rule.
func (q *sequitur) expand(i int32) {
	left, right := q.prev(i), q.next(i)
	r := q.ruleOf(i)
	g := q.rules[r].guard
	f, l := q.next(g), q.prev(g)
	q.deleteDigram(left)
	q.deleteDigram(i)
	q.freeSymbol(g)
	q.freeSymbol(i)
	q.rules[r] = seqRule{guard: -1}
	q.freeRule = append(q.freeRule, r)
	// No run of equal symbols passes through i (its rule is used once),
	// so join's triples do not arise: link directly.
	q.syms[left].next, q.syms[f].prev = f, left
	q.syms[l].next, q.syms[right].prev = right, l
	q.pending = append(q.pending, q.ref(l), q.ref(left))
}

// A grammar is what Sequitur built, its rules numbered so that the start
// rule is 0 and every rule refers only to rules numbered after it. A
// symbol is a terminal (below 1<<62) or ntBit|rule.
type grammar struct {
	rules [][]uint64
	n     int // length of the input
}

// grammar returns the grammar built so far.
func (q *sequitur) grammar() *grammar {
	// Number the rules in reverse postorder from the start rule: a
	// topological order of the rule DAG, so references point forward.
	var post []int32
	seen := make(map[int32]bool)
	type frame struct{ rule, at int32 }
	stack := []frame{{q.start, q.first(q.start)}}
	seen[q.start] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if q.isGuard(top.at) {
			post = append(post, top.rule)
			stack = stack[:len(stack)-1]
			continue
		}
		i := top.at
		top.at = q.next(i)
		if q.isNT(i) {
			if r := q.ruleOf(i); !seen[r] {
				seen[r] = true
				stack = append(stack, frame{r, q.first(r)})
			}
		}
	}
	number := make(map[int32]uint64, len(post))
	for k := range post {
		number[post[len(post)-1-k]] = uint64(k)
	}
	g := &grammar{rules: make([][]uint64, len(post)), n: q.n}
	for k := range post {
		r := post[len(post)-1-k]
		var body []uint64
		for i := q.first(r); !q.isGuard(i); i = q.next(i) {
			v := q.syms[i].val
			if v&ntBit != 0 {
				v = ntBit | number[q.ruleOf(i)]
			}
			body = append(body, v)
		}
		g.rules[k] = body
	}
	return g
}

// expand calls fn with each terminal the grammar generates, in order.
func (g *grammar) expand(fn func(t uint64)) {
	type frame struct {
		rule uint64
		at   int
	}
	stack := []frame{{0, 0}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		body := g.rules[top.rule]
		if top.at == len(body) {
			stack = stack[:len(stack)-1]
			continue
		}
		v := body[top.at]
		top.at++
		if v&ntBit != 0 {
			stack = append(stack, frame{v &^ ntBit, 0})
		} else {
			fn(v)
		}
	}
}

// symbols counts the symbols of all rules' bodies.
func (g *grammar) symbols() int {
	n := 0
	for _, b := range g.rules {
		n += len(b)
	}
	return n
}
