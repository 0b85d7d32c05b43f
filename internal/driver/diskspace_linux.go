package driver

import "syscall"

// freeSpace returns the bytes that the user may still write on the file
// system that holds dir, or false if it cannot tell.
func freeSpace(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return 0, false
	}
	return int64(st.Bavail) * st.Bsize, true
}
