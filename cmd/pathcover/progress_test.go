package main_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal: its controlling side, and the terminal
// a program writes to.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Skipf("unlockpt: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Skipf("ptsname: %v", errno)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the terminal: %v", err)
	}
	return m, s
}

// TestProgress: on a terminal, pathcover test draws a status line of the
// test binaries built and packages tested, of the two that have tests,
// and go test's lines come through whole; on a pipe, or with -json, no
// status line.
func TestProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	if runtime.GOOS != "linux" {
		t.Skip("progress is shown on Linux terminals")
	}
	dir := module(t, map[string]string{
		"a/a.go":      "package a\n\nfunc A(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { A(1) }\n",
		"b/b.go":      "package b\n\nfunc B() int { return 2 }\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { B() }\n",
		"c/c.go":      "package c\n\nfunc C() int { return 3 }\n",
	})
	for _, tc := range []struct {
		name     string
		args     []string
		terminal bool
		status   bool
	}{
		{"terminal", nil, true, true},
		{"json", []string{"-json"}, true, false},
		{"pipe", nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, append(append([]string{"test", "-dir", t.TempDir()}, tc.args...), "./...")...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			var read chan struct{}
			if tc.terminal {
				master, tty := openPTY(t)
				defer master.Close()
				cmd.Stderr = tty
				read = make(chan struct{})
				go func() {
					io.Copy(&stderr, master) // ends with EIO when the terminal closes
					close(read)
				}()
				err := cmd.Run()
				tty.Close()
				<-read
				if err != nil {
					t.Fatalf("pathcover test: %v\n%s", err, stderr.String())
				}
			} else {
				cmd.Stderr = &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("pathcover test: %v\n%s", err, stderr.String())
				}
			}
			out := strings.ReplaceAll(stderr.String(), "\r\n", "\n") // the terminal's newlines
			hasStatus := strings.Contains(out, "\r\x1b[K")
			if hasStatus != tc.status {
				t.Errorf("status line drawn: %v, want %v\n%q", hasStatus, tc.status, out)
			}
			if tc.status {
				for _, want := range []string{"of 2 test binaries built", "2 of 2 packages tested"} {
					if !strings.Contains(out, want) {
						t.Errorf("no %q in\n%q", want, out)
					}
				}
				// Whatever was drawn last is erased: the output ends
				// with go test's lines and pathcover's own.
				if last := out[strings.LastIndex(out, "\r\x1b[K")+4:]; strings.Contains(last, "packages tested") {
					t.Errorf("the status line is left on the screen: %q", last)
				}
			}
			for _, pkg := range []string{"example.com/m/a", "example.com/m/b"} {
				if !strings.Contains(out, "ok  \t"+pkg) {
					t.Errorf("go test's line for %s is missing:\n%q", pkg, out)
				}
			}
		})
	}
}
