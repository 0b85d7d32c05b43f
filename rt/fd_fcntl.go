//go:build linux || darwin || freebsd || netbsd || dragonfly

package rt

import "syscall"

// highFD is where moveHigh puts rt's descriptors: above the fixed bounds
// of the close loops programs run (256, 1024), and far above the numbers
// open hands out first, but low enough that the kernel's table of the
// process's descriptors stays small (4096 entries).
const highFD = 4000

// moveHigh returns a descriptor of the same file as fd, close on exec,
// numbered highFD or more if the limit on open files allows, else half the
// limit or more; fd is closed if it moved. If fd cannot move, it stays:
// the checks of ownFile still keep the program's files safe.
func moveHigh(fd int) int {
	floor := uint64(highFD)
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && uint64(lim.Cur) < 2*floor {
		floor = uint64(lim.Cur) / 2
	}
	if uint64(fd) >= floor {
		return fd
	}
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, uintptr(floor))
	if errno != 0 {
		return fd
	}
	syscall.Close(fd)
	return int(r)
}
