//go:build !linux

package rt

// mapStatic needs mmap at a given address, which rt does only on Linux:
// elsewhere a package's counters count in memory.
func mapStatic(dir, hash string, c []uint64) error { return errStaticNotLinux }
