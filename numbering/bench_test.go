package numbering

import (
	"math/rand/v2"
	"testing"
)

// structured builds a CFG shaped like Go code, with about size blocks:
// statement sequences, if/else, for loops with continue and break (the edges
// into the post block are the preferred cuts), switches and returns.
type structured struct {
	g         *Graph
	rng       *rand.Rand
	preferred []EdgeID
	size      int
}

type loopCtx struct{ post, done BlockID }

func structuredGraph(seed uint64, size int) (*Graph, *Options) {
	s := &structured{g: &Graph{}, rng: rand.New(rand.NewPCG(seed, 3)), size: size}
	s.g.Entry = s.g.AddBlock()
	s.g.Exit = s.g.AddBlock()
	cur := s.g.Entry
	for s.g.NumBlocks < size {
		cur = s.block(cur, 0, nil)
	}
	s.edge(cur, s.g.Exit)
	return s.g, &Options{Preferred: s.preferred}
}

func (s *structured) edge(a, b BlockID) EdgeID { return s.g.AddEdge(a, b, true) }

// block emits statements from cur and returns where control falls out, or -1
// if it does not (return, break, continue).
func (s *structured) block(cur BlockID, depth int, loop *loopCtx) BlockID {
	for range 1 + s.rng.IntN(6) {
		if s.g.NumBlocks >= s.size {
			return cur
		}
		switch k := s.rng.IntN(10); {
		case k < 3 || depth > 6: // plain statements
			next := s.g.AddBlock()
			s.edge(cur, next)
			cur = next
		case k < 6: // if, maybe with else
			then, join := s.g.AddBlock(), s.g.AddBlock()
			s.edge(cur, then)
			if end := s.block(then, depth+1, loop); end >= 0 {
				s.edge(end, join)
			}
			if s.rng.IntN(2) == 0 {
				els := s.g.AddBlock()
				s.edge(cur, els)
				if end := s.block(els, depth+1, loop); end >= 0 {
					s.edge(end, join)
				}
			} else {
				s.edge(cur, join)
			}
			cur = join
		case k < 8: // for cond { body } with a post statement
			head, body, post, done := s.g.AddBlock(), s.g.AddBlock(), s.g.AddBlock(), s.g.AddBlock()
			s.edge(cur, head)
			s.edge(head, body)
			s.edge(head, done)
			if end := s.block(body, depth+1, &loopCtx{post, done}); end >= 0 {
				s.preferred = append(s.preferred, s.edge(end, post))
			}
			s.edge(post, head)
			cur = done
		case k < 9: // switch
			join := s.g.AddBlock()
			for range 2 + s.rng.IntN(4) {
				c := s.g.AddBlock()
				s.edge(cur, c)
				if end := s.block(c, depth+1, loop); end >= 0 {
					s.edge(end, join)
				}
			}
			cur = join
		default: // return, break or continue; not at the top level
			if depth == 0 {
				continue
			}
			switch {
			case loop != nil && s.rng.IntN(3) == 0:
				s.edge(cur, loop.done)
			case loop != nil && s.rng.IntN(2) == 0:
				s.preferred = append(s.preferred, s.edge(cur, loop.post))
			default:
				s.edge(cur, s.g.Exit)
			}
			return -1
		}
	}
	return cur
}

func TestStructuredGraphs(t *testing.T) {
	for seed := range 40 {
		g, opts := structuredGraph(uint64(seed), 20+seed*5)
		checkGraph(t, g, opts)
	}
}

// TestLargeGraphs numbers the benchmark graphs once, with the random-walk
// oracle, so that what the benchmarks time is known to be right.
func TestLargeGraphs(t *testing.T) {
	g, opts := structuredGraph(1, 10000)
	n, err := Number(g, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkRandomWalks(t, n, 30, 1)
	n, err = Number(ifChain(200), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRandomWalks(t, n, 30, 2)
}

func benchmarkNumberPlace(b *testing.B, g *Graph, opts *Options) {
	b.ReportAllocs()
	for b.Loop() {
		n, err := Number(g, opts)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := n.Place(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNumberPlace10000Blocks numbers and places a Go-shaped CFG of
// 10,000 blocks.
func BenchmarkNumberPlace10000Blocks(b *testing.B) {
	g, opts := structuredGraph(1, 10000)
	b.ReportMetric(float64(len(g.Edges)), "edges")
	benchmarkNumberPlace(b, g, opts)
}

// BenchmarkNumberPlace200Branches numbers and places 200 ifs in a row: 2^200
// paths, cut down to 2^63.
func BenchmarkNumberPlace200Branches(b *testing.B) {
	benchmarkNumberPlace(b, ifChain(200), nil)
}

// BenchmarkPPP10000Blocks numbers 1,000 interesting paths of the 10,000-block
// CFG preferentially.
func BenchmarkPPP10000Blocks(b *testing.B) {
	g, opts := structuredGraph(1, 10000)
	n, err := Number(g, opts)
	if err != nil {
		b.Fatal(err)
	}
	p, err := n.Place(nil)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	ids := make([]uint64, 1000)
	for i := range ids {
		ids[i] = rng.Uint64N(n.NumPaths())
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.PPP(ids); err != nil {
			b.Fatal(err)
		}
	}
}
