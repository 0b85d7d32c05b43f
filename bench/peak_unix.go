//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakMB returns a finished process's peak memory, its maximum resident
// set, in megabytes (0 where the system does not say).
func peakMB(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return float64(ru.Maxrss) / (1 << 20) // bytes
	}
	return float64(ru.Maxrss) / 1024 // kilobytes
}
