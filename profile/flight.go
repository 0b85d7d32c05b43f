package profile

// A flight file, pathcover.<pid>.<n>.flight, is what a program built with
// pppexec -flight=N leaves in its profile directory when it fails: each
// goroutine's last N Ball-Larus paths (rt/flight.go writes it). It is
// written through shared mappings while the program runs and removed when
// the program ends cleanly; a snapshot (rt.WriteFlight) is a copy of it
// with its own name. Every word is 64 bits in the writer's byte order,
// which the order mark tells:
//
//	offset 0    +---------------------------------------------+
//	            | magic "pcovflt3"                            |
//	         8  | byte-order mark 0x0102030405060708          |
//	        16  | N: entries of each ring (a power of two)    |
//	        24  | state: 0 none (killed, or still running),   |
//	            |   1 exit with a failure (os.Exit(n != 0),   |
//	            |   log.Fatal), 2 unrecovered panic,          |
//	            |   3 fatal error (the runtime threw),        |
//	            |   4 snapshot (rt.WriteFlight), 5 fatal      |
//	            |   signal (SIGQUIT, a fault outside Go code) |
//	        32  | goroutine the state names (0: unknown)      |
//	        40  | when the file was made, ns since 1970       |
//	        48  | process id                                  |
//	        56  | 1 if some goroutines got no ring (limit)    |
//	        64  | limit: the file's largest size in bytes     |
//	        72  | E: the size of each extent in bytes         |
//	        80  | checksum of bytes 0-79, those at 24-39 and  |
//	            |   56-63 (which change as it runs) zero      |
//	        88  | ^state (bitwise complement)                 |
//	        96  | ^goroutine                                  |
//	       104  | a snapshot's: where its blocks end          |
//	       112  | a snapshot's: 1<<32 | the checksum of bytes  |
//	            |   0-111 and of the blocks, together         |
//	       120  | the signal that ended the process (state 5) |
//	            |   or caused its panic (SIGSEGV), 0 if none  |
//	       128  | ^signal (both 0 if none)                    |
//	       136  | L: the bytes of the message at 1024         |
//	       144  | ^L (both 0 if none)                         |
//	            | ... zero up to 1024                         |
//	      1024  | the panic's or the fatal error's message,   |
//	            |   L bytes (at most 3072), as the runtime    |
//	            |   printed it                                |
//	            | ... zero up to 4096                         |
//	      4096  +---------------------------------------------+
//	            | extent 0: blocks, each beginning with a tag |
//	            |   word kind<<32 | size in bytes, and then   |
//	            |   zero words up to the extent's end once    |
//	            |   a tag is 0                                |
//	    4096+E  | extent 1 ...                                |
//	            +---------------------------------------------+
//
// The blocks:
//
//	package (kind 1, 64 bytes): tag, the number of its function 0,
//	    its number of functions, the metadata's hash (32 hex digits),
//	    the checksum of the block's 56 bytes before it
//	ring (kind 2, 40+8N bytes): tag, the goroutine's id, pos (the
//	    entries it ever wrote), mask (N-1), then N entries: the newest
//	    at (pos-1) mod N, the oldest of the min(pos, N) at pos mod N,
//	    then the goroutine's id complemented (^id)
//
// Functions are numbered from 1 in the process, by package (package
// blocks give each package's range). An entry is a function's number in
// its top 24 bits and a path id in its low 40; low bits that are all
// ones (FlightLongID) say that the entry before it is the id, whole (a
// function with 2^40 paths or more). A tag is written after the rest of
// its block, so a block without one was never finished.
//
// A checksum is CRC-32C (Checksum). The rings, which goroutines write at
// every path, have none but a snapshot's, taken when nothing writes its
// copy; the state and its goroutine, which a failure's hooks write where
// nothing may be computed, and each ring's goroutine, are checked against
// their complements. A ring's entries are checked by what they name (a
// function of a package block here, a path of its function in the
// metadata: report.DecodeSteps); only its pos is unchecked. A snapshot's
// last checksum covers all it holds. When a ring is handed to a new
// goroutine, pos is set to 0 first, then ^id, then id: a ring whose id
// and check disagree with pos 0 is being handed over, and is skipped.

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// FlightState is how the process that wrote a flight file ended.
type FlightState uint64

const (
	FlightRunning    FlightState = iota // no end seen: killed, or still running
	FlightFailedExit                    // os.Exit with a code other than 0
	FlightPanic                         // an unrecovered panic
	FlightFatal                         // a fatal error of the runtime
	FlightSnapshot                      // taken on demand (rt.WriteFlight)
	FlightSignal                        // a fatal signal (SIGQUIT, a fault outside Go code)
)

func (s FlightState) String() string {
	switch s {
	case FlightRunning:
		return "no end recorded (killed by SIGKILL or a signal the runtime does not handle, or still running)"
	case FlightSignal:
		return "fatal signal"
	case FlightFailedExit:
		return "exit with a failure (os.Exit, log.Fatal)"
	case FlightPanic:
		return "unrecovered panic"
	case FlightFatal:
		return "fatal error"
	case FlightSnapshot:
		return "snapshot"
	}
	return fmt.Sprintf("state %d", uint64(s))
}

// Failed reports whether the state is a failure of the process.
func (s FlightState) Failed() bool {
	return s == FlightFailedExit || s == FlightPanic || s == FlightFatal || s == FlightSignal
}

// FlightLongID is the low bits of an entry whose id is the entry before.
const FlightLongID = 1<<40 - 1

const (
	flightMagic      = "pcovflt3"
	flightHeaderSize = 4096
	flightMsgOffset  = 1024 // where the failure's message is
	flightMaxEntries = 1 << 30
	// MaxFlightSize is the largest flight file read.
	MaxFlightSize = 16 << 30
)

// A Flight is a flight file read.
type Flight struct {
	Entries int // each ring's
	State   FlightState
	Goid    uint64 // the goroutine the state names, 0 if none
	Made    int64  // ns since 1970
	PID     uint64
	Full    bool // some goroutines had no ring
	// Message is the panic's message (an error's or a Stringer's text,
	// or the string panicked with; empty for a value of another type) or
	// the fatal error's, as the runtime printed it, at most 3072 bytes;
	// Signal is the signal that ended the process or caused its panic
	// (a fault: SIGSEGV), 0 if none.
	Message  string `json:",omitempty"`
	Signal   uint64 `json:",omitempty"`
	Packages []FlightPackage
	Rings    []FlightRing // by goroutine id
}

// A FlightPackage is a package's range of function numbers.
type FlightPackage struct {
	Hash  string
	First uint64 // the number of its function 0
	Funcs uint64
}

// A FlightRing is one goroutine's last paths, oldest first.
type FlightRing struct {
	Goid    uint64
	Written uint64 // the paths it ever recorded (entries, for long ids)
	Paths   []FlightPath
}

// A FlightPath is one path that a goroutine completed: function Func of
// the package whose metadata is Hash, path ID.
type FlightPath struct {
	Hash string
	Func int
	ID   uint64
}

// ReadFlight reads a flight file.
func ReadFlight(name string) (*Flight, error) {
	return readFlight(name, MaxFlightSize)
}

// ReadFlightHeader reads only the header of a flight file: how and when
// the process ended, not its packages and rings. Listing many files of a
// profile needs no more.
func ReadFlightHeader(name string) (*Flight, error) {
	return readFlight(name, flightHeaderSize)
}

// readFlight reads the first up to bytes of a flight file and parses
// them: the whole file when it is no larger.
func readFlight(name string, upTo int64) (*Flight, error) {
	f, info, err := OpenFile(name, "flight file", MaxFlightSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if upTo == flightHeaderSize {
		b, err := io.ReadAll(io.LimitReader(f, upTo))
		if err != nil {
			return nil, err
		}
		fl, _, _, err := parseFlightHeader(b)
		return fl, err
	}
	b, err := ReadWhole(f, "flight file", info.Size())
	if err != nil {
		return nil, err
	}
	return ParseFlight(b)
}

// ParseFlight parses the content of a flight file. Entries that name no
// function of the file's packages, and a long id cut off at a ring's
// oldest end, are errors: rt never writes them.
func ParseFlight(b []byte) (*Flight, error) {
	fl, order, extent, err := parseFlightHeader(b)
	if err != nil {
		return nil, err
	}
	word := func(off int) uint64 { return order.Uint64(b[off:]) }
	if fl.State == FlightSnapshot {
		// A snapshot is a copy, whose blocks have a checksum.
		end, sum := word(104), word(112)
		if sum>>32 != 1 || end != uint64(len(b)) {
			return nil, fmt.Errorf("header: a snapshot whose blocks end at %d in a file of %d bytes, or without their checksum", end, len(b))
		}
		if have := ChecksumUpdate(Checksum(b[:112]), b[flightHeaderSize:]); have != uint32(sum) {
			return nil, &ChecksumError{"snapshot (header and blocks)", uint32(sum), have}
		}
	}
	n := uint64(fl.Entries)
	ringSize := flightRingSize(n)
	type rawRing struct {
		goid, pos uint64
		words     []byte
	}
	var rings []rawRing
	for start := uint64(flightHeaderSize); start < uint64(len(b)); start += extent {
		end := min(start+extent, uint64(len(b)))
		for off := start; off+8 <= end; {
			tag := word(int(off))
			if tag == 0 {
				break
			}
			kind, size := tag>>32, tag&(1<<32-1)
			if size < 8 || size%8 != 0 || off+size > end {
				return nil, fmt.Errorf("offset %d: block of %d bytes does not fit its extent", off, size)
			}
			switch {
			case kind == 1 && size == 64:
				if sum := word(int(off + 56)); sum > 1<<32-1 {
					return nil, fmt.Errorf("offset %d: package block's checksum word %#x", off, sum)
				} else if err := VerifyChecksum(fmt.Sprintf("package block at offset %d", off), b[off:off+56], uint32(sum)); err != nil {
					return nil, err
				}
				first, funcs := word(int(off+8)), word(int(off+16))
				hash := string(b[off+24 : off+56])
				if !isHash(hash) || first == 0 || funcs > 1<<24 || first+funcs > 1<<24 {
					return nil, fmt.Errorf("offset %d: bad package block", off)
				}
				fl.Packages = append(fl.Packages, FlightPackage{Hash: hash, First: first, Funcs: funcs})
			case kind == 2 && size == ringSize:
				if word(int(off+24)) != n-1 {
					return nil, fmt.Errorf("offset %d: a ring's mask is not N-1", off)
				}
				goid, pos := word(int(off+8)), word(int(off+16))
				if check := word(int(off + size - 8)); check != ^goid {
					if pos == 0 {
						off += size
						continue // being handed to another goroutine
					}
					return nil, fmt.Errorf("offset %d: a ring's goroutine %d does not match its check %#x: the file is corrupt", off, goid, check)
				}
				rings = append(rings, rawRing{goid, pos, b[off+32 : off+size-8]})
			default:
				return nil, fmt.Errorf("offset %d: unknown block of kind %d, %d bytes", off, kind, size)
			}
			off += size
		}
	}
	slices.SortFunc(fl.Packages, func(a, b FlightPackage) int { return cmp.Compare(a.First, b.First) })
	for i := 1; i < len(fl.Packages); i++ {
		if p := fl.Packages[i-1]; p.First+p.Funcs > fl.Packages[i].First {
			return nil, fmt.Errorf("packages %s and %s number the same functions", p.Hash, fl.Packages[i].Hash)
		}
	}
	for _, r := range rings {
		if r.goid == 0 {
			continue // a ring being handed to another goroutine
		}
		ring := FlightRing{Goid: r.goid, Written: r.pos}
		// Newest first, then reversed: a long id's entry comes before
		// the entry that says so.
		kept := min(r.pos, n)
		for k := uint64(0); k < kept; k++ {
			e := order.Uint64(r.words[8*((r.pos-1-k)&(n-1)):])
			id := e & FlightLongID
			if id == FlightLongID {
				if k+1 == kept {
					break // its id was overwritten
				}
				k++
				id = order.Uint64(r.words[8*((r.pos-1-k)&(n-1)):])
			}
			p, err := fl.function(e >> 40)
			if err != nil {
				return nil, fmt.Errorf("goroutine %d: %v", r.goid, err)
			}
			p.ID = id
			ring.Paths = append(ring.Paths, p)
		}
		slices.Reverse(ring.Paths)
		fl.Rings = append(fl.Rings, ring)
	}
	slices.SortStableFunc(fl.Rings, func(a, b FlightRing) int { return cmp.Compare(a.Goid, b.Goid) })
	for i := 1; i < len(fl.Rings); i++ {
		if fl.Rings[i].Goid == fl.Rings[i-1].Goid {
			return nil, fmt.Errorf("two rings of goroutine %d", fl.Rings[i].Goid)
		}
	}
	return fl, nil
}

// parseFlightHeader parses a flight file's header, and returns its byte
// order and the size of its extents besides.
func parseFlightHeader(b []byte) (*Flight, binary.ByteOrder, uint64, error) {
	if len(b) < flightHeaderSize || string(b[:8]) != flightMagic {
		if len(b) >= 8 && string(b[:7]) == flightMagic[:7] && b[7] != flightMagic[7] {
			return nil, nil, 0, fmt.Errorf("a flight file of version %q, not %q: written by another version of pathcover", b[7:8], flightMagic[7:])
		}
		return nil, nil, 0, errors.New("not a flight file")
	}
	order, ok := byteOrder(b[8:16])
	if !ok {
		return nil, nil, 0, errors.New("bad byte-order mark")
	}
	word := func(off int) uint64 { return order.Uint64(b[off:]) }
	fixed := bytes.Clone(b[:80])
	clear(fixed[24:40]) // state, goroutine
	clear(fixed[56:64]) // full
	if sum := word(80); sum > 1<<32-1 {
		return nil, nil, 0, fmt.Errorf("header: checksum word %#x", sum)
	} else if err := VerifyChecksum("header", fixed, uint32(sum)); err != nil {
		return nil, nil, 0, err
	}
	if word(88) != ^word(24) || word(96) != ^word(32) {
		return nil, nil, 0, errors.New("header: the state or its goroutine does not match its complement: the file is corrupt")
	}
	// The signal and the message's length, which a failure's hook writes
	// with their complements; both zero if it wrote none.
	sig, msgLen := word(120), word(136)
	if (sig != 0 || word(128) != 0) && word(128) != ^sig || (msgLen != 0 || word(144) != 0) && word(144) != ^msgLen {
		return nil, nil, 0, errors.New("header: the signal or the message's length does not match its complement: the file is corrupt")
	}
	if msgLen > flightHeaderSize-flightMsgOffset {
		return nil, nil, 0, fmt.Errorf("header: a message of %d bytes, of at most %d", msgLen, flightHeaderSize-flightMsgOffset)
	}
	fl := &Flight{
		State: FlightState(word(24)),
		Goid:  word(32),
		Made:  int64(word(40)),
		PID:   word(48),
		Full:  word(56) != 0,
		// The message is the program's text: made valid UTF-8, it is
		// printed and put in pages as text (escaped there).
		Message: strings.ToValidUTF8(string(b[flightMsgOffset:flightMsgOffset+msgLen]), "\uFFFD"),
		Signal:  sig,
	}
	if sig > 1<<16 {
		return nil, nil, 0, fmt.Errorf("header: signal %d", sig)
	}
	n, extent := word(16), word(72)
	if n < 2 || n > flightMaxEntries || n&(n-1) != 0 {
		return nil, nil, 0, fmt.Errorf("rings of %d entries: not a power of two from 2 to 2^30", n)
	}
	fl.Entries = int(n)
	if fl.State > FlightSignal {
		return nil, nil, 0, fmt.Errorf("unknown state %d", word(24))
	}
	if ringSize := flightRingSize(n); extent < ringSize || extent%8 != 0 || extent > MaxFlightSize {
		return nil, nil, 0, fmt.Errorf("extents of %d bytes cannot hold a ring of %d", extent, ringSize)
	}
	return fl, order, extent, nil
}

// flightRingSize is the bytes of a ring block of n entries.
func flightRingSize(n uint64) uint64 { return 32 + 8*n + 8 }

// function returns the function whose number is num.
func (fl *Flight) function(num uint64) (FlightPath, error) {
	i, _ := slices.BinarySearchFunc(fl.Packages, num, func(p FlightPackage, num uint64) int {
		switch {
		case p.First+p.Funcs <= num:
			return -1
		case p.First > num:
			return 1
		}
		return 0
	})
	if i == len(fl.Packages) || num < fl.Packages[i].First {
		return FlightPath{}, fmt.Errorf("an entry names function number %d, of no package", num)
	}
	p := fl.Packages[i]
	return FlightPath{Hash: p.Hash, Func: int(num - p.First)}, nil
}

// Ring returns goroutine goid's ring, or nil.
func (fl *Flight) Ring(goid uint64) *FlightRing {
	i, ok := slices.BinarySearchFunc(fl.Rings, goid, func(r FlightRing, g uint64) int { return cmp.Compare(r.Goid, g) })
	if !ok {
		return nil
	}
	return &fl.Rings[i]
}

// byteOrder returns the byte order in which mark holds byteOrderMark.
func byteOrder(mark []byte) (binary.ByteOrder, bool) {
	switch {
	case binary.LittleEndian.Uint64(mark) == byteOrderMark:
		return binary.LittleEndian, true
	case binary.BigEndian.Uint64(mark) == byteOrderMark:
		return binary.BigEndian, true
	}
	return nil, false
}

// isHash reports whether h is a metadata hash: 32 lower-case hex digits.
func isHash(h string) bool {
	if len(h) != 32 {
		return false
	}
	for _, c := range []byte(h) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
