package instrument

// An interprocedural build (Config.SitesRun set) also counts the paths of
// supergraphs (PPP thesis 3.4): a caller's graph with the callees of its
// interesting call sites inlined, so that a path of the supergraph is an
// interprocedural path segment of depth 1: caller path, callee path, rest of
// the caller path. A call site is interesting if the profile that SitesRun
// reads ran a path through its block and its callee is a function of the
// same package that is not generic (see [siteCallee] for the rest).
//
// The supergraph is built for numbering only (numbering.Inline). The code
// is not inlined: each interesting site calls a clone of its callee (thesis
// 3.4.5) that takes the caller's supergraph registers,
//
//	func (r T) _pathcoverIPPP4_1(_pathcoverXP *[2]uint64, a, b int) int { ... }
//
// and the call f.M(a, b) becomes f._pathcoverIPPP4_1(&_pathcoverX, a, b).
// The caller's registers, _pathcoverX[0] for the Ball-Larus id and
// _pathcoverX[1] for a PPP id, are an array on its stack so that one
// pointer passes both; the clone updates them through the pointer, so they
// are current when it returns, and a path that ends inside the clone, at a
// callee's loop, is counted there. The pointer goes first so that variadic
// callees need no other change.
//
// The supergraph's counting runs beside the intraprocedural one, which is
// unchanged: a clone counts the callee's own paths as the callee does, and
// a caller its own. So an interprocedural build's function profiles are
// those of a Ball-Larus (or PPP) build, and the supergraphs come on top, as
// more functions of the metadata (profile.Func.Super). In a PPP build their
// interesting paths are those an interprocedural Ball-Larus build ran, and
// their untested segments are residual, as a function's untested paths are
// (thesis 3.5.2).
//
// A clone is one copy of the callee per site, with the weights of that
// site's copy in the supergraph. The thesis shares one clone among contexts
// with a register per context; a clone per site costs code, not time.

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/types"
	"slices"
	"strconv"

	"github.com/pathcover/pathcover/analyzer/funcgraph"
	"github.com/pathcover/pathcover/analyzer/pathnumber"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

const (
	superReg    = "_pathcoverX"  // a caller's supergraph registers, [2]uint64
	superRegPtr = "_pathcoverXP" // a clone's pointer to them
	clonePrefix = "_pathcoverIPPP"
)

// A numbered is a function of the package being instrumented.
type numbered struct {
	fn     *pathnumber.Func
	file   int
	ct     *counting
	meta   int // index in the metadata's Funcs
	obj    *types.Func
	supers []*super // at most one: the function as a caller
}

// A super is a caller's supergraph and how it counts.
type super struct {
	caller *numbered
	sg     *numbering.Supergraph
	p      *numbering.Placement
	ct     *counting
	sites  []superSite
}

type superSite struct {
	call   *ast.CallExpr
	index  int // among the block's static calls
	callee *numbered
	clone  string
}

// superSites returns the interesting sites of caller, in the order its
// blocks make the calls, with the blocks' static calls.
func superSites(caller *numbered, byObj map[*types.Func]*numbered, info *types.Info, mf *profile.Func, cfg *Config) ([]superSite, []numbering.BlockID) {
	ids, stale := cfg.SitesRun(mf.Name, mf)
	if stale || len(ids) == 0 {
		return nil, nil
	}
	fn := caller.fn
	runs := make(map[uint64]uint64, len(ids))
	for _, id := range ids {
		runs[id] = 1
	}
	c, err := fn.Numbering.CountsFromPaths(runs)
	if err != nil {
		return nil, nil
	}
	after := pathEnds(fn.Func)
	var sites []superSite
	var blocks []numbering.BlockID
	for b, calls := range fn.StaticCalls(info) {
		if c.Blocks[b] == 0 {
			continue
		}
		var inBlock []superSite
		for i, call := range calls {
			callee := byObj[call.Callee]
			if callee == nil || !siteCallee(call, callee, info) || after(call.Call) {
				continue
			}
			inBlock = append(inBlock, superSite{call: call.Call, index: i, callee: callee})
		}
		// Calls run in the order their argument lists close: f(g(x))
		// calls g first.
		slices.SortStableFunc(inBlock, func(a, b superSite) int { return cmp.Compare(a.call.Rparen, b.call.Rparen) })
		for _, s := range inBlock {
			sites = append(sites, s)
			blocks = append(blocks, numbering.BlockID(b))
		}
	}
	return sites, blocks
}

// siteCallee reports whether a call of callee can call its clone instead: a
// function or method of this package, neither generic, named in the call by
// an identifier or a selector (not a method expression), and numbered.
func siteCallee(call funcgraph.StaticCall, callee *numbered, info *types.Info) bool {
	if callee.fn.Numbering == nil {
		return false
	}
	if _, ok := callee.fn.Node.(*ast.FuncDecl); !ok {
		return false
	}
	sig := callee.obj.Signature()
	if sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0 {
		return false
	}
	switch fun := call.Call.Fun.(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		sel := info.Selections[fun]
		return sel != nil && sel.Kind() == types.MethodVal
	}
	return false
}

// pathEnds returns a test of whether a call runs after the code of an edge
// that can end the caller's path has run: a call in a return statement, or
// in a call that never returns, whose edge's code goes before the
// statement. The path its segment would continue has already been counted.
func pathEnds(fn *funcgraph.Func) func(*ast.CallExpr) bool {
	var stmts []ast.Stmt
	for _, e := range fn.Edges {
		if e.Site.Kind != funcgraph.Before {
			continue
		}
		var list []ast.Stmt
		switch l := e.Site.List.(type) {
		case *ast.BlockStmt:
			list = l.List
		case *ast.CaseClause:
			list = l.Body
		case *ast.CommClause:
			list = l.Body
		}
		if e.Site.Index < len(list) {
			stmts = append(stmts, list[e.Site.Index])
		}
	}
	return func(call *ast.CallExpr) bool {
		for _, s := range stmts {
			if s.Pos() <= call.Pos() && call.End() <= s.End() {
				return true
			}
		}
		return false
	}
}

// buildSuper numbers caller's supergraph and describes it for the metadata.
func buildSuper(caller *numbered, sites []superSite, blocks []numbering.BlockID, metas []profile.Func) (*super, profile.Func, error) {
	fn := caller.fn
	cs := make([]numbering.CallSite, len(sites))
	for i, s := range sites {
		cs[i] = numbering.CallSite{Block: blocks[i], Callee: &s.callee.fn.Graph, Preferred: s.callee.fn.Preferred}
	}
	sg, err := numbering.Inline(&fn.Graph, fn.Preferred, cs)
	if err != nil {
		return nil, profile.Func{}, err
	}
	n, err := numbering.Number(&sg.Graph, &numbering.Options{Preferred: sg.Preferred})
	if err != nil {
		return nil, profile.Func{}, err
	}
	p, err := n.Place(nil)
	if err != nil {
		return nil, profile.Func{}, err
	}
	cm := &metas[caller.meta]
	mf := profile.Func{
		Name: fn.Name + profile.SuperSuffix, File: cm.File, Line: cm.Line, EndLine: cm.EndLine,
		Entry: int32(sg.Graph.Entry), Exit: int32(sg.Graph.Exit),
		Paths: n.NumPaths(), Total: n.Total().String(),
		Super: &profile.Super{Caller: caller.meta},
	}
	for _, id := range sg.Preferred {
		mf.Preferred = append(mf.Preferred, int32(id))
	}
	origin := func(site int) *profile.Func {
		if site < 0 {
			return cm
		}
		return &metas[sites[site].callee.meta]
	}
	for i, s := range sites {
		mf.Super.Sites = append(mf.Super.Sites, profile.SuperSite{Block: int32(blocks[i]), Call: s.index, Callee: s.callee.meta})
	}
	for _, o := range sg.Blocks {
		b := origin(o.Site).Blocks[o.Block]
		b.Calls = nil
		mf.Blocks = append(mf.Blocks, b)
		mf.Super.Blocks = append(mf.Super.Blocks, profile.Origin{Site: o.Site, Index: int32(o.Block), After: o.After})
	}
	for id, o := range sg.Edges {
		ge := sg.Graph.Edges[id]
		var e profile.Edge
		switch o.Edge {
		case numbering.CallEdge, numbering.ReturnEdge:
			call := cm.Blocks[blocks[o.Site]].Calls[sites[o.Site].index]
			e = profile.Edge{Kind: "call", Line: call.Line, Col: call.Col}
			if o.Edge == numbering.ReturnEdge {
				e.Kind = "callreturn"
			}
		default:
			e = origin(o.Site).Edges[o.Edge]
		}
		e.Src, e.Dst, e.Probe = int32(ge.Src), int32(ge.Dst), ge.Probe
		mf.Edges = append(mf.Edges, e)
		mf.Super.Edges = append(mf.Super.Edges, profile.Origin{Site: o.Site, Index: int32(o.Edge)})
	}
	s := &super{caller: caller, sg: sg, p: p, sites: sites}
	return s, mf, nil
}

// emit adds to e the code of function u and of the functions nested in it:
// their own paths' code, and, for those that are callers of a supergraph,
// its code in the caller: its registers, its ops on the caller's edges and
// the calls of the clones.
func emit(e *editor, all []*numbered, u *numbered, cfg *Config) error {
	for _, v := range all {
		if v.fn.Numbering == nil || v.fn.Node.Pos() < u.fn.Node.Pos() || v.fn.Node.End() > u.fn.Node.End() {
			continue
		}
		instrumentFunc(e, v.fn, v.ct, cfg)
		for _, s := range v.supers {
			if err := s.emitCaller(e, cfg); err != nil {
				return err
			}
		}
	}
	return nil
}

// emitCaller adds a supergraph's code in its caller's body.
func (s *super) emitCaller(e *editor, cfg *Config) error {
	fn := s.caller.fn
	topo := s.topo()
	decl := "var " + superReg + " [2]uint64; _ = " + superReg + "; "
	e.insertAt(fn.Body.Lbrace+1, phaseDecl, 0, decl)
	if ops := s.p.EntryOps(); len(ops) > 0 {
		e.insert(fn.EntrySite(), topo[s.p.Root()], s.code(ops, s.ct, cfg))
	}
	for id, o := range s.sg.Edges {
		ops := s.p.EdgeOps(numbering.EdgeID(id))
		src := s.sg.Graph.Edges[id].Src
		if len(ops) == 0 || !s.p.Reachable(src) {
			continue
		}
		if o.Site >= 0 {
			if o.Edge == numbering.ReturnEdge {
				return fmt.Errorf("supergraph of %s: the return edge of call %d holds code", fn.Name, o.Site)
			}
			continue // in the clone
		}
		e.insert(fn.Edges[o.Edge].Site, topo[src], s.code(ops, s.ct, cfg))
	}
	for _, site := range s.sites {
		switch fun := site.call.Fun.(type) {
		case *ast.Ident:
			e.rename(fun, site.clone)
		case *ast.SelectorExpr:
			e.rename(fun.Sel, site.clone)
		}
		arg := "&" + superReg
		if len(site.call.Args) > 0 {
			arg += ", "
		}
		e.insertAt(site.call.Lparen+1, phaseDecl, 0, arg)
	}
	return nil
}

// clone returns the source of the clone of site i's callee.
func (s *super) clone(i int, in *Input, all []*numbered, cfg *Config) ([]byte, error) {
	site := s.sites[i]
	callee := site.callee
	decl := callee.fn.Node.(*ast.FuncDecl)
	e := newEditor(in.Fset, in.Files[callee.file], in.Src[callee.file])
	if err := emit(e, all, callee, cfg); err != nil {
		return nil, err
	}
	ct := *s.ct
	ct.reg, ct.preg = superRegPtr+"[0]", superRegPtr+"[1]"
	topo := s.topo()
	fn := callee.fn
	for id, o := range s.sg.Edges {
		if o.Site != i {
			continue
		}
		ops := s.p.EdgeOps(numbering.EdgeID(id))
		src := s.sg.Graph.Edges[id].Src
		if len(ops) == 0 || !s.p.Reachable(src) {
			continue
		}
		switch o.Edge {
		case numbering.CallEdge:
			e.insert(fn.EntrySite(), topo[src], s.code(ops, &ct, cfg))
		case numbering.ReturnEdge:
			return nil, fmt.Errorf("supergraph of %s: the return edge of call %d holds code", s.caller.fn.Name, i)
		default:
			e.insert(fn.Edges[o.Edge].Site, topo[src], s.code(ops, &ct, cfg))
		}
	}
	e.rename(decl.Name, site.clone)
	param := superRegPtr + " *[2]uint64"
	if decl.Type.Params.NumFields() > 0 {
		param += ", "
	}
	e.insertAt(decl.Type.Params.Opening+1, phaseDecl, 0, param)
	lo, hi := e.tf.Offset(decl.Pos()), e.tf.Offset(decl.End())
	src := []byte("\n\n")
	src = append(src, e.applyRange(lo, hi)...)
	return append(src, '\n'), nil
}

func (s *super) topo() map[numbering.BlockID]int {
	topo := make(map[numbering.BlockID]int)
	for i, v := range s.p.Topo() {
		topo[v] = i
	}
	return topo
}

func (s *super) code(ops []numbering.Op, ct *counting, cfg *Config) string {
	code := ""
	for _, op := range ops {
		if c := opCode(op, ct, cfg); c != "" {
			code += c + "; "
		}
	}
	return code
}

// cloneName names the clone of site i of the supergraph at metadata index
// fn.
func cloneName(fn, i int) string {
	return clonePrefix + strconv.Itoa(fn) + "_" + strconv.Itoa(i)
}
