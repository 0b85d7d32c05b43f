package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/internal/gitdiff"
	"github.com/pathcover/pathcover/internal/report"
)

var cmdTests = &Command{
	UsageLine: "pathcover tests [-dir D] [-json] [PKG.]FUNC[:PATH]",
	Short:     "list the tests that ran a function's paths, or one path",
	Long: `
Lists the tests that ran a function's paths, most runs first, each with its
runs and the paths it ran; or, with :PATH (a path id, as pathcover paths
lists them), the tests that ran that path.

pathcover test records which tests ran each path (pppexec -tests): at each
test's start, pause and end, the counts made since are the tests' then
running. A test is its own unit, a subtest too; tests that ran at the same
time (parallel tests, parallel subtests of one test, shown as
Parent/{a,b}) are listed together, since their counts cannot be told apart,
and marked so. What ran outside any test (init, TestMain, goroutines a test
left running between tests) is listed as "(outside tests)".
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := profileFlag(fs)
		asJSON := jsonFlag(fs)
		return func(cmd *Command, args []string) int {
			if len(args) != 1 {
				fs.Usage()
				return exitUsage
			}
			name, id, hasPath := splitPath(args[0])
			r, _, code := openReport(cmd.LongName(), dir.dirs, nil)
			if code != 0 {
				return code
			}
			funcs := r.Lookup(name)
			if len(funcs) == 0 {
				fmt.Fprintf(os.Stderr, "%s: no function %s in the profile\n", cmd.LongName(), printable(name))
				return exitNoData
			}
			var list report.TestsList
			for _, f := range funcs {
				ft, err := f.TestsOf(id, hasPath)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v (pathcover test records it unless -tests=false)\n", cmd.LongName(), err)
					return exitNoData
				}
				list = append(list, ft)
			}
			return write(cmd, list, *asJSON)
		}
	},
}

// splitPath splits FUNC:PATH; a name with no path id after its last colon
// is all name.
func splitPath(arg string) (name string, id uint64, ok bool) {
	i := strings.LastIndexByte(arg, ':')
	if i < 0 {
		return arg, 0, false
	}
	id, err := strconv.ParseUint(arg[i+1:], 10, 64)
	if err != nil {
		return arg, 0, false
	}
	return arg[:i], id, true
}

var cmdAffected = &Command{
	UsageLine: "pathcover affected -since revision [-dir D] [-json] [packages]",
	Short:     "list the tests whose paths run through lines changed since a revision",
	Long: `
Lists the tests whose paths, in a profile that pathcover test made at the
revision, run through lines changed since it (committed, uncommitted or
untracked, as git diff sees them): the tests a change can affect, and go
test commands that run only them. A test counts when a path it ran goes
through a changed line (a branch, or a block's statements), not merely
through the function.

The profile's lines are the revision's: make the profile at the revision
(as a CI job on the main branch does), then ask from the changed tree.
Changed functions that the profile holds but no test ran through a changed
line are named; code the profile does not hold (new functions, packages not
instrumented) is not, since no test of the profile ran it. Tests that ran
at the same time count together (see pathcover tests).
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := profileFlag(fs)
		since := fs.String("since", "", "git `revision` the profile was made at")
		asJSON := jsonFlag(fs)
		return func(cmd *Command, args []string) int {
			name := cmd.LongName()
			if *since == "" {
				fmt.Fprintf(os.Stderr, "%s: -since is required\n", name)
				fs.Usage()
				return exitUsage
			}
			wd, _ := os.Getwd()
			changes, err := gitdiff.Since(wd, *since)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: -since: %v\n", name, err)
				return exitFail
			}
			r, _, code := openReport(name, dir.dirs, args)
			if code != 0 {
				return code
			}
			resolved := make(map[string]string)
			a, err := r.Affected(*since, func(file string, first, last int) bool {
				real, ok := resolved[file]
				if !ok {
					real = file
					if s, err := filepath.EvalSymlinks(file); err == nil {
						real = s
					}
					resolved[file] = real
				}
				return changes.OverlapsOld(real, first, last)
			})
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
				return exitNoData
			}
			return write(cmd, a, *asJSON)
		}
	},
}
