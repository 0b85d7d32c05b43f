package driver

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pathcover/pathcover/internal/buildspec"
)

// An Exec runs one tool command for the go command, instrumenting it if it
// compiles or links a package that is to be profiled.
type Exec struct {
	Config *Config
	Stderr io.Writer
	// Self is the command line that runs this pppexec with its flags, for
	// the go commands it runs itself; nil if unknown.
	Self []string

	versions sync.Map // tool path → its -V=full line

	cacheOnce sync.Once
	cache     string // the runtime cache directory
	cacheErr  error  // why there is none
}

// Main runs args (the tool's path, then its arguments) as the go command
// asked and returns the exit code for pppexec to exit with.
func (x *Exec) Main(args []string) int {
	if x.Stderr == nil {
		x.Stderr = os.Stderr
	}
	if len(args) == 0 {
		fmt.Fprintln(x.Stderr, "pppexec: no tool to run")
		return 2
	}
	tool := strings.TrimSuffix(filepath.Base(args[0]), ".exe")
	if len(args) == 2 && args[1] == "-V=full" {
		return x.version(tool, args)
	}
	switch tool {
	case "compile":
		return x.compile(args)
	case "link":
		for _, d := range x.Config.deprecated {
			fmt.Fprintf(x.Stderr, "pppexec: %s\n", d)
		}
		code := x.link(args)
		if code == 0 {
			noteLinked(args)
		}
		return code
	case "vet":
		return x.runCached(args, x.Stderr, vetKey)
	case "asm":
		return x.runCached(args, x.Stderr, asmKey)
	}
	return run(args, x.Stderr)
}

// run runs a command with the process's standard streams and returns its
// exit code.
func run(args []string, stderr io.Writer) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintf(stderr, "pppexec: %v\n", err)
		return 1
	}
	return 0
}

// version answers -V=full: the real tool's line and, for compile and link,
// whose output pppexec changes, a build ID made from that line, pppexec's
// own executable and its configuration. The go command keys its cache on
// this line, so a build with another pppexec or configuration never reuses
// an object built by this one, and a build without pppexec never reuses
// one built with it. (For a development toolchain the go command reads the
// ID from the last field, which must start with buildID=.)
func (x *Exec) version(tool string, args []string) int {
	line, err := x.toolVersion(args[0])
	if err != nil {
		fmt.Fprintf(x.Stderr, "pppexec: %v\n", err)
		return 1
	}
	if tool == "compile" || tool == "link" {
		if x.Config.ProfileKey == buildspec.KeyInGcflags && os.Getenv(nestedEnv) == "" {
			// (A nested go command instruments nothing: its compiles
			// share the build's keys, and read no profile.)
			known, err := x.Config.checkGoCommandKey()
			if err != nil {
				fmt.Fprintf(x.Stderr, "pppexec: %v\n", err)
				return 1
			}
			if !known {
				x.Config.ProfileKey = buildspec.KeyInBuildID // safe wherever it runs
			}
		}
		self, err := selfHash()
		if err != nil {
			fmt.Fprintf(x.Stderr, "pppexec: %v\n", err)
			return 1
		}
		// A pppexec that cannot keep its runtime falls back to plain
		// compiles, with a message saying why; those must not be cached as
		// if they were instrumented, lest a working pppexec reuse them
		// later, nor replayed for another reason.
		unusable := ""
		if err := x.cacheUsable(); err != nil {
			unusable = err.Error()
		}
		h := sha256.Sum256([]byte(fmt.Sprintf("%s\n%s\n%s\nunusable=%q", line, self, x.Config.String(), unusable)))
		line += " +pppexec buildID=_/_/_/" + hex.EncodeToString(h[:16])
	}
	fmt.Println(line)
	return 0
}

// runCombined runs a command with its standard output and error both
// written to out (the go command reads a tool's so), and returns its exit
// code.
func runCombined(args []string, out io.Writer) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, out, out
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintf(out, "pppexec: %v\n", err)
		return 1
	}
	return 0
}

// selfCommand returns the command line of this process without its last
// toolArgs arguments (the tool and its arguments), with the executable's
// absolute path: the go command runs tools in package directories.
func selfCommand(toolArgs int) []string {
	exe, err := os.Executable()
	if err != nil || toolArgs > len(os.Args)-1 {
		return nil
	}
	return append([]string{exe}, os.Args[1:len(os.Args)-toolArgs]...)
}

// selfHash hashes pppexec's executable, which carries rt's source.
func selfHash() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// goCommand is the go command of the toolchain that runs pppexec: tools
// live in $GOROOT/pkg/tool/GOOS_GOARCH, and the go command passes GOROOT.
func (x *Exec) goCommand() string { return goCommand() }

func goCommand() string {
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); fileExists(p) {
			return p
		}
	}
	return "go"
}

// target returns the GOOS and GOARCH being built for, which a configuration
// file (go env -w) may set without the environment showing it.
func (x *Exec) target() (string, string, error) {
	cmd := exec.Command(x.goCommand(), "env", "GOOS", "GOARCH")
	cmd.Env = withoutEnv(os.Environ(), "TOOLEXEC_IMPORTPATH")
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("go env: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return "", "", fmt.Errorf("go env GOOS GOARCH printed %q", out)
	}
	return f[0], f[1], nil
}

// cacheUsable reports why pppexec cannot keep compiled runtimes, if it
// cannot.
func (x *Exec) cacheUsable() error {
	dir, err := x.cacheDir()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "probe-")
	if err != nil {
		return fmt.Errorf("cannot keep the runtime in %s: %v; set %s to a directory that only you can write", dir, err, cacheEnv)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// cacheDir is where pppexec keeps compiled runtimes (see cachedir.go), or
// why it has nowhere safe to keep them: a *buildError.
func (x *Exec) cacheDir() (string, error) {
	x.cacheOnce.Do(func() {
		x.cache, x.cacheErr = findCacheDir()
		if x.cacheErr != nil {
			x.cacheErr = &buildError{key: "cache", err: x.cacheErr}
		}
	})
	return x.cache, x.cacheErr
}

// A buildError is a reason why pppexec instruments nothing in the whole
// build (no safe runtime cache, a profile that cannot be read), as opposed
// to a reason about one package: it is said once per build, not once per
// package.
type buildError struct {
	key string // names the reason, for sayOnce
	err error
}

func (e *buildError) Error() string { return e.err.Error() }
func (e *buildError) Unwrap() error { return e.err }

func (x *Exec) warnf(format string, args ...any) {
	fmt.Fprintf(x.Stderr, "pppexec: "+format+"\n", args...)
}

func withoutEnv(env []string, name string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
