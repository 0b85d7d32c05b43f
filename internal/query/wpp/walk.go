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
	pkgs := s.Packages()
	var stack []F
	var st Step[F]
	first, stopped := true, false
	var lastPkg uint32 // the package of the last call, lastHash its hash
	var lastHash string
	err = s.Events(g, func(e *profile.WPPEvent) error {
		if stopped {
			return fmt.Errorf("an event after the stop")
		}
		// Field by field, not st = Step[F]{WPPEvent: e}: that copies
		// the whole step through the collector's bulk write barrier
		// (7% of compacting go/parser's suite), and Events hands the
		// same event each time.
		if st.WPPEvent != e {
			st.WPPEvent = e
		}
		var none F
		st.Call, st.Caller, st.Top = none, none, none
		st.HasCaller, st.InCall = false, false
		depth := len(stack)
		if depth > 0 {
			st.Top, st.InCall = stack[depth-1], true
		}
		switch e.Kind {
		case profile.WPPStart:
			if !first {
				return fmt.Errorf("a start event after others")
			}
		case profile.WPPEnter:
			if e.Pkg != lastPkg || lastHash == "" {
				h, ok := pkgs[e.Pkg]
				if !ok {
					return fmt.Errorf("a call of package %d, which the file does not name", e.Pkg)
				}
				lastPkg, lastHash = e.Pkg, h
			}
			hash := lastHash
			f, err := enter(hash, e.Func, st.Top, st.InCall)
			if err != nil {
				return err
			}
			st.Call, st.Caller, st.HasCaller = f, st.Top, st.InCall
			stack = append(stack, f)
		case profile.WPPPath, profile.WPPMemory, profile.WPPValue:
			if int(e.Up) >= depth {
				return fmt.Errorf("%s %d calls below the %d open", kindArticle[e.Kind], e.Up, depth)
			}
			st.Call = stack[depth-1-int(e.Up)]
		case profile.WPPReturn, profile.WPPSpawn:
			if depth == 0 {
				return fmt.Errorf("%s outside any call", kindArticle[e.Kind])
			}
			st.Call = st.Top
			if e.Kind == profile.WPPReturn {
				stack = stack[:depth-1]
				if depth > 1 {
					st.Caller, st.HasCaller = stack[depth-2], true
				}
			}
		case profile.WPPStop:
			stopped = true
		default:
			return fmt.Errorf("event of kind %d", e.Kind)
		}
		first = false
		st.Depth = len(stack)
		return visit(&st)
	})
	return stack, err
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
