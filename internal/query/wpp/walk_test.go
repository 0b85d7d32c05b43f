package wpp

import (
	"strings"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

// TestWalkRefuses: each kind of malformed stream is refused, with the
// error that says what is wrong with it.
func TestWalkRefuses(t *testing.T) {
	enter := profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1}
	ev := func(k profile.WPPEventKind, up uint32) profile.WPPEvent { return profile.WPPEvent{Kind: k, Up: up} }
	for _, tc := range []struct {
		events []profile.WPPEvent
		want   string
	}{
		{[]profile.WPPEvent{enter, ev(profile.WPPStart, 0)}, "a start event after others"},
		{[]profile.WPPEvent{ev(profile.WPPStop, 0), enter}, "an event after the stop"},
		{[]profile.WPPEvent{{Kind: profile.WPPEnter, Pkg: 9}}, "package 9, which the file does not name"},
		{[]profile.WPPEvent{enter, ev(profile.WPPPath, 1)}, "a path 1 calls below the 1 open"},
		{[]profile.WPPEvent{ev(profile.WPPMemory, 0)}, "a memory access 0 calls below the 0 open"},
		{[]profile.WPPEvent{enter, enter, ev(profile.WPPValue, 2)}, "a value 2 calls below the 2 open"},
		{[]profile.WPPEvent{ev(profile.WPPReturn, 0)}, "a return outside any call"},
		{[]profile.WPPEvent{ev(profile.WPPSpawn, 0)}, "a spawn outside any call"},
		{[]profile.WPPEvent{{Kind: 99}}, "event of kind 99"},
	} {
		s := &memSource{pkgs: testHashes, gs: map[uint64][]profile.WPPEvent{1: tc.events}}
		_, err := Walk(s, 1, func(string, uint32, int, bool) (int, error) { return 0, nil }, func(*Step[int]) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.events, err, tc.want)
		}
	}
}

// FuzzWalk: on recordings as rt writes them (randomSource), each event is
// given the call that an independent count of the stream says it belongs
// to, each enter its caller, and the calls open at the end are those never
// returned, outermost first.
func FuzzWalk(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		s := randomSource(seed)
		for _, g := range s.Goroutines() {
			// The independent count: call k is the k-th enter; a call is
			// open from its enter to the return that matches it.
			var open []int
			owner := make([]int, len(s.gs[g])) // of each event, -1 for none
			callerOf := make(map[int]int)
			calls := 0
			for i, e := range s.gs[g] {
				owner[i] = -1
				switch e.Kind {
				case profile.WPPEnter:
					calls++
					callerOf[calls] = 0
					if len(open) > 0 {
						callerOf[calls] = open[len(open)-1]
					}
					open = append(open, calls)
					owner[i] = calls
				case profile.WPPReturn, profile.WPPSpawn:
					owner[i] = open[len(open)-1]
					if e.Kind == profile.WPPReturn {
						open = open[:len(open)-1]
					}
				case profile.WPPPath, profile.WPPMemory, profile.WPPValue:
					owner[i] = open[len(open)-1-int(e.Up)]
				}
			}
			entered, i := 0, 0
			left, err := Walk(s, g, func(hash string, fn uint32, caller int, has bool) (int, error) {
				entered++
				if want := callerOf[entered]; has != (want != 0) || has && caller != want {
					t.Fatalf("call %d: caller %d (%v), want %d", entered, caller, has, want)
				}
				return entered, nil
			}, func(st *Step[int]) error {
				want := owner[i]
				if got := st.Call; want >= 0 && got != want || want < 0 && got != 0 {
					t.Fatalf("event %d (%v): call %d, want %d", i, st.Kind, got, want)
				}
				i++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if i != len(s.gs[g]) || len(left) != len(open) {
				t.Fatalf("%d of %d events visited; %d calls left open, want %v", i, len(s.gs[g]), len(left), open)
			}
			for k := range left {
				if left[k] != open[k] {
					t.Fatalf("open calls %v, want %v", left, open)
				}
			}
		}
	})
}
