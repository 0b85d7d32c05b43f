package instrument

// The first stage: number the package's functions and describe each in the
// metadata, with its counters laid out.

import (
	"github.com/pathcover/pathcover/internal/static/defuse"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A function is a function of the package being instrumented, numbered.
type function struct {
	*funcgraph.Numbered
	file int         // index in Input.Files
	meta int         // index in the metadata's Funcs
	obj  *types.Func // nil for a function literal
	ct   *counting
	// super is the function's supergraph, as a caller, in an
	// interprocedural build; nil if it has none.
	super *super
	// accesses are, in a -deps build, the memory accesses to record
	// (memory.go).
	accesses []defuse.Access
	// returns are, in a -wpp build, the edges into the exit where a path's
	// record records the return too (pathreturn.go).
	returns map[numbering.EdgeID]bool
}

// number numbers the functions of graphs, describes them in the metadata and
// lays out their counters. A function that cannot be numbered is skipped.
func (b *builder) number(graphs []*funcgraph.Func) {
	in := b.in
	fileIndex := make(map[*token.File]int)
	coverFiles := make([]bool, len(in.Files))
	for i, f := range in.Files {
		fileIndex[in.Fset.File(f.Pos())] = i
		coverFiles[i] = coverOutput(f)
	}
	positions := newPositioner(in.Fset, in.Files, in.Src, coverFiles)
	b.positions = positions
	decls := make(map[types.Object]*ast.FuncDecl)
	for _, f := range in.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				decls[in.Info.Defs[fd.Name]] = fd
			}
		}
	}
	literals := make(map[*ast.FuncLit]string)
	for _, g := range graphs {
		if lit, ok := g.Node.(*ast.FuncLit); ok {
			literals[lit] = g.Name
		}
	}
	for _, g := range graphs {
		n := funcgraph.Number(g)
		if n.Err != nil {
			b.out.Skipped = append(b.out.Skipped, Skip{g.Name, n.Err})
			continue
		}
		u := &function{Numbered: n, file: fileIndex[in.Fset.File(g.Node.Pos())], meta: len(b.meta.Funcs)}
		if decl, ok := g.Node.(*ast.FuncDecl); ok {
			u.obj, _ = in.Info.Defs[decl.Name].(*types.Func)
			if u.obj != nil {
				b.byObj[u.obj] = u
				b.byName[funcgraph.ObjectName(u.obj)] = u
			}
		}
		mf := describe(positions, in.Info, decls, n, b.lineFile(u.file, g.Node.Pos()), coverFiles[u.file])
		if b.cfg.Deps {
			mf.Deps, u.accesses = defuse.Analyze(g, &defuse.Config{
				Info: in.Info, Position: positions.Position,
				Package: profile.PackagePath(b.cfg.Package), Literals: literals,
				Record: memoryAllowed(in.lang()),
			})
		}
		u.ct = b.layout(&mf, n.Placement, "", "")
		b.funcs = append(b.funcs, u)
		b.out.Funcs++
	}
}

// lineFile returns the index in the metadata's files of the file that a
// function at pos is in, as go test names it: the file that a //line
// directive before it names (go/token's adjusted position, of which
// cmd/cover takes the function's file), where its lines are, else
// in.Names[file]. A file that only directives name is added to the
// metadata's files, with no sum (pppexec compiled no such file). A
// directive that names no file (//line :7, where the compiler says ??)
// leaves the file as it was: go test names it "." in the package.
func (b *builder) lineFile(file int, pos token.Pos) int {
	name := b.in.Fset.Position(pos).Filename
	if name == "" || name == b.in.Names[file] {
		return file
	}
	m := b.meta
	if i := slices.Index(m.Files, name); i >= 0 {
		return i
	}
	m.Files = append(slices.Clip(m.Files), name)
	if m.Sums != nil {
		m.Sums = append(slices.Clip(m.Sums), "")
	}
	return len(m.Files) - 1
}

// describe makes a function's metadata, without its counters.
func describe(positions *positioner, info *types.Info, decls map[types.Object]*ast.FuncDecl, fn *funcgraph.Numbered, file int, coverBuild bool) profile.Func {
	pos := positions.Position
	mf := profile.GraphFunc(&fn.Graph, fn.Preferred)
	mf.Name, mf.File = fn.Name, file
	mf.Line, mf.EndLine = pos(fn.Node.Pos()).Line, pos(fn.Node.End()).Line
	mf.Paths, mf.Total = fn.Numbering.NumPaths(), fn.Numbering.Total().String()
	mf.Units = coverUnits(positions, fn.Func, coverBuild)
	mf.Recovers = recovers(fn.Body, info, decls)
	calls := fn.StaticCalls(info)
	for i, b := range fn.Blocks {
		mb := &mf.Blocks[i]
		mb.Kind = b.Kind.String()
		if len(b.Nodes) > 0 {
			start, end := pos(b.Nodes[0].Pos()), pos(b.Nodes[len(b.Nodes)-1].End())
			mb.Line, mb.Col, mb.EndLine, mb.EndCol = start.Line, start.Column, end.Line, end.Column
		}
		for _, c := range calls[i] {
			p := pos(c.Call.Pos())
			mb.Calls = append(mb.Calls, profile.StaticCall{
				Line: p.Line, Col: p.Column,
				Package: profile.PackagePath(c.Callee.Pkg().Path()), Func: funcgraph.ObjectName(c.Callee),
				Site: c.Site,
			})
		}
	}
	for i, e := range fn.Edges {
		p := pos(e.Node.Pos())
		me := &mf.Edges[i]
		me.Kind, me.Line, me.Col = profile.EdgeKind(e.Kind.String()), p.Line, p.Column
	}
	return mf
}

// recovers reports whether a function with body can stop a panic and
// return normally: a deferred function literal in it calls recover, or it
// defers a call of a function of the package (decls) that does. A deferred
// call through an interface or a function value, or of another package's
// function, is not looked into. An interprocedural build does not clone such
// a function: the clone could return to its caller in the middle of a path.
func recovers(body *ast.BlockStmt, info *types.Info, decls map[types.Object]*ast.FuncDecl) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if _, lit := n.(*ast.FuncLit); lit || found {
			return false // a literal's defers are its own
		}
		d, ok := n.(*ast.DeferStmt)
		if !ok {
			return true
		}
		switch fun := ast.Unparen(d.Call.Fun).(type) {
		case *ast.FuncLit:
			found = callsRecover(fun.Body, info)
		default:
			if fn := typeutil.StaticCallee(info, d.Call); fn != nil {
				if fd := decls[fn.Origin()]; fd != nil {
					found = callsRecover(fd.Body, info)
				}
			}
		}
		return false
	})
	return found
}

// callsRecover reports whether body calls the built-in recover itself (not
// in a function literal, where it would not stop a panic).
func callsRecover(body *ast.BlockStmt, info *types.Info) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "recover" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
