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
//     caller's edges exactly as its own paths do; but only at most, for a
//     caller that deeper segments of another supergraph go through (see
//     package instrument's supergraph.go);
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
	// A function, by metadata and index; callees in other packages are
	// found by package path and name.
	type funcKey struct {
		hash string
		fn   int
	}
	byName := make(map[string][]funcKey)
	for hash, m := range p.Metas {
		for fn, f := range m.Funcs {
			k := profile.PackagePath(m.Package) + "." + f.Name
			byName[k] = append(byName[k], funcKey{hash, fn})
		}
	}
	own := make(map[funcKey]*numbering.Counts)
	countsOf := func(k funcKey) (*numbering.Counts, error) {
		if c, ok := own[k]; ok {
			return c, nil
		}
		n, err := p.Metas[k.hash].Funcs[k.fn].Numbering()
		if err != nil {
			return nil, err
		}
		c, err := n.CountsFromPaths(p.Counts[k.hash][k.fn])
		if err != nil {
			return nil, err
		}
		own[k] = c
		return c, nil
	}
	viaSites := make(map[funcKey][]uint64) // callee → edge counts from segments
	calls := make(map[funcKey]uint64)      // callee → runs of its sites' call edges
	// Callers cloned for deeper segments of other supergraphs: their
	// clones leave out their own supergraph, which then counts fewer calls.
	shadowed := make(map[string]bool)
	for _, m := range p.Metas {
		for _, f := range m.Funcs {
			if f.Super == nil {
				continue
			}
			for _, site := range f.Super.Sites {
				if site.Parent < 0 {
					continue
				}
				parent := f.Super.Sites[site.Parent]
				pkg := parent.Package
				if pkg == "" {
					pkg = profile.PackagePath(m.Package)
				}
				shadowed[pkg+"."+parent.Func] = true
			}
		}
	}
	for hash, m := range p.Metas {
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
			callees := make([]funcKey, len(sf.Super.Sites))
			for i, site := range sf.Super.Sites {
				callees[i] = funcKey{hash, site.Callee}
				if site.Callee < 0 {
					ks := byName[site.Package+"."+site.Func]
					if len(ks) != 1 {
						return nil, fmt.Errorf("%s: site %d: %d functions %s.%s in the profile", sf.Name, i, len(ks), site.Package, site.Func)
					}
					callees[i] = ks[0]
				}
			}
			caller := make([]uint64, len(m.Funcs[sf.Super.Caller].Edges))
			returns := make([]uint64, len(sf.Super.Sites))
			for e, o := range sf.Super.Edges {
				switch {
				case o.Site < 0:
					caller[o.Index] += c.Edges[e]
				case o.Index == int32(numbering.CallEdge):
					calls[callees[o.Site]] += c.Edges[e]
					returns[o.Site] += c.Edges[e]
				case o.Index == int32(numbering.ReturnEdge):
					returns[o.Site] -= c.Edges[e]
				default:
					k := callees[o.Site]
					if viaSites[k] == nil {
						viaSites[k] = make([]uint64, len(p.Metas[k.hash].Funcs[k.fn].Edges))
					}
					if int(o.Index) >= len(viaSites[k]) {
						return nil, fmt.Errorf("%s: site %d: edge %d of a callee with %d", sf.Name, o.Site, o.Index, len(viaSites[k]))
					}
					viaSites[k][o.Index] += c.Edges[e]
				}
			}
			for site, d := range returns {
				if d != 0 {
					diffs = append(diffs, fmt.Sprintf("%s %s: site %d's call and return edges ran a different number of times", m.Package, sf.Name, site))
				}
			}
			cc, err := countsOf(funcKey{hash, sf.Super.Caller})
			if err != nil {
				return nil, err
			}
			callerName := profile.PackagePath(m.Package) + "." + m.Funcs[sf.Super.Caller].Name
			for e, want := range cc.Edges {
				if caller[e] > want || (!shadowed[callerName] && caller[e] != want) {
					diffs = append(diffs, fmt.Sprintf("%s %s: caller edge %d ran %d times in its own paths, %d in the segments", m.Package, sf.Name, e, want, caller[e]))
				}
			}
		}
	}
	for k, got := range viaSites {
		m := p.Metas[k.hash]
		f := &m.Funcs[k.fn]
		cc, err := countsOf(k)
		if err != nil {
			return nil, err
		}
		must := exact(profile.PackagePath(m.Package), f.Name)
		if must && calls[k] != cc.Calls {
			diffs = append(diffs, fmt.Sprintf("%s %s: called %d times, its sites' call edges ran %d times", m.Package, f.Name, cc.Calls, calls[k]))
		}
		for e, want := range cc.Edges {
			if got[e] > want || (must && got[e] != want) {
				diffs = append(diffs, fmt.Sprintf("%s %s: edge %d ran %d times in its own paths, %d in the segments through its clones", m.Package, f.Name, e, want, got[e]))
			}
		}
	}
	return diffs, nil
}
