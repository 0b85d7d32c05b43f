package profile

// A counter file is written by package rt through a shared mapping, so it
// is in the writing machine's byte order and is made of pages of the
// writer's page size P:
//
//	page 0, the file header:
//		[8]byte  "pcovcnt1"
//		uint64   P, the page size
//		uint64   the process id
//		uint64   0x0102030405060708, in the writer's byte order
//	then segments, each at the next multiple of P: one per instrumented
//	package the process loaded, in the order they registered,
//		[8]byte  "pcovseg1"
//		[16]byte the hash of the package's metadata (<hash>.meta, in hex)
//		uint64   n, the number of counter words
//		[24]byte reserved, zero
//		n × uint64 the counters, laid out as the metadata says
//	and, in PPP builds, residual tables, made as residual paths first run:
//		[8]byte  "pcovres1"
//		[16]byte the hash of the package's metadata
//		uint64   n, the number of words, even
//		uint64   the function's index in the metadata's Funcs
//		uint64   runs that found no room in the process's tables
//		[16]byte reserved, zero
//		n/2 × (uint64 id+1, uint64 count): the function's residual paths
//		         by Ball-Larus id; a zero key is an empty slot
//	A function may have several residual tables (a full one gets a
//	bigger successor); an id may appear in more than one, and its counts
//	add up.
//
// A process killed while it adds a segment leaves the segment's header
// zero (the magic is written last), so a reader stops there; the counters
// before it are whole, since every increment is a single store.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

const (
	fileMagic     = "pcovcnt1"
	segmentMagic  = "pcovseg1"
	residualMagic = "pcovres1"
	byteOrderMark = 0x0102030405060708
	segmentHeader = 64
	minPage       = 512
	maxPage       = 1 << 20
)

// A Segment is one package's counters in one process, or one residual
// table of one of its functions.
type Segment struct {
	Hash  string // of the package's metadata
	Words []uint64
	// Residual marks a residual table of function Func (an index in the
	// metadata's Funcs): Words are pairs (id+1, count), and Lost counts the
	// runs that found no room.
	Residual bool
	Func     int
	Lost     uint64
}

// A CountFile is a counter file.
type CountFile struct {
	PID      uint64
	Segments []Segment
}

// ErrTruncated is wrapped by errors for counter files that end inside a
// segment: the segments before it are still returned.
var ErrTruncated = errors.New("truncated counter file")

// ReadCounts reads a counter file. For a file that ends early it returns the
// whole segments before the break and an error wrapping ErrTruncated; for any
// other fault it returns nil and an error.
func ReadCounts(name string) (*CountFile, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return ParseCounts(data)
}

// ParseCounts parses the content of a counter file (see ReadCounts).
func ParseCounts(data []byte) (*CountFile, error) {
	if len(data) < 32 || string(data[:8]) != fileMagic {
		return nil, errors.New("not a pathcover counter file")
	}
	var order binary.ByteOrder
	switch {
	case binary.LittleEndian.Uint64(data[24:]) == byteOrderMark:
		order = binary.LittleEndian
	case binary.BigEndian.Uint64(data[24:]) == byteOrderMark:
		order = binary.BigEndian
	default:
		return nil, errors.New("counter file has no valid byte-order mark")
	}
	page := order.Uint64(data[8:])
	if page < minPage || page > maxPage || page&(page-1) != 0 {
		return nil, fmt.Errorf("counter file has a bad page size %d", page)
	}
	f := &CountFile{PID: order.Uint64(data[16:])}
	for off := page; off < uint64(len(data)); {
		rest := data[off:]
		magic := string(rest[:min(8, len(rest))])
		if len(rest) >= 8 && magic != segmentMagic && magic != residualMagic && !bytes.Equal(rest[:8], make([]byte, 8)) {
			return nil, fmt.Errorf("bad segment header at offset %d", off)
		}
		if len(rest) < segmentHeader || (magic != segmentMagic && magic != residualMagic) {
			// A zero or cut header: a segment being added, or a file being
			// copied, when it stopped.
			return f, fmt.Errorf("%w: segment at offset %d is incomplete", ErrTruncated, off)
		}
		n := order.Uint64(rest[24:])
		if n > uint64(len(rest)-segmentHeader)/8 {
			return f, fmt.Errorf("%w: segment at offset %d claims %d words, file has room for %d", ErrTruncated, off, n, (len(rest)-segmentHeader)/8)
		}
		words := make([]uint64, n)
		for i := range words {
			words[i] = order.Uint64(rest[segmentHeader+8*i:])
		}
		seg := Segment{Hash: hex.EncodeToString(rest[8:24]), Words: words}
		if magic == residualMagic {
			fn := order.Uint64(rest[32:])
			if fn > math.MaxInt32 || n%2 != 0 {
				return nil, fmt.Errorf("bad residual table header at offset %d", off)
			}
			seg.Residual, seg.Func, seg.Lost = true, int(fn), order.Uint64(rest[40:])
		}
		f.Segments = append(f.Segments, seg)
		size := (segmentHeader + 8*n + page - 1) / page * page
		off += size
	}
	return f, nil
}

// WriteCounts writes a counter file as rt would, little-endian with 4096-byte
// pages: for tests and for tools that synthesise profiles.
func WriteCounts(w io.Writer, f *CountFile) error {
	const page = 4096
	buf := make([]byte, page)
	copy(buf, fileMagic)
	binary.LittleEndian.PutUint64(buf[8:], page)
	binary.LittleEndian.PutUint64(buf[16:], f.PID)
	binary.LittleEndian.PutUint64(buf[24:], byteOrderMark)
	for _, s := range f.Segments {
		h, err := hex.DecodeString(s.Hash)
		if err != nil || len(h) != 16 {
			return fmt.Errorf("segment hash %q is not 32 hex digits", s.Hash)
		}
		seg := make([]byte, (segmentHeader+8*len(s.Words)+page-1)/page*page)
		copy(seg, segmentMagic)
		copy(seg[8:], h)
		binary.LittleEndian.PutUint64(seg[24:], uint64(len(s.Words)))
		if s.Residual {
			copy(seg, residualMagic)
			binary.LittleEndian.PutUint64(seg[32:], uint64(s.Func))
			binary.LittleEndian.PutUint64(seg[40:], s.Lost)
		}
		for i, w := range s.Words {
			binary.LittleEndian.PutUint64(seg[segmentHeader+8*i:], w)
		}
		buf = append(buf, seg...)
	}
	_, err := w.Write(buf)
	return err
}
