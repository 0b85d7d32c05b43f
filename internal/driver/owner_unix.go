//go:build unix

package driver

import (
	"io/fs"
	"syscall"
)

// fileOwner returns the uid that owns a file.
func fileOwner(info fs.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
