package wpp

import (
	"fmt"

	"github.com/pathcover/pathcover/profile"
)

// Walk replays one goroutine's recording: it keeps the goroutine's stack
// of open calls, resolves each event to the call it belongs to, and hands
// it to the visitor. It is the one reader of a stream's call structure:
// the compaction into a TWPP, the WET's build, the slicers' replays, the
// TWPP's queries and the harness are its visitors, so that they read a
// stream alike and refuse the same streams with the same errors.
//
// A stream that Walk accepts (profile/wpp.go draws what rt writes):
//
//   - a start event, if any, comes first;
//   - nothing comes after a stop event;
//   - a call's package is one the file names (Packages);
//   - a path, memory or value event is of a call that is open: Up calls
//     below the current one, Up < the calls open;
//   - a return, a spawn, a memory access and a value come inside a call.
//
// Calls still open at the end (the process ended, or recording stopped,
// while they ran) are returned, outermost first.
//
// F is the visitor's record of a call, which enter makes when the call is
// entered; Walk keeps them on its stack and hands them back with each
// event. enter is given the call's package (its metadata hash), its
// function index, and its caller's record if it has one.
func Walk[F any](s Source, g uint64, enter func(hash string, fn uint32, caller F, hasCaller bool) (F, error), visit func(*Step[F]) error) (open []F, err error) {
	return walk(s.Packages(), func(fn func(*profile.WPPEvent) error) error { return s.Events(g, fn) }, nil, enter, visit)
}

// outerCalls is what walk knows of the calls open when the part of a
// stream it walks began (a segment of a long stream, compacted apart:
// segment.go): nothing but their number from the top, k, 1 the
// innermost, whose records frame(k) gives. Whether call k was open at
// all is the caller's to check, with what it learns from the segments
// before: walk takes any reference below its own calls as one to a call
// open before, and a call entered with none of its own open as called
// by the innermost of them (or by none: a root).
type outerCalls[F any] struct {
	frame func(k int) F
	// returned counts the outer calls that returned: the innermost still
	// open is returned+1.
	returned int
	// started says the segment's first event was a start event, which
	// walk lets pass: whether events came before is the caller's to say;
	// events that the segment held an event, even one walk refused
	// (after a stop event in a segment before, it is that error).
	started, events bool
}

// walk is Walk of the events that each gives, those of one goroutine in
// order; with outer, a segment of them that began inside the calls outer
// stands for.
func walk[F any](pkgs map[uint32]string, each func(func(*profile.WPPEvent) error) error, outer *outerCalls[F], enter func(hash string, fn uint32, caller F, hasCaller bool) (F, error), visit func(*Step[F]) error) (open []F, err error) {
	// What the walk changes at each event is in one padded block of its
	// own: captured by the closure one by one, the variables were
	// small objects of the heap, and walks on other cores (the segments
	// of one stream: segment.go) wrote the same cache lines, which made
	// each event several times slower.
	w := &walkState[F]{first: true}
	err = each(func(e *profile.WPPEvent) error {
		if w.stopped {
			return fmt.Errorf("an event after the stop")
		}
		if outer != nil && !outer.events {
			outer.events = true
		}
		// Field by field, not w.st = Step[F]{WPPEvent: e}: that copies
		// the whole step through the collector's bulk write barrier
		// (7% of compacting go/parser's suite), and Events hands the
		// same event each time.
		if w.st.WPPEvent != e {
			w.st.WPPEvent = e
		}
		var none F
		w.st.Call, w.st.Caller, w.st.Top = none, none, none
		w.st.HasCaller, w.st.InCall = false, false
		depth := len(w.stack)
		if depth > 0 {
			w.st.Top, w.st.InCall = w.stack[depth-1], true
		} else if outer != nil {
			w.st.Top, w.st.InCall = outer.frame(outer.returned+1), true
		}
		switch e.Kind {
		case profile.WPPStart:
			if !w.first {
				return fmt.Errorf("a start event after others")
			}
			if outer != nil {
				outer.started = true
			}
		case profile.WPPEnter:
			if e.Pkg != w.lastPkg || w.lastHash == "" {
				h, ok := pkgs[e.Pkg]
				if !ok {
					return fmt.Errorf("a call of package %d, which the file does not name", e.Pkg)
				}
				w.lastPkg, w.lastHash = e.Pkg, h
			}
			hash := w.lastHash
			f, err := enter(hash, e.Func, w.st.Top, w.st.InCall)
			if err != nil {
				return err
			}
			w.st.Call, w.st.Caller, w.st.HasCaller = f, w.st.Top, w.st.InCall
			w.stack = append(w.stack, f)
		case profile.WPPPath, profile.WPPMemory, profile.WPPValue:
			switch {
			case int(e.Up) < depth:
				w.st.Call = w.stack[depth-1-int(e.Up)]
			case outer != nil:
				w.st.Call = outer.frame(outer.returned + 1 + int(e.Up) - depth)
			default:
				return fmt.Errorf("%s %d calls below the %d open", kindArticle[e.Kind], e.Up, depth)
			}
		case profile.WPPReturn, profile.WPPSpawn:
			if depth == 0 && outer == nil {
				return fmt.Errorf("%s outside any call", kindArticle[e.Kind])
			}
			w.st.Call = w.st.Top
			if e.Kind == profile.WPPReturn {
				switch {
				case depth == 0:
					outer.returned++
					w.st.Caller, w.st.HasCaller = outer.frame(outer.returned+1), true
				case depth > 1:
					w.stack = w.stack[:depth-1]
					w.st.Caller, w.st.HasCaller = w.stack[depth-2], true
				default:
					w.stack = w.stack[:0]
					if outer != nil {
						w.st.Caller, w.st.HasCaller = outer.frame(outer.returned+1), true
					}
				}
			}
		case profile.WPPStop:
			w.stopped = true
		default:
			return fmt.Errorf("event of kind %d", e.Kind)
		}
		w.first = false
		w.st.Depth = len(w.stack)
		return visit(&w.st)
	})
	return w.stack, err
}

// walkState is what walk changes at each event, padded on both sides to
// cache lines of its own.
type walkState[F any] struct {
	_        [64]byte
	stack    []F
	st       Step[F]
	first    bool
	stopped  bool
	lastPkg  uint32 // the package of the last call, lastHash its hash
	lastHash string
	_        [64]byte
}

var kindArticle = map[profile.WPPEventKind]string{
	profile.WPPPath:   "a path",
	profile.WPPMemory: "a memory access",
	profile.WPPValue:  "a value",
	profile.WPPReturn: "a return",
	profile.WPPSpawn:  "a spawn",
}

// A Step is an event of a goroutine's stream, resolved by Walk.
type Step[F any] struct {
	// The event is valid only until the visitor returns.
	*profile.WPPEvent
	// Call is the call the event is of: the call entered, the call
	// returning, the call Up levels below the current one that completed
	// a path or made a memory access or recorded a value, or the call that
	// started a goroutine. Unset for start and stop events.
	Call F
	// Caller is the caller of the call entered or returning, if it has
	// one (HasCaller).
	Caller    F
	HasCaller bool
	// Top is the current call before the event, if there is one (InCall):
	// the one that a path, access or value Up levels below it is
	// recorded in.
	Top    F
	InCall bool
	// Depth is the number of calls open after the event.
	Depth int
}

// Source returns process p of the TWPP as a recording: each goroutine's
// stream expanded again (ExpandGoroutine), for Walk and Compact.
func (t *TWPP) Source(p *Process) Source {
	byID := make(map[uint64]*Goroutine, len(p.Goroutines))
	for _, g := range p.Goroutines {
		byID[g.ID] = g
	}
	return &processSource{t: t, p: p, byID: byID}
}

type processSource struct {
	t    *TWPP
	p    *Process
	byID map[uint64]*Goroutine
}

func (s *processSource) Header() profile.WPPHeader {
	e := s.p.ProcessEnd
	return profile.WPPHeader{Limit: e.Limit, LimitReached: e.LimitReached, WriteFailed: e.WriteFailed, WriteErrno: e.WriteErrno, Ended: e.Ended, Start: s.p.Start, PID: s.p.PID}
}
func (s *processSource) Name() string                { return s.p.File }
func (s *processSource) Packages() map[uint32]string { return s.p.Packages }
func (s *processSource) Goroutines() []uint64 {
	ids := make([]uint64, len(s.p.Goroutines))
	for i, g := range s.p.Goroutines {
		ids[i] = g.ID
	}
	return ids
}

func (s *processSource) Events(g uint64, fn func(*profile.WPPEvent) error) error {
	gr := s.byID[g]
	if gr == nil {
		return fmt.Errorf("no goroutine %d in %s", g, s.p.File)
	}
	return s.t.ExpandGoroutine(s.p, gr, func(e profile.WPPEvent) error { return fn(&e) })
}
