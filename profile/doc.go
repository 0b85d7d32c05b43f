// Package profile defines the files of a path profile and reads them: the
// metadata that describes each instrumented package's functions, the
// counter files that profiled processes write, and the text format that
// pathcover merge writes.
//
// A profile directory holds, for each instrumented package in the programs
// that ran, one <hash>.meta file (see meta.go), and one counter file per
// process, pathcover.<pid>.<n>.counts (see counts.go). ReadDir reads a
// directory; a file it cannot read is reported in one line that names it,
// and the rest is still read.
package profile
