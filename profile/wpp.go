package profile

// A whole-program-path file, pathcover.<pid>.<n>.wpp, is what a program
// built with pppexec -wpp writes besides its counters: for each goroutine,
// the sequence of its events (calls of instrumented functions, the
// Ball-Larus paths each call completed, returns, goroutines started).
// Package rt writes it (rt/wpp.go); this is its definition.
//
// The file is a sequence of 512-byte units, written through a shared
// mapping, so what a program has written survives os.Exit, panics and
// SIGKILL. Unit 0 is the header; every other unit either begins a chunk or
// belongs to the chunk before it, or is zero (allocated, never written:
// the reader skips it). All integers are in the writer's byte order, which
// the byte order mark gives.
//
//	header (unit 0)
//	 0  [8]byte  "pcovwpp4" (the format's version is its last byte; 3,
//	             which has no test chunks, is read too)
//	 8  uint64   byte order mark 0x0102030405060708
//	16  uint64   limit: the file size past which the program stops recording
//	24  uint32   flags: WPPLimitReached, WPPWriteFailed, WPPEnded
//	28  uint32   the errno of the write that failed (WPPWriteFailed), or 0
//	32  int64    when the process started, Unix nanoseconds
//	40  uint64   process id
//	48  ...      0 up to 512
//
//	chunk, at a unit boundary
//	 0  [4]byte  "wppc"
//	 4  uint8    kind: 1 events of one goroutine, 2 a package, 3 a test
//	 5  [3]byte  0
//	 8  uint32   size: bytes of the chunk, header included, a multiple of
//	             512, at most WPPMaxChunk
//	12  uint32   0
//	16  uint64   goroutine id (kinds 1 and 3) or package number (kind 2)
//	24  uint64   0
//	32  payload
//
// A package chunk's payload is the 16 bytes of the metadata hash of the
// package that the number stands for (numbers count from 1, in the order
// packages register in the process).

// A test chunk (version 4, builds that also attribute counts to tests:
// pathcover test) says that the goroutine started, or ended, running a
// test, when it did; it lies among the chunks in the order of those
// events. Its payload: a checksum (uint32) of the goroutine id (the
// header's bytes 16-23), then of the bytes after it up to the names' end;
// the event (uint8: 1 started, 2 ended); the test's name, a uvarint length
// then its bytes; its parent test's ("" for a top-level test, and in an
// end) likewise. A test's goroutines are its own and those it started,
// directly or not (their start records name their creators): what -test
// answers for. A test whose end is recorded was recorded whole; one
// whose start is not recorded started once recording had stopped.

// An events chunk's payload is a sequence of records, then zeros up to
// the chunk's end: no record begins with a zero byte, so the first zero
// byte where a record would begin ends the chunk's records. A record is a
// uvarint x (encoding/binary), sometimes followed by more uvarints:
//
//	x == 0              no more records in this chunk
//	x&3 == 1            path: the current call completed Ball-Larus path x>>2
//	x&3 == 2            path and return: the current call completed path x>>2,
//	                    its last, and returned
//	x&3 == 3            enter: a call of function f (next uvarint, the index in
//	                    the metadata) of package x>>2; it becomes the current call
//	x&3 == 0, x>>2 == 1 return: the current call returned, normally or by a panic
//	x&3 == 0, x>>2 == 2 spawn s: the current call started a goroutine at a go
//	                    statement; s (next uvarint) is unique in the process
//	x&3 == 0, x>>2 == 3 start p s: the goroutine's first record: it was
//	                    created by goroutine p, at spawn s (0: by code that
//	                    is not instrumented)
//	x&3 == 0, x>>2 == 4 stop: recording stopped here (the header says why:
//	                    the size limit, or a write that failed)
//	x&3 == 0, x>>2 == 5 up k, path: a path completed by the call k levels
//	                    below the current one (the body of a range-over-func
//	                    loop runs inside the iterator's call); k and the id
//	                    follow as uvarints
//	x&3 == 0, x>>2 == 6 memory op seq addr size [src]: an access to memory by
//	                    statement op>>5 of the current call (an index in its
//	                    Deps.Stmts, -deps builds): access kind op&7
//	                    (WPPAccess), flags op>>3&3 (WPPStackAddr, WPPStackSrc);
//	                    seq is the access's number in the process minus the
//	                    goroutine's previous one (the first: minus 0), so
//	                    that accesses of all goroutines can be put in one
//	                    order; addr and size are the bytes accessed (for a
//	                    map, the map and the hash of the key; for a channel,
//	                    the channel and 0); a copy adds src, the bytes copied
//	                    from. An address on the goroutine's stack is
//	                    written as its distance below the stack's top, which
//	                    stays the same when the stack moves.
//	x&3 == 0, x>>2 == 7 path, id: as x&3 == 1, for ids of 2^61 and more
//	x&3 == 0, x>>2 == 8 path and return, id: as x&3 == 2, for those ids
//	x&3 == 0, x>>2 == 9 value op v: a word of a variable's value, in the
//	                    current call (-wet builds): op>>3 is the site that
//	                    recorded it, an index in the function's
//	                    Deps.Values (which says which variable, and at
//	                    which statement), op&7 which word (a string's data
//	                    and length, a slice's data, length and capacity,
//	                    an interface's type and data, a complex number's
//	                    parts); v the word, zigzag-coded for signed
//	                    integers (DepVar.Kind says how to read it)
//	x&3 == 0, x>>2 == 10 memory up, k, then as 6: an access by the call k
//	                    levels below the current one (the body of a
//	                    range-over-func loop, inside the iterator's call),
//	                    by statement op>>5 of that call
//	x&3 == 0, x>>2 == 11 value up, k, then as 9: a value recorded by the
//	                    call k levels below the current one
//
// A record stands for one event, but a path-and-return record, which
// stands for two: a path and the return that follows it (Events gives
// them apart). rt writes one where it knows, when the path is counted,
// that the call returns before it makes any other event: at a return
// statement whose results call nothing, in a function with no defer.
//
// A goroutine's stream is the records of its chunks in the order of their
// offsets: a goroutine takes its next chunk only when the last has no room
// for its next record, and chunks are taken at increasing offsets.
// Goroutine ids are the runtime's, unique in a process and never reused.
//
// A record's first byte is written last, after the rest, so a kill loses
// at most the record each goroutine was writing at that moment, and leaves
// no part of it where a record is read: nothing written before it is lost.
// Calls still open at the end of a stream were running when the process
// ended (os.Exit, a kill, a crash).
//
// A recording covers the whole run only if its header says the process
// reached its end (WPPEnded: rt's exit hook, which os.Exit and the return
// of main run) and recording never stopped (neither WPPLimitReached nor
// WPPWriteFailed); WPPHeader.Cut says why one does not, and every query
// that reads it passes that on with its answer. Version 3 added
// WPPWriteFailed, WPPEnded and the errno.

import (
	"fmt"
	"strings"
	"syscall"
	"time"
)

// The flags of a WPP file's header.
const (
	// WPPLimitReached says the file reached its size limit: each goroutine
	// then filled the chunk it had and stopped, so its stream is a prefix
	// of its events, which ends with a stop event if it was cut short
	// (and its chunk had a byte left).
	WPPLimitReached = 1 << iota
	// WPPWriteFailed says the file could not grow (a full disk, most
	// often): recording stopped as at the limit.
	WPPWriteFailed
	// WPPEnded says the process reached its end (os.Exit, or main
	// returned); without it, it was killed, crashed, or is still running.
	WPPEnded
)

// Sizes of a WPP file.
const (
	wppMagic       = "pcovwpp4"
	wppMagicV3     = "pcovwpp3"
	WPPUnit        = 512
	WPPChunkHeader = 32
	WPPMaxChunk    = 1 << 20
)

// WPPEventKind is the kind of an event of a goroutine's stream.
type WPPEventKind uint8

const (
	WPPPath   WPPEventKind = iota // Path completed by the call Up levels below the current one
	WPPEnter                      // a call of Func of Pkg
	WPPReturn                     // the current call returned
	WPPSpawn                      // the current call started goroutine Spawn
	WPPStart                      // first event: created by goroutine Parent at spawn Spawn
	WPPStop                       // recording stopped
	WPPMemory                     // an access to memory (a -deps build)
	WPPValue                      // a word of a variable's value (a -wet build)
)

// A WPPAccess is the kind of a memory event.
type WPPAccess uint8

const (
	WPPLoad     WPPAccess = iota // Size bytes read at Addr
	WPPStore                     // written
	WPPUpdate                    // read, then written (x op= y, x++)
	WPPCopy                      // moved from Src to Addr: their writers move with them
	WPPMapRead                   // the entry of key hash Size of map Addr read
	WPPMapWrite                  // set or deleted
	WPPSend                      // a value sent on channel Addr
	WPPRecv                      // one received
)

// The flags of a memory event.
const (
	WPPStackAddr = 1 << iota // Addr is a distance below the goroutine's stack top
	WPPStackSrc              // Src is
)

// A WPPEvent is one event of a goroutine's stream; which fields are set
// depends on its kind.
type WPPEvent struct {
	Kind WPPEventKind
	Pkg  uint32 // enter: package number
	Func uint32 // enter: function index in the package's metadata
	Up   uint32 // path, memory, value: how many calls below the current one
	Path uint64 // path: Ball-Larus id
	// Returns, on a path, says that the call returned right after it: a
	// path-and-return record, as DecodeWPPEvent gives it. Events gives
	// the path and the return apart, so its events never have it.
	Returns bool   `json:",omitempty"`
	Spawn   uint64 // spawn, start
	Parent  uint64 // start: the goroutine that created this one
	// memory: the statement, the access and its flags, the access's
	// number less the goroutine's previous one, and the bytes
	Stmt   uint32    `json:",omitempty"`
	Access WPPAccess `json:",omitempty"`
	Flags  uint8     `json:",omitempty"`
	Seq    uint64    `json:",omitempty"`
	Addr   uint64    `json:",omitempty"`
	Size   uint64    `json:",omitempty"`
	Src    uint64    `json:",omitempty"`
	// value: the site that recorded it (an index in Deps.Values), which
	// word of the value, and the word
	Site  uint32 `json:",omitempty"`
	Part  uint8  `json:",omitempty"`
	Value uint64 `json:",omitempty"`
}

// A WPPHeader is what a WPP file's header says.
type WPPHeader struct {
	Limit        uint64
	LimitReached bool
	// WriteFailed says a write failed and recording stopped; WriteErrno
	// is the write's errno, if it was a system error.
	WriteFailed bool
	WriteErrno  uint32
	// Ended says the process reached its end (WPPEnded).
	Ended bool
	Start time.Time
	PID   uint64
}

// Cut says why a recording with this header covers only part of its run,
// one reason a sentence; nil if it covers the whole run.
func (h WPPHeader) Cut() []string {
	var why []string
	if h.LimitReached {
		why = append(why, fmt.Sprintf("recording stopped at the file's size limit of %d bytes (PATHCOVERWPPMAX, pppexec -wppmax)", h.Limit))
	}
	if h.WriteFailed {
		err := "an error"
		if h.WriteErrno != 0 {
			err = syscall.Errno(h.WriteErrno).Error()
		}
		why = append(why, "recording stopped when the file could not grow: "+err)
	}
	if !h.Ended {
		why = append(why, "the process wrote no end: it was killed, crashed, or is still running")
	}
	return why
}

// PathRuns writes a sequence of Ball-Larus path ids as the queries show
// it: a run of one path repeated (a loop's rounds) as id×n, "3 12×2 18".
func PathRuns(paths []uint64) string {
	var b strings.Builder
	for i := 0; i < len(paths); {
		j := i
		for j < len(paths) && paths[j] == paths[i] {
			j++
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d", paths[i])
		if j-i > 1 {
			fmt.Fprintf(&b, "×%d", j-i)
		}
		i = j
	}
	return b.String()
}

// Done says the file will not change: the process that wrote it said it
// reached its end (Ended) and is no longer running. A recording that is
// not done may be one of a process that was killed or crashed: only the
// end of the run that made it says it will not grow.
func (h WPPHeader) Done() bool { return h.Ended && !processRunning(h.PID) }
