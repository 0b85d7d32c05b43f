// Package gitdiff finds the lines of Go files changed since a git revision,
// for pathcover gate -since.
package gitdiff
