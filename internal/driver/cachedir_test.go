//go:build unix

package driver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// noHome clears what chooses the runtime cache directory.
func noHome(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv(cacheEnv, "")
	t.Setenv("GOCACHE", "")
}

func mode(t *testing.T, name string) fs.FileMode {
	t.Helper()
	info, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode()
}

// TestCacheDirChoice: $PATHCOVERCACHE, else the user cache directory, else
// pathcover in GOCACHE; never the temporary directory; and with none, an
// error that names PATHCOVERCACHE.
func TestCacheDirChoice(t *testing.T) {
	root := t.TempDir()
	t.Setenv("TMPDIR", root)

	noHome(t)
	t.Setenv(cacheEnv, filepath.Join(root, "explicit"))
	t.Setenv("HOME", filepath.Join(root, "home"))
	if dir, err := findCacheDir(); err != nil || dir != filepath.Join(root, "explicit") {
		t.Errorf("with PATHCOVERCACHE: %q, %v", dir, err)
	}

	t.Setenv(cacheEnv, "relative/dir")
	if _, err := findCacheDir(); err == nil || !strings.Contains(err.Error(), "PATHCOVERCACHE=relative/dir is not an absolute path") {
		t.Errorf("a relative PATHCOVERCACHE: %v", err)
	}

	t.Setenv(cacheEnv, "")
	t.Setenv("GOCACHE", filepath.Join(root, "gocache"))
	if dir, err := findCacheDir(); err != nil || dir != filepath.Join(root, "home", ".cache", "pathcover") {
		t.Errorf("with HOME: %q, %v", dir, err)
	}

	noHome(t)
	t.Setenv("GOCACHE", filepath.Join(root, "gocache"))
	if dir, err := findCacheDir(); err != nil || dir != filepath.Join(root, "gocache", "pathcover") {
		t.Errorf("with GOCACHE only: %q, %v", dir, err)
	}

	// A home where nothing can be made: GOCACHE next.
	os.WriteFile(filepath.Join(root, "file"), nil, 0o600)
	t.Setenv("HOME", filepath.Join(root, "file", "home"))
	if dir, err := findCacheDir(); err != nil || dir != filepath.Join(root, "gocache", "pathcover") {
		t.Errorf("with a home where nothing can be made: %q, %v", dir, err)
	}
	// But a cache directory that is not safe is not passed over.
	os.Chmod(filepath.Join(root, "home", ".cache", "pathcover"), 0o777)
	t.Setenv("HOME", filepath.Join(root, "home"))
	if _, err := findCacheDir(); err == nil || !strings.Contains(err.Error(), "writable by its group or others") {
		t.Errorf("with an unsafe user cache directory and GOCACHE: %v; want it refused", err)
	}

	noHome(t)
	t.Setenv("GOCACHE", "off")
	t.Setenv("GOROOT", filepath.Join(root, "nogo")) // not asked: GOCACHE is set
	_, err := findCacheDir()
	if err == nil || !strings.Contains(err.Error(), "set PATHCOVERCACHE") {
		t.Errorf("with no home and GOCACHE=off: %v; want an error naming PATHCOVERCACHE", err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 4 { // explicit, home, gocache, file
		t.Errorf("files made in TMPDIR: %v", entries)
	}
}

// TestPrivateDir: the cache directory and the directories made on the way
// are 0700 whatever the umask; a directory that another user owns or can
// write, or a symbolic link, is refused, and so is a parent that another
// user could replace it in.
func TestPrivateDir(t *testing.T) {
	root := t.TempDir()
	old := syscall.Umask(0)
	defer syscall.Umask(old)

	dir := filepath.Join(root, "a", "b", "cache")
	got, err := privateDir(dir)
	if err != nil || got != dir {
		t.Fatalf("privateDir: %q, %v", got, err)
	}
	for _, d := range []string{filepath.Join(root, "a"), filepath.Join(root, "a", "b"), dir} {
		if m := mode(t, d); m.Perm() != 0o700 {
			t.Errorf("%s made with mode %v", d, m)
		}
	}
	if _, err := privateDir(dir); err != nil {
		t.Errorf("again: %v", err)
	}

	// Through a symbolic link above it: resolved.
	os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link"))
	if got, err := privateDir(filepath.Join(root, "link", "b", "cache")); err != nil || got != dir {
		t.Errorf("through a link: %q, %v", got, err)
	}

	refused := func(name, dir, why string) {
		t.Helper()
		if _, err := privateDir(dir); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v; want an error saying %q", name, err, why)
		}
	}
	for _, m := range []fs.FileMode{0o777, 0o770, 0o702} {
		d := filepath.Join(root, fmt.Sprintf("mode%o", m))
		os.Mkdir(d, 0o700)
		os.Chmod(d, m)
		refused(fmt.Sprintf("mode %v", m), d, "writable by its group or others")
	}
	os.Symlink(dir, filepath.Join(root, "final-link"))
	refused("a symbolic link", filepath.Join(root, "final-link"), "is a symbolic link")
	os.WriteFile(filepath.Join(root, "file"), nil, 0o600)
	refused("a file", filepath.Join(root, "file"), "not a directory")

	open := filepath.Join(root, "open")
	os.Mkdir(open, 0o777)
	refused("in a directory anyone can write", filepath.Join(open, "cache"), "writable by others")
	if _, err := os.Lstat(filepath.Join(open, "cache")); err == nil {
		t.Errorf("the directory was made in a directory anyone can write")
	}
	sticky := filepath.Join(root, "sticky")
	os.Mkdir(sticky, 0o777)
	os.Chmod(sticky, 0o777|fs.ModeSticky)
	if _, err := privateDir(filepath.Join(sticky, "cache")); err != nil {
		t.Errorf("in a sticky directory such as /tmp: %v", err)
	}

	if os.Geteuid() != 0 {
		t.Skip("giving directories to another user needs root")
	}
	other := filepath.Join(root, "other")
	os.Mkdir(other, 0o700)
	os.Chown(other, 54321, 54321)
	refused("another user's", other, "owned by uid 54321")
	os.Mkdir(filepath.Join(other, "cache"), 0o700)
	refused("in another user's directory", filepath.Join(other, "cache"), "owned by uid 54321, not by you or root")
}

// writeRuntimeDir writes a runtime's directory dir as pppexec would, with
// one dependency, dep, and checks that readRuntimeBuild accepts it.
func writeRuntimeDir(t *testing.T, dir, dep string) string {
	t.Helper()
	os.Mkdir(dir, 0o700)
	files := map[string][]byte{"rt.a": []byte("!<arch>\nrt"), "deps.json": fmt.Appendf(nil, `{"errors": %q}`, dep), sourceFile: []byte(hex.EncodeToString(sourceHash()))}
	var sums strings.Builder
	for _, name := range runtimeFiles {
		os.WriteFile(filepath.Join(dir, name), files[name], 0o600)
		sum := sha256.Sum256(files[name])
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	os.WriteFile(filepath.Join(dir, sumsFile), []byte(sums.String()), 0o600)
	if _, err := readRuntimeBuild(dir); err != nil {
		t.Fatalf("a good runtime directory: %v", err)
	}
	return dir
}

// TestReadRuntimeBuild: a runtime's directory is read only if it and its
// files are the user's alone and its files have the sums recorded.
func TestReadRuntimeBuild(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	root := t.TempDir()
	dep := filepath.Join(root, "dep.a")
	os.WriteFile(dep, []byte("!<arch>\n"), 0o600)
	goodRuntime := func(t *testing.T) string {
		return writeRuntimeDir(t, filepath.Join(t.TempDir(), "rt-0123456789abcdef01234567"), dep)
	}
	for _, c := range []struct {
		name   string
		change func(t *testing.T, dir string)
		why    string
	}{
		{"archive changed", func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, "rt.a"), []byte("!<arch>\nxx"), 0o600) }, "not what pppexec wrote"},
		{"deps changed", func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, "deps.json"), []byte(`{}`), 0o600) }, "not what pppexec wrote"},
		{"no sums", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, sumsFile)) }, "no such file"},
		{"another rt's source", func(t *testing.T, dir string) {
			// Another pathcover's runtime, as that pathcover wrote it.
			other := []byte(strings.Repeat("0", 64))
			os.WriteFile(filepath.Join(dir, sourceFile), other, 0o600)
			sums, _ := os.ReadFile(filepath.Join(dir, sumsFile))
			sum, old := sha256.Sum256(other), sha256.Sum256([]byte(hex.EncodeToString(sourceHash())))
			os.WriteFile(filepath.Join(dir, sumsFile), bytes.ReplaceAll(sums, []byte(hex.EncodeToString(old[:])), []byte(hex.EncodeToString(sum[:]))), 0o600)
		}, "another pathcover's runtime"},
		{"archive writable by others", func(t *testing.T, dir string) { os.Chmod(filepath.Join(dir, "rt.a"), 0o666) }, "writable by its group or others"},
		{"directory writable by group", func(t *testing.T, dir string) { os.Chmod(dir, 0o770) }, "writable by its group or others"},
		{"archive a link", func(t *testing.T, dir string) {
			a := filepath.Join(dir, "rt.a")
			os.Rename(a, a+".real")
			os.Symlink(a+".real", a)
		}, "symbolic link"},
		{"dependency gone", func(t *testing.T, dir string) {
			os.Rename(dep, dep+".gone")
			t.Cleanup(func() { os.Rename(dep+".gone", dep) })
		}, "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := goodRuntime(t)
			c.change(t, dir)
			if _, err := readRuntimeBuild(dir); err == nil || !strings.Contains(err.Error(), c.why) {
				t.Errorf("%v; want an error saying %q", err, c.why)
			}
		})
	}
	if os.Geteuid() == 0 {
		dir := goodRuntime(t)
		os.Chown(filepath.Join(dir, "rt.a"), 54321, 54321)
		if _, err := readRuntimeBuild(dir); err == nil || !strings.Contains(err.Error(), "owned by uid 54321") {
			t.Errorf("another user's archive: %v", err)
		}
	}
}

// FuzzReadRuntimeBuild reads a runtime's directory whose deps.json and
// sums are anything, the sums right or not: it is accepted only whole,
// with every dependency an absolute path that exists.
func FuzzReadRuntimeBuild(f *testing.F) {
	f.Add([]byte(`{"errors": "/dev/null"}`), "", true)
	f.Add([]byte(`{"errors": "rel.a"}`), "", true)
	f.Add([]byte(`[]`), "0000  rt.a\n", false)
	f.Fuzz(func(t *testing.T, deps []byte, extraSums string, rightSums bool) {
		dir := filepath.Join(t.TempDir(), "rt-0123456789abcdef01234567")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{"rt.a": []byte("!<arch>\n"), "deps.json": deps, sourceFile: []byte(hex.EncodeToString(sourceHash()))}
		var sums strings.Builder
		for _, name := range runtimeFiles {
			if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o600); err != nil {
				t.Fatal(err)
			}
			if rightSums {
				sum := sha256.Sum256(files[name])
				fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
			}
		}
		sums.WriteString(extraSums)
		if err := os.WriteFile(filepath.Join(dir, sumsFile), []byte(sums.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := readRuntimeBuild(dir)
		if err != nil {
			return
		}
		if !rightSums && !strings.Contains(extraSums, "  deps.json") {
			t.Fatalf("accepted without the sums")
		}
		for p, a := range b.Deps {
			if _, err := os.Stat(a); err != nil || !filepath.IsAbs(a) {
				t.Fatalf("accepted dependency %s at %q", p, a)
			}
		}
	})
}
