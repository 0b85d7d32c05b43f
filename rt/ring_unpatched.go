//go:build pathcover_rt && !pathcover_patched

package rt

// Ring is never called where the runtime is not patched (builds without
// -wpp or -flight): the goroutines of such a program have no ring.
func Ring() *FlightRing { return &flightNowhere.FlightRing }

// proc is 0 where the runtime is not patched: every goroutine counts in
// shard 0, and a sharded build (which always patches it) is not this one.
func proc() int { return 0 }
