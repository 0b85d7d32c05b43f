//go:build pathcover_rt && !pathcover_stockruntime

package rt

import (
	"runtime"
	"unsafe"
)

// Ring returns the calling goroutine's ring (flight.go): the one the
// runtime gave it when it made the goroutine, or one that nobody reads.
// pppexec compiles rt (tag pathcover_rt) against the runtime it patches in
// every build (internal/driver/goroutine.go), which exports PathcoverFlightRing
// so that both inline into instrumented code: a load of the g's field,
// never nil in a -flight build, and no call.
func Ring() *FlightRing { return (*FlightRing)(runtime.PathcoverFlightRing()) }

// proc returns the id of the P that runs the calling goroutine
// (runtime.PathcoverProc, which the patched runtime exports so that this
// inlines into every count of a sharded build).
func proc() int { return runtime.PathcoverProc() }

// recorderFast is recorderField for the inlined enter record
// (WPPCode.TryEnter): the g's field, through runtime.PathcoverFlightRing,
// which inlines (one load, no call). It is never nil, and it is the
// goroutine's own recorder or none: the runtime gives every goroutine of a
// program that records a field of its own (pathcoverFreshRecorders), the
// runtime's ring of the goroutines that have none, whose words read as a
// recorder without room (nothing writes them in a -wpp build, which never
// keeps rings).
func recorderFast() unsafe.Pointer { return runtime.PathcoverFlightRing() }
