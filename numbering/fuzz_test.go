package numbering

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// graphFromBytes decodes a graph from fuzz input, malformed graphs included:
//
//	byte 0: blocks (mod 40)
//	byte 1, 2: entry and exit (mod blocks+2, so they may be out of range)
//	byte 3: MaxPaths: 0 → default, 1 → too large, else the value
//	then two bytes per edge: src (low 6 bits, mod blocks+1 so it may
//	dangle; bit 6: no probe; bit 7: preferred cut), dst (mod blocks+1).
func graphFromBytes(data []byte) (*Graph, *Options) {
	if len(data) < 4 {
		return nil, nil
	}
	nb := int(data[0] % 40)
	g := &Graph{NumBlocks: nb, Entry: BlockID(int(data[1]) % (nb + 2)), Exit: BlockID(int(data[2]) % (nb + 2))}
	opts := &Options{}
	switch m := data[3] % 64; m {
	case 0:
	case 1:
		opts.MaxPaths = math.MaxUint64
	default:
		opts.MaxPaths = uint64(m)
	}
	for data = data[4:]; len(data) >= 2; data = data[2:] {
		src := BlockID(int(data[0]&63) % (nb + 1))
		dst := BlockID(int(data[1]) % (nb + 1))
		id := g.AddEdge(src, dst, data[0]&64 == 0)
		if data[0]&128 != 0 {
			opts.Preferred = append(opts.Preferred, id)
		}
	}
	return g, opts
}

// graphBytes encodes a graph with fewer than 40 blocks for graphFromBytes.
func graphBytes(g *Graph, opts *Options) []byte {
	data := []byte{byte(g.NumBlocks), byte(g.Entry), byte(g.Exit), 0}
	if opts != nil && opts.MaxPaths > 1 && opts.MaxPaths < 64 {
		data[3] = byte(opts.MaxPaths)
	}
	preferred := map[EdgeID]bool{}
	if opts != nil {
		for _, id := range opts.Preferred {
			preferred[id] = true
		}
	}
	for id, e := range g.Edges {
		src := byte(e.Src)
		if !e.Probe {
			src |= 64
		}
		if preferred[EdgeID(id)] {
			src |= 128
		}
		data = append(data, src, byte(e.Dst))
	}
	return data
}

func addSeeds(f *testing.F) {
	f.Add(graphBytes(&fig34().g, nil))
	f.Add(graphBytes(&fig1().g, nil))
	f.Add(graphBytes(ifChain(12), &Options{MaxPaths: 50}))
	for seed := range 20 {
		rng := rand.New(rand.NewPCG(uint64(seed), 2))
		g, opts := randomGraph(rng, 2+rng.IntN(30))
		f.Add(graphBytes(g, opts))
	}
	f.Add([]byte{})
	f.Add([]byte{3, 0, 2, 0, 0, 5, 1, 2}) // a dangling edge
}

// FuzzNumber checks every property of the numbering, the placement and PPP
// on graphs made from the fuzzer's bytes, and that malformed graphs get an
// error that they deserve.
func FuzzNumber(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		g, opts := graphFromBytes(data)
		checkGraph(t, g, opts)
	})
}

// FuzzCounts feeds arbitrary path ids and chord counts to the count readers:
// they must return an error or counts that conserve flow, never panic.
func FuzzCounts(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		g, opts := graphFromBytes(data)
		n, err := Number(g, opts)
		if err != nil {
			return
		}
		p, err := n.Place(nil)
		if err != nil {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(len(data)), uint64(n.NumPaths())))
		paths := map[uint64]uint64{}
		chords := map[EdgeID]uint64{}
		for range rng.IntN(6) {
			paths[rng.Uint64N(n.NumPaths()+2)] = rng.Uint64N(100)
			chords[EdgeID(rng.IntN(n.NumDAGEdges()+2))-1] = rng.Uint64N(100)
		}
		if c, err := n.CountsFromPaths(paths); err == nil {
			checkConserved(t, n, c)
		} else if !errors.Is(err, ErrBadPath) {
			t.Fatalf("CountsFromPaths: %v", err)
		}
		if c, err := p.CountsFromChords(chords); err == nil {
			checkConserved(t, n, c)
		} else if !errors.Is(err, ErrBadCounts) {
			t.Fatalf("CountsFromChords: %v", err)
		}
	})
}

// checkConserved checks what holds of counts read from any profile: every
// path that enters a block leaves it, by an edge or by a cut edge, so a block
// ran as often as its out edges did, and the exit as often as the edges into
// it. (Flow into a block need not balance: a path that ends at a back edge is
// counted even if the process dies before the next one is.)
func checkConserved(t *testing.T, n *Numbering, c *Counts) {
	t.Helper()
	g := n.Graph()
	out := make([]uint64, g.NumBlocks)
	for id, e := range g.Edges {
		out[e.Src] += c.Edges[id]
	}
	for _, id := range n.In(g.Exit) {
		if n.Edge(id).Kind == RealEdge {
			out[g.Exit] += c.Edges[id] // the exit "leaves" by returning
		}
	}
	for v := range g.NumBlocks {
		if out[v] != c.Blocks[v] {
			t.Fatalf("b%d ran %d times but was left %d times", v, c.Blocks[v], out[v])
		}
	}
	if c.Calls > c.Blocks[g.Entry] {
		t.Fatalf("%d calls but the entry ran %d times", c.Calls, c.Blocks[g.Entry])
	}
}
