//go:build !linux

package driver

// freeSpace cannot tell where pppexec does not read the file system's
// statistics (whose fields each system names differently): the compile
// cache is then bounded by its size alone.
func freeSpace(dir string) (int64, bool) { return 0, false }
