//go:build !unix

package profile

// openFlags: see open_unix.go. Elsewhere a link is followed, and the file
// checked once open.
const openFlags = 0
