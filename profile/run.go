package profile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Shape returns a fingerprint of what a function's numbering depends on:
// its graph, its preferred cuts and its path limit. Two functions with the
// same shape number their paths alike, so a path id from a profile of one
// means the same path in the other, even if lines moved.
func (f *Func) Shape() string {
	h := sha256.New()
	put := func(v uint64) { h.Write(binary.LittleEndian.AppendUint64(nil, v)) }
	put(uint64(len(f.Blocks)))
	put(uint64(f.Entry))
	put(uint64(f.Exit))
	put(f.MaxPaths)
	put(f.Paths)
	for _, e := range f.Edges {
		put(uint64(e.Src))
		put(uint64(e.Dst))
		if e.Probe {
			put(1)
		} else {
			put(0)
		}
	}
	put(uint64(len(f.Preferred)))
	for _, id := range f.Preferred {
		put(uint64(id))
	}
	if len(f.Keep) > 0 { // so that older shapes stay the same
		put(uint64(len(f.Keep)))
		for _, id := range f.Keep {
			put(uint64(id))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// PackagePath is an import path without the test variant that
// TOOLEXEC_IMPORTPATH adds ("p [p.test]" is p).
func PackagePath(importPath string) string {
	path, _, _ := strings.Cut(importPath, " ")
	return path
}

// PathsRun are the paths a profile ran, by package (test variants merged)
// and function, for a PPP build's interesting paths and for the gate.
type PathsRun struct {
	funcs map[string][]funcRun // by package path + " " + function name
}

type funcRun struct {
	shape string
	ids   []uint64 // sorted
	meta  *Func    // one of the metadata of this version
	file  string   // its file's name
}

// PathsRun indexes the paths p ran. Every function of every package in p is
// in it, those that never ran with no paths.
func (p *Profile) PathsRun() *PathsRun {
	r := &PathsRun{funcs: make(map[string][]funcRun)}
	for hash, m := range p.Metas {
		for i := range m.Funcs {
			f := &m.Funcs[i]
			key := PackagePath(m.Package) + " " + f.Name
			shape := f.Shape()
			runs := r.funcs[key]
			j := slices.IndexFunc(runs, func(fr funcRun) bool { return fr.shape == shape })
			if j < 0 {
				runs = append(runs, funcRun{shape: shape, meta: f, file: m.Files[f.File]})
				j = len(runs) - 1
			}
			for id, n := range p.Counts[hash][i] {
				if n > 0 {
					runs[j].ids = append(runs[j].ids, id)
				}
			}
			r.funcs[key] = runs
		}
	}
	for _, runs := range r.funcs {
		for i := range runs {
			slices.Sort(runs[i].ids)
			runs[i].ids = slices.Compact(runs[i].ids)
		}
	}
	return r
}

// Lookup returns the ids of the paths that ran of function name of the
// package with import path pkg, whose metadata (counters aside) is f. known
// says whether the profile has the function at all, and stale that it has
// only other versions of it (another graph), whose ids say nothing of f's
// paths.
func (r *PathsRun) Lookup(pkg, name string, f *Func) (ids []uint64, known, stale bool) {
	runs := r.funcs[PackagePath(pkg)+" "+name]
	if len(runs) == 0 {
		return nil, false, false
	}
	shape := f.Shape()
	for _, fr := range runs {
		if fr.shape == shape {
			return fr.ids, true, false
		}
	}
	return nil, true, true
}

// A FuncRun is a function of a profile with one version: its package's
// path, its metadata and its file's name, and the ids of its paths that
// ran.
type FuncRun struct {
	Package string
	Meta    *Func
	File    string
	IDs     []uint64
}

// Func returns function name of package pkg, if the profile has one
// version of it.
func (r *PathsRun) Func(pkg, name string) (*FuncRun, bool) {
	runs := r.funcs[PackagePath(pkg)+" "+name]
	if len(runs) != 1 {
		return nil, false
	}
	return &FuncRun{Package: PackagePath(pkg), Meta: runs[0].meta, File: runs[0].file, IDs: runs[0].ids}, true
}

// Funcs calls yield for each function of the profile that has one version,
// in the order of package path and name.
func (r *PathsRun) Funcs(yield func(*FuncRun) bool) {
	keys := make([]string, 0, len(r.funcs))
	for k, runs := range r.funcs {
		if len(runs) == 1 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		pkg, name, _ := strings.Cut(k, " ")
		f, _ := r.Func(pkg, name)
		if !yield(f) {
			return
		}
	}
}

// Fingerprint is a hash of everything Lookup can answer, for build IDs.
func (r *PathsRun) Fingerprint() string {
	keys := make([]string, 0, len(r.funcs))
	for k := range r.funcs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		runs := slices.Clone(r.funcs[k])
		slices.SortFunc(runs, func(a, b funcRun) int { return strings.Compare(a.shape, b.shape) })
		for _, fr := range runs {
			h.Write([]byte(k + "\x00" + fr.shape + "\x00"))
			for _, id := range fr.ids {
				h.Write(binary.LittleEndian.AppendUint64(nil, id))
			}
			h.Write([]byte{0xff})
			// The calls choose the sites of an interprocedural build.
			for b, blk := range fr.meta.Blocks {
				for _, c := range blk.Calls {
					fmt.Fprintf(h, "%d %s %s %v\x00", b, c.Package, c.Func, c.Site)
				}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
