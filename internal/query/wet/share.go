package wet

import (
	"encoding/binary"
	"hash/maphash"
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
func (w *WET) sharedStreams() []*streamRef {
	type stored struct {
		index int
		s     *bidi.Stream
	}
	streams, values := w.wordStreams()
	refs := make([]*streamRef, len(streams))
	seed := maphash.MakeSeed()
	byKey := make(map[[2]uint64][]stored) // length, hash of the values less the first
	for i, s := range streams {
		vals := s.Values()
		if len(vals) == 0 {
			continue
		}
		k := [2]uint64{uint64(len(vals)), hashDiffs(seed, vals)}
		found := false
		for _, c := range byKey[k] {
			if cv := c.s.Values(); sameShape(cv, vals) {
				refs[i] = &streamRef{index: c.index, delta: vals[0] - cv[0], value: i < values}
				found = true
				break
			}
		}
		if !found {
			byKey[k] = append(byKey[k], stored{i, s})
		}
	}
	return refs
}

// hashDiffs hashes vals less vals[0].
func hashDiffs(seed maphash.Seed, vals []uint64) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var b [8]byte
	for _, v := range vals {
		binary.LittleEndian.PutUint64(b[:], v-vals[0])
		h.Write(b[:])
	}
	return h.Sum64()
}

// sameShape reports whether b is a plus a constant.
func sameShape(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	d := b[0] - a[0]
	for i := range a {
		if b[i] != a[i]+d {
			return false
		}
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
