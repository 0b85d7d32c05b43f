//go:build unix

package profile

import (
	"math"
	"syscall"
)

// processRunning says whether process pid may still be running: signal 0
// sent to it does not fail with ESRCH. Pid 0 is no process's (signal 0
// would go to the process group): it may be.
func processRunning(pid uint64) bool {
	if pid > math.MaxInt32 {
		return false
	}
	if pid == 0 {
		return true
	}
	err := syscall.Kill(int(pid), 0)
	return err == nil || err == syscall.EPERM
}
