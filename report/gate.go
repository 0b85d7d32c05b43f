package report

import (
	"fmt"
	"strings"
)

// A Shortfall is a function that falls short of a gate: less than its
// minimum share of the function's paths ran.
type Shortfall struct {
	Func     *Func
	Min      float64 // the gate's minimum, in percent
	Untested uint64
	// First are the first untested paths, in id order, decoded.
	First []Path
}

// Gate returns the functions of r that judge selects (all, if it is nil)
// whose path coverage is below min percent, each with up to show of its
// untested paths decoded.
func (r *Report) Gate(min float64, show int, judge func(*Func) bool) ([]Shortfall, error) {
	var out []Shortfall
	for _, pkg := range r.Packages {
		for _, f := range pkg.Funcs {
			if judge != nil && !judge(f) {
				continue
			}
			s, err := f.Gate(min, show)
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

// Gate judges one function: nil if at least min percent of its paths ran.
func (f *Func) Gate(min float64, show int) (*Shortfall, error) {
	if f.Paths.Percent() >= min {
		return nil, nil
	}
	s := &Shortfall{Func: f, Min: min, Untested: f.Paths.Total - f.Paths.Covered}
	for id := uint64(0); id < f.numbering.NumPaths() && len(s.First) < show; id++ {
		if f.counts[id] > 0 {
			continue
		}
		dag, err := f.numbering.Decode(id)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", f.Package, f.Name, err)
		}
		s.First = append(s.First, Path{ID: id, Steps: f.steps(dag)})
	}
	return s, nil
}

// Message says, on one line, how the function falls short and which paths
// never ran, each as its branches (line:column and outcome).
func (s *Shortfall) Message() string {
	f := s.Func
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d paths untested (%.1f%% ran, below %g%%)", f.Name, s.Untested, f.Paths.Total, f.Paths.Percent(), s.Min)
	for i, p := range s.First {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%spath %d [", sep, p.ID)
		first := true
		for _, st := range p.Steps {
			if !st.Branch() {
				continue
			}
			if !first {
				b.WriteString("; ")
			}
			first = false
			fmt.Fprintf(&b, "%d:%d %s", st.Line, st.Col, describe(st.Kind))
		}
		if first {
			b.WriteString("straight through")
		}
		b.WriteString("]")
	}
	if more := s.Untested - uint64(len(s.First)); more > 0 && len(s.First) > 0 {
		fmt.Fprintf(&b, " and %d more", more)
	}
	return b.String()
}
