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
