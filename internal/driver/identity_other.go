//go:build !linux

package driver

import "io/fs"

// fileIdentity reports none where pppexec does not read the change time
// (which the Stat_t of each system names differently): it then asks tools
// for their versions in every run (toolVersion).
func fileIdentity(info fs.FileInfo) (string, bool) { return "", false }
