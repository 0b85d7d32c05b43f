//go:build unix

package rt_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pathcover/pathcover/profile"
	"github.com/pathcover/pathcover/rt"
)

// The helper processes of these tests are this test binary, run with
// RT_HELPER set: it links rt as a profiled program does and calls it as the
// generated code would (Register from an initializer, Residuals.Count and
// the trace hooks from the functions' code).
func init() {
	helpers["daemon"] = daemonHelper
}

// The program's own files and what it writes into them.
const (
	ownData = "the program's own data\n"
	ownMore = "and more\n"
)

// ownFiles is how many files the program opens: enough to take the
// numbers rt's files had, whichever they were among the first few (the Go
// runtime holds some descriptors of its own at start).
const ownFiles = 16

// daemonHelper is a program that does what daemons do after starting:
// it closes every descriptor it inherited above 2, then opens files of
// its own, which get the lowest numbers: ownFiles of them, each written
// before and after the paths below. Meanwhile it runs paths: before
// the descriptors are closed, path 0 of function 0 five times and
// residual path 1 of function 0 twice, with a trace of a call; after,
// residual path 1 of function 0 once more, residual path 2 of function 1
// (its first: a new residual table) three times, path 2 of function 1
// once, and a traced edge. With RT_GONE set, it removes the counter and
// trace files before it opens its own, so that they cannot be opened
// again.
func daemonHelper() {
	c, res := rt.Register(os.Getenv("RT_HASH"), os.Getenv("RT_META"), 6, nil, 2, "")
	for range 5 {
		c[0]++
	}
	res.Count(0, 1)
	res.Count(0, 1)
	inv := rt.TraceEnter(os.Getenv("RT_HASH"), 0)

	closeInherited()
	if os.Getenv("RT_GONE") != "" {
		dir := os.Getenv("PATHCOVERDIR")
		for _, pattern := range []string{"*.counts", "*.trace"} {
			names, _ := filepath.Glob(filepath.Join(dir, pattern))
			for _, name := range names {
				syscall.Unlink(name)
			}
		}
	}
	var fds []int
	for i := range ownFiles {
		fd := openOwn(os.Getenv("RT_OWN") + "." + strconv.Itoa(i))
		writeOwn(fd, ownData)
		fds = append(fds, fd)
	}

	res.Count(0, 1)
	for range 3 {
		res.Count(1, 2)
	}
	c[3+2]++ // function 1's words follow function 0's three
	rt.TraceEdge(inv, 4)

	for _, fd := range fds {
		writeOwn(fd, ownMore)
		syscall.Close(fd)
	}
	os.Exit(0)
}

// closeInherited closes every descriptor above 2, as far as the limit on
// open files lets a process have them (bounded, so that the loop stays
// fast under a limit of millions).
func closeInherited() {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		panic(err)
	}
	n := uint64(lim.Cur)
	if n > 1<<20 {
		n = 1 << 20
	}
	for fd := 3; uint64(fd) < n; fd++ {
		syscall.Close(fd)
	}
}

// The program's files are opened and written with package syscall, as a C
// daemon would: package os would start the Go runtime's poller, which takes
// descriptors of its own.
func openOwn(name string) int {
	fd, err := syscall.Open(name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		panic(err)
	}
	return fd
}

func writeOwn(fd int, s string) {
	if n, err := syscall.Write(fd, []byte(s)); err != nil || n != len(s) {
		panic("write: " + strconv.Itoa(n) + " bytes: " + err.Error())
	}
}

// twoFuncMeta is the metadata of a package with two functions of 3 paths
// each, counted in arrays.
func twoFuncMeta(t *testing.T) (string, string) {
	t.Helper()
	f := profile.Func{
		Entry: 0, Exit: 1, Paths: 3, Total: "3",
		Blocks: []profile.Block{{}, {}, {}, {}},
		Edges: []profile.Edge{
			{Src: 0, Dst: 2, Probe: true}, {Src: 0, Dst: 3, Probe: true}, {Src: 2, Dst: 3, Probe: true},
			{Src: 3, Dst: 1, Probe: true}, {Src: 2, Dst: 1, Probe: true},
		},
		Counters: profile.Counters{Kind: "array", Size: 3},
	}
	f0, f1 := f, f
	f0.Name, f1.Name = "F", "G"
	f1.Counters.Offset = 3
	m := profile.Meta{
		Format: profile.MetaFormat, Package: "example.com/daemon", Mode: "bl", Files: []string{"d.go"}, Words: 6,
		Funcs: []profile.Func{f0, f1},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return profile.Hash(raw), string(raw)
}

// runDaemon runs daemonHelper with a new profile directory and returns
// the directory, the prefix of the program's own files and what it wrote
// on its standard error.
func runDaemon(t *testing.T, env ...string) (dir, own, stderr string) {
	t.Helper()
	hash, meta := twoFuncMeta(t)
	tmp := t.TempDir()
	dir, own = filepath.Join(tmp, "profile"), filepath.Join(tmp, "own")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RT_HELPER=daemon", "RT_HASH="+hash, "RT_META="+meta,
		"PATHCOVERDIR="+dir, "RT_OWN="+own)
	cmd.Env = append(cmd.Env, env...)
	var errb strings.Builder
	cmd.Stderr = &errb
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("the program failed: %v\n%s%s", err, out, errb.String())
	}
	return dir, own, errb.String()
}

// checkOwnFiles checks that the program's files hold what it wrote, byte
// for byte.
func checkOwnFiles(t *testing.T, own string) {
	t.Helper()
	for i := range ownFiles {
		name, want := own+"."+strconv.Itoa(i), ownData+ownMore
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("the program's file %s holds %d bytes %q; it wrote %q", filepath.Base(name), len(got), truncate(got), want)
		}
	}
}

func truncate(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}

// TestDescriptorReused: a program that closes the descriptors it inherited
// and opens its own files, which get the numbers rt's files had, keeps its
// files as it wrote them, and the paths it runs afterwards, residual ones
// in a new table among them, are in the profile, as is the traced edge.
func TestDescriptorReused(t *testing.T) {
	hash, _ := twoFuncMeta(t)
	dir, own, stderr := runDaemon(t)
	checkOwnFiles(t, own)
	if stderr != "" {
		t.Errorf("the program warned: %s", stderr)
	}

	p := profile.New()
	if problems, err := p.ReadDir(dir); err != nil || len(problems) > 0 {
		t.Fatalf("ReadDir: %v %v", problems, err)
	}
	// What daemonHelper ran.
	want := map[int]map[uint64]uint64{0: {0: 5, 1: 3}, 1: {2: 4}}
	for fn, ids := range want {
		for id, n := range ids {
			if got := p.Counts[hash][fn][id]; got != n {
				t.Errorf("function %d path %d: %d runs in the profile; the program ran it %d times", fn, id, got, n)
			}
		}
	}
	if p.Processes != 1 {
		t.Errorf("%d processes; want 1", p.Processes)
	}

	traces, _ := filepath.Glob(filepath.Join(dir, "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("%d trace files; want 1", len(traces))
	}
	calls, err := profile.ReadTrace(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].Func != 0 || len(calls[0].Edges) != 1 || calls[0].Edges[0] != 4 {
		t.Errorf("trace: %d calls, the first %+v; want one call of function 0 that took edge 4", len(calls), calls[0])
	}
}

// TestDescriptorGone: when the program has closed rt's descriptors and the
// files cannot be opened again, rt warns once, counts in memory, and the
// program's files are still as it wrote them.
func TestDescriptorGone(t *testing.T) {
	_, own, stderr := runDaemon(t, "RT_GONE=1")
	checkOwnFiles(t, own)
	for _, what := range []string{"path counts", "trace"} {
		if n := strings.Count(stderr, "pathcover: cannot write "+what); n != 1 {
			t.Errorf("%d warnings about the %s; want 1:\n%s", n, what, stderr)
		}
	}
}
