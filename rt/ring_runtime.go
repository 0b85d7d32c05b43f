//go:build pathcover_rt && pathcover_patched

package rt

import "runtime"

// Ring returns the calling goroutine's ring (flight.go): the one in its g
// if it is its own, else the one flightNewRing gives it, which the
// runtime asks for. pppexec compiles rt with the tag pathcover_patched
// against the runtime it patches (toolexec/goroutine.go), which exports
// PathcoverFlightRing so that both inline into instrumented code.
func Ring() *FlightRing { return (*FlightRing)(runtime.PathcoverFlightRing()) }
