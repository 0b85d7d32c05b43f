package wpp

import (
	"encoding/binary"
	"slices"
)

// A grammar over the call graph's item lists (dcg.go): the sequences of
// what each node did between its paths, and of each goroutine's roots,
// share repeated runs of items through rules, as Sequitur shares repeated
// runs of a whole program path's events.
//
// buildGrammar is recursive pairing (Re-Pair, Larsson and Moffat, 1999)
// done in rounds, with runs:
//
//  1. In every sequence, each maximal run of one symbol x repeated n ≥ 2
//     times becomes one symbol, x×n (a run rule), so that a loop that
//     does the same thing n times costs one symbol, whatever n; and so
//     does each run of a block of 2 to maxBlock symbols repeated
//     minBlockRun times or more, the block a rule of its own (blockRun):
//     a loop that does a few things in turn.
//  2. Every pair of adjacent symbols is counted over all the sequences.
//     After step 1 no symbol follows itself, so two occurrences of one
//     pair never overlap.
//  3. Each sequence is scanned left to right, and a pair that occurs at
//     least twice in all is replaced by one symbol (a pair rule, made at
//     its first replacement), unless the pair that starts at its second
//     symbol occurs more often: then that one is replaced instead.
//
// The rounds go on until one changes nothing: then no pair occurs twice
// in the sequences (a round in which some pair occurs twice replaces
// one: the last of a chain of "the next pair is more frequent" is always
// replaced). Each round takes time linear in the symbols of the
// sequences it looks at, and a sequence in which a round replaced
// nothing is left out of the next ones: the pairs it holds are of older
// symbols, which no replacement makes more of. Re-Pair proper replaces
// one pair at a time, the most frequent; doing all the pairs that occur
// twice in a round keeps the rounds to about the logarithm of the longest
// repeated run, at the cost of sometimes pairing the less frequent of two
// overlapping pairs.
//
// Last, a pair rule used only once is put back in place of its use,
// unless that use is a run's (so every rule but a run, or a run's one
// symbol, is used twice at least: Sequitur's rule utility),
// and the rules are numbered again in the order they were made, each
// after the rules its body uses.

// A gRule is a rule of a grammar: a sequence of two or more symbols, or,
// if run ≥ 2, its one symbol repeated run times.
type gRule struct {
	body []uint32
	run  uint64
}

// A grammar is the rules that buildGrammar made. Symbols below nTerm are
// terminals; symbol nTerm+i is rule i.
type grammar struct {
	nTerm uint32
	rules []gRule
}

// buildGrammar rewrites seqs, sequences of terminals below nTerm, into
// sequences of terminals and rules of the grammar it returns.
func buildGrammar(seqs [][]uint32, nTerm uint32) *grammar {
	g := &grammar{nTerm: nTerm}
	// runs and pairs hold each rule's symbol+1: runs by its symbol<<32|n
	// (a sequence is shorter than 1<<32, encodeCalls's maxItems), pairs
	// by a<<32|b; counts count each pair a<<32|b.
	var runs, pairs, counts countTable
	blocks := make(map[string]uint32) // block rules by their bodies' bytes
	var key []byte
	newRule := func(r gRule) uint32 {
		g.rules = append(g.rules, r)
		return nTerm + uint32(len(g.rules)-1)
	}
	var active []int
	for i, s := range seqs {
		if len(s) > 1 {
			active = append(active, i)
		}
	}
	for len(active) > 0 {
		// 1. Runs, and 2. the pairs of what they leave, counted as it
		// is written.
		counts.reset()
		for _, i := range active {
			s := seqs[i]
			out := s[:0]
			for j := 0; j < len(s); {
				k := j + 1
				for k < len(s) && s[k] == s[j] {
					k++
				}
				v, n := s[j], k-j
				if n == 1 {
					if p, r := blockRun(s[j:]); r > 0 {
						key = key[:0]
						for _, x := range s[j : j+p] {
							key = binary.LittleEndian.AppendUint32(key, x)
						}
						b, ok := blocks[string(key)]
						if !ok {
							b = newRule(gRule{body: slices.Clone(s[j : j+p])})
							blocks[string(key)] = b
						}
						v, n, k = b, r, j+p*r
					}
				}
				if n > 1 {
					sym := runs.ref(uint64(v)<<32 | uint64(n))
					if *sym == 0 {
						*sym = int32(newRule(gRule{body: []uint32{v}, run: uint64(n)})) + 1
					}
					v = uint32(*sym - 1)
				}
				if len(out) > 0 {
					*counts.ref(uint64(out[len(out)-1])<<32 | uint64(v))++
				}
				out = append(out, v)
				j = k
			}
			seqs[i] = out
		}
		// 3. Replacement. A pair passed over for the next one carries
		// that one's count to the next step, looked up once.
		next := active[:0]
		for _, i := range active {
			s := seqs[i]
			out := s[:0]
			changed := false
			carried, carry := false, int32(0)
			for j := 0; j < len(s); {
				if j+1 < len(s) {
					c := carry
					if !carried {
						c = counted(&counts, uint64(s[j])<<32|uint64(s[j+1]))
					}
					carried = false
					if c >= 2 {
						if j+2 < len(s) {
							carry = counted(&counts, uint64(s[j+1])<<32|uint64(s[j+2]))
							carried = carry > c
						}
						if !carried {
							p := uint64(s[j])<<32 | uint64(s[j+1])
							sym := pairs.ref(p)
							if *sym == 0 {
								*sym = int32(newRule(gRule{body: []uint32{s[j], s[j+1]}})) + 1
							}
							out = append(out, uint32(*sym-1))
							changed = true
							j += 2
							continue
						}
					}
				}
				out = append(out, s[j])
				j++
			}
			seqs[i] = out
			if changed && len(out) > 1 {
				next = append(next, i)
			}
		}
		active = next
	}
	g.inlineOnce(seqs)
	return g
}

// Block runs: a block of 2 to maxBlock symbols repeated minBlockRun
// times or more.
const (
	maxBlock    = 8
	minBlockRun = 4
)

// blockRun returns the shortest block p that s begins with repeated
// r ≥ minBlockRun times, and r; or r = 0. A loop whose rounds make the
// same few calls in turn (regexp's suite: a million items, four calls a
// round) is then one run of one rule, where pairing took a round per
// halving, and often less: two of the round's four pairs, counted a few
// times more elsewhere, were passed over for their neighbours.
func blockRun(s []uint32) (p, r int) {
	for p = 2; p <= maxBlock && minBlockRun*p <= len(s); p++ {
		if s[p] != s[0] || !slices.Equal(s[:p], s[p:2*p]) {
			continue
		}
		r = 2
		for (r+1)*p <= len(s) && slices.Equal(s[:p], s[r*p:(r+1)*p]) {
			r++
		}
		if r >= minBlockRun {
			return p, r
		}
	}
	return 0, 0
}

// counted is the count of pair p, 0 if none.
func counted(counts *countTable, p uint64) int32 {
	c, _ := counts.get(p)
	return c
}

// inlineOnce puts each pair rule used once in place of its use, and
// numbers the rules left again.
func (g *grammar) inlineOnce(seqs [][]uint32) {
	uses := make([]int, len(g.rules))
	count := func(s []uint32) {
		for _, v := range s {
			if v >= g.nTerm {
				uses[v-g.nTerm]++
			}
		}
	}
	for _, s := range seqs {
		count(s)
	}
	for _, r := range g.rules {
		count(r.body)
		if v := r.body[0]; r.run != 0 && v >= g.nTerm {
			uses[v-g.nTerm]++ // a run's one symbol stays one symbol
		}
	}
	inline := func(v uint32) bool { return v >= g.nTerm && g.rules[v-g.nTerm].run == 0 && uses[v-g.nTerm] == 1 }
	// The new number of each rule kept.
	renum := make([]uint32, len(g.rules))
	n := g.nTerm
	for i, r := range g.rules {
		if r.run != 0 || uses[i] != 1 {
			renum[i] = n
			n++
		}
	}
	// emit appends the symbols v stands for, inlined rules expanded, with
	// an explicit stack: rules may nest as deep as there are rules.
	var stack [][]uint32
	emit := func(out []uint32, body []uint32) []uint32 {
		stack = append(stack[:0], body)
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if len(top) == 0 {
				stack = stack[:len(stack)-1]
				continue
			}
			v := top[0]
			stack[len(stack)-1] = top[1:]
			switch {
			case inline(v):
				stack = append(stack, g.rules[v-g.nTerm].body)
			case v >= g.nTerm:
				out = append(out, renum[v-g.nTerm])
			default:
				out = append(out, v)
			}
		}
		return out
	}
	var kept []gRule
	for i, r := range g.rules {
		if r.run == 0 && uses[i] == 1 {
			continue
		}
		kept = append(kept, gRule{body: emit(nil, r.body), run: r.run})
	}
	for i, s := range seqs {
		seqs[i] = emit(make([]uint32, 0, len(s)), s)
	}
	g.rules = kept
}
