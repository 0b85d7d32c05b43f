// Package report turns a path profile into path coverage per function and
// package, statement coverage derived from the same counts, and decoded
// paths, for pathcover's report and paths commands.
package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/pathcover/pathcover/internal/pkgpattern"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A Coverage is a fraction: Covered of Total.
type Coverage struct {
	Covered uint64
	Total   uint64
}

// Percent returns the coverage in percent, 100 for nothing to cover.
func (c Coverage) Percent() float64 {
	if c.Total == 0 {
		return 100
	}
	return 100 * float64(c.Covered) / float64(c.Total)
}

func (c *Coverage) add(d Coverage) { c.Covered += d.Covered; c.Total += d.Total }

// MarshalJSON adds the percentage.
func (c Coverage) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Covered, Total uint64
		Percent        float64
	}{c.Covered, c.Total, c.Percent()})
}

// A Report is the path coverage of the packages in a profile.
type Report struct {
	Packages   []*Package
	Paths      Coverage // over all functions
	Statements Coverage // as go test -cover counts them
	// Segments are over all supergraphs of an interprocedural build: the
	// interprocedural path segments that ran, out of all.
	Segments  Coverage `json:",omitzero"`
	Processes int      // counter files read
}

// A Package is one package, its test variants merged.
type Package struct {
	Path       string
	Funcs      []*Func // worst covered first
	Paths      Coverage
	Statements Coverage
	// Supergraphs are, in an interprocedural build, the callers with the
	// callees of their call sites inlined (profile.Super), worst covered
	// first; their paths are interprocedural path segments. They are not
	// in Funcs, Paths or the report's Paths.
	Supergraphs []*Func  `json:",omitempty"`
	Segments    Coverage `json:",omitzero"`
}

// A Func is one function's path coverage: numbered paths run, out of all.
type Func struct {
	Package string
	Name    string
	File    string
	Line    int
	EndLine int
	Paths   Coverage
	// Acyclic is the exact number of acyclic paths, which is Paths.Total
	// unless the function has so many that it was cut to number them.
	Acyclic string
	// Lost counts runs that found the function's hash table full.
	Lost uint64

	counts    map[uint64]uint64
	meta      *profile.Func // a PPP build's if any, for its interesting paths
	ppp       bool
	numbering *numbering.Numbering
	pkgMeta   *profile.Meta // for a supergraph, its callers' and callees' files
}

// Build builds the report of the packages of p that match patterns (all,
// if none). A function that cannot be numbered again from its metadata is
// left out with an error.
func Build(p *profile.Profile, patterns []string) (*Report, []error) {
	r := &Report{Processes: p.Processes}
	var errs []error
	type funcKey struct {
		pkg, file, name string
		line            int
		paths           uint64
		edges           int
	}
	funcs := make(map[funcKey]*Func)
	type unitKey struct {
		file                   string
		line, col, eline, ecol int
	}
	units := make(map[string]map[unitKey]Coverage) // package → unit → stmts ran/all
	pkgs := make(map[string]*Package)
	for _, hash := range sortedKeys(p.Metas) {
		m := p.Metas[hash]
		path := profile.PackagePath(m.Package)
		if !matchAny(patterns, path) {
			continue
		}
		pkg := pkgs[path]
		if pkg == nil {
			pkg = &Package{Path: path}
			pkgs[path] = pkg
			units[path] = make(map[unitKey]Coverage)
		}
		for i := range m.Funcs {
			mf := &m.Funcs[i]
			n, err := mf.Numbering()
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", m.Package, err))
				continue
			}
			key := funcKey{path, m.Files[mf.File], mf.Name, mf.Line, mf.Paths, len(mf.Edges)}
			f := funcs[key]
			if f == nil {
				f = &Func{
					Package: path, Name: mf.Name, File: m.Files[mf.File], Line: mf.Line, EndLine: mf.EndLine,
					Acyclic: mf.Total, counts: make(map[uint64]uint64), meta: mf, numbering: n, pkgMeta: m,
				}
				funcs[key] = f
				if mf.Super != nil {
					pkg.Supergraphs = append(pkg.Supergraphs, f)
				} else {
					pkg.Funcs = append(pkg.Funcs, f)
				}
			}
			if m.Mode == "ppp" && !f.ppp {
				f.meta, f.ppp, f.pkgMeta = mf, true, m
			}
			counts := p.Counts[hash][i]
			for id, c := range counts {
				f.counts[id] += c
			}
			f.Lost += p.Lost[hash][i]
			blocks, err := n.CountsFromPaths(counts)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %w", m.Package, mf.Name, err))
				continue
			}
			for _, u := range mf.Units {
				k := unitKey{m.Files[mf.File], u.Line, u.Col, u.EndLine, u.EndCol}
				c := units[path][k]
				c.Total = uint64(u.Stmts)
				if blocks.Blocks[u.Block] > 0 {
					c.Covered = uint64(u.Stmts)
				}
				units[path][k] = c
			}
		}
	}
	for _, path := range sortedKeys(pkgs) {
		pkg := pkgs[path]
		for _, f := range pkg.Funcs {
			f.Paths = Coverage{Covered: uint64(len(f.counts)), Total: f.numbering.NumPaths()}
			pkg.Paths.add(f.Paths)
		}
		for _, f := range pkg.Supergraphs {
			f.Paths = Coverage{Covered: uint64(len(f.counts)), Total: f.numbering.NumPaths()}
			pkg.Segments.add(f.Paths)
		}
		for _, c := range units[path] {
			pkg.Statements.add(c)
		}
		sortWorstFirst(pkg.Funcs)
		sortWorstFirst(pkg.Supergraphs)
		r.Packages = append(r.Packages, pkg)
		r.Paths.add(pkg.Paths)
		r.Segments.add(pkg.Segments)
		r.Statements.add(pkg.Statements)
	}
	return r, errs
}

func sortWorstFirst(funcs []*Func) {
	slices.SortStableFunc(funcs, func(a, b *Func) int {
		if c := cmp.Compare(a.Paths.Percent(), b.Paths.Percent()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Paths.Total, a.Paths.Total); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Name, b.Name))
	})
}

// Lookup returns the functions that name denotes: pkg.F, or F in any
// package; F is spelled as in stack traces (T.M, (*T).M, F.func1), and a
// supergraph as its caller with profile.SuperSuffix (F@ippp).
func (r *Report) Lookup(name string) []*Func {
	var found []*Func
	for _, pkg := range r.Packages {
		for _, f := range slices.Concat(pkg.Funcs, pkg.Supergraphs) {
			if f.Name == name || pkg.Path+"."+f.Name == name {
				found = append(found, f)
			}
		}
	}
	return found
}

func matchAny(patterns []string, path string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if pkgpattern.Match(p, path) {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
