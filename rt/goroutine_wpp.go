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
