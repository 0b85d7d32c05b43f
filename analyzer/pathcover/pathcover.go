package pathcover

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"math/big"
	"strconv"

	"golang.org/x/tools/go/analysis"

	"github.com/pathcover/pathcover/analyzer/pathnumber"
	"github.com/pathcover/pathcover/internal/analysisdoc"
	"github.com/pathcover/pathcover/numbering"
)

//go:embed doc.go
var doc string

// Analyzer is the pathcover analyzer; its Doc is doc.go's "Analyzer
// pathcover" section.
var Analyzer = &analysis.Analyzer{
	Name:     "pathcover",
	Doc:      analysisdoc.MustExtract(doc, "pathcover"),
	URL:      "https://pkg.go.dev/github.com/pathcover/pathcover/analyzer/pathcover",
	Requires: []*analysis.Analyzer{pathnumber.Analyzer},
	Run:      run,
}

// DefaultMaxPaths is the default of -pathcover.maxpaths.
const DefaultMaxPaths = 1000

var (
	maxPaths = maxPathsFlag{n: DefaultMaxPaths}
	verbose  bool
	interp   bool
)

func init() {
	Analyzer.Flags.Var(&maxPaths, "maxpaths", "report functions with more acyclic paths than this (default 1000; with -pathcover.profile, only if given)")
	Analyzer.Flags.BoolVar(&verbose, "verbose", false, "also report functions that cannot be numbered")
	Analyzer.Flags.Var(interpFlag{}, "interprocedural", "also report functions whose interprocedural path segments of depth 1 (callees of their call sites inlined) are more than -pathcover.maxpaths (sets -pathnumber.graphs)")
}

func run(pass *analysis.Pass) (any, error) {
	res := pass.ResultOf[pathnumber.Analyzer].(*pathnumber.Result)
	generated := make(map[*token.File]bool)
	for _, file := range pass.Files {
		if ast.IsGenerated(file) {
			generated[pass.Fset.File(file.Pos())] = true
		}
	}
	skip := func(f *pathnumber.Func) bool { return generated[pass.Fset.File(f.Node.Pos())] }
	if gateProfile != "" {
		if err := gate(pass, res.Funcs, skip); err != nil {
			return nil, err
		}
		if !maxPaths.set {
			return nil, nil
		}
	}
	limit := new(big.Int).SetUint64(maxPaths.n)
	proofs := &packageProofs{pass: pass}
	for _, f := range res.Funcs {
		if skip(f) {
			continue
		}
		if f.Err != nil {
			if verbose {
				pass.Reportf(f.Node.Pos(), "%s cannot be numbered, so a pathcover build leaves it uninstrumented: %v", f.Name, f.Err)
			}
			continue
		}
		total := f.Numbering.Total()
		if total.Cmp(limit) <= 0 {
			continue
		}
		infeasible, exact := proofs.infeasible(f)
		if feasible := new(big.Int).Sub(total, new(big.Int).SetUint64(infeasible)); exact && feasible.Cmp(limit) <= 0 {
			continue
		}
		pass.Report(analysis.Diagnostic{
			Pos:     f.Node.Pos(),
			End:     f.Body.Lbrace,
			Message: message(pass.Fset, f, total, infeasible, exact),
		})
	}
	if interp {
		interprocedural(pass, res.Funcs, skip, limit)
	}
	return nil, nil
}

// message explains a function's path count: the count, and the statement
// with the most paths through it.
func message(fset *token.FileSet, f *pathnumber.Func, total *big.Int, infeasible uint64, exact bool) string {
	msg := fmt.Sprintf("%s has %s acyclic paths", f.Name, countString(total))
	switch {
	case infeasible > 0 && exact:
		msg += fmt.Sprintf(" (%d proved infeasible)", infeasible)
	case infeasible > 0:
		msg += fmt.Sprintf(" (at least %d proved infeasible)", infeasible)
	}
	msg += fmt.Sprintf(", more than -pathcover.maxpaths=%d", maxPaths.n)
	factors := regionFactors(f)
	best := -1
	for i, factor := range factors {
		if factor.Cmp(big.NewInt(1)) > 0 && (best < 0 || factor.Cmp(factors[best]) > 0) {
			best = i
		}
	}
	if best < 0 {
		return msg
	}
	r := &f.Regions[best]
	msg += fmt.Sprintf("; the %s at line %d multiplies them most, by %s", stmtKind(r.Stmt), fset.Position(r.Stmt.Pos()).Line, countString(factors[best]))
	// Outermost branching statements: when there are many and the best is
	// one of them, the count comes from their sequence.
	outer := 0
	bestOuter := true
	for i := range f.Regions {
		if factors[i].Cmp(big.NewInt(1)) <= 0 {
			continue
		}
		nested := false
		for j := range f.Regions {
			if j != i && f.Regions[j].Contains(f.Regions[i].Start) && f.Regions[j].Start != f.Regions[i].Start {
				nested = true
				break
			}
		}
		if !nested {
			outer++
		} else if i == best {
			bestOuter = false
		}
	}
	if bestOuter && outer > 1 && factors[best].Cmp(total) < 0 {
		msg += fmt.Sprintf(", one of %d branching statements in sequence", outer)
	}
	return msg
}

// regionFactors counts the paths through each compound statement: from its
// first decision to wherever control leaves it (its continuation, a return,
// a jump out, or the end of a loop round), as numbered in the DAG.
func regionFactors(f *pathnumber.Func) []*big.Int {
	n := f.Numbering
	factors := make([]*big.Int, len(f.Regions))
	paths := make(map[numbering.BlockID]*big.Int)
	topo := n.Topo()
	for i := range f.Regions {
		r := &f.Regions[i]
		clear(paths)
		for k := len(topo) - 1; k >= 0; k-- {
			v := topo[k]
			if v == n.Root() || !r.Contains(v) || !n.Reachable(v) {
				continue
			}
			c := new(big.Int)
			for _, e := range n.Out(v) {
				if next, ok := paths[n.Edge(e).Dst]; ok && n.Edge(e).Kind != numbering.EndEdge {
					c.Add(c, next)
				} else {
					c.Add(c, big.NewInt(1)) // leaves the statement
				}
			}
			paths[v] = c
		}
		if c, ok := paths[r.Start]; ok {
			factors[i] = c
		} else {
			factors[i] = big.NewInt(0) // unreachable
		}
	}
	return factors
}

// interpFlag is -pathcover.interprocedural, which needs the callees'
// graphs in pathnumber's facts: setting it sets -pathnumber.graphs.
type interpFlag struct{}

func (interpFlag) IsBoolFlag() bool { return true }
func (interpFlag) String() string   { return strconv.FormatBool(interp) }
func (interpFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	interp = v
	pathnumber.ExportGraphs = pathnumber.ExportGraphs || v
	return nil
}

// countString writes a count exactly, with its size as a power of two when
// it is too long to read.
func countString(c *big.Int) string {
	s := c.String()
	if len(s) > 9 {
		s += fmt.Sprintf(" (about 2^%d)", c.BitLen()-1)
	}
	return s
}

func stmtKind(s ast.Stmt) string {
	switch s.(type) {
	case *ast.IfStmt:
		return "if statement"
	case *ast.SwitchStmt:
		return "switch statement"
	case *ast.TypeSwitchStmt:
		return "type switch"
	case *ast.SelectStmt:
		return "select statement"
	case *ast.ForStmt:
		return "for loop"
	case *ast.RangeStmt:
		return "range loop"
	}
	return fmt.Sprintf("%T", s)
}
