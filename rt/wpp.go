package rt

//go:generate go run ./internal/genwppgo

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Whole program paths (pppexec -wpp): each goroutine records the sequence
// of its events, calls of instrumented functions, the Ball-Larus paths each
// call completes, returns and goroutines it starts, into a file of the
// profile directory, pathcover.<pid>.<n>.wpp. Package profile defines the
// format (profile/wpp.go); this is its writer.
//
// The file is written through shared mappings, like the counters, so that
// every record written survives os.Exit, panics and kills. Each goroutine
// has a recorder, which owns one chunk of the file at a time and writes
// into it alone: no locks, and no atomic operation, on the way of a
// record. A record's first byte is written last, and no record begins
// with a zero byte, so a reader finds where a chunk's records end without
// a count kept beside them (which would cost a second store per record):
// at the first zero where a record would begin. A recorder's first chunk
// is one 512-byte unit and each next one twice the last, up to
// wppMaxChunkSize, so that thousands of short goroutines do not each take
// a large chunk. Chunks are taken under wppMu from the end of the file,
// which grows by extents of wppExtentSize, written with zeros before they
// are mapped (as counter segments are: a store into a hole of a full disk
// would kill the program). Recording stops when the file reaches its
// size limit or a write fails (a full disk): the header says which, with
// the write's error, and the exit hooks mark it when the process reaches
// its end, so that readers can say that a recording covers only part of
// a run, and why (profile.WPPHeader.Cut). The program goes on at about
// the cost of recording, without the file's: each recorder then writes
// into a small scratch chunk of its own, which nothing reads (discard).
//
// A goroutine finds its recorder through a field that pppexec adds to the
// runtime's g (goroutine_wpp.go). Once a program records, the runtime
// starts every new goroutine without one, not with the recorder its g's
// last goroutine left (g's are reused), so the inlined enter record reads
// the field with one load and no call (recorderFast); the slow ways read
// it with the goroutine's id as well (recorderField), and compare. The
// recorders held are at most the g's the process ever had, its peak
// number of goroutines: a recorder whose g went to a new goroutine is
// garbage.
//
// What a call costs, on the way that does not leave the inlined code
// (each checked by TestWPPInlined): TryEnter loads the field, writes the
// call's record, which WPPRegister encoded beforehand, and counts the
// depth; TryPath writes one byte for an id under 32, TryPathReturn one
// byte for the path and the return; TryReturn, deferred, one byte, or
// nothing after a path's return.

const (
	wppUnit         = 512
	wppChunkHeader  = 32
	wppMaxChunkSize = 64 << 10
	wppExtentSize   = 1 << 20
	wppMaxEvent     = 64 // a record's largest encoding (a copy's: 6 uvarints), with room to spare
	wppFastRoom     = 16 // the room a fast record needs: an enter is at most 7 bytes
	wppDefaultLimit = 1 << 30
	wppMaxPackages  = 1 << 19 // an enter's first uvarint takes at most 3 bytes
	wppMaxFuncs     = 1 << 28 // and its second at most 4
)

// The record encoding (profile/wpp.go): the low two bits of a record's
// first uvarint, and, for control records, the rest of it.
const (
	wppTagControl    = 0
	wppTagPath       = 1
	wppTagPathReturn = 2
	wppTagEnter      = 3

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

	wppReturnByte = wppControlReturn<<2 | wppTagControl
	wppShortPath  = 1 << 61 // ids below fit in a record's first uvarint
)

// The header's flags (profile.WPPLimitReached and the rest): why
// recording stopped, and whether the process reached its end. Its next
// word is the errno of the write that failed.
const (
	wppFlagLimit       = 1
	wppFlagWriteFailed = 2
	wppFlagEnded       = 4
)

var (
	wppMu       sync.Mutex
	wppFile     = ownFile{fd: -1}
	wppOn       atomic.Bool // recording: a file is open and the limit not reached
	wppStopped  atomic.Bool // the limit was reached, or a write failed (the header says which)
	wppPackages []string    // metadata hashes by package number - 1
	wppEnd      int64       // the file's next free offset, under wppMu
	wppLimit    int64       // the size past which recording stops
	wppExtents  = map[int64][]byte{}
	wppHeader   []byte
	wppSpawns   atomic.Uint64 // spawn ids given
	wppFailed   bool          // could not make the file: never try again
)

// A wppRecorder writes one goroutine's records into its current chunk.
type wppRecorder struct {
	chunk []byte // the current chunk, mapped, header included; nil before the first
	next  int    // where the next record goes in chunk
	// fast is the first offset at which a record of at most wppFastRoom
	// bytes may not begin: the inlined paths write when next < fast. It
	// is -1 without a chunk, and once stopped, so they never do; so is a
	// recorder of zeros (the runtime's ring of goroutines without one, as
	// TryEnter reads it), which is why the comparison is strict.
	fast    int
	depth   uint32
	stopped bool
	goid    uint64
	seq     uint64 // the number of its last memory access (deps.go)
	size    int    // the size of the next chunk to take
}

// A WPPFrame is one call's handle on its goroutine's recorder: instrumented
// functions get it from WPPCode.TryEnter (or Enter) and pass it to Path
// and Return. The zero frame records nothing.
type WPPFrame struct {
	r     *wppRecorder
	depth uint32
}

// WPPRegister is called once for each instrumented package of a -wpp build,
// from a package-level variable initializer of its generated file, with
// the package's metadata hash, the size limit pppexec was given (-wppmax;
// 0 for the default), which $PATHCOVERWPPMAX overrides, and the number of
// its functions. It returns, for each function, the code that records a
// call of it (WPPCode.TryEnter); zeros if nothing is recorded.
func WPPRegister(hash string, limit int64, funcs int) []WPPCode {
	codes := make([]WPPCode, funcs)
	wppMu.Lock()
	defer wppMu.Unlock()
	if !wppReady(limit) {
		return codes
	}
	if len(wppPackages)+1 >= wppMaxPackages || funcs > wppMaxFuncs {
		writeStderr("pathcover: too many instrumented packages or functions to record whole program paths of package " + hash + "\n")
		return codes
	}
	c := wppTake(wppUnit)
	if c == nil {
		return codes
	}
	wppPackages = append(wppPackages, hash)
	n := uint32(len(wppPackages))
	putUint64(c[16:], uint64(n))
	copy(c[wppChunkHeader:], hashBytes(hash))
	c[4] = 2
	copy(c[:4], "wppc") // last: the chunk is complete
	for fn := range codes {
		enter := uvarintCode(uint64(n)<<2 | wppTagEnter)
		fnCode := uvarintCode(uint64(fn))
		k := enter >> 56
		codes[fn] = WPPCode(enter&(1<<(8*k)-1) | (fnCode&(1<<56-1))<<(8*k) | (k+fnCode>>56)<<56)
	}
	return codes
}

// wppTest records that the calling goroutine starts (event
// wppTestStarted) or ends (wppTestEnded) test name, a subtest of parent
// ("" for a top-level test), in a chunk of its own (kind 3): the tests'
// own goroutines, and those they start, are what readers answer for one
// test of a suite's recording with, and a test whose end is recorded was
// recorded whole. Nothing is recorded once recording has stopped: readers
// then say that a test is cut, or missing. TestStart and TestEnd call it
// from tRunner, on the test's goroutine.
//
//	32  uint32  checksum of the goroutine id (bytes 16-23), then of the
//	            bytes after it up to the names' end
//	36  uint8   the event: 1 started, 2 ended
//	37  uvarint the name's length, the name, then the parent's likewise
//	            (an end's parent is "")
func wppTest(event byte, name, parent string) {
	if name == "" || !wppOn.Load() {
		// "" is the root of the tests, not a test.
		return
	}
	_, goid := recorderField()
	if goid == 0 {
		return
	}
	n := wppChunkHeader + 5 + 2*10 + len(name) + len(parent)
	size := (n + wppUnit - 1) / wppUnit * wppUnit
	if size > wppMaxChunkSize {
		return // a name of tens of kilobytes: readers say the test is missing
	}
	wppMu.Lock()
	defer wppMu.Unlock()
	c := wppTake(size)
	if c == nil {
		return
	}
	putUint64(c[16:], goid)
	at := wppChunkHeader + 4
	c[at] = event
	at++
	at += putUvarint(c[at:], uint64(len(name)))
	at += copy(c[at:], name)
	at += putUvarint(c[at:], uint64(len(parent)))
	at += copy(c[at:], parent)
	putUint32(c[wppChunkHeader:], checksumUpdate(checksum(c[16:24]), c[wppChunkHeader+4:at]))
	c[4] = 3
	copy(c[:4], "wppc") // last: the chunk is complete
}

// The events of a test chunk.
const (
	wppTestStarted = 1
	wppTestEnded   = 2
)

// A WPPCode is what WPPRegister makes of one function of a package: its
// enter record, encoded for putCode (the bytes from the lowest, the length
// in the top byte); 0 if its calls are not recorded.
type WPPCode uint64

// TryEnter records a call by the calling goroutine of the function whose
// code c is, if the goroutine has its recorder and the recorder's chunk
// has room, and returns the call's frame and true; else the zero frame
// and false, and instrumented code calls Enter:
//
//	_pathcoverF, _pathcoverOK := _pathcoverWE[3].TryEnter(); if !_pathcoverOK { _pathcoverF = _pathcoverWE[3].Enter() }
//
// It is small enough to be inlined (TestWPPInlined), and finds the
// recorder inlined (recorderFast), so an enter record costs no call: it
// is at the inliner's budget, which is why the field it reads must never
// be nil (the runtime's rings of goroutines that have none, and
// wppNoRecorder, stand in) and why its store is unchecked (putFastCode).
func (c WPPCode) TryEnter() (f WPPFrame, ok bool) {
	r := (*wppRecorder)(recorderFast())
	if r.next < r.fast && c != 0 {
		r.next = putFastCode(r.chunk, r.next, uint64(c))
		r.depth++
		f.r, f.depth, ok = r, r.depth, true
	}
	return
}

// Enter records a call as TryEnter does, and where it cannot: when the
// goroutine has no recorder yet, or its chunk is full, or recording is
// off.
//
// Past the file's size limit, each goroutine goes on recording into the
// chunk it has, and stops when that is full (room), so that what each
// goroutine recorded is a prefix of what it did.
func (c WPPCode) Enter() WPPFrame {
	if f, ok := c.TryEnter(); ok {
		return f
	}
	return wppEnterSlow(uint64(c))
}

// wppNoRecorder is what recorderFast returns for a goroutine without a
// recorder where the runtime's field is not read (rt's own tests): a
// recorder whose chunk never has room, so TryEnter says no.
var wppNoRecorder = wppRecorder{fast: -1, stopped: true}

// wppEnterSlow is Enter when the goroutine has no recorder yet, or its
// chunk is full, or recording is off.
func wppEnterSlow(code uint64) WPPFrame {
	if code == 0 {
		return WPPFrame{}
	}
	r := wppCurrent(0)
	if r == nil {
		return WPPFrame{}
	}
	r.depth++
	if r.room(wppFastRoom) {
		r.next = putCode(r.chunk, r.next, code)
	}
	return WPPFrame{r, r.depth}
}

// Path records that the frame's call completed Ball-Larus path id.
func (f WPPFrame) Path(id uint64) { f.pathSlow(id, false) }

// TryPath records path id as Path does, if that takes one byte in the
// chunk the goroutine has (an id under 32, of the current call), and
// reports whether it did. It is small enough to be inlined: instrumented
// code calls Path only when it reports false.
func (f WPPFrame) TryPath(id uint64) bool {
	r := f.r
	if r == nil {
		return true // the zero frame records nothing
	}
	if r.depth == f.depth && id < 32 && r.next < r.fast {
		r.chunk[r.next] = byte(id<<2 | wppTagPath)
		r.next++
		return true
	}
	return false
}

// PathReturn records that the frame's call completed Ball-Larus path id
// and returns with no other event in between: instrumented code calls it
// for the last path of a call, at a return statement whose results call
// nothing, in a function with no defer statement. The deferred Return
// then finds the call returned already.
func (f WPPFrame) PathReturn(id uint64) { f.pathSlow(id, true) }

// TryPathReturn is to PathReturn what TryPath is to Path.
func (f WPPFrame) TryPathReturn(id uint64) bool {
	r := f.r
	if r == nil {
		return true
	}
	if r.depth == f.depth && id < 32 && r.next < r.fast {
		r.chunk[r.next] = byte(id<<2 | wppTagPathReturn)
		r.next++
		r.depth--
		return true
	}
	return false
}

// Return records that the frame's call returned; instrumented functions
// defer it, so a panic that unwinds the call records it too.
func (f WPPFrame) Return() { f.returnSlow() }

// TryReturn records the frame's return as Return does, if it is the
// current call and its chunk has room, or does nothing if the call
// returned already (PathReturn) or nothing is recorded, and reports
// whether that was all. Inlined into the deferred call, as TryPath.
func (f WPPFrame) TryReturn() bool {
	r := f.r
	if r == nil || r.depth < f.depth {
		return true
	}
	if r.depth == f.depth && r.next < r.fast {
		r.chunk[r.next] = wppReturnByte
		r.next++
		r.depth--
		return true
	}
	return false
}

// returnSlow records the frame's return: when the call is the current
// one, as TryReturn does; else it closes the calls above the frame's that
// recorded no return (none should: each defers its own), then the
// frame's, so that the stream stays nested.
func (f WPPFrame) returnSlow() {
	if f.TryReturn() {
		return
	}
	r := f.r
	for r.depth >= f.depth && r.depth > 0 {
		if r.room(1) {
			r.put(wppReturnByte)
		}
		r.depth--
	}
}

// Spawn records that the frame's call is starting a goroutine, and returns
// the spawn's id, which the new goroutine's start event names.
func (f WPPFrame) Spawn() uint64 {
	r := f.r
	if r == nil {
		return 0
	}
	s := wppSpawns.Add(1)
	if r.room(wppMaxEvent) {
		r.put(wppControlSpawn<<2|wppTagControl, s)
	}
	return s
}

// wppStart makes the calling goroutine's recorder, whose start event names
// spawn s; the WPPGo functions call it first in the new goroutine.
func wppStart(s uint64) {
	if s != 0 && !wppStopped.Load() {
		wppCurrent(s)
	}
}

// pathSlow records path id of the frame's call, and its return with it if
// returns: where TryPath and TryPathReturn could not, most often an id of
// 32 or more, written here with one store (as an enter's record) up to
// 2^47; pathRare does the rest.
func (f WPPFrame) pathSlow(id uint64, returns bool) {
	r := f.r
	if r != nil && r.depth == f.depth && id < 1<<47 && r.next < r.fast {
		tag := uint64(wppTagPath)
		if returns {
			tag = wppTagPathReturn
			r.depth--
		}
		r.next = putCode(r.chunk, r.next, uvarintCode(id<<2|tag))
		return
	}
	f.pathRare(id, returns)
}

// pathRare records what pathSlow does not: a longer id, a path of a call
// below the current one, a path when the chunk is full.
//
//go:noinline
func (f WPPFrame) pathRare(id uint64, returns bool) {
	r := f.r
	if r == nil {
		return
	}
	if !r.room(wppMaxEvent) {
		if returns && f.depth == r.depth {
			r.depth-- // as if written: the inlined records compare depths
		}
		return
	}
	tag := uint64(wppTagPath)
	if returns {
		tag = wppTagPathReturn
	}
	switch {
	case f.depth != r.depth:
		if f.depth > r.depth || f.depth == 0 {
			return // not a call of this goroutine's: cannot be placed
		}
		// A path of a call below the current one (the body of a
		// range-over-func loop): the call returns later, when the
		// calls above it have, so its deferred Return records it.
		r.put(wppControlUp<<2|wppTagControl, uint64(r.depth-f.depth), id)
		return
	case id < wppShortPath:
		r.put(id<<2 | tag)
	case returns:
		r.put(wppControlLongPathReturn<<2|wppTagControl, id)
	default:
		r.put(wppControlLongPath<<2|wppTagControl, id)
	}
	if returns {
		r.depth--
	}
}

// uvarintCode encodes x, under 2^49, as a code of putCode: its uvarint's
// bytes (at most 7), the first the lowest, with their number in the top
// byte.
func uvarintCode(x uint64) uint64 {
	switch {
	case x < 1<<7:
		return x | 1<<56
	case x < 1<<14:
		return x&0x7f | 0x80 | x>>7<<8 | 2<<56
	case x < 1<<21:
		return x&0x7f | 0x80 | (x>>7&0x7f|0x80)<<8 | x>>14<<16 | 3<<56
	}
	var code uint64
	n := uint64(0)
	for x >= 0x80 {
		code |= (x&0x7f | 0x80) << (8 * n)
		x >>= 7
		n++
	}
	return code | x<<(8*n) | (n+1)<<56
}

// putWords writes at chunk[at:] the uvarints of vs and returns where they
// end.
func putWords(chunk []byte, at int, vs ...uint64) int {
	for _, v := range vs {
		for v >= 0x80 {
			chunk[at] = byte(v) | 0x80
			v >>= 7
			at++
		}
		chunk[at] = byte(v)
		at++
	}
	return at
}

// room makes sure the recorder's chunk has room for a record of n bytes,
// taking a new chunk if not, and reports whether it can be written. Once
// the file has reached its limit, a recorder writes on into the chunk it
// has, and stops when that is full: the file does not grow.
func (r *wppRecorder) room(n int) bool {
	if r.stopped {
		r.next = 0 // the scratch chunk (discard), from its start again
		return false
	}
	if r.chunk != nil && r.next+n <= len(r.chunk) {
		return true
	}
	wppMu.Lock()
	c := wppTake(r.size)
	wppMu.Unlock()
	if c == nil {
		r.stop()
		return false
	}
	putUint64(c[16:], r.goid)
	c[4] = 1
	copy(c[:4], "wppc")
	r.chunk, r.next, r.fast = c, wppChunkHeader, len(c)-wppFastRoom+1
	r.size = min(2*r.size, wppMaxChunkSize)
	return true
}

// stop ends the recorder's stream with a stop record (one byte), if its
// chunk has room, and lets go of the chunk, so that nothing more is
// written to the file (discard).
func (r *wppRecorder) stop() {
	if r.chunk != nil && r.next < len(r.chunk) {
		r.put(wppControlStop<<2 | wppTagControl)
	}
	r.discard()
}

// wppScratchSize is the size of a stopped recorder's scratch chunk.
const wppScratchSize = 256

// discard stops the recorder and gives it a scratch chunk of its own,
// which nothing reads and room starts again from its beginning when the
// inlined records have filled it. A goroutine whose recording stopped (the
// file's limit, a full disk, a file that could not be made) so goes on at
// the cost of its inlined records' stores, about what it paid while it
// recorded: without room, every record would be a call or more, twice
// that.
func (r *wppRecorder) discard() {
	r.stopped = true
	r.chunk = make([]byte, wppScratchSize)
	r.next, r.fast = 0, wppScratchSize-wppFastRoom+1
}

// put writes a record of the uvarints vs, which room has made room for,
// its first byte last: a kill in between leaves a zero where the record
// begins, so a reader never sees part of it.
func (r *wppRecorder) put(vs ...uint64) {
	if vs[0] < 0x80 {
		// A one-byte head: the rest goes after it, then the head.
		n := putWords(r.chunk, r.next+1, vs[1:]...)
		r.chunk[r.next] = byte(vs[0])
		r.next = n
		return
	}
	c, at := r.chunk, r.next
	var first [10]byte
	k := putUvarint(first[:], vs[0])
	copy(c[at+1:at+k], first[1:k])
	n := putWords(c, at+k, vs[1:]...)
	c[at] = first[0]
	r.next = n
}

// wppCurrent returns the calling goroutine's recorder, making it (with a
// start event naming spawn) if the goroutine has none; nil if the
// goroutine cannot be told apart or nothing is recorded.
func wppCurrent(spawn uint64) *wppRecorder {
	p, goid := recorderField()
	if r := (*wppRecorder)(p); r != nil && r.goid == goid {
		return r
	}
	on := wppOn.Load()
	r := &wppRecorder{size: wppUnit, fast: -1}
	goid, parent := setRecorderField(unsafe.Pointer(r))
	if goid == 0 {
		wppNoGoroutines()
		return nil
	}
	r.goid = goid
	if !on {
		// Nothing is recorded: a recorder that discards its records
		// costs the goroutine's calls less than the slow ways that no
		// recorder takes each time.
		r.discard()
		return r
	}
	if r.room(wppMaxEvent) {
		r.put(wppControlStart<<2|wppTagControl, parent, spawn)
	}
	return r
}

// wppNoGoroutines turns recording off, once, when the runtime cannot tell
// goroutines apart (pppexec could not add its accessor to the runtime).
func wppNoGoroutines() {
	wppMu.Lock()
	defer wppMu.Unlock()
	if wppOn.Load() {
		wppOn.Store(false)
		writeStderr("pathcover: this program's runtime cannot tell goroutines apart, so it records no whole program paths\n")
	}
}

// wppReady makes the file at the first call, with the size limit given
// (0: the default) unless $PATHCOVERWPPMAX says another, and reports
// whether events can be recorded. The caller holds wppMu.
func wppReady(limit int64) bool {
	if wppFile.made() {
		return !wppStopped.Load() && wppOn.Load()
	}
	if wppFailed {
		return false
	}
	wppFailed = true // until the file is made
	dir := profileDir("")
	if dir == "" {
		return false
	}
	if err := mkdirAll(dir); err != nil {
		wppWarn(dir, err)
		return false
	}
	if err := wppFile.create(dir, ".wpp", syscall.O_RDWR); err != nil {
		wppWarn(dir, err)
		return false
	}
	wppLimit = wppLimitFromEnv(limit)
	h := wppExtent(0)
	if h == nil {
		wppFile.drop()
		return false
	}
	wppHeader = h[:wppUnit]
	putUint64(wppHeader[8:], byteOrderMark)
	putUint64(wppHeader[16:], uint64(wppLimit))
	var tv syscall.Timeval
	syscall.Gettimeofday(&tv)
	putUint64(wppHeader[32:], uint64(tv.Nano()))
	putUint64(wppHeader[40:], uint64(syscall.Getpid()))
	copy(wppHeader[:8], "pcovwpp4")
	wppEnd = wppUnit
	wppFailed = false
	wppOn.Store(true)
	flightHooks(nil, wppExitHook, nil, nil)
	return true
}

// wppTake returns a new chunk of size bytes (a multiple of wppUnit, at
// most wppExtentSize), or nil when the limit is reached or the file cannot
// grow. A chunk never straddles two extents: the units left at the end of
// one stay zero, which readers skip. The caller holds wppMu.
func wppTake(size int) []byte {
	if wppStopped.Load() || !wppFile.made() {
		return nil
	}
	off := wppEnd
	if off%wppExtentSize+int64(size) > wppExtentSize {
		off = (off/wppExtentSize + 1) * wppExtentSize
	}
	if off+int64(size) > wppLimit {
		wppStop(wppFlagLimit, nil)
		writeStderr("pathcover: the whole-program-path file " + wppFile.path + " reached its limit of " + itoa(uint64(wppLimit)) + " bytes (PATHCOVERWPPMAX); recording stopped\n")
		return nil
	}
	e := wppExtent(off / wppExtentSize * wppExtentSize)
	if e == nil {
		return nil
	}
	wppEnd = off + int64(size)
	start := off % wppExtentSize
	c := e[start : start+int64(size) : start+int64(size)]
	putUint32(c[8:], uint32(size))
	return c
}

// wppExtent returns the mapping of the extent at offset off, extending the
// file with it first if needed. The caller holds wppMu.
func wppExtent(off int64) []byte {
	if e := wppExtents[off]; e != nil {
		return e
	}
	fd, _, err := wppFile.descriptor()
	if err == nil && wppWriteFault != nil {
		err = wppWriteFault(off)
	}
	if err == nil {
		var w []uint64
		w, err = mapWords(&wppFile, fd, off, wppExtentSize)
		if err == nil {
			e := unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), wppExtentSize)
			wppExtents[off] = e
			return e
		}
	}
	wppWarn(wppFile.path, err)
	wppStop(wppFlagWriteFailed, err)
	return nil
}

// wppStop stops recording for the reason flag says, with the error of
// the write that failed, and says so in the header, so that every reader
// of the file can tell that it holds only part of the run, and why. The
// caller holds wppMu.
func wppStop(flag uint32, err error) {
	wppStopped.Store(true)
	wppOn.Store(false)
	if wppHeader == nil {
		return // the file was never made
	}
	if flag == wppFlagWriteFailed && getUint32(wppHeader[24:])&wppFlagWriteFailed == 0 {
		if errno, ok := err.(syscall.Errno); ok {
			putUint32(wppHeader[28:], uint32(errno))
		}
	}
	putUint32(wppHeader[24:], getUint32(wppHeader[24:])|flag)
}

// wppExitHook is called by the runtime's exit hooks (os.Exit, the return
// of main): the header then says the process reached its end, and a file
// whose header does not was left by a process that was killed or
// crashed, or that is still running.
func wppExitHook(goid uint64, failed bool) {
	wppMu.Lock()
	defer wppMu.Unlock()
	if wppHeader != nil {
		putUint32(wppHeader[24:], getUint32(wppHeader[24:])|wppFlagEnded)
	}
}

// wppWriteFault, set by rt's tests, makes the write of the extent at
// off fail as a full disk would.
var wppWriteFault func(off int64) error

func wppWarn(where string, err error) {
	writeStderr("pathcover: cannot record whole program paths in " + where + ": " + err.Error() + "\n")
}

// wppLimitFromEnv reads $PATHCOVERWPPMAX: a size in bytes, with an
// optional suffix K, M or G (powers of 1024); without it, the limit is
// built (pppexec -wppmax), or 1 GiB. A value that is not a size is said
// once and the default used.
func wppLimitFromEnv(built int64) int64 {
	def := int64(wppDefaultLimit)
	if built >= 2*wppUnit {
		def = built
	}
	v, ok := syscall.Getenv("PATHCOVERWPPMAX")
	if !ok || v == "" {
		return def
	}
	n, ok := parseSize(v)
	if !ok || n < 2*wppUnit {
		writeStderr("pathcover: PATHCOVERWPPMAX=" + v + " is not a size of at least 1K (such as 512M or 2G); using " + itoa(uint64(def)) + " bytes\n")
		return def
	}
	return n
}

// parseSize parses a size in bytes with an optional suffix K, M or G.
func parseSize(s string) (int64, bool) {
	shift := 0
	switch s[len(s)-1] {
	case 'k', 'K':
		shift = 10
	case 'm', 'M':
		shift = 20
	case 'g', 'G':
		shift = 30
	}
	if shift > 0 {
		s = s[:len(s)-1]
	}
	if s == "" || len(s) > 12 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	return n << shift, n<<shift>>shift == n
}

func putUvarint(b []byte, x uint64) int {
	i := 0
	for x >= 0x80 {
		b[i] = byte(x) | 0x80
		x >>= 7
		i++
	}
	b[i] = byte(x)
	return i + 1
}

// putUint64, putUint32 and getUint32 use the machine's byte order, which
// the header's byte order mark tells readers.
func putUint64(b []byte, v uint64) { *(*uint64)(unsafe.Pointer(&b[0])) = v }
func putUint32(b []byte, v uint32) { *(*uint32)(unsafe.Pointer(&b[0])) = v }
func getUint32(b []byte) uint32    { return *(*uint32)(unsafe.Pointer(&b[0])) }
