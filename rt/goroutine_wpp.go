//go:build pathcover_rt

package rt

import "unsafe"

// goroutine returns the calling goroutine's g, as a number, its goid, and
// the goid of the goroutine that created it. pppexec compiles rt with the
// build tag pathcover_rt, and, in a -wpp build, adds the function this
// pulls to package runtime (toolexec/goroutine.go), which pushes it; a
// program that calls no WPP function never refers to it, so builds
// without -wpp link without it. The runtime of a build where pppexec could
// not add it returns zeros.
func goroutine() (g uintptr, goid, parent uint64) {
	p, goid, parent := runtimeGoroutine()
	return uintptr(p), goid, parent
}

//go:linkname runtimeGoroutine runtime.pathcoverGoroutine
func runtimeGoroutine() (g unsafe.Pointer, goid, parentGoid uint64)

// stackBounds returns the calling goroutine's stack, [lo, hi), for memory
// accesses of -deps builds (deps.go), from a second function pppexec adds
// to package runtime; zeros where it could not.
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
