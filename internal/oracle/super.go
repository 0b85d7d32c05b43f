package oracle

import (
	"fmt"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// Supergraphs checks the supergraphs of an interprocedural build (pppexec
// -ippp), which the trace does not witness, against the functions' own path
// counts, which Compare checks against the trace. Each supergraph is
// numbered again from its metadata and its path counts give the count of
// each of its edges; projected onto the functions they come from:
//
//   - onto the caller, they must equal the caller's own edge counts, edge
//     for edge: every call of the caller runs its supergraph's code, and
//     its segments, ending wherever the supergraph's paths end, take the
//     caller's edges exactly as its own paths do;
//   - onto the callees, summed over all sites of all supergraphs, they can
//     be at most the callee's own edge counts, and must equal them for the
//     functions that exact names: those the program calls only at the
//     sites (a clone counts the callee's own paths too);
//   - a site's call edge runs as often as its return edge, and the call
//     edges of an exact callee's sites as often as the callee was called.
//
// The two sides come from different numberings (the supergraph's and each
// function's), decoded independently, so a wrong increment or a clone that
// does not carry the caller's register shows as a difference. A program
// that panics through a call breaks the first identity (a caller path cut
// short is not counted, a segment ended before the panic is), so the
// programs checked do not.
func Supergraphs(p *profile.Profile, exact func(pkg, name string) bool) (diffs []string, err error) {
	for hash, m := range p.Metas {
		own := make(map[int]*numbering.Counts) // of each function
		countsOf := func(fn int) (*numbering.Counts, error) {
			if c, ok := own[fn]; ok {
				return c, nil
			}
			n, err := m.Funcs[fn].Numbering()
			if err != nil {
				return nil, err
			}
			c, err := n.CountsFromPaths(p.Counts[hash][fn])
			if err != nil {
				return nil, err
			}
			own[fn] = c
			return c, nil
		}
		viaSites := make(map[int][]uint64) // callee → edge counts from segments
		calls := make(map[int]uint64)      // callee → runs of its sites' call edges
		for sfn := range m.Funcs {
			sf := &m.Funcs[sfn]
			if sf.Super == nil {
				continue
			}
			n, err := sf.Numbering()
			if err != nil {
				return nil, err
			}
			c, err := n.CountsFromPaths(p.Counts[hash][sfn])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", sf.Name, err)
			}
			caller := make([]uint64, len(m.Funcs[sf.Super.Caller].Edges))
			returns := make([]uint64, len(sf.Super.Sites))
			for e, o := range sf.Super.Edges {
				switch {
				case o.Site < 0:
					caller[o.Index] += c.Edges[e]
				case o.Index == int32(numbering.CallEdge):
					calls[sf.Super.Sites[o.Site].Callee] += c.Edges[e]
					returns[o.Site] += c.Edges[e]
				case o.Index == int32(numbering.ReturnEdge):
					returns[o.Site] -= c.Edges[e]
				default:
					callee := sf.Super.Sites[o.Site].Callee
					if viaSites[callee] == nil {
						viaSites[callee] = make([]uint64, len(m.Funcs[callee].Edges))
					}
					viaSites[callee][o.Index] += c.Edges[e]
				}
			}
			for site, d := range returns {
				if d != 0 {
					diffs = append(diffs, fmt.Sprintf("%s %s: site %d's call and return edges ran a different number of times", m.Package, sf.Name, site))
				}
			}
			cc, err := countsOf(sf.Super.Caller)
			if err != nil {
				return nil, err
			}
			want := cc.Edges
			for e := range want {
				if caller[e] != want[e] {
					diffs = append(diffs, fmt.Sprintf("%s %s: caller edge %d ran %d times in its own paths, %d in the segments", m.Package, sf.Name, e, want[e], caller[e]))
				}
			}
		}
		for callee, got := range viaSites {
			f := &m.Funcs[callee]
			cc, err := countsOf(callee)
			if err != nil {
				return nil, err
			}
			want := cc.Edges
			must := exact(profile.PackagePath(m.Package), f.Name)
			if must && calls[callee] != cc.Calls {
				diffs = append(diffs, fmt.Sprintf("%s %s: called %d times, its sites' call edges ran %d times", m.Package, f.Name, cc.Calls, calls[callee]))
			}
			for e := range want {
				if got[e] > want[e] || (must && got[e] != want[e]) {
					diffs = append(diffs, fmt.Sprintf("%s %s: edge %d ran %d times in its own paths, %d in the segments through its clones", m.Package, f.Name, e, want[e], got[e]))
				}
			}
		}
	}
	return diffs, nil
}
