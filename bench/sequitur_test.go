package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkSequitur checks q after input: its grammar expands to input, no
// digram occurs twice without overlapping, every rule but the start rule
// is used at least twice and has at least two symbols, the use counts are
// right, and the digram index holds exactly one occurrence of each digram
// of the grammar and nothing else.
func checkSequitur(q *sequitur, input []uint64) error {
	g := q.grammar()
	var got []uint64
	g.expand(func(t uint64) { got = append(got, t) })
	if !slices.Equal(got, input) {
		return fmt.Errorf("the grammar expands to %v", got)
	}
	if g.n != len(input) {
		return fmt.Errorf("the grammar counts %d symbols of input, not %d", g.n, len(input))
	}

	// The live structure, walked from the start rule.
	uses := map[int32]int{}
	reached := map[int32]bool{q.start: true}
	todo := []int32{q.start}
	occurrences := map[[2]uint64][]int32{}
	for len(todo) > 0 {
		r := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		g := q.rules[r].guard
		if g < 0 || q.syms[g].val != guardBit|uint64(r) {
			return fmt.Errorf("rule %d is used but deleted", r)
		}
		n := 0
		for i := q.first(r); i != g; i = q.next(i) {
			if q.prev(q.next(i)) != i {
				return fmt.Errorf("rule %d: the links of symbol %d do not agree", r, i)
			}
			n++
			if q.isNT(i) {
				c := q.ruleOf(i)
				uses[c]++
				if !reached[c] {
					reached[c] = true
					todo = append(todo, c)
				}
			}
			if !q.isGuard(q.next(i)) {
				k := q.digram(i)
				occurrences[k] = append(occurrences[k], i)
			}
		}
		if r != q.start && n < 2 {
			return fmt.Errorf("rule %d has %d symbols", r, n)
		}
	}
	live := 0
	for r := range q.rules {
		if q.rules[r].guard >= 0 {
			live++
		}
	}
	if live != len(reached) {
		return fmt.Errorf("%d rules live, %d reached from the start rule", live, len(reached))
	}
	for r := range reached {
		if r == q.start {
			continue
		}
		if uses[r] < 2 {
			return fmt.Errorf("rule utility: rule %d is used %d times", r, uses[r])
		}
		if int(q.rules[r].uses) != uses[r] {
			return fmt.Errorf("rule %d counts %d uses, has %d", r, q.rules[r].uses, uses[r])
		}
	}
	for k, occ := range occurrences {
		// Occurrences of one digram may only overlap: a run of one symbol,
		// each occurrence starting right after the one before.
		for j := 1; j < len(occ); j++ {
			if len(occ) > 2 || (q.next(occ[0]) != occ[1] && q.next(occ[1]) != occ[0]) {
				return fmt.Errorf("digram uniqueness: digram %v occurs %d times", k, len(occ))
			}
		}
		if x, ok := q.digrams[k]; !ok || !slices.Contains(occ, x) {
			return fmt.Errorf("digram %v is not indexed at one of its occurrences %v (index: %d, %v)", k, occ, x, ok)
		}
	}
	if len(q.digrams) != len(occurrences) {
		return fmt.Errorf("the index holds %d digrams, the grammar %d", len(q.digrams), len(occurrences))
	}
	return nil
}

// parseGrammar reads a grammar written as in the Sequitur paper: rules
// separated by ";", "S" the start rule, other capitals nonterminals,
// anything else terminals (their byte values).
func parseGrammar(s string) *grammar {
	index := map[byte]uint64{'S': 0}
	var heads []byte
	var bodies []string
	for _, rule := range strings.Split(s, ";") {
		head, body, _ := strings.Cut(rule, "→")
		h := strings.TrimSpace(head)[0]
		if _, ok := index[h]; !ok {
			index[h] = uint64(len(index))
		}
		heads = append(heads, h)
		bodies = append(bodies, strings.ReplaceAll(body, " ", ""))
	}
	g := &grammar{rules: make([][]uint64, len(index))}
	for i, h := range heads {
		var b []uint64
		for _, c := range []byte(bodies[i]) {
			if c >= 'A' && c <= 'Z' {
				b = append(b, ntBit|index[c])
			} else {
				b = append(b, uint64(c))
			}
		}
		g.rules[index[h]] = b
	}
	return g
}

// canonical writes g with its rules named in the order they are first
// used, reading the start rule and then each named rule in turn, so that
// two grammars equal but for the names of their rules are written alike.
func canonical(g *grammar) string {
	name := map[uint64]int{0: 0}
	order := []uint64{0}
	var b strings.Builder
	for k := 0; k < len(order); k++ {
		fmt.Fprintf(&b, "R%d →", k)
		for _, v := range g.rules[order[k]] {
			if v&ntBit == 0 {
				fmt.Fprintf(&b, " %q", rune(v))
				continue
			}
			r := v &^ ntBit
			if _, ok := name[r]; !ok {
				name[r] = len(order)
				order = append(order, r)
			}
			fmt.Fprintf(&b, " R%d", name[r])
		}
		b.WriteString("; ")
	}
	return b.String()
}

func bytesInput(s string) []uint64 {
	in := make([]uint64, len(s))
	for i := range len(s) {
		in[i] = uint64(s[i])
	}
	return in
}

// TestSequiturPaper builds the example of Nevill-Manning and Witten's
// Figure 3 (the operation of the two constraints), "abcdbcabcd", and
// checks the grammar after every symbol against the figure: bc appears
// twice at symbol 6 and becomes A; at symbol 9 bc is A again and aA
// appears twice (B → aA); at symbol 10 Bd appears twice (C → Bd), which
// leaves B used once, so it is inlined. Then the other grammars of the
// paper's Figure 1 and runs of one symbol, whose overlapping digrams the
// index must not lose (the C++'s triples, "abbbabcbb").
func TestSequiturPaper(t *testing.T) {
	steps := []string{
		"S → a",
		"S → ab",
		"S → abc",
		"S → abcd",
		"S → abcdb",
		"S → aAdA; A → bc",
		"S → aAdAa; A → bc",
		"S → aAdAab; A → bc",
		"S → BdAB; A → bc; B → aA",
		"S → CAC; A → bc; C → aAd",
	}
	input := bytesInput("abcdbcabcd")
	q := newSequitur()
	for i, want := range steps {
		q.add(input[i])
		if err := checkSequitur(q, input[:i+1]); err != nil {
			t.Fatalf("after %d symbols: %v", i+1, err)
		}
		if got, want := canonical(q.grammar()), canonical(parseGrammar(want)); got != want {
			t.Errorf("after %q: grammar\n\t%s\nwant\n\t%s", input[:i+1], got, want)
		}
	}
	for _, c := range []struct{ input, want string }{
		{"abcdbc", "S → aAdA; A → bc"},
		{"abcdbcabcdbc", "S → AA; A → aBdB; B → bc"},
		{"abcabdabcabd", "S → AA; A → BcBd; B → ab"},
		{"aaaa", "S → AA; A → aa"},
		{"aaaaaaaa", "S → BB; B → AA; A → aa"},
		{"aaaaa", "S → AAa; A → aa"},
		{"abbbabcbb", "S → ABAcB; A → ab; B → bb"},
	} {
		in := bytesInput(c.input)
		q := newSequitur()
		for i, v := range in {
			q.add(v)
			if err := checkSequitur(q, in[:i+1]); err != nil {
				t.Fatalf("%q, after %d symbols: %v", c.input, i+1, err)
			}
		}
		if got, want := canonical(q.grammar()), canonical(parseGrammar(c.want)); got != want {
			t.Errorf("%q: grammar\n\t%s\nwant\n\t%s", c.input, got, want)
		}
	}
}

// buildChecked runs Sequitur on input, checking it after every symbol.
func buildChecked(input []uint64) error {
	q := newSequitur()
	for i, v := range input {
		q.add(v)
		if err := checkSequitur(q, input[:i+1]); err != nil {
			return fmt.Errorf("after %d symbols: %v", i+1, err)
		}
	}
	return nil
}

// TestSequiturRandom checks the grammar after every symbol of random
// inputs: small alphabets (runs, many repeats, nested repeats) and
// repeated random blocks, which make deep hierarchies.
func TestSequiturRandom(t *testing.T) {
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 16))
		var in []uint64
		switch seed % 3 {
		case 0, 1:
			alpha := 1 + r.Uint64N(5)
			for range 1 + r.IntN(300) {
				in = append(in, r.Uint64N(alpha))
			}
		case 2:
			var blocks [][]uint64
			for range 1 + r.IntN(4) {
				b := make([]uint64, 1+r.IntN(8))
				for i := range b {
					b[i] = r.Uint64N(4)
				}
				blocks = append(blocks, b)
			}
			for range r.IntN(40) {
				in = append(in, blocks[r.IntN(len(blocks))]...)
			}
		}
		if err := buildChecked(in); err != nil {
			t.Fatalf("seed %d, input %v: %v", seed, in, err)
		}
	}
}

// FuzzSequitur checks the grammar after every symbol of any input, one
// byte a symbol over an alphabet of 6 (so that digrams repeat), the
// values spread over the whole terminal range.
func FuzzSequitur(f *testing.F) {
	for _, s := range []string{"abcdbcabcd", "abcdbcabcdbc", "aaaaaaaaa", "abbbabcbb", "abababab", "aabaabaab"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in := make([]uint64, len(b))
		for i, c := range b {
			in[i] = uint64(c%6) * (maxTerminal / 5)
		}
		if err := buildChecked(in); err != nil {
			t.Fatalf("input %v: %v", in, err)
		}
	})
}

// TestSequiturTerminalRange: the largest terminal is accepted, the next
// value is not.
func TestSequiturTerminalRange(t *testing.T) {
	q := newSequitur()
	q.add(maxTerminal)
	q.add(maxTerminal)
	if err := checkSequitur(q, []uint64{maxTerminal, maxTerminal}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("add(1<<62) did not panic")
		}
	}()
	q.add(maxTerminal + 1)
}

// BenchmarkSequitur builds the grammar of a stream shaped like a WPP:
// calls of a few functions, each taking one of a few paths a few times.
// Its time per symbol should not grow with the input (linear time).
func BenchmarkSequitur(b *testing.B) {
	for _, n := range []int{1 << 14, 1 << 18} {
		r := rand.New(rand.NewPCG(1, 2))
		in := make([]uint64, 0, n)
		for len(in) < n {
			f := r.Uint64N(20)
			in = append(in, 1000+f)
			for range r.IntN(4) {
				in = append(in, f*8+r.Uint64N(3))
			}
			in = append(in, 999)
		}
		in = in[:n]
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				q := newSequitur()
				for _, v := range in {
					q.add(v)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/symbol")
		})
	}
}
