//go:build pathcover_rt && pathcover_stockruntime

package rt

import "unsafe"

// Ring and proc against the stock runtime, which has no ring to give:
// rt's own tests build rt so (go build -tags
// pathcover_rt,pathcover_stockruntime) to see what the compiler inlines.
// pppexec never sets the tag: it patches the runtime in every build
// (internal/driver/goroutine.go), and compiles ring_runtime.go against it.
func Ring() *FlightRing { return &flightNowhere.FlightRing }

func proc() int { return 0 }

// recorderFast stands in for the patched runtime's load of the g's field
// (ring_runtime.go), at nearly its inlining cost (3 against 7), so that
// TestWPPInlined sees what instrumented code gets, with the difference
// as its margin: nothing runs rt built so.
func recorderFast() unsafe.Pointer { return stockG.field }

var stockG *struct{ field unsafe.Pointer }
