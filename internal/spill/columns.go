package spill

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
)

// Columns are columns of numbers too long to hold, written to one
// temporary file as they grow: each column holds its last values (a
// chunk) in memory and appends them to the file when the chunk is full,
// so what a column holds is bounded however long it grows. The file is
// a sequence of chunks of any columns, each chunk its values as uvarints
// (encoding/binary), where its column's index finds it:
//
//	file  = chunk*
//	chunk = uvarint^count      the values of one column, in order
//
// A column is read forwards from any value (Read, Reader) and backwards
// (Backward) while it is still written to, so that a reader can stream
// it both ways without holding it. Columns may be appended to and read by
// several goroutines, each column by one at a time.
type Columns struct {
	mu   sync.Mutex // guards what follows: the file's writing
	dir  string
	f    *os.File
	name string // "" once removed
	w    *bufio.Writer
	// off is the file's size with what w holds; synced, what is on the
	// file.
	off, synced int64
	err         error
	scratch     []byte
}

func (cs *Columns) setErr(err error) error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.err == nil {
		cs.err = err
	}
	return cs.err
}

// chunkMin and chunkMax bound a column's chunk: a column starts with
// small chunks, so that many short columns hold little, and doubles its
// chunk at each write up to chunkMax values, so that a long one writes
// few chunks (its index is about 1/1000 of its values).
const (
	chunkMin = 64
	chunkMax = 4096
)

// NewColumns returns an empty store whose file is made in dir
// (os.TempDir if "") when the first chunk is written.
func NewColumns(dir string) *Columns { return &Columns{dir: dir} }

// A Column is a sequence of numbers in a Columns.
type Column struct {
	cs     *Columns
	chunks []chunk
	held   []uint64 // the values after the last chunk
	n      int
}

// A chunk is a run of a column's values in the file: at byte off, size
// bytes, the values from start on.
type chunk struct {
	off   int64
	start int
	size  int32
	count int32
}

// New returns an empty column.
func (cs *Columns) New() *Column { return &Column{cs: cs} }

// Append appends v to the column. An error writing the file is kept and
// returned by Err (and by every read).
func (c *Column) Append(v uint64) {
	if len(c.held) == cap(c.held) && len(c.held) > 0 {
		c.write()
	}
	if c.held == nil {
		c.held = make([]uint64, 0, chunkMin)
	}
	c.held = append(c.held, v)
	c.n++
}

// Len returns the number of values.
func (c *Column) Len() int { return c.n }

// write appends the held values to the file as a chunk.
func (c *Column) write() {
	cs := c.cs
	cs.mu.Lock()
	defer cs.mu.Unlock()
	b := cs.scratch[:0]
	for _, v := range c.held {
		b = binary.AppendUvarint(b, v)
	}
	cs.scratch = b
	if cs.err == nil && cs.f == nil {
		f, err := os.CreateTemp(cs.dir, "pathcover-columns-*")
		if err != nil {
			cs.err = fmt.Errorf("spilling columns: %w", err)
		} else {
			cs.f, cs.name, cs.w = f, f.Name(), bufio.NewWriterSize(f, 1<<20)
			if os.Remove(cs.name) == nil {
				cs.name = "" // gone from the directory, open still
			}
		}
	}
	if cs.err == nil {
		if _, err := cs.w.Write(b); err != nil {
			cs.err = fmt.Errorf("spilling columns: %w", err)
		}
	}
	c.chunks = append(c.chunks, chunk{off: cs.off, start: c.n - len(c.held), size: int32(len(b)), count: int32(len(c.held))})
	cs.off += int64(len(b))
	next := min(2*cap(c.held), chunkMax)
	if cap(c.held) < next {
		c.held = make([]uint64, 0, next)
	} else {
		c.held = c.held[:0]
	}
}

// Err returns the first error writing or reading the column's store's
// file.
func (c *Column) Err() error { return c.cs.Err() }

// Err returns the first error writing or reading the store's file.
func (cs *Columns) Err() error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.err
}

// sync writes what the store's writer holds up to byte end to the file.
func (cs *Columns) sync(end int64) (*os.File, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.err != nil {
		return nil, cs.err
	}
	if end > cs.synced {
		if err := cs.w.Flush(); err != nil {
			cs.err = fmt.Errorf("spilling columns: %w", err)
			return nil, cs.err
		}
		cs.synced = cs.off
	}
	return cs.f, nil
}

// readChunk decodes chunk k of c into buf, which it returns, reading its
// bytes into raw (grown if short).
func (c *Column) readChunk(k int, buf []uint64, raw *[]byte) ([]uint64, error) {
	ch := c.chunks[k]
	f, err := c.cs.sync(ch.off + int64(ch.size))
	if err != nil {
		return nil, err
	}
	if cap(*raw) < int(ch.size) {
		*raw = make([]byte, ch.size)
	}
	b := (*raw)[:ch.size]
	if _, err := f.ReadAt(b, ch.off); err != nil {
		return nil, c.cs.setErr(fmt.Errorf("reading spilled columns: %w", err))
	}
	buf = buf[:0]
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		buf = append(buf, v)
		b = b[n:]
	}
	if len(b) > 0 || len(buf) != int(ch.count) {
		return nil, c.cs.setErr(errors.New("reading spilled columns: a chunk does not decode"))
	}
	return buf, nil
}

// chunkOf returns the chunk holding value i, len(c.chunks) for the held
// values.
func (c *Column) chunkOf(i int) int {
	return sort.Search(len(c.chunks), func(k int) bool { return c.chunks[k].start+int(c.chunks[k].count) > i })
}

// Read fills buf with the values from i on (as many as buf holds, fewer
// at the end) and returns how many.
func (c *Column) Read(i int, buf []uint64) (int, error) {
	done := 0
	var tmp []uint64
	var raw []byte
	for done < len(buf) && i+done < c.n {
		at := i + done
		k := c.chunkOf(at)
		var vals []uint64
		start := c.n - len(c.held)
		if k < len(c.chunks) {
			var err error
			if tmp, err = c.readChunk(k, tmp, &raw); err != nil {
				return done, err
			}
			vals, start = tmp, c.chunks[k].start
		} else {
			vals = c.held
		}
		done += copy(buf[done:], vals[at-start:])
	}
	return done, nil
}

// Reader returns a reader of the column's values in order, from the
// first.
func (c *Column) Reader() *ColumnReader { return &ColumnReader{c: c} }

// A ColumnReader reads a column's values in order.
type ColumnReader struct {
	c     *Column
	k     int // the next chunk
	vals  []uint64
	i     int
	buf   []uint64
	raw   []byte
	ended bool
}

// Next returns the next value; false at the end, or on an error (the
// store's Err).
func (r *ColumnReader) Next() (uint64, bool) {
	for r.i >= len(r.vals) {
		if r.ended {
			return 0, false
		}
		r.i = 0
		if r.k < len(r.c.chunks) {
			var err error
			if r.buf, err = r.c.readChunk(r.k, r.buf, &r.raw); err != nil {
				r.ended, r.vals = true, nil
				return 0, false
			}
			r.vals = r.buf
			r.k++
			continue
		}
		r.vals, r.ended = r.c.held, true
	}
	v := r.vals[r.i]
	r.i++
	return v, true
}

// Backward calls yield with the values from the last to the first, until
// it returns false. It returns the store's error, if reading failed.
func (c *Column) Backward(yield func(uint64) bool) error {
	for i := len(c.held) - 1; i >= 0; i-- {
		if !yield(c.held[i]) {
			return nil
		}
	}
	var buf []uint64
	var raw []byte
	for k := len(c.chunks) - 1; k >= 0; k-- {
		var err error
		if buf, err = c.readChunk(k, buf, &raw); err != nil {
			return err
		}
		for i := len(buf) - 1; i >= 0; i-- {
			if !yield(buf[i]) {
				return nil
			}
		}
	}
	return nil
}

// Close removes the store's file.
func (cs *Columns) Close() error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.f == nil {
		return nil
	}
	err := cs.f.Close()
	if cs.name != "" {
		err = errors.Join(err, os.Remove(cs.name))
	}
	cs.f = nil
	return err
}
