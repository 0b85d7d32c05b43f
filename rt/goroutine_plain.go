//go:build !pathcover_rt

package rt

import (
	"sync"
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

// flightHooks would ask the runtime to say how the process ends; rt's
// tests call the hooks themselves.
func flightHooks(fatal func(goid uint64, kind uintptr), exit func(goid uint64, failed bool), ring func(goid uint64) unsafe.Pointer) {
}

// Ring returns the calling goroutine's ring (flight.go), as the function
// that pppexec adds to the runtime does: its own, from testRecorders, or
// a new one.
func Ring() *FlightRing {
	p, goid := recorderField()
	if r := (*FlightRing)(p); r != nil && r.goid == goid {
		return r
	}
	return (*FlightRing)(flightNewRing(goid))
}
