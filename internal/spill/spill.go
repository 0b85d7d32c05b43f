package spill

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// A Sorter sorts records of type T, stably: records that compare equal
// come back in the order they were added.
type Sorter[T any] struct {
	compare func(a, b T) int
	codec   Codec[T]
	limit   int
	dir     string
	held    []held[T]
	runs    []run
	buf     []byte
}

// held is a record held in memory, with its place among them: sorting by
// record then place is stable, and as fast as an unstable sort (the
// standard library's stable sort moves each record O(log n) times).
type held[T any] struct {
	rec T
	at  int
}

// sortHeld sorts the records held, stably.
func (s *Sorter[T]) sortHeld() {
	slices.SortFunc(s.held, func(a, b held[T]) int {
		if c := s.compare(a.rec, b.rec); c != 0 {
			return c
		}
		return a.at - b.at
	})
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

// New returns a sorter that orders records by compare, holds at most
// limit of them in memory, and writes its runs in dir (os.TempDir if "").
func New[T any](compare func(a, b T) int, codec Codec[T], limit int, dir string) *Sorter[T] {
	return &Sorter[T]{compare: compare, codec: codec, limit: max(limit, 1), dir: dir}
}

// Add adds a record.
func (s *Sorter[T]) Add(r T) error {
	if len(s.held) >= s.limit {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.held = append(s.held, held[T]{r, len(s.held)})
	return nil
}

// Len returns how many records were added.
func (s *Sorter[T]) Len() int {
	n := len(s.held)
	for _, r := range s.runs {
		n += r.n
	}
	return n
}

// spill sorts the records held and writes them as a run.
func (s *Sorter[T]) spill() error {
	s.sortHeld()
	f, err := os.CreateTemp(s.dir, "pathcover-spill-*")
	if err != nil {
		return fmt.Errorf("spilling sorted records: %w", err)
	}
	r := run{f: f, name: f.Name(), n: len(s.held)}
	if os.Remove(r.name) == nil {
		r.name = "" // gone from the directory, open still
	}
	s.runs = append(s.runs, r)
	w := bufio.NewWriterSize(f, 1<<16)
	if cap(s.buf) < s.codec.Size {
		s.buf = make([]byte, s.codec.Size)
	}
	b := s.buf[:s.codec.Size]
	for _, h := range s.held {
		s.codec.Put(b, h.rec)
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("spilling sorted records: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("spilling sorted records: %w", err)
	}
	s.held = s.held[:0]
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
	r := &Reader[T]{s: s, m: &merge[T]{compare: s.compare}}
	// The merge: each run, and the records held as the last, by their
	// next record; ties go to the earlier run, which holds the records
	// added first.
	for i := range s.runs {
		if _, err := s.runs[i].f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		c := &cursor[T]{run: i, left: s.runs[i].n, r: bufio.NewReaderSize(s.runs[i].f, 1<<16), codec: s.codec, buf: make([]byte, s.codec.Size)}
		if err := c.next(); err != nil {
			return nil, err
		}
		if c.ok {
			r.m.cs = append(r.m.cs, c)
		}
	}
	if len(s.held) > 0 {
		c := &cursor[T]{run: len(s.runs), held: s.held}
		c.next()
		r.m.cs = append(r.m.cs, c)
	}
	heap.Init(r.m)
	return r, nil
}

// A Reader reads a sorter's records in order.
type Reader[T any] struct {
	s    *Sorter[T]
	m    *merge[T]
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
			heap.Fix(r.m, 0)
		} else {
			heap.Pop(r.m)
		}
	}
	if r.m.Len() == 0 {
		return zero, false, nil
	}
	r.last = r.m.cs[0]
	return r.last.rec, true, nil
}

// Close empties the sorter: its files are removed.
func (r *Reader[T]) Close() error { return r.s.Close() }

// Close removes the sorter's files and drops its records.
func (s *Sorter[T]) Close() error {
	var errs []error
	for _, r := range s.runs {
		errs = append(errs, r.f.Close())
		if r.name != "" {
			errs = append(errs, os.Remove(r.name))
		}
	}
	s.runs, s.held = nil, s.held[:0]
	return errors.Join(errs...)
}

// A cursor is the next record of a run, or of the records held.
type cursor[T any] struct {
	run   int
	rec   T
	ok    bool
	left  int
	r     *bufio.Reader
	codec Codec[T]
	buf   []byte
	held  []held[T]
}

func (c *cursor[T]) next() error {
	if c.r == nil {
		c.ok = len(c.held) > 0
		if c.ok {
			c.rec, c.held = c.held[0].rec, c.held[1:]
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
	c.rec = c.codec.Get(c.buf)
	c.left--
	return nil
}

// merge is a heap of cursors by their records, then their runs.
type merge[T any] struct {
	compare func(a, b T) int
	cs      []*cursor[T]
}

func (m *merge[T]) Len() int { return len(m.cs) }
func (m *merge[T]) Less(i, j int) bool {
	if c := m.compare(m.cs[i].rec, m.cs[j].rec); c != 0 {
		return c < 0
	}
	return m.cs[i].run < m.cs[j].run
}
func (m *merge[T]) Swap(i, j int) { m.cs[i], m.cs[j] = m.cs[j], m.cs[i] }
func (m *merge[T]) Push(x any)    { m.cs = append(m.cs, x.(*cursor[T])) }
func (m *merge[T]) Pop() any {
	c := m.cs[len(m.cs)-1]
	m.cs = m.cs[:len(m.cs)-1]
	return c
}
