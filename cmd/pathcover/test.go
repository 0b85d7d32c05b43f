package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/internal/driver"
	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/profile"
)

var cmdTest = &Command{
	UsageLine: "pathcover test [-dir D] [-json] [build flags] [go test flags] [packages]",
	Short:     "run go test with path profiling, then report path coverage",
	Long: `
Runs go test with every package of the main module instrumented to count its
paths (pathcover acts as the -toolexec program), then prints the report. The
build flags are pppexec's, spelled and meant as pppexec's (pathcover help
pppexec), but for -dir, -v and -trace: -pkgs, -wpp, -deps, -wet, -tests,
-shard=p, -atomic, -ippp and the rest. The flags after pathcover's own go to
go test (pathcover's come first: one of them among go test's flags or
packages is an error, which gives the command in order); -count=1 is
added unless given, so that cached results do not skip the runs. Exits as go test does. On a
terminal, a status line says how many test binaries are built and packages
tested, of how many have tests (not with -json, nor when the standard error
is a file or a pipe).

With -ippp D, where D holds the profile of an earlier pathcover test, each
caller is also profiled with the callees of its call sites on paths that ran
in D inlined (depth-1 interprocedural path segments); the report of the
segments follows the paths'. D is keyed in the instrumented packages'
-gcflags (pppexec -profilekey=gcflags), so that a new D compiles only them
again, unless the go test flags or GOFLAGS give a -gcflags of their own.

Each path is also attributed to the tests that ran it (pathcover tests
FUNC lists them; pathcover affected -since REV lists the tests that run
changed lines); -tests=false leaves that out.

With -wpp, the tests also record their whole program paths (pppexec -wpp),
which are compacted into D/profile.twpp for pathcover wpp: each test
process's once it has ended, while the other packages' tests run, and the
rest at the end.

With -deps, the build also describes each function's statements for
slicing, and the tests record their whole program paths: pathcover slice
then says which statements made a value (pppexec -deps).

With -wet, the tests also record the values their functions give their
variables (pppexec -wet), and the whole execution trace is built at the end
into D/profile.wet for pathcover wet.
`,
	Flags:       func(fs *flag.FlagSet) Run { return newTestFlags(fs).run },
	CustomFlags: true,
}

type testFlags struct {
	fs     *flag.FlagSet
	dir    *string
	asJSON *bool
	// spec is the build, from the flags it shares with pppexec
	// (buildspec.AddFlags); pathcover test attributes paths to tests
	// unless -tests=false.
	spec buildspec.Spec
}

// newTestFlags defines pathcover test's own flags on fs, and the build's.
func newTestFlags(fs *flag.FlagSet) *testFlags {
	t := &testFlags{fs: fs, spec: buildspec.Default()}
	t.spec.Tests = true
	t.dir = dirFlag(fs, "a new temporary directory")
	t.asJSON = jsonFlag(fs)
	t.spec.AddFlags(fs)
	return t
}

// parse parses pathcover test's flags, which come first, and returns the
// rest, flags included, which are go test's; help if -h or -help comes
// first among them. The build they make is checked (buildspec.Check).
func (t *testFlags) parse(name string, args []string) (rest []string, help bool, err error) {
	fs := t.fs
	var ours []string
	rest = args
	for len(rest) > 0 {
		arg := rest[0]
		flagName, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") || fs.Lookup(flagName) == nil {
			if flagName == "h" || flagName == "help" {
				return rest, true, nil
			}
			break
		}
		rest = rest[1:]
		if flagName == "shard" && (!hasValue && (len(rest) == 0 || rest[0] != string(buildspec.ShardPerP) && rest[0] != string(buildspec.ShardNone)) || value == "true" || value == "false") {
			// -shard was a boolean flag of pathcover test's alone.
			arg = "-shard=" + string(buildspec.ShardPerP)
			if value == "false" {
				arg = "-shard=" + string(buildspec.ShardNone)
			}
			fmt.Fprintf(os.Stderr, "%s: -shard as a boolean is deprecated and will be removed: use %s, as pppexec spells it\n", name, arg)
			hasValue = true
		}
		ours = append(ours, arg)
		if !hasValue && !isBoolFlag(fs.Lookup(flagName)) && len(rest) > 0 {
			ours = append(ours, rest[0])
			rest = rest[1:]
		}
	}
	if err := fs.Parse(ours); err != nil {
		return nil, false, err
	}
	if late, moved, others := lateFlags(fs, rest); len(late) > 0 {
		verb := "comes"
		if len(late) > 1 {
			verb = "come"
		}
		return nil, false, fmt.Errorf("%s %s after go test's flags or packages (%s), where go test would be handed them: %s's own flags come first: %s",
			strings.Join(late, " and "), verb, rest[0], name, strings.Join(append(append(append([]string{name}, ours...), moved...), others...), " "))
	}
	testsSet := false
	fs.Visit(func(f *flag.Flag) { testsSet = testsSet || f.Name == "tests" })
	if t.spec.Flight > 0 && !testsSet {
		t.spec.Tests = false // on by default, but a flight build counts nothing to attribute
	}
	t.spec.Imply()
	return rest, false, t.spec.Check()
}

// lateFlags returns pathcover test's own flags among go test's
// arguments, up to -args (go test would refuse them, or hand them to a
// test binary and fail every test); and the arguments split into those
// flags with their values (moved) and the others. -json is go test's
// too, so among go test's arguments it is go test's.
func lateFlags(fs *flag.FlagSet, goArgs []string) (late, moved, others []string) {
	for i := 0; i < len(goArgs); i++ {
		arg := goArgs[i]
		if arg == "-args" || arg == "--args" {
			others = append(others, goArgs[i:]...)
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		f := fs.Lookup(name)
		if !strings.HasPrefix(arg, "-") || name == "json" || f == nil {
			others = append(others, arg)
			continue
		}
		late = append(late, "-"+name)
		moved = append(moved, arg)
		if !hasValue && !isBoolFlag(f) && i+1 < len(goArgs) {
			i++
			moved = append(moved, goArgs[i])
		}
	}
	return late, moved, others
}

// run runs go test with path profiling and prints the report.
func (t *testFlags) run(cmd *Command, args []string) int {
	name := cmd.LongName()
	fs := t.fs
	rest, help, err := t.parse(name, args)
	switch {
	case help:
		fs.Usage()
		return 0
	case err != nil:
		fmt.Fprintf(os.Stderr, "%s: %s\n", name, strings.ReplaceAll(err.Error(), "\n", "\n"+name+": "))
		return exitUsage
	}
	profileDir := *t.dir
	if profileDir == "" {
		var err error
		if profileDir, err = os.MkdirTemp("", "pathcover-profile-"); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return exitFail
		}
	} else if err := os.MkdirAll(profileDir, 0o777); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return exitFail
	}
	// go test runs each test in its package's directory: a relative
	// PATHCOVERDIR would put each package's counts below it.
	profileDir, err = filepath.Abs(profileDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return exitFail
	}
	toolexecArg, keyFlags, err := t.toolexec(rest)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return exitFail
	}
	goArgs := append([]string{"test", "-toolexec=" + toolexecArg}, keyFlags...)
	if !hasFlag(rest, "count") {
		goArgs = append(goArgs, "-count=1")
	}
	goArgs = append(goArgs, rest...)
	goTest := exec.Command("go", goArgs...)
	goTest.Stdout, goTest.Stderr, goTest.Stdin = os.Stderr, os.Stderr, os.Stdin
	goTest.Env = append(os.Environ(), "PATHCOVERDIR="+profileDir)
	var wppParts *wpp.Incremental
	if t.spec.WPP {
		// Each package's recording is compacted once its tests are
		// done, while the other packages' run.
		wppParts = wpp.NewIncremental(profileDir)
		wppParts.Start(200 * time.Millisecond)
		defer wppParts.Stop()
	}
	code := 0
	if err := runGoTest(goTest, rest, *t.asJSON); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return exitFail
		}
		code = exit.ExitCode()
	}
	if t.spec.Flight > 0 {
		// A flight build counts nothing: what it leaves is the rings of
		// the processes that failed.
		fmt.Fprintf(os.Stderr, "flight recordings of failed runs, if any, in %s (pathcover flight -dir %s shows them)\n", profileDir, profileDir)
		return code
	}
	r, _, c := openReport(name, []string{profileDir}, nil)
	if c != 0 {
		return cmp.Or(code, c) // go test's failure first
	}
	if c := write(cmd, r, *t.asJSON); c != 0 {
		return c
	}
	if r.Segments.Total > 0 && !*t.asJSON {
		fmt.Println()
		if c := write(cmd, report.SegmentReport{Report: r}, false); c != 0 {
			return c
		}
	}
	fmt.Fprintf(os.Stderr, "profile in %s (pathcover paths -dir %s FUNC lists a function's paths)\n", profileDir, profileDir)
	switch {
	case t.spec.Values:
		fmt.Fprintf(os.Stderr, "dependences and values recorded (pathcover slice -dir %s -why FILE:LINE [VAR] slices a value, with its steps' values)\n", profileDir)
	case t.spec.Deps:
		fmt.Fprintf(os.Stderr, "dependences recorded (pathcover slice -dir %s FILE:LINE [VAR] slices a value)\n", profileDir)
	}
	if t.spec.WPP {
		writeCutTests(profileDir)
		code = cmp.Or(code, compactTests(name, profileDir, wppParts))
	}
	if t.spec.Values {
		code = cmp.Or(code, buildWET(name, profileDir))
	}
	return code
}

// runGoTest runs go test, showing its progress on a terminal unless the
// report is to be JSON (see progress).
func runGoTest(goTest *exec.Cmd, args []string, asJSON bool) error {
	var p *progress
	if !asJSON {
		p = newProgress(os.Stderr, args)
	}
	if p == nil {
		return goTest.Run()
	}
	wait, err := p.start(goTest)
	if err != nil {
		return err
	}
	err = goTest.Wait()
	wait()
	return err
}

// isBoolFlag reports whether f takes no value.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// buildWET builds the whole execution trace of what the tests recorded in
// dir, and says where it is; it returns the exit status.
func buildWET(name, dir string) int {
	w, err := wet.BuildDir(dir, nil)
	var missing *profile.MissingMetaError
	if err != nil && !errors.As(err, &missing) {
		fmt.Fprintf(os.Stderr, "%s: %s\n", name, printable(err.Error()))
		return exitNoData
	}
	out := profile.DerivedPath(dir, profile.KindWET)
	if err := w.WriteFile(out); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return exitFail
	}
	fmt.Fprintf(os.Stderr, "whole execution trace in %s: %d path executions, %d values (pathcover wet values -dir %s FUNC VAR lists a variable's)\n", out, w.Stats.Paths, w.Stats.ValueRecords, dir)
	if missing != nil {
		fmt.Fprintf(os.Stderr, "%s: %s: the WET lacks their functions' names and statements\n", name, printable(missing.Error()))
		return exitNoData
	}
	return 0
}

// hasFlag reports whether go test args set flag name.
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		f := strings.TrimLeft(a, "-")
		if strings.HasPrefix(a, "-") && (f == name || strings.HasPrefix(f, name+"=")) {
			return true
		}
	}
	return false
}

// toolexec returns the -toolexec argument of go test: pathcover itself as
// pppexec, with the flags that pass on; and, for an interprocedural build,
// the -gcflags flags that key its profile in the packages it instruments
// (pppexec -profilekey=gcflags), so that a new profile compiles only those
// again. A go test command line with -gcflags of its own (goArgs, or
// GOFLAGS) keeps the profile in pppexec's build ID instead: the last
// -gcflags that matches a package is the only one it gets.
func (t *testFlags) toolexec(goArgs []string) (string, []string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	spec := t.spec
	for _, p := range []*string{&spec.PPPProfile, &spec.IPPPProfile} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return "", nil, err
			}
		}
	}
	var keyFlags []string
	if (spec.PPP() || spec.IPPP()) && spec.ProfileKey != buildspec.KeyInBuildID && !hasFlag(goArgs, "gcflags") && !hasFlag(strings.Fields(os.Getenv("GOFLAGS")), "gcflags") {
		spec.ProfileKey = buildspec.KeyInGcflags
		keyFlags = (&driver.Config{Spec: spec}).GcflagsKey()
	}
	return strings.TrimPrefix(spec.Toolexec(self, "pppexec"), "-toolexec="), keyFlags, nil
}

// writeCutTests says, for each recording of dir that covers only part of
// its process's run (one that reached its size limit), which tests it
// holds whole, which cut, and which it misses.
func writeCutTests(dir string) {
	held, err := wpp.CutTests(dir)
	if err != nil {
		return // compactTests, which reads the same files next, says what is wrong
	}
	for _, h := range held {
		fmt.Fprintf(os.Stderr, "recording cut: %s\n", printable(h.String()))
	}
}

// compactTests compacts the whole program paths the tests recorded into
// dir (parts has compacted those whose processes were done), and says
// where they are; it returns the exit status.
func compactTests(name, dir string, parts *wpp.Incremental) int {
	out, st, err := parts.Finish("")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return exitNoData
	}
	writeCut(os.Stderr, st.Cut)
	fmt.Fprintf(os.Stderr, "whole program paths in %s: %d calls, %d distinct traces (pathcover wpp traces -dir %s FUNC lists a function's)\n", out, st.Calls, st.Traces, dir)
	return 0
}
