//go:build !unix

package driver

import "io/fs"

// fileOwner reports no owner: without Unix owners and modes (Windows), the
// cache directory's safety is that of the user's profile directories.
func fileOwner(info fs.FileInfo) (int, bool) { return 0, false }
