package report

import (
	"fmt"
	"strings"
)

// Over says which of a function's paths a gate judges.
type Over uint8

const (
	// OverFeasible judges the paths not proved infeasible (Func.Feasible):
	// a path no run can take is not asked of the tests.
	OverFeasible Over = iota
	// OverAll judges every acyclic path (Func.Paths).
	OverAll
)

// A Shortfall is a function that falls short of a gate: less than its
// minimum share of the function's paths ran.
type Shortfall struct {
	Func *Func
	Min  float64 // the gate's minimum, in percent
	Over Over
	// Untested counts the paths judged that never ran.
	Untested uint64
	// First are the first untested paths judged, in id order, decoded,
	// with what each needs (Path.Needs).
	First []Path
}

// maxGateScan bounds the ids a gate looks through for untested paths that
// are not proved infeasible, to show.
const maxGateScan = 1 << 20

// Gate returns the functions of r that judge selects (all, if it is nil)
// whose coverage of the paths over says is below min percent, each with
// up to show of its untested paths decoded.
func (r *Report) Gate(min float64, show int, over Over, judge func(*Func) bool) ([]Shortfall, error) {
	var out []Shortfall
	for _, pkg := range r.Packages {
		for _, f := range pkg.Funcs {
			if judge != nil && !judge(f) {
				continue
			}
			s, err := f.Gate(min, show, over)
			if err != nil {
				return nil, err
			}
			if s != nil {
				out = append(out, *s)
			}
		}
	}
	return out, nil
}

// Gate judges one function: nil if at least min percent of the paths over
// says ran.
func (f *Func) Gate(min float64, show int, over Over) (*Shortfall, error) {
	c := f.judged(over)
	if c.Percent() >= min {
		return nil, nil
	}
	s := &Shortfall{Func: f, Min: min, Over: over, Untested: c.Total - c.Covered}
	for id := uint64(0); id < f.numbering.NumPaths() && id < maxGateScan && len(s.First) < show; id++ {
		if f.counts[id] > 0 {
			continue
		}
		dag, err := f.numbering.Decode(id)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
		}
		p := Path{ID: id, Steps: f.steps(dag)}
		f.explain(&p, dag)
		if p.Infeasible != nil && over == OverFeasible {
			continue
		}
		s.First = append(s.First, p)
	}
	return s, nil
}

// judged returns the coverage a gate over judges.
func (f *Func) judged(over Over) Coverage {
	if over == OverAll {
		return f.Paths
	}
	return f.Feasible
}

// Message says, on one line, how the function falls short and which paths
// never ran, each as what it needs (its branches' conditions and outcomes)
// or, for a function whose conditions are not recorded, its branches
// (line:column and outcome).
func (s *Shortfall) Message() string {
	f := s.Func
	c := f.judged(s.Over)
	var b strings.Builder
	of := fmt.Sprint(c.Total)
	if c.Bound {
		of = "at most " + of
	}
	what := "paths"
	if s.Over == OverFeasible && f.Infeasible.Paths > 0 {
		what = "feasible paths"
	}
	fmt.Fprintf(&b, "%s: %d of %s %s untested (%.1f%% ran, below %g%%", f.Name, s.Untested, of, what, c.Percent(), s.Min)
	if in := f.Infeasible; s.Over == OverFeasible && in.Paths > 0 {
		fmt.Fprintf(&b, "; %s more proved infeasible", infeasibleText(in))
	}
	b.WriteString(")")
	for i, p := range s.First {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%spath %d [", sep, p.ID)
		switch {
		case p.Infeasible != nil:
			b.WriteString("proved infeasible")
		case needsLine(p) != "":
			b.WriteString(needsLine(p))
		default:
			first := true
			for _, st := range p.Steps {
				if !st.Branch() {
					continue
				}
				if !first {
					b.WriteString("; ")
				}
				first = false
				fmt.Fprintf(&b, "%d:%d %s", st.Line, st.Col, st.Describe())
			}
			if first {
				b.WriteString("straight through")
			}
		}
		b.WriteString("]")
	}
	if more := s.Untested - uint64(len(s.First)); more > 0 && len(s.First) > 0 {
		fmt.Fprintf(&b, " and %d more", more)
	}
	return b.String()
}
