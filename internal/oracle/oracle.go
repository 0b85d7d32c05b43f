package oracle

import (
	"fmt"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// eof stands for the end of a call in witness sets.
const eof = -1

// Counts is a path histogram: [hash][func][Ball-Larus id] → runs.
type Counts map[string]map[int]map[uint64]uint64

func (c Counts) add(hash string, fn int, id uint64) {
	if c[hash] == nil {
		c[hash] = make(map[int]map[uint64]uint64)
	}
	if c[hash][fn] == nil {
		c[hash][fn] = make(map[uint64]uint64)
	}
	c[hash][fn][id]++
}

// Result is what the oracle regenerated.
type Result struct {
	Counts Counts
	// Calls is the number of calls decoded; Incomplete, those that had not
	// returned when the trace ended, whose last path is not counted.
	Calls, Incomplete int
}

// Paths regenerates the paths of every call in calls, with the metadata of
// p. A call it cannot decode is an error.
func Paths(p *profile.Profile, calls []*profile.Call) (*Result, error) {
	res := &Result{Counts: make(Counts)}
	decoders := decoders{}
	for _, c := range calls {
		d, m, err := decoders.of(p, c)
		if err != nil {
			return nil, err
		}
		ids, complete, err := d.paths(c.Edges)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", m.Package, m.Funcs[c.Func].Name, err)
		}
		for _, id := range ids {
			res.Counts.add(c.Hash, c.Func, id)
		}
		res.Calls++
		if !complete {
			res.Incomplete++
		}
	}
	return res, nil
}

// CallPaths regenerates the paths of each call in calls, in order, with
// the metadata of p; complete says whether the call's last path ended
// (false for a call that had not returned when the trace ended).
func CallPaths(p *profile.Profile, calls []*profile.Call) (ids [][]uint64, complete []bool, err error) {
	decoders := decoders{}
	for _, c := range calls {
		d, m, err := decoders.of(p, c)
		if err != nil {
			return nil, nil, err
		}
		paths, done, err := d.paths(c.Edges)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", m.Package, m.Funcs[c.Func].Name, err)
		}
		ids, complete = append(ids, paths), append(complete, done)
	}
	return ids, complete, nil
}

// decoders are the decoders of a trace's functions, by metadata hash and
// function, made as calls need them.
type decoders map[string]map[int]*decoder

// of returns the decoder of call c's function, and its metadata.
func (ds decoders) of(p *profile.Profile, c *profile.Call) (*decoder, *profile.Meta, error) {
	m := p.Metas[c.Hash]
	if m == nil || c.Func >= len(m.Funcs) {
		return nil, nil, fmt.Errorf("trace names function %d of metadata %s, which the profile lacks", c.Func, c.Hash)
	}
	if ds[c.Hash] == nil {
		ds[c.Hash] = make(map[int]*decoder)
	}
	d := ds[c.Hash][c.Func]
	if d == nil {
		var err error
		if d, err = newDecoder(&m.Funcs[c.Func]); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", m.Package, err)
		}
		ds[c.Hash][c.Func] = d
	}
	return d, m, nil
}

// A decoder regenerates one function's calls.
type decoder struct {
	f       *profile.Func
	pl      *numbering.Placement // for Completions, made when it asks
	n       *numbering.Numbering
	out     [][]int32      // out edges of each block
	witness map[int32]bool // edges with a probe site
	sets    []map[int32]bool
}

func newDecoder(f *profile.Func) (*decoder, error) {
	n, err := f.Numbering()
	if err != nil {
		return nil, err
	}
	d := &decoder{f: f, n: n, out: make([][]int32, len(f.Blocks)), witness: make(map[int32]bool)}
	for i, e := range f.Edges {
		d.out[e.Src] = append(d.out[e.Src], int32(i))
		if e.Probe {
			d.witness[int32(i)] = true
		}
	}
	// The witness set of each edge.
	d.sets = make([]map[int32]bool, len(f.Edges))
	for i := range f.Edges {
		d.sets[i] = d.witnessSet(int32(i))
	}
	for v, outs := range d.out {
		if len(outs) < 2 || !n.Reachable(numbering.BlockID(v)) {
			continue
		}
		seen := make(map[int32]int32)
		for _, e := range outs {
			for w := range d.sets[e] {
				if other, dup := seen[w]; dup {
					return nil, fmt.Errorf("%s: block b%d cannot be decoded: witness %d follows both e%d and e%d", f.Name, v, w, other, e)
				}
				seen[w] = e
			}
		}
	}
	return d, nil
}

// witnessSet is e itself for a witness, else the witnesses, and eof, that
// paths from e's target reach first.
func (d *decoder) witnessSet(e int32) map[int32]bool {
	set := make(map[int32]bool)
	if d.witness[e] {
		set[e] = true
		return set
	}
	seen := make(map[int32]bool)
	var visit func(v int32)
	visit = func(v int32) {
		if seen[v] {
			return
		}
		seen[v] = true
		if v == d.f.Exit {
			set[eof] = true
			return
		}
		for _, o := range d.out[v] {
			if d.witness[o] {
				set[o] = true
			} else {
				visit(d.f.Edges[o].Dst)
			}
		}
	}
	visit(d.f.Edges[e].Dst)
	return set
}

// paths regenerates a call's edges from its witnesses and returns the ids
// of the paths it completed, and whether the call reached the exit.
func (d *decoder) paths(witnesses []int32) (ids []uint64, complete bool, err error) {
	runs, complete, err := d.runs(witnesses)
	for _, r := range runs {
		ids = append(ids, r.id)
	}
	return ids, complete, err
}

// A pathRun is one path a call took: its id, its DAG edges, and, for
// each, how many of the call's witnesses had been written when it was
// taken (its own included: a start edge after a cut edge counts the cut
// edge's).
type pathRun struct {
	id    uint64
	edges []numbering.EdgeID
	at    []int
}

// runs is paths, with each path's edges and where they were taken.
func (d *decoder) runs(witnesses []int32) (runs []pathRun, complete bool, err error) {
	n := d.n
	cur := pathRun{edges: []numbering.EdgeID{n.Start(numbering.BlockID(d.f.Entry))}, at: []int{0}}
	v := d.f.Entry
	i := 0
	for v != d.f.Exit {
		next := int32(eof)
		if i < len(witnesses) {
			next = witnesses[i]
		}
		var take int32 = -1
		for _, e := range d.out[v] {
			if d.sets[e][next] {
				take = e
				break
			}
		}
		if take < 0 {
			if next == eof {
				return runs, false, nil // the trace ends inside the call
			}
			return nil, false, fmt.Errorf("witness e%d cannot follow block b%d", next, v)
		}
		if d.witness[take] {
			i++
		}
		v = d.f.Edges[take].Dst
		if _, cut := n.CutKind(numbering.EdgeID(take)); cut {
			cur.edges, cur.at = append(cur.edges, n.End(numbering.EdgeID(take))), append(cur.at, i)
			if cur.id, err = n.Encode(cur.edges); err != nil {
				return nil, false, err
			}
			runs = append(runs, cur)
			cur = pathRun{edges: []numbering.EdgeID{n.Start(numbering.BlockID(v))}, at: []int{i}}
			continue
		}
		cur.edges, cur.at = append(cur.edges, numbering.EdgeID(take)), append(cur.at, i)
	}
	if i != len(witnesses) {
		return nil, false, fmt.Errorf("%d witnesses left after the exit", len(witnesses)-i)
	}
	if cur.id, err = n.Encode(cur.edges); err != nil {
		return nil, false, err
	}
	return append(runs, cur), true, nil
}

// A Completion is a path that a call took, and where in the trace it was
// counted.
type Completion struct {
	Call int // index in the calls
	ID   uint64
	// Line is the trace's line of the witness of the edge whose code
	// counts the path (the placement's OpCount or OpCountConst; the code
	// of an edge writes its witness first, then its ops), or the call's
	// record for a path counted where the function begins.
	Line int
}

// Completions returns the paths that calls took and were counted, call
// by call, in order; calls must have their witnesses' lines
// (profile.Call.EdgeLines). The paths are regenerated from the witnesses
// alone; only where each was counted comes from the metadata's
// placement. A call's last path, if the trace ended before the edge that
// counts it, is left out.
func Completions(p *profile.Profile, calls []*profile.Call) ([]Completion, error) {
	var out []Completion
	decoders := decoders{}
	for ci, c := range calls {
		d, m, err := decoders.of(p, c)
		if err != nil {
			return nil, err
		}
		if len(c.EdgeLines) != len(c.Edges) {
			return nil, fmt.Errorf("call %d has no lines of its witnesses", ci)
		}
		if d.pl == nil {
			if d.pl, err = m.Funcs[c.Func].Placement(); err != nil {
				return nil, fmt.Errorf("%s: %w", m.Package, err)
			}
		}
		runs, _, err := d.runs(c.Edges)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", m.Package, m.Funcs[c.Func].Name, err)
		}
		for _, r := range runs {
			at := -1
			for k, e := range r.edges {
				if op, ok := d.pl.Op(e); ok && (op.Kind == numbering.OpCount || op.Kind == numbering.OpCountConst) {
					at = r.at[k]
				}
			}
			if at < 0 {
				continue // the trace ended before the count
			}
			line := c.Line
			if at > 0 {
				line = c.EdgeLines[at-1]
			}
			out = append(out, Completion{Call: ci, ID: r.id, Line: line})
		}
	}
	return out, nil
}

// Compare returns the differences between the counters' histogram and the
// oracle's, one line each, for the functions of metas (a nil result: they
// agree).
func Compare(p *profile.Profile, oracle Counts) []string {
	var diffs []string
	for hash, m := range p.Metas {
		for fn := range m.Funcs {
			if m.Funcs[fn].Super != nil {
				continue // no trace: see Supergraphs
			}
			got, want := p.Counts[hash][fn], oracle[hash][fn]
			for id, c := range want {
				if got[id] != c {
					diffs = append(diffs, fmt.Sprintf("%s %s: path %d ran %d times, counters say %d", m.Package, m.Funcs[fn].Name, id, c, got[id]))
				}
			}
			for id, c := range got {
				if want[id] == 0 {
					diffs = append(diffs, fmt.Sprintf("%s %s: counters say path %d ran %d times, it never did", m.Package, m.Funcs[fn].Name, id, c))
				}
			}
		}
	}
	return diffs
}
