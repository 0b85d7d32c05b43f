package pathcover

import (
	"go/ast"
	"math/big"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/pathcover/pathcover/analyzer/pathnumber"
	"github.com/pathcover/pathcover/internal/static/infeasible"
	"github.com/pathcover/pathcover/numbering"
)

// maxAvoidStates bounds the work of counting a function's paths that avoid
// every contradiction exactly, as the reports do.
const maxAvoidStates = 1 << 12

// packageProofs proves paths of a package's functions infeasible, as
// pppexec does for its builds, building the package's SSA form the first
// time a function asks: most packages have no function to report, and
// building it for each would slow vet down.
type packageProofs struct {
	pass  *analysis.Pass
	funcs map[ast.Node]*ssa.Function
	built bool
}

// infeasible returns how many of f's numbered paths are proved infeasible,
// and whether that is exact (false: at least that many). A function cut to
// be numbered (more than 2^63 paths) is not analysed: what it proves of
// the numbered paths says nothing of the rest.
func (p *packageProofs) infeasible(f *pathnumber.Func) (count uint64, exact bool) {
	n := f.Numbering
	if n == nil || n.Total().Cmp(new(big.Int).SetUint64(n.NumPaths())) != 0 {
		return 0, false
	}
	if !p.built {
		p.built = true
		func() {
			defer func() { recover() }() // no SSA form: nothing proved
			p.funcs = infeasible.BuildPackage(p.pass.Fset, p.pass.Pkg, p.pass.Files, p.pass.TypesInfo, nil)
		}()
	}
	fn := p.funcs[f.Node]
	if fn == nil {
		return 0, false
	}
	var sets [][]numbering.EdgeID
	func() {
		defer func() { recover() }()
		for _, c := range infeasible.Analyze(f.Numbered, fn, p.pass.TypesInfo) {
			sets = append(sets, c.Edges)
		}
	}()
	return n.PathsTakingAny(sets, maxAvoidStates)
}
