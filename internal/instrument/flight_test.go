package instrument

import (
	"testing"

	"github.com/pathcover/pathcover/rt"
)

// TestFlightRingEntries checks that the rings the generated code indexes
// (flightRingType) have the size that rt gives them, for every -flight
// that pppexec accepts.
func TestFlightRingEntries(t *testing.T) {
	for entries := 1; entries <= rt.FlightMaxEntries; entries++ {
		if got, want := flightRingEntries(entries), rt.FlightRingEntries(entries); got != want {
			t.Fatalf("-flight=%d: the generated code's rings have %d entries, rt's %d", entries, got, want)
		}
	}
}
