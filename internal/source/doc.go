// Package source reads the Go source files that a profile's metadata
// names, for the reports and queries that show source text, and only those
// that can belong to profiled packages: metadata is input like any other,
// and a crafted file list must not make pathcover show a file of the
// user's that is no Go source of the module, GOROOT or the module cache.
package source
