package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/toolexec"
)

func pppexecMain(args []string) int { return toolexec.Main("pathcover pppexec", args) }

// testMain runs go test with path profiling and prints the report.
func testMain(args []string) int {
	fs := flag.NewFlagSet("pathcover test", flag.ContinueOnError)
	dir := fs.String("dir", "", "keep the profile in `dir` (default a new temporary directory)")
	asJSON := fs.Bool("json", false, "write the report as JSON")
	pkgs := fs.String("pkgs", "", "comma-separated `patterns` of the packages to instrument (default: the main module's)")
	sites := fs.String("ippp", "", "also count interprocedural path segments at the call sites on paths that the profile in `dir` ran (pppexec -ippp), and print them after the report")
	depth := fs.Int("ipppdepth", 1, "with -ippp: segments go `n` calls deep")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pathcover test [-dir D] [-json] [-pkgs patterns] [-ippp D [-ipppdepth n]] [go test flags] [packages]\n\n"+
			"Runs go test with every package of the main module instrumented to count its\n"+
			"paths (pathcover acts as the -toolexec program), then prints the report. The\n"+
			"flags after pathcover's own go to go test; -count=1 is added unless given, so\n"+
			"that cached results do not skip the runs. Exits as go test does.\n\n"+
			"With -ippp D, where D holds the profile of an earlier pathcover test, each\n"+
			"caller is also profiled with the callees of its call sites on paths that ran\n"+
			"in D inlined (depth-1 interprocedural path segments); the report of the\n"+
			"segments follows the paths'.\n\n")
		fs.PrintDefaults()
	}
	// pathcover's flags come first; the rest, flags included, is go test's.
	var ours []string
	rest := args
	for len(rest) > 0 {
		name, _, _ := strings.Cut(strings.TrimLeft(rest[0], "-"), "=")
		if !strings.HasPrefix(rest[0], "-") || fs.Lookup(name) == nil {
			if name == "h" || name == "help" {
				fs.Usage()
				return 0
			}
			break
		}
		ours = append(ours, rest[0])
		rest = rest[1:]
		if !strings.Contains(ours[len(ours)-1], "=") && name != "json" && len(rest) > 0 {
			ours = append(ours, rest[0])
			rest = rest[1:]
		}
	}
	if err := fs.Parse(ours); err != nil {
		return 2
	}
	profileDir := *dir
	if profileDir == "" {
		var err error
		if profileDir, err = os.MkdirTemp("", "pathcover-profile-"); err != nil {
			fmt.Fprintf(os.Stderr, "pathcover test: %v\n", err)
			return 1
		}
	} else if err := os.MkdirAll(profileDir, 0o777); err != nil {
		fmt.Fprintf(os.Stderr, "pathcover test: %v\n", err)
		return 1
	}
	// go test runs each test in its package's directory: a relative
	// PATHCOVERDIR would put each package's counts below it.
	profileDir, err := filepath.Abs(profileDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pathcover test: %v\n", err)
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "pathcover test: %v\n", err)
		return 1
	}
	toolexecArg := strconv.Quote(self) + " pppexec"
	if *pkgs != "" {
		toolexecArg += " -pkgs=" + *pkgs
	}
	if *sites != "" {
		abs, err := filepath.Abs(*sites)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pathcover test: %v\n", err)
			return 1
		}
		toolexecArg += " " + strconv.Quote("-ippp="+abs) + " -ipppdepth=" + strconv.Itoa(*depth)
	}
	goArgs := []string{"test", "-toolexec=" + toolexecArg}
	if !hasFlag(rest, "count") {
		goArgs = append(goArgs, "-count=1")
	}
	goArgs = append(goArgs, rest...)
	cmd := exec.Command("go", goArgs...)
	cmd.Stdout, cmd.Stderr, cmd.Stdin = os.Stderr, os.Stderr, os.Stdin
	cmd.Env = append(os.Environ(), "PATHCOVERDIR="+profileDir)
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			fmt.Fprintf(os.Stderr, "pathcover test: %v\n", err)
			return 1
		}
		code = exit.ExitCode()
	}
	r, _, c := openReport("pathcover test", []string{profileDir}, nil)
	if c != 0 {
		return cmp.Or(code, c) // go test's failure first
	}
	if c := writeReport(os.Stdout, r, *asJSON); c != 0 {
		return c
	}
	if r.Segments.Total > 0 && !*asJSON {
		fmt.Println()
		if err := r.WriteSegments(os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "pathcover test: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(os.Stderr, "profile in %s (pathcover paths -dir %s FUNC lists a function's paths)\n", profileDir, profileDir)
	return code
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
