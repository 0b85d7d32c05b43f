package wet

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"

	"github.com/pathcover/pathcover/internal/query/wet/bidi"
)

// Shared streams. The same values often label two things: a slice's data
// pointer recorded as a value and the address its p[0] loads at, a loop's
// index and the access it makes, two statements that run together. A
// value word's or an access field's stream whose values are those of an
// earlier one, or those plus a constant (p[1] after p[0]), is written as
// a reference to it (format.go: "2 index delta"), not again.

// A streamRef says that a stream's values are those of the index-th of
// the file's word and field streams (counting references), plus delta.
type streamRef struct {
	index int
	delta uint64
	value bool // the stream is a value word's (for the stats)
}

// wordStreams returns the streams of w's value words and access fields,
// in the order Write writes them, constants left out: the streams a
// reference can name, by index in this order. The first values of them
// are the value words'.
func (w *WET) wordStreams() (out []*bidi.Stream, values int) {
	for _, g := range w.ValueGroups {
		for _, words := range g.Words {
			for _, s := range words {
				if s != nil {
					out = append(out, s)
				}
			}
		}
	}
	values = len(out)
	for i := range w.Accesses {
		for _, f := range w.Accesses[i].fields() {
			if *f != nil {
				out = append(out, *f)
			}
		}
	}
	return out, values
}

// sharedStreams returns, for each of w's wordStreams, a reference to an
// earlier one whose values it repeats, or them plus a constant; nil where
// it repeats none. A reference is always to a stream the file holds.
// Build finds them once and keeps them for Write, with the streams they
// were found for: a WET whose streams changed since has them found again.
// The streams are walked, not decompressed whole: a stream's values may
// not fit in memory.
func (w *WET) sharedStreams() []*streamRef {
	streams, values := w.wordStreams()
	if w.shared != nil && slices.Equal(w.shared.streams, streams) {
		return w.shared.refs
	}
	type stored struct {
		index int
		s     *bidi.Stream
	}
	refs := make([]*streamRef, len(streams))
	keys := make([][2]uint64, len(streams))
	firsts := make([]uint64, len(streams))
	seed := rand.Uint64()
	parallel(len(streams), func(i int) error {
		keys[i][0] = uint64(streams[i].Len())
		firsts[i], keys[i][1] = hashDiffs(seed, streams[i])
		return nil
	})
	byKey := make(map[[2]uint64][]stored) // length, hash of the values less the first
	for i, s := range streams {
		if s.Len() == 0 {
			continue
		}
		found := false
		for _, c := range byKey[keys[i]] {
			if sameShape(c.s, s) {
				refs[i] = &streamRef{index: c.index, delta: firsts[i] - firsts[c.index], value: i < values}
				found = true
				break
			}
		}
		if !found {
			byKey[keys[i]] = append(byKey[keys[i]], stored{i, s})
		}
	}
	w.shared = &sharing{streams: streams, refs: refs}
	return refs
}

// sharing is what sharedStreams found, and for which streams.
type sharing struct {
	streams []*bidi.Stream
	refs    []*streamRef
}

// hashDiffs returns the first value of s and a hash of its values less
// that one, walking a copy of s.
func hashDiffs(seed uint64, s *bidi.Stream) (first, h uint64) {
	c := s.Clone()
	c.Seek(0)
	first, _ = c.Next()
	h = seed
	for v, ok := first, true; ok; v, ok = c.Next() {
		h = (h ^ (v - first)) * 0x9e3779b97f4a7c15
		h ^= h >> 29
	}
	return first, h
}

// sameShape reports whether the values of b are those of a plus a
// constant, walking copies of both.
func sameShape(a, b *bidi.Stream) bool {
	if a.Len() != b.Len() {
		return false
	}
	ca, cb := a.Clone(), b.Clone()
	ca.Seek(0)
	cb.Seek(0)
	x0, _ := ca.Next()
	y0, _ := cb.Next()
	for x, y, ok := x0, y0, true; ok; {
		if y-x != y0-x0 {
			return false
		}
		x, ok = ca.Next()
		y, _ = cb.Next()
	}
	return true
}

// resolve returns a stream of the values of s plus delta, with its own
// cursor.
func resolve(s *bidi.Stream, delta uint64) *bidi.Stream {
	if delta == 0 {
		c := s.Clone()
		c.Seek(0)
		return c
	}
	vals := slices.Clone(s.Values())
	for i := range vals {
		vals[i] += delta
	}
	// The values have the shape of s's: its method suits them.
	c, _ := bidi.Encode(vals, s.Method())
	return c
}

// refBytes is what a reference takes in the file after its tag (which
// the stats do not count for a stream either): its index and delta.
func refBytes(r streamRef) int64 {
	return int64(len(binary.AppendUvarint(nil, uint64(r.index)))) + int64(len(binary.AppendUvarint(nil, r.delta)))
}

// maxSharing bounds the streams a file's references repeat: at most this
// many times the file's size, counted in the bytes of the streams they
// refer to, so that a small file cannot make the reader hold copies of
// one stream out of proportion to it. Build's references repeat a few
// tenths of what they save.
const maxSharing = 16
