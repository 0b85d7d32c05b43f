package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/pathcover/pathcover/internal/pkgpattern"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/internal/source"
	"github.com/pathcover/pathcover/profile"
)

// The exit statuses of the commands that read profiles.
const (
	exitFail   = 1 // the command failed; for gate, functions fall short
	exitUsage  = 2 // bad flags or arguments
	exitNoData = 3 // nothing to report on: no profile, an empty or unreadable one, or packages it does not hold
)

// profileDirs is the -dir flag of the commands that read profiles: profile
// directories or text profiles, by default $PATHCOVERDIR. The flag may be
// given more than once; a value that names no file is split at commas, as
// older command lines wrote several, while a directory whose name holds a
// comma is taken whole (and $PATHCOVERDIR always is).
type profileDirs struct {
	dirs []string
	set  bool
}

func profileFlag(fs *flag.FlagSet) *profileDirs {
	d := &profileDirs{}
	if env := os.Getenv("PATHCOVERDIR"); env != "" {
		d.dirs = []string{env}
	}
	fs.Var(d, "dir", "a profile `dir` or text profile (default $PATHCOVERDIR); repeat it, or separate with commas, for several")
	return d
}

func (d *profileDirs) String() string {
	if d == nil {
		return ""
	}
	return strings.Join(d.dirs, ",")
}

func (d *profileDirs) Set(v string) error {
	if !d.set {
		d.dirs, d.set = nil, true // the flag replaces the default
	}
	if _, err := os.Stat(v); err != nil && strings.Contains(v, ",") {
		for _, part := range strings.Split(v, ",") {
			if part != "" {
				d.dirs = append(d.dirs, part)
			}
		}
		return nil
	}
	d.dirs = append(d.dirs, v)
	return nil
}

// loadProfile reads the profiles, printing a line for each file it could
// not read. A profile that holds nothing to report on is an error, with
// status exitNoData: no source given, one that cannot be read, none with
// metadata, or none with counts. problems are the files skipped.
func loadProfile(cmd string, sources []string) (p *profile.Profile, problems []error, code int) {
	return loadProfileCounts(cmd, sources, true)
}

// loadProfileCounts is loadProfile, which, unless counts, accepts a
// profile without counts: the metadata of a flight recorder's programs.
func loadProfileCounts(cmd string, sources []string, counts bool) (p *profile.Profile, problems []error, code int) {
	if len(sources) == 0 {
		fmt.Fprintf(os.Stderr, "%s: no profile: give -dir, or set PATHCOVERDIR\n", cmd)
		return nil, nil, exitNoData
	}
	p, problems, err := profile.Load(sources...)
	for _, pr := range problems {
		fmt.Fprintf(os.Stderr, "%s: skipping %s\n", cmd, printable(pr.Error()))
	}
	where := strings.Join(sources, ", ")
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "%s: %s\n", cmd, printable(err.Error()))
		return nil, problems, exitNoData
	case len(p.Metas) == 0:
		fmt.Fprintf(os.Stderr, "%s: %s holds no profile: no metadata file could be read (did the profiled programs run, with PATHCOVERDIR set?)\n", cmd, where)
		return nil, problems, exitNoData
	case p.Processes == 0 && counts:
		fmt.Fprintf(os.Stderr, "%s: %s holds no counts: no counter file could be read\n", cmd, where)
		return nil, problems, exitNoData
	}
	return p, problems, 0
}

// selectPackages resolves package patterns as the go command does, from
// the current directory, and checks that each matches one of the packages
// that a profile holds.
func selectPackages(cmd string, have []string, patterns []string) (*pkgpattern.Set, int) {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
		return nil, exitFail
	}
	set, err := pkgpattern.Resolve(wd, patterns)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
		return nil, exitUsage
	}
	if none := set.Unmatched(have); len(none) > 0 {
		fmt.Fprintf(os.Stderr, "%s: %s match no package of the profile, which holds %s\n", cmd, strings.Join(none, ", "), profilePackages(have))
		return nil, exitNoData
	}
	return set, 0
}

// metaPackages returns the packages of a profile, as their metadata name
// them.
func metaPackages(p *profile.Profile) []string {
	var paths []string
	for _, m := range p.Metas {
		paths = append(paths, m.Package)
	}
	return paths
}

// profilePackages names a profile's packages, or the first few of them.
func profilePackages(paths []string) string {
	seen := map[string]bool{}
	var pkgs []string
	for _, path := range paths {
		if path = profile.PackagePath(path); !seen[path] {
			seen[path] = true
			pkgs = append(pkgs, path)
		}
	}
	slices.Sort(pkgs)
	if len(pkgs) > 5 {
		return strings.Join(pkgs[:5], ", ") + fmt.Sprintf(" and %d more", len(pkgs)-5)
	}
	return strings.Join(pkgs, ", ")
}

// openReport loads the profile and builds the report of the packages that
// patterns select, for the commands that report on a profile.
func openReport(cmd string, sources, patterns []string) (*report.Report, []error, int) {
	return openReportCounts(cmd, sources, patterns, true)
}

// openReportCounts is openReport, which, unless counts, accepts a profile
// without counts (loadProfileCounts).
func openReportCounts(cmd string, sources, patterns []string, counts bool) (*report.Report, []error, int) {
	p, problems, code := loadProfileCounts(cmd, sources, counts)
	if code != 0 {
		return nil, problems, code
	}
	set, code := selectPackages(cmd, metaPackages(p), patterns)
	if code != 0 {
		return nil, problems, code
	}
	wd, _ := os.Getwd()
	r := buildReport(cmd, p, &report.Options{Packages: set, Sources: source.New(wd)})
	return r, problems, 0
}

func buildReport(cmd string, p *profile.Profile, opt *report.Options) *report.Report {
	r, errs := report.Build(p, opt)
	for _, err := range errs {
		fmt.Fprintf(os.Stderr, "%s: %s\n", cmd, printable(err.Error()))
	}
	return r
}

// printable escapes what a terminal would act on in text that files gave:
// control characters (and so escape sequences and new lines) as in Go
// source.
func printable(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
