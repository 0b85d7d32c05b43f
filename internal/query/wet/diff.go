package wet

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/pathcover/pathcover/profile"
)

// Comparing two runs (the paper's matching, 6.2, turned to regression
// debugging): two WETs of the same program, or of two versions of it,
// walked goroutine by goroutine in step, until their control flow or a
// value first differs. Functions are matched by package and name, paths
// by the branches they take in the source's structure (Run.Shape: so that
// two versions whose numbering, lines or columns differ still match where
// their code does the same), and values in the order their statements
// recorded them, or where the two paths record different statements by
// variable name, and by what they are, not where they are (a pointer or a
// string's address differs from run to run; numbers, booleans and lengths
// do not).

// A Run is a WET with the metadata that describes its functions.
type Run struct {
	W     *WET
	Metas map[string]*profile.Meta
	// Steps decodes a function's path to the steps it takes in the
	// source (report.DecodeSteps, as text), which a divergence shows.
	// Shape decodes it to what it does in the source's structure
	// (report.DecodeShape), which paths are compared by; without it they
	// are compared by their steps, and without those by id.
	Steps func(m *profile.Meta, fn int, path uint64) ([]string, error)
	Shape func(m *profile.Meta, fn int, path uint64) ([]string, error)
}

// A Divergence is where two runs first differ: the goroutine (its index
// in each), how many events of its trace matched before, and what each
// run did there (an event, or a value, or nothing at the end).
type Divergence struct {
	// Goroutine and GoroutineB are the goroutines compared, their
	// indexes in A's and in B's WET (the same unless DiffIn paired them).
	Goroutine, GoroutineB int
	Matched               int
	A, B                  Side
}

// A Side is one run's side of a divergence.
type Side struct {
	Event *Event   `json:",omitempty"`
	Func  string   `json:",omitempty"` // of the event or the value
	Steps []string `json:",omitempty"` // the path's, decoded
	Value *Named   `json:",omitempty"`
	End   bool     `json:",omitempty"` // the goroutine's trace ended
}

// A Named is a value with its variable's name, kind and the line of the
// statement where it was recorded.
type Named struct {
	Var   string
	Kind  profile.ValueKind
	Words []uint64
	Line  int
	T     uint64
}

// comparable returns the words of a value that mean the same in another
// run: all of a number or a boolean, a string's or a slice's length and
// capacity, whether a pointer or an interface is nil.
func (n *Named) comparable() []uint64 {
	switch n.Kind {
	case profile.ValueString:
		return n.Words[1:]
	case profile.ValueSlice, profile.ValueText, profile.ValueBytes:
		return n.Words[1:] // length (capacity) and content, not the address
	case profile.ValueWord, profile.ValueIface:
		if n.Words[0] == 0 {
			return []uint64{0}
		}
		return []uint64{1}
	}
	return n.Words
}

// side is what Diff knows of one run.
type side struct {
	r      *Run
	values map[uint64][]Named // by timestamp, in the order of their statements on the path
	// decoded are the paths decoded so far, by decoder (0 steps, 1
	// shape), function and path: a loop's path is met millions of times.
	decoded [2]map[[2]uint64][]string
}

func (s *side) fn(i int) (*profile.Meta, *profile.Func) {
	f := s.r.W.Funcs[i]
	m := s.r.Metas[f.Hash]
	if m == nil || int(f.Index) >= len(m.Funcs) {
		return nil, nil
	}
	return m, &m.Funcs[f.Index]
}

func (s *side) name(i int) string {
	f := s.r.W.Funcs[i]
	return f.Package + "." + f.Name
}

func (s *side) steps(e Event) []string { return s.decode(0, s.r.Steps, e) }

func (s *side) shape(e Event) []string { return s.decode(1, s.r.Shape, e) }

// decode decodes e's path with decoder which (0 Steps, 1 Shape), once per
// function and path; nil if it cannot.
func (s *side) decode(which int, decode func(*profile.Meta, int, uint64) ([]string, error), e Event) []string {
	m, _ := s.fn(e.Func)
	if m == nil || decode == nil {
		return nil
	}
	k := [2]uint64{uint64(e.Func), e.Path}
	if st, ok := s.decoded[which][k]; ok {
		return st
	}
	st, err := decode(m, int(s.r.W.Funcs[e.Func].Index), e.Path)
	if err != nil {
		st = nil
	}
	if s.decoded[which] == nil {
		s.decoded[which] = make(map[[2]uint64][]string)
	}
	s.decoded[which][k] = st
	return st
}

// indexValues gathers a run's values by the timestamp of their path
// execution.
func (s *side) indexValues() {
	s.values = make(map[uint64][]Named)
	type keyed struct {
		n     Named
		order int
	}
	byT := make(map[uint64][]keyed)
	for i := range s.r.W.Values {
		l := &s.r.W.Values[i]
		_, mf := s.fn(l.Func)
		if mf == nil || mf.Deps == nil || int(l.Site) >= len(mf.Deps.Values) {
			continue
		}
		site := mf.Deps.Values[l.Site]
		v := mf.Deps.Vars[site.Var]
		for _, x := range s.r.W.ValuesOf(l) {
			if len(x.Words) < v.Kind.Words() {
				continue
			}
			o := 2 * int(site.Stmt)
			if site.After {
				o++
			}
			byT[x.T] = append(byT[x.T], keyed{Named{Var: v.Name, Kind: v.Kind, Words: x.Words, Line: mf.Deps.Stmts[site.Stmt].Line, T: x.T}, o})
		}
	}
	for t, ks := range byT {
		slices.SortStableFunc(ks, func(a, b keyed) int { return cmp.Compare(a.order, b.order) })
		for _, k := range ks {
			s.values[t] = append(s.values[t], k.n)
		}
	}
}

// Diff walks runs a and b goroutine by goroutine (the i-th recorded of one
// with the i-th of the other) and returns where they first differ, or nil
// if they do not.
func Diff(a, b *Run) (*Divergence, error) {
	all := func(r *Run) []int {
		gs := make([]int, len(r.W.Goroutines))
		for i := range gs {
			gs[i] = i
		}
		return gs
	}
	return DiffIn(a, b, all(a), all(b))
}

// DiffIn is Diff of goroutines ga of a with gb of b (indexes in their
// WETs), paired in order: one test's goroutines in each run (TestGoroutines).
func DiffIn(a, b *Run, ga, gb []int) (*Divergence, error) {
	sa, sb := &side{r: a}, &side{r: b}
	sa.indexValues()
	sb.indexValues()
	for i := range max(len(ga), len(gb)) {
		if i >= len(ga) || i >= len(gb) {
			d := &Divergence{Goroutine: -1, GoroutineB: -1}
			if i < len(ga) {
				d.Goroutine = ga[i]
			}
			if i < len(gb) {
				d.GoroutineB = gb[i]
			}
			d.A.End, d.B.End = i >= len(ga), i >= len(gb)
			return d, nil
		}
		ca, err := a.W.Cursor(ga[i])
		if err != nil {
			return nil, err
		}
		cb, err := b.W.Cursor(gb[i])
		if err != nil {
			return nil, err
		}
		for matched := 0; ; matched++ {
			ea, oka := ca.Next()
			eb, okb := cb.Next()
			if !oka && !okb {
				break
			}
			d := &Divergence{Goroutine: ga[i], GoroutineB: gb[i], Matched: matched}
			if !oka || !okb || !sa.same(ea, sb, eb) {
				d.A, d.B = sa.sideOf(ea, oka), sb.sideOf(eb, okb)
				return d, nil
			}
			if ea.Kind != SymPath {
				continue
			}
			if x, y, differ := diffValues(sa.values[ea.T], sb.values[eb.T]); differ {
				d.A, d.B = sa.sideOf(ea, true), sb.sideOf(eb, true)
				d.A.Value, d.B.Value = x, y
				return d, nil
			}
		}
	}
	return nil, nil
}

// same reports whether event ea of s and eb of o did the same thing.
func (s *side) same(ea Event, o *side, eb Event) bool {
	if ea.Kind != eb.Kind {
		return false
	}
	switch ea.Kind {
	case SymEnter:
		return s.name(ea.Func) == o.name(eb.Func)
	case SymPath:
		if s.name(ea.Func) != o.name(eb.Func) {
			return false
		}
		switch {
		case s.r.Shape != nil && o.r.Shape != nil:
			return slices.Equal(s.shape(ea), o.shape(eb))
		case s.r.Steps != nil && o.r.Steps != nil:
			return slices.Equal(s.steps(ea), o.steps(eb))
		}
		return ea.Path == eb.Path
	case SymUp:
		return ea.Up == eb.Up
	}
	return true
}

func (s *side) sideOf(e Event, ok bool) Side {
	if !ok {
		return Side{End: true}
	}
	sd := Side{Event: &e}
	switch e.Kind {
	case SymEnter, SymPath:
		sd.Func = s.name(e.Func)
	}
	if e.Kind == SymPath {
		sd.Steps = s.steps(e)
	}
	return sd
}

// String says where the runs diverge, in a line.
func (d *Divergence) String() string {
	return fmt.Sprintf("goroutine %d, after %d events in step", d.Goroutine, d.Matched)
}

// diffValues compares the values of one path execution in two runs and
// returns the first that differ. Recorded at the same kinds of values in
// the same order (the same statements: a local renamed in one version
// still matches), they are compared in that order; otherwise variable by
// variable (each variable's values in order, so that a version with a
// statement more still matches where the others record the same), A's
// first variable whose values B does not have the same of, or B's that A
// lacks.
func diffValues(va, vb []Named) (*Named, *Named, bool) {
	if len(va) == len(vb) && slices.EqualFunc(va, vb, func(x, y Named) bool { return x.Kind == y.Kind }) {
		for i := range va {
			if !slices.Equal(va[i].comparable(), vb[i].comparable()) {
				return &va[i], &vb[i], true
			}
		}
		return nil, nil, false
	}
	byVar := func(vs []Named) map[string][]Named {
		m := make(map[string][]Named)
		for _, v := range vs {
			m[v.Var] = append(m[v.Var], v)
		}
		return m
	}
	ma, mb := byVar(va), byVar(vb)
	check := func(vs []Named, ma, mb map[string][]Named) (*Named, *Named, bool) {
		for _, v := range vs {
			xa, xb := ma[v.Var], mb[v.Var]
			for i := range max(len(xa), len(xb)) {
				if i < len(xa) && i < len(xb) && xa[i].Kind == xb[i].Kind && slices.Equal(xa[i].comparable(), xb[i].comparable()) {
					continue
				}
				var a, b *Named
				if i < len(xa) {
					a = &xa[i]
				}
				if i < len(xb) {
					b = &xb[i]
				}
				return a, b, true
			}
		}
		return nil, nil, false
	}
	if a, b, differ := check(va, ma, mb); differ {
		return a, b, true
	}
	b, a, differ := check(vb, mb, ma)
	return a, b, differ
}
