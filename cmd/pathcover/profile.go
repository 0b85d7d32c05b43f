package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pathcover/pathcover/profile"
	"github.com/pathcover/pathcover/report"
)

// profileFlag is the -dir flag of the commands that read profiles: one or
// more profile directories or text profiles, comma-separated; by default
// $PATHCOVERDIR.
func profileFlag(fs *flag.FlagSet) *string {
	return fs.String("dir", os.Getenv("PATHCOVERDIR"), "comma-separated profile `dirs` or text profiles (default $PATHCOVERDIR)")
}

// loadProfile reads the profiles, printing a line for each file it could
// not read.
func loadProfile(cmd, dirs string) (*profile.Profile, bool) {
	if dirs == "" {
		fmt.Fprintf(os.Stderr, "%s: no profile: give -dir, or set PATHCOVERDIR\n", cmd)
		return nil, false
	}
	p, problems, err := profile.Load(strings.Split(dirs, ",")...)
	for _, pr := range problems {
		fmt.Fprintf(os.Stderr, "%s: skipping %v\n", cmd, pr)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
		return nil, false
	}
	return p, true
}

func buildReport(cmd string, p *profile.Profile, patterns []string) *report.Report {
	r, errs := report.Build(p, patterns)
	for _, err := range errs {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
	}
	return r
}

func reportMain(args []string) int {
	fs := flag.NewFlagSet("pathcover report", flag.ContinueOnError)
	dir := profileFlag(fs)
	asJSON := fs.Bool("json", false, "write JSON")
	inter := fs.Bool("interprocedural", false, "report the supergraphs of an interprocedural build (pppexec -ippp) instead: per caller, the interprocedural path segments that ran; 'pathcover paths CALLER@ippp' lists them")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pathcover report [-dir D] [-json] [-interprocedural] [packages]\n\n"+
			"Prints, per function, the acyclic paths that ran out of all its paths, worst\n"+
			"covered first, with totals per package and overall, and the statement\n"+
			"coverage that the same counts give (as go test -cover counts statements).\n\n"+
			"With -interprocedural it prints, for a profile of an interprocedural build,\n"+
			"each caller's supergraph: its callees inlined at the call sites on paths that\n"+
			"ran, and the segments (caller path, callee path, rest of the caller path)\n"+
			"that ran out of all.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	p, ok := loadProfile("pathcover report", *dir)
	if !ok {
		return 1
	}
	r := buildReport("pathcover report", p, fs.Args())
	if *inter && !*asJSON {
		if r.Segments.Total == 0 {
			fmt.Fprintf(os.Stderr, "pathcover report: the profile has no supergraphs: build with pppexec -ippp=PROFILE\n")
			return 1
		}
		if err := r.WriteSegments(os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "pathcover: %v\n", err)
			return 1
		}
		return 0
	}
	return writeReport(os.Stdout, r, *asJSON)
}

func writeReport(w io.Writer, r *report.Report, asJSON bool) int {
	var err error
	if asJSON {
		err = r.WriteJSON(w)
	} else {
		err = r.WriteText(w)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pathcover: %v\n", err)
		return 1
	}
	return 0
}

func pathsMain(args []string) int {
	fs := flag.NewFlagSet("pathcover paths", flag.ContinueOnError)
	dir := profileFlag(fs)
	untested := fs.Bool("untested", false, "list the paths that never ran")
	limit := fs.Uint64("limit", 1000, "list at most `n` paths (with -untested, refuse functions with more)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pathcover paths [-dir D] [-untested] [-limit n] [PKG.]FUNC\n\n"+
			"Lists every path of a function that ran, hottest first, with its count and\n"+
			"its branches in the source; or, with -untested, the paths that never ran.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	p, ok := loadProfile("pathcover paths", *dir)
	if !ok {
		return 1
	}
	r := buildReport("pathcover paths", p, nil)
	funcs := r.Lookup(fs.Arg(0))
	if len(funcs) == 0 {
		fmt.Fprintf(os.Stderr, "pathcover paths: no function %s in the profile\n", fs.Arg(0))
		return 1
	}
	for i, f := range funcs {
		paths, err := f.Decoded(*untested, *limit)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pathcover paths: %v\n", err)
			return 1
		}
		if i > 0 {
			fmt.Println()
		}
		report.WritePaths(os.Stdout, f, paths)
	}
	return 0
}

func mergeMain(args []string) int {
	fs := flag.NewFlagSet("pathcover merge", flag.ContinueOnError)
	out := fs.String("o", "", "write the merged profile to `file` (default standard output)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pathcover merge [-o file] profiles...\n\n"+
			"Merges profile directories and text profiles into one text profile, the\n"+
			"format documented in package profile (like go test's -coverprofile).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	p, ok := loadProfile("pathcover merge", strings.Join(fs.Args(), ","))
	if !ok {
		return 1
	}
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pathcover merge: %v\n", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	if err := p.WriteText(w); err != nil {
		fmt.Fprintf(os.Stderr, "pathcover merge: %v\n", err)
		return 1
	}
	return 0
}
