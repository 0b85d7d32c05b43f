// Package driver is pppexec: a -toolexec wrapper that instruments the
// packages the go command compiles, links the runtime into the programs,
// and keeps the build cache honest.
//
// The go command runs `pppexec [flags] /path/to/tool args...` for each tool.
// pppexec answers -V=full with the real tool's line plus a build ID of its
// own (so cached objects are keyed by pppexec and its configuration),
// passes every tool but compile and link through, and:
//
//   - for a compile of a selected package (by default, the main module's
//     packages and their test variants; see Config.Pkgs), type-checks the
//     package against the export data in its importcfg, rewrites its files
//     into the compile's scratch directory (package instrument) with line
//     directives back to the originals, adds a generated file with the
//     package's counters, adds rt to the importcfg, and runs the real
//     compiler on that. If any of it fails, the package is compiled
//     unchanged and pppexec prints one warning naming it (-strict: an
//     error): the build never gets worse.
//     A package's _test.go files are left alone, as go test -cover leaves
//     them (but in a -deps build, where a failing test's assertion is what
//     a user slices from); the generated test main too.
//   - for a link, adds rt and its dependencies to the importcfg, choosing
//     the rt built against standard packages with the same fingerprints as
//     the program's (the link's flags do not show -trimpath).
//
// With -interesting=PROFILE the build is a PPP build (see
// instrument/layout.go): each function's paths that PROFILE ran are its
// interesting paths, counted in an array by PPP id, and every other path is
// recorded as residual. A function matches the profile by package (test
// variants merged), name, and the shape of its graph: one whose graph
// changed has no interesting paths, and its metadata says it is stale. A
// fingerprint of what the profile says keys the objects, so that a new
// test run gives new ones (profilekey.go): by default it is in the build
// ID, which is the tool's, so the go command then misses its cache for the
// standard library too; pppexec answers those compiles, and go test's vet
// runs, from a cache of its own keyed by what the tool reads
// (compilecache.go, vetcache.go), but the go command still runs every
// action (each hit a few milliseconds), and the assembler and cgo again.
// With -profilekey=gcflags it is in the instrumented packages' -gcflags,
// and the go command's own cache serves everything else (docs/performance.md,
// "Builds after a new profile").
//
// A file of the profile that cannot be read (a counter file that a test
// killed at start left empty) is skipped, as the reports skip it, and the
// build says so once, naming it (-strict: the build fails). The build ID
// covers the files skipped too, and the error, when nothing can be read:
// the go command replays what a cached compile printed, and must never
// replay a warning about another profile.
//
// What concerns the whole build rather than one package (a profile that
// cannot be read at all, no safe directory for the runtime) is said once
// per go command, by the first compile or link to meet it: it leaves a
// mark in the go command's work directory ($WORK), which each go command
// makes for itself and removes.
//
// With -ippp=PROFILE the build is interprocedural (see
// instrument/supergraph.go): a caller's static calls of instrumented functions,
// on paths that PROFILE ran, call clones that also count the caller's
// supergraph paths, to -ipppdepth calls deep. The build ID covers the
// depth, and a fingerprint of PROFILE keys the objects as -interesting's
// does.
//
// To know which calls never return, a compile has the built-in list of
// package funcgraph and what ctrlflow's induction finds in the package
// itself, but not the facts about other packages that the vet tool has; a
// test checks that the two build the same graphs on the testdata and on a
// sample of the standard library.
//
// rt is compiled by pppexec itself from the source it carries, with the same
// compiler and the same race, sanitizer and trimpath settings as the build,
// against standard packages found with a nested `go list -export`. That go
// command runs its compiles through pppexec again, with the same flags but
// in nested mode ($PATHCOVER_NESTED), where it instruments nothing and so
// cannot recurse: its compiles then have the build's own cache keys, and a
// cold build compiles rt's dependencies once, not twice. The result is kept in
// $PATHCOVERCACHE, or else pathcover in the user cache directory, or else
// (no HOME, as in many CI images) pathcover in $GOCACHE, keyed by
// everything that changes it; never in the shared temporary directory.
// Since pppexec links what it finds there into every program, the
// directory must be the user's alone, as must every runtime in it, whose
// files must have the SHA-256 sums that pppexec recorded beside them
// (cachedir.go says what is checked, and why); a runtime that fails the
// check is built again, and a directory that fails it makes pppexec build
// without instrumenting, saying once why and naming PATHCOVERCACHE.
package driver
