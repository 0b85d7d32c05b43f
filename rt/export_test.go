package rt

// SetTestGoroutine tells goroutines apart for rt's tests, which run with
// the go command's runtime, where pppexec's accessor is missing
// (goroutine_plain.go).
func SetTestGoroutine(f func() (g uintptr, goid, parent uint64)) { testGoroutine = f }

// UvarintCode is uvarintCode, for the tests of the codes WPPRegister and
// the path records encode.
var UvarintCode = uvarintCode

// The flight recorder's hooks, which the runtime calls in programs that
// pppexec builds (goroutine_wpp.go) and rt's tests call themselves.
var (
	FlightExitHook  = flightExitHook
	FlightFatalHook = flightFatalHook
)

// SetTestProc says which P runs the calling goroutine, for the tests of
// sharded counters (goroutine_plain.go).
func SetTestProc(f func() int) { testProc = f }

// Home is home, for the test that it is profile.HashHome.
var Home = home

// Checksum is checksum, which TestChecksum compares with hash/crc32.
var Checksum = checksum

// SetWPPWriteFault makes the writes of the WPP file's extents fail as
// fault says (nil: they succeed), and WPPExitHook is the hook the runtime
// calls at the process's end; for the tests of a recording cut short.
func SetWPPWriteFault(fault func(off int64) error) { wppWriteFault = fault }

var WPPExitHook = wppExitHook
