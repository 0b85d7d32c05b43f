//go:build !linux

package main

import "os"

// isTerminal reports false where pathcover cannot ask (docs/reference.md:
// Linux is what pathcover supports): no progress is shown.
func isTerminal(f *os.File) bool { return false }
