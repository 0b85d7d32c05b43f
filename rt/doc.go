// Package rt is the runtime linked into programs that pppexec instruments:
// it holds their path counters and writes them, with the numbering metadata
// that decodes them, into a profile directory.
//
// It imports only errors, sync, sync/atomic, syscall and unsafe (a test
// keeps the list), because it is compiled into every profiled program and
// may not pull anything else into it, and because pppexec cannot instrument
// the packages rt depends on (the instrumented code imports rt): without os,
// those are only the runtime's own, and os, io, time, unicode/utf8 and the
// rest can be profiled. (source.go, which embeds the source for pppexec, is
// not part of that copy.)
//
// # Where counts go
//
// The directory is $PATHCOVERDIR if set, else the default pppexec was given
// with -o; with neither, nothing is written and the program runs as an
// unprofiled one would, counting into memory nobody reads.
//
// Each process writes one counter file of its own, so the processes of
// `go test ./...` never overwrite each other, and writes each package's
// metadata once, as <hash>.meta, shared by all processes built from the same
// instrumented source. The formats are defined in package profile.
//
// In a PPP build, the paths that are not among a function's interesting
// ones go to its residual tables (residual.go), segments of the same
// counter file made as they are needed.
//
// # Why counts are never lost
//
// On Unix systems the counters live in a shared mapping of the counter file:
// an increment is a store into the kernel's page cache, which outlives the
// process however it ends (return from main, os.Exit, log.Fatal, a panic,
// SIGKILL). There is nothing to flush. On other systems the counters live in
// memory and are not written (see file_other.go).
package rt
