package instrument

import (
	"go/ast"
	"go/types"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
)

// A -flight build records each path as an entry of the goroutine's ring at
// the ring's position, which it then advances. Kept in the ring, the
// position is loaded by each record and stored for the next, so in a loop
// every round waits for the last round's store of it to reach its load:
// in fastjson's digit loops, the instruction after that load had the most
// samples of any (perf). A function with a loop therefore holds the
// position in a local, _pathcoverP, loaded with the ring at its top (and
// again before a loop, where a call came since), and each record stores
// the entry and the advanced position from the local, with nothing to load
// (flightAtStmt).
//
// The local is right only while no other code has recorded in the ring
// since this function last did: only calls can run such code (the ring is
// the goroutine's own, and nothing else of it runs between two statements
// of one function). So a record whose way from the function's top or from
// its last record may pass through a call first reloads the position from
// the ring; a record every way to which is free of calls uses the local
// ("fresh"). Deferred calls run after the function's last record, and a
// panic recovered by a deferred call ends the function, so neither can
// reach a record of the frame they interrupt.

// flightPositions says how a function that holds the ring's position in
// a local uses it.
type flightPositions struct {
	// fresh are its records, by the DAG edge whose op counts them: true
	// where the local is fresh.
	fresh map[numbering.EdgeID]bool
	// reload are the edges into loops where the local is loaded from the
	// ring again, so that the loop's rounds find it fresh
	// (flightReloadStmt).
	reload []numbering.EdgeID
}

// planFlightPositions decides whether u holds the ring's position in a
// local (nil if not): only if a record of a path that ends where a loop
// goes round can use it, which is where loading the position costs most;
// and not in a function with a range-over-func loop, whose body the
// compiler makes a closure called by the iterator, and which would
// capture the local. info types u's package.
//
// An edge's code runs after the nodes of its source block, or, at a
// return, a break or a call that never returns, just before that last
// node; the calls in it count as run before the code all the same, which
// errs on the safe side. The exception is the edge into a loop from
// before it: its code goes before the loop statement, so before the
// for's init statement or the range expression, which are nodes of the
// edge's source block. A record there leaves the local fresh only if
// those call nothing; if they call nothing and the local is stale, the
// edge reloads it, so that a call before a loop does not cost every
// round a load.
func planFlightPositions(u *function, info *types.Info) *flightPositions {
	if !u.loops() || rangesOverFunc(u.Body, info) {
		return nil
	}
	g, p := &u.Graph, u.Placement
	calls := make([]bool, len(u.Blocks))
	for b, blk := range u.Blocks {
		for _, n := range blk.Nodes {
			calls[b] = calls[b] || callsCode(n, info)
		}
	}
	// into[e]: e enters a loop from before it; intoCalls[e]: and the
	// loop's init statement or range expression may call.
	into := make(map[numbering.EdgeID]bool)
	intoCalls := make(map[numbering.EdgeID]bool)
	for id, e := range u.Edges {
		var header ast.Node
		switch s := u.Blocks[g.Edges[id].Dst].Stmt.(type) {
		case *ast.ForStmt:
			header = s.Init
		case *ast.RangeStmt:
			header = s.X
		}
		kind := u.Blocks[g.Edges[id].Dst].Kind
		if (kind == funcgraph.BlockForHead || kind == funcgraph.BlockRangeHead) && e.Kind != funcgraph.EdgeLoop {
			into[numbering.EdgeID(id)] = true
			intoCalls[numbering.EdgeID(id)] = header != nil && callsCode(header, info)
		}
	}
	records := make([]bool, len(g.Edges))
	out := make([][]numbering.EdgeID, len(u.Blocks))
	for id, e := range g.Edges {
		records[id] = countsPath(p.EdgeOps(numbering.EdgeID(id)))
		out[e.Src] = append(out[e.Src], numbering.EdgeID(id))
	}
	// fresh[b]: the local is fresh where block b starts, on every way
	// there. The greatest fixed point: a loop free of calls keeps it.
	// Blocks only turn stale, and a block that does can only turn its
	// successors stale, so a worklist finds it in time linear in the
	// graph.
	fresh := make([]bool, len(u.Blocks))
	for b := range fresh {
		fresh[b] = true
	}
	at := func(e numbering.EdgeID) bool { // fresh where edge e's code runs
		src := g.Edges[e].Src
		return fresh[src] && !calls[src]
	}
	canReload := func(e numbering.EdgeID) bool {
		return into[e] && !intoCalls[e] && u.Edges[e].Site.Kind != funcgraph.NoSite
	}
	after := func(e numbering.EdgeID) bool { // fresh where e leads
		if into[e] {
			return !intoCalls[e] && (at(e) || records[e] || canReload(e))
		}
		return at(e) || records[e]
	}
	var stale []numbering.BlockID
	turn := func(e numbering.EdgeID) {
		if dst := g.Edges[e].Dst; p.Reachable(g.Edges[e].Src) && fresh[dst] && !after(e) {
			fresh[dst] = false
			stale = append(stale, dst)
		}
	}
	for id := range g.Edges {
		turn(numbering.EdgeID(id))
	}
	for len(stale) > 0 {
		b := stale[len(stale)-1]
		stale = stale[:len(stale)-1]
		for _, e := range out[b] {
			turn(e)
		}
	}
	pos := &flightPositions{fresh: make(map[numbering.EdgeID]bool)}
	useful := false
	for id, e := range g.Edges {
		eid := numbering.EdgeID(id)
		if !p.Reachable(e.Src) {
			continue
		}
		f := at(eid)
		for _, op := range p.EdgeOps(eid) {
			if op.Kind == numbering.OpCount || op.Kind == numbering.OpCountConst {
				old, seen := pos.fresh[op.Edge]
				pos.fresh[op.Edge] = f && (old || !seen)
				useful = useful || f && endsRound(p, op.Edge)
			}
		}
		if canReload(eid) && !f && !records[eid] {
			pos.reload = append(pos.reload, eid)
		}
	}
	if !useful {
		return nil
	}
	return pos
}

// rangesOverFunc reports whether body has a range loop over a function
// (an iterator), outside function literals.
func rangesOverFunc(body *ast.BlockStmt, info *types.Info) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.RangeStmt:
			switch t := info.TypeOf(n.X).(type) {
			case nil:
			case *types.TypeParam:
				found = true // its core type may be a function's
			default:
				_, found = t.Underlying().(*types.Signature)
			}
		}
		return !found
	})
	return found
}
