package pathnumber

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/types"
	"reflect"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"

	"github.com/pathcover/pathcover/internal/analysisdoc"
	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

//go:embed doc.go
var doc string

// Analyzer is the pathnumber analyzer; its Doc is doc.go's "Analyzer
// pathnumber" section.
var Analyzer = &analysis.Analyzer{
	Name:       "pathnumber",
	Doc:        analysisdoc.MustExtract(doc, "pathnumber"),
	URL:        "https://pkg.go.dev/github.com/pathcover/pathcover/analyzer/pathnumber",
	Requires:   []*analysis.Analyzer{ctrlflow.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	FactTypes:  []analysis.Fact{new(FuncFact), new(PackageFact)},
	Run:        run,
}

// A Result holds the functions of a package in source order.
type Result struct {
	Funcs []*Func
}

// Lookup returns the function with the given name, or nil.
func (r *Result) Lookup(name string) *Func {
	for _, f := range r.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// A Func is a function's graph with its numbering and placement, and its
// interprocedural sites.
type Func struct {
	*funcgraph.Numbered
	// Sites are the function's calls that interprocedural profiling can
	// follow (funcgraph.StaticCall.Site) into a callee whose graph is
	// known, from this package or from another's facts, in the order the
	// blocks make them: the sites of its depth-1 supergraph.
	Sites []Site
}

// A Site is a call site with its callee's graph.
type Site struct {
	Block     numbering.BlockID
	Call      funcgraph.StaticCall
	Graph     *numbering.Graph
	Preferred []numbering.EdgeID
}

// FuncFact summarises the paths of a declared function.
type FuncFact struct {
	Paths     string // the exact number of acyclic paths, in decimal
	Numbered  uint64 // the paths numbered after cuts at the path limit
	Blocks    int
	Edges     int
	Chords    int
	LimitCuts int    // cuts made to fit the ids in 63 bits
	Err       string // why the function cannot be numbered, if it cannot
	// Graph is, with -pathnumber.graphs (ExportGraphs), the function's
	// graph, so that another package can inline it into its callers'
	// supergraphs (interprocedural path counts), as the metadata of a
	// profile describes it (profile.GraphFunc); nil for a function that
	// cannot be numbered, and without the flag.
	Graph *profile.Func `json:",omitempty"`
}

// ExportFacts is -pathnumber.facts: export a FuncFact for each declared
// function and a PackageFact for the package. ExportGraphs is
// -pathnumber.graphs: the facts hold each function's graph, and the result
// each function's call sites; it exports the facts.
var ExportFacts, ExportGraphs bool

func init() {
	Analyzer.Flags.BoolVar(&ExportFacts, "facts", false, "export each declared function's path count (and the package's list of them) as facts, for other analyzers and tools")
	Analyzer.Flags.BoolVar(&ExportGraphs, "graphs", false, "export each function's graph in its fact, and find call sites into other packages' functions (for interprocedural counts; sets -pathnumber.facts)")
}

// exportFacts reports whether the analyzer exports facts.
func exportFacts() bool { return ExportFacts || ExportGraphs }

func (*FuncFact) AFact() {}

func (f *FuncFact) String() string {
	if f.Err != "" {
		return "error: " + f.Err
	}
	return "paths " + f.Paths
}

// PackageFact lists the path summaries of all functions of a package, by
// name, literals included.
type PackageFact struct {
	Funcs []NamedFuncFact
}

// A NamedFuncFact is a FuncFact with its function's name.
type NamedFuncFact struct {
	Name string
	FuncFact
}

func (*PackageFact) AFact() {}

func (f *PackageFact) String() string {
	if len(f.Funcs) == 1 {
		return "1 function"
	}
	return fmt.Sprintf("%d functions", len(f.Funcs))
}

func run(pass *analysis.Pass) (any, error) {
	cfgs := pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs)
	graphs, err := funcgraph.BuildFiles(pass.Files, &funcgraph.Config{
		Info:     pass.TypesInfo,
		NoReturn: cfgs.NoReturn,
	})
	if err != nil {
		return nil, err
	}
	res := &Result{Funcs: make([]*Func, len(graphs))}
	for i, g := range graphs {
		res.Funcs[i] = Number(g)
	}
	if exportFacts() {
		exportAll(pass, res.Funcs)
	}
	if ExportGraphs {
		findSites(pass, res.Funcs)
	}
	return res, nil
}

// exportAll exports the facts of funcs: each declared function's and the
// package's. They are off by default (-pathnumber.facts) because encoding
// them into every package's facts, and decoding its imports', took vet a
// fifth of its time on the standard library, for facts that nothing of
// pathcover's reads but interprocedural sites (-pathnumber.graphs).
func exportAll(pass *analysis.Pass, funcs []*Func) {
	pkgFact := &PackageFact{Funcs: make([]NamedFuncFact, len(funcs))}
	for i, f := range funcs {
		summary := f.Fact()
		summary.Graph = nil // in the object's fact only
		pkgFact.Funcs[i] = NamedFuncFact{f.Name, summary}
		if decl, ok := f.Node.(*ast.FuncDecl); ok {
			if obj := pass.TypesInfo.Defs[decl.Name]; obj != nil {
				fact := f.Fact()
				pass.ExportObjectFact(obj, &fact)
			}
		}
	}
	pass.ExportPackageFact(pkgFact)
}

// findSites fills in the Sites of funcs.
func findSites(pass *analysis.Pass, funcs []*Func) {
	local := make(map[types.Object]*Func)
	for _, f := range funcs {
		if decl, ok := f.Node.(*ast.FuncDecl); ok && f.Err == nil {
			if obj := pass.TypesInfo.Defs[decl.Name]; obj != nil {
				local[obj] = f
			}
		}
	}
	for _, f := range funcs {
		if f.Err != nil {
			continue
		}
		for b, calls := range f.StaticCalls(pass.TypesInfo) {
			for _, c := range calls {
				if !c.Site {
					continue
				}
				site := Site{Block: numbering.BlockID(b), Call: c}
				if g := local[c.Callee]; g != nil {
					site.Graph, site.Preferred = &g.Graph, g.Preferred
				} else {
					var fact FuncFact
					if !pass.ImportObjectFact(c.Callee, &fact) || fact.Graph == nil {
						continue
					}
					site.Graph, site.Preferred = fact.Graph.Graph(), fact.Graph.PreferredCuts()
				}
				f.Sites = append(f.Sites, site)
			}
		}
	}
}

// Number numbers a function's graph and places its counters, as pppexec
// does (funcgraph.Number).
func Number(g *funcgraph.Func) *Func { return &Func{Numbered: funcgraph.Number(g)} }

// Fact summarises f.
func (f *Func) Fact() FuncFact {
	fact := FuncFact{Blocks: f.Graph.NumBlocks, Edges: len(f.Graph.Edges)}
	if f.Err != nil {
		fact.Err = f.Err.Error()
		return fact
	}
	fact.Paths = f.Numbering.Total().String()
	fact.Numbered = f.Numbering.NumPaths()
	if ExportGraphs {
		g := profile.GraphFunc(&f.Graph, f.Preferred)
		fact.Graph = &g
	}
	fact.Chords = len(f.Placement.Chords())
	for _, c := range f.Numbering.Cuts() {
		if c.Kind == numbering.CutLimit {
			fact.LimitCuts++
		}
	}
	return fact
}
