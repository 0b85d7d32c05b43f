//go:build !pathcover_rt

package rt

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// In rt as compiled by the go command (pathcover's own tests and tools;
// programs get rt from pppexec, goroutine_wpp.go), there is no field in
// the runtime's g: recorders are kept in a map by goroutine, which
// testGoroutine, set by rt's tests, tells apart; by default it cannot.
var (
	testGoroutine func() (g uintptr, goid, parent uint64)
	testMu        sync.Mutex
	testRecorders = map[uintptr]unsafe.Pointer{}
)

func recorderField() (unsafe.Pointer, uint64) {
	if testGoroutine == nil {
		return nil, 0
	}
	g, goid, _ := testGoroutine()
	testMu.Lock()
	defer testMu.Unlock()
	return testRecorders[g], goid
}

// recorderFast is recorderField where no field is read inlined: the
// goroutine's own recorder, or wppNoRecorder, never nil.
func recorderFast() unsafe.Pointer {
	p, goid := recorderField()
	if p == nil || (*wppRecorder)(p).goid != goid {
		p = unsafe.Pointer(&wppNoRecorder)
	}
	return p
}

func setRecorderField(rec unsafe.Pointer) (goid, parent uint64) {
	if testGoroutine == nil {
		return 0, 0
	}
	g, goid, parent := testGoroutine()
	testMu.Lock()
	defer testMu.Unlock()
	testRecorders[g] = rec
	return goid, parent
}

// stackBounds is the calling goroutine's stack for memory accesses
// (deps.go); rt's tests cannot know it, so every address counts as the
// heap's.
func stackBounds() (lo, hi uintptr) { return 0, 0 }

// keyHash would hash a map key as the runtime's maps do; without
// pppexec's accessor, every key hashes alike.
func keyHash(k any) uintptr { return 0 }

// flightHooks would ask the runtime to say how the process ends and to
// give goroutines their rings; rt's tests call the hooks themselves, and
// Ring gives rings as the runtime would.
func flightHooks(fatal func(goid uint64, kind uintptr, msg unsafe.Pointer, n int, sig uint32), exit func(goid uint64, failed bool), grow func(), rings unsafe.Pointer) {
}

// Ring returns the calling goroutine's ring (flight.go), as the runtime
// that pppexec patches gives it, but when first asked rather than when
// the goroutine is made: the one in testRecorders for its g, started
// afresh if another goroutine had the g before, or a new one
// (pathcoverGiveRing and pathcoverTakeRing in internal/driver/goroutine.go).
func Ring() *FlightRing {
	p, goid := recorderField()
	r := (*FlightRing)(p)
	if goid == 0 {
		return &flightNowhere.FlightRing
	}
	if r == nil {
		flightMu.Lock()
		flightGrow()
		flightMu.Unlock()
		b := flightTake(flightState.ring)
		if b == nil {
			return &flightNowhere.FlightRing
		}
		r = (*FlightRing)(b)
		r.mask = flightState.mask
		atomic.StoreUint64(&r.tag, flightBlockRing<<32|flightState.ring)
		setRecorderField(b)
	}
	if r.goid != goid {
		// The position first, then the check, then the goroutine: a
		// reader that finds a goid and a check that disagree with a
		// position of 0 sees a ring being handed over.
		atomic.StoreUint64(&r.pos, 0)
		atomic.StoreUint64((*uint64)(unsafe.Add(unsafe.Pointer(r), flightState.ring-flightRingCheck)), ^goid)
		atomic.StoreUint64(&r.goid, goid)
	}
	return r
}

// proc is the P's id in rt's own tests: 0, or what testProc says.
func proc() int {
	if testProc != nil {
		return testProc()
	}
	return 0
}

var testProc func() int
