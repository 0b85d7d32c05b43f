package buildspec

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// AddFlags registers the flags of what a build instruments and records on
// fs, bound to s, whose values are their defaults: pppexec's and pathcover
// test's one set. The commands add their own beside them (pppexec's -dir,
// -v, -trace and -printgcflags; pathcover test's -dir and -json): -v and
// -trace are go test's flags too.
func (s *Spec) AddFlags(fs *flag.FlagSet) { s.addFlags(fs, false) }

// AddPPPExecFlags registers every flag of s, pppexec's -dir, -v and
// -trace too.
func (s *Spec) AddPPPExecFlags(fs *flag.FlagSet) { s.addFlags(fs, true) }

// addFlags is the one list of the build's flags, with their help; Args
// spells a Spec by it too.
func (s *Spec) addFlags(fs *flag.FlagSet, pppexec bool) {
	fs.Var((*patterns)(&s.Pkgs), "pkgs", "comma-separated import path `patterns` of the packages to instrument (default main: the main module's, or the workspace's)")
	if pppexec {
		fs.StringVar(&s.Dir, "dir", s.Dir, "`dir` where profiled programs write their profile when $PATHCOVERDIR is not set")
		fs.BoolVar(&s.Verbose, "v", s.Verbose, "report each package instrumented")
		fs.BoolVar(&s.Trace, "trace", s.Trace, "also write the witnesses of the path oracle (slow; for tests)")
	}
	fs.BoolVar(&s.Strict, "strict", s.Strict, "fail the build if a package cannot be instrumented, or a file of the -interesting or -ippp profile cannot be read")
	fs.BoolVar(&s.Atomic, "atomic", s.Atomic, "count atomically (always on with -race)")
	fs.Var(&s.Shard, "shard", "`copies` of each package's counters: none (one, which all goroutines share) or p (one per P, so that goroutines running at once on several cores never write the same cache line: parallel code costs a tenth of what it does with one copy, serial code more, since each count first finds its P)")
	fs.Uint64Var(&s.MaxArrayPaths, "arraylimit", s.MaxArrayPaths, "functions with more than `n` paths count in a hash table")
	fs.IntVar(&s.HashSlots, "hashslots", s.HashSlots, "`n` slots in each hash table")
	fs.IntVar(&s.HotEntries, "hot", s.HotEntries, "give functions with more than -arraylimit paths a hot path table of `n` entries (sets of 4) instead of a hash table: it keeps their hottest paths, each count an estimate within a bound")
	fs.BoolVar(&s.Tests, "tests", s.Tests, "attribute counts to the tests that make them: compile package testing with calls that say when each test starts, pauses and ends, and write which tests ran what into pathcover.*.tests files of the profile (see pathcover tests and pathcover affected)")
	fs.BoolVar(&s.WPP, "wpp", s.WPP, "also record whole program paths: each goroutine's calls, the Ball-Larus paths each call completes, and the goroutines it starts, in order, into pathcover.*.wpp files of the profile (see pathcover wpp)")
	fs.Var(&size{&s.WPPLimit, DefaultWPPLimit}, "wppmax", "with -wpp: a process stops recording when its file reaches `size` (bytes, or with K, M or G); $PATHCOVERWPPMAX overrides it when the program runs")
	fs.BoolVar(&s.Deps, "deps", s.Deps, "also describe each function's statements, variables and calls in the metadata, and record whole program paths (as -wpp), for slicing (see pathcover slice)")
	fs.BoolVar(&s.Values, "wet", s.Values, "also record the values each instrumented function gives its variables, besides what -deps records, for whole execution traces (see pathcover wet)")
	fs.IntVar(&s.Flight, "flight", s.Flight, "flight recorder: instead of counting paths, each goroutine keeps the last `n` Ball-Larus paths it took (rounded up to a power of two) in a ring that a failure leaves in a pathcover.*.flight file of the profile (see pathcover flight)")
	fs.Var(&size{&s.FlightLimit, DefaultFlightLimit}, "flightmax", "with -flight: the rings of a process take at most `size` (bytes, or with K, M or G); later goroutines get none; $PATHCOVERFLIGHTMAX overrides it when the program runs")
	fs.StringVar(&s.PPPProfile, "interesting", s.PPPProfile, "PPP build: count the paths that the profile in `dir|file` ran (the tested paths) in arrays, record every other path as residual")
	fs.Uint64Var(&s.PPPSlots, "pppslots", s.PPPSlots, "PPP build: the largest PPP array of a function, in `slots`")
	fs.Uint64Var(&s.PPPSmall, "pppsmall", s.PPPSmall, "PPP build: a function with at most `n` paths, or with no more than twice its PPP slots, counts in a Ball-Larus array, which is cheaper on every path and records residual paths itself")
	fs.BoolVar(&s.PPPAlways, "pppalways", s.PPPAlways, "PPP build: give every function and supergraph with tested and untested paths a PPP array, even where -pppsmall (or, for a supergraph, -arraylimit) would give it a Ball-Larus array")
	fs.Var(&s.PPPLarge, "ppplarge", "PPP build: `policy` for a function whose PPP numbering needs more than -pppslots slots: truncate (tested paths past the array are recorded as residual, and reports count them as tested) or hash (a hash table of the tested paths)")
	fs.StringVar(&s.IPPPProfile, "ippp", s.IPPPProfile, "interprocedural build: also count the paths of each caller with the callees of its call sites inlined (interprocedural path segments), at the sites on paths that the profile in `dir|file` ran; the packages of callers and callees must be instrumented")
	fs.IntVar(&s.Depth, "ipppdepth", s.Depth, "interprocedural build: segments go `n` calls deep (the callees' sites on their paths that ran are inlined too)")
	fs.IntVar(&s.ShareBlocks, "ipppshare", s.ShareBlocks, "interprocedural build: a callee of at least `n` blocks called from sites of several of the package's supergraphs has one clone that they share, which reads each site's increments from a table, instead of a clone per site (smaller code, a little slower); 0: a clone per site")
	fs.Var(&s.ProfileKey, "profilekey", "where the go build cache keys the -interesting and -ippp profiles: `place` buildid (pppexec's build ID: every package is compiled again for a new profile) or gcflags (the instrumented packages' -gcflags, which must then carry the key that pppexec -printgcflags prints: a new profile compiles only those packages again)")
}

// Args spells s as pppexec's flags: those whose values are not Default's,
// by name, each one word.
func (s *Spec) Args() []string {
	def, spec := Default(), *s
	defs, vals := flag.NewFlagSet("", flag.ContinueOnError), flag.NewFlagSet("", flag.ContinueOnError)
	def.AddPPPExecFlags(defs)
	spec.AddPPPExecFlags(vals)
	var args []string
	vals.VisitAll(func(f *flag.Flag) {
		v := f.Value.String()
		if v == defs.Lookup(f.Name).Value.String() {
			return
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && v == "true" {
			args = append(args, "-"+f.Name)
			return
		}
		args = append(args, "-"+f.Name+"="+v)
	})
	return args
}

// Toolexec returns go's -toolexec flag that runs command (pppexec, or
// pathcover pppexec) with s's flags: each word that needs it quoted as the
// go command splits the flag's value.
func (s *Spec) Toolexec(command ...string) string {
	var words []string
	for _, w := range append(command, s.Args()...) {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\") {
			w = strconv.Quote(w)
		}
		words = append(words, w)
	}
	return "-toolexec=" + strings.Join(words, " ")
}

// patterns is -pkgs: comma-separated.
type patterns []string

func (p *patterns) String() string { return strings.Join(*p, ",") }

func (p *patterns) Set(v string) error {
	*p = nil
	if v != "" {
		*p = strings.Split(v, ",")
	}
	return nil
}

// size is a size flag: bytes, or with K, M or G; its default is stored
// as 0, so that a build given it explicitly is the same build.
type size struct {
	p   *int64
	def int64
}

func (z *size) String() string {
	if z.p == nil {
		return ""
	}
	return FormatSize(cmpOr(*z.p, z.def))
}

func (z *size) Set(v string) error {
	n, ok := ParseSize(v)
	if !ok {
		return fmt.Errorf("%q is not a size (such as 512K, 64M or 2G)", v)
	}
	if n == z.def {
		n = 0
	}
	*z.p = n
	return nil
}

func cmpOr(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

// ParseSize parses a size in bytes with an optional suffix K, M or G
// (powers of 1024), as rt reads $PATHCOVERWPPMAX and $PATHCOVERFLIGHTMAX.
func ParseSize(s string) (int64, bool) {
	shift := 0
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			shift = 10
		case 'm', 'M':
			shift = 20
		case 'g', 'G':
			shift = 30
		}
	}
	if shift > 0 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, false
	}
	return n << shift, true
}

// FormatSize writes n as ParseSize reads it, with the largest suffix that
// divides it.
func FormatSize(n int64) string {
	for _, u := range []struct {
		shift  uint
		suffix string
	}{{30, "G"}, {20, "M"}, {10, "K"}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
