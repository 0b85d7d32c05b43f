package driver

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileIdentity returns what identifies a file's content without reading
// it: its device and inode, size, and modification and change times (a
// file rewritten in place changes its change time, which no user can set).
func fileIdentity(info fs.FileInfo) (string, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("dev %d ino %d size %d mtime %d.%d ctime %d.%d",
		st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec), true
}
