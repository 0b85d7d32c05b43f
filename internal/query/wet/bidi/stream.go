package bidi

import (
	"fmt"
	"math/bits"
	"slices"
)

// A Stream is a compressed sequence of values with a cursor that steps
// both ways (doc.go). Its zero value is an empty stream.
type Stream struct {
	method Method
	n, pos int
	// win holds v[pos..pos+W), zero past the end.
	win         []uint64
	left, right bitStack
	// lc pushes values on the left stack, predicted from their right
	// context; rc on the right stack, from their left context.
	lc, rc coder
	ctx    []uint64 // scratch: a context, nearest first
}

// newStream returns an empty stream of method m with its coders, cursor
// at 0.
func newStream(m Method, n int) *Stream {
	w := m.window()
	return &Stream{method: m, n: n, win: make([]uint64, w), lc: m.coder(), rc: m.coder(), ctx: make([]uint64, w)}
}

// Encode compresses vals with method m, cursor at 0.
func Encode(vals []uint64, m Method) (*Stream, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	s := newStream(m, len(vals))
	copy(s.win, vals)
	w := len(s.win)
	for j := len(vals) - 1; j >= w; j-- {
		s.rc.push(&s.right, vals[j], s.leftContext(vals[j-w:j]))
	}
	return s, nil
}

// leftContext returns the values before a value, in order, as its
// context: nearest first.
func (s *Stream) leftContext(before []uint64) []uint64 {
	for k := range s.ctx {
		s.ctx[k] = before[len(before)-1-k]
	}
	return s.ctx
}

// Method returns the stream's method.
func (s *Stream) Method() Method { return s.method }

// Len returns the number of values.
func (s *Stream) Len() int { return s.n }

// Pos returns the cursor: Next gives the value at Pos, Prev the one
// before it.
func (s *Stream) Pos() int { return s.pos }

// Next returns the value at the cursor and moves the cursor past it; false
// at the end.
func (s *Stream) Next() (uint64, bool) {
	if s.pos >= s.n {
		return 0, false
	}
	w := len(s.win)
	v := s.win[0]
	var in uint64 // what enters the window on the right: v[pos+W], or zero past the end
	if s.pos+w < s.n {
		var ok bool
		if in, ok = s.rc.pop(&s.right, s.leftContext(s.win)); !ok {
			panic("bidi: corrupt stream") // Parse and Encode make none
		}
	}
	copy(s.win, s.win[1:])
	s.win[w-1] = in
	s.lc.push(&s.left, v, s.win)
	s.pos++
	return v, true
}

// Prev moves the cursor back one value and returns it; false at the
// start.
func (s *Stream) Prev() (uint64, bool) {
	if s.pos == 0 {
		return 0, false
	}
	w := len(s.win)
	v, ok := s.lc.pop(&s.left, s.win)
	if !ok {
		panic("bidi: corrupt stream")
	}
	out := s.win[w-1]
	copy(s.win[1:], s.win[:w-1])
	s.win[0] = v
	s.pos--
	if s.pos+w < s.n {
		s.rc.push(&s.right, out, s.leftContext(s.win))
	}
	return v, true
}

// Seek moves the cursor to position i (0 ≤ i ≤ Len), stepping there.
func (s *Stream) Seek(i int) {
	i = max(0, min(i, s.n))
	for s.pos < i {
		s.Next()
	}
	for s.pos > i {
		s.Prev()
	}
}

// Bits returns the stream's size at its cursor: the two stacks, the
// window's values, and the tables' entries in use, each an index and a
// value.
func (s *Stream) Bits() int {
	b := s.left.n + s.right.n
	for _, v := range s.win {
		b += bits.Len64(v) + 7
	}
	for _, c := range []coder{s.lc, s.rc} {
		if t, ok := c.(*tableCoder); ok {
			for _, e := range t.table {
				if e != 0 {
					b += 64 - int(t.shift) + bits.Len64(e) + 7
				}
			}
		}
	}
	return b
}

// Options say how Compress chooses a method.
type Options struct {
	// Candidates are the methods tried; nil for DefaultCandidates.
	Candidates []Method
	// WarmUp is how many of a stream's values each candidate compresses
	// (a sample: Compress); 0 for 4096.
	WarmUp int
	// Finalists is how many of the candidates that did best on the sample
	// compress the whole stream, the smallest kept; 0 for 3.
	Finalists int
}

// DefaultCandidates returns the paper's four predictors and FCM2 and
// DFCM2, with three context sizes each, Runs of both orders, and Raw, for
// a stream of n values:
// the tables are sized to the stream, from 2^4 to 2^12 contexts.
func DefaultCandidates(n int) []Method {
	tb := min(max(bits.Len(uint(n)), 4), 12)
	ms := []Method{{Kind: Raw}}
	for _, k := range []Kind{FCM, DFCM, FCM2, DFCM2} {
		for _, o := range []int{1, 2, 3} {
			ms = append(ms, Method{Kind: k, Order: o, TableBits: tb})
		}
	}
	for _, k := range []Kind{LastN, LastNStride} {
		for _, o := range []int{1, 2, 4} {
			ms = append(ms, Method{Kind: k, Order: o})
		}
	}
	ms = append(ms, Method{Kind: Runs, Order: 1}, Method{Kind: Runs, Order: 2})
	return ms
}

// Compress compresses vals with the candidate that takes the fewest bits.
// Each candidate compresses a sample of WarmUp values (all of them if
// there are no more: then the best is kept), a quarter of WarmUp from each
// of four places evenly spaced from the start, since a stream's start
// alone can mislead (a trace that begins with a long loop); the Finalists
// that take the fewest bits for it compress the whole stream, and the
// smallest is kept (the first of those that tie).
func Compress(vals []uint64, opt *Options) *Stream {
	s, _ := CompressSource(Values(vals), opt)
	return s
}

// A Source is a sequence of values that need not be in memory (a column
// spilled to disk): CompressSource reads a sample of it at four places,
// and each finalist's encoding reads it whole from the last value to the
// first, as Encode pushes them.
type Source interface {
	Len() int
	// Read fills buf with the values from i on and returns how many (fewer
	// than len(buf) only at the end).
	Read(i int, buf []uint64) (int, error)
	// Backward calls yield with the values from the last to the first,
	// until it returns false.
	Backward(yield func(uint64) bool) error
}

// Values are values in memory as a Source.
type Values []uint64

func (v Values) Len() int { return len(v) }

func (v Values) Read(i int, buf []uint64) (int, error) { return copy(buf, v[min(i, len(v)):]), nil }

func (v Values) Backward(yield func(uint64) bool) error {
	for i := len(v) - 1; i >= 0 && yield(v[i]); i-- {
	}
	return nil
}

// CompressSource is Compress of a Source: the same stream, read as it
// needs it, so that what it holds is the sample and the finalists'
// streams, not the values.
func CompressSource(src Source, opt *Options) (*Stream, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	n := src.Len()
	if o.Candidates == nil {
		o.Candidates = DefaultCandidates(n)
	}
	if o.WarmUp <= 0 {
		o.WarmUp = 4096
	}
	if o.Finalists <= 0 {
		o.Finalists = 3
	}
	head, err := sample(src, o.WarmUp)
	if err != nil {
		return nil, err
	}
	type tried struct {
		s    *Stream
		bits int
	}
	var ranked []tried
	for _, m := range o.Candidates {
		s, err := Encode(head, m)
		if err != nil {
			continue
		}
		ranked = append(ranked, tried{s, s.Bits()})
	}
	if len(ranked) == 0 {
		s, _ := Encode(head, Method{Kind: Raw})
		ranked = append(ranked, tried{s, 0})
	}
	slices.SortStableFunc(ranked, func(a, b tried) int { return a.bits - b.bits })
	if len(head) == n {
		return ranked[0].s, nil // the sample is the stream
	}
	var methods []Method
	for _, t := range ranked[:min(o.Finalists, len(ranked))] {
		methods = append(methods, t.s.method)
	}
	finals, err := encodeSource(src, methods)
	if err != nil {
		return nil, err
	}
	var best *Stream
	bestBits := 0
	for _, s := range finals {
		if b := s.Bits(); best == nil || b < bestBits {
			best, bestBits = s, b
		}
	}
	return best, nil
}

// EncodeSource is Encode of a Source: the values are pushed on the right
// stack from the last, each once the W values before it (its context)
// have been read, and the first W are the window.
func EncodeSource(src Source, m Method) (*Stream, error) {
	s, err := encodeSource(src, []Method{m})
	if err != nil {
		return nil, err
	}
	return s[0], nil
}

// encodeSource encodes src with each method, reading it once.
func encodeSource(src Source, methods []Method) ([]*Stream, error) {
	out := make([]*Stream, len(methods))
	if vals, ok := src.(Values); ok {
		for i, m := range methods {
			var err error
			if out[i], err = Encode(vals, m); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	n := src.Len()
	// q[i] holds the last values read for method i, latest last: v[j]
	// v[j-1] … v[j-W] once full, when v[j] is pushed with its context
	// v[j-1] … v[j-W].
	q := make([][]uint64, len(methods))
	for i, m := range methods {
		if err := m.check(); err != nil {
			return nil, err
		}
		out[i] = newStream(m, n)
		q[i] = make([]uint64, 0, len(out[i].win)+1)
	}
	read := 0
	err := src.Backward(func(v uint64) bool {
		read++
		for i, s := range out {
			qi := append(q[i], v)
			if w := len(s.win); len(qi) == w+1 {
				s.rc.push(&s.right, qi[0], qi[1:])
				copy(qi, qi[1:])
				qi = qi[:w]
			}
			q[i] = qi
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if read != n {
		return nil, fmt.Errorf("bidi: a source of %d values gave %d", n, read)
	}
	for i, s := range out {
		for k := range q[i] {
			s.win[k] = q[i][len(q[i])-1-k]
		}
	}
	return out, nil
}

// samplePlaces is how many places of a stream Compress samples.
const samplePlaces = 4

// sample returns src's values if it holds at most n, else n of them from
// samplePlaces evenly spaced places.
func sample(src Source, n int) ([]uint64, error) {
	if vals, ok := src.(Values); ok && len(vals) <= n {
		return vals, nil
	}
	if src.Len() <= n {
		out := make([]uint64, src.Len())
		_, err := src.Read(0, out)
		return out, err
	}
	chunk := max(n/samplePlaces, 1)
	out := make([]uint64, samplePlaces*chunk)
	for k := range samplePlaces {
		at := k * (src.Len() - chunk) / (samplePlaces - 1)
		if _, err := src.Read(at, out[k*chunk:(k+1)*chunk]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Values returns all the values, leaving the cursor where it was.
func (s *Stream) Values() []uint64 {
	at := s.pos
	s.Seek(0)
	out := make([]uint64, 0, s.n)
	for {
		v, ok := s.Next()
		if !ok {
			break
		}
		out = append(out, v)
	}
	s.Seek(at)
	return slices.Clip(out)
}

// Clone returns a copy of s with its own cursor, which walks apart from
// s's.
func (s *Stream) Clone() *Stream {
	c := *s
	c.win = slices.Clone(s.win)
	c.ctx = make([]uint64, len(s.ctx))
	c.left = bitStack{w: slices.Clone(s.left.w), n: s.left.n}
	c.right = bitStack{w: slices.Clone(s.right.w), n: s.right.n}
	c.lc, c.rc = cloneCoder(s.lc), cloneCoder(s.rc)
	return &c
}

func cloneCoder(c coder) coder {
	if t, ok := c.(*tableCoder); ok {
		u := *t
		u.table = slices.Clone(t.table)
		return &u
	}
	return c
}
