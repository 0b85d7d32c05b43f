//go:build pathcover_rt

package rt

import "unsafe"

// recorderField returns the calling goroutine's WPP recorder, from the
// field pppexec adds to the runtime's g, and the goroutine's id; the
// recorder may be one a goroutine that had the same g before left there
// (its goid tells). pppexec compiles rt with the build tag pathcover_rt,
// and adds the functions these pull to package runtime in every build
// (internal/driver/goroutine.go), which pushes them. The runtime of a build
// where pppexec could not add the field returns nil and 0.
//
//go:linkname recorderField runtime.pathcoverRecorder
func recorderField() (rec unsafe.Pointer, goid uint64)

// setRecorderField sets the calling goroutine's recorder and returns its
// id and the id of the goroutine that created it; 0 and 0 where pppexec
// could not add the field.
//
//go:linkname setRecorderField runtime.pathcoverSetRecorder
func setRecorderField(rec unsafe.Pointer) (goid, parentGoid uint64)

// stackBounds returns the calling goroutine's stack, [lo, hi), for memory
// accesses of -deps builds (deps.go), from a function pppexec adds to
// package runtime; zeros where it could not.
func stackBounds() (lo, hi uintptr) { return runtimeStack() }

//go:linkname runtimeStack runtime.pathcoverStack
func runtimeStack() (lo, hi uintptr)

// keyHash hashes a map key as the runtime's maps do (deps.go).
func keyHash(k any) uintptr {
	words := (*[2]unsafe.Pointer)(unsafe.Pointer(&k))
	return runtimeHash(words[0], words[1])
}

//go:linkname runtimeHash runtime.pathcoverHash
func runtimeHash(typ, data unsafe.Pointer) uintptr

// flightHooks asks the runtime to call fatal at the top of fatalpanic,
// fatalthrow and fatalsignal (with the panic's or the throw's message and
// the signal), exit from its exit hooks (if not nil), and, once rings is
// set (a *flightShared), to give each goroutine it makes a ring of that
// file and call grow when the file's room runs short, for the flight
// recorder (flight.go), through a function pppexec adds to package
// runtime; a runtime where it could not ignores them. The WPP recorder
// (wpp.go), which builds with -flight never have, gives it only exit, to
// mark the end of its file.
//
//go:linkname flightHooks runtime.pathcoverFlightHooks
func flightHooks(fatal func(goid uint64, kind uintptr, msg unsafe.Pointer, n int, sig uint32), exit func(goid uint64, failed bool), grow func(), rings unsafe.Pointer)
