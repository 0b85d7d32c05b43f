// Package pkgpattern matches import paths against patterns like go list's,
// in which ... stands for any string.
package pkgpattern
