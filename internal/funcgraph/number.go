package funcgraph

import "github.com/pathcover/pathcover/numbering"

// A Numbered is a function's graph with its Ball-Larus numbering and its
// counter placement under the static weights of Ball-Larus 1994: what
// pppexec instruments and the analyzers report. Numbering and Placement are
// nil if Err says why the function cannot be numbered.
type Numbered struct {
	*Func
	Numbering *numbering.Numbering
	Placement *numbering.Placement
	Err       error
}

// Number numbers f's acyclic paths and places their counters. The
// analyzers and pppexec both call it, so the paths an analyzer reports are
// the paths a profile counts.
func Number(f *Func) *Numbered {
	u := &Numbered{Func: f}
	n, err := numbering.Number(&f.Graph, &numbering.Options{Preferred: f.Preferred})
	if err != nil {
		u.Err = err
		return u
	}
	p, err := n.Place(nil)
	if err != nil {
		u.Err = err
		return u
	}
	u.Numbering, u.Placement = n, p
	return u
}
