// Package rt is the runtime linked into programs that pppexec instruments:
// it holds their path counters and writes them, with the numbering metadata
// that decodes them, into a profile directory.
//
// It imports only errors, runtime, sync, sync/atomic, syscall and unsafe (a test
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
// A relative directory is taken, once, when the process first registers
// (a later chdir does not move the profile), from the directory the run
// was started in: the go command's working directory when the go command
// started the process, as go test and go run do (Linux's /proc tells the
// parent's directory), else the process's own. go test runs each test
// binary in its package's directory, so PATHCOVERDIR=prof go test ./...
// would otherwise write a prof directory into every package; it writes
// one, where go test ran. The process says on its standard error, once,
// which absolute directory that is.
//
// Each process writes one counter file of its own,
// pathcover.<pid>.<n>.counts, so the processes of `go test ./...` never
// overwrite each other, and writes each package's metadata once, as
// <hash>.meta, shared by all processes built from the same instrumented
// source. n is the time the file was made, in microseconds (or the next
// number not taken), so that a process whose PID an earlier process of the
// directory had, as PID 1 in a container restarted into a kept directory
// has after every restart, finds a new name at once however many earlier
// files there are. The formats are defined in package profile.
//
// Files are made with mode 0644 and directories with 0755, less the
// umask's bits: the profile is for people and tools to read, possibly under
// another account than the profiled service's (a umask of 077 keeps it
// private), but nobody else may write to it, since whoever can write to a
// live counter file can also truncate it (see below).
//
// In a sharded build (pppexec -shard=p), each package has a copy of its
// counters per P, segments one after the other, so that goroutines that
// run at once never count into the same cache line (shards.go).
//
// In a PPP build, the paths that are not among a function's interesting
// ones go to its residual tables (residual.go), segments of the same
// counter file made as they are needed.
//
// # Whole program paths
//
// In a -wpp build, each goroutine also records its calls, the paths each
// completes and the goroutines it starts (wpp.go), into
// pathcover.<pid>.<n>.wpp, through shared mappings as the counters are.
// $PATHCOVERWPPMAX bounds the file (default 1G). rt finds a goroutine's
// recorder in a field that pppexec appends to the runtime's g, through
// functions it adds to package runtime (goroutine_wpp.go). In a -deps
// build each goroutine's stream also holds the memory accesses its
// statements make, each with a number in the process's order of accesses
// (deps.go), for the slicer; functions added the same way give the stack's
// bounds, so that a stack address is recorded by its distance from the
// top, and hash map keys as the runtime's maps do.
//
// # Which tests ran
//
// In a -tests build, package testing tells rt when each test starts,
// pauses and ends (tests.go): rt then appends how the counters grew since
// the last such event, with the tests that ran meanwhile, to
// pathcover.<pid>.<n>.tests beside the counter file, one write an event.
//
// # Flight recorder
//
// In a -flight build nothing is counted: each goroutine keeps the last N
// paths it took in a ring, in a shared mapping of
// pathcover.<pid>.<n>.flight, which a clean exit removes and a failure
// leaves, saying which goroutine failed (flight.go). WriteFlight writes
// the rings on demand; programs that import this package for it get the
// call handed to the copy pppexec links. $PATHCOVERFLIGHTMAX bounds the
// file (default 64M).
//
// # Why counts are never lost
//
// On Unix systems the counters live in a shared mapping of the counter file:
// an increment is a store into the kernel's page cache, which outlives the
// process however it ends (return from main, os.Exit, log.Fatal, a panic,
// SIGKILL). There is nothing to flush. On other systems the counters live in
// memory and are not written (see file_other.go).
//
// # The program's own files
//
// rt keeps the counter file open to add residual tables to it, and the
// trace file to append to. A program may close every descriptor it did not
// open, as daemons do, and get the same numbers for its own files. rt's
// descriptors are therefore moved high (above 1024 where the limit on open
// files allows, closed on exec), and before each write, extension or
// mapping rt checks by device and inode that a descriptor still is its
// file. If it is not, rt never uses that number again: it opens its file
// anew by its path, or, failing that, warns once and counts in memory from
// then on (tracing stops). A program's file is never written through a
// number rt kept. (A descriptor closed and reused by another thread in the
// instant between rt's check and its write could still be written; a
// program that closes descriptors it did not open while other threads run
// races with every library.)
//
// # Truncating a live counter file
//
// A counter file must not be truncated, emptied or overwritten with a
// shorter file while its process runs: the next count stored into a page
// past the file's new end kills the program with SIGBUS. rt cannot survive
// that fault: the Go runtime turns a fault in Go code into a panic only
// for goroutines that called runtime/debug.SetPanicOnFault, which rt would
// have to import and every goroutine would have to call, and a counter
// store in any goroutine may fault. Only the file's owner (and root) can
// truncate it, since nobody else may write to it. Copy or read a live
// counter file, never truncate it; delete it, if you must, which leaves the
// process's mapping intact (its later counts are then lost, not fatal).
package rt
