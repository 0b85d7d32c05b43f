package instrument

// Supergraphs. An interprocedural build (Config.Sites set) also counts the
// paths of supergraphs (PPP thesis 3.4): a caller's graph with the callees
// of its call sites inlined, so that a path of the supergraph is an
// interprocedural path segment of depth 1: caller path, callee path, rest of
// the caller path. The sites of a caller are the static calls, on paths
// that ran in the Sites profile, that its metadata marks as possible sites
// (profile.StaticCall.Site) and whose callees the profile has.
//
// The supergraph is built for numbering only (numbering.InlineNested). The
// code is not inlined: each site calls a clone of its callee (thesis
// 3.4.5, clone.go) that takes the caller's supergraph registers,
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
//	struct{ R [2]uint64; S *struct{ Count func(bl, ppp uint64); A []uint64 } }
//
// whose sink S, a variable of the caller's package that each call points
// to (sinkDecl), counts a path that ends inside the clone with Count, a
// function of that package (A serves shared clones, shared.go). The sink
// is the same in every call, so a call sets one pointer of its frame, not
// a function and a slice.
//
// The supergraph's counting runs beside the intraprocedural one, which is
// unchanged: a clone counts the callee's own paths as the callee does, and
// a caller its own. So an interprocedural build's function profiles are
// those of a Ball-Larus (or PPP) build, and the supergraphs come on top, as
// more functions of the metadata (profile.Func.Super). In a PPP build their
// interesting paths are those an interprocedural Ball-Larus build ran, and
// their untested segments are residual, as a function's untested paths are
// (thesis 3.5.2); a supergraph with at most Options.MaxArrayPaths segments
// counts them all in a Ball-Larus array, which records the untested ones
// itself (layoutCounters says why).
//
// A call in a return statement can be a site: the statement's results are
// held in variables so that the clone runs before the supergraph's code of
// the return edge (results.go).
//
// A clone is one copy of the callee per site, with the weights of that
// site's copy in the supergraph written in; or, for a callee of at least
// Options.ShareBlocks blocks called from several sites of the package's
// supergraphs, one clone that those sites share, each passing a table of
// its weights (shared.go; thesis 3.4.5).
//
// With Options.Depth above 1, segments go deeper: a site's callee has its
// own sites (on its paths that ran), whose callees are inlined in turn, and
// the clone of the callee calls their clones, passing the pointer on. Such a
// clone leaves out its callee's own supergraph: a call can go to one clone
// only. So a function's supergraph does not count the calls of it that a
// deeper segment of another supergraph goes through; the functions' own
// counts still count every call.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/types"
	"strconv"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A super is a caller's supergraph and how it counts. Its constructors,
// callerSuper and foreignSupers, return it complete.
type super struct {
	callerPkg  string
	callerMeta *profile.Func // the Sites profile's
	callerIDs  []uint64      // its paths that ran there
	caller     *function     // in the caller's package's compile; nil in a callee's
	sites      []superSite
	sg         *numbering.Supergraph
	p          *numbering.Placement
	hash       string
	frame      bool // some site is in another package
	// keepEdges are the edges kept whole when the supergraph's paths were
	// cut to fit in 63 bits, for the metadata (nil if nothing was cut).
	keepEdges []numbering.EdgeID
	ct        *counting
}

// A superSite is a call site of a supergraph: a call of the caller's
// (parent -1) or of the callee of the site parent, which comes before it.
type superSite struct {
	parent     int
	block      numbering.BlockID // in the parent's function
	index      int               // among the block's static calls
	calleePkg  string
	calleeMeta *profile.Func // the Sites profile's
	calleeFile string
	calleeIDs  []uint64      // its paths that ran in the Sites profile
	clone      string        // the name of the callee's clone for the site
	call       *ast.CallExpr // in the caller's package's compile
	callee     *function     // if in the package being compiled
	// open says that the callee's copy in the supergraph is kept open
	// (numbering.PlaceOpen), so that the site can share its callee's
	// clone with other sites (shared.go): planned from the profile, as
	// every compile must place the supergraph alike.
	open bool
	// table is, for a site that shares its callee's clone, the variable
	// of the generated file that holds its increments; "" otherwise.
	table string
}

// addSupergraphs makes the supergraph of each function with call sites,
// and those of callers in other packages whose sites call this package's
// functions.
func (b *builder) addSupergraphs() {
	for _, u := range b.funcs {
		s, err := b.callerSuper(u)
		if err != nil {
			b.out.Skipped = append(b.out.Skipped, Skip{u.Name + profile.SuperSuffix, err})
		}
		u.super = s
	}
	b.foreign = b.foreignSupers()
}

// callerSuper makes the supergraph of caller, a function of the package
// being compiled, or returns nil if it has none. It starts from the
// profile's supergraph and checks it against the package (see resolve); if
// any of it fails, only the caller's own sites in the package that check
// are kept, to depth 1. The supergraph's counters follow the package's
// others.
func (b *builder) callerSuper(caller *function) (*super, error) {
	pkg := profile.PackagePath(b.cfg.Package)
	live := &b.meta.Funcs[caller.meta]
	fr, ok := b.cfg.Sites.Func(pkg, live.Name)
	if !ok || fr.Meta.Shape() != live.Shape() {
		return nil, nil
	}
	s, err := planSuper(fr, b.cfg.Sites, b.cfg.Depth, b.cfg.ShareBlocks)
	if err != nil || len(s.sites) == 0 {
		return nil, err
	}
	if err := s.number(); err != nil {
		return nil, err
	}
	s.caller = caller
	valid := b.resolve(s)
	all := true
	var local []superSite
	for i, site := range s.sites {
		all = all && valid[i]
		if site.parent == -1 && site.calleePkg == pkg && valid[i] {
			local = append(local, site)
		}
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
	mf := s.meta(b.meta.Funcs, b.meta.Files)
	if s.frame {
		s.ct = b.layout(&mf, s.p, superReg+".R[0]", superReg+".R[1]")
	} else {
		s.ct = b.layout(&mf, s.p, superReg+"[0]", superReg+"[1]")
	}
	// The rounds of the caller's loops, and of the callees' in their
	// clones, end at counts of the supergraph's paths: the likely one
	// is counted at a fixed address, as in a function's own loops.
	s.ct.likely = likelyAtRoundEnd(s.p)
	return s, nil
}

// foreignSupers returns the supergraphs of callers in other packages with
// sites whose callees are functions of the package being compiled, for
// their exported clones: of the sites that check (see resolve). Their
// counters are the callers', so ct only says how they count. A supergraph
// that cannot be made here is skipped with its reason: its caller's
// compile then finds no clone and leaves the site out.
func (b *builder) foreignSupers() []*super {
	pkg := profile.PackagePath(b.cfg.Package)
	var supers []*super
	b.cfg.Sites.Funcs(func(fr *profile.FuncRun) bool {
		f := fr.Meta
		if fr.Package == pkg || f.Super != nil || !b.callsInto(f, pkg) {
			return true
		}
		s, err := planSuper(fr, b.cfg.Sites, b.cfg.Depth, b.cfg.ShareBlocks)
		if err == nil && len(s.sites) > 0 {
			err = s.number()
		}
		if err != nil {
			b.out.Skipped = append(b.out.Skipped, Skip{fr.Package + "." + f.Name + profile.SuperSuffix + " (its clones here)", err})
			return true
		}
		if len(s.sites) == 0 {
			return true
		}
		valid := b.resolve(s)
		any := false
		for i := range s.sites {
			if s.sites[i].calleePkg != pkg || !valid[i] {
				s.sites[i].callee = nil // no clone here
			}
			any = any || s.sites[i].callee != nil
		}
		if !any {
			return true
		}
		s.ct = &counting{fn: -1}
		m := profile.Func{Name: f.Name + profile.SuperSuffix, Paths: s.p.NumPaths()}
		layoutCounters(s.ct, b.cfg, fr.Package, &m, true, s.p, 0, nil)
		supers = append(supers, s)
		return true
	})
	return supers
}

// callsInto reports whether f may have a site, at the depth asked for,
// whose callee is in pkg: it calls into pkg, or, deeper, calls anything.
func (b *builder) callsInto(f *profile.Func, pkg string) bool {
	for _, blk := range f.Blocks {
		for _, c := range blk.Calls {
			if c.Site && (c.Package == pkg || b.cfg.Depth > 1) {
				return true
			}
		}
	}
	return false
}

// maxSuperSites bounds the sites of one supergraph: each level of depth
// can multiply them.
const maxSuperSites = 256

// planSuper plans the supergraph of function fr from the Sites profile
// alone, so that every compile plans the same one. Its sites are the calls
// marked as possible sites (profile.StaticCall.Site) in the blocks of the
// paths that ran of the caller and, to depth calls deep, of the callees,
// whose callees the profile has; at most maxSuperSites, level by level.
// The sites that may share their callee's clone (shared.go) are open: a
// call of the caller's, to a function of its package with at least
// shareBlocks blocks (0: none), with no sites of its own.
func planSuper(fr *profile.FuncRun, sites *profile.PathsRun, depth, shareBlocks int) (*super, error) {
	s, err := planSites(fr, sites, depth)
	if err != nil || shareBlocks == 0 {
		return s, err
	}
	parents := make(map[int]bool)
	for _, site := range s.sites {
		parents[site.parent] = true
	}
	for i := range s.sites {
		site := &s.sites[i]
		site.open = site.parent == -1 && !parents[i] && site.calleePkg == s.callerPkg && len(site.calleeMeta.Blocks) >= shareBlocks
	}
	return s, nil
}

// planSites plans the sites of planSuper.
func planSites(fr *profile.FuncRun, sites *profile.PathsRun, depth int) (*super, error) {
	s := &super{callerPkg: fr.Package, callerMeta: fr.Meta, callerIDs: fr.IDs}
	type frame struct {
		parent int
		f      *profile.Func
		ids    []uint64
	}
	level := []frame{{-1, fr.Meta, fr.IDs}}
	for d := 1; d <= depth && len(level) > 0; d++ {
		var next []frame
		for _, fm := range level {
			ran, err := countsRun(fm.f, fm.ids)
			if err != nil {
				return nil, err
			}
			for b, blk := range fm.f.Blocks {
				if ran.Blocks[b] == 0 {
					continue
				}
				for i, call := range blk.Calls {
					if !call.Site {
						continue
					}
					callee, ok := sites.Func(call.Package, call.Func)
					if !ok || callee.Meta.Super != nil || callee.Meta.Recovers {
						continue
					}
					if len(s.sites) == maxSuperSites {
						return s, nil
					}
					s.sites = append(s.sites, superSite{
						parent: fm.parent, block: numbering.BlockID(b), index: i,
						calleePkg: call.Package, calleeMeta: callee.Meta, calleeFile: callee.File, calleeIDs: callee.IDs,
					})
					next = append(next, frame{len(s.sites) - 1, callee.Meta, callee.IDs})
				}
			}
		}
		level = next
	}
	return s, nil
}

// countsRun returns how many of the paths ids of f pass each block and
// edge.
func countsRun(f *profile.Func, ids []uint64) (*numbering.Counts, error) {
	n, err := f.Numbering()
	if err != nil {
		return nil, err
	}
	runs := make(map[uint64]uint64, len(ids))
	for _, id := range ids {
		runs[id] = 1
	}
	return n.CountsFromPaths(runs)
}

// children returns the sites whose calls are in site parent's callee (-1:
// in the caller), in order.
func (s *super) children(parent int) []int {
	var c []int
	for i, site := range s.sites {
		if site.parent == parent {
			c = append(c, i)
		}
	}
	return c
}

// number builds and numbers the supergraph of s's sites, hashes it and
// names the clones.
func (s *super) number() error {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", s.callerPkg, s.callerMeta.Name, s.callerMeta.Shape())
	s.frame = false
	nested := make([]numbering.NestedSite, len(s.sites))
	for i, site := range s.sites {
		fmt.Fprintf(h, "%d %d %d %s\x00%s\x00%s\x00", site.parent, site.block, site.index, site.calleePkg, site.calleeMeta.Name, site.calleeMeta.Shape())
		// A clone shared by several supergraphs counts through the frame's
		// Count, as a clone in another package does.
		s.frame = s.frame || site.calleePkg != s.callerPkg || site.open
		nested[i] = numbering.NestedSite{Parent: site.parent, Block: site.block, Callee: site.calleeMeta.Graph(), Preferred: site.calleeMeta.PreferredCuts()}
	}
	s.hash = hex.EncodeToString(h.Sum(nil)[:8])
	sg, err := numbering.InlineNested(s.callerMeta.Graph(), s.callerMeta.PreferredCuts(), nested)
	if err != nil {
		return err
	}
	keep, err := s.keep(sg)
	if err != nil {
		return err
	}
	n, err := numbering.Number(&sg.Graph, &numbering.Options{Preferred: sg.Preferred, Keep: keep})
	if err != nil {
		return err
	}
	s.keepEdges = nil
	for _, c := range n.Cuts() {
		if c.Kind == numbering.CutLimit {
			s.keepEdges = keep // the numbering depends on it
			break
		}
	}
	if s.p, err = s.place(n, sg); err != nil {
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

// place places the numbering n of supergraph sg with the copies of the
// open sites' callees kept open. Where that cannot be done (a path's end
// that cannot hold its count), no site is open: every compile finds the
// same.
func (s *super) place(n *numbering.Numbering, sg *numbering.Supergraph) (*numbering.Placement, error) {
	var open []numbering.BlockID
	for b, o := range sg.Blocks {
		if o.Site >= 0 && s.sites[o.Site].open {
			open = append(open, numbering.BlockID(b))
		}
	}
	if len(open) == 0 {
		return n.Place(nil)
	}
	if p, err := n.PlaceOpen(nil, open); err == nil {
		return p, nil
	}
	for i := range s.sites {
		s.sites[i].open = false
	}
	return n.Place(nil)
}

// keep returns the edges of sg that lie on the interesting segments: those
// whose edges in the caller and callees ran in the Sites profile, and the
// calls and returns of the sites (which lie on paths that ran). A cut that
// brings the paths under 2^63 spares them (thesis 3.4.4, step 5), so that
// the segments the tests ran are counted whole. Every compile keeps the
// same edges: they come from the profile.
func (s *super) keep(sg *numbering.Supergraph) ([]numbering.EdgeID, error) {
	ran := make(map[int]*numbering.Counts)
	counts := func(site int) (*numbering.Counts, error) {
		if c, ok := ran[site]; ok {
			return c, nil
		}
		f, ids := s.callerMeta, s.callerIDs
		if site >= 0 {
			f, ids = s.sites[site].calleeMeta, s.sites[site].calleeIDs
		}
		c, err := countsRun(f, ids)
		ran[site] = c
		return c, err
	}
	var keep []numbering.EdgeID
	for id, o := range sg.Edges {
		if o.Edge == numbering.CallEdge || o.Edge == numbering.ReturnEdge {
			keep = append(keep, numbering.EdgeID(id))
			continue
		}
		c, err := counts(o.Site)
		if err != nil {
			return nil, err
		}
		if c.Edges[o.Edge] > 0 {
			keep = append(keep, numbering.EdgeID(id))
		}
	}
	return keep, nil
}

// meta describes the supergraph for the metadata, but for its counters;
// funcs are the metadata of the caller's package so far, and files its
// files.
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
	for _, id := range s.keepEdges {
		mf.Keep = append(mf.Keep, int32(id))
	}
	for _, site := range s.sites {
		ms := profile.SuperSite{Parent: site.parent, Block: int32(site.block), Call: site.index, Callee: -1, Func: site.calleeMeta.Name}
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
			call := origin(site.parent).Blocks[site.block].Calls[site.index]
			e = profile.Edge{Kind: profile.EdgeCall, Line: call.Line, Col: call.Col}
			if o.Edge == numbering.ReturnEdge {
				e.Kind = profile.EdgeCallReturn
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

// resolve matches s's sites with the package being compiled, and reports
// for each whether it checks. A site whose call is in the package's code
// (the caller's, or a clone's of a callee in the package) must find the
// call there, marked as a site, to the profile's callee; then a callee in
// the package must be the profile's version of it, and a callee in
// another package must have the site's clone in its export data (it makes
// the clone only if its own sites check). A callee in the package checks
// only if its own sites do.
func (b *builder) resolve(s *super) []bool {
	pkg := profile.PackagePath(b.cfg.Package)
	valid := make([]bool, len(s.sites))
	calls := make(map[*function][][]funcgraph.StaticCall)
	callsOf := func(u *function) [][]funcgraph.StaticCall {
		if c, ok := calls[u]; ok {
			return c
		}
		c := u.StaticCalls(b.in.Info)
		calls[u] = c
		return c
	}
	for i := range s.sites {
		site := &s.sites[i]
		parent, parentMeta := s.caller, s.callerMeta
		if site.parent >= 0 {
			parent, parentMeta = s.sites[site.parent].callee, s.sites[site.parent].calleeMeta
		}
		var obj *types.Func
		if parent != nil { // the call is in this package's code
			live := callsOf(parent)[site.block]
			if len(live) != len(parentMeta.Blocks[site.block].Calls) {
				continue
			}
			c := live[site.index]
			if profile.PackagePath(c.Callee.Pkg().Path()) != site.calleePkg || funcgraph.ObjectName(c.Callee) != site.calleeMeta.Name || !c.Site {
				continue
			}
			site.call, obj = c.Call, c.Callee
		}
		if site.calleePkg != pkg {
			valid[i] = obj != nil && cloneExists(obj, site.clone)
			continue
		}
		u := b.byName[site.calleeMeta.Name]
		if obj != nil {
			u = b.byObj[obj]
		}
		if u == nil || !cloneable(u) || b.meta.Funcs[u.meta].Shape() != site.calleeMeta.Shape() {
			continue
		}
		site.callee = u
		valid[i] = true
	}
	// A callee in the package checks only if its own sites do.
	for i := len(s.sites) - 1; i >= 0; i-- {
		if p := s.sites[i].parent; p >= 0 && !valid[i] {
			valid[p] = false
		}
	}
	return valid
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

// cloneable reports whether u can be cloned: a non-generic function
// declaration.
func cloneable(u *function) bool {
	if u.obj == nil {
		return false
	}
	sig := u.obj.Signature()
	return sig.TypeParams().Len() == 0 && sig.RecvTypeParams().Len() == 0
}
