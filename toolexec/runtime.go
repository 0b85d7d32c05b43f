package toolexec

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
	"slices"
	"strconv"
	"strings"

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
}

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
	dir := filepath.Join(x.cacheDir(), "rt-"+hex.EncodeToString(h.Sum(nil))[:24])
	if b, err := readRuntimeBuild(dir); err == nil {
		return b, nil
	}
	return x.buildRuntime(dir, compile, goos, goarch, c)
}

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

// cachedRuntimes returns the runtimes built so far, newest first.
func (x *Exec) cachedRuntimes() []*runtimeBuild {
	dirs, _ := filepath.Glob(filepath.Join(x.cacheDir(), "rt-*"))
	var builds []*runtimeBuild
	for _, d := range dirs {
		if b, err := readRuntimeBuild(d); err == nil {
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

func readRuntimeBuild(dir string) (*runtimeBuild, error) {
	data, err := os.ReadFile(filepath.Join(dir, "deps.json"))
	if err != nil {
		return nil, err
	}
	b := &runtimeBuild{Archive: filepath.Join(dir, "rt.a")}
	if err := json.Unmarshal(data, &b.Deps); err != nil {
		return nil, err
	}
	for _, a := range append(slices.Collect(maps.Values(b.Deps)), b.Archive) {
		if _, err := os.Stat(a); err != nil {
			return nil, err // the go cache was trimmed: build again
		}
	}
	return b, nil
}

func (x *Exec) buildRuntime(dir, compile, goos, goarch string, c buildConfig) (*runtimeBuild, error) {
	tmp, err := os.MkdirTemp(x.cacheDir(), "rt-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	// Write the source for this GOOS and GOARCH.
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = goos, goarch
	var files []string
	entries, _ := fs.ReadDir(rt.Source, ".")
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, "_test.go") || name == "source.go" {
			continue
		}
		data, _ := fs.ReadFile(rt.Source, name)
		path := filepath.Join(tmp, name)
		if err := os.WriteFile(path, data, 0o666); err != nil {
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
	depsJSON, _ := json.Marshal(deps)
	if err := os.WriteFile(filepath.Join(tmp, "deps.json"), depsJSON, 0o666); err != nil {
		return nil, err
	}
	// Publish: another process may have been quicker, which is fine.
	final := filepath.Join(tmp, "final")
	if err := os.Mkdir(final, 0o777); err != nil {
		return nil, err
	}
	for _, name := range []string{"rt.a", "deps.json"} {
		if err := os.Rename(filepath.Join(tmp, name), filepath.Join(final, name)); err != nil {
			return nil, err
		}
	}
	if err := os.Rename(final, dir); err != nil && !errors.Is(err, fs.ErrExist) && !os.IsExist(err) {
		if _, statErr := os.Stat(dir); statErr != nil {
			return nil, err
		}
	}
	return readRuntimeBuild(dir)
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

// sourceHash hashes rt's source, which pppexec carries.
func sourceHash() []byte {
	h := sha256.New()
	entries, _ := fs.ReadDir(rt.Source, ".")
	for _, e := range entries {
		data, _ := fs.ReadFile(rt.Source, e.Name())
		fmt.Fprintf(h, "%s %d\n", e.Name(), len(data))
		h.Write(data)
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
