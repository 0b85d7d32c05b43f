package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

// correlatedFunc is a chain of three ifs, the first two on one condition:
// taking different ways at them cannot run. Edge 3i is if i's true way,
// 3i+1 its false way (chainFunc).
func correlatedFunc(t testing.TB, proved ...[]int32) profile.Func {
	f := chainFunc(t, "F", 10, 3)
	for i, cond := range []string{"x > 0", "x > 0", "y < 1"} {
		f.Edges[3*i].Cond, f.Edges[3*i+1].Cond = cond, cond
	}
	f.Infeasible = &profile.Infeasible{Contradictions: []profile.Contradiction{}}
	for _, set := range proved {
		f.Infeasible.Contradictions = append(f.Infeasible.Contradictions, profile.Contradiction{Edges: set, Why: "x > 0; x <= 0"})
	}
	return f
}

// ways returns the ways a path of F takes at its three ifs, from its
// steps: "t" or "f" for each.
func ways(p Path) string {
	var s string
	for _, st := range p.Steps {
		switch st.Kind {
		case "true":
			s += "t"
		case "false":
			s += "f"
		}
	}
	return s
}

// TestFeasible checks the counts, the listing and the gate of a function
// with paths proved infeasible against its paths' ways, decoded apart.
func TestFeasible(t *testing.T) {
	p := profile.New()
	p.Metas["h"] = metaOf("example.com/p", "p.go", correlatedFunc(t, []int32{0, 4}, []int32{1, 3}))
	// Ran: tt-, ff- (both ways at the third if for tt).
	all, err := p.Metas["h"].Funcs[0].Numbering()
	if err != nil {
		t.Fatal(err)
	}
	f := &Func{numbering: all, meta: &p.Metas["h"].Funcs[0], File: "p.go"}
	ran := map[string]bool{"ttt": true, "ttf": true, "fft": true}
	for id := range all.NumPaths() {
		dag, _ := all.Decode(id)
		if ran[ways(Path{Steps: f.steps(dag)})] {
			p.Add("h", 0, id, 1)
		}
	}
	p.Processes = 1
	r, errs := Build(p, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	fn := r.Packages[0].Funcs[0]
	if fn.Paths != (Coverage{Covered: 3, Total: 8}) || fn.Feasible != (Coverage{Covered: 3, Total: 4}) ||
		fn.Infeasible != (Infeasibility{Analyzed: true, Paths: 4, Contradictions: 2}) {
		t.Fatalf("paths %+v, feasible %+v, infeasible %+v", fn.Paths, fn.Feasible, fn.Infeasible)
	}
	if r.Feasible != fn.Feasible || r.Packages[0].Feasible != fn.Feasible {
		t.Errorf("the sums %+v, %+v are not the one function's", r.Feasible, r.Packages[0].Feasible)
	}
	untested, err := fn.Decoded(true, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(untested) != 5 {
		t.Fatalf("%d untested paths, want 5", len(untested))
	}
	for _, u := range untested {
		w := ways(u)
		if infeasible := w[0] != w[1]; infeasible != (u.Infeasible != nil) {
			t.Errorf("path %s: infeasible %v, marked %+v", w, infeasible, u.Infeasible)
			continue
		}
		if u.Infeasible != nil {
			if len(u.Infeasible.Branches) != 2 || u.Infeasible.Why != "x > 0; x <= 0" {
				t.Errorf("path %s: why %+v", w, u.Infeasible)
			}
			continue
		}
		// ffs: the second x > 0 is false, which follows from the first.
		var needs []string
		for _, c := range u.Needs {
			s := c.String()
			if c.Implied {
				s += " (implied)"
			}
			needs = append(needs, s)
		}
		want := "x > 0 is false; x > 0 is false (implied); y < 1 is false"
		if got := strings.Join(needs, "; "); got != want {
			t.Errorf("path %s needs %q, want %q", w, got, want)
		}
	}
	// The gate: 75% of the feasible paths ran, 37.5% of all.
	if s, _ := fn.Gate(75, 3, OverFeasible); s != nil {
		t.Errorf("gate -min 75 fails: %s", s.Message())
	}
	s, _ := fn.Gate(50, 3, OverAll)
	if s == nil || s.Untested != 5 || !strings.Contains(s.Message(), "5 of 8 paths untested") {
		t.Errorf("gate -min 50 -all: %+v", s)
	}
	s, _ = fn.Gate(100, 3, OverFeasible)
	if s == nil || s.Untested != 1 || len(s.First) != 1 || !strings.Contains(s.Message(), "1 of 4 feasible paths untested (75.0% ran, below 100%; 4 more proved infeasible): path ") ||
		!strings.Contains(s.Message(), "y < 1 is false") {
		t.Errorf("gate -min 100: %+v", s)
	}
}

// TestProofError: a path that ran through a contradiction is an error, and
// the function counts as not analysed.
func TestProofError(t *testing.T) {
	p := profile.New()
	p.Metas["h"] = metaOf("example.com/p", "p.go", correlatedFunc(t, []int32{0, 4}))
	n, _ := p.Metas["h"].Funcs[0].Numbering()
	f := &Func{numbering: n, meta: &p.Metas["h"].Funcs[0], File: "p.go"}
	for id := range n.NumPaths() {
		dag, _ := n.Decode(id)
		if ways(Path{Steps: f.steps(dag)}) == "tft" {
			p.Add("h", 0, id, 1)
		}
	}
	p.Processes = 1
	r, errs := Build(p, nil)
	var pe *ProofError
	if len(errs) != 1 || !errors.As(errs[0], &pe) || !strings.HasPrefix(errs[0].Error(), ProofErrorText) {
		t.Fatalf("errors %v", errs)
	}
	if fn := r.Packages[0].Funcs[0]; fn.Infeasible.Analyzed || fn.Feasible != fn.Paths {
		t.Errorf("after a proof error: %+v, feasible %+v", fn.Infeasible, fn.Feasible)
	}
}

// TestProofOfEveryBuild: two builds of one graph count only what both
// proved; a build that was not analysed leaves the function unanalysed.
func TestProofOfEveryBuild(t *testing.T) {
	for _, tc := range []struct {
		name  string
		other profile.Func
		want  Infeasibility
	}{
		{"both proved", correlatedFunc(t, []int32{1, 3}, []int32{0, 4}), Infeasibility{Analyzed: true, Paths: 4, Contradictions: 2}},
		{"one proved less", correlatedFunc(t, []int32{0, 4}), Infeasibility{Analyzed: true, Paths: 2, Contradictions: 1}},
		{"one not analysed", chainFunc(t, "F", 10, 3), Infeasibility{}},
	} {
		p := profile.New()
		p.Metas["h1"] = metaOf("example.com/p", "p.go", correlatedFunc(t, []int32{0, 4}, []int32{1, 3}))
		p.Metas["h2"] = metaOf("example.com/p", "p.go", tc.other)
		p.Processes = 1
		r, errs := Build(p, nil)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tc.name, errs)
		}
		if got := r.Packages[0].Funcs[0].Infeasible; got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
