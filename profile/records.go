package profile

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
)

// Records is what a build recorded, which says what its profile can
// answer: the metadata keeps it (Meta.Records) as the list of the names
// below, in this order, for example ["counts","wpp","deps","tests"].
// Metadata written before it was kept has none (0): a reader that needs
// to know then looks for the files themselves.
type Records uint32

const (
	RecordsCounts  Records = 1 << iota // path counts (every build but a flight recorder's)
	RecordsPPP                         // a PPP build: tested paths counted, the others residual (-interesting)
	RecordsIPPP                        // interprocedural path segments (-ippp)
	RecordsHot                         // hot path tables for functions past the array limit (-hot)
	RecordsFlight                      // each goroutine's last paths, left when the process fails (-flight)
	RecordsWPP                         // whole program paths (-wpp)
	RecordsDeps                        // statements, variables and calls for slicing (-deps)
	RecordsValues                      // the values of variables, for whole execution traces (-wet)
	RecordsTests                       // which tests ran each path (-tests)
	RecordsSharded                     // counters per P (-shard=p)
	RecordsAtomic                      // atomic counters (-atomic, -race)
)

var recordNames = [...]string{"counts", "ppp", "ippp", "hot", "flight", "wpp", "deps", "values", "tests", "sharded", "atomic"}

// Has reports whether r holds every record of want.
func (r Records) Has(want Records) bool { return r&want == want }

// Names are r's records by name, in order.
func (r Records) Names() []string {
	var names []string
	for b := r; b != 0; b &= b - 1 {
		names = append(names, recordNames[bits.TrailingZeros32(uint32(b))])
	}
	return names
}

func (r Records) String() string {
	if r == 0 {
		return "unknown"
	}
	return strings.Join(r.Names(), ",")
}

// MarshalJSON writes r as the list of its names.
func (r Records) MarshalJSON() ([]byte, error) { return json.Marshal(r.Names()) }

// UnmarshalJSON reads the list of names; an unknown name is an error (a
// record this version of pathcover cannot read).
func (r *Records) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return fmt.Errorf("records: %v", err)
	}
	*r = 0
	for _, n := range names {
		found := false
		for i, known := range recordNames {
			if n == known {
				*r |= 1 << i
				found = true
			}
		}
		if !found {
			return fmt.Errorf("records: unknown record %q (written by a newer pathcover?)", n)
		}
	}
	return nil
}
