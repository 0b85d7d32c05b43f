package numbering

import (
	"fmt"
	"math"
	"slices"
)

// maxPPP bounds PPP ids, so that the arithmetic of the algorithm stays far
// from int64 overflow.
const maxPPP = 1 << 62

// A PPP is a preferential numbering of a set of interesting paths (thesis
// §3.3, Fig. 3.10) on the chords of a Placement.
//
// The interesting paths get unique ids in [0, Size). Other paths get
// arbitrary ids, which may alias an interesting path's or fall out of range,
// so the runtime keeps a second register with the Ball-Larus id and an array
// of Size slots, each holding the Ball-Larus id of its interesting path
// (thesis §3.2.3): a path counts in slot i only if i < Size and the slot's
// id equals the register's. Every other path is residual.
type PPP struct {
	p      *Placement
	weight []int64  // PPP weight per DAG edge, 0 where unset
	set    []bool   // the edge lies on an interesting path
	inc    []uint64 // PPP increment per DAG edge (wrapping)
	size   uint64
	toPPP  map[uint64]uint64 // Ball-Larus id → PPP id
	toBL   map[uint64]uint64 // PPP id → Ball-Larus id
	minBL  uint64
	maxBL  uint64
}

// PPP numbers the paths with the given Ball-Larus ids preferentially, with
// increments on p's chords. Repeated ids count once. An id that is not below
// NumPaths is an error wrapping ErrBadPath.
//
// The algorithm visits nodes bottom up. At node v, for each out edge e and
// each prefix q (the path from the root to v) of the interesting paths
// through e, the prefix needs weight cis(q) − min, where min is the least
// partial id of those paths and cis(q), the cumulative interval size, is one
// past the largest partial id already given to q's paths on v's earlier out
// edges. The edge takes the largest such weight (the join), which keeps the
// intervals of every prefix apart, so interesting paths stay unique. Edges on
// no interesting path keep weight 0 (⊥ in the thesis).
//
// A prefix is identified, as in the thesis's implementation (§3.6), by the
// sum of Ball-Larus weights along it: two prefixes that reach the same node
// with the same sum would give two paths the same Ball-Larus id.
func (p *Placement) PPP(interesting []uint64) (*PPP, error) {
	ids := slices.Clone(interesting)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	q := &PPP{
		p:      p,
		weight: make([]int64, len(p.edges)),
		set:    make([]bool, len(p.edges)),
		toPPP:  make(map[uint64]uint64, len(ids)),
		toBL:   make(map[uint64]uint64, len(ids)),
	}
	type step struct {
		path   int32
		prefix uint64 // Ball-Larus sum of the prefix before the edge
	}
	through := make(map[EdgeID][]step)
	for i, id := range ids {
		path, err := p.Decode(id)
		if err != nil {
			return nil, fmt.Errorf("interesting path: %w", err)
		}
		var sum uint64
		for _, e := range path {
			through[e] = append(through[e], step{int32(i), sum})
			sum += p.weight[e]
		}
	}
	pid := make([]int64, len(ids))
	cis := make(map[uint64]int64)
	type interval struct{ lo, hi int64 }
	group := make(map[uint64]interval)
	for i := len(p.topo) - 1; i >= 0; i-- {
		clear(cis)
		for _, e := range p.out[p.topo[i]] {
			steps := through[e]
			if len(steps) == 0 {
				continue
			}
			clear(group)
			for _, s := range steps {
				iv, ok := group[s.prefix]
				if !ok || pid[s.path] < iv.lo {
					iv.lo = pid[s.path]
				}
				group[s.prefix] = iv
			}
			w := int64(math.MinInt64)
			for prefix, iv := range group {
				w = max(w, cis[prefix]-iv.lo) // the join
			}
			q.weight[e] = w
			q.set[e] = true
			for _, s := range steps {
				pid[s.path] += w
				if pid[s.path] > maxPPP {
					return nil, fmt.Errorf("%w: PPP ids pass 2^62", ErrTooManyPaths)
				}
				if iv := group[s.prefix]; pid[s.path]+1 > iv.hi {
					iv.hi = pid[s.path] + 1
					group[s.prefix] = iv
				}
			}
			for prefix, iv := range group {
				cis[prefix] = iv.hi
			}
		}
	}
	for i, id := range ids {
		q.toPPP[id] = uint64(pid[i])
		q.toBL[uint64(pid[i])] = id
		q.size = max(q.size, uint64(pid[i])+1)
	}
	if len(ids) > 0 {
		q.minBL, q.maxBL = ids[0], ids[len(ids)-1]
	}
	q.inc = p.chordIncrements(func(id EdgeID) uint64 { return uint64(q.weight[id]) })
	return q, nil
}

// Size returns the number of PPP slots: interesting paths have ids in
// [0, Size).
func (q *PPP) Size() uint64 { return q.size }

// Len returns the number of interesting paths.
func (q *PPP) Len() int { return len(q.toPPP) }

// Inc returns the PPP increment of DAG edge id, which goes on the same chord
// as the Ball-Larus increment (wrapping; it may stand for a negative number).
func (q *PPP) Inc(id EdgeID) uint64 { return q.inc[id] }

// Weight returns the PPP weight of DAG edge id (Fig. 3.10's W), and false if
// the edge is on no interesting path (⊥; it counts as 0).
func (q *PPP) Weight(id EdgeID) (int64, bool) { return q.weight[id], q.set[id] }

// ID returns the PPP id of the interesting path with Ball-Larus id bl.
func (q *PPP) ID(bl uint64) (uint64, bool) {
	id, ok := q.toPPP[bl]
	return id, ok
}

// BL returns the Ball-Larus id of the interesting path in slot ppp.
func (q *PPP) BL(ppp uint64) (uint64, bool) {
	bl, ok := q.toBL[ppp]
	return bl, ok
}

// accepts reports whether the runtime's alias check counts a path whose PPP
// register ends at ppp and Ball-Larus register at bl as interesting.
func (q *PPP) accepts(ppp, bl uint64) bool {
	want, ok := q.toBL[ppp]
	return ok && want == bl
}

// Delta returns the compactness δ = (max − min + 1)/|I| of the PPP ids
// (thesis Problem A); 1 is perfect. It is 0 for no interesting paths.
func (q *PPP) Delta() float64 {
	if len(q.toPPP) == 0 {
		return 0
	}
	return float64(q.size) / float64(len(q.toPPP))
}

// BLDelta returns δ for the Ball-Larus ids of the same paths, for comparison
// (thesis Fig. 3.18).
func (q *PPP) BLDelta() float64 {
	if len(q.toPPP) == 0 {
		return 0
	}
	return (float64(q.maxBL-q.minBL) + 1) / float64(len(q.toPPP))
}
