package buildspec

import (
	"errors"
	"fmt"

	"github.com/pathcover/pathcover/profile"
)

// A Spec is what a pppexec build instruments, records and how. Its zero
// value is not a build: Default gives the defaults, which AddFlags also
// registers.
type Spec struct {
	// Pkgs are the patterns of the packages to instrument: import paths
	// with ... wildcards, "main" for the main module's packages (the
	// workspace's modules with go.work), "std" for the standard library.
	// Empty means "main". (-pkgs)
	Pkgs []string
	// Dir is where counts go when $PATHCOVERDIR is not set (absolute), or
	// empty for nowhere. (pppexec -dir)
	Dir string
	// Strict makes a package that cannot be instrumented fail the build,
	// instead of compiling it unchanged with a warning. (-strict)
	Strict bool
	// Verbose reports each package instrumented; it alone changes nothing
	// that a compile produces. (pppexec -v)
	Verbose bool
	// Trace also writes a witness for every edge with a probe site, for the
	// path oracle (see package profile's trace format). (-trace)
	Trace bool

	// Atomic makes counter updates atomic, as -race builds need; pppexec
	// forces it on under -race. (-atomic)
	Atomic bool
	// Shard says whether goroutines on different Ps count in different
	// copies of the counters, so that parallel code does not fight for
	// their cache lines (rt/shards.go). (-shard)
	Shard Sharding
	// MaxArrayPaths is the largest number of paths counted in an array;
	// functions with more get a hash table of HashSlots slots.
	// (-arraylimit, -hashslots)
	MaxArrayPaths uint64
	HashSlots     int
	// HotEntries, if not 0, gives those functions a hot path table of
	// that many entries (rounded up to whole sets of profile.HotWays)
	// instead of a hash table: it keeps their hottest paths, each count
	// with an error bound (rt/hot.go). (-hot)
	HotEntries int

	// PPPProfile, if set, makes a PPP build: it names the profile (a
	// directory or a text profile) whose paths are the interesting ones.
	// (-interesting)
	PPPProfile string
	// PPPSlots is the largest PPP array of a function; PPPLarge says what a
	// function whose PPP numbering needs more gets. (-pppslots, -ppplarge)
	PPPSlots uint64
	PPPLarge LargePPP
	// PPPAlways gives a PPP array to every function and supergraph with
	// interesting and other paths, even where a Ball-Larus array would be
	// no larger, or, for a supergraph, fits MaxArrayPaths. (-pppalways)
	PPPAlways bool
	// PPPSmall is the number of paths up to which a function of a PPP
	// build counts in a Ball-Larus array even if its PPP array would be
	// smaller. (-pppsmall)
	PPPSmall uint64

	// IPPPProfile, if set, makes an interprocedural build: it names the
	// profile whose paths choose the call sites to follow into their
	// callees, Depth calls deep. (-ippp, -ipppdepth)
	IPPPProfile string
	Depth       int
	// ShareBlocks is the size, in blocks, from which a callee's clone is
	// shared by the sites of the package's supergraphs that call it (thesis
	// 3.4.5), each reading its increments from a table, instead of one
	// clone per site; 0 gives every site a clone of its own. (-ipppshare)
	ShareBlocks int
	// ProfileKey is where the fingerprint of the PPP and IPPP profiles
	// goes (internal/driver/profilekey.go). (-profilekey)
	ProfileKey ProfileKey

	// WPP records whole program paths: each call's entry, the Ball-Larus
	// paths it completes and its return, and the goroutines it starts, in
	// the order of each goroutine (rt/wpp.go, profile/wpp.go). (-wpp)
	WPP bool
	// WPPLimit is the size in bytes past which a process stops recording
	// whole program paths; 0 for rt's default (DefaultWPPLimit).
	// $PATHCOVERWPPMAX overrides it when the program runs. (-wppmax)
	WPPLimit int64
	// Deps describes each function's statements, variables and calls in
	// the metadata, for slicing; it needs WPP, whose paths the slicer
	// replays. (-deps)
	Deps bool
	// Values records the values of each function's symbolic variables,
	// for whole execution traces; it needs Deps. (-wet)
	Values bool
	// Flight, if not 0, makes a flight-recorder build: instead of counting
	// paths, each goroutine keeps the last Flight paths it took (rounded
	// up to a power of two) in a ring (rt/flight.go). (-flight)
	Flight int
	// FlightLimit is the largest size in bytes of a process's rings; 0
	// for rt's default (DefaultFlightLimit). $PATHCOVERFLIGHTMAX overrides
	// it when the program runs. (-flightmax)
	FlightLimit int64
	// Tests attributes counts to the tests that make them: package testing
	// is compiled with calls that say when tests start and end. (-tests)
	Tests bool
}

// The defaults of a Spec's numbers.
const (
	DefaultMaxArrayPaths = 1 << 16
	DefaultHashSlots     = 1 << 10
	DefaultPPPSlots      = 1 << 12
	DefaultPPPSmall      = 256 // 2 KiB of counters
	DefaultDepth         = 1
	DefaultShareBlocks   = 16
	DefaultWPPLimit      = 1 << 30  // rt's, when WPPLimit is 0
	DefaultFlightLimit   = 64 << 20 // rt's, when FlightLimit is 0
	// MaxHotEntries is the largest hot path table.
	MaxHotEntries = 1 << 24
	// MaxFlightEntries is the largest flight ring (rt.FlightMaxEntries,
	// which a test checks against this).
	MaxFlightEntries = 1 << 20
	minWPPLimit      = 1 << 10
	minFlightLimit   = 64 << 10
)

// Default returns the Spec of a plain Ball-Larus build with the default
// numbers: what pppexec builds with no flags.
func Default() Spec {
	s := Spec{Shard: ShardNone, PPPSmall: DefaultPPPSmall, ShareBlocks: DefaultShareBlocks}
	s.SetDefaults()
	return s
}

// SetDefaults gives the numbers that cannot be zero their defaults, so that
// a Spec written as a literal (in tests) is a build. PPPSmall and
// ShareBlocks, which can, keep their zero.
func (s *Spec) SetDefaults() {
	if s.MaxArrayPaths == 0 {
		s.MaxArrayPaths = DefaultMaxArrayPaths
	}
	if s.HashSlots == 0 {
		s.HashSlots = DefaultHashSlots
	}
	if s.PPPSlots == 0 {
		s.PPPSlots = DefaultPPPSlots
	}
	if s.PPPLarge == "" {
		s.PPPLarge = PPPTruncate
	}
	if s.Depth < 1 {
		s.Depth = DefaultDepth
	}
}

// PPP reports whether the build is a PPP build (-interesting).
func (s *Spec) PPP() bool { return s.PPPProfile != "" }

// IPPP reports whether the build is an interprocedural one (-ippp).
func (s *Spec) IPPP() bool { return s.IPPPProfile != "" }

// Imply sets what the flags that ask for more imply: -wet records what
// -deps does, and -deps the whole program paths it replays. The flag
// parsers call it before Check.
func (s *Spec) Imply() {
	if s.Values {
		s.Deps = true
	}
	if s.Deps {
		s.WPP = true
	}
}

// Check reports whether s is a build, with an error that names the flags
// that cannot go together. It is the one statement of which combinations
// are builds: pppexec's and pathcover test's flag parsers and
// instrument.Package all call it.
func (s *Spec) Check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if s.Flight < 0 || s.Flight > MaxFlightEntries {
		bad("-flight %d: a ring holds 1 to %d paths", s.Flight, MaxFlightEntries)
	}
	if s.Flight > 0 && (s.WPP || s.Deps || s.Values || s.PPP() || s.IPPP() || s.Tests) {
		// A flight build counts nothing, and keeps each goroutine's ring
		// where a -wpp build keeps its recorder.
		bad("-flight records Ball-Larus paths alone: it cannot be combined with -wpp, -deps, -wet, -interesting, -ippp or -tests")
	}
	if s.Values && !s.Deps || s.Deps && !s.WPP {
		bad("-wet needs -deps, and -deps needs -wpp (the flags imply them)")
	}
	if s.WPP && (s.PPP() || s.IPPP()) {
		// Path events carry Ball-Larus ids, which a PPP build does not
		// keep in every function, and an interprocedural build's clones
		// would have to record their callees' calls.
		bad("-wpp records Ball-Larus builds only: it cannot be combined with -interesting or -ippp")
	}
	if s.HashSlots < 1 || s.MaxArrayPaths < 1 || s.PPPSlots < 1 {
		bad("-arraylimit, -hashslots and -pppslots must be positive")
	}
	if s.HotEntries < 0 || s.HotEntries > MaxHotEntries {
		bad("-hot %d: a hot path table holds 0 to %d entries", s.HotEntries, MaxHotEntries)
	}
	if s.HotEntries > 0 && (s.PPP() || s.IPPP() || s.Flight > 0) {
		// A PPP build's functions count their interesting paths exactly
		// and the rest as residual; a flight build counts nothing.
		bad("-hot is for Ball-Larus builds: it cannot be combined with -interesting, -ippp or -flight")
	}
	if s.ShareBlocks < 0 {
		bad("-ipppshare must be at least 0")
	}
	if s.Depth < 1 {
		bad("-ipppdepth must be at least 1")
	}
	if s.WPPLimit != 0 && s.WPPLimit < minWPPLimit {
		bad("-wppmax %d: a recording needs at least 1K", s.WPPLimit)
	}
	if s.FlightLimit != 0 && s.FlightLimit < minFlightLimit {
		bad("-flightmax %d: the rings need at least 64K", s.FlightLimit)
	}
	for _, v := range []interface{ check() error }{s.Shard, s.PPPLarge, s.ProfileKey} {
		if err := v.check(); err != nil {
			bad("%v", err)
		}
	}
	return errors.Join(errs...)
}

// Records says what a profile of the build can answer, for the metadata.
func (s *Spec) Records() profile.Records {
	var r profile.Records
	set := func(on bool, bit profile.Records) {
		if on {
			r |= bit
		}
	}
	set(s.Flight == 0, profile.RecordsCounts)
	set(s.PPP(), profile.RecordsPPP)
	set(s.IPPP(), profile.RecordsIPPP)
	set(s.HotEntries > 0, profile.RecordsHot)
	set(s.Flight > 0, profile.RecordsFlight)
	set(s.WPP, profile.RecordsWPP)
	set(s.Deps, profile.RecordsDeps)
	set(s.Values, profile.RecordsValues)
	set(s.Tests, profile.RecordsTests)
	set(s.Shard == ShardPerP, profile.RecordsSharded)
	set(s.Atomic, profile.RecordsAtomic)
	return r
}
