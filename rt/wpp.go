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
// every event written survives os.Exit, panics and kills. Each goroutine
// has a recorder, which owns one chunk of the file at a time and writes
// into it alone: no locks on the way of an event. A recorder's first chunk
// is one 512-byte unit and each next one twice the last, up to
// wppMaxChunkSize, so that thousands of short goroutines do not each take
// a large chunk. Chunks are taken under wppMu from the end of the file,
// which grows by extents of wppExtentSize, written with zeros before they
// are mapped (as counter segments are: a store into a hole of a full disk
// would kill the program).
//
// Recorders are found by the goroutine's g, which an accessor that pppexec
// adds to package runtime returns (goroutine_wpp.go), with its goid: a g
// is reused after its goroutine exits, a goid never is. So the recorders
// kept are at most the process's peak number of goroutines.

const (
	wppUnit         = 512
	wppChunkHeader  = 32
	wppMaxChunkSize = 64 << 10
	wppExtentSize   = 1 << 20
	wppMaxEvent     = 64 // an event's largest encoding (a copy's: 6 uvarints), with room to spare
	wppDefaultLimit = 1 << 30
	wppProbes       = 8 // slots of the recorder table searched for a goroutine
)

// The event encoding (profile/wpp.go): the low two bits of an event's first
// uvarint.
const (
	wppTagPath    = 0
	wppTagEnter   = 1
	wppTagControl = 2
	wppTagBigPath = 3

	wppControlReturn = 0
	wppControlSpawn  = 1
	wppControlStart  = 2
	wppControlStop   = 3
	wppControlUp     = 4
	wppControlMemory = 5
)

var (
	wppMu       sync.Mutex
	wppFile     = ownFile{fd: -1}
	wppOn       atomic.Bool // recording: a file is open and the limit not reached
	wppStopped  atomic.Bool // the limit was reached
	wppPackages []string    // metadata hashes by package number - 1
	wppEnd      int64       // the file's next free offset, under wppMu
	wppLimit    int64       // the size past which recording stops
	wppExtents  = map[int64][]byte{}
	wppHeader   []byte
	wppSpawns   atomic.Uint64 // spawn ids given
	wppFailed   bool          // could not make the file: never try again
	// wppTable holds the recorders by goroutine: open addressing on the
	// g, read without locks (wppLookup), changed under wppTableMu by
	// copying, so a reader sees one table or the next, whole.
	wppTable   atomic.Pointer[[]atomic.Pointer[wppRecorder]]
	wppTableMu sync.Mutex
)

// A wppRecorder writes one goroutine's events into its current chunk.
type wppRecorder struct {
	g       uintptr
	goid    uint64
	seq     uint64 // the number of its last memory access (deps.go)
	depth   uint32
	stopped bool
	chunk   []byte // the current chunk, mapped; nil before the first
	used    int    // payload bytes written into it
	size    int    // the size of the next chunk to take
}

// A WPPFrame is one call's handle on its goroutine's recorder: instrumented
// functions get it from WPPEnter and pass it to Path and Return. The zero
// frame records nothing.
type WPPFrame struct {
	r     *wppRecorder
	depth uint32
}

// WPPRegister is called once for each instrumented package of a -wpp build,
// from a package-level variable initializer of its generated file, with
// the package's metadata hash and the size limit pppexec was given
// (-wppmax; 0 for the default), which $PATHCOVERWPPMAX overrides. It
// returns the package's number in this process's file, which WPPEnter
// takes; 0 if nothing is recorded.
func WPPRegister(hash string, limit int64) uint32 {
	wppMu.Lock()
	defer wppMu.Unlock()
	if !wppReady(limit) {
		return 0
	}
	wppPackages = append(wppPackages, hash)
	n := uint32(len(wppPackages))
	c := wppTake(wppUnit)
	if c == nil {
		return 0
	}
	putUint64(c[16:], uint64(n))
	copy(c[wppChunkHeader:], hashBytes(hash))
	putUint32(c[12:], 16)
	c[4] = 2
	copy(c[:4], "wppc") // last: the chunk is complete
	return n
}

// WPPEnter records a call of function fn of package pkg (the number that
// WPPRegister gave) by the calling goroutine, and returns the call's frame.
//
// Past the file's size limit, each goroutine goes on recording into the
// chunk it has, and stops when that is full (room), so that what each
// goroutine recorded is a prefix of what it did.
func WPPEnter(pkg, fn uint32) WPPFrame {
	if pkg == 0 {
		return WPPFrame{}
	}
	r := wppCurrent(0)
	if r == nil {
		return WPPFrame{}
	}
	r.depth++
	if r.room() {
		r.put2(uint64(pkg)<<2|wppTagEnter, uint64(fn))
	}
	return WPPFrame{r, r.depth}
}

// Path records that the frame's call completed Ball-Larus path id.
func (f WPPFrame) Path(id uint64) {
	if f.r != nil {
		f.r.path(f.depth, id)
	}
}

// Return records that the frame's call returned; instrumented functions
// defer it, so a panic that unwinds the call records its return too.
func (f WPPFrame) Return() {
	r := f.r
	if r == nil {
		return
	}
	// Calls above this one that recorded no return (none should: each
	// defers its own) are closed first, so that the stream stays nested.
	for r.depth >= f.depth && r.depth > 0 {
		if r.room() {
			r.put1(wppControlReturn<<2 | wppTagControl)
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
	if r.room() {
		r.put2(wppControlSpawn<<2|wppTagControl, s)
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

func (r *wppRecorder) path(depth uint32, id uint64) {
	// The common case: a small id of the current call, with room in the
	// chunk (a uvarint of a 61-bit id takes at most 9 bytes).
	if depth == r.depth && id < 1<<61 && wppChunkHeader+r.used+9 <= len(r.chunk) {
		r.put1(id<<2 | wppTagPath)
		return
	}
	if !r.room() {
		return
	}
	if depth != r.depth {
		if depth > r.depth || depth == 0 {
			return // not a call of this goroutine's: cannot be placed
		}
		r.put3(wppControlUp<<2|wppTagControl, uint64(r.depth-depth), id)
		return
	}
	if id < 1<<61 {
		r.put1(id<<2 | wppTagPath)
		return
	}
	r.put2(wppTagBigPath, id)
}

// room makes sure the recorder's chunk has room for one more event, taking
// a new chunk if not, and reports whether the event can be written. Once
// the file has reached its limit, a recorder writes on into the chunk it
// has, and stops when that is full: the file does not grow.
func (r *wppRecorder) room() bool {
	if r.stopped {
		return false
	}
	if r.chunk != nil && wppChunkHeader+r.used+wppMaxEvent <= len(r.chunk) {
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
	r.chunk, r.used = c, 0
	r.size = min(2*r.size, wppMaxChunkSize)
	return true
}

// stop ends the recorder's stream with a stop event (one byte), if its
// chunk has room, and lets go of the chunk, so that nothing more is
// written.
func (r *wppRecorder) stop() {
	if r.chunk != nil && wppChunkHeader+r.used+1 <= len(r.chunk) {
		r.put1(wppControlStop<<2 | wppTagControl)
	}
	r.stopped, r.chunk = true, nil
}

// put1, put2 and put3 write an event of one, two or three uvarints, then
// count its bytes as used: a kill in between loses this event only.
func (r *wppRecorder) put1(a uint64) {
	b := r.chunk[wppChunkHeader+r.used:]
	n := putUvarint(b, a)
	r.commit(n)
}

func (r *wppRecorder) put2(a, b uint64) {
	p := r.chunk[wppChunkHeader+r.used:]
	n := putUvarint(p, a)
	n += putUvarint(p[n:], b)
	r.commit(n)
}

func (r *wppRecorder) put3(a, b, c uint64) {
	p := r.chunk[wppChunkHeader+r.used:]
	n := putUvarint(p, a)
	n += putUvarint(p[n:], b)
	n += putUvarint(p[n:], c)
	r.commit(n)
}

// commit counts n more bytes as used, in the chunk's header too: a plain
// store, after the event's, which a kill cannot reorder (only the
// process's own goroutine reads the chunk while it runs).
func (r *wppRecorder) commit(n int) {
	r.used += n
	*(*uint32)(unsafe.Pointer(&r.chunk[12])) = uint32(r.used)
}

// wppCurrent returns the calling goroutine's recorder, making it (with a
// start event naming spawn) if the goroutine has none; nil if the
// goroutine cannot be told apart.
func wppCurrent(spawn uint64) *wppRecorder {
	g, goid, parent := goroutine()
	if g == 0 {
		wppNoGoroutines()
		return nil
	}
	if r := wppLookup(g, goid); r != nil {
		return r
	}
	return wppNewRecorder(g, goid, parent, spawn)
}

// wppHome is where goroutine g's recorder is looked for first in a table
// of mask+1 slots.
func wppHome(g uintptr, mask int) int {
	h := uint64(g) * 0x9e3779b97f4a7c15
	return int(h>>32) & mask
}

// wppLookup finds goroutine goid's recorder, without locks.
func wppLookup(g uintptr, goid uint64) *wppRecorder {
	t := wppTable.Load()
	if t == nil {
		return nil
	}
	slots := *t
	mask := len(slots) - 1
	i := wppHome(g, mask)
	for range wppProbes {
		r := slots[i].Load()
		if r == nil {
			return nil
		}
		if r.g == g {
			if r.goid == goid {
				return r
			}
			return nil // a goroutine that exited had this g
		}
		i = (i + 1) & mask
	}
	return nil
}

// wppNewRecorder makes goroutine goid's recorder, whose stream starts with
// its creator and spawn, and puts it in the table: in the slot of the
// goroutine that had the same g before, which has exited, or in a free
// one, or in a table twice as large.
func wppNewRecorder(g uintptr, goid, parent, spawn uint64) *wppRecorder {
	r := &wppRecorder{g: g, goid: goid, size: wppUnit}
	if r.room() {
		r.put3(wppControlStart<<2|wppTagControl, parent, spawn)
	}
	wppTableMu.Lock()
	defer wppTableMu.Unlock()
	for {
		t := wppTable.Load()
		if t == nil {
			slots := make([]atomic.Pointer[wppRecorder], 64)
			wppTable.Store(&slots)
			continue
		}
		slots := *t
		mask := len(slots) - 1
		i := wppHome(g, mask)
		for range wppProbes {
			old := slots[i].Load()
			if old == nil || old.g == g {
				slots[i].Store(r)
				return r
			}
			i = (i + 1) & mask
		}
		// No room near g's home: a larger table, in which every recorder
		// is within wppProbes slots of its home, as wppLookup needs (a
		// live goroutine that missed its recorder would start a second
		// stream).
		wppTable.Store(wppGrow(slots))
	}
}

// wppGrow returns a table at least twice as large as slots with the same
// recorders, each within wppProbes slots of its home.
func wppGrow(slots []atomic.Pointer[wppRecorder]) *[]atomic.Pointer[wppRecorder] {
	for size := 2 * len(slots); ; size *= 2 {
		bigger := make([]atomic.Pointer[wppRecorder], size)
		ok := true
		for k := range slots {
			if old := slots[k].Load(); old != nil && !wppPlace(bigger, old) {
				ok = false
				break
			}
		}
		if ok {
			return &bigger
		}
	}
}

// wppPlace puts r into a new table, not yet shared, within wppProbes
// slots of its home, and reports whether there was room.
func wppPlace(slots []atomic.Pointer[wppRecorder], r *wppRecorder) bool {
	mask := len(slots) - 1
	i := wppHome(r.g, mask)
	for range wppProbes {
		if slots[i].Load() == nil {
			slots[i].Store(r)
			return true
		}
		i = (i + 1) & mask
	}
	return false
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
	copy(wppHeader[:8], "pcovwpp1")
	wppEnd = wppUnit
	wppFailed = false
	wppOn.Store(true)
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
		wppStopped.Store(true)
		wppOn.Store(false)
		putUint32(wppHeader[24:], getUint32(wppHeader[24:])|1)
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
	wppStopped.Store(true)
	wppOn.Store(false)
	return nil
}

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
