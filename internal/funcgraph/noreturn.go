package funcgraph

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// NoReturnInPackage runs the ctrlflow analyzer on one package outside the
// analysis driver, with no facts from other packages, and returns its
// verdict on which functions never return, for Config.NoReturn. It is what
// pppexec has when it compiles a package: the calls into the package's own
// functions that never return, and the intrinsic ones; the analyzers also
// have other packages' facts. sizes are the target's, as the package was
// type-checked with.
func NoReturnInPackage(fset *token.FileSet, files []*ast.File, pkg *types.Package, info *types.Info, sizes types.Sizes) (func(*types.Func) bool, error) {
	pass := &analysis.Pass{
		Analyzer:          ctrlflow.Analyzer,
		Fset:              fset,
		Files:             files,
		Pkg:               pkg,
		TypesInfo:         info,
		TypesSizes:        sizes,
		ResultOf:          map[*analysis.Analyzer]any{inspect.Analyzer: inspector.New(files)},
		Report:            func(analysis.Diagnostic) {},
		ImportObjectFact:  func(types.Object, analysis.Fact) bool { return false },
		ExportObjectFact:  func(types.Object, analysis.Fact) {},
		ImportPackageFact: func(*types.Package, analysis.Fact) bool { return false },
		ExportPackageFact: func(analysis.Fact) {},
		AllObjectFacts:    func() []analysis.ObjectFact { return nil },
		AllPackageFacts:   func() []analysis.PackageFact { return nil },
	}
	res, err := ctrlflow.Analyzer.Run(pass)
	if err != nil {
		return nil, err
	}
	return res.(*ctrlflow.CFGs).NoReturn, nil
}
