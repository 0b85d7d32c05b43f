package toolexec

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/rt"
	"github.com/pathcover/pathcover/toolexec/instrument"
)

// Main parses pppexec's flags from args, then runs the tool command that
// follows them, and returns the exit code. name is the command's name for
// messages: pppexec, or "pathcover pppexec".
func Main(name string, args []string) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	pkgs := fs.String("pkgs", "", "comma-separated import path `patterns` of the packages to instrument (default main)")
	dir := fs.String("o", "", "`dir` where profiled programs write counts when $PATHCOVERDIR is not set")
	cfg := &Config{}
	fs.BoolVar(&cfg.Atomic, "atomic", false, "count atomically (always on with -race)")
	fs.Uint64Var(&cfg.MaxArrayPaths, "arraylimit", instrument.DefaultMaxArrayPaths, "functions with more than `n` paths count in a hash table")
	fs.IntVar(&cfg.HashSlots, "hashslots", instrument.DefaultHashSlots, "`n` slots in each hash table")
	fs.IntVar(&cfg.HotEntries, "hot", 0, "give functions with more than -arraylimit paths a hot path table of `n` entries (sets of 4) instead of a hash table: it keeps their hottest paths, each count an estimate within a bound")
	cfg.Shard = instrument.ShardNone
	fs.Var(&cfg.Shard, "shard", "`copies` of each package's counters: none (one, which all goroutines share) or p (one per P, so that goroutines running at once on several cores never write the same cache line: parallel code costs a tenth of what it does with one copy, serial code more, since each count first finds its P)")
	fs.BoolVar(&cfg.Strict, "strict", false, "fail the build if a package cannot be instrumented, or a file of the -interesting or -ippp profile cannot be read")
	fs.BoolVar(&cfg.Verbose, "v", false, "report each package instrumented")
	fs.BoolVar(&cfg.Trace, "trace", false, "also write the witnesses of the path oracle (slow; for tests)")
	fs.BoolVar(&cfg.WPP, "wpp", false, "also record whole program paths: each goroutine's calls, the Ball-Larus paths each call completes, and the goroutines it starts, in order, into pathcover.*.wpp files of the profile (see pathcover wpp)")
	fs.BoolVar(&cfg.Deps, "deps", false, "also describe each function's statements, variables and calls in the metadata, and record whole program paths (as -wpp), for slicing (see pathcover slice)")
	fs.BoolVar(&cfg.Values, "wet", false, "also record the values each instrumented function gives its variables, besides what -deps records, for whole execution traces")
	fs.IntVar(&cfg.Flight, "flight", 0, "flight recorder: instead of counting paths, each goroutine keeps the last `n` Ball-Larus paths it took (rounded up to a power of two) in a ring that a failure leaves in a pathcover.*.flight file of the profile (see pathcover flight)")
	flightMax := fs.String("flightmax", "64M", "with -flight: the rings of a process take at most `size` (bytes, or with K, M or G); later goroutines get none; $PATHCOVERFLIGHTMAX overrides it when the program runs")
	wppMax := fs.String("wppmax", "1G", "with -wpp: a process stops recording when its file reaches `size` (bytes, or with K, M or G); $PATHCOVERWPPMAX overrides it when the program runs")
	fs.StringVar(&cfg.Interesting, "interesting", "", "PPP build: count the paths that the profile in `dir|file` ran (the tested paths) in arrays, record every other path as residual")
	fs.Uint64Var(&cfg.PPPSlots, "pppslots", instrument.DefaultPPPSlots, "PPP build: the largest PPP array of a function, in `slots`")
	fs.Uint64Var(&cfg.PPPSmall, "pppsmall", instrument.DefaultPPPSmall, "PPP build: a function with at most `n` paths, or with no more than twice its PPP slots, counts in a Ball-Larus array, which is cheaper on every path and records residual paths itself")
	fs.BoolVar(&cfg.PPPAlways, "pppalways", false, "PPP build: give every function and supergraph with tested and untested paths a PPP array, even where -pppsmall (or, for a supergraph, -arraylimit) would give it a Ball-Larus array")
	cfg.PPPLarge = instrument.PPPTruncate
	fs.Var(&cfg.PPPLarge, "ppplarge", "PPP build: `policy` for a function whose PPP numbering needs more than -pppslots slots: truncate (tested paths past the array are recorded as residual, and reports count them as tested) or hash (a hash table of the tested paths)")
	fs.StringVar(&cfg.Sites, "ippp", "", "interprocedural build: also count the paths of each caller with the callees of its call sites inlined (interprocedural path segments), at the sites on paths that the profile in `dir|file` ran; the packages of callers and callees must be instrumented")
	fs.BoolVar(&cfg.Tests, "tests", false, "attribute counts to the tests that make them: compile package testing with calls that say when each test starts, pauses and ends, and write which tests ran what into pathcover.*.tests files of the profile (see pathcover tests)")
	cfg.ProfileKey = KeyInBuildID
	fs.Var(&cfg.ProfileKey, "profilekey", "where the go build cache keys the -interesting and -ippp profiles: `place` buildid (pppexec's build ID: every package is compiled again for a new profile) or gcflags (the instrumented packages' -gcflags, which must then carry the key that -printgcflags prints: a new profile compiles only those packages again)")
	printGcflags := fs.Bool("printgcflags", false, "print the go command's -gcflags flags that give the instrumented packages the key of the -interesting and -ippp profiles, for -profilekey=gcflags, and exit (nothing for a build without profiles)")
	fs.IntVar(&cfg.ShareBlocks, "ipppshare", instrument.DefaultShareBlocks, "interprocedural build: a callee of at least `n` blocks called from sites of several of the package's supergraphs has one clone that they share, which reads each site's increments from a table, instead of a clone per site (smaller code, a little slower); 0: a clone per site")
	fs.IntVar(&cfg.Depth, "ipppdepth", 1, "interprocedural build: segments go `n` calls deep (the callees' sites on their paths that ran are inlined too)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go build -toolexec='%s [flags]' ...\n\n", name)
		fs.PrintDefaults()
		fmt.Fprintf(fs.Output(), "\nThe runtime linked into programs is compiled once and kept in $PATHCOVERCACHE,\n"+
			"or else pathcover in the user cache directory, or else (no HOME) in $GOCACHE;\n"+
			"a directory that is not yours alone is refused, and the build is not instrumented.\n"+
			"The compiles and vet runs that pppexec does not change (the standard library's)\n"+
			"are kept there too, keyed by what they read, so that a build with a new profile\n"+
			"or new flags does not redo them: at most 5G, or PATHCOVERCOMPILECACHE (a size\n"+
			"such as 20G, or off). What no build used for five days is removed.\n")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *pkgs != "" {
		cfg.Pkgs = strings.Split(*pkgs, ",")
	}
	if *dir != "" {
		abs, err := filepath.Abs(*dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return 2
		}
		cfg.Dir = abs
	}
	if cfg.ShareBlocks < 0 {
		fmt.Fprintf(os.Stderr, "%s: -ipppshare must be at least 0\n", name)
		return 2
	}
	if cfg.Depth < 1 {
		fmt.Fprintf(os.Stderr, "%s: -ipppdepth must be at least 1\n", name)
		return 2
	}
	if n, ok := parseSize(*wppMax); !ok || n < 1024 {
		fmt.Fprintf(os.Stderr, "%s: -wppmax %q is not a size of at least 1K (such as 512M or 2G)\n", name, *wppMax)
		return 2
	} else if n != 1<<30 {
		cfg.WPPLimit = n
	}
	if n, ok := parseSize(*flightMax); !ok || n < 64<<10 {
		fmt.Fprintf(os.Stderr, "%s: -flightmax %q is not a size of at least 64K (such as 64M or 1G)\n", name, *flightMax)
		return 2
	} else if n != 64<<20 {
		cfg.FlightLimit = n
	}
	if cfg.Flight < 0 || cfg.Flight > rt.FlightMaxEntries {
		fmt.Fprintf(os.Stderr, "%s: -flight %d: a ring holds 1 to %d paths\n", name, cfg.Flight, rt.FlightMaxEntries)
		return 2
	}
	if cfg.Flight > 0 && (cfg.WPP || cfg.Deps || cfg.Values || cfg.Interesting != "" || cfg.Sites != "" || cfg.Tests) {
		// A flight build counts nothing, and keeps each goroutine's ring
		// where a -wpp build keeps its recorder.
		fmt.Fprintf(os.Stderr, "%s: -flight records Ball-Larus paths alone: it cannot be combined with -wpp, -deps, -wet, -interesting, -ippp or -tests\n", name)
		return 2
	}
	if cfg.Values {
		cfg.Deps = true
	}
	if cfg.Deps {
		cfg.WPP = true
	}
	if cfg.WPP && (cfg.Interesting != "" || cfg.Sites != "") {
		// Path events carry Ball-Larus ids, which a PPP build does not
		// keep in every function, and an interprocedural build's clones
		// would have to record their callees' calls.
		fmt.Fprintf(os.Stderr, "%s: -wpp records Ball-Larus builds only: it cannot be combined with -interesting or -ippp\n", name)
		return 2
	}
	if cfg.HashSlots < 1 || cfg.MaxArrayPaths < 1 || cfg.PPPSlots < 1 || cfg.HotEntries < 0 || cfg.HotEntries > 1<<24 {
		fmt.Fprintf(os.Stderr, "%s: -arraylimit, -hashslots and -pppslots must be positive, -hot at most 16777216\n", name)
		return 2
	}
	if cfg.HotEntries > 0 && (cfg.Interesting != "" || cfg.Sites != "" || cfg.Flight > 0) {
		// A PPP build's functions count their interesting paths exactly
		// and the rest as residual; a flight build counts nothing.
		fmt.Fprintf(os.Stderr, "%s: -hot is for Ball-Larus builds: it cannot be combined with -interesting, -ippp or -flight\n", name)
		return 2
	}
	for _, f := range []struct {
		flag string
		path *string
	}{{"interesting", &cfg.Interesting}, {"ippp", &cfg.Sites}} {
		if *f.path == "" {
			continue
		}
		abs, err := filepath.Abs(*f.path)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: -%s: %v\n", name, f.flag, err)
			return 2
		}
		*f.path = abs
	}
	if *printGcflags {
		if fs.NArg() > 0 {
			fmt.Fprintf(os.Stderr, "%s: -printgcflags runs no tool\n", name)
			return 2
		}
		// A profile that cannot be read has a key too (its error's):
		// the build says what is wrong with it.
		if flags := cfg.GcflagsKey(); len(flags) > 0 {
			fmt.Println(strings.Join(flags, " "))
		}
		return 0
	}
	x := &Exec{Config: cfg, Self: selfCommand(fs.NArg())}
	return x.Main(fs.Args())
}

// parseSize parses a size in bytes with an optional suffix K, M or G
// (powers of 1024), as rt reads $PATHCOVERWPPMAX.
func parseSize(s string) (int64, bool) {
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
