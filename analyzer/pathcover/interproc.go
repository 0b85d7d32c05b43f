package pathcover

import (
	"fmt"
	"math/big"

	"golang.org/x/tools/go/analysis"

	"github.com/pathcover/pathcover/analyzer/pathnumber"
	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
)

// interprocedural reports each function whose depth-1 supergraph, the
// function with the callees of all its call sites inlined, has more paths
// than the limit: the interprocedural path segments that pppexec -ippp would
// count if every site ran (PPP thesis 3.4). The sites and their callees'
// graphs, from this package or from other packages' facts, are pathnumber's
// (pathnumber.Func.Sites).
func interprocedural(pass *analysis.Pass, funcs []*pathnumber.Func, skip func(*pathnumber.Func) bool, limit *big.Int) {
	for _, f := range funcs {
		if skip(f) || f.Err != nil || len(f.Sites) == 0 {
			continue
		}
		sites := make([]numbering.CallSite, len(f.Sites))
		for i, s := range f.Sites {
			sites[i] = numbering.CallSite{Block: s.Block, Callee: s.Graph, Preferred: s.Preferred}
		}
		total, err := segments(f, sites)
		if err != nil || total.Cmp(limit) <= 0 {
			continue
		}
		own := f.Numbering.Total()
		msg := fmt.Sprintf("%s has %s interprocedural path segments of depth 1 (its %s acyclic paths with the callees of its %d call sites inlined), more than -pathcover.maxpaths=%d",
			f.Name, countString(total), countString(own), len(sites), maxPaths.n)
		// The site that multiplies them most, inlined alone.
		best, bestFactor := -1, new(big.Int)
		for i := range sites {
			t, err := segments(f, sites[i:i+1])
			if err != nil {
				continue
			}
			if factor := new(big.Int).Quo(t, own); best < 0 || factor.Cmp(bestFactor) > 0 {
				best, bestFactor = i, factor
			}
		}
		if best >= 0 && bestFactor.Cmp(big.NewInt(1)) > 0 {
			c := f.Sites[best].Call
			name := funcgraph.ObjectName(c.Callee)
			if c.Callee.Pkg() != pass.Pkg {
				name = c.Callee.Pkg().Name() + "." + name
			}
			msg += fmt.Sprintf("; the call of %s at line %d multiplies them most, by %s", name, pass.Fset.Position(c.Call.Pos()).Line, countString(bestFactor))
		}
		pass.Report(analysis.Diagnostic{Pos: f.Node.Pos(), End: f.Body.Lbrace, Message: msg})
	}
}

// segments counts the acyclic paths of f's supergraph with sites inlined.
func segments(f *pathnumber.Func, sites []numbering.CallSite) (*big.Int, error) {
	sg, err := numbering.Inline(&f.Graph, f.Preferred, sites)
	if err != nil {
		return nil, err
	}
	n, err := numbering.Number(&sg.Graph, &numbering.Options{Preferred: sg.Preferred})
	if err != nil {
		return nil, err
	}
	return n.Total(), nil
}
