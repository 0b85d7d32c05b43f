//go:build !unix

package main

import "os"

// peakMB returns 0: the system does not say a process's peak memory.
func peakMB(*os.ProcessState) float64 { return 0 }
