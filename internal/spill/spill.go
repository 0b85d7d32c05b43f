package spill

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
)

// A Sorter sorts records of type T by a uint64 key, stably: records of
// the same key come back in the order they were added.
type Sorter[T any] struct {
	key   func(T) uint64
	codec Codec[T]
	limit int
	dir   string
	// recs are the records held, keys their keys and places, sorted when
	// a run is written (radix: linear, and stable).
	recs     []T
	keys     []keyAt
	scratch  []keyAt
	runs     []run
	buf      []byte
	unsorted bool
}

// keyAt is a record's key and its place in Sorter.recs.
type keyAt struct {
	key uint64
	at  uint32
}

// A Codec writes a record into Size bytes and reads it back.
type Codec[T any] struct {
	Size int
	Put  func(b []byte, r T)
	Get  func(b []byte) T
}

// run is a sorted run written to a file.
type run struct {
	f    *os.File
	name string // "" once removed
	n    int    // records
}

// New returns a sorter that orders records by key, holds at most limit
// of them in memory, and writes its runs in dir (os.TempDir if "").
func New[T any](key func(T) uint64, codec Codec[T], limit int, dir string) *Sorter[T] {
	return &Sorter[T]{key: key, codec: codec, limit: min(max(limit, 1), 1<<32-1), dir: dir}
}

// Add adds a record.
func (s *Sorter[T]) Add(r T) error {
	if len(s.recs) >= s.limit {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.keys = append(s.keys, keyAt{s.key(r), uint32(len(s.recs))})
	s.recs = append(s.recs, r)
	s.unsorted = true
	return nil
}

// Len returns how many records were added.
func (s *Sorter[T]) Len() int {
	n := len(s.recs)
	for _, r := range s.runs {
		n += r.n
	}
	return n
}

// sortHeld sorts the keys of the records held: an LSD radix sort a byte
// at a time, skipping the bytes all keys share, so stable.
func (s *Sorter[T]) sortHeld() {
	if !s.unsorted {
		return
	}
	s.unsorted = false
	var counts [8][256]int
	for _, k := range s.keys {
		for d := range 8 {
			counts[d][byte(k.key>>(8*d))]++
		}
	}
	if cap(s.scratch) < len(s.keys) {
		s.scratch = make([]keyAt, len(s.keys))
	}
	from, to := s.keys, s.scratch[:len(s.keys)]
	for d := range 8 {
		if counts[d][byte(from[0].key>>(8*d))] == len(from) {
			continue // every key has this byte
		}
		var at [256]int
		sum := 0
		for b := range 256 {
			at[b], sum = sum, sum+counts[d][b]
		}
		for _, k := range from {
			b := byte(k.key >> (8 * d))
			to[at[b]] = k
			at[b]++
		}
		from, to = to, from
	}
	s.keys, s.scratch = from, to
}

// spill sorts the records held and writes them as a run.
func (s *Sorter[T]) spill() error {
	s.sortHeld()
	f, err := os.CreateTemp(s.dir, "pathcover-spill-*")
	if err != nil {
		return fmt.Errorf("spilling sorted records: %w", err)
	}
	r := run{f: f, name: f.Name(), n: len(s.recs)}
	if os.Remove(r.name) == nil {
		r.name = "" // gone from the directory, open still
	}
	s.runs = append(s.runs, r)
	w := bufio.NewWriterSize(f, 1<<16)
	if cap(s.buf) < s.codec.Size {
		s.buf = make([]byte, s.codec.Size)
	}
	b := s.buf[:s.codec.Size]
	for _, k := range s.keys {
		s.codec.Put(b, s.recs[k.at])
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("spilling sorted records: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("spilling sorted records: %w", err)
	}
	s.recs, s.keys = s.recs[:0], s.keys[:0]
	return nil
}

// Each calls fn with every record added, in order, until fn returns an
// error, which Each returns. It empties the sorter, which can be added to
// again.
func (s *Sorter[T]) Each(fn func(T) error) error {
	r, err := s.Records()
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		rec, ok, err := r.Next()
		if err != nil || !ok {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// Records returns a reader of every record added, in order. The sorter
// is empty once the reader is closed, and can be added to again; nothing
// may be added before.
func (s *Sorter[T]) Records() (*Reader[T], error) {
	s.sortHeld()
	r := &Reader[T]{s: s}
	// The merge: each run, and the records held as the last, by their
	// next record's key; ties go to the earlier run, which holds the
	// records added first.
	for i := range s.runs {
		if _, err := s.runs[i].f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		c := &cursor[T]{run: i, left: s.runs[i].n, r: bufio.NewReaderSize(s.runs[i].f, 1<<16), s: s, buf: make([]byte, s.codec.Size)}
		if err := c.next(); err != nil {
			return nil, err
		}
		if c.ok {
			r.m = append(r.m, c)
		}
	}
	if len(s.recs) > 0 {
		c := &cursor[T]{run: len(s.runs), s: s, held: s.keys}
		c.next()
		r.m = append(r.m, c)
	}
	heap.Init(&r.m)
	return r, nil
}

// A Reader reads a sorter's records in order.
type Reader[T any] struct {
	s    *Sorter[T]
	m    merge[T]
	last *cursor[T] // whose record Next gave last, to advance
}

// Next returns the next record, false after the last.
func (r *Reader[T]) Next() (T, bool, error) {
	var zero T
	if c := r.last; c != nil {
		r.last = nil
		if err := c.next(); err != nil {
			return zero, false, err
		}
		if c.ok {
			heap.Fix(&r.m, 0)
		} else {
			heap.Pop(&r.m)
		}
	}
	if len(r.m) == 0 {
		return zero, false, nil
	}
	r.last = r.m[0]
	return r.last.rec, true, nil
}

// Close empties the sorter: its files are removed.
func (r *Reader[T]) Close() error { return r.s.Close() }

// Close removes the sorter's files and drops its records, and the memory
// that held them: a sorter reused for the next goroutine or process must
// not keep its largest one's buffers while others sort.
func (s *Sorter[T]) Close() error {
	var errs []error
	for _, r := range s.runs {
		errs = append(errs, r.f.Close())
		if r.name != "" {
			errs = append(errs, os.Remove(r.name))
		}
	}
	s.runs, s.recs, s.keys, s.scratch, s.unsorted = nil, nil, nil, nil, false
	return errors.Join(errs...)
}

// A cursor is the next record of a run, or of the records held, and its
// key.
type cursor[T any] struct {
	run  int
	rec  T
	key  uint64
	ok   bool
	left int
	r    *bufio.Reader
	s    *Sorter[T]
	buf  []byte
	held []keyAt
}

func (c *cursor[T]) next() error {
	if c.r == nil {
		c.ok = len(c.held) > 0
		if c.ok {
			c.key, c.rec, c.held = c.held[0].key, c.s.recs[c.held[0].at], c.held[1:]
		}
		return nil
	}
	c.ok = c.left > 0
	if !c.ok {
		return nil
	}
	if _, err := io.ReadFull(c.r, c.buf); err != nil {
		return fmt.Errorf("reading back sorted records: %w", err)
	}
	c.rec = c.s.codec.Get(c.buf)
	c.key = c.s.key(c.rec)
	c.left--
	return nil
}

// merge is a heap of cursors by their keys, then their runs.
type merge[T any] []*cursor[T]

func (m merge[T]) Len() int { return len(m) }
func (m merge[T]) Less(i, j int) bool {
	if m[i].key != m[j].key {
		return m[i].key < m[j].key
	}
	return m[i].run < m[j].run
}
func (m merge[T]) Swap(i, j int) { m[i], m[j] = m[j], m[i] }
func (m *merge[T]) Push(x any)   { *m = append(*m, x.(*cursor[T])) }
func (m *merge[T]) Pop() any {
	c := (*m)[len(*m)-1]
	*m = (*m)[:len(*m)-1]
	return c
}
