// Package export writes what a path profile says in the formats that other
// coverage tools read, so that path profiles reach the places where Go
// teams already look at coverage: Go's own -coverprofile text
// (coverprofile.go), LCOV tracefiles (lcov.go), Cobertura XML
// (cobertura.go), the gate's findings as SARIF (sarif.go), and pprof
// profiles (pprof.go, encoded by pprofwire.go) for go tool pprof and
// continuous profilers, and for go build -pgo. Each file documents the
// layout it writes.
//
// None of these formats has paths. What they get is what paths imply,
// exactly: every path count gives each block and edge on the path one run,
// so statement blocks, lines, function entries and branch outcomes have
// the counts they would have had if counted one by one (report.Func's
// Units, Decisions and Calls). The gate's findings name untested paths;
// a pprof profile labels its samples with the paths they come from.
package export
