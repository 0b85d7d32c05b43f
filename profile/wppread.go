package profile

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"slices"
	"time"
)

// A WPPFile is a WPP file opened for reading: its header, its packages and
// the chunks of each goroutine, indexed; events are decoded as they are
// read (Events), one chunk in memory at a time.
type WPPFile struct {
	Name   string
	Header WPPHeader
	// Packages maps package numbers to metadata hashes (hex).
	Packages map[uint32]string
	// Tests are the tests the process started while it recorded, in the
	// order they started (test chunks).
	Tests  []WPPTest
	r      io.ReaderAt
	order  binary.ByteOrder
	chunks map[uint64][]wppChunk // by goroutine, in offset order
	// streamBytes is the size of all the goroutines' chunks.
	streamBytes int64
	closer      io.Closer
}

type wppChunk struct {
	off  int64 // of the payload
	size int   // of the payload: its records, then zeros
}

// MaxWPPSize is the largest WPP file read: rt stops a recording at 1 GiB
// unless PATHCOVERWPPMAX says otherwise, and no recording a 24 GB machine
// can slice comes near 64 GiB.
const MaxWPPSize = 64 << 30

// OpenWPP opens a WPP file and indexes it. The caller closes it.
func OpenWPP(name string) (*WPPFile, error) {
	f, st, err := OpenFile(name, "whole-program-path file", MaxWPPSize)
	if err != nil {
		return nil, err
	}
	if err := RefuseHoles(f, "whole-program-path file", st.Size()); err != nil {
		f.Close()
		return nil, err
	}
	w, err := ParseWPP(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	w.Name, w.closer = name, f
	return w, nil
}

// parseWPPHeader parses the header unit of a WPP file.
func parseWPPHeader(hdr []byte) (binary.ByteOrder, WPPHeader, error) {
	var order binary.ByteOrder
	switch magic := string(hdr[:8]); {
	case magic == wppMagic, magic == wppMagicV3:
	case magic[:7] == wppMagic[:7]:
		return nil, WPPHeader{}, fmt.Errorf("a WPP file of version %q, not %q: written by another version of pathcover; record it again with this pathcover's pppexec", magic[7:], wppMagic[7:])
	default:
		return nil, WPPHeader{}, fmt.Errorf("not a WPP file")
	}
	switch {
	case binary.LittleEndian.Uint64(hdr[8:]) == byteOrderMark:
		order = binary.LittleEndian
	case binary.BigEndian.Uint64(hdr[8:]) == byteOrderMark:
		order = binary.BigEndian
	default:
		return nil, WPPHeader{}, fmt.Errorf("bad byte order mark")
	}
	flags, errno := order.Uint32(hdr[24:]), order.Uint32(hdr[28:])
	if flags&^(WPPLimitReached|WPPWriteFailed|WPPEnded) != 0 {
		return nil, WPPHeader{}, fmt.Errorf("unknown flags %#x", flags)
	}
	if errno != 0 && flags&WPPWriteFailed == 0 {
		return nil, WPPHeader{}, fmt.Errorf("the errno %d of a write that did not fail", errno)
	}
	h := WPPHeader{
		Limit:        order.Uint64(hdr[16:]),
		LimitReached: flags&WPPLimitReached != 0,
		WriteFailed:  flags&WPPWriteFailed != 0,
		WriteErrno:   errno,
		Ended:        flags&WPPEnded != 0,
		Start:        time.Unix(0, int64(order.Uint64(hdr[32:]))),
		PID:          order.Uint64(hdr[40:]),
	}
	return order, h, nil
}

// ReadWPPHeader reads the header of WPP file name alone: what a process
// still recording has said so far of its end (WPPHeader.Ended), without
// indexing its chunks.
func ReadWPPHeader(name string) (WPPHeader, error) {
	f, st, err := OpenFile(name, "whole-program-path file", MaxWPPSize)
	if err != nil {
		return WPPHeader{}, err
	}
	defer f.Close()
	_, h, err := readWPPHeader(f, st.Size())
	if err != nil {
		return WPPHeader{}, fmt.Errorf("%s: %v", name, err)
	}
	return h, nil
}

// readWPPHeader reads and parses the header unit of a WPP file of size
// bytes read through r.
func readWPPHeader(r io.ReaderAt, size int64) (binary.ByteOrder, WPPHeader, error) {
	if size < WPPUnit {
		return nil, WPPHeader{}, fmt.Errorf("not a WPP file: %d bytes", size)
	}
	var hdr [WPPUnit]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return nil, WPPHeader{}, err
	}
	return parseWPPHeader(hdr[:])
}

// Close closes the file.
func (w *WPPFile) Close() error {
	if w.closer != nil {
		return w.closer.Close()
	}
	return nil
}

// ParseWPP indexes a WPP file of size bytes read through r.
func ParseWPP(r io.ReaderAt, size int64) (*WPPFile, error) {
	w := &WPPFile{r: r, Packages: make(map[uint32]string), chunks: make(map[uint64][]wppChunk)}
	var err error
	if w.order, w.Header, err = readWPPHeader(r, size); err != nil {
		return nil, err
	}
	var ch [WPPChunkHeader + 16]byte
	for off := int64(WPPUnit); off+WPPUnit <= size; {
		if _, err := r.ReadAt(ch[:], off); err != nil {
			return nil, fmt.Errorf("offset %d: %v", off, err)
		}
		if string(ch[:4]) != "wppc" {
			off += WPPUnit // a unit never written
			continue
		}
		kind, csize, id := ch[4], int64(w.order.Uint32(ch[8:])), w.order.Uint64(ch[16:])
		switch {
		case csize < WPPUnit || csize%WPPUnit != 0 || csize > WPPMaxChunk:
			return nil, fmt.Errorf("offset %d: chunk of %d bytes", off, csize)
		case off+csize > size:
			return nil, fmt.Errorf("offset %d: chunk of %d bytes runs past the end of the file", off, csize)
		}
		switch kind {
		case 1:
			w.chunks[id] = append(w.chunks[id], wppChunk{off + WPPChunkHeader, int(csize) - WPPChunkHeader})
			w.streamBytes += csize - WPPChunkHeader
		case 2:
			if id == 0 || id > 1<<32-1 {
				return nil, fmt.Errorf("offset %d: bad package chunk", off)
			}
			if _, dup := w.Packages[uint32(id)]; dup {
				return nil, fmt.Errorf("offset %d: package %d named twice", off, id)
			}
			w.Packages[uint32(id)] = hex.EncodeToString(ch[WPPChunkHeader : WPPChunkHeader+16])
		case 3:
			t, ended, err := readWPPTest(r, off, csize, id, w.order)
			if err == nil {
				err = w.addTest(t, ended)
			}
			if err != nil {
				return nil, fmt.Errorf("offset %d: test chunk: %v", off, err)
			}
		default:
			return nil, fmt.Errorf("offset %d: chunk of unknown kind %d", off, kind)
		}
		off += csize
	}
	return w, nil
}

// A WPPTest is a test that a recording saw start: the goroutine that ran
// it, its name and its parent test's ("" for a top-level test), and
// whether its end was recorded too (then its goroutine's events up to it
// are whole).
type WPPTest struct {
	Goroutine    uint64
	Name, Parent string
	Ended        bool
}

// addTest adds a test's start, or marks its end.
func (w *WPPFile) addTest(t WPPTest, ended bool) error {
	if !ended {
		w.Tests = append(w.Tests, t)
		return nil
	}
	for i := len(w.Tests) - 1; i >= 0; i-- {
		if u := &w.Tests[i]; u.Goroutine == t.Goroutine && u.Name == t.Name && !u.Ended {
			u.Ended = true
			return nil
		}
	}
	return fmt.Errorf("the end of test %q on goroutine %d, which did not start", t.Name, t.Goroutine)
}

// readWPPTest reads the test chunk of csize bytes at off, of goroutine
// goid: a test's start, or its end.
func readWPPTest(r io.ReaderAt, off, csize int64, goid uint64, order binary.ByteOrder) (t WPPTest, ended bool, err error) {
	b := make([]byte, csize-WPPChunkHeader)
	if _, err := r.ReadAt(b, off+WPPChunkHeader); err != nil {
		return t, false, err
	}
	if goid == 0 || len(b) < 5 {
		return t, false, fmt.Errorf("no goroutine or no payload")
	}
	sum, rest := order.Uint32(b), b[4:]
	event := rest[0]
	if event != 1 && event != 2 {
		return t, false, fmt.Errorf("unknown event %d", event)
	}
	var names [2]string
	at := 1
	for i := range names {
		n, k := binary.Uvarint(rest[at:])
		if k <= 0 || n > uint64(len(rest)-at-k) {
			return t, false, fmt.Errorf("a name runs past the chunk")
		}
		at += k
		name := rest[at : at+int(n)]
		at += int(n)
		if err := checkTestsText("test name", name); err != nil {
			return t, false, err
		}
		names[i] = string(name)
	}
	var id [8]byte
	order.PutUint64(id[:], goid)
	if crc32.Update(Checksum(id[:]), castagnoli, rest[:at]) != sum {
		return t, false, fmt.Errorf("checksum mismatch")
	}
	if names[0] == "" || event == 2 && names[1] != "" {
		return t, false, fmt.Errorf("a test with no name, or an end with a parent")
	}
	return WPPTest{Goroutine: goid, Name: names[0], Parent: names[1]}, event == 2, nil
}

// Goroutines returns the ids of the goroutines that recorded events, in
// increasing order.
func (w *WPPFile) Goroutines() []uint64 {
	var ids []uint64
	for id := range w.chunks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Events calls fn with each event of goroutine g, in order, as Records
// does, each event fn's own.
func (w *WPPFile) Events(g uint64, fn func(WPPEvent) error) error {
	return w.Records(g, func(e *WPPEvent) error { return fn(*e) })
}

// Records calls fn with each event of goroutine g, in order: a
// path-and-return record as its path, then its return. The event is
// valid only until fn returns (Records decodes each record into the same
// event: a suite's recording holds hundreds of millions, and copies of
// them cost more than their decoding). A record is never split between
// chunks (rt takes a new chunk when the next record might not fit), so
// each chunk decodes on its own, up to its first zero byte where a
// record would begin; a malformed record is an error naming the
// goroutine and the offset.
func (w *WPPFile) Records(g uint64, fn func(*WPPEvent) error) error {
	return w.records(g, w.chunks[g], fn)
}

// A WPPSpan is a run of consecutive chunks of one goroutine: a part of
// its stream that can be read on its own (SpanRecords), since no record
// is split between chunks.
type WPPSpan struct{ first, end int }

// Spans cuts goroutine g's chunks into spans in offset order, each of
// at least minBytes of chunks but the last (which may be less), so that
// parts of one long stream can be read, and worked on, apart. The cuts
// depend on the file alone, never on who reads it.
func (w *WPPFile) Spans(g uint64, minBytes int) []WPPSpan {
	var spans []WPPSpan
	cs := w.chunks[g]
	first, n := 0, 0
	for i, c := range cs {
		n += c.size
		if n >= minBytes && i+1 < len(cs) {
			spans = append(spans, WPPSpan{first, i + 1})
			first, n = i+1, 0
		}
	}
	return append(spans, WPPSpan{first, len(cs)})
}

// StreamBytes returns the bytes of goroutine g's chunks, and of all the
// goroutines' chunks of the file.
func (w *WPPFile) StreamBytes(g uint64) (mine, all int64) {
	for _, c := range w.chunks[g] {
		mine += int64(c.size)
	}
	return mine, w.streamBytes
}

// SpanRecords is Records of span s of goroutine g's stream (Spans).
func (w *WPPFile) SpanRecords(g uint64, s WPPSpan, fn func(*WPPEvent) error) error {
	cs := w.chunks[g]
	if s.first < 0 || s.end > len(cs) || s.first > s.end {
		return fmt.Errorf("goroutine %d: no span %d to %d of its %d chunks", g, s.first, s.end, len(cs))
	}
	return w.records(g, cs[s.first:s.end], fn)
}

func (w *WPPFile) records(g uint64, chunks []wppChunk, fn func(*WPPEvent) error) error {
	var buf []byte
	// The event fn is handed is written at each record: padded to cache
	// lines of its own, since readers on other cores write theirs at
	// the same pace (a small object of the heap shared a line with
	// another's, and each record cost several times as much).
	padded := new(struct {
		_ [64]byte
		e WPPEvent
		_ [64]byte
	})
	e := &padded.e
	for _, c := range chunks {
		buf = slices.Grow(buf[:0], c.size)[:c.size]
		if _, err := w.r.ReadAt(buf, c.off); err != nil {
			return fmt.Errorf("goroutine %d, offset %d: %v", g, c.off, err)
		}
		for i := 0; i < len(buf) && buf[i] != 0; {
			if x := buf[i]; x < 0x80 && (x&3 == wppTagPath || x&3 == wppTagPathReturn) {
				// A path of a one-byte record, most records: decoded
				// here, as decodeWPPEvent would.
				*e = WPPEvent{Kind: WPPPath, Path: uint64(x >> 2), Returns: x&3 == wppTagPathReturn}
				i++
			} else if x < 0x80 && x&3 == wppTagEnter && x>>2 != 0 && i+1 < len(buf) && buf[i+1] < 0x80 {
				// A call of a two-byte record: the next most.
				*e = WPPEvent{Kind: WPPEnter, Pkg: uint32(x >> 2), Func: uint32(buf[i+1])}
				i += 2
			} else {
				n, err := decodeWPPEvent(e, buf[i:])
				if err != nil {
					return fmt.Errorf("goroutine %d, offset %d: %v", g, c.off+int64(i), err)
				}
				i += n
			}
			returns := e.Returns
			e.Returns = false
			if err := fn(e); err != nil {
				return err
			}
			if returns {
				*e = WPPEvent{Kind: WPPReturn}
				if err := fn(e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// The first uvarint of a record: its low two bits (profile/wpp.go).
const (
	wppTagControl    = 0
	wppTagPath       = 1
	wppTagPathReturn = 2
	wppTagEnter      = 3
)

// Control records: the rest of their first uvarint.
const (
	wppControlReturn         = 1
	wppControlSpawn          = 2
	wppControlStart          = 3
	wppControlStop           = 4
	wppControlUp             = 5
	wppControlMemory         = 6
	wppControlLongPath       = 7
	wppControlLongPathReturn = 8
	wppControlValue          = 9
	wppControlMemoryUp       = 10
	wppControlValueUp        = 11
)

// wppShortPath bounds the path ids that fit in a record's first uvarint.
const wppShortPath = 1 << 61

// DecodeWPPEvent decodes the record at the start of b and returns it with
// its length in bytes: one event, or, for a path-and-return record, its
// path with Returns set.
func DecodeWPPEvent(b []byte) (WPPEvent, int, error) {
	var e WPPEvent
	n, err := decodeWPPEvent(&e, b)
	if err != nil {
		return WPPEvent{}, 0, err
	}
	return e, n, nil
}

// decodeWPPEvent is DecodeWPPEvent into *e, all of whose fields it sets.
func decodeWPPEvent(e *WPPEvent, b []byte) (int, error) {
	n := 0
	next := func() (uint64, error) {
		v, k := binary.Uvarint(b[n:])
		if k <= 0 {
			return 0, fmt.Errorf("truncated or overlong number")
		}
		n += k
		return v, nil
	}
	// upOf reads how many calls below the current one an event of what
	// is: 1 to 2^32-1.
	upOf := func(what string) (uint32, error) {
		up, err := next()
		if err == nil && (up == 0 || up > 1<<32-1) {
			err = fmt.Errorf("%s event %d calls up", what, up)
		}
		return uint32(up), err
	}
	x, err := next()
	if err != nil {
		return 0, err
	}
	switch x & 3 {
	case wppTagPath:
		*e = WPPEvent{Kind: WPPPath, Path: x >> 2}
	case wppTagPathReturn:
		*e = WPPEvent{Kind: WPPPath, Path: x >> 2, Returns: true}
	case wppTagEnter:
		fn, err := next()
		if err != nil {
			return 0, err
		}
		if x>>2 == 0 || x>>2 > 1<<32-1 || fn > 1<<32-1 {
			return 0, fmt.Errorf("enter event names package %d, function %d", x>>2, fn)
		}
		*e = WPPEvent{Kind: WPPEnter, Pkg: uint32(x >> 2), Func: uint32(fn)}
	case wppTagControl:
		switch x >> 2 {
		case 0:
			return 0, fmt.Errorf("no record: a zero byte")
		case wppControlReturn:
			*e = WPPEvent{Kind: WPPReturn}
		case wppControlSpawn:
			s, err := next()
			if err != nil {
				return 0, err
			}
			*e = WPPEvent{Kind: WPPSpawn, Spawn: s}
		case wppControlStart:
			p, err := next()
			if err != nil {
				return 0, err
			}
			s, err := next()
			if err != nil {
				return 0, err
			}
			*e = WPPEvent{Kind: WPPStart, Parent: p, Spawn: s}
		case wppControlStop:
			*e = WPPEvent{Kind: WPPStop}
		case wppControlUp:
			up, err := upOf("path")
			if err != nil {
				return 0, err
			}
			id, err := next()
			if err != nil {
				return 0, err
			}
			*e = WPPEvent{Kind: WPPPath, Up: up, Path: id}
		case wppControlMemory, wppControlMemoryUp:
			var up uint32
			if x>>2 == wppControlMemoryUp {
				if up, err = upOf("memory"); err != nil {
					return 0, err
				}
			}
			var v [5]uint64
			for i := range 4 {
				if v[i], err = next(); err != nil {
					return 0, err
				}
			}
			op := v[0]
			if op>>5 > 1<<32-1 {
				return 0, fmt.Errorf("memory event of statement %d", op>>5)
			}
			*e = WPPEvent{Kind: WPPMemory, Up: up, Stmt: uint32(op >> 5), Access: WPPAccess(op & 7), Flags: uint8(op >> 3 & 3), Seq: v[1], Addr: v[2], Size: v[3]}
			if e.Access == WPPCopy {
				if e.Src, err = next(); err != nil {
					return 0, err
				}
			} else if e.Flags&WPPStackSrc != 0 {
				return 0, fmt.Errorf("memory event of kind %d with a source", e.Access)
			}
		case wppControlValue, wppControlValueUp:
			var up uint32
			if x>>2 == wppControlValueUp {
				if up, err = upOf("value"); err != nil {
					return 0, err
				}
			}
			op, err := next()
			if err != nil {
				return 0, err
			}
			v, err := next()
			if err != nil {
				return 0, err
			}
			if op>>3 > 1<<32-1 {
				return 0, fmt.Errorf("value of site %d", op>>3)
			}
			*e = WPPEvent{Kind: WPPValue, Up: up, Site: uint32(op >> 3), Part: uint8(op & 7), Value: v}
		case wppControlLongPath, wppControlLongPathReturn:
			id, err := next()
			if err != nil {
				return 0, err
			}
			if id < wppShortPath {
				return 0, fmt.Errorf("long path event of the short id %d", id)
			}
			*e = WPPEvent{Kind: WPPPath, Path: id, Returns: x>>2 == wppControlLongPathReturn}
		default:
			return 0, fmt.Errorf("unknown control event %d", x>>2)
		}
	}
	return n, nil
}

// AppendWPPEvent appends the record of e to b, as rt writes it: the
// inverse of DecodeWPPEvent.
func AppendWPPEvent(b []byte, e WPPEvent) []byte {
	control := func(kind uint64) []byte { return binary.AppendUvarint(b, kind<<2|wppTagControl) }
	switch e.Kind {
	case WPPPath:
		switch {
		case e.Up > 0:
			b = control(wppControlUp)
			b = binary.AppendUvarint(b, uint64(e.Up))
			return binary.AppendUvarint(b, e.Path)
		case e.Path < wppShortPath && e.Returns:
			return binary.AppendUvarint(b, e.Path<<2|wppTagPathReturn)
		case e.Path < wppShortPath:
			return binary.AppendUvarint(b, e.Path<<2|wppTagPath)
		case e.Returns:
			b = control(wppControlLongPathReturn)
		default:
			b = control(wppControlLongPath)
		}
		return binary.AppendUvarint(b, e.Path)
	case WPPEnter:
		b = binary.AppendUvarint(b, uint64(e.Pkg)<<2|wppTagEnter)
		return binary.AppendUvarint(b, uint64(e.Func))
	case WPPReturn:
		return control(wppControlReturn)
	case WPPSpawn:
		b = control(wppControlSpawn)
		return binary.AppendUvarint(b, e.Spawn)
	case WPPStart:
		b = control(wppControlStart)
		b = binary.AppendUvarint(b, e.Parent)
		return binary.AppendUvarint(b, e.Spawn)
	case WPPStop:
		return control(wppControlStop)
	case WPPMemory:
		if e.Up > 0 {
			b = control(wppControlMemoryUp)
			b = binary.AppendUvarint(b, uint64(e.Up))
		} else {
			b = control(wppControlMemory)
		}
		b = binary.AppendUvarint(b, uint64(e.Stmt)<<5|uint64(e.Flags&3)<<3|uint64(e.Access&7))
		b = binary.AppendUvarint(b, e.Seq)
		b = binary.AppendUvarint(b, e.Addr)
		b = binary.AppendUvarint(b, e.Size)
		if e.Access == WPPCopy {
			b = binary.AppendUvarint(b, e.Src)
		}
		return b
	case WPPValue:
		if e.Up > 0 {
			b = control(wppControlValueUp)
			b = binary.AppendUvarint(b, uint64(e.Up))
		} else {
			b = control(wppControlValue)
		}
		b = binary.AppendUvarint(b, uint64(e.Site)<<3|uint64(e.Part&7))
		return binary.AppendUvarint(b, e.Value)
	}
	panic(fmt.Sprintf("WPP event kind %d", e.Kind))
}

// WriteWPP writes a WPP file of the given goroutines' events, as rt would:
// for tests and tools that make WPP files without running a program.
// packages lists metadata hashes (hex) by package number - 1. A path
// followed by its call's return is written as one path-and-return record.
func WriteWPP(w io.Writer, h WPPHeader, packages []string, goroutines map[uint64][]WPPEvent) error {
	return WriteWPPTests(w, h, packages, goroutines, nil)
}

// WriteWPPTests is WriteWPP with test chunks for tests, written before
// the goroutines' events: their starts, then the ends of those Ended.
func WriteWPPTests(w io.Writer, h WPPHeader, packages []string, goroutines map[uint64][]WPPEvent, tests []WPPTest) error {
	var buf bytes.Buffer
	le := binary.LittleEndian
	hdr := make([]byte, WPPUnit)
	copy(hdr, wppMagic)
	le.PutUint64(hdr[8:], byteOrderMark)
	le.PutUint64(hdr[16:], h.Limit)
	var flags uint32
	for _, f := range []struct {
		set  bool
		flag uint32
	}{{h.LimitReached, WPPLimitReached}, {h.WriteFailed, WPPWriteFailed}, {h.Ended, WPPEnded}} {
		if f.set {
			flags |= f.flag
		}
	}
	le.PutUint32(hdr[24:], flags)
	if h.WriteFailed {
		le.PutUint32(hdr[28:], h.WriteErrno)
	}
	le.PutUint64(hdr[32:], uint64(h.Start.UnixNano()))
	le.PutUint64(hdr[40:], h.PID)
	buf.Write(hdr)
	chunk := func(kind byte, id uint64, payload []byte) {
		size := (WPPChunkHeader + len(payload) + WPPUnit - 1) / WPPUnit * WPPUnit
		c := make([]byte, size)
		copy(c, "wppc")
		c[4] = kind
		le.PutUint32(c[8:], uint32(size))
		le.PutUint64(c[16:], id)
		copy(c[WPPChunkHeader:], payload)
		buf.Write(c)
	}
	for i, hash := range packages {
		b, err := hex.DecodeString(hash)
		if err != nil || len(b) != 16 {
			return fmt.Errorf("package %d: bad hash %q", i+1, hash)
		}
		chunk(2, uint64(i+1), b)
	}
	testChunk := func(t WPPTest, event byte) {
		names := []byte{event}
		for _, n := range []string{t.Name, t.Parent} {
			names = binary.AppendUvarint(names, uint64(len(n)))
			names = append(names, n...)
		}
		sum := crc32.Update(Checksum(le.AppendUint64(nil, t.Goroutine)), castagnoli, names)
		chunk(3, t.Goroutine, append(le.AppendUint32(nil, sum), names...))
	}
	for _, t := range tests {
		testChunk(t, 1)
	}
	for _, t := range tests {
		if t.Ended {
			testChunk(WPPTest{Goroutine: t.Goroutine, Name: t.Name}, 2)
		}
	}
	const room = WPPMaxChunk/4 - WPPChunkHeader
	for _, g := range slices.Sorted(maps.Keys(goroutines)) {
		var payload []byte
		evs := goroutines[g]
		for i := 0; i < len(evs); i++ {
			e := evs[i]
			if e.Kind == WPPPath && e.Up == 0 && i+1 < len(evs) && evs[i+1].Kind == WPPReturn {
				e.Returns = true
				i++
			}
			n := len(payload)
			payload = AppendWPPEvent(payload, e)
			if len(payload) > room {
				chunk(1, g, payload[:n])
				payload = append(payload[:0], payload[n:]...)
			}
		}
		if len(payload) > 0 {
			chunk(1, g, payload)
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}
