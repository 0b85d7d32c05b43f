package instrument

// The first stage's second half: prove paths infeasible, for the reports.

import (
	"fmt"
	"go/ast"
	"os"

	"golang.org/x/tools/go/ssa"

	"github.com/pathcover/pathcover/internal/static/infeasible"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// analyzeFeasibility records in each function's metadata the source of its
// branches' conditions and the sets of its edges that no run takes
// together (package internal/static/infeasible), from the package's SSA form. It
// cannot fail the build: if building the SSA form or analysing a function
// panics, the functions concerned are left unanalysed (Infeasible nil),
// which the reports say, and $PATHCOVERDEBUG makes it print why.
func (b *builder) analyzeFeasibility() {
	for _, u := range b.funcs {
		mf := &b.meta.Funcs[u.meta]
		for i, c := range infeasible.Conditions(u.Func) {
			mf.Edges[i].Cond = c
		}
	}
	in := b.in
	if in.Package == nil || len(in.AllFiles) == 0 {
		return
	}
	fns, err := buildSSA(in)
	if err != nil {
		debugf("pathcover: %s: no SSA form, paths not analysed: %v", b.cfg.Package, err)
		return
	}
	for _, u := range b.funcs {
		contra, err := analyzeFunc(u, fns[u.Node], in)
		if err != nil {
			debugf("pathcover: %s.%s: paths not analysed: %v", b.cfg.Package, u.Name, err)
			continue
		}
		inf := &profile.Infeasible{Contradictions: []profile.Contradiction{}}
		n := u.Numbering
		for _, c := range contra {
			pc := profile.Contradiction{Why: c.Why}
			for _, e := range c.Edges {
				if n.Edge(e).Kind == numbering.StartEdge {
					pc.Again = append(pc.Again, int32(n.Edge(e).Dst))
					continue
				}
				pc.Edges = append(pc.Edges, int32(e))
			}
			inf.Contradictions = append(inf.Contradictions, pc)
		}
		b.meta.Funcs[u.meta].Infeasible = inf
	}
}

func buildSSA(in *Input) (fns map[ast.Node]*ssa.Function, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return infeasible.BuildPackage(in.Fset, in.Package, in.AllFiles, in.Info, in.NoReturn), nil
}

func analyzeFunc(u *function, fn *ssa.Function, in *Input) (contra []infeasible.Contradiction, err error) {
	if fn == nil {
		return nil, fmt.Errorf("no SSA function")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return infeasible.Analyze(u.Numbered, fn, in.Info), nil
}

func debugf(format string, args ...any) {
	if os.Getenv("PATHCOVERDEBUG") != "" {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}
