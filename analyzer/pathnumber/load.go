package pathnumber

import (
	"fmt"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// A Package is the analyzer's result for one package loaded by Load.
type Package struct {
	Path   string
	Fset   *token.FileSet
	Result *Result
	// Syntax is the package as loaded, for tools that look further.
	Syntax *packages.Package
}

// Load runs the analyzer, outside vet, over the packages that match
// patterns in directory dir (the current one if empty), with their tests if
// tests is set. Dependencies are loaded with syntax too, because the
// ctrlflow facts that tell which calls never return come from them.
func Load(dir string, tests bool, patterns ...string) ([]*Package, error) {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir, Tests: tests}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		if len(errs) > 5 {
			errs = append(errs[:5], fmt.Sprintf("and %d more", len(errs)-5))
		}
		return nil, fmt.Errorf("loading %s:\n\t%s", strings.Join(patterns, " "), strings.Join(errs, "\n\t"))
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(patterns, " "))
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{Analyzer}, pkgs, nil)
	if err != nil {
		return nil, err
	}
	var out []*Package
	for _, act := range graph.Roots {
		if act.Err != nil {
			return nil, fmt.Errorf("%s: %v", act.Package.PkgPath, act.Err)
		}
		out = append(out, &Package{Path: act.Package.PkgPath, Fset: act.Package.Fset, Result: act.Result.(*Result), Syntax: act.Package})
	}
	return out, nil
}
