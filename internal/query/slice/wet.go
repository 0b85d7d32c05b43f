package slice

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/profile"
)

// Slicing over a whole execution trace (the WET paper's 6.1). A WET holds
// what OPT is built from, compressed: each goroutine's trace (its calls
// and their paths, in order) and every memory access with the timestamp
// of the path execution it belongs to, its number and its bytes. LoadWET
// builds OPT from them alone, with the directory's metadata, and never
// reads the recording: each goroutine's trace becomes a recording's
// events again (wetSource), its accesses each right after the path
// record it belongs to, marked as attributed, so the replay places them
// in that path and skips the tail rule (the WET applied it when it
// stamped them). The dependences through memory are found as LoadCompact
// finds them, by replaying the accesses in number order; the WET keeps
// no dependence of its own (its addresses say them).

// LoadWET builds the compact graph (OPT) of WET w, whose functions the
// metadata in dir describes. Its nodes, dependences and slices are those
// of LoadCompact on the recording w was built from, but for the accesses
// of a call that did not complete its path (a panic), which the WET
// stamps with the next path of the goroutine: they are left out, as Load
// leaves them, and named in Problems.
func LoadWET(dir string, w *wet.WET) (*Compact, error) {
	return loadCompact(&loader{dir: dir, wet: w, keep: true, cache: newBlockCache()})
}

// A wetSource is the goroutines of one process of a WET as a recording
// (wpp.Source): package k of its events is the WET's function k, so that
// an enter names the function's metadata hash and index.
type wetSource struct {
	w       *wet.WET
	process int
	gors    map[uint64]int // goroutine id to index in w.Goroutines
	ids     []uint64
	// acc holds each goroutine's accesses by timestamp, then number;
	// vals its values by timestamp, if asked for (wetSources).
	acc  map[int][]wetAccess
	vals map[int][]wetValue
	left int
}

// A wetValue is one value of a WET, with its site.
type wetValue struct {
	wet.Value
	fn   int
	site uint32
}

// A wetAccess is one access of a WET, with its statement.
type wetAccess struct {
	wet.Access
	fn   int
	stmt uint32
}

// wetSources returns the processes of w as sources, in order, with their
// values if vals.
func wetSources(w *wet.WET, vals bool) []*wetSource {
	var out []*wetSource
	for i := range w.Goroutines {
		g := &w.Goroutines[i]
		for len(out) <= g.Process {
			out = append(out, &wetSource{w: w, process: len(out), gors: make(map[uint64]int), acc: make(map[int][]wetAccess), vals: make(map[int][]wetValue)})
		}
		s := out[g.Process]
		s.gors[g.ID] = i
		s.ids = append(s.ids, g.ID)
	}
	// Each access goes to the goroutine whose timestamps hold it; one
	// stamped past its goroutine's last path (a call still open at the end)
	// has no path to follow.
	goroutineAt := func(t uint64) (int, bool) {
		return slices.BinarySearchFunc(w.Goroutines, t, func(g wet.Goroutine, t uint64) int {
			if g.End <= t {
				return -1
			}
			if g.Start > t {
				return 1
			}
			return 0
		})
	}
	for i := range w.Accesses {
		l := &w.Accesses[i]
		for _, a := range w.AccessesOf(l) {
			gi, ok := goroutineAt(a.T)
			if !ok {
				if len(out) > 0 {
					out[0].left++
				}
				continue
			}
			s := out[w.Goroutines[gi].Process]
			s.acc[gi] = append(s.acc[gi], wetAccess{a, l.Func, l.Stmt})
		}
	}
	for i := 0; vals && i < len(w.Values); i++ {
		l := &w.Values[i]
		for _, v := range w.ValuesOf(l) {
			if gi, ok := goroutineAt(v.T); ok {
				s := out[w.Goroutines[gi].Process]
				s.vals[gi] = append(s.vals[gi], wetValue{v, l.Func, l.Site})
			}
		}
	}
	for _, s := range out {
		for _, list := range s.acc {
			slices.SortFunc(list, func(a, b wetAccess) int { return cmp.Or(cmp.Compare(a.T, b.T), cmp.Compare(a.Seq, b.Seq)) })
		}
		for _, list := range s.vals {
			slices.SortStableFunc(list, func(a, b wetValue) int { return cmp.Compare(a.T, b.T) })
		}
	}
	return out
}

func (s *wetSource) Header() profile.WPPHeader { return profile.WPPHeader{} }
func (s *wetSource) Name() string              { return fmt.Sprintf("the WET's process %d", s.process) }
func (s *wetSource) Goroutines() []uint64      { return s.ids }

func (s *wetSource) Packages() map[uint32]string {
	m := make(map[uint32]string, len(s.w.Funcs))
	for i, f := range s.w.Funcs {
		m[uint32(i)] = f.Hash
	}
	return m
}

// problems says what the source left out.
func (s *wetSource) problems() []string {
	if s.left == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the WET's process %d: %d memory accesses after the last path of their call (a panic?) are left out", s.process, s.left)}
}

// Events gives goroutine id's trace as a recording's events: an enter's
// package is the WET's function, its function that function's index in
// its metadata; each path is followed by the accesses of its execution,
// with the path's Up and their numbers as differences.
func (s *wetSource) Events(id uint64, yield func(*profile.WPPEvent) error) error {
	var cur profile.WPPEvent // what yield is handed, reused
	fn := func(e profile.WPPEvent) error {
		cur = e
		return yield(&cur)
	}
	gi, ok := s.gors[id]
	if !ok {
		return fmt.Errorf("no goroutine %d", id)
	}
	g := &s.w.Goroutines[gi]
	if g.Spawn != 0 {
		if err := fn(profile.WPPEvent{Kind: profile.WPPStart, Parent: g.Parent, Spawn: g.Spawn}); err != nil {
			return err
		}
	}
	c, err := s.w.Cursor(gi)
	if err != nil {
		return err
	}
	acc, vals := s.acc[gi], s.vals[gi]
	var seq uint64
	var up uint32
	for {
		e, ok := c.Next()
		if !ok {
			break
		}
		var ev profile.WPPEvent
		switch e.Kind {
		case wet.SymUp:
			up = uint32(e.Up)
			continue
		case wet.SymEnter:
			ev = profile.WPPEvent{Kind: profile.WPPEnter, Pkg: uint32(e.Func), Func: s.w.Funcs[e.Func].Index}
		case wet.SymReturn:
			ev = profile.WPPEvent{Kind: profile.WPPReturn}
		case wet.SymSpawn:
			ev = profile.WPPEvent{Kind: profile.WPPSpawn, Spawn: e.Spawn}
		case wet.SymStop:
			ev = profile.WPPEvent{Kind: profile.WPPStop}
		case wet.SymPath:
			if err := fn(profile.WPPEvent{Kind: profile.WPPPath, Up: up, Path: e.Path}); err != nil {
				return err
			}
			// Accesses stamped before this path are of no path of
			// theirs; those of another function, of a call that did not
			// complete its path.
			for len(acc) > 0 && acc[0].T <= e.T {
				a := acc[0]
				acc = acc[1:]
				if a.T < e.T || a.fn != e.Func || a.Flags&wet.AccessOrphan != 0 {
					s.left++
					continue
				}
				ev := profile.WPPEvent{Kind: profile.WPPMemory, Up: up, Stmt: a.stmt, Access: a.Kind, Flags: a.Flags, Seq: a.Seq - seq, Addr: a.Addr, Size: a.Size, Src: a.Src}
				seq = a.Seq
				if err := fn(ev); err != nil {
					return err
				}
			}
			// Its values, a word an event. (The WET keeps the order of
			// a site's values, not that between sites.)
			for len(vals) > 0 && vals[0].T <= e.T {
				v := vals[0]
				vals = vals[1:]
				if v.T < e.T || v.fn != e.Func {
					continue
				}
				for k, word := range v.Words {
					if err := fn(profile.WPPEvent{Kind: profile.WPPValue, Up: up, Site: v.site, Part: uint8(k), Value: word}); err != nil {
						return err
					}
				}
			}
			up = 0
			continue
		default:
			return fmt.Errorf("goroutine %d: a trace symbol of kind %d", id, e.Kind)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	s.left += len(acc)
	return nil
}
