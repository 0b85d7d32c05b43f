//go:build !pathcover_rt

package rt

// goroutine, in rt as compiled by the go command (pathcover's own tests and
// tools; programs get rt from pppexec, goroutine_wpp.go), tells goroutines
// apart through testGoroutine, which rt's tests set; by default it cannot.
func goroutine() (g uintptr, goid, parent uint64) {
	if testGoroutine != nil {
		return testGoroutine()
	}
	return 0, 0, 0
}

var testGoroutine func() (g uintptr, goid, parent uint64)

// stackBounds is the calling goroutine's stack for memory accesses
// (deps.go); rt's tests cannot know it, so every address counts as the
// heap's.
func stackBounds() (lo, hi uintptr) { return 0, 0 }

// keyHash would hash a map key as the runtime's maps do; without
// pppexec's accessor, every key hashes alike.
func keyHash(k any) uintptr { return 0 }
