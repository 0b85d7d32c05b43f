package report

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pathcover/pathcover/internal/pkgpattern"
)

// A CallSite is a static call from one profiled function to another on a
// path that ran: a place where interprocedural PPP inlines the callee into
// its caller's graph (PPP thesis 3.4.4, step 2).
//
// Sites are found from a Ball-Larus profile as in the thesis's stage II of
// interprocedural residual profiling (3.5.2): a site lies on an exercised
// interprocedural path segment of depth k if its block is on a path of its
// function that ran and, below the top, its function is the callee of a
// site one level up. Like the thesis's, this over-approximates what a whole
// program path would show, since a callee's paths are not told apart by the
// site that called them. Only static calls are sites (see
// funcgraph.StaticCalls): calls through interfaces and function values are
// left out, as are calls of functions the profile does not cover.
type CallSite struct {
	Caller string // package path + "." + name
	File   string
	Line   int
	Col    int
	Block  int32
	Index  int // among the block's static calls
	Callee string
	// Paths counts the caller's paths that ran through the site's block,
	// and Runs how often they went through it.
	Paths int
	Runs  uint64
	// Inner are the sites in the callee, to the depth asked for.
	Inner []*CallSite `json:",omitempty"`

	caller, callee *Func
}

// maxCallSites bounds the sites that CallSites expands: each level can
// multiply them.
const maxCallSites = 1 << 20

// CallSites returns the call sites in the packages pkgs selects (all, if
// nil) on the interprocedural path segments of up to depth calls that
// the profile ran, most runs first, each with the sites inside its callee to
// depth-1 more levels. Callees are found in all of r's packages.
func (r *Report) CallSites(depth int, pkgs *pkgpattern.Set) (CallSites, error) {
	if depth < 1 {
		return nil, fmt.Errorf("call site depth %d: want 1 or more", depth)
	}
	byName := make(map[string]*Func)
	for _, pkg := range r.Packages {
		for _, f := range pkg.Funcs {
			key := pkg.Path + "." + f.Name
			// Two versions of one function (another build's graph): take
			// the one that ran more paths.
			if g := byName[key]; g == nil || len(f.counts) > len(g.counts) {
				byName[key] = f
			}
		}
	}
	direct := make(map[*Func][]*CallSite)
	sitesOf := func(f *Func) ([]*CallSite, error) {
		if s, ok := direct[f]; ok {
			return s, nil
		}
		s, err := f.directCallSites(byName)
		direct[f] = s
		return s, err
	}
	expanded := 0
	var expand func(f *Func, levels int) ([]*CallSite, error)
	expand = func(f *Func, levels int) ([]*CallSite, error) {
		sites, err := sitesOf(f)
		if err != nil {
			return nil, err
		}
		out := make([]*CallSite, len(sites))
		for i, s := range sites {
			if expanded++; expanded > maxCallSites {
				return nil, fmt.Errorf("more than %d call sites to depth %d: ask for less depth", maxCallSites, depth)
			}
			c := *s
			if levels > 1 {
				if c.Inner, err = expand(s.callee, levels-1); err != nil {
					return nil, err
				}
			}
			out[i] = &c
		}
		return out, nil
	}
	var all []*CallSite
	for _, pkg := range r.Packages {
		if !pkgs.Match(pkg.Path) {
			continue
		}
		for _, f := range pkg.Funcs {
			if byName[pkg.Path+"."+f.Name] != f {
				continue
			}
			sites, err := expand(f, depth)
			if err != nil {
				return nil, err
			}
			all = append(all, sites...)
		}
	}
	sortSites(all)
	return all, nil
}

// directCallSites returns f's depth-1 sites, without Inner.
func (f *Func) directCallSites(byName map[string]*Func) ([]*CallSite, error) {
	m := f.meta
	type siteKey struct {
		block int32
		index int
	}
	sites := make(map[siteKey]*CallSite)
	for id, count := range f.counts {
		c, err := f.numbering.CountsFromPaths(map[uint64]uint64{id: count})
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
		}
		for b, runs := range c.Blocks {
			if runs == 0 {
				continue
			}
			for i, call := range m.Blocks[b].Calls {
				callee := byName[call.Package+"."+call.Func]
				if callee == nil {
					continue
				}
				k := siteKey{int32(b), i}
				s := sites[k]
				if s == nil {
					s = &CallSite{
						Caller: f.Package + "." + f.Name, File: f.File, Line: call.Line, Col: call.Col,
						Block: int32(b), Index: i, Callee: call.Package + "." + call.Func, caller: f, callee: callee,
					}
					sites[k] = s
				}
				s.Paths++
				s.Runs += runs
			}
		}
	}
	out := make([]*CallSite, 0, len(sites))
	for _, s := range sites {
		out = append(out, s)
	}
	sortSites(out)
	return out, nil
}

func sortSites(sites []*CallSite) {
	slices.SortFunc(sites, func(a, b *CallSite) int {
		return cmp.Or(cmp.Compare(b.Runs, a.Runs), cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Index, b.Index))
	})
}

// CallSites are call sites, as Report.CallSites finds them, to print.
type CallSites []*CallSite

// WriteText writes the sites, one a line, inner sites indented under the
// site whose callee holds them.
func (sites CallSites) WriteText(w io.Writer) error {
	cwd, _ := os.Getwd()
	var write func(sites []*CallSite, indent string) error
	write = func(sites []*CallSite, indent string) error {
		for _, s := range sites {
			paths := "paths"
			if s.Paths == 1 {
				paths = "path"
			}
			_, err := fmt.Fprintf(w, "%s%s:%d:%d: %s → %s: %d %s, %d runs\n",
				indent, relative(cwd, s.File), s.Line, s.Col, shortName(s.Caller), shortName(s.Callee), s.Paths, paths, s.Runs)
			if err != nil {
				return err
			}
			if err := write(s.Inner, indent+"  "); err != nil {
				return err
			}
		}
		return nil
	}
	return write(sites, "")
}

// WriteJSON writes the sites as a JSON array.
func (sites CallSites) WriteJSON(w io.Writer) error {
	if sites == nil {
		sites = CallSites{}
	}
	return writeJSON(w, sites)
}

// shortName shortens a package path + "." + name to the package's last
// element: example.com/m/b.(*T).M is b.(*T).M.
func shortName(qualified string) string {
	// The name has no slash; its package path ends at the first dot after
	// the last slash.
	slash := strings.LastIndexByte(qualified, '/')
	return qualified[slash+1:]
}

// StaticCallRuns returns the function's static calls that ran, each with
// the runs of its block (Runs; Paths is not set), in source order, Caller
// and Callee named as the runtime names them (Func.Symbol: a command's
// main package as main). Unlike CallSites it keeps calls of functions
// that the profile does not cover (the standard library's, say): a call
// graph needs them all.
func (f *Func) StaticCallRuns() ([]*CallSite, error) {
	caller := f.Symbol()
	prefix := strings.TrimSuffix(caller, "."+f.Name)
	c, err := f.numbering.CountsFromPaths(f.counts)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
	}
	var sites []*CallSite
	for b, runs := range c.Blocks {
		if runs == 0 || b >= len(f.meta.Blocks) {
			continue
		}
		for i, call := range f.meta.Blocks[b].Calls {
			callee := call.Package + "." + call.Func
			if call.Package == f.Package {
				callee = prefix + "." + call.Func // main's own calls are main's
			}
			sites = append(sites, &CallSite{
				Caller: caller, File: f.File, Line: call.Line, Col: call.Col,
				Block: int32(b), Index: i, Callee: callee, Runs: runs,
			})
		}
	}
	slices.SortFunc(sites, func(a, b *CallSite) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Index, b.Index))
	})
	return sites, nil
}
