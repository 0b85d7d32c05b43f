//go:build !linux

package rt

import "errors"

var errStaticNotLinux = errors.New("counters in the program's memory are mapped from the file only on Linux")

// mapStatic needs mmap at a given address, which rt does only on Linux:
// elsewhere a package's counters count in memory.
func mapStatic(dir, hash string, c []uint64) error { return errStaticNotLinux }
