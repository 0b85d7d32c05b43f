// Package profile defines the files of a path profile and reads them: the
// metadata that describes each instrumented package's functions, the
// counter files that profiled processes write, and the text format that
// pathcover merge writes.
//
// A profile directory holds, for each instrumented package in the programs
// that ran, one <hash>.meta file (see meta.go), and one counter file per
// process, pathcover.<pid>.<n>.counts (see counts.go), where n starts at
// the process's start time in microseconds and counts up past names taken
// (a container restarting as PID 1 into a kept directory meets its own
// PID's files), and, for a test binary whose tests were attributed
// (pppexec -tests), pathcover.<pid>.<n>.tests beside its counter file (see
// tests.go). Readers go by the suffix alone. ReadDir reads a
// directory; a file it cannot read is reported in one line that names it,
// and the rest is still read. Files are read as input like any other: a
// link or a FIFO in the directory is not followed, a counter file is read in
// pieces (see ReadCounts), and metadata is checked before it is used.
package profile
