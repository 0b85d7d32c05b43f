package slice

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/internal/spill"
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
// an enter names the function's metadata hash and index. The processes'
// sources must be read in order, and each one's goroutines in order
// (Goroutines): their accesses and values come from one reader each,
// sorted by timestamp (wetEntries), which every source shares.
type wetSource struct {
	w       *wet.WET
	process int
	gors    map[uint64]int // goroutine id to index in w.Goroutines
	ids     []uint64
	acc     *wetEntries[wetAccess]
	vals    *wetEntries[wetValue] // nil unless asked for (wetSources)
	left    int
}

// A wetValue is one value of a WET, with its site. It holds at most
// maxWetWords words, as many as a kind recorded has at most
// (profile.ValueKind.Words: a byte slice's header and first bytes), and a
// WET with more is refused.
type wetValue struct {
	T     uint64
	fn    int32
	site  uint32
	n     uint8
	words [maxWetWords]uint64
}

const maxWetWords = profile.MaxValueWords

// A wetAccess is one access of a WET, with its statement.
type wetAccess struct {
	wet.Access
	fn   int32
	stmt uint32
}

// wetAccessCodec and wetValueCodec write them for a spill.Sorter.
var wetAccessCodec = spill.Codec[wetAccess]{
	Size: 8*5 + 2 + 4 + 4,
	Put: func(b []byte, a wetAccess) {
		le := binary.LittleEndian
		le.PutUint64(b, a.T)
		le.PutUint64(b[8:], a.Seq)
		le.PutUint64(b[16:], a.Addr)
		le.PutUint64(b[24:], a.Size)
		le.PutUint64(b[32:], a.Src)
		b[40], b[41] = byte(a.Kind), a.Flags
		le.PutUint32(b[42:], uint32(a.fn))
		le.PutUint32(b[46:], a.stmt)
	},
	Get: func(b []byte) wetAccess {
		le := binary.LittleEndian
		return wetAccess{Access: wet.Access{T: le.Uint64(b), Seq: le.Uint64(b[8:]), Addr: le.Uint64(b[16:]), Size: le.Uint64(b[24:]),
			Src: le.Uint64(b[32:]), Kind: profile.WPPAccess(b[40]), Flags: b[41]}, fn: int32(le.Uint32(b[42:])), stmt: le.Uint32(b[46:])}
	},
}

var wetValueCodec = spill.Codec[wetValue]{
	Size: 8 + 4 + 4 + 1 + 8*maxWetWords,
	Put: func(b []byte, v wetValue) {
		le := binary.LittleEndian
		le.PutUint64(b, v.T)
		le.PutUint32(b[8:], uint32(v.fn))
		le.PutUint32(b[12:], v.site)
		b[16] = v.n
		for k, w := range v.words {
			le.PutUint64(b[17+8*k:], w)
		}
	},
	Get: func(b []byte) wetValue {
		le := binary.LittleEndian
		v := wetValue{T: le.Uint64(b), fn: int32(le.Uint32(b[8:])), site: le.Uint32(b[12:]), n: b[16]}
		for k := range v.words {
			v.words[k] = le.Uint64(b[17+8*k:])
		}
		return v
	},
}

// spillWET is how many accesses or values wetSources holds before it
// sorts them on disk (a variable for tests).
var spillWET = 1 << 20

// wetEntries are a WET's accesses or values sorted by timestamp, read
// once in order: a spill.Sorter's reader, and the next entry.
type wetEntries[T any] struct {
	sorter *spill.Sorter[T]
	r      *spill.Reader[T]
	next   T
	ok     bool
	err    error
	// done is the timestamp the goroutines read so far end at: one read
	// out of order would find its entries gone.
	done uint64
}

func newWETEntries[T any](key func(T) uint64, codec spill.Codec[T]) *wetEntries[T] {
	return &wetEntries[T]{sorter: spill.New(key, codec, spillWET, "")}
}

// start sorts what was added, and reads the first.
func (e *wetEntries[T]) start() error {
	var err error
	if e.r, err = e.sorter.Records(); err != nil {
		return err
	}
	e.advance()
	return e.err
}

func (e *wetEntries[T]) advance() {
	e.next, e.ok, e.err = e.r.Next()
	if e.err != nil {
		e.ok = false
	}
}

func (e *wetEntries[T]) close() {
	if e != nil {
		e.sorter.Close()
	}
}

// wetSources returns the processes of w as sources, in order, with their
// values if vals, and a function that removes their files.
func wetSources(w *wet.WET, vals bool) ([]*wetSource, func(), error) {
	acc := newWETEntries(func(a wetAccess) uint64 { return a.T }, wetAccessCodec)
	var values *wetEntries[wetValue]
	if vals {
		values = newWETEntries(func(v wetValue) uint64 { return v.T }, wetValueCodec)
	}
	closeAll := func() { acc.close(); values.close() }
	var out []*wetSource
	for i := range w.Goroutines {
		g := &w.Goroutines[i]
		for len(out) <= g.Process {
			out = append(out, &wetSource{w: w, process: len(out), gors: make(map[uint64]int), acc: acc, vals: values})
		}
		s := out[g.Process]
		s.gors[g.ID] = i
		s.ids = append(s.ids, g.ID)
	}
	// Each access goes to the goroutine whose timestamps hold it; one
	// stamped past its goroutine's last path (a call still open at the end)
	// has no path to follow.
	inGoroutine := func(t uint64) bool {
		_, ok := slices.BinarySearchFunc(w.Goroutines, t, func(g wet.Goroutine, t uint64) int {
			if g.End <= t {
				return -1
			}
			if g.Start > t {
				return 1
			}
			return 0
		})
		return ok
	}
	cols := spill.NewColumns("")
	defer cols.Close()
	for i := range w.Accesses {
		l := &w.Accesses[i]
		err := w.EachAccess(l, cols, func(a wet.Access) error {
			if !inGoroutine(a.T) {
				if len(out) > 0 {
					out[0].left++
				}
				return nil
			}
			return acc.sorter.Add(wetAccess{a, int32(l.Func), l.Stmt})
		})
		if err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	for i := 0; vals && i < len(w.Values); i++ {
		l := &w.Values[i]
		err := w.EachValue(l, cols, func(v wet.Value) error {
			if !inGoroutine(v.T) {
				return nil
			}
			if len(v.Words) > maxWetWords {
				return fmt.Errorf("%s: a value of %d words at site %d (at most %d)", w.Funcs[l.Func].Name, len(v.Words), l.Site, maxWetWords)
			}
			x := wetValue{T: v.T, fn: int32(l.Func), site: l.Site, n: uint8(len(v.Words))}
			copy(x.words[:], v.Words)
			return values.sorter.Add(x)
		})
		if err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	if err := acc.start(); err != nil {
		closeAll()
		return nil, nil, err
	}
	if vals {
		if err := values.start(); err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	return out, closeAll, nil
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
	if g.Start < s.acc.done {
		return fmt.Errorf("goroutine %d read after a later one: the WET's goroutines are read in order", id)
	}
	// The accesses before this goroutine's first timestamp were of no
	// goroutine (counted as left) or of one read before.
	for s.acc.ok && s.acc.next.T < g.Start {
		s.acc.advance()
	}
	for s.vals != nil && s.vals.ok && s.vals.next.T < g.Start {
		s.vals.advance()
	}
	var same []wetAccess // one path execution's accesses, by number
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
			same = same[:0]
			for s.acc.ok && s.acc.next.T <= e.T {
				a := s.acc.next
				s.acc.advance()
				if a.T < e.T || int(a.fn) != e.Func || a.Flags&wet.AccessOrphan != 0 {
					s.left++
					continue
				}
				same = append(same, a)
			}
			if s.acc.err != nil {
				return s.acc.err
			}
			slices.SortFunc(same, func(a, b wetAccess) int { return cmp.Compare(a.Seq, b.Seq) })
			for _, a := range same {
				ev := profile.WPPEvent{Kind: profile.WPPMemory, Up: up, Stmt: a.stmt, Access: a.Kind, Flags: a.Flags, Seq: a.Seq - seq, Addr: a.Addr, Size: a.Size, Src: a.Src}
				seq = a.Seq
				if err := fn(ev); err != nil {
					return err
				}
			}
			// Its values, a word an event. (The WET keeps the order of
			// a site's values, not that between sites.)
			for s.vals != nil && s.vals.ok && s.vals.next.T <= e.T {
				v := s.vals.next
				s.vals.advance()
				if v.T < e.T || int(v.fn) != e.Func {
					continue
				}
				for k, word := range v.words[:v.n] {
					if err := fn(profile.WPPEvent{Kind: profile.WPPValue, Up: up, Site: v.site, Part: uint8(k), Value: word}); err != nil {
						return err
					}
				}
			}
			if s.vals != nil && s.vals.err != nil {
				return s.vals.err
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
	// What is left of the goroutine's timestamps had no path.
	for s.acc.ok && s.acc.next.T < g.End {
		s.acc.advance()
		s.left++
	}
	s.acc.done = g.End
	return s.acc.err
}
