//go:build !linux

package profile

import "os"

// nextData: see holes_linux.go. Elsewhere holes are read as zeros.
func nextData(f *os.File, off int64) (data int64, end, ok bool) { return 0, false, false }

// nextHole: see holes_linux.go.
func nextHole(f *os.File, off int64) (hole int64, ok bool) { return 0, false }
