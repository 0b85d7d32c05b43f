//go:build unix

package cdp

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the browser in a process group of its own, so that
// killGroup stops its helper processes with it.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Process.Kill()
}
