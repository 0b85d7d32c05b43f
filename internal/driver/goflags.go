package driver

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// gcflagsForStd returns the -gcflags that the go command running pppexec
// gives the standard library, and whether it could tell: those of a
// -gcflags=all=... or -gcflags=std=... in its command line or in GOFLAGS,
// the last one winning as in the go command. pppexec's parent is that go
// command; its command line is read from /proc where there is one.
func gcflagsForStd() (flags []string, known bool) {
	args, known := goCommandArgs()
	if !known {
		return nil, false
	}
	for _, value := range gcflagsValues(args) {
		pattern, rest, ok := strings.Cut(value, "=")
		if ok && !strings.HasPrefix(pattern, "-") && (pattern == "all" || pattern == "std") {
			// Without pppexec's profile key (profilekey.go), which
			// the compiler never sees.
			flags = slices.DeleteFunc(strings.Fields(rest), func(f string) bool { return strings.HasPrefix(f, profileKeyFlag) })
		}
	}
	return flags, true
}

// gcflagsValues returns the values of the -gcflags flags in a go
// command's arguments, in order.
func gcflagsValues(args []string) []string {
	var values []string
	for i := 0; i < len(args); i++ {
		a := strings.TrimPrefix(args[i], "-")
		a = strings.TrimPrefix(a, "-")
		switch {
		case a == "gcflags" && i+1 < len(args):
			values = append(values, args[i+1])
			i++
		case strings.HasPrefix(a, "gcflags="):
			values = append(values, strings.TrimPrefix(a, "gcflags="))
		}
	}
	return values
}

// parentExecutable returns the path of the executable of pppexec's parent,
// or "" if it cannot be read (from /proc).
func parentExecutable() string {
	exe, _ := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/exe")
	return exe
}

// isGoCommand reports whether exe is a go command: a toolchain's bin/go.
func isGoCommand(exe string) bool {
	base := filepath.Base(exe)
	return base == "go" || base == "go.exe"
}

// goCommandArgs returns the flags in GOFLAGS and the command line of the go
// command that runs pppexec (its parent), if it can be read (from /proc).
func goCommandArgs() ([]string, bool) {
	args := strings.Fields(os.Getenv("GOFLAGS"))
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/cmdline")
	if err != nil {
		return nil, false
	}
	return append(args, strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")...), true
}

// forcedRebuild reports whether the go command was told to rebuild every
// package (-a): pppexec's compile cache then stays out of the way too.
func forcedRebuild() bool {
	args, _ := goCommandArgs()
	for _, a := range args {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == "a" || a == "a=true" {
			return true
		}
	}
	return false
}
