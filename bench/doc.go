// Bench measures what path profiling costs on real code, against what
// statement coverage costs on the same benchmarks.
//
// Usage, from the repository root:
//
//	go run ./bench [-quick] [-rounds n] [-benchtime d] [-run regexp] [-cold n]
//	               [-parallel] [-cpu n]
//	               [-pppflags flags] [-json file] [-md file] [-readme docs/performance.md]
//	               [-work dir] [-list] [-v]
//	go run ./bench -wpp [-quick] [-run regexp] [-wppfuncs n] [-json file]
//	               [-md file] [-readme docs/performance.md] [-work dir]
//	go run ./bench -module [-rounds n] [-json file] [-readme docs/performance.md]
//	go run ./bench -fleet [-processes n] [-pppprocesses n] [-json file] [-readme docs/performance.md]
//	go run ./bench -builds [-run regexp] [-rounds n] [-json file] [-readme docs/performance.md]
//	go run ./bench -switch [-base rev] [-rounds n] [-json file] [-readme docs/performance.md]
//
// For each workload (a package of the standard library, of a module pinned
// in workloads.go and fetched from the module proxy, or of this
// repository's example) it builds the package's test binary in plain mode
// and in each mode of -modes (by default the first six):
//
//	plain     go test -c
//	count     go test -c -covermode=count
//	atomic    go test -c -covermode=atomic
//	bl        go test -c -toolexec='pppexec -pkgs=PKG'           (Ball-Larus)
//	blatomic  go test -c -toolexec='pppexec -pkgs=PKG -atomic'
//	ppp       go test -c -toolexec='pppexec -pkgs=PKG -interesting=T'
//	ippp      go test -c -toolexec='pppexec -pkgs=PKG -ippp=T -interesting=S'
//	blshard   go test -c -toolexec='pppexec -pkgs=PKG -shard=p'        (not by default)
//	blatomicshard, pppshard  blatomic and ppp with -shard=p        (not by default)
//	wpp       go test -c -toolexec='pppexec -pkgs=PKG -wpp'            (not by default)
//	deps      go test -c -toolexec='pppexec -pkgs=PKG -deps'           (not by default)
//	wet       go test -c -toolexec='pppexec -pkgs=PKG -wet'            (not by default)
//
// where T is the profile of the package's own tests, run from the bl
// binary, and S that of its tests run from a build with -ippp=T (PPP with
// interprocedural segments). Only PKG is instrumented in every mode, as
// -cover instruments only the package under test.
//
// Then, in each of -rounds rounds, it runs the chosen benchmarks of every
// workload in every mode, the modes in a new random order each time, and
// takes per benchmark and mode the ratio of its time to plain's in the same
// round. A benchmark's figure is the median of its per-round ratios: these
// machines are shared, and only ratios taken side by side mean anything.
// Benchmarks run on one P (-test.cpu=1): parallel benchmarks on several
// would time the cores' contention for shared counters (see run.go).
// -parallel measures that apart: the workloads' RunParallel benchmarks
// (workload.Parallel) at -test.cpu=2, into the section bench-parallel of
// docs/performance.md, with the targets for parallel code. -cpu sets
// the Ps: -parallel -cpu=1 times the same benchmarks on one, which tells
// what running them in parallel adds.
// Per mode it reports the median and the geometric mean of the figures,
// overhead being ratio − 1.
//
// It also reports:
//   - binary size, instrumented over plain;
//   - build time from a cold build cache (a new GOCACHE and a new pppexec
//     cache each time), for the first -cold workloads, over plain, in as
//     many interleaved rounds;
//   - register increments: from one more run of the benchmarks in bl mode,
//     writing counts, the edge frequencies of every function, and from them
//     the increments that the placement pppexec used executes against those
//     a naive Ball-Larus placement (an increment on every edge with a
//     nonzero weight) would (numbering.Placement.Cost).
//
// Output is a Markdown table on standard output (and -md), the same
// results as JSON with -json (the Results type in results.go), and with
// -readme the Markdown replaces what lies between the lines
// "<!-- bench:begin -->" and "<!-- bench:end -->" of that file (with
// -section NAME, "<!-- NAME:begin -->" and "<!-- NAME:end -->"). The
// tables live in docs/performance.md, so the commands that fill them are
// run from the repository root with -readme docs/performance.md: the page
// has a section bench-ippp for a run with -modes ppp,ippp, and each
// measurement below fills bench-NAME by default (bench-wpp for -wpp).
//
// -quick runs a few workloads for 3 short rounds and skips the cold builds,
// to try a change in a few minutes; its figures are noisier.
//
// The wpp mode's benchmarks record whole program paths as they run (with
// PATHCOVERWPPMAX raised, and a run that reached it not counted). With
// -wpp, bench measures the recordings instead (wpp.go): it runs each
// workload's tests once from its wpp build and reports the recording's
// size raw, compacted to a TWPP (package wpp) and compressed by Sequitur
// (sequitur.go, the TWPP paper's baseline), and the time each of the
// three takes to give all the traces of one function, averaged over the
// functions that ran; -readme fills the section bench-wpp.
//
// With -builds, bench times builds instead (builds.go), on copies of the
// module workloads, in -rounds interleaved rounds (3 by default): cold
// builds (plain, bl, ppp from empty caches), and rebuilds with warm caches
// after an edit of the package, plain against PPP with a new tests'
// profile, which changes pppexec's tool ID and so every action ID of the
// go command; -readme fills the section bench-builds.
//
// With -switch, bench times what a user meets trying the modes one after
// another (switch.go): the first `pathcover test ./example/...` from empty
// caches, then -wpp, -deps, -wet, -shard, -tests=false, -ippp and a -flight
// build, each with the caches the ones before left, in -rounds rounds (2
// by default); with -base REV, pathcover built at that git revision too,
// in alternate order, for a before and after; -readme fills the section
// bench-switch.
package main
