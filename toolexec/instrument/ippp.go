package instrument

// An interprocedural build (Config.Sites set) also counts the paths of
// supergraphs (PPP thesis 3.4): a caller's graph with the callees of its
// call sites inlined, so that a path of the supergraph is an
// interprocedural path segment of depth 1: caller path, callee path, rest of
// the caller path. The sites of a caller are the static calls, on paths
// that ran in the Sites profile, that its metadata marks as possible sites
// (profile.StaticCall.Site) and whose callees the profile has.
//
// The supergraph is built for numbering only (numbering.Inline). The code
// is not inlined: each site calls a clone of its callee (thesis 3.4.5)
// that takes the caller's supergraph registers,
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
// A callee in another package gets its clone in its own package's compile,
// which comes first, under an exported name made from a hash of the
// supergraph: PathcoverIPPP_<hash>_<site>. Both compiles number the
// supergraph alike, from the Sites profile's metadata of the caller and
// callees; each checks that its own functions are still those of the
// profile (the same shape), and the caller's compile uses the clones only if
// the export data of every callee's package has them. Otherwise the
// supergraph keeps only the sites in the caller's package. The counters are
// the caller's, so such a clone takes a frame instead of the array,
//
//	struct{ R [2]uint64; Count func(bl, ppp uint64) }
//
// whose Count, set by the caller to a function of its package, counts a
// path that ends inside the clone.
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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/types"
	"strconv"

	"github.com/pathcover/pathcover/analyzer/funcgraph"
	"github.com/pathcover/pathcover/analyzer/pathnumber"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

const (
	superReg    = "_pathcoverX"  // a caller's supergraph registers or frame
	superRegPtr = "_pathcoverXP" // a clone's pointer to them
	sinkFunc    = "_pathcoverSink"
	clonePrefix = "_pathcoverIPPP"
	// ExportedClonePrefix begins the names of clones called from other
	// packages.
	ExportedClonePrefix = "PathcoverIPPP_"
	frameType           = "struct{ R [2]uint64; Count func(uint64, uint64) }"
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
	callerPkg  string
	callerMeta *profile.Func // the Sites profile's
	caller     *numbered     // in the caller's package's compile
	sg         *numbering.Supergraph
	p          *numbering.Placement
	ct         *counting
	sites      []superSite
	hash       string
	frame      bool // some site is in another package
}

// A superSite is a call site of a supergraph.
type superSite struct {
	block      numbering.BlockID
	index      int // among the block's static calls
	calleePkg  string
	calleeMeta *profile.Func // the Sites profile's
	calleeFile string
	call       *ast.CallExpr // in the caller's package's compile
	callee     *numbered     // if in the package being compiled
	clone      string
}

// profileSuper makes the supergraph of function f of package pkg from the
// Sites profile alone, so that every compile makes the same one: f's sites
// are the calls marked as possible sites in the blocks of its paths that ran
// (ids) whose callees the profile has.
func profileSuper(fr *profile.FuncRun, sites *profile.PathsRun) (*super, error) {
	f := fr.Meta
	n, err := f.Numbering()
	if err != nil {
		return nil, err
	}
	runs := make(map[uint64]uint64, len(fr.IDs))
	for _, id := range fr.IDs {
		runs[id] = 1
	}
	c, err := n.CountsFromPaths(runs)
	if err != nil {
		return nil, err
	}
	s := &super{callerPkg: fr.Package, callerMeta: f}
	for b, blk := range f.Blocks {
		if c.Blocks[b] == 0 {
			continue
		}
		for i, call := range blk.Calls {
			if !call.Site {
				continue
			}
			callee, ok := sites.Func(call.Package, call.Func)
			if !ok || callee.Meta.Super != nil {
				continue
			}
			s.sites = append(s.sites, superSite{block: numbering.BlockID(b), index: i, calleePkg: call.Package, calleeMeta: callee.Meta, calleeFile: callee.File})
		}
	}
	return s, nil
}

// number builds and numbers the supergraph of s's sites, and hashes it.
func (s *super) number() error {
	cs := make([]numbering.CallSite, len(s.sites))
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", s.callerPkg, s.callerMeta.Name, s.callerMeta.Shape())
	s.frame = false
	for i, site := range s.sites {
		cs[i] = numbering.CallSite{Block: site.block, Callee: site.calleeMeta.Graph(), Preferred: site.calleeMeta.PreferredCuts()}
		fmt.Fprintf(h, "%d %d %s\x00%s\x00%s\x00", site.block, site.index, site.calleePkg, site.calleeMeta.Name, site.calleeMeta.Shape())
		s.frame = s.frame || site.calleePkg != s.callerPkg
	}
	s.hash = hex.EncodeToString(h.Sum(nil)[:8])
	sg, err := numbering.Inline(s.callerMeta.Graph(), s.callerMeta.PreferredCuts(), cs)
	if err != nil {
		return err
	}
	n, err := numbering.Number(&sg.Graph, &numbering.Options{Preferred: sg.Preferred})
	if err != nil {
		return err
	}
	if s.p, err = n.Place(nil); err != nil {
		return err
	}
	s.sg = sg
	for i, site := range s.sites {
		prefix := ExportedClonePrefix
		if site.calleePkg == s.callerPkg {
			prefix = clonePrefix + "_"
		}
		s.sites[i].clone = prefix + s.hash + "_" + strconv.Itoa(i)
	}
	return nil
}

// meta describes the supergraph for the metadata; funcs are the metadata of
// the caller's package so far, and files its files.
func (s *super) meta(funcs []profile.Func, files []string) profile.Func {
	n := s.p.Numbering
	cm := &funcs[s.caller.meta]
	mf := profile.Func{
		Name: cm.Name + profile.SuperSuffix, File: cm.File, Line: cm.Line, EndLine: cm.EndLine,
		Entry: int32(s.sg.Graph.Entry), Exit: int32(s.sg.Graph.Exit),
		Paths: n.NumPaths(), Total: n.Total().String(),
		Super: &profile.Super{Caller: s.caller.meta},
	}
	for _, id := range s.sg.Preferred {
		mf.Preferred = append(mf.Preferred, int32(id))
	}
	for _, site := range s.sites {
		ms := profile.SuperSite{Block: int32(site.block), Call: site.index, Callee: -1, Func: site.calleeMeta.Name}
		if site.callee != nil {
			ms.Callee = site.callee.meta
			ms.File = files[funcs[site.callee.meta].File]
		} else {
			ms.Package, ms.File = site.calleePkg, site.calleeFile
		}
		mf.Super.Sites = append(mf.Super.Sites, ms)
	}
	origin := func(site int) *profile.Func {
		if site < 0 {
			return cm
		}
		return s.sites[site].calleeMeta
	}
	for _, o := range s.sg.Blocks {
		b := origin(o.Site).Blocks[o.Block]
		b.Calls = nil
		mf.Blocks = append(mf.Blocks, b)
		mf.Super.Blocks = append(mf.Super.Blocks, profile.Origin{Site: o.Site, Index: int32(o.Block), After: o.After})
	}
	for id, o := range s.sg.Edges {
		ge := s.sg.Graph.Edges[id]
		var e profile.Edge
		switch o.Edge {
		case numbering.CallEdge, numbering.ReturnEdge:
			site := s.sites[o.Site]
			call := cm.Blocks[site.block].Calls[site.index]
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
	return mf
}

// callerSuper makes the supergraph of caller, a function of the package
// being compiled, or returns nil if it has none. It starts from the
// profile's supergraph and checks it against the package: the caller and
// its callees in the package must be those of the profile, and the clones
// in other packages must exist; if any of it fails, only the sites in the
// package are kept.
func (b *pkgBuilder) callerSuper(caller *numbered) (*super, error) {
	pkg := profile.PackagePath(b.cfg.Package)
	live := &b.meta.Funcs[caller.meta]
	fr, ok := b.cfg.Sites.Func(pkg, live.Name)
	if !ok || fr.Meta.Shape() != live.Shape() {
		return nil, nil
	}
	f := fr.Meta
	s, err := profileSuper(fr, b.cfg.Sites)
	if err != nil || len(s.sites) == 0 {
		return nil, err
	}
	if err := s.number(); err != nil {
		return nil, err
	}
	s.caller = caller
	calls := caller.fn.StaticCalls(b.in.Info)
	all := true
	var local []superSite
	for i := range s.sites {
		site := &s.sites[i]
		live := calls[site.block]
		want := f.Blocks[site.block].Calls
		if len(live) != len(want) {
			all = false
			continue
		}
		c := live[site.index]
		if profile.PackagePath(c.Callee.Pkg().Path()) != site.calleePkg || funcgraph.ObjectName(c.Callee) != site.calleeMeta.Name || !c.Site {
			all = false
			continue
		}
		site.call = c.Call
		if site.calleePkg != pkg {
			if !cloneExists(c.Callee, site.clone) {
				all = false
			}
			continue
		}
		callee := b.byObj[c.Callee]
		if callee == nil || callee.fn.Numbering == nil || b.meta.Funcs[callee.meta].Shape() != site.calleeMeta.Shape() {
			all = false
			continue
		}
		site.callee = callee
		local = append(local, *site)
	}
	if !all {
		s.sites = local
		if len(s.sites) == 0 {
			return nil, nil
		}
		if err := s.number(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// cloneExists reports whether the package of callee, another package, has
// the clone name: a function, or a method of callee's receiver type.
func cloneExists(callee *types.Func, name string) bool {
	recv := callee.Signature().Recv()
	if recv == nil {
		fn, ok := callee.Pkg().Scope().Lookup(name).(*types.Func)
		return ok && fn.Signature().Params().Len() > 0
	}
	obj, _, _ := types.LookupFieldOrMethod(recv.Type(), true, callee.Pkg(), name)
	_, ok := obj.(*types.Func)
	return ok
}

// calleeSupers returns the supergraphs of callers in other packages with
// sites whose callees are functions of the package being compiled, for
// their exported clones. Their counters are the callers', so ct only says
// how they count.
func (b *pkgBuilder) calleeSupers() []*super {
	pkg := profile.PackagePath(b.cfg.Package)
	var supers []*super
	b.cfg.Sites.Funcs(func(fr *profile.FuncRun) bool {
		f := fr.Meta
		if fr.Package == pkg || f.Super != nil || !callsInto(f, pkg) {
			return true
		}
		s, err := profileSuper(fr, b.cfg.Sites)
		if err != nil || len(s.sites) == 0 || s.number() != nil {
			return true
		}
		any := false
		for i := range s.sites {
			site := &s.sites[i]
			if site.calleePkg != pkg {
				continue
			}
			for _, u := range b.funcs {
				if u.obj != nil && funcgraph.ObjectName(u.obj) == site.calleeMeta.Name && siteDecl(u) && b.meta.Funcs[u.meta].Shape() == site.calleeMeta.Shape() {
					site.callee, any = u, true
				}
			}
		}
		if !any {
			return true
		}
		mf := s.p.Numbering
		s.ct = &counting{fn: -1, reg: superRegPtr + ".R[0]", preg: superRegPtr + ".R[1]", sink: superRegPtr + ".Count"}
		m := profile.Func{Name: f.Name + profile.SuperSuffix, Paths: mf.NumPaths()}
		if b.cfg.Interesting != nil {
			layoutPPP(s.ct, fr.Package, &m, s.p, 0, b.cfg, nil)
		} else {
			s.ct.c = layout(mf, 0, b.cfg)
		}
		supers = append(supers, s)
		return true
	})
	return supers
}

// callsInto reports whether f has a possible site calling into pkg.
func callsInto(f *profile.Func, pkg string) bool {
	for _, blk := range f.Blocks {
		for _, c := range blk.Calls {
			if c.Site && c.Package == pkg {
				return true
			}
		}
	}
	return false
}

// siteDecl reports whether u can be cloned: a numbered, non-generic
// function declaration.
func siteDecl(u *numbered) bool {
	if u.fn.Numbering == nil || u.obj == nil {
		return false
	}
	sig := u.obj.Signature()
	return sig.TypeParams().Len() == 0 && sig.RecvTypeParams().Len() == 0
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
	if s.frame {
		decl = fmt.Sprintf("var %s %s; %s.Count = %s%d; ", superReg, frameType, superReg, sinkFunc, s.ct.fn)
	}
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
		if s.frame && site.calleePkg == s.callerPkg {
			arg += ".R"
		}
		if len(site.call.Args) > 0 {
			arg += ", "
		}
		e.insertAt(site.call.Lparen+1, phaseDecl, 0, arg)
	}
	return nil
}

// sink is the function of the caller's package that counts the paths that
// end inside the clones of other packages.
func (s *super) sink(cfg *Config) []byte {
	ct := *s.ct
	return fmt.Appendf(nil, "\nfunc %s%d(bl, ppp uint64) { %s }\n", sinkFunc, ct.fn, countCode(&ct, cfg, "bl", "ppp"))
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
	param := superRegPtr + " *[2]uint64"
	ct.reg, ct.preg = superRegPtr+"[0]", superRegPtr+"[1]"
	if s.caller == nil { // a clone for another package
		param = superRegPtr + " *" + frameType
		ct.reg, ct.preg, ct.sink = superRegPtr+".R[0]", superRegPtr+".R[1]", superRegPtr+".Count"
	}
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
			return nil, fmt.Errorf("supergraph of %s: the return edge of call %d holds code", s.callerMeta.Name, i)
		default:
			e.insert(fn.Edges[o.Edge].Site, topo[src], s.code(ops, &ct, cfg))
		}
	}
	e.rename(decl.Name, site.clone)
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
