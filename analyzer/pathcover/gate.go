package pathcover

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/pathcover/pathcover/analyzer/pathnumber"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/profile"
)

// The gate: with -pathcover.profile, each function of a profiled package
// whose tests ran less than -pathcover.min percent of its paths is reported
// with its first untested paths, as pathcover gate does.
var (
	gateProfile string
	gateMin     = 100.0
	gateShow    = 3
	gateAll     bool
)

func init() {
	Analyzer.Flags.StringVar(&gateProfile, "profile", "", "report functions whose tests ran too few paths, by the profile in these comma-separated `dirs or files`")
	Analyzer.Flags.Float64Var(&gateMin, "min", 100, "with -pathcover.profile, report functions with less than this `percent` of their paths run")
	Analyzer.Flags.IntVar(&gateShow, "show", 3, "with -pathcover.profile, decode the first `n` untested paths")
	Analyzer.Flags.BoolVar(&gateAll, "allpaths", false, "with -pathcover.profile, judge every acyclic path, not only those not proved infeasible")
}

// gateReports caches the report of each profile: vet runs one process per
// package, but the standalone checker analyzes many packages in one.
var (
	gateMu      sync.Mutex
	gateReports = map[string]*gateReport{}
)

type gateReport struct {
	once   sync.Once
	report *report.Report
	err    error
}

func loadGateReport(sources string) (*report.Report, error) {
	gateMu.Lock()
	g := gateReports[sources]
	if g == nil {
		g = &gateReport{}
		gateReports[sources] = g
	}
	gateMu.Unlock()
	g.once.Do(func() {
		p, problems, err := profile.Load(strings.Split(sources, ",")...)
		switch {
		case err != nil:
		case len(problems) > 0:
			err = errors.Join(problems...)
		case len(p.Metas) == 0:
			err = fmt.Errorf("%s holds no profile: no metadata file", sources)
		case p.Processes == 0:
			err = fmt.Errorf("%s holds no counts: no counter file", sources)
		}
		if err != nil {
			g.err = fmt.Errorf("-pathcover.profile: %v", err)
			return
		}
		r, errs := report.Build(p, nil)
		g.report, g.err = r, errors.Join(errs...)
	})
	return g.report, g.err
}

// gate reports the package's functions that fall short of the gate.
func gate(pass *analysis.Pass, funcs []*pathnumber.Func, skip func(*pathnumber.Func) bool) error {
	if gateMin < 0 || gateMin > 100 {
		return fmt.Errorf("-pathcover.min=%g: want a percentage from 0 to 100", gateMin)
	}
	r, err := loadGateReport(gateProfile)
	if err != nil {
		return err
	}
	var pkg *report.Package
	for _, p := range r.Packages {
		if p.Path == pass.Pkg.Path() {
			pkg = p
		}
	}
	if pkg == nil {
		return nil // not profiled: nothing to judge
	}
	for _, f := range funcs {
		pos := pass.Fset.Position(f.Node.Pos())
		if skip(f) || strings.HasSuffix(pos.Filename, "_test.go") {
			continue // test files are never instrumented
		}
		line := pos.Line
		var match *report.Func
		for _, rf := range pkg.Funcs {
			if rf.Name == f.Name && (match == nil || rf.Line == line) {
				match = rf
			}
		}
		if match == nil {
			if gateMin > 0 {
				pass.Reportf(f.Node.Pos(), "%s: not in the profile, so no path of it ran (is the profile older than the code?)", f.Name)
			}
			continue
		}
		over := report.OverFeasible
		if gateAll {
			over = report.OverAll
		}
		s, err := match.Gate(gateMin, gateShow, over)
		if err != nil {
			return err
		}
		if s != nil {
			pass.Report(analysis.Diagnostic{Pos: f.Node.Pos(), End: f.Body.Lbrace, Message: s.Message()})
		}
	}
	return nil
}

// maxPathsFlag is -pathcover.maxpaths, which remembers being set: with a
// profile, the path count report is off unless asked for.
type maxPathsFlag struct {
	n   uint64
	set bool
}

func (f *maxPathsFlag) String() string { return strconv.FormatUint(f.n, 10) }

func (f *maxPathsFlag) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return err
	}
	f.n, f.set = n, true
	return nil
}
