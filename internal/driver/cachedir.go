package driver

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The runtime cache holds code that pppexec links into every profiled
// program, so it must hold only what pppexec wrote: a directory that
// another user can write, or replace, would let them run their code in the
// user's programs. The directory is, in this order:
//
//   - $PATHCOVERCACHE (an absolute path);
//   - pathcover in the user's cache directory (os.UserCacheDir:
//     $XDG_CACHE_HOME or ~/.cache on Linux);
//   - with neither HOME nor XDG_CACHE_HOME (as in many CI images), or a
//     home where it cannot be made (HOME=/ in a container run as another
//     user), pathcover in the go command's own build cache, $GOCACHE: the
//     go command then needs GOCACHE set, so a build always has it, and
//     the directory is as private as the build cache that every build
//     already trusts. go clean -cache removes only the cache's own
//     subdirectories (00 to ff) and log.txt, and trimming reads only
//     those, so the go command leaves pathcover alone; a runtime whose
//     standard packages it removed is built again.
//
// There is no fallback to the shared temporary directory, nor past a
// directory that exists but fails the checks: that is said. The directory
// and every directory pppexec creates on the way to it are made with mode
// 0700, and must be directories (not symbolic links, Lstat), owned by the
// user and writable by nobody else; the directories above them must be
// owned by the user or root and, unless sticky (/tmp), not writable by
// others, so that nobody else can rename the cache away and put their own
// in its place. A directory that fails these checks is refused, never
// repaired or taken: a directory that another user could write may already
// hold their files. Without a usable directory pppexec builds without
// instrumenting (as for any package it cannot instrument) and says once
// why, naming PATHCOVERCACHE; with -strict the build fails.

// cacheEnv names the runtime cache directory.
const cacheEnv = "PATHCOVERCACHE"

// findCacheDir returns the runtime cache directory, created if need be,
// with symbolic links above it resolved, or why there is none that is safe.
// A directory that cannot be made (HOME=/ in a container run as another
// user) gives way to the next in the order; one that exists but is not
// safe does not: that is said, not hidden.
func findCacheDir() (string, error) {
	var tried []string
	attempt := func(dir string) (string, error) {
		safe, err := privateDir(dir)
		if err != nil {
			tried = append(tried, fmt.Sprintf("in %s: %v", dir, err))
		}
		return safe, err
	}
	fail := func(err error) (string, error) {
		if len(tried) > 0 {
			err = fmt.Errorf("cannot keep the runtime %s", strings.Join(tried, ", nor "))
		}
		return "", fmt.Errorf("%v; set %s to a directory that only you can write", err, cacheEnv)
	}

	if dir := os.Getenv(cacheEnv); dir != "" {
		if !filepath.IsAbs(dir) {
			return fail(fmt.Errorf("%s=%s is not an absolute path", cacheEnv, dir))
		}
		if safe, err := attempt(filepath.Clean(dir)); err == nil {
			return safe, nil
		}
		return fail(nil)
	}
	base, userErr := os.UserCacheDir()
	if userErr == nil {
		safe, err := attempt(filepath.Join(base, "pathcover"))
		if err == nil {
			return safe, nil
		}
		if nm := (*notMadeError)(nil); !errors.As(err, &nm) {
			return fail(nil)
		}
	}
	gocache := goCache()
	if !filepath.IsAbs(gocache) {
		if userErr != nil {
			return fail(fmt.Errorf("no directory for the runtime cache: %v, and GOCACHE is %q", userErr, gocache))
		}
		return fail(nil)
	}
	if safe, err := attempt(filepath.Join(gocache, "pathcover")); err == nil {
		return safe, nil
	}
	return fail(nil)
}

// goCache returns the go command's build cache directory: the go command
// passes GOCACHE to the tools it runs; it is asked otherwise.
func goCache() string {
	if dir := os.Getenv("GOCACHE"); dir != "" {
		return dir
	}
	cmd := exec.Command(goCommand(), "env", "GOCACHE")
	cmd.Env = withoutEnv(os.Environ(), "TOOLEXEC_IMPORTPATH")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// A notMadeError is a directory that does not exist and cannot be made, or
// cannot be reached.
type notMadeError struct{ err error }

func (e *notMadeError) Error() string { return e.err.Error() }
func (e *notMadeError) Unwrap() error { return e.err }

// privateDir makes sure that dir is a directory that only the user can
// change, creating it and its missing parents with mode 0700, and returns
// it with the symbolic links above it resolved.
func privateDir(dir string) (string, error) {
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if parent == dir {
		return "", fmt.Errorf("%s cannot be a cache directory", dir)
	}
	p, err := safeParent(parent)
	if err != nil {
		return "", err
	}
	d := filepath.Join(p, filepath.Base(dir))
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", &notMadeError{err}
	}
	return d, checkPrivate(d, true)
}

// safeParent makes sure that dir exists, creating it as a private
// directory if it does not, and that nobody but the user and root can
// replace what is in it. It returns dir with symbolic links resolved.
func safeParent(dir string) (string, error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return privateDir(dir)
	} else if err != nil {
		return "", &notMadeError{err} // under a file, or a directory not to be searched
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	for p := real; ; p = filepath.Dir(p) {
		info, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if uid, ok := fileOwner(info); ok {
			if uid != 0 && uid != os.Geteuid() {
				return "", fmt.Errorf("%s is owned by uid %d, not by you or root", p, uid)
			}
			if info.Mode()&0o002 != 0 && info.Mode()&fs.ModeSticky == 0 {
				return "", fmt.Errorf("%s is writable by others (mode %v)", p, info.Mode())
			}
		}
		if filepath.Dir(p) == p {
			return real, nil
		}
	}
}

// checkPrivate checks that name is a directory (dir) or a regular file, not
// a symbolic link, owned by the user and writable by nobody else.
func checkPrivate(name string, dir bool) error {
	info, err := os.Lstat(name)
	if err != nil {
		return err
	}
	return checkPrivateInfo(name, info, dir)
}

func checkPrivateInfo(name string, info fs.FileInfo, dir bool) error {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link", name)
	case dir && !info.IsDir():
		return fmt.Errorf("%s is not a directory", name)
	case !dir && !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", name)
	}
	uid, ok := fileOwner(info)
	if !ok {
		return nil // no owners to check (Windows: the ACLs of the user's profile)
	}
	if uid != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, not by you (uid %d)", name, uid, os.Geteuid())
	}
	if info.Mode()&0o022 != 0 {
		return fmt.Errorf("%s is writable by its group or others (mode %v)", name, info.Mode())
	}
	return nil
}

// readPrivate reads a file that checkPrivate accepts, checking the file it
// opened, not only the name.
func readPrivate(name string) ([]byte, error) {
	before, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if err := checkPrivateInfo(name, before, false); err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(before, after) {
		return nil, fmt.Errorf("%s changed while it was opened", name)
	}
	if err := checkPrivateInfo(name, after, false); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// workDir returns the go command's work directory ($WORK) from the -o of a
// compile or link, which is in one of its action directories, or "" if
// there is none. The go command makes it for each run, for the user alone,
// and removes it when done.
func workDir(t *toolArgs) string {
	o, ok := t.flag("o")
	if !ok || !filepath.IsAbs(o) {
		return ""
	}
	for d := filepath.Dir(o); ; d = filepath.Dir(d) {
		if strings.HasPrefix(filepath.Base(d), "go-build") {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// sayOnce prints lines that concern the whole build, not one package: the
// first of the go command's compiles and links to get here prints them,
// and marks it done with a file named after key in the go command's work
// directory, which the next go command will not have. (What a compile
// prints, the go command keeps with its output in the build cache and
// prints again when it reuses it: the build ID then identifies what the
// lines say.) Without a work directory, they are printed every time.
func (x *Exec) sayOnce(t *toolArgs, key string, lines ...string) {
	if len(lines) == 0 {
		return
	}
	if work := workDir(t); work != "" {
		f, err := os.OpenFile(filepath.Join(work, "pathcover-said-"+key), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return
		}
		if err == nil {
			f.Close()
		}
	}
	for _, l := range lines {
		x.warnf("%s", l)
	}
}
