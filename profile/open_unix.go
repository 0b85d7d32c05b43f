//go:build unix

package profile

import "syscall"

// openFlags open a profile's file without following a link at its name,
// and without waiting for a writer should it be a FIFO.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
