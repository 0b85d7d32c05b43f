package slice

import (
	"slices"

	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/profile"
)

// A Value is a value that a statement execution recorded, in a -wet build
// (profile.DepValue): the variable, whether it was recorded after the
// statement ran (a value it defined) or before (a value it read), and
// the value, as words and as text (profile.ValueKind.Format).
type Value struct {
	Var   string
	After bool `json:",omitempty"`
	Kind  profile.ValueKind
	Words []uint64
	Text  string
}

// ValuesOf reads again the recording in dir, numbering its nodes as the
// three graphs do, and returns the values recorded at each of nodes, in
// the order they were recorded. A recording without values (not a -wet
// build) gives none, at the cost of reading the metadata only; so does a
// node none was recorded at. A value cut short by the end of the
// recording (a kill) is left out. Problems are the replay's, as Load's.
func ValuesOf(dir string, nodes []int32) (map[int32][]Value, []string, error) {
	return valuesOf(&loader{dir: dir}, nodes)
}

// ValuesOfWET is ValuesOf from WET w, whose metadata is in dir (the
// graph of LoadWET), not from the recording. The WET keeps the order of
// each site's values, not that between the sites of one node: a node's
// values are in the order of its sites' labels.
func ValuesOfWET(dir string, w *wet.WET, nodes []int32) (map[int32][]Value, []string, error) {
	return valuesOf(&loader{dir: dir, wet: w}, nodes)
}

// valuesOf gives the values of nodes that l reads.
func valuesOf(l *loader, nodes []int32) (map[int32][]Value, []string, error) {
	want := make(map[int32]bool, len(nodes))
	for _, n := range nodes {
		want[n] = true
	}
	l.p = profile.New()
	problems, err := l.p.ReadDir(l.dir)
	if err != nil {
		return nil, nil, err
	}
	if !hasValues(l.p) || len(want) == 0 {
		return nil, nil, nil
	}
	for _, e := range problems {
		l.problems = append(l.problems, e.Error())
	}
	type word struct {
		fn, site int32
		part     uint8
		w        uint64
	}
	words := make(map[int32][]word)
	l.value = func(a *rawAccess, fn, node int32) {
		if want[node] {
			words[node] = append(words[node], word{fn, int32(a.src), a.flags, a.addr})
		}
	}
	if err := l.load(); err != nil {
		return nil, nil, err
	}
	out := make(map[int32][]Value, len(words))
	for n, ws := range words {
		var vals []Value
		var site int32 = -1
		for _, w := range ws {
			d := l.t.funcs[w.fn].Deps
			dv := d.Values[w.site]
			if dv.Var < 0 || int(dv.Var) >= len(d.Vars) {
				continue // metadata that names no variable
			}
			v := d.Vars[dv.Var]
			switch {
			case w.part == 0:
				vals = append(vals, Value{Var: v.Name, After: dv.After, Kind: v.Kind, Words: []uint64{w.w}})
				site = w.site
			case site == w.site && int(w.part) == len(vals[len(vals)-1].Words):
				last := &vals[len(vals)-1]
				last.Words = append(last.Words, w.w)
			default:
				site = -1 // a word out of turn: the value it belongs to is dropped below
				if len(vals) > 0 {
					vals[len(vals)-1].Words = nil
				}
			}
		}
		vals = slices.DeleteFunc(vals, func(v Value) bool { return len(v.Words) != v.Kind.Words() })
		for i := range vals {
			vals[i].Text = vals[i].Kind.Format(vals[i].Words)
		}
		if len(vals) > 0 {
			out[n] = vals
		}
	}
	return out, l.problems, nil
}

// hasValues reports whether any function of p records values.
func hasValues(p *profile.Profile) bool {
	for _, m := range p.Metas {
		for i := range m.Funcs {
			if d := m.Funcs[i].Deps; d != nil && len(d.Values) > 0 {
				return true
			}
		}
	}
	return false
}
