package rt

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// The path flight recorder (pppexec -flight=N): each goroutine keeps the
// last N Ball-Larus paths it took, each with its function, in a ring,
// so that after a failure one can read what each goroutine did last (Ohmann
// and Liblit's csi-cc keeps the same per stack frame). Package profile
// defines the file (profile/flight.go); this is its writer.
//
// The rings live in a shared mapping of a file of the profile directory,
// pathcover.<pid>.<n>.flight, as the counters do: every path recorded is in
// the kernel's page cache at once, so a panic, a fatal error, os.Exit,
// SIGQUIT, SIGKILL or the OOM killer all leave the rings behind, with
// nothing to flush. A process that ends cleanly (main returns, or os.Exit(0))
// removes its file, so a program that never fails leaves only the
// metadata that decodes a ring, once per build. The runtime's exit hooks
// tell rt how the process ends, and two calls that pppexec adds to
// package runtime, at the top of fatalpanic and fatalthrow, tell it which
// goroutine panicked or threw (internal/driver/goroutine.go); the file's header
// then says so. A file whose header says nothing was left by a process
// that was killed, or that is still running.
//
// A goroutine's ring is in the field of the runtime's g that -wpp builds
// use for their recorders (goroutine_wpp.go), and the runtime puts it
// there when it makes the goroutine: pppexec adds a call to newproc1
// (internal/driver/goroutine.go, pathcoverGiveRing) that takes a ring block from
// the file, or, for a g that an ended goroutine left, starts its ring
// afresh. So Ring, inlined into instrumented code once per call, is one
// load of the g's field and a test for nil, and adds no call to the
// function: a call there would cost more than the paths it records, and
// the compiler would no longer inline small functions (an earlier design
// that made the ring on the goroutine's first path cost +95% at the
// median of the harness). The main goroutine gets its ring when the
// recorder starts; goroutines made before that, and those made past the
// file's limit ($PATHCOVERFLIGHTMAX, else the limit pppexec was built
// with), have none and record into flightNowhere, which nobody reads; the
// header says that some goroutines had no ring.
//
// The runtime hands rings out on the system stack, where nothing may write
// a file or wait for a lock, so the file is mapped whole (its limit) when
// the recorder starts, and grown by extents, each written whole so that a
// full disk is an error here and never a SIGBUS later: rt grows it when
// the room left runs short (flightGrow), on the goroutine of a go
// statement, which the runtime calls first in newproc (pathcoverBeforeGo).
// Blocks are taken with a compare-and-swap of the end (flightTake; the
// runtime's pathcoverTakeRing is its copy), never straddling an extent.
//
// What a path costs: one store into the ring and one increment of its
// position, both to memory only this goroutine writes (Put, inlined; in
// builds that count plainly, the generated code's own Put, which sees the
// ring through a type of the build's size and masks the position with a
// constant: instrument's flightRingType, FlightRingEntries). A
// ring's entry is its function's number (1-based, process-wide, given at
// registration) in the top 24 bits and the path's id below; a function
// with 2^40 paths or more stores an id that does not fit as two entries
// (PutLong).

const (
	flightHeaderSize = 4096
	flightExtentMin  = 1 << 20
	flightRingHeader = 32 // a ring block's words before its entries: tag, goid, position, mask
	// flightRingCheck is the bytes after a ring's entries: ^goid, written
	// with the goid, so that a reader tells a goroutine's id from a flipped
	// one (rings are written at every path, so none has a checksum).
	flightRingCheck = 8
	flightIDBits    = 40
	// FlightLongID is the low bits of an entry that says the path's id is
	// the entry before it.
	FlightLongID       = 1<<flightIDBits - 1
	flightMaxFuncs     = 1<<(64-flightIDBits) - 1
	flightDefaultLimit = 64 << 20

	flightBlockPackage = 1
	flightBlockRing    = 2

	// The states of the header's word 3 (profile.FlightState).
	flightFailedExit = 1
	flightPanic      = 2
	flightFatal      = 3
	flightSnapshot   = 4
	flightSignal     = 5
)

// The header's words (profile/flight.go draws them).
const (
	flightWordOrder     = 1
	flightWordEntries   = 2
	flightWordState     = 3
	flightWordGoid      = 4
	flightWordMade      = 5
	flightWordPID       = 6
	flightWordFull      = 7
	flightWordLimit     = 8
	flightWordExtent    = 9
	flightWordSum       = 10 // checksum of words 0-9, those that vary zero
	flightWordNotState  = 11 // ^state, written with it
	flightWordNotGoid   = 12 // ^goid, written with it
	flightWordEnd       = 13 // a snapshot's: the end of its blocks
	flightWordBlocksSum = 14 // a snapshot's: 1<<32 | the checksum of words 0-13 and the blocks
	flightWordSignal    = 15 // the signal that ended the process or caused its panic
	flightWordNotSignal = 16 // ^signal, written with it
	flightWordMsgLen    = 17 // the bytes of the panic's or the fatal error's message at flightMsgOffset
	flightWordNotMsgLen = 18 // ^length, written after the message and its length
	flightMsgOffset     = 1024
	flightMsgMax        = flightHeaderSize - flightMsgOffset

	flightPackageBlock = 64 // bytes: tag, first, funcs, hash, checksum
)

var flightMagic = [8]byte{'p', 'c', 'o', 'v', 'f', 'l', 't', '3'}

// flightHeaderSum is the checksum of the header's words 0 to 9 with those
// that change as the process runs (state, goroutine, full) zero: rt writes
// it when it makes the file, and a failure's hooks, which cannot compute
// one, write the words that change each with its complement.
func flightHeaderSum(h *[flightHeaderSize / 8]uint64) uint64 {
	w := *(*[flightWordSum]uint64)(h[:flightWordSum])
	w[flightWordState], w[flightWordGoid], w[flightWordFull] = 0, 0, 0
	return uint64(checksum(unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 8*len(w))))
}

// A FlightRing is one goroutine's ring, as it lies in the file: instrumented
// code gets it from Ring at the top of each call and records each path it
// takes with Put, where a Ball-Larus build would count it.
type FlightRing struct {
	tag  uint64 // the block's kind and size, written when the ring is made
	goid uint64 // the goroutine that writes it
	pos  uint64 // the entries ever written; the next goes at pos&mask
	mask uint64 // the ring's entries - 1 (a power of two - 1)
	// the entries follow
}

// flightNowhere is the ring of goroutines that have none: those of a
// process that records nothing, and those past the limit. Any number of
// goroutines write it, so its entries and position mean nothing. It has
// room for the largest ring, since the code that pppexec generates indexes
// a ring with its build's mask, not the ring's (FlightRingEntries); only
// the entries written take memory.
var flightNowhere struct {
	FlightRing
	entries [FlightMaxEntries]uint64
}

// FlightMaxEntries is the largest ring, in entries (pppexec -flight).
const FlightMaxEntries = 1 << 20

// FlightRingEntries is the size of the rings of a build made with
// pppexec -flight=entries (at most FlightMaxEntries): entries rounded up
// to a power of two, at least 2. The code pppexec generates indexes every
// ring with that size's mask, a constant (instrument's flightFile), so
// every package of a process must have been built with the same entries:
// they are, since pppexec's configuration is in every object's build ID.
func FlightRingEntries(entries int) int {
	n := 2
	for n < entries && n < FlightMaxEntries {
		n *= 2
	}
	return n
}

var (
	flightMu      sync.Mutex
	flightFile    = ownFile{fd: -1}
	flightOn      atomic.Bool // the file is being written
	flightHeader  *[flightHeaderSize / 8]uint64
	flightFuncs   int  // functions numbered so far, under flightMu
	flightStarted bool // the first registration was made
	flightState   flightShared
)

// flightShared is what rt and the runtime that pppexec patches share: its
// pathcoverRingFile (internal/driver/goroutine.go) has the same fields in the
// same order, which driver's TestRingFileLayout checks. Set when the
// file is made; end, grown and limit change atomically after.
type flightShared struct {
	base   unsafe.Pointer // the file, mapped limit bytes long
	full   *uint64        // the header's word that says a goroutine got no ring
	ring   uint64         // a ring block's bytes
	mask   uint64         // its entries - 1
	extent uint64         // blocks never straddle one (the file's format)
	limit  uint64         // the file's largest size; lowered to grown when it cannot grow
	end    uint64         // the next free offset
	grown  uint64         // the file's size: blocks fit below it
}

// Put records entry v, a function's code (FlightRegister) plus a path id
// under FlightLongID. It is inlined; -race builds call it, since the
// detector must not see the goroutines that share flightNowhere.
//
//go:norace
func (r *FlightRing) Put(v uint64) {
	*(*uint64)(unsafe.Add(unsafe.Pointer(r), flightRingHeader+(r.pos&r.mask)*8)) = v
	r.pos++
}

// PutLong records path id of the function whose code is code, for ids
// that may not fit in an entry: the id, then the code with FlightLongID.
//
//go:norace
func (r *FlightRing) PutLong(code, id uint64) {
	if id < FlightLongID {
		r.Put(code + id)
		return
	}
	r.Put(id)
	r.Put(code + FlightLongID)
}

// FlightRegister is called once for each instrumented package of a
// -flight build, from a variable initializer of its generated file, with
// the package's metadata (hash, meta), its number of functions, the
// entries of each goroutine's ring, the file's limit in bytes (0: the
// default) and pppexec's -dir directory. It writes the metadata, makes the
// process's file at the first call, records the package in it, and
// returns the code of the package's function 0; function k's is that
// plus k<<40.
func FlightRegister(hash, meta string, funcs, entries int, limit int64, defaultDir string) uint64 {
	flightMu.Lock()
	defer flightMu.Unlock()
	first := flightFuncs + 1
	flightFuncs += funcs
	if flightFuncs > flightMaxFuncs {
		if flightOn.Load() {
			flightOn.Store(false)
			writeStderr("pathcover: more than " + itoa(flightMaxFuncs) + " instrumented functions: the flight recorder records nothing\n")
		}
		return 0
	}
	if !flightStarted {
		flightStarted = true
		flightHooks(flightFatalHook, nil, nil, nil)
		flightStart(entries, limit, defaultDir)
	}
	if !flightOn.Load() {
		return uint64(first) << flightIDBits
	}
	if n := uint64(FlightRingEntries(entries)); n != flightState.mask+1 {
		// Not in a program that pppexec built (see FlightRingEntries):
		// this package's code indexes rings with its own mask, so its
		// entries land in the wrong places, and past a ring's end when
		// its rings are the larger. Said, since nothing can stop it now.
		writeStderr("pathcover: a package was built for flight rings of " + itoa(n) + " entries, others for " + itoa(flightState.mask+1) + " (not one pppexec build): the flight recorder's rings will be garbled and may be overrun\n")
	}
	dir := flightFile.path[:lastSlash(flightFile.path)]
	if err := writeMeta(dir, hash, meta); err != nil {
		flightWarn(dir, err)
		return uint64(first) << flightIDBits
	}
	flightGrow()
	if p := flightTake(flightPackageBlock); p != nil {
		var blk [flightPackageBlock / 8]uint64
		blk[0] = flightBlockPackage<<32 | flightPackageBlock
		blk[1], blk[2] = uint64(first), uint64(funcs)
		copy((*[32]byte)(unsafe.Pointer(&blk[3]))[:], hash)
		blk[7] = uint64(checksum(unsafe.Slice((*byte)(unsafe.Pointer(&blk[0])), flightPackageBlock-8)))
		b := (*[flightPackageBlock / 8]uint64)(p)
		copy(b[1:], blk[1:])
		atomic.StoreUint64(&b[0], blk[0]) // last: a block without a tag was never finished
	}
	return uint64(first) << flightIDBits
}

// flightStart makes the process's file, with rings of entries (rounded
// up to a power of two) and the limit given unless $PATHCOVERFLIGHTMAX
// says another, and asks the runtime to say how the process ends. The
// caller holds flightMu.
func flightStart(entries int, limit int64, defaultDir string) {
	n := FlightRingEntries(entries)
	dir := profileDir(defaultDir)
	if dir == "" {
		return
	}
	if err := mkdirAll(dir); err != nil {
		flightWarn(dir, err)
		return
	}
	if limit <= 0 {
		limit = flightDefaultLimit
	}
	if s, ok := syscall.Getenv("PATHCOVERFLIGHTMAX"); ok {
		if v, ok := parseSize(s); ok && v > 0 {
			limit = v
		} else {
			writeStderr("pathcover: PATHCOVERFLIGHTMAX=" + s + " is not a size (such as 64M); using " + itoa(uint64(limit)) + " bytes\n")
		}
	}
	limit = min(limit, maxFlightLimit)
	ring := uint64(flightRingHeader + 8*n + flightRingCheck)
	// Extents of 1 MiB, or less under a smaller limit, since each is
	// written whole when it is taken; but never smaller than a ring.
	round := func(x int64) int64 { return (x + 4095) / 4096 * 4096 }
	extent := max(round(int64(ring)), min(flightExtentMin, round(limit-flightHeaderSize)))
	if err := flightFile.create(dir, ".flight", syscall.O_RDWR); err != nil {
		flightWarn(dir, err)
		return
	}
	// The first extent is written whole even past a limit smaller than
	// it; blocks stay below the limit all the same (grown).
	first := flightHeaderSize + extent
	base, err := mapGrowing(&flightFile, flightFile.fd, int(max(limit, first)), int(first))
	if err != nil {
		flightWarn(flightFile.path, err)
		flightFile.drop()
		return
	}
	h := (*[flightHeaderSize / 8]uint64)(base)
	flightHeader = h
	h[flightWordOrder] = byteOrderMark
	h[flightWordEntries] = uint64(n)
	var tv syscall.Timeval
	syscall.Gettimeofday(&tv)
	h[flightWordMade] = uint64(tv.Nano())
	h[flightWordPID] = uint64(syscall.Getpid())
	h[flightWordLimit] = uint64(limit)
	h[flightWordExtent] = uint64(extent)
	*(*[8]byte)(unsafe.Pointer(&h[0])) = flightMagic
	h[flightWordNotState], h[flightWordNotGoid] = ^uint64(0), ^uint64(0)
	h[flightWordSum] = flightHeaderSum(h)
	flightState = flightShared{
		base:   base,
		full:   &h[flightWordFull],
		ring:   ring,
		mask:   uint64(n - 1),
		extent: uint64(extent),
		limit:  uint64(limit),
		end:    flightHeaderSize,
		grown:  uint64(min(first, limit)),
	}
	flightOn.Store(true)
	flightHooks(flightFatalHook, flightExitHook, flightGrowing, unsafe.Pointer(&flightState))
}

// maxFlightLimit is the largest file, whose size is mapped at once.
const maxFlightLimit = 16 << 30

// flightTake returns a new block of size bytes from the file, or nil when
// the file has no room for it (the header then says that something got
// none). It takes the block at the end, or at the next extent if it would
// straddle this one, with a compare-and-swap, since the runtime takes ring
// blocks too (pathcoverTakeRing, this function's copy, with a ring's
// size) without flightMu. The block is zero; the caller writes its tag.
func flightTake(size uint64) unsafe.Pointer {
	s := &flightState
	if s.ring == 0 {
		return nil
	}
	for {
		old := atomic.LoadUint64(&s.end)
		off := old
		if rel := (off - flightHeaderSize) % s.extent; rel+size > s.extent {
			off += s.extent - rel
		}
		if off+size > atomic.LoadUint64(&s.grown) {
			atomic.StoreUint64(s.full, 1)
			return nil
		}
		if atomic.CompareAndSwapUint64(&s.end, old, off+size) {
			return unsafe.Add(s.base, off)
		}
	}
}

// flightGrow writes the file's next extents, whole, until an extent's
// room is left past the blocks' end or the file reaches its limit; if
// the file cannot grow, its limit becomes its size. The caller holds
// flightMu.
func flightGrow() {
	s := &flightState
	for s.ring != 0 && flightOn.Load() {
		grown, limit := atomic.LoadUint64(&s.grown), atomic.LoadUint64(&s.limit)
		if grown >= limit || grown-atomic.LoadUint64(&s.end) >= s.extent {
			return
		}
		size := min(s.extent, limit-grown)
		if err := growFile(&flightFile, -1, int64(grown), int(size)); err != nil {
			atomic.StoreUint64(&s.limit, grown)
			writeStderr("pathcover: cannot grow the flight file " + flightFile.path + ": " + err.Error() + "; later goroutines have no ring\n")
			return
		}
		atomic.StoreUint64(&s.grown, grown+size)
	}
}

// flightGrowing is flightGrow for the runtime, which calls it from newproc
// when the room for rings runs short: it grows the file unless another
// goroutine holds flightMu (growing it, or writing a snapshot).
func flightGrowing() {
	if flightMu.TryLock() {
		defer flightMu.Unlock()
		flightGrow()
	}
}

// flightFatalHook is called by the runtime at the top of fatalpanic (kind
// 1), fatalthrow (kind 2) and fatalsignal (kind 3), on the goroutine that
// failed or, for a throw or a signal, on the system stack of its thread,
// before anything is printed: with the panic's message (n bytes at msg;
// preprintpanics has made an error's or a Stringer's a string; nil if
// the value is of another type) or the throw's, and the signal, if one
// ended the process or caused the panic. It only stores into the header:
// it must not grow the stack, allocate or lock, since the runtime may be
// in a bad state.
//
//go:nosplit
//go:norace
func flightFatalHook(goid uint64, kind uintptr, msg unsafe.Pointer, n int, sig uint32) {
	h := flightHeader
	if h == nil || h[flightWordState] != 0 {
		return
	}
	state := uint64(flightPanic)
	switch kind {
	case 2:
		state = flightFatal
	case 3:
		state = flightSignal
	}
	if msg != nil && n > 0 {
		n = min(n, flightMsgMax)
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&h[flightMsgOffset/8])), n), unsafe.Slice((*byte)(msg), n))
		h[flightWordMsgLen], h[flightWordNotMsgLen] = uint64(n), ^uint64(n)
	}
	if sig != 0 {
		h[flightWordSignal], h[flightWordNotSignal] = uint64(sig), ^uint64(sig)
	}
	h[flightWordGoid], h[flightWordNotGoid] = goid, ^goid
	h[flightWordState], h[flightWordNotState] = state, ^state
}

// flightExitHook is called by the runtime's exit hooks: failed when the
// exit code is not 0 (os.Exit(1), log.Fatal, a failed test binary), on the
// goroutine that called os.Exit. A clean exit removes the file.
func flightExitHook(goid uint64, failed bool) {
	flightMu.Lock()
	defer flightMu.Unlock()
	h := flightHeader
	if h == nil {
		return
	}
	if !failed {
		flightOn.Store(false)
		syscall.Unlink(flightFile.path)
		return
	}
	if h[flightWordState] == 0 {
		h[flightWordGoid], h[flightWordNotGoid] = goid, ^goid
		h[flightWordState], h[flightWordNotState] = flightFailedExit, ^uint64(flightFailedExit)
	}
}

// WriteFlight writes the rings as they are now, for a server's debug
// endpoint or a test, into a new file of the profile directory, and
// returns its name; the file's header says it is a snapshot taken by the
// calling goroutine. Goroutines go on recording while it copies, so a
// ring may hold entries newer than its neighbours'. It is an error in a
// program that records no flight (not built with pppexec -flight, or
// without a profile directory).
func WriteFlight() (string, error) {
	if flightWriteHook != nil {
		return flightWriteHook()
	}
	_, goid := recorderField()
	flightMu.Lock()
	defer flightMu.Unlock()
	if flightHeader == nil || !flightOn.Load() {
		return "", errNoFlight
	}
	dir := flightFile.path[:lastSlash(flightFile.path)]
	var snap ownFile
	if err := snap.create(dir, ".flight", syscall.O_RDWR); err != nil {
		return "", err
	}
	// Other goroutines run while it writes: each write checks that the
	// descriptor still is the snapshot's (ownFile.writeOn).
	write := snap.writeOn
	// A snapshot is a copy, which nothing writes once it is taken: its
	// blocks get a checksum, and its header says where they end.
	h := *flightHeader
	end := atomic.LoadUint64(&flightState.end)
	blocks := flightCopy(unsafe.Slice((*byte)(unsafe.Add(flightState.base, flightHeaderSize)), end-flightHeaderSize))
	h[flightWordState], h[flightWordNotState] = flightSnapshot, ^uint64(flightSnapshot)
	h[flightWordGoid], h[flightWordNotGoid] = goid, ^goid
	h[flightWordEnd] = end
	sum := checksum(unsafe.Slice((*byte)(unsafe.Pointer(&h[0])), 8*flightWordBlocksSum))
	h[flightWordBlocksSum] = 1<<32 | uint64(checksumUpdate(sum, blocks))
	err := write(unsafe.Slice((*byte)(unsafe.Pointer(&h[0])), flightHeaderSize))
	if err == nil {
		err = write(blocks)
	}
	if err != nil {
		snap.drop()
		return "", err
	}
	snap.close()
	return snap.path, nil
}

// flightWriteHook is, in the copy of rt that a program imports for this
// API, WriteFlight of the copy that pppexec links into instrumented code,
// which holds the rings; pppexec sets it (toolexec.compileFlightAPI).
var flightWriteHook func() (string, error)

// flightCopy copies b, which goroutines write as it is read.
//
//go:norace
func flightCopy(b []byte) []byte { return append([]byte(nil), b...) }

var errNoFlight = flightError("this program records no flight: it was not built with pppexec -flight, or has no profile directory")

type flightError string

func (e flightError) Error() string { return string(e) }

func flightWarn(where string, err error) {
	flightOn.Store(false)
	writeStderr("pathcover: cannot record the flight in " + where + ": " + err.Error() + "\n")
}
