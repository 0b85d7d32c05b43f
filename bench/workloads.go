package main

// A workload is one package whose benchmarks are timed and which is
// instrumented.
type workload struct {
	// Pkg is the import path of the package.
	Pkg string
	// Module is "" for the standard library, "local" for a package of this
	// repository, or path@version of a module from the module proxy.
	Module string
	// Bench is the -test.bench pattern: a few benchmarks that exercise the
	// package's own code, so a run stays short.
	Bench string
	// Quick puts the workload in -quick runs.
	Quick bool
	// Parallel is the -test.bench pattern of -parallel runs: benchmarks
	// that call b.RunParallel, whose goroutines share the counters; ""
	// leaves the workload out of them.
	Parallel string
}

// workloads are the benchmarks measured. Go 1.26 moved strconv's number
// conversions into internal/strconv, which the runtime imports: no
// source-rewriting tool can instrument it (-cover cannot either), so the
// strconv workload times strconv's own quoting code. text/template keeps its
// benchmarks in text/template/parse.
var workloads = []workload{
	{Pkg: "strconv", Bench: "^Benchmark(Quote|AppendQuote|UnquoteEasy|UnquoteHard)$", Quick: true},
	{Pkg: "sort", Bench: "^Benchmark(SortString1K|SortInt1K|StableInt1K|SearchWrappers)$"},
	{Pkg: "encoding/json", Bench: "^Benchmark(CodeEncoder|CodeDecoder|CodeUnmarshal|UnmarshalMap|MarshalMap)$",
		Parallel: "^Benchmark(CodeEncoder|CodeDecoder|CodeUnmarshal|UnmarshalMap|MarshalMap)$"},
	{Pkg: "regexp", Bench: "^Benchmark(Find|FindAllNoMatches|Literal|MatchClass|ReplaceAll|OnePassShortA|NotOnePassShortA)$", Quick: true,
		Parallel: "^BenchmarkMatchParallel(Copied|Shared)$"},
	{Pkg: "compress/flate", Bench: "^Benchmark(Decode|Encode)$/^Newton$/^(Speed|Default)$/^1e5$"},
	{Pkg: "text/template/parse", Bench: "."},
	{Pkg: "go/parser", Bench: "^Benchmark(ParseOnly|Resolve)$"},
	{Pkg: "math/big", Bench: "^Benchmark(FloatString|ParseFloatSmallExp|GCD100x1000|QuoRem|Sqrt|Binomial|Hilbert)$"},
	{Pkg: "net/url", Bench: "^Benchmark(String|ResolvePath|QueryEscape|PathUnescape)$"},
	{Pkg: "unicode/utf8", Bench: "^Benchmark(RuneCountTenJapaneseChars|ValidTenJapaneseChars|ValidLongMostlyASCII|EncodeJapaneseRune|DecodeJapaneseRune|FullRune)$", Quick: true},
	{Pkg: "github.com/google/uuid", Module: "github.com/google/uuid@v1.6.0", Bench: "^Benchmark(Parse|ParseBytes|UUID_String|UUID_MarshalJSON|UUID_UnmarshalJSON)$", Quick: true},
	{Pkg: "github.com/google/btree", Module: "github.com/google/btree@v1.1.3", Bench: "^Benchmark(InsertG|SeekG|GetG|DeleteG|AscendG)$"},
	{Pkg: "github.com/valyala/fastjson", Module: "github.com/valyala/fastjson@v1.6.4", Bench: "^Benchmark(Parse|Validate|MarshalTo)$//^fastjson$",
		Parallel: "^Benchmark(ObjectGet|MarshalTo|ParseRawString|ParseRawNumber|ArenaTypicalUse)$"},
	{Pkg: "github.com/BurntSushi/toml", Module: "github.com/BurntSushi/toml@v1.4.0", Bench: "^Benchmark(Decode|Encode)$"},
	{Pkg: "github.com/pathcover/pathcover/example/expr", Module: "local", Bench: "."},
}
