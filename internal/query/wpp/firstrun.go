package wpp

import (
	"errors"

	"github.com/pathcover/pathcover/profile"
)

// A hot sequence of wpp hot is counted on the call DAG without expanding
// it, so it knows how often it ran, not where. To look at one of its runs
// (wpp call ID), the user needs the call it first ran in. AddFirstRuns
// finds it by walking the goroutines' events in the order of call ids
// (CallID: processes, goroutines, pre-order), keeping the last paths of
// the goroutine (for sequences across calls: its paths in the order they
// ran) and of each open call (for sequences in one call: the call's own
// paths, its callees' in between left out), and stops once every sequence
// is found. A hot sequence runs often, so it is usually found early in
// the run; one that first runs late costs a walk of the run up to there.

// A pathRing holds the last paths of a goroutine or a call, with the call
// each ran in.
type pathRing struct {
	runs []ringRun
	n    int // how many it holds, at most len(runs)
	at   int // where the next goes
}

type ringRun struct {
	fn   FuncKey
	call CallID
	path uint64
}

func (r *pathRing) add(x ringRun) {
	r.runs[r.at] = x
	r.at = (r.at + 1) % len(r.runs)
	r.n = min(r.n+1, len(r.runs))
}

// ends reports whether the ring's last paths are steps, the call the
// first of them ran in, and whether they ran in more calls than one.
func (r *pathRing) ends(steps []HotStep) (first CallID, calls bool, ok bool) {
	l := len(steps)
	if l > r.n {
		return 0, false, false
	}
	for j := range l {
		x := r.runs[(r.at-1-j+2*len(r.runs))%len(r.runs)]
		if s := steps[l-1-j]; x.path != s.Path || x.fn != s.Func {
			return 0, false, false
		}
		calls = calls || j > 0 && x.call != first
		first = x.call
	}
	return first, calls, true
}

// AddFirstRuns sets the FirstCall of each of hs that has none: the call
// its first path ran in, at its first run.
func (t *TWPP) AddFirstRuns(hs HotPaths) error {
	type ref struct {
		key FuncKey
		id  CallID
	}
	left, maxLen := 0, 0
	for i := range hs {
		if hs[i].FirstCall == nil && len(hs[i].Steps) > 0 {
			left++
			maxLen = max(maxLen, len(hs[i].Steps))
		}
	}
	if left == 0 {
		return nil
	}
	newRing := func() pathRing { return pathRing{runs: make([]ringRun, maxLen)} }
	var id CallID
	errDone := errors.New("every sequence found")
	enter := func(hash string, fn uint32, _ ref, _ bool) (ref, error) {
		r := ref{FuncKey{Hash: hash, Index: fn}, id}
		id++
		return r, nil
	}
	// found checks the sequences of the kind across against ring.
	found := func(ring *pathRing, across bool) bool {
		for i := range hs {
			h := &hs[i]
			if h.FirstCall != nil || h.Interprocedural != across {
				continue
			}
			// A sequence across calls is counted where it spans calls
			// only: the same paths in one call are another sequence's run.
			if first, calls, ok := ring.ends(h.Steps); ok && calls == across {
				h.FirstCall = &first
				if left--; left == 0 {
					return true
				}
			}
		}
		return false
	}
	var calls []pathRing // the open calls', reused by depth
	for _, p := range t.Processes {
		src := t.Source(p)
		for _, g := range p.Goroutines {
			goroutine := newRing()
			depth := 0
			_, err := Walk(src, g.ID, enter, func(st *Step[ref]) error {
				switch st.Kind {
				case profile.WPPEnter:
					if depth == len(calls) {
						calls = append(calls, newRing())
					}
					calls[depth].n, calls[depth].at = 0, 0
					depth++
				case profile.WPPReturn:
					depth--
				case profile.WPPPath:
					d := depth - 1 - int(st.Up)
					if d < 0 {
						return nil // Walk refuses it first
					}
					x := ringRun{st.Call.key, st.Call.id, st.Path}
					goroutine.add(x)
					calls[d].add(x)
					if found(&calls[d], false) || found(&goroutine, true) {
						return errDone
					}
				}
				return nil
			})
			if err == errDone {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
