package driver

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"go/version"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/internal/instrument"
	"github.com/pathcover/pathcover/profile"
)

// compile runs a compile command, instrumenting the package if it is
// selected. A package that cannot be instrumented is compiled unchanged
// with one warning naming it and the reason (with -strict, the build fails).
func (x *Exec) compile(args []string) int {
	// The profile key travels in -gcflags for pppexec alone: no compiler
	// may see it (profilekey.go).
	args, key := takeProfileKey(args)
	t := &toolArgs{args: slices.Clone(args[1:])}
	importPath := os.Getenv("TOOLEXEC_IMPORTPATH")
	if importPath == "" {
		importPath, _ = t.flag("p")
	}
	if importPath == "runtime" {
		// In every build, and under the go commands pppexec runs itself
		// too: they build what rt is compiled against, which must be
		// this runtime.
		return x.compileRuntime(args, t)
	}
	if x.Config.Flight > 0 && strings.TrimSuffix(strings.Split(importPath, " ")[0], "_test") == apiPath && os.Getenv(nestedEnv) == "" {
		return x.compileFlightAPI(args, t)
	}
	if x.Config.Tests && importPath == "testing" && os.Getenv(nestedEnv) == "" {
		return x.compileTesting(args, t)
	}
	if os.Getenv(nestedEnv) != "" || !x.selected(importPath, t) {
		return x.runCached(args, x.Stderr, compileKey)
	}
	if err := x.Config.checkProfileKey(importPath, key); err != nil {
		x.warnf("%v", err) // whatever -strict says: the object's cache key would be wrong
		return 1
	}
	newArgs, summary, err := x.instrumentCompile(args[0], t, importPath)
	if err != nil {
		var be *buildError
		if errors.As(err, &be) && !x.Config.Strict {
			// The same for every package: said once for the build.
			x.sayOnce(t, be.key, fmt.Sprintf("instrumenting nothing: %v", be.err))
			return run(args, x.Stderr)
		}
		if x.Config.Strict {
			x.warnf("cannot instrument %s: %v", importPath, err)
			return 1
		}
		x.warnf("not instrumenting %s: %v", importPath, err)
		return run(args, x.Stderr)
	}
	if newArgs == nil {
		return x.runCached(args, x.Stderr, compileKey) // nothing to instrument
	}
	var stderr bytes.Buffer
	code := run(newArgs, &stderr)
	if code != 0 {
		// The instrumented source did not compile: a bug of ours, unless
		// the original fails too. Build the original, which tells.
		msg := firstLines(stderr.String(), 5)
		if x.Config.Strict {
			x.warnf("instrumented %s does not compile:\n%s", importPath, msg)
			return code
		}
		x.warnf("instrumented %s does not compile, so it is built unchanged:\n%s", importPath, msg)
		return run(args, x.Stderr)
	}
	io.Copy(x.Stderr, &stderr)
	if x.Config.Verbose {
		x.warnf("%s: %s", importPath, summary)
	}
	return 0
}

// instrumentCompile rewrites the compile's package into its scratch
// directory and returns the compile command to run instead, or nil if the
// package has no function to instrument. Its stages: the profiles of a PPP
// or interprocedural build, the runtime, the package type-checked, the
// package instrumented, and the files written.
func (x *Exec) instrumentCompile(tool string, t *toolArgs, importPath string) ([]string, string, error) {
	cfgFile, ok := t.flag("importcfg")
	if !ok {
		return nil, "", fmt.Errorf("compile has no -importcfg")
	}
	cfg, err := readImportcfg(cfgFile)
	if err != nil {
		return nil, "", err
	}
	// The profiles first: reading them is cheap, and what cannot be read
	// concerns the whole build.
	interesting, sites, err := x.profiles(t)
	if err != nil {
		return nil, "", err
	}
	rtb, err := x.runtime(tool, configOf(t, userTrimpath(t), x.stdGcflags(t, cfg)))
	if err != nil {
		return nil, "", err
	}
	path, _, _ := strings.Cut(importPath, " ")
	if _, dep := rtb.Deps[strings.TrimSuffix(path, "_test")]; dep {
		return nil, "", nil // rt needs it: instrumenting it would be a cycle
	}
	pkg, err := typeCheck(t, cfg)
	if err != nil {
		return nil, "", err
	}
	in, which := pkg.input(t, x.Config.Deps)
	if len(in.Files) == 0 {
		return nil, "", nil
	}
	in.FileLang = x.fileLang(tool, in.Lang)
	out, err := instrument.Package(in, x.instrumentConfig(importPath, t, interesting, sites))
	if err != nil {
		return nil, "", err
	}
	if out.Funcs == 0 {
		return nil, "", nil
	}
	newArgs, err := writeInstrumented(tool, t, out, which, cfg, rtb)
	if err != nil {
		return nil, "", err
	}
	for _, s := range out.Skipped {
		x.warnf("%s: %s left uninstrumented: %v", importPath, s.Func, s.Reason)
	}
	summary := fmt.Sprintf("%d functions instrumented", out.Funcs)
	if out.Clones > 0 {
		summary += fmt.Sprintf(", %d clones of callees (%d shared by %d sites)", out.Clones, out.SharedClones, out.SharedSites)
	}
	return newArgs, summary, nil
}

// profiles loads the profiles of -interesting and -ippp, if given, and has
// the build say once which of their files it skipped.
func (x *Exec) profiles(t *toolArgs) (interesting, sites *profile.PathsRun, err error) {
	if x.Config.PPP() {
		if interesting, err = x.Config.interesting(); err != nil {
			return nil, nil, &buildError{key: "interesting", err: err}
		}
		x.sayOnce(t, "interesting", x.Config.interestingRun.warnings("interesting")...)
	}
	if x.Config.IPPP() {
		if sites, err = x.Config.sites(); err != nil {
			return nil, nil, &buildError{key: "ippp", err: err}
		}
		x.sayOnce(t, "ippp", x.Config.sitesRun.warnings("ippp")...)
	}
	return interesting, sites, nil
}

// A checkedPackage is the package a compile builds, parsed and
// type-checked as the compiler will, for the target's sizes.
type checkedPackage struct {
	fset     *token.FileSet
	files    []*ast.File
	srcs     [][]byte
	fileArgs []int // the index of each file in the compile's arguments
	info     *types.Info
	pkg      *types.Package
	noReturn func(*types.Func) bool
}

// typeCheck parses the compile's Go files and type-checks them against the
// export data of its importcfg.
func typeCheck(t *toolArgs, cfg *importcfg) (*checkedPackage, error) {
	c := &checkedPackage{fset: token.NewFileSet(), fileArgs: t.goFiles()}
	for _, i := range c.fileArgs {
		src, err := os.ReadFile(t.args[i])
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(c.fset, t.args[i], src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		c.files = append(c.files, f)
		c.srcs = append(c.srcs, src)
	}
	if len(c.files) == 0 {
		return c, nil
	}
	c.info = &types.Info{
		Types:      make(map[ast.Expr]types.TypeAndValue),
		Defs:       make(map[*ast.Ident]types.Object),
		Uses:       make(map[*ast.Ident]types.Object),
		Instances:  make(map[*ast.Ident]types.Instance),
		Selections: make(map[*ast.SelectorExpr]*types.Selection),
		Implicits:  make(map[ast.Node]types.Object), // type switch clauses' variables, for -deps
		// For the SSA form, which proves paths infeasible.
		Scopes:       make(map[ast.Node]*types.Scope),
		FileVersions: make(map[*ast.File]string),
	}
	lang, _ := t.flag("lang")
	conf := types.Config{
		GoVersion: lang,
		Importer: importer.ForCompiler(c.fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := cfg.archive(path)
			if !ok {
				return nil, fmt.Errorf("no archive for %s in the importcfg", path)
			}
			return os.Open(file)
		}),
		Sizes: types.SizesFor("gc", goarch()),
	}
	pkgPath, _ := t.flag("p")
	pkg, err := conf.Check(pkgPath, c.fset, c.files, c.info)
	if err != nil {
		return nil, fmt.Errorf("type-checking: %v", err)
	}
	c.pkg = pkg
	if c.noReturn, err = funcgraph.NoReturnInPackage(c.fset, c.files, pkg, c.info, conf.Sizes); err != nil {
		return nil, err
	}
	return c, nil
}

// input is what instrument gets of the package: the user's files, those
// whose positions are in a source file of the package, not a file the go
// command generated in the scratch directory (cgo and cover rewrite
// sources there, with line directives back to the originals, which count
// as the originals), and not tests (which go test -cover leaves alone too),
// but in a -deps build, where a failing test's assertion is what a user
// slices from. which gives each file's index in c.files.
func (c *checkedPackage) input(t *toolArgs, tests bool) (in *instrument.Input, which []int) {
	objdir := t.objdir()
	lang, _ := t.flag("lang")
	in = &instrument.Input{Fset: c.fset, Info: c.info, Package: c.pkg, AllFiles: c.files, NoReturn: c.noReturn, Lang: lang}
	for i, f := range c.files {
		name := c.fset.Position(f.Pos()).Filename
		base := filepath.Base(name)
		if !filepath.IsAbs(name) || strings.HasPrefix(name, objdir+string(filepath.Separator)) ||
			strings.HasPrefix(base, "_cgo_") || base == "_testmain.go" || (strings.HasSuffix(base, "_test.go") && !tests) {
			continue
		}
		in.Files = append(in.Files, f)
		in.Names = append(in.Names, name)
		in.Src = append(in.Src, c.srcs[i])
		in.Sums = append(in.Sums, sourceSum(name, t.args[c.fileArgs[i]], c.srcs[i]))
		which = append(which, i)
	}
	return in, which
}

// instrumentConfig is how to instrument package importPath in this compile:
// the options of pppexec's flags, atomic under -race, and the profiles.
func (x *Exec) instrumentConfig(importPath string, t *toolArgs, interesting, sites *profile.PathsRun) *instrument.Config {
	symbols, _ := t.flag("p")
	icfg := &instrument.Config{
		Spec:        x.Config.Spec,
		Package:     importPath,
		Symbols:     symbols,
		RuntimePath: RuntimePath,
		DefaultDir:  x.Config.Dir,
		Sites:       sites,
	}
	icfg.Atomic = icfg.Atomic || t.has("race")
	if interesting != nil {
		icfg.Interesting = func(pkg, name string, f *profile.Func) ([]uint64, bool) {
			ids, _, stale := interesting.Lookup(pkg, name, f)
			return ids, stale
		}
	}
	return icfg
}

// writeInstrumented writes the instrumented files (which gives their
// indexes among the compile's files), the generated file and an importcfg
// with rt into the compile's scratch directory, and returns the compile
// command that builds them.
func writeInstrumented(tool string, t *toolArgs, out *instrument.Output, which []int, cfg *importcfg, rtb *runtimeBuild) ([]string, error) {
	dir := filepath.Join(t.objdir(), "pathcover")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	fileArgs := t.goFiles()
	newArgs := append([]string{tool}, t.args...)
	for k, i := range which {
		if out.Files[k] == nil {
			continue
		}
		name := filepath.Join(dir, fmt.Sprintf("%d_%s", k, filepath.Base(t.args[fileArgs[i]])))
		if err := os.WriteFile(name, out.Files[k], 0o666); err != nil {
			return nil, err
		}
		newArgs[1+fileArgs[i]] = name
	}
	gen := filepath.Join(dir, "pathcover_counters.go")
	if err := os.WriteFile(gen, out.Generated, 0o666); err != nil {
		return nil, err
	}
	newArgs = append(newArgs, gen)
	newCfg := filepath.Join(dir, "importcfg")
	if err := cfg.write(newCfg, map[string]string{RuntimePath: rtb.Archive}); err != nil {
		return nil, err
	}
	nt := &toolArgs{args: newArgs[1:]}
	nt.setFlag("importcfg", newCfg)
	return newArgs, nil
}

func goarch() string {
	if a := os.Getenv("GOARCH"); a != "" {
		return a
	}
	return runtime.GOARCH
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return "\t" + strings.Join(lines, "\n\t")
}

// stdGcflags returns the gcflags that the build's standard packages are
// compiled with: rt must be compiled against packages built the same way,
// or the program will not link. The go command that runs pppexec says, if
// its command line can be read. Otherwise, when this compile has gcflags of
// its own, they were given to all packages if the standard packages it
// imports have the fingerprints they would have with them; and with no
// standard import to compare, they are assumed to be (-gcflags=all=-N -l,
// as debuggers build, being the common case).
func (x *Exec) stdGcflags(t *toolArgs, cfg *importcfg) []string {
	if flags, known := gcflagsForStd(); known {
		return flags
	}
	gcflags := userGcflags(t)
	if len(gcflags) == 0 {
		return nil
	}
	var std []string
	for path := range cfg.packagefile {
		if !strings.Contains(strings.Split(path, "/")[0], ".") && path != "unsafe" {
			std = append(std, path)
		}
	}
	if len(std) == 0 {
		return gcflags
	}
	slices.Sort(std)
	with, err := x.listExports(configOf(t, userTrimpath(t), gcflags), std...)
	if err != nil {
		return nil
	}
	for _, p := range std {
		have, want := cfg.packagefile[p], with[p]
		fh, err1 := fingerprint(have)
		fw, err2 := fingerprint(want)
		if err1 != nil || err2 != nil || fh != fw {
			return nil
		}
	}
	return gcflags
}

// sourceSum is the hash of the content of the file that positions name
// (profile.Meta.Sums), which reports compare with the file they show: the
// file compiled, src at path, or, for a rewrite that cgo or cover made in
// the scratch directory, the original it points back to, if it can be read;
// "" if not.
func sourceSum(name, path string, src []byte) string {
	if name == path {
		return profile.Hash(src)
	}
	if info, err := os.Stat(name); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	orig, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	return profile.Hash(orig)
}

// fileLang returns the language version the files pppexec writes for a
// package of language version lang are compiled at (instrument.Input's
// FileLang): go1.21 when lang is older and the compiler reads a file's
// version from its //go:build line (Go 1.21 and later), so that a module
// with an old go line gets what the generic helpers record; "" otherwise.
func (x *Exec) fileLang(tool, lang string) string {
	const helpers = "go1.21"
	if lang == "" || version.Compare(lang, helpers) >= 0 {
		return ""
	}
	line, err := x.toolVersion(tool)
	if err != nil {
		return ""
	}
	// "compile version go1.26.8", or "compile version devel go1.27-abcdef
	// ...", perhaps followed by experiments.
	for _, f := range strings.Fields(line) {
		v, _, _ := strings.Cut(f, "-")
		if version.IsValid(v) {
			if version.Compare(v, helpers) < 0 {
				return ""
			}
			return helpers
		}
	}
	return ""
}

// apiPath is the import path of rt as programs import it, for its API
// (rt.WriteFlight). That copy is compiled by the go command, apart from
// the one pppexec links into instrumented code (RuntimePath).
const apiPath = "github.com/pathcover/pathcover/rt"

// flightAPI is the file that compileFlightAPI adds to the program's own
// rt: it hands WriteFlight to the rt that records the rings.
const flightAPI = `// Code generated by pppexec -flight. DO NOT EDIT.

package rt

import _pathcoverRT "` + RuntimePath + `"

func init() { flightWriteHook = _pathcoverRT.WriteFlight }
`

// compileFlightAPI compiles the program's own rt in a -flight build with
// flightAPI added, so that a server's call of rt.WriteFlight writes the
// rings that pppexec's rt records. If that does not compile (an rt of
// another version), it compiles it unchanged, saying that WriteFlight
// will report that nothing is recorded.
func (x *Exec) compileFlightAPI(args []string, t *toolArgs) int {
	fail := func(err error) int {
		x.sayOnce(t, "flight-api", fmt.Sprintf("rt.WriteFlight will find no flight to write: %v", err))
		return run(args, x.Stderr)
	}
	cfgFile, ok := t.flag("importcfg")
	if !ok {
		return fail(errors.New("its compile has no -importcfg"))
	}
	cfg, err := readImportcfg(cfgFile)
	if err != nil {
		return fail(err)
	}
	rtb, err := x.runtime(args[0], configOf(t, userTrimpath(t), x.stdGcflags(t, cfg)))
	if err != nil {
		return fail(err)
	}
	dir := filepath.Join(t.objdir(), "pathcover")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fail(err)
	}
	name := filepath.Join(dir, "pathcover_flight_api.go")
	newCfg := filepath.Join(dir, "importcfg")
	if err := os.WriteFile(name, []byte(flightAPI), 0o666); err != nil {
		return fail(err)
	}
	if err := cfg.write(newCfg, map[string]string{RuntimePath: rtb.Archive}); err != nil {
		return fail(err)
	}
	newArgs := append(slices.Clone(args), name)
	nt := &toolArgs{args: newArgs[1:]}
	nt.setFlag("importcfg", newCfg)
	var stderr bytes.Buffer
	if code := run(newArgs, &stderr); code == 0 {
		return 0
	}
	return fail(errors.New(firstLines(stderr.String(), 3)))
}
