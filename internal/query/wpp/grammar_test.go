package wpp

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/pathcover/pathcover/profile"
)

// expandGrammar expands symbol v of g, by recursion, written for the
// tests apart from the reader's expansion (dcg.go).
func expandGrammar(g *grammar, v uint32, out []uint32) []uint32 {
	if v < g.nTerm {
		return append(out, v)
	}
	r := g.rules[v-g.nTerm]
	if r.run != 0 {
		for range r.run {
			out = expandGrammar(g, r.body[0], out)
		}
		return out
	}
	for _, w := range r.body {
		out = expandGrammar(g, w, out)
	}
	return out
}

// checkGrammar builds the grammar of seqs and checks it against them:
// each sequence expands back exactly, rules use only rules before them,
// runs repeat one symbol twice or more, and every other rule is used
// twice or more (or is a run's symbol).
func checkGrammar(t *testing.T, seqs [][]uint32, nTerm uint32) ([][]uint32, *grammar) {
	t.Helper()
	out := make([][]uint32, len(seqs))
	for i, s := range seqs {
		out[i] = slices.Clone(s)
	}
	g := buildGrammar(out, nTerm)
	for i, s := range out {
		var back []uint32
		for _, v := range s {
			back = expandGrammar(g, v, back)
		}
		if !slices.Equal(back, seqs[i]) {
			t.Fatalf("sequence %d: %v expands to %v, not %v", i, s, back, seqs[i])
		}
	}
	uses := make([]int, len(g.rules))
	for _, s := range out {
		for _, v := range s {
			if v >= nTerm {
				uses[v-nTerm]++
			}
		}
	}
	runOf := make([]bool, len(g.rules))
	for i, r := range g.rules {
		if r.run != 0 && (r.run < 2 || len(r.body) != 1) || r.run == 0 && len(r.body) < 2 {
			t.Fatalf("rule %d: %v repeated %d times", i, r.body, r.run)
		}
		for _, v := range r.body {
			if v >= nTerm+uint32(i) {
				t.Fatalf("rule %d uses symbol %d, not before it", i, v)
			}
			if v >= nTerm {
				uses[v-nTerm]++
				runOf[v-nTerm] = runOf[v-nTerm] || r.run != 0
			}
		}
	}
	for i, r := range g.rules {
		if r.run == 0 && uses[i] < 2 && !runOf[i] {
			t.Fatalf("rule %d (%v) used %d times", i, r.body, uses[i])
		}
	}
	return out, g
}

// FuzzGrammar checks the grammar of any sequences over a small alphabet
// (byte 255 ends a sequence).
func FuzzGrammar(f *testing.F) {
	f.Add([]byte{1, 2, 1, 2, 1, 2, 255, 1, 2, 3})
	f.Add([]byte{0, 1, 3, 0, 1, 3, 0, 1, 0, 1, 3, 255, 3, 3, 3, 3, 255, 0, 1, 3})
	f.Add([]byte{0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 2, 0, 0, 0, 1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		seqs := [][]uint32{nil}
		for _, x := range b {
			if x == 255 {
				seqs = append(seqs, nil)
				continue
			}
			seqs[len(seqs)-1] = append(seqs[len(seqs)-1], uint32(x%5))
		}
		checkGrammar(t, seqs, 5)
	})
}

// TestGrammarLoops: a sequence that repeats one pattern n times becomes a
// sequence of at most two symbols with a few rules, however large n.
func TestGrammarLoops(t *testing.T) {
	for _, pattern := range [][]uint32{{0}, {0, 1}, {0, 1, 2}, {0, 1, 0, 2}, {3, 1, 4, 1, 5, 9, 2, 6}} {
		for _, n := range []int{2, 3, 1000, 100001} {
			var s []uint32
			for range n {
				s = append(s, pattern...)
			}
			out, g := checkGrammar(t, [][]uint32{s}, 10)
			if len(out[0]) > 2 || len(g.rules) > 2*len(pattern)+2 {
				t.Errorf("%v × %d: %d symbols, %d rules", pattern, n, len(out[0]), len(g.rules))
			}
		}
	}
}

// loopSource is one goroutine whose root call runs a loop of rounds
// rounds, each calling function 1, taking path 0 or 1 in turn, then
// function 2; then recurses depth calls deep, each level taking a path
// that depends on its depth (so every level is a distinct subtree);
// completes 300 more paths, in a pattern of 17; and then its goroutine
// calls function 3 rounds times from uninstrumented
// code, taking paths 0, 1, 2 in turn.
func loopSource(rounds, depth int) *memSource {
	s := &memSource{name: "loop.wpp", h: profile.WPPHeader{Start: time.Unix(0, 0)}, pkgs: testHashes, gs: make(map[uint64][]profile.WPPEvent)}
	enter := func(f uint32) profile.WPPEvent { return profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1, Func: f} }
	path := func(p uint64) profile.WPPEvent { return profile.WPPEvent{Kind: profile.WPPPath, Path: p} }
	ret := profile.WPPEvent{Kind: profile.WPPReturn}
	evs := []profile.WPPEvent{{Kind: profile.WPPStart}, enter(0)}
	for i := range rounds {
		evs = append(evs, path(7), enter(1), path(uint64(i%2)), ret, enter(2), path(0), ret)
	}
	for d := range depth {
		evs = append(evs, enter(4), path(uint64(d%3)))
	}
	for range depth {
		evs = append(evs, ret)
	}
	for i := range 300 {
		evs = append(evs, path(uint64(i*i%17)))
	}
	evs = append(evs, ret)
	for i := range rounds {
		evs = append(evs, enter(3), path(uint64(i%3)), ret)
	}
	s.gs[1] = evs
	return s
}

func twppSize(t *testing.T, s *memSource) int {
	t.Helper()
	roundTrip(t, []*memSource{s})
	return len(compactedFile(t, []Source{s}, runtime.GOMAXPROCS(0)))
}

// TestLoopCost: more rounds of a loop whose callees alternate, and more
// roots of a goroutine that alternate, cost next to nothing; more levels
// of a recursion whose levels all differ cost less than a byte for ten
// levels.
func TestLoopCost(t *testing.T) {
	base := twppSize(t, loopSource(1000, 300))
	if more := twppSize(t, loopSource(100000, 300)); more > base+32 {
		t.Errorf("100 times the rounds: %d bytes, from %d", more, base)
	}
	if deeper := twppSize(t, loopSource(1000, 3000)); deeper > base+270 {
		t.Errorf("2700 levels more: %d bytes, from %d", deeper, base)
	}
}

// TestSharedPrivate: a node called from two places is written once, and
// a private node's tree follows its caller: a recording with a subtree
// called from two goroutines reads back with the subtree once.
func TestSharedPrivate(t *testing.T) {
	s := &memSource{name: "p.wpp", h: profile.WPPHeader{Start: time.Unix(0, 0)}, pkgs: testHashes, gs: make(map[uint64][]profile.WPPEvent)}
	sub := []profile.WPPEvent{{Kind: profile.WPPEnter, Pkg: 1, Func: 1}, {Kind: profile.WPPEnter, Pkg: 1, Func: 2}, {Kind: profile.WPPPath, Path: 3}, {Kind: profile.WPPReturn}, {Kind: profile.WPPReturn}}
	for g := range uint64(2) {
		evs := []profile.WPPEvent{{Kind: profile.WPPStart}, {Kind: profile.WPPEnter, Pkg: 2, Func: uint32(g)}}
		evs = append(evs, sub...)
		evs = append(evs, profile.WPPEvent{Kind: profile.WPPReturn})
		s.gs[g+1] = evs
	}
	tw := roundTrip(t, []*memSource{s})
	var buf bytes.Buffer
	if err := tw.Write(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := NewFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	back, err := f.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(len(back.Nodes)), fmt.Sprint(len(tw.Nodes)); got != want {
		t.Errorf("%s nodes read back, %s written", got, want)
	}
}
