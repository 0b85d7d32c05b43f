package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/pathcover/pathcover/internal/atomicfile"
	"github.com/pathcover/pathcover/internal/export"
	"github.com/pathcover/pathcover/internal/gitdiff"
	"github.com/pathcover/pathcover/internal/report"
)

var cmdExport = &Command{
	UsageLine: "pathcover export -format F [-o FILE] [-mode M] [-root D] [-min percent [-since revision] [-n n] [-all]] [-dir D] [packages]",
	Short:     "write the profile for other tools: coverprofile, LCOV, Cobertura, SARIF, pprof, PGO",
	Long: `
Writes what the profile says in a format that other coverage tools read,
to standard output or -o FILE:

	coverprofile  go test -coverprofile's text: the same statement blocks,
	              with the counts go test would have written (-mode), for
	              go tool cover, golang.org/x/tools/cover and coverage services
	lcov          an LCOV tracefile: functions and their calls, lines, and
	              every branch outcome with how often it was taken, for
	              genhtml, editors and coverage services
	cobertura     Cobertura XML: lines, and branch lines with the outcomes
	              taken, for CI systems that show Cobertura reports
	sarif         SARIF 2.1.0: the gate's findings, each function with less
	              than -min percent of its paths run, its untested paths as
	              code flows, for code scanning (-min, -since and -n are
	              gate's)
	pprof         a pprof profile (gzipped protocol buffer) of exact counts,
	              for go tool pprof and continuous profilers: executions
	              of each function (the default sample type), paths run
	              and lines run, each path's samples labelled path=ID and,
	              where recorded, test=NAME
	pgo           a profile for go build -pgo (save it as default.pgo in
	              the main package): every static call that ran, weighted
	              by its exact count

	go tool pprof -top profile.pprof            functions by executions
	go tool pprof -sample_index=lines -list F profile.pprof
	                                            F's lines, with their runs
	go tool pprof -tagfocus=path=3 -sample_index=lines -list F profile.pprof
	                                            the lines of F's path 3

The counts are exact: each path that ran counts once for every block and
edge on it. Packages that no profiled program ran are not in the profile,
and so not in an export, where go test -cover lists them with no counts.
File names in cobertura and sarif are relative to -root. pprof and pgo
are binary: give -o, or redirect standard output to a file.
`,
	Flags: func(fs *flag.FlagSet) Run {
		e := &exportCommand{fs: fs, dir: profileFlag(fs), mode: export.ModeCount}
		fs.Var(&e.format, "format", "the `format` to write: "+export.FormatNames()+" (required)")
		fs.StringVar(&e.out, "o", "", "write to `file` (default standard output)")
		fs.Var(&e.mode, "mode", "for coverprofile, the `mode` its counts are in: set, count or atomic")
		fs.StringVar(&e.root, "root", "", "for cobertura and sarif, the `dir` that file names are relative to (default the root of the git work tree, or else the current directory)")
		e.gate = gateFlag(fs, "for sarif, ")
		return e.run
	},
}

type exportCommand struct {
	fs     *flag.FlagSet // parsed before run, to tell which flags were given
	dir    *profileDirs
	format export.Format
	out    string
	mode   export.CoverMode
	root   string
	gate   *gateFlags
}

func (e *exportCommand) run(cmd *Command, patterns []string) int {
	name := cmd.LongName()
	if code := e.checkFlags(name); code != 0 {
		return code
	}
	r, problems, code := openReport(name, e.dir.dirs, patterns)
	if code != 0 {
		return code
	}
	opt := &export.Options{Mode: e.mode, Root: e.rootDir(), Now: time.Now()}
	var buf bytes.Buffer
	var err error
	switch e.format {
	case export.CoverProfile:
		err = export.WriteCoverProfile(&buf, r, opt)
	case export.LCOV:
		err = export.WriteLCOV(&buf, r, opt)
	case export.Cobertura:
		err = export.WriteCobertura(&buf, r, opt)
	case export.Pprof:
		err = export.WritePprof(&buf, r, opt)
	case export.PGO:
		err = export.WritePGO(&buf, r, opt)
	case export.SARIF:
		var short []report.Shortfall
		short, _, code = e.gate.judge(name, r, problems)
		if code != 0 {
			return code
		}
		err = export.WriteSARIF(&buf, short, opt.Root, version())
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", name, printable(err.Error()))
		return exitFail
	}
	if e.out == "" || e.out == "-" {
		if e.format.Binary() && isTerminal(os.Stdout) {
			fmt.Fprintf(os.Stderr, "%s: -format %s is binary: give -o FILE, or redirect standard output\n", name, e.format)
			return exitUsage
		}
		if _, err := os.Stdout.Write(buf.Bytes()); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return exitFail
		}
		return 0
	}
	if err := atomicfile.WriteFile(e.out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return exitFail
	}
	return 0
}

// formatFlags are the flags that one format alone takes.
var formatFlags = map[string]export.Format{
	"mode":  export.CoverProfile,
	"min":   export.SARIF,
	"since": export.SARIF,
	"show":  export.SARIF,
}

// checkFlags requires -format, and refuses flags that it does not take, so
// that none is silently ignored.
func (e *exportCommand) checkFlags(name string) int {
	if e.format == 0 {
		fmt.Fprintf(os.Stderr, "%s: give -format: %s\n", name, export.FormatNames())
		return exitUsage
	}
	code := 0
	e.fs.Visit(func(f *flag.Flag) {
		if want, ok := formatFlags[f.Name]; ok && want != e.format && code == 0 {
			fmt.Fprintf(os.Stderr, "%s: -%s is for -format %s\n", name, f.Name, want)
			code = exitUsage
		}
	})
	if code == 0 && e.format == export.SARIF {
		code = e.gate.checkMin(name)
	}
	return code
}

// rootDir is -root, or the root of the git work tree, or the current
// directory.
func (e *exportCommand) rootDir() string {
	if e.root != "" {
		return e.root
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if root, err := gitdiff.Root(wd); err == nil {
		return root
	}
	return wd
}

// version is pathcover's module version, as the go command stamped it.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
