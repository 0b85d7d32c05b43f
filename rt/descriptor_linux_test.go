package rt_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pathcover/pathcover/rt"
)

func init() {
	helpers["fds"] = fdsHelper
}

// fdsHelper registers a package and traces a call, then prints each of its
// descriptors: number, close-on-exec flag and what it is.
func fdsHelper() {
	rt.Register(os.Getenv("RT_HASH"), os.Getenv("RT_META"), 6, nil, 2, "")
	rt.TraceEnter(os.Getenv("RT_HASH"), 0)
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		target, _ := os.Readlink("/proc/self/fd/" + e.Name())
		info, _ := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		cloexec := false
		for _, line := range strings.Split(string(info), "\n") {
			if flags, ok := strings.CutPrefix(line, "flags:"); ok {
				f, _ := strconv.ParseUint(strings.TrimSpace(flags), 8, 64)
				cloexec = f&syscall.O_CLOEXEC != 0
			}
		}
		fmt.Println(e.Name(), cloexec, target)
	}
}

// TestDescriptorsHigh: the descriptors rt keeps are where the numbers that
// open hands out first, and close loops bounded at 1024, do not reach, and
// are closed on exec.
func TestDescriptorsHigh(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < 2048 {
		t.Skipf("the limit on open files is %d", lim.Cur)
	}
	hash, meta := twoFuncMeta(t)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RT_HELPER=fds", "RT_HASH="+hash, "RT_META="+meta, "PATHCOVERDIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	kept := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || filepath.Dir(f[2]) != dir {
			continue
		}
		kept[filepath.Ext(f[2])] = true
		if fd, _ := strconv.Atoi(f[0]); fd < 1024 || f[1] != "true" {
			t.Errorf("%s is descriptor %s, close on exec %s; want one above 1024, closed on exec", filepath.Base(f[2]), f[0], f[1])
		}
	}
	if !kept[".counts"] || !kept[".trace"] {
		t.Errorf("the helper keeps %v open; want the counter file and the trace:\n%s", kept, out)
	}
}
