// Package report turns a path profile into path coverage per function and
// package, statement coverage derived from the same counts, and decoded
// paths, for pathcover's report and paths commands.
package report
