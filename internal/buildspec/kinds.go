package buildspec

import "fmt"

// A Sharding says whether a build keeps a copy of each package's counters
// per P (rt/shards.go); -shard spells it as the constant's value. The zero
// value is ShardNone's.
type Sharding string

const (
	ShardNone Sharding = "none" // one copy, which all goroutines count in
	ShardPerP Sharding = "p"    // a copy per P: arrays and PPP arrays
)

// String and Set make a Sharding a flag.Value.
func (s *Sharding) String() string { return string(*s) }

func (s *Sharding) Set(v string) error {
	x := Sharding(v)
	if err := x.check(); err != nil {
		return err
	}
	*s = x
	return nil
}

func (s Sharding) check() error {
	switch s {
	case "", ShardNone, ShardPerP:
		return nil
	}
	return fmt.Errorf("-shard %q: want %s or %s", string(s), ShardPerP, ShardNone)
}

// Sharded reports whether s keeps counters per P.
func (s Sharding) Sharded() bool { return s == ShardPerP }

// A LargePPP is what a function whose PPP numbering needs more than
// Spec.PPPSlots slots gets; -ppplarge spells it as the constant's value.
type LargePPP string

const (
	PPPTruncate  LargePPP = "truncate" // the first slots; interesting paths past them are residual
	PPPHashTable LargePPP = "hash"     // a hash table of the interesting paths
)

// String and Set make a LargePPP a flag.Value.
func (l *LargePPP) String() string { return string(*l) }

func (l *LargePPP) Set(s string) error {
	v := LargePPP(s)
	if err := v.check(); err != nil {
		return err
	}
	*l = v
	return nil
}

func (l LargePPP) check() error {
	switch l {
	case "", PPPTruncate, PPPHashTable:
		return nil
	}
	return fmt.Errorf("-ppplarge %q: want %s or %s", string(l), PPPTruncate, PPPHashTable)
}

// A ProfileKey is where a PPP or interprocedural build keys its profiles
// in the go command's cache: pppexec's build ID, or the instrumented
// packages' -gcflags (internal/driver/profilekey.go says why and how).
type ProfileKey string

const (
	KeyInBuildID ProfileKey = "buildid" // the fingerprint is in pppexec's build ID
	KeyInGcflags ProfileKey = "gcflags" // it is in the instrumented packages' -gcflags
)

// String and Set make a ProfileKey a flag.Value.
func (k *ProfileKey) String() string { return string(*k) }

func (k *ProfileKey) Set(s string) error {
	v := ProfileKey(s)
	if err := v.check(); err != nil {
		return err
	}
	*k = v
	return nil
}

func (k ProfileKey) check() error {
	switch k {
	case "", KeyInBuildID, KeyInGcflags:
		return nil
	}
	return fmt.Errorf("-profilekey %q: want %s or %s", string(k), KeyInBuildID, KeyInGcflags)
}
