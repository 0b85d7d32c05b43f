//go:build unix

package rt_test

import (
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

func init() {
	helpers["files"] = filesHelper
}

// filesHelper is a program that makes its profile as $RT_SETUP says, then
// registers a package, counts path 0 of function 0 three times, and
// traces a call:
//
//	umask=N  runs under umask N (octal)
//	crowd=N  finds N counter and trace files of earlier processes with
//	         its PID, numbered from 0, in the profile directory
//	chdir=D  changes to directory D after registering, and registers the
//	         package again (as a second package would) before it traces
func filesHelper() {
	setup := strings.Fields(os.Getenv("RT_SETUP"))
	var chdir string
	for _, s := range setup {
		key, value, _ := strings.Cut(s, "=")
		switch key {
		case "umask":
			mask, _ := strconv.ParseUint(value, 8, 32)
			syscall.Umask(int(mask))
		case "crowd":
			n, _ := strconv.Atoi(value)
			dir := os.Getenv("PATHCOVERDIR")
			os.MkdirAll(dir, 0o755)
			for i := range n {
				for _, ext := range []string{".counts", ".trace"} {
					name := filepath.Join(dir, "pathcover."+strconv.Itoa(os.Getpid())+"."+strconv.Itoa(i)+ext)
					if err := os.WriteFile(name, nil, 0o644); err != nil {
						panic(err)
					}
				}
			}
		case "chdir":
			chdir = value
		}
	}
	hash, meta := os.Getenv("RT_HASH"), os.Getenv("RT_META")
	c, _ := rt.Register(hash, meta, 6, nil, 2, "")
	if chdir != "" {
		if err := os.Chdir(chdir); err != nil {
			panic(err)
		}
		rt.Register(hash, meta, 6, nil, 2, "")
	}
	for range 3 {
		c[0]++
	}
	rt.TraceEnter(hash, 0)
}

// runFiles runs filesHelper in directory wd with PATHCOVERDIR=dir and
// setup, and returns its standard error.
func runFiles(t *testing.T, wd, dir, setup string) string {
	t.Helper()
	hash, meta := twoFuncMeta(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "RT_HELPER=files", "RT_HASH="+hash, "RT_META="+meta, "PATHCOVERDIR="+dir, "RT_SETUP="+setup)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("helper: %v\n%s%s", err, out, stderr.String())
	}
	return stderr.String()
}

// profileFiles returns the names of the counter, trace and metadata files
// in dir, by kind, leaving out those in skip.
func profileFiles(t *testing.T, dir string, skip map[string]bool) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]string{}
	for _, e := range entries {
		if !skip[e.Name()] {
			ext := filepath.Ext(e.Name())
			files[ext] = append(files[ext], filepath.Join(dir, e.Name()))
		}
	}
	return files
}

// checkRun checks that the files hold what filesHelper ran: path 0 of
// function 0 three times, and one call.
func checkRun(t *testing.T, files map[string][]string) {
	t.Helper()
	hash, _ := twoFuncMeta(t)
	if len(files[".counts"]) != 1 || len(files[".trace"]) != 1 || len(files[".meta"]) != 1 {
		t.Fatalf("profile files %v; want a counter file, a trace and the metadata", files)
	}
	f, err := profile.ReadCounts(files[".counts"][0])
	if err != nil {
		t.Fatal(err)
	}
	var runs uint64
	for _, s := range f.Segments {
		if w := s.Range(0, 1); s.Hash == hash && !s.Residual && len(w) == 1 {
			runs += w[0].Value
		}
	}
	if runs != 3 {
		t.Errorf("path 0 ran 3 times; the counter file says %d", runs)
	}
	calls, err := profile.ReadTrace(files[".trace"][0])
	if err != nil || len(calls) != 1 {
		t.Errorf("trace: %d calls, %v; want 1", len(calls), err)
	}
}

// TestManyStartsOnePID: a process whose PID earlier processes had, which
// left more than a thousand counter and trace files in the directory (PID
// 1 in a container restarted into a kept one), still writes its profile.
func TestManyStartsOnePID(t *testing.T) {
	dir := t.TempDir()
	runFiles(t, dir, dir, "crowd=1002")
	crowd := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".counts") || strings.HasSuffix(name, ".trace") {
			if info, _ := e.Info(); info.Size() == 0 {
				crowd[name] = true
			}
		}
	}
	if len(crowd) != 2*1002 {
		t.Fatalf("%d files of earlier processes; want %d", len(crowd), 2*1002)
	}
	checkRun(t, profileFiles(t, dir, crowd))
}

// TestModes: what rt makes follows the umask, and nobody but the owner may
// write to it even under umask 0.
func TestModes(t *testing.T) {
	for _, c := range []struct {
		umask     string
		file, dir os.FileMode
	}{
		{"0", 0o644, 0o755},
		{"022", 0o644, 0o755},
		{"077", 0o600, 0o700},
	} {
		t.Run("umask"+c.umask, func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "new", "profile") // both made by rt
			runFiles(t, tmp, dir, "umask="+c.umask)
			files := profileFiles(t, dir, nil)
			checkRun(t, files)
			for _, kind := range []string{".counts", ".trace", ".meta"} {
				info, err := os.Stat(files[kind][0])
				if err != nil {
					t.Fatal(err)
				}
				if info.Mode() != c.file {
					t.Errorf("the %s file has mode %v; want %v", kind, info.Mode(), c.file)
				}
			}
			for _, d := range []string{dir, filepath.Dir(dir)} {
				info, err := os.Stat(d)
				if err != nil {
					t.Fatal(err)
				}
				if info.Mode().Perm() != c.dir {
					t.Errorf("directory %s has mode %v; want %v", d, info.Mode().Perm(), c.dir)
				}
			}
		})
	}
}

// TestRelativeDir: a relative PATHCOVERDIR is resolved once, in the
// directory the process starts in, even if it changes directory later,
// and the process says once where its profile goes.
func TestRelativeDir(t *testing.T) {
	tmp := t.TempDir()
	start, later := filepath.Join(tmp, "start"), filepath.Join(tmp, "later")
	for _, d := range []string{start, later} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stderr := runFiles(t, start, "prof", "chdir="+later)
	if _, err := os.Stat(filepath.Join(later, "prof")); err == nil {
		t.Errorf("the process wrote into the directory it changed to")
	}
	files := profileFiles(t, filepath.Join(start, "prof"), nil)
	checkRun(t, files)
	abs, _ := filepath.EvalSymlinks(filepath.Join(start, "prof"))
	want := "pathcover: the profile directory prof is relative: this process writes its profile to " + abs + "\n"
	if stderr != want {
		t.Errorf("standard error %q; want %q", stderr, want)
	}
}
