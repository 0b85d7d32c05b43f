package driver

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pathcover/pathcover/rt"
)

// RuntimePath is the import path under which pppexec compiles rt into
// programs. It is not a module anyone can have, so it never meets a copy of
// rt that the program itself builds (as pathcover's own tests do).
const RuntimePath = "pathcover.invalid/rt"

// A runtimeBuild is rt compiled for one build configuration, with the
// archives of the standard packages it needs.
type runtimeBuild struct {
	Archive string
	Deps    map[string]string // import path → archive, all of rt's dependencies
	sums    map[string]string // file of the directory → its SHA-256, as SHA256SUMS says
}

// sourceFile, in a runtime's directory, holds the hash of the rt source it
// was compiled from (sourceHash): a link takes any cached runtime whose
// standard packages match the program's, and one compiled by another
// pppexec, from another rt, would not link with code that this one
// instrumented (fingerprint mismatch for pathcover.invalid/rt).
const sourceFile = "source"

// buildFlags are the flags of compile and link that change what every
// package compiles to, so rt and its dependencies must be built with them
// too, or the linker rejects the mix (fingerprint mismatch).
var buildFlags = []string{"race", "msan", "asan", "shared", "dynlink"}

// A buildConfig is what, in a build, changes how standard packages compile:
// the race and sanitizer modes, trimming (go build -trimpath), and gcflags
// given for all packages (-gcflags=all=-N -l, as debuggers use).
type buildConfig struct {
	mode    []string
	trim    bool
	gcflags []string
}

// configOf reads the mode from a compile or link command line; trim and
// gcflags are for the caller to say.
func configOf(t *toolArgs, trim bool, gcflags []string) buildConfig {
	c := buildConfig{trim: trim, gcflags: gcflags}
	for _, f := range buildFlags {
		if t.has(f) {
			c.mode = append(c.mode, f)
		}
	}
	return c
}

// runtime returns rt compiled for a build configuration, with the compiler
// next to tool, for the target GOOS and GOARCH. It is built once per
// configuration and kept under the cache directory.
func (x *Exec) runtime(tool string, c buildConfig) (*runtimeBuild, error) {
	compile := filepath.Join(filepath.Dir(tool), "compile")
	version, err := x.toolVersion(compile)
	if err != nil {
		return nil, err
	}
	goos, goarch, err := x.target()
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s/%s\n%q\ntrim=%v\ngcflags=%q\n", version, goos, goarch, c.mode, c.trim, c.gcflags)
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GO") || strings.HasPrefix(kv, "CGO_") {
			fmt.Fprintln(h, kv)
		}
	}
	h.Write(sourceHash())
	fmt.Fprintf(h, "layout %d\n", cacheLayout)
	cache, err := x.cacheDir()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cache, "rt-"+hex.EncodeToString(h.Sum(nil))[:24])
	if b, err := readRuntimeBuild(dir); err == nil {
		return b, nil
	}
	return x.buildRuntime(cache, dir, compile, goos, goarch, c)
}

// cacheLayout is the version of what a runtime's directory holds, part of
// its key, so that pppexecs that write other layouts never share one.
// Layout 2 added the SHA-256 sums, layout 3 the source's hash, layout 4
// dropped the runtime variants (every build patches it alike).
const cacheLayout = 4

// sumsFile, in a runtime's directory, holds the SHA-256 sums of its files,
// as sha256sum prints them.
const sumsFile = "SHA256SUMS"

// runtimeFiles are the files of a runtime's directory that sumsFile covers.
var runtimeFiles = []string{"rt.a", "deps.json", sourceFile}

// runtimeDir matches the name of a runtime's directory in the cache.
var runtimeDir = regexp.MustCompile(`^rt-[0-9a-f]{24}$`)

// matches reports whether rt was built against packages with the same
// fingerprints as the program's, as cfg lists them: then it links with
// them. All of rt's dependencies that the program has are compared (the
// runtime first: every program has it), so a program that links none of
// rt's direct imports is still told apart.
func (b *runtimeBuild) matches(cfg *importcfg) bool {
	deps := slices.Sorted(maps.Keys(b.Deps))
	slices.SortStableFunc(deps, func(p, q string) int {
		return cmp.Compare(boolInt(p != "runtime"), boolInt(q != "runtime"))
	})
	compared := 0
	for _, p := range deps {
		have, ok := cfg.packagefile[p]
		if !ok {
			continue
		}
		want, err1 := fingerprint(b.Deps[p])
		got, err2 := fingerprint(have)
		if err1 != nil || err2 != nil || want != got {
			return false
		}
		compared++
	}
	return compared > 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cachedRuntimes returns the runtimes built so far, newest first: those
// that readRuntimeCandidate accepts, each to be verified before it is
// used.
func (x *Exec) cachedRuntimes() []*runtimeBuild {
	cache, err := x.cacheDir()
	if err != nil {
		return nil
	}
	entries, _ := os.ReadDir(cache)
	var builds []*runtimeBuild
	for _, e := range entries {
		if !runtimeDir.MatchString(e.Name()) {
			continue
		}
		if b, err := readRuntimeCandidate(filepath.Join(cache, e.Name())); err == nil {
			builds = append(builds, b)
		}
	}
	slices.SortFunc(builds, func(a, b *runtimeBuild) int { return cmp.Compare(modTime(b.Archive), modTime(a.Archive)) })
	return builds
}

func modTime(name string) int64 {
	info, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return info.ModTime().UnixNano()
}

// userTrimpath reports whether the build trims paths (go build -trimpath):
// the go command then gives compile a rewrite for the package directory
// besides the one for its scratch directory, which it always gives.
func userTrimpath(t *toolArgs) bool {
	v, _ := t.flag("trimpath")
	return strings.Count(v, ";") >= 1
}

// userGcflags returns the -gcflags a compile command line carries: the
// go command puts them after its own flags and before -nolocalimports (or
// -D) and -importcfg.
func userGcflags(t *toolArgs) []string {
	own := map[string]bool{
		"o": true, "trimpath": true, "p": true, "lang": true, "std": true, "complete": true,
		"installsuffix": true, "buildid": true, "dwarf": true, "goversion": true, "coveragecfg": true,
		"pgoprofile": true, "symabis": true, "c": true, "shared": true, "dynlink": true, "race": true,
		"msan": true, "asan": true, "linkshared": true, "importcfg": true, "embedcfg": true, "pack": true,
		"asmhdr": true,
	}
	takesValue := map[string]bool{
		"o": true, "trimpath": true, "p": true, "installsuffix": true, "buildid": true, "goversion": true,
		"coveragecfg": true, "pgoprofile": true, "symabis": true, "importcfg": true, "embedcfg": true, "asmhdr": true,
	}
	var user []string
	for i := 0; i < len(t.args); i++ {
		a := t.args[i]
		if a == "-nolocalimports" || a == "-D" || !strings.HasPrefix(a, "-") {
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if own[name] {
			if takesValue[name] && !hasValue {
				i++
			}
			continue
		}
		user = append(user, a)
	}
	return user
}

// readRuntimeBuild reads the runtime in directory dir of the cache, if it
// is one that pppexec wrote: the directory and its files must be the
// user's alone (checkPrivate), and rt.a and deps.json must have the
// SHA-256 sums that SHA256SUMS records. The standard packages that
// deps.json names are archives in the go build cache, which every build
// trusts for all its packages and whose files are named by their own
// content's hash; they are not hashed again (that would read megabytes for
// each compile), only required to exist, and the link checks their
// fingerprints against the program's.
func readRuntimeBuild(dir string) (*runtimeBuild, error) {
	b, err := readRuntimeCandidate(dir)
	if err != nil {
		return nil, err
	}
	if err := b.verify(); err != nil {
		return nil, err
	}
	return b, nil
}

// readRuntimeCandidate is the first half of readRuntimeBuild, enough to
// tell whether a runtime suits a program: the directory is checked, and
// the small files (its source's hash, then deps.json) against SHA256SUMS;
// rt.a and the archives are left to verify, which a link runs for the one
// runtime it chooses out of the many a cache may hold.
func readRuntimeCandidate(dir string) (*runtimeBuild, error) {
	if err := checkPrivate(dir, true); err != nil {
		return nil, err
	}
	sumsData, err := readPrivate(filepath.Join(dir, sumsFile))
	if err != nil {
		return nil, err
	}
	b := &runtimeBuild{Archive: filepath.Join(dir, "rt.a"), sums: make(map[string]string)}
	for _, line := range strings.Split(string(sumsData), "\n") {
		if sum, name, ok := strings.Cut(line, "  "); ok {
			b.sums[name] = sum
		}
	}
	source, err := b.readChecked(sourceFile)
	if err != nil {
		return nil, err
	}
	if string(source) != hex.EncodeToString(sourceHash()) {
		return nil, fmt.Errorf("%s was compiled from another pathcover's runtime", dir)
	}
	deps, err := b.readChecked("deps.json")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(deps, &b.Deps); err != nil {
		return nil, err
	}
	for _, a := range b.Deps {
		if !filepath.IsAbs(a) {
			return nil, fmt.Errorf("%s: archive %s is not an absolute path", filepath.Join(dir, "deps.json"), a)
		}
	}
	return b, nil
}

// verify is the second half of readRuntimeBuild: rt.a must have the sum
// that SHA256SUMS records, and the archives of deps.json must exist. A
// runtime verified is one about to be used: it is marked so, for the
// cache's trimming (cachetrim.go).
func (b *runtimeBuild) verify() error {
	if _, err := b.readChecked(filepath.Base(b.Archive)); err != nil {
		return err
	}
	for _, a := range b.Deps {
		if _, err := os.Stat(a); err != nil {
			return err // the go cache was trimmed: build again
		}
	}
	markUsed(filepath.Join(filepath.Dir(b.Archive), sumsFile))
	return nil
}

// readChecked reads one of runtimeFiles in the runtime's directory, if it
// has the SHA-256 sum that SHA256SUMS records.
func (b *runtimeBuild) readChecked(name string) ([]byte, error) {
	file := filepath.Join(filepath.Dir(b.Archive), name)
	data, err := readPrivate(file)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(data); b.sums[name] != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("%s is not what pppexec wrote: its SHA-256 is not the one %s records", file, sumsFile)
	}
	return data, nil
}

// buildRuntime compiles rt into directory dir of the cache.
func (x *Exec) buildRuntime(cache, dir, compile, goos, goarch string, c buildConfig) (*runtimeBuild, error) {
	tmp, err := os.MkdirTemp(cache, "rt-build-")
	if err != nil {
		return nil, &buildError{key: "cache", err: fmt.Errorf("cannot keep the runtime in %s: %v; set %s to a directory that only you can write", cache, err, cacheEnv)}
	}
	defer os.RemoveAll(tmp)

	// Write the source for this GOOS and GOARCH.
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = goos, goarch
	// goroutine_wpp.go and ring_runtime.go, which use what every build
	// adds to package runtime (goroutine.go).
	ctx.BuildTags = []string{"pathcover_rt"}
	var files []string
	entries, _ := fs.ReadDir(rt.Source, ".")
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, "_test.go") || name == "source.go" {
			continue
		}
		data, _ := fs.ReadFile(rt.Source, name)
		path := filepath.Join(tmp, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
		if ok, err := ctx.MatchFile(tmp, name); err != nil || !ok {
			continue
		}
		files = append(files, path)
	}

	// Find the standard packages it imports, built the same way.
	deps, err := x.listExports(c, rtImports(files)...)
	if err != nil {
		return nil, err
	}
	cfg := &importcfg{}
	if err := cfg.write(filepath.Join(tmp, "importcfg"), deps); err != nil {
		return nil, err
	}
	args := []string{"-o", filepath.Join(tmp, "rt.a"), "-p", RuntimePath, "-importcfg", filepath.Join(tmp, "importcfg"),
		"-pack", "-complete", "-trimpath", tmp + "=>" + RuntimePath}
	for _, m := range c.mode {
		args = append(args, "-"+m)
	}
	args = append(args, c.gcflags...)
	args = append(args, files...)
	cmd := exec.Command(compile, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("compiling the runtime: %v\n%s", err, out)
	}
	// The compiler made rt.a as the umask says; the directory is private
	// anyway, but readRuntimeBuild wants every file the user's alone.
	if err := os.Chmod(filepath.Join(tmp, "rt.a"), 0o600); err != nil {
		return nil, err
	}
	depsJSON, _ := json.Marshal(deps)
	if err := os.WriteFile(filepath.Join(tmp, "deps.json"), depsJSON, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, sourceFile), []byte(hex.EncodeToString(sourceHash())), 0o600); err != nil {
		return nil, err
	}
	var sums strings.Builder
	for _, name := range runtimeFiles {
		data, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if err := os.WriteFile(filepath.Join(tmp, sumsFile), []byte(sums.String()), 0o600); err != nil {
		return nil, err
	}
	final := filepath.Join(tmp, "final")
	if err := os.Mkdir(final, 0o700); err != nil {
		return nil, err
	}
	for _, name := range append([]string{sumsFile}, runtimeFiles...) {
		if err := os.Rename(filepath.Join(tmp, name), filepath.Join(final, name)); err != nil {
			return nil, err
		}
	}
	trimCache(cache)
	return publish(final, dir)
}

// publish moves a runtime's directory, made in final, to dir. Another
// process may have been quicker, which is fine if what it put there is
// good; anything else there (a runtime changed since, another user's, one
// whose standard packages left the go cache) is moved out of the way and
// removed.
func publish(final, dir string) (*runtimeBuild, error) {
	var err error
	for range 5 {
		if err = os.Rename(final, dir); err == nil {
			return readRuntimeBuild(dir)
		}
		if b, bad := readRuntimeBuild(dir); bad == nil {
			return b, nil
		}
		if info, err := os.Lstat(dir); err == nil && !info.IsDir() {
			os.Remove(dir) // a file or a symbolic link: nothing to move aside
			continue
		}
		aside, tmpErr := os.MkdirTemp(filepath.Dir(dir), "stale-")
		if tmpErr != nil {
			return nil, tmpErr
		}
		// Moved into a new directory of its own, or away by a process as
		// quick: either way, try again.
		if err := os.Rename(dir, filepath.Join(aside, "old")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			os.Remove(aside)
			return nil, fmt.Errorf("replacing %s: %v", dir, err)
		}
		os.RemoveAll(aside)
	}
	return nil, fmt.Errorf("publishing the runtime in %s: %v", dir, err)
}

// rtImports returns the packages that rt's files import, but unsafe.
func rtImports(files []string) []string {
	seen := map[string]bool{}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, imp := range f.Imports {
			if p, err := strconv.Unquote(imp.Path.Value); err == nil && p != "unsafe" {
				seen[p] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// listExports runs go list -export on pkgs and their dependencies, built
// as the build is, and returns their archives.
//
// The nested go command runs its compiles through this same pppexec with
// the same flags, in nested mode (nestedEnv): it instruments nothing, and
// so compiles rt's dependencies, which are never instrumented, exactly as
// the build does, under the same tool ID. Their cache keys are then the
// build's: what the build compiled is a cache hit here, and what this
// compiles first is one for the build, instead of the standard library
// being compiled twice on a cold cache. Without a known command line it
// builds plainly (-toolexec= also overrides one in GOFLAGS).
func (x *Exec) listExports(c buildConfig, pkgs ...string) (map[string]string, error) {
	toolexec := "-toolexec="
	if s, ok := quoteFields(x.Self); ok && len(x.Self) > 0 {
		toolexec += s
	}
	args := []string{"list", toolexec, "-export", "-deps", "-json=ImportPath,Export"}
	for _, m := range c.mode {
		switch m {
		case "race", "msan", "asan":
			args = append(args, "-"+m)
		case "shared", "dynlink":
			return nil, fmt.Errorf("-%s builds are not supported", m)
		}
	}
	if c.trim {
		args = append(args, "-trimpath")
	}
	if len(c.gcflags) > 0 {
		args = append(args, "-gcflags=all="+strings.Join(c.gcflags, " "))
	}
	args = append(args, pkgs...)
	cmd := exec.Command(x.goCommand(), args...)
	cmd.Env = append(withoutEnv(os.Environ(), "TOOLEXEC_IMPORTPATH"), nestedEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	deps := make(map[string]string)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Export != "" {
			deps[p.ImportPath] = p.Export
		}
	}
	return deps, nil
}

// sourceHash hashes what rt is compiled from: its source, which pppexec
// carries, and the patch pppexec applies to the runtime that rt imports
// (goroutine.go), whose exported functions inline into rt's export data.
// Two pppexecs with the same rt but another patch (2026-12-02: a field
// added to the g) must not share a runtime directory: a compile took
// whichever rt the key found, built against the other patch, and the link
// then chose one that matched its own runtime, and failed with a
// fingerprint mismatch for pathcover.invalid/rt. It is computed once a
// process: a link checks it against every runtime the cache holds.
var sourceHash = sync.OnceValue(hashSource)

// hashSource computes sourceHash.
func hashSource() []byte {
	h := sha256.New()
	entries, _ := fs.ReadDir(rt.Source, ".")
	for _, e := range entries {
		data, _ := fs.ReadFile(rt.Source, e.Name())
		fmt.Fprintf(h, "%s %d\n", e.Name(), len(data))
		h.Write(data)
	}
	fmt.Fprintf(h, "runtime patch\n%q\n%q\n%q\n", recorderField, goroutineAccessor, goroutineFallback)
	for _, file := range slices.Sorted(maps.Keys(runtimeCalls)) {
		fmt.Fprintf(h, "%s %q\n", file, runtimeCalls[file])
	}
	return h.Sum(nil)
}

// nestedEnv marks the go commands that pppexec runs itself: pppexec
// instruments nothing under them, so they never need rt, and never recurse.
const nestedEnv = "PATHCOVER_NESTED"

// quoteFields joins args as the go command splits -toolexec: by spaces,
// with single or double quotes around a field that holds spaces. It
// reports false for a field it cannot quote.
func quoteFields(args []string) (string, bool) {
	quoted := make([]string, len(args))
	for i, a := range args {
		switch {
		case a != "" && !strings.ContainsAny(a, " \t\n\r'\""):
			quoted[i] = a
		case !strings.Contains(a, "'"):
			quoted[i] = "'" + a + "'"
		case !strings.Contains(a, "\""):
			quoted[i] = "\"" + a + "\""
		default:
			return "", false
		}
	}
	return strings.Join(quoted, " "), true
}
