//go:build unix && !(linux || darwin || freebsd || netbsd || dragonfly)

package rt

// moveHigh leaves fd where it is: these systems offer package syscall no
// fcntl (OpenBSD's syscall.Syscall refuses it). The checks of ownFile
// still keep the program's files safe.
func moveHigh(fd int) int { return fd }
