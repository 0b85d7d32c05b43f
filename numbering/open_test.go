package numbering

import (
	"errors"
	"testing"
)

// FuzzPlaceOpen checks PlaceOpen on graphs made from the fuzzer's bytes,
// with the blocks whose bit is set in the last byte's pattern kept open
// (not the root nor the exit): the ops still count every path taken (random
// walks), and the code in the open region has the kinds PlaceOpen promises,
// whatever the rest of the graph is.
func FuzzPlaceOpen(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		g, opts := graphFromBytes(data)
		n, err := Number(g, opts)
		if err != nil || len(data) == 0 {
			return
		}
		pattern := data[len(data)-1] | 1
		var open []BlockID
		isOpen := make([]bool, g.NumBlocks)
		for v := range g.NumBlocks {
			b := BlockID(v)
			if b != n.Root() && b != g.Exit && pattern>>(v%8)&1 == 1 {
				open = append(open, b)
				isOpen[v] = true
			}
		}
		p, err := n.PlaceOpen(nil, open)
		if err != nil {
			if errors.Is(err, ErrInvalidGraph) {
				return // a path's end that cannot hold the count, as with Place
			}
			t.Fatalf("PlaceOpen: %v", err)
		}
		for id := range n.NumDAGEdges() {
			e := n.Edge(EdgeID(id))
			op, ok := p.Op(EdgeID(id))
			if !n.InDAG(EdgeID(id)) || !p.Reachable(e.Src) {
				continue
			}
			switch {
			case e.Kind == StartEdge && isOpen[e.Dst]:
				if !ok || op.Kind != OpSet {
					t.Fatalf("start e%d into open b%d has op %v, want a set", id, e.Dst, op.Kind)
				}
			case e.Kind == EndEdge && isOpen[e.Src]:
				if !ok || op.Kind != OpCount {
					t.Fatalf("end e%d from open b%d has op %v, want a count", id, e.Src, op.Kind)
				}
			case isOpen[e.Src] && isOpen[e.Dst]:
				if ok && op.Kind != OpAdd {
					t.Fatalf("e%d between open blocks has op %v, want an add or none", id, op.Kind)
				}
			}
		}
		checkRandomWalksPlaced(t, p, 30, int64(len(data)))
	})
}

// TestPlaceOpenRefuses checks that the root and the exit cannot be open.
func TestPlaceOpenRefuses(t *testing.T) {
	n, err := Number(&fig1().g, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []BlockID{n.Root(), n.Graph().Exit, BlockID(n.Graph().NumBlocks)} {
		if _, err := n.PlaceOpen(nil, []BlockID{b}); !errors.Is(err, ErrBadOptions) {
			t.Errorf("PlaceOpen with b%d open: %v, want ErrBadOptions", b, err)
		}
	}
}
