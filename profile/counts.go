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
//		uint64   s, where the counters start, in bytes from the
//		         segment's start: 0 for 64, right after the header
//		[16]byte reserved, zero
//		the counters at s: n × uint64, laid out as the metadata says
//	s is 0 when rt maps the segment's pages for the counters (Register),
//	and P plus the counters' offset in their first page when it maps the
//	file's pages over the program's own (RegisterStatic, rt/static.go):
//	then the header has its page, and the counters' first page follows.
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
// A package of a sharded build (pppexec -shard=p) has several segments
// with its hash, one per shard (rt/shards.go), one after the other: their
// counts add up, as those of several processes do, and the first holds
// the hash tables' keys.
//
// A process killed while it adds a segment leaves the segment's header
// zero (the magic is written last), so a reader stops there; the counters
// before it are whole, since every increment is a single store.

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
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
	Hash string // of the package's metadata
	// Len is the number of counter words; Words are those of them that are
	// not zero, in index order. Most counters of a run are zero, and a
	// reader's memory then grows with what a file holds, not with what its
	// headers claim.
	Len   uint64
	Words []Word
	// Residual marks a residual table of function Func (an index in the
	// metadata's Funcs): Words are pairs (id+1, count), and Lost counts the
	// runs that found no room.
	Residual bool
	Func     int
	Lost     uint64
}

// A Word is a counter word that is not zero: its index in its segment, and
// its value.
type Word struct{ Index, Value uint64 }

// NewSegment returns the segment of package hash whose counter words are
// dense, for tests and for tools that synthesise profiles.
func NewSegment(hash string, dense []uint64) Segment {
	s := Segment{Hash: hash, Len: uint64(len(dense))}
	for i, v := range dense {
		if v != 0 {
			s.Words = append(s.Words, Word{uint64(i), v})
		}
	}
	return s
}

// Range returns the words of s with indexes in [lo, hi).
func (s Segment) Range(lo, hi uint64) []Word { return wordRange(s.Words, lo, hi) }

func wordRange(words []Word, lo, hi uint64) []Word {
	i, _ := slices.BinarySearchFunc(words, lo, func(w Word, i uint64) int { return cmp.Compare(w.Index, i) })
	j, _ := slices.BinarySearchFunc(words, hi, func(w Word, i uint64) int { return cmp.Compare(w.Index, i) })
	return words[i:max(i, j)]
}

// pairs calls yield for each pair of words (2k, 2k+1) of words, which
// start at index base, whose first word is not zero: the key and count of
// a table's slot.
func pairs(words []Word, base uint64, yield func(key, count uint64)) {
	for i, w := range words {
		rel := w.Index - base
		if rel%2 != 0 {
			continue
		}
		var count uint64
		if i+1 < len(words) && words[i+1].Index == w.Index+1 {
			count = words[i+1].Value
		}
		yield(w.Value, count)
	}
}

// Pairs calls yield for each slot of a residual table whose key is not
// zero: Ball-Larus id + 1, and its count.
func (s Segment) Pairs(yield func(key, count uint64)) { pairs(s.Words, 0, yield) }

// A CountFile is a counter file.
type CountFile struct {
	PID uint64
	// Page is the writer's page size, which segments are aligned to; 0
	// means 4096 to WriteCounts.
	Page     uint64
	Segments []Segment
}

// ErrTruncated is wrapped by errors for counter files that end inside a
// segment: the segments before it are still returned.
var ErrTruncated = errors.New("truncated counter file")

// MaxCountsSize is the largest counter file read. A process's residual
// tables stop at 1 GiB (package rt), and its counters take a few MiB even
// for the largest programs; a larger file is not one that rt wrote.
const MaxCountsSize = 4 << 30

// ReadCounts reads a counter file. For a file that ends early it returns the
// whole segments before the break and an error wrapping ErrTruncated; for any
// other fault it returns nil and an error. The file is read in pieces, and
// only the words that are not zero are kept.
func ReadCounts(name string) (*CountFile, error) {
	f, info, err := OpenFile(name, "counter file", MaxCountsSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCounts(f, info.Size())
}

// ParseCounts parses the content of a counter file (see ReadCounts).
func ParseCounts(data []byte) (*CountFile, error) {
	return readCounts(bytes.NewReader(data), int64(len(data)))
}

// readChunk is how much of a counter file is read at once.
const readChunk = 1 << 20

var zeros = make([]byte, readChunk)

func readCounts(r io.ReaderAt, size int64) (*CountFile, error) {
	head := make([]byte, segmentHeader)
	n, err := r.ReadAt(head[:32], 0)
	if n < 32 || string(head[:8]) != fileMagic {
		if err != nil && err != io.EOF {
			return nil, err
		}
		return nil, errors.New("not a pathcover counter file")
	}
	var order binary.ByteOrder
	switch {
	case binary.LittleEndian.Uint64(head[24:]) == byteOrderMark:
		order = binary.LittleEndian
	case binary.BigEndian.Uint64(head[24:]) == byteOrderMark:
		order = binary.BigEndian
	default:
		return nil, errors.New("counter file has no valid byte-order mark")
	}
	page := order.Uint64(head[8:])
	if page < minPage || page > maxPage || page&(page-1) != 0 {
		return nil, fmt.Errorf("counter file has a bad page size %d", page)
	}
	f := &CountFile{PID: order.Uint64(head[16:]), Page: page}
	end := uint64(size)
	buf := make([]byte, readChunk)
	for off := page; off < end; {
		clear(head)
		n, err := r.ReadAt(head, int64(off))
		if err != nil && err != io.EOF {
			return nil, err
		}
		magic := string(head[:8])
		if n >= 8 && magic != segmentMagic && magic != residualMagic && magic != "\x00\x00\x00\x00\x00\x00\x00\x00" {
			return nil, fmt.Errorf("bad segment header at offset %d", off)
		}
		if n < segmentHeader || (magic != segmentMagic && magic != residualMagic) {
			// A zero or cut header: a segment being added, or a file being
			// copied, when it stopped.
			return f, fmt.Errorf("%w: segment at offset %d is incomplete", ErrTruncated, off)
		}
		words := order.Uint64(head[24:])
		start := uint64(segmentHeader)
		if s := order.Uint64(head[32:]); magic == segmentMagic && s != 0 {
			// A page of header, then the counters at their offset in the
			// next page.
			if s < page || s >= 2*page || s%8 != 0 {
				return nil, fmt.Errorf("bad segment header at offset %d: counters at %d", off, s)
			}
			start = s
		}
		if end-off < start {
			return f, fmt.Errorf("%w: segment at offset %d is incomplete", ErrTruncated, off)
		}
		if room := (end - off - start) / 8; words > room {
			return f, fmt.Errorf("%w: segment at offset %d claims %d words, file has room for %d", ErrTruncated, off, words, room)
		}
		seg := Segment{Hash: hex.EncodeToString(head[8:24]), Len: words}
		if magic == residualMagic {
			fn := order.Uint64(head[32:])
			if fn > math.MaxInt32 || words%2 != 0 {
				return nil, fmt.Errorf("bad residual table header at offset %d", off)
			}
			seg.Residual, seg.Func, seg.Lost = true, int(fn), order.Uint64(head[40:])
		}
		// The words, a chunk at a time, skipping holes where the file can
		// tell where they are.
		file, holes := r.(*os.File)
		for i := uint64(0); i < words; {
			if holes {
				pos := int64(off + start + 8*i)
				data, end, ok := nextData(file, pos)
				switch {
				case !ok:
					holes = false
				case end:
					i = words
					continue
				case data >= pos+8:
					i = min(words, i+uint64(data-pos)/8)
					continue
				}
			}
			k := min(words-i, readChunk/8)
			chunk := buf[:8*k]
			if _, err := r.ReadAt(chunk, int64(off+start+8*i)); err != nil && err != io.EOF {
				return nil, err
			}
			if !bytes.Equal(chunk, zeros[:len(chunk)]) { // most are zero
				for j := range k {
					if v := order.Uint64(chunk[8*j:]); v != 0 {
						seg.Words = append(seg.Words, Word{i + j, v})
					}
				}
			}
			i += k
		}
		f.Segments = append(f.Segments, seg)
		off += (start + 8*words + page - 1) / page * page
	}
	return f, nil
}

// WriteCounts writes a counter file as rt would, little-endian with pages of
// f.Page bytes: for tests and for tools that synthesise profiles.
func WriteCounts(w io.Writer, f *CountFile) error {
	page := cmp.Or(f.Page, 4096)
	if page < minPage || page > maxPage || page&(page-1) != 0 {
		return fmt.Errorf("page size %d", page)
	}
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
		if s.Len > MaxCountsSize/8 {
			return fmt.Errorf("segment of %d words", s.Len)
		}
		seg := make([]byte, (segmentHeader+8*s.Len+page-1)/page*page)
		copy(seg, segmentMagic)
		copy(seg[8:], h)
		binary.LittleEndian.PutUint64(seg[24:], s.Len)
		if s.Residual {
			copy(seg, residualMagic)
			binary.LittleEndian.PutUint64(seg[32:], uint64(s.Func))
			binary.LittleEndian.PutUint64(seg[40:], s.Lost)
		}
		for _, w := range s.Words {
			if w.Index >= s.Len {
				return fmt.Errorf("word %d of a segment of %d", w.Index, s.Len)
			}
			binary.LittleEndian.PutUint64(seg[segmentHeader+8*w.Index:], w.Value)
		}
		buf = append(buf, seg...)
	}
	_, err := w.Write(buf)
	return err
}
