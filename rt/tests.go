package rt

import (
	"sync"
	"sync/atomic"
	"syscall"
)

// Per-test attribution (pppexec -tests). pppexec patches the compile of
// package testing (internal/driver/testing.go) so that it calls the functions
// below as tests start, pause and end; at each call rt reads how every
// counter grew since the last one and appends it, with the tests that ran
// meanwhile, to pathcover.<pid>.<n>.tests beside the counter file (the
// format is defined in package profile, tests.go).
//
// Which tests ran meanwhile: those started and not ended, less those
// paused (in t.Parallel, until the parent's function returns, or waiting
// for their own parallel subtests) and those blocked in t.Run while a
// subtest they started runs (until it ends or calls t.Parallel). That is
// exact for tests whose code runs on the goroutines they wait for, the
// assumption package testing makes when it attributes data races; code a
// test leaves running on another goroutine is counted to whatever test
// runs at the time, or to none.

// testRun is one test's state.
type testRun struct {
	id       uint64
	parent   *testRun
	started  bool
	paused   bool
	blocking bool // its parent is blocked in t.Run until it ends or pauses
	blockers int  // subtests it is blocked on
}

// testSegment is a registered counter segment, and its words at the last
// event.
type testSegment struct {
	hash      string
	words     []uint64
	last      []uint64 // nil before the first event: all zero
	announced bool
}

// attributionState is the process's attribution, attribution.
type attributionState struct {
	mu       sync.Mutex
	failed   bool
	file     ownFile
	segments []*testSegment
	tests    map[string]*testRun
	active   []*testRun // started, not ended
	nextID   uint64
	running  []uint64 // the last 'R' written
	said     bool     // an 'R' was written
	rec      []byte   // the records of one event, written at once
	scratch  []byte
	grew     []uint64 // pairs (index, amount) of one segment

	countsDir, countsBase string // the counter file's, "" for none
}

var attribution = attributionState{file: ownFile{fd: -1}}

// attributeSegment keeps a counter segment that Register mapped from the
// counter file, to attribute its counts. Register calls it holding mu, so
// the counter file's name is read safely; events never take mu.
func attributeSegment(hash string, words []uint64) {
	a := &attribution
	dir, base := countsFile()
	a.mu.Lock()
	a.segments = append(a.segments, &testSegment{hash: hash, words: words})
	a.countsDir, a.countsBase = dir, base
	a.mu.Unlock()
}

// TestPackage says which package's tests the process runs; the patched
// testing package calls it when M.Run starts.
func TestPackage(path string) {
	testEvent(func() { addRecord(testRecPackage, []byte(path)) })
}

// TestStart says that a test starts, a subtest of parent (whose t.Run
// then waits) unless parent is "" or not a test.
func TestStart(name, parent string) {
	if name == "" {
		return // the root of the tests
	}
	wppTest(wppTestStarted, name, parent)
	testEvent(func() {
		a := &attribution
		t := a.tests[name]
		if t == nil {
			p := a.tests[parent]
			a.nextID++
			t = &testRun{id: a.nextID, parent: p}
			a.tests[name] = t
			var pid uint64
			if p != nil {
				pid = p.id
			}
			b := appendUvarint(appendUvarint(a.scratch[:0], t.id), pid)
			a.scratch = append(b, name...)
			addRecord(testRecName, a.scratch)
		}
		if t.started {
			return
		}
		t.started, t.paused, t.blockers = true, false, 0
		if t.parent != nil && t.parent.started {
			t.blocking = true
			t.parent.blockers++
		}
		a.active = append(a.active, t)
	})
}

// TestParallel says that a test called t.Parallel: it pauses until its
// parent's function returns, and its parent's t.Run returns.
func TestParallel(name string) {
	testEvent(func() {
		t := attribution.tests[name]
		if t == nil || !t.started {
			return
		}
		addRecord(testRecParallel, appendUvarint(attribution.scratch[:0], t.id))
		t.paused = true
		t.unblock()
	})
}

// TestWait says that a test's function returned and it waits for its
// parallel subtests.
func TestWait(name string) {
	testEvent(func() {
		if t := attribution.tests[name]; t != nil && t.started {
			t.paused = true
		}
	})
}

// TestResume says that a paused test runs again.
func TestResume(name string) {
	testEvent(func() {
		if t := attribution.tests[name]; t != nil && t.started {
			t.paused = false
		}
	})
}

// TestEnd says that a test ended, its cleanups run.
func TestEnd(name string) {
	wppTest(wppTestEnded, name, "")
	testEvent(func() {
		a := &attribution
		t := a.tests[name]
		if t == nil || !t.started {
			return
		}
		t.started = false
		t.unblock()
		for i, u := range a.active {
			if u == t {
				a.active = append(a.active[:i], a.active[i+1:]...)
				break
			}
		}
	})
}

func (t *testRun) unblock() {
	if t.blocking {
		t.blocking = false
		t.parent.blockers--
	}
}

// testEvent attributes the counts made since the last event to the tests
// that ran, changes the tests' state with change, and writes the records,
// one write for the event.
func testEvent(change func()) {
	a := &attribution
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failed {
		return
	}
	if !a.file.made() {
		if a.countsDir == "" {
			a.failed = true // counting in memory: nothing to attribute
			return
		}
		if err := a.file.create(a.countsDir, ".tests", syscall.O_WRONLY|syscall.O_APPEND); err != nil {
			testsFail(err)
			return
		}
		a.tests = make(map[string]*testRun)
		a.rec = append(a.rec[:0], testsMagic...)
		addRecord(testRecCounts, []byte(a.countsBase))
	}
	a.addDelta()
	change()
	a.addRunning()
	fd, _, err := a.file.descriptor()
	if err == nil {
		err = writeAll(fd, a.rec)
	}
	a.rec = a.rec[:0]
	if err != nil {
		testsFail(err)
	}
}

// addDelta adds a 'D' record of how the counters grew since the last
// event, if they did, and an 'H' record first for each segment it names
// for the first time. Counters are read atomically: other goroutines
// count meanwhile, and -race builds count atomically.
func (a *attributionState) addDelta() {
	body := a.scratch[:0]
	segments := 0
	for i, s := range a.segments {
		if s.last == nil {
			s.last = make([]uint64, len(s.words))
		}
		a.grew = a.grew[:0]
		for j := range s.words {
			if v := atomic.LoadUint64(&s.words[j]); v != s.last[j] {
				a.grew = append(a.grew, uint64(j), v-s.last[j])
				s.last[j] = v
			}
		}
		if len(a.grew) == 0 {
			continue
		}
		if !s.announced {
			addRecord(testRecSegment, append(appendUvarint(nil, uint64(i)), hashBytes(s.hash)...))
			s.announced = true
		}
		segments++
		body = appendUvarint(appendUvarint(body, uint64(i)), uint64(len(a.grew)/2))
		next := uint64(0)
		for k := 0; k < len(a.grew); k += 2 {
			body = appendUvarint(appendUvarint(body, a.grew[k]-next), a.grew[k+1])
			next = a.grew[k] + 1
		}
	}
	a.scratch = body
	if segments > 0 {
		// The count of segments comes first: encode it, then the body.
		head := appendUvarint(nil, uint64(segments))
		start := len(a.rec)
		a.rec = append(appendUvarint(append(a.rec, testRecDelta), uint64(len(head)+len(body))), head...)
		a.rec = append(a.rec, body...)
		a.rec = appendUint32(a.rec, checksum(a.rec[start:]))
	}
}

// addRunning adds an 'R' record of the tests that run from now on, if
// they are not those of the last.
func (a *attributionState) addRunning() {
	ids := a.running[:0:0]
	for _, t := range a.active {
		if !t.paused && t.blockers == 0 {
			ids = append(ids, t.id)
		}
	}
	sortIDs(ids)
	if a.said && equalIDs(ids, a.running) {
		return
	}
	a.running, a.said = ids, true
	b := appendUvarint(a.scratch[:0], uint64(len(ids)))
	for _, id := range ids {
		b = appendUvarint(b, id)
	}
	a.scratch = b
	addRecord(testRecRunning, b)
}

// sortIDs sorts a few ids (insertion sort: rt imports no sort).
func sortIDs(ids []uint64) {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
}

func equalIDs(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// testsFail reports that the tests file cannot be written, and stops
// attributing.
func testsFail(err error) {
	writeStderr("pathcover: cannot write which tests ran which paths: " + err.Error() + "\n")
	attribution.failed = true
}

// addRecord appends a record to the event's.
func addRecord(kind byte, payload []byte) {
	a := &attribution
	start := len(a.rec)
	a.rec = append(appendUvarint(append(a.rec, kind), uint64(len(payload))), payload...)
	a.rec = appendUint32(a.rec, checksum(a.rec[start:]))
}

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
