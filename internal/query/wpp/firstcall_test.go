package wpp

import (
	"slices"
	"testing"
)

// TestFirstCalls: each trace's first call is the smallest id whose call
// (TWPP.Call, which descends to one call by its own route) is of the
// function and took the trace's paths.
func TestFirstCalls(t *testing.T) {
	for seed := range uint64(150) {
		tw := roundTrip(t, []*memSource{randomSource(seed), randomSource(seed + 500)})
		var total uint64
		for _, p := range tw.Processes {
			for _, g := range p.Goroutines {
				for _, r := range g.Roots {
					total += tw.Nodes[r].Calls
				}
			}
		}
		// And in the goroutines of odd ids alone.
		in := make(map[*Process]map[uint64]bool)
		for _, p := range tw.Processes {
			in[p] = make(map[uint64]bool)
			for _, g := range p.Goroutines {
				in[p][g.ID] = g.ID%2 == 1
			}
		}
		want, wantIn := make(map[FuncKey][]CallID), make(map[FuncKey][]CallID)
		for _, f := range tw.Funcs {
			want[f.Key], wantIn[f.Key] = make([]CallID, len(f.Traces)), make([]CallID, len(f.Traces))
			for i := range want[f.Key] {
				want[f.Key][i], wantIn[f.Key][i] = NoCall, NoCall
			}
		}
		for id := range total {
			c, err := tw.Call(CallID(id), nil)
			if err != nil {
				t.Fatalf("seed %d: call %d: %v", seed, id, err)
			}
			f := tw.Func(c.Func)
			tr := slices.IndexFunc(f.Traces, func(tr *Trace) bool { return slices.Equal(tr.Paths, c.Paths) })
			if tr < 0 {
				t.Fatalf("seed %d: call %d took no trace of its function", seed, id)
			}
			want[c.Func][tr] = min(want[c.Func][tr], CallID(id))
			if c.Goroutine%2 == 1 {
				wantIn[c.Func][tr] = min(wantIn[c.Func][tr], CallID(id))
			}
		}
		for _, f := range tw.Funcs {
			if got := tw.FirstCalls(f.Key); !slices.Equal(got, want[f.Key]) {
				t.Fatalf("seed %d: %s: first calls %v, want %v", seed, f.Key, got, want[f.Key])
			}
			if got := tw.FirstCallsIn(f.Key, in); !slices.Equal(got, wantIn[f.Key]) {
				t.Fatalf("seed %d: %s: first calls of odd goroutines %v, want %v", seed, f.Key, got, wantIn[f.Key])
			}
		}
	}
	if tw := roundTrip(t, []*memSource{randomSource(1)}); tw.FirstCalls(FuncKey{Hash: "none"}) != nil {
		t.Error("first calls of a function that did not run")
	}
}
