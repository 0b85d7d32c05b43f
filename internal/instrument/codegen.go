package instrument

// Code generation: the statements written into the package's functions,
// one small function per form, each with the Go it emits. A counter kind
// (profile.CounterKind) is counted by the statement that countStmt's one
// switch chooses; adding a kind means a case there, a statement function
// here, its layout in layout.go, and its reading in package profile.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// The names that instrumented code uses. They begin with _pathcover, which
// no user code has, or, for clones called from other packages, with
// ExportedClonePrefix.
const (
	counters    = "_pathcoverC"  // the package's counter words
	staticWords = "_pathcoverW"  // the array that holds them, padded (rt.RegisterStatic)
	staticPad   = "_pathcoverO"  // the padding before them in it, rt.StaticPad
	arrayView   = "_pathcoverA"  // + function index: *[N]uint64 of an array
	slotView    = "_pathcoverS"  // + function index: *[S][2]uint64 of a PPP array
	hotView     = "_pathcoverH"  // + function index: *[S][12]uint64 of a hot path table's sets
	hotWay      = "_pathcoverh"  // the first way of a path's set in a hot path table
	localView   = "_pathcoverV"  // a function's copy of its own view, A or S
	shardSuffix = "P"            // view + P: returns the view of the calling goroutine's shard
	shardView   = "_pathcoverv"  // a PPP array's shard, in the statement that counts in it
	shardMask   = "_pathcoverK"  // the package's shard mask (rt.RegisterShards)
	shardStride = "_pathcoverZ"  // the bytes from one shard to the next
	residuals   = "_pathcoverP"  // the package's residual tables
	register    = "_pathcoverR"  // a function's Ball-Larus register
	pppReg      = "_pathcoverQ"  // its PPP register
	pppID       = "_pathcoverq"  // a PPP id being checked
	invocation  = "_pathcoverI"  // a traced call's invocation id
	superReg    = "_pathcoverX"  // a caller's supergraph registers or frame
	superRegPtr = "_pathcoverXP" // a clone's pointer to them
	heldResult  = "_pathcoverY"  // + index: a result held until the supergraph's code of its return edge has run (results.go)
	residFunc   = "_pathcoverResidual"
	residHeads  = "_pathcoverRH"
	residCount  = "_pathcoverc"
	knownFunc   = "_pathcoverKnown"
	addFunc     = "_pathcoverAdd"
	hashFunc    = "_pathcoverHashed"
	hotFunc     = "_pathcoverHot"
	enterFunc   = "_pathcoverEnter"
	traceFunc   = "_pathcoverTrace"
	// traceReturnFunc records a traced call's return (-trace -wpp).
	traceReturnFunc    = "_pathcoverTraceReturn"
	sinkFunc           = "_pathcoverSink"
	wppFrame           = "_pathcoverF"  // a -wpp call's frame (rt.WPPFrame)
	wppEnters          = "_pathcoverWE" // the functions' codes (*[n]rt.WPPCode), which record their calls
	wppEntered         = "_pathcoverOK" // whether TryEnter recorded the call
	wppGoPrefix        = "_pathcoverGo" // + shape: starts a goroutine (rt.WPPGo...)
	clonePrefix        = "_pathcoverIPPP"
	flightRing         = "_pathcoverG"          // a -flight call's ring (*rt.FlightRing, or *_pathcoverFlightRing)
	flightRingFunc     = "_pathcoverRing"       // returns it (rt.Ring)
	flightRingTypeName = "_pathcoverFlightRing" // its type in builds that count plainly (flightRingType)
	flightBase         = "_pathcoverFB"         // the code of the package's function 0 (rt.FlightRegister)
	flightPos          = "_pathcoverP"          // the ring's position, held by a function that loops (flightPositions)
	flightFunc         = "_pathcoverFF"         // and its code, _pathcoverFB + its index<<40
	// ExportedClonePrefix begins the names of clones called from other
	// packages.
	ExportedClonePrefix = "PathcoverIPPP_"
	// frameType is a supergraph's frame (supergraph.go): its registers,
	// and its sink (sinkType), the same in every call of the caller, so
	// a call sets one pointer of it.
	frameType = "struct{ R [2]uint64; S *" + sinkType + " }"
	// sinkType is what counts a path of a supergraph that ends in a clone
	// of another package or a shared one: the function that counts it,
	// and, for shared clones, its Ball-Larus array if it counts plainly in
	// one (nil otherwise).
	sinkType = "struct{ Count func(uint64, uint64); A []uint64 }"
	sinkVar  = "_pathcoverXS" // + the supergraph's function: its sink
)

// emit adds to e the code of function u: its own paths' code and, with
// withSuper, that of its supergraph in it.
func (u *function) emit(e *editor, opt *buildspec.Spec, withSuper bool) error {
	entry := u.EntrySite()
	if withSuper && u.super != nil {
		e.holdResults(u.Func, u.super.calls(-1))
	}
	if opt.Flight > 0 {
		e.insertAt(u.Body.Lbrace+1, phaseDecl, 0, flightRingDecl(u.ct, recordsAny(u.Placement)))
	} else if view := u.ct.view(); view != "" && u.ct.reg == "" && u.ct.sink == "" && u.loops() {
		u.ct.local = true
		u.ct.likely = likelyAtRoundEnd(u.Placement)
		e.insertAt(u.Body.Lbrace+1, phaseDecl, 0, localViewDecl(view, opt.Atomic))
	}
	usesRegister, err := emitEdges(e, u.Placement, &entry, func(id numbering.EdgeID) (funcgraph.Site, bool, error) {
		return u.Edges[id].Site, true, nil
	}, u.witness(opt), u.returns, u.ct, opt, false)
	if err != nil {
		return err
	}
	if usesRegister {
		e.insertAt(u.Body.Lbrace+1, phaseDecl, 0, registerDecls(u.ct.ppp != nil))
	}
	if u.ct.flight != nil {
		for _, id := range u.ct.flight.reload {
			e.insert(u.Edges[id].Site, u.Numbering.TopoIndex(u.Graph.Edges[id].Src), flightReloadStmt())
		}
	}
	if opt.Trace {
		e.insertAt(u.Body.Lbrace+1, phaseDecl, 0, enterDecl(u.ct.fn, opt.WPP || opt.Flight > 0))
	}
	if !withSuper || u.super == nil {
		return nil
	}
	return u.super.emitCaller(e, opt)
}

// likelyAtRoundEnd returns, for placement p (a function's or a
// supergraph's), the path most likely counted at DAG edge id when the path
// counted there ends where a loop goes round (endsRound), and false
// otherwise: only there does a count run again and again, each time
// reading what the last one wrote (likelyIncStmt, likelySlotStmt).
func likelyAtRoundEnd(p *numbering.Placement) func(numbering.EdgeID) (uint64, bool) {
	return func(id numbering.EdgeID) (uint64, bool) {
		if !endsRound(p, id) {
			return 0, false
		}
		return p.LikelyPath(id)
	}
}

// endsRound reports whether the path counted at DAG edge id of placement p
// ends where a loop goes round (at a cut's end edge, not at the exit). A
// count goes where the path is known, so from there on the path has one
// way to its end, which this follows.
func endsRound(p *numbering.Placement, id numbering.EdgeID) bool {
	exit := p.Graph().Exit
	for e := id; ; {
		if p.Edge(e).Kind == numbering.EndEdge {
			return true
		}
		v := p.Edge(e).Dst
		if v == exit || len(p.Out(v)) != 1 {
			return false
		}
		e = p.Out(v)[0]
	}
}

// loops reports whether u's graph has a cycle: a cut that is not for the
// path limit.
func (u *function) loops() bool {
	for _, c := range u.Numbering.Cuts() {
		if c.Kind == numbering.CutPreferred || c.Kind == numbering.CutBackEdge {
			return true
		}
	}
	return false
}

// witness returns the witness of each edge of u with a probe site, when
// tracing.
func (u *function) witness(opt *buildspec.Spec) func(numbering.EdgeID) string {
	if !opt.Trace {
		return nil
	}
	return func(id numbering.EdgeID) string {
		if u.Edges[id].Site.Kind == funcgraph.NoSite {
			return ""
		}
		return witnessStmt(id)
	}
}

// emitCaller adds a supergraph's code to its caller: the registers, the
// ops on the caller's own edges, and the calls of the sites' clones.
func (s *super) emitCaller(e *editor, opt *buildspec.Spec) error {
	fn := s.caller
	e.insertAt(fn.Body.Lbrace+1, phaseDecl, 0, superDecl(s.frame, s.ct.fn))
	where := func(id numbering.EdgeID) (funcgraph.Site, bool, error) {
		o := s.sg.Edges[id]
		switch {
		case o.Site < 0:
			return fn.Edges[o.Edge].Site, true, nil
		case o.Edge == numbering.ReturnEdge:
			return funcgraph.Site{}, false, fmt.Errorf("supergraph of %s: the return edge of call %d holds code", fn.Name, o.Site)
		}
		return funcgraph.Site{}, false, nil // in the clone
	}
	entry := fn.EntrySite()
	if _, err := emitEdges(e, s.p, &entry, where, nil, nil, s.ct, opt, true); err != nil {
		return err
	}
	s.renameCalls(e, -1, "&"+superReg)
	return nil
}

// emitEdges inserts into e the code of placement p, counting as ct says:
// the ops on entry at site entry (if not nil), and each reachable edge's
// ops, after its witness (witness may be nil), at the site that where
// gives; where reports false for an edge whose code goes elsewhere. Each
// edge's code is one insertion, since a synthesized else or default can be
// made only once, ordered by the topological index of its source. At the
// edges in returns (may be nil), a -wpp build records a path counted there
// with the call's return (wppPathReturnStmt). A supergraph's code (super)
// goes after the results of a return statement whose results are held
// (results.go), so that it runs after the clones the statement calls; a
// function's own code goes before the statement, as in a plain build. It
// reports whether the code reads the register.
func emitEdges(e *editor, p *numbering.Placement, entry *funcgraph.Site, where func(numbering.EdgeID) (funcgraph.Site, bool, error), witness func(numbering.EdgeID) string, returns map[numbering.EdgeID]bool, ct *counting, opt *buildspec.Spec, super bool) (usesRegister bool, err error) {
	n := p.Numbering
	add := func(site funcgraph.Site, src numbering.BlockID, trace string, ops []numbering.Op, returns bool) {
		for _, op := range ops {
			usesRegister = usesRegister || op.Kind != numbering.OpCountConst
		}
		if trace == "" && len(ops) == 0 {
			return
		}
		code := trace + opsCode(ops, ct, opt, returns)
		if !super || !e.insertAfterResults(site, n.TopoIndex(src), code) {
			e.insert(site, n.TopoIndex(src), code)
		}
	}
	if entry != nil {
		add(*entry, n.Root(), "", p.EntryOps(), false)
	}
	for id, ge := range n.Graph().Edges {
		eid := numbering.EdgeID(id)
		if !p.Reachable(ge.Src) {
			continue
		}
		ops, trace := p.EdgeOps(eid), ""
		if witness != nil {
			trace = witness(eid)
		}
		if trace == "" && len(ops) == 0 {
			continue
		}
		site, ok, err := where(eid)
		if err != nil {
			return false, err
		}
		if ok {
			add(site, ge.Src, trace, ops, returns[eid])
		}
	}
	return usesRegister, nil
}

// opsCode writes ops as Go statements, each ended by a semicolon; a path
// counted records the call's return with it if returns.
func opsCode(ops []numbering.Op, ct *counting, opt *buildspec.Spec, returns bool) string {
	s := ""
	for _, op := range ops {
		if c := opStmt(op, ct, opt, returns); c != "" {
			s += c + "; "
		}
	}
	return s
}

// opStmt is the statement of one op: an increment of the registers, their
// initialisation, or the count of a path (with the call's return, in a
// -wpp build, if returns).
func opStmt(op numbering.Op, ct *counting, opt *buildspec.Spec, returns bool) string {
	reg, preg := ct.registers()
	var pinc uint64 // the PPP register's part of the op
	if ct.ppp != nil {
		pinc = ct.ppp.Inc(op.Edge)
	}
	switch op.Kind {
	case numbering.OpAdd:
		s := addStmt(reg, op.Inc)
		if ct.ppp != nil {
			s = join(s, addStmt(preg, pinc))
		}
		return s
	case numbering.OpSet:
		s := setStmt(reg, op.Inc)
		if ct.ppp != nil {
			s = join(s, setStmt(preg, pinc))
		}
		return s
	}
	id := pathIDs{bl: pathID(reg, op), ppp: "0", constant: op.Kind == numbering.OpCountConst, blConst: op.Inc, at: op.Edge}
	if op.Kind == numbering.OpCount && ct.likely != nil {
		id.likely, id.hasLikely = ct.likely(op.Edge)
	}
	if ct.ppp != nil {
		id.ppp, id.pppConst = pathID(preg, numbering.Op{Kind: op.Kind, Inc: pinc}), pinc
	}
	return countAndRecord(ct, opt, id, returns)
}

// pathIDs are the ids of the path that a count counts: Go expressions
// without side effects, over the registers or constant. If constant, both
// ids are known now, as blConst and pppConst.
type pathIDs struct {
	bl, ppp           string
	constant          bool
	blConst, pppConst uint64
	// likely is the Ball-Larus id most likely counted here, if hasLikely
	// (counting.likely).
	likely    uint64
	hasLikely bool
	// at is the DAG edge whose op counts the path (flightPositions).
	at numbering.EdgeID
}

// countStmt is the statement that counts path id as ct says: the one
// switch over counter kinds.
func countStmt(ct *counting, opt *buildspec.Spec, id pathIDs) string {
	if ct.sink != "" {
		return sinkStmt(ct.sink, id)
	}
	switch ct.c.Kind {
	case profile.CounterArray:
		if id.constant {
			return incStmt(ct.constWord(id.blConst), opt.Atomic)
		}
		if id.hasLikely && !opt.Atomic {
			return likelyIncStmt(ct, id)
		}
		return incStmt(fmt.Sprintf("%s[%s]", ct.viewName(), id.bl), opt.Atomic)
	case profile.CounterHash:
		return hashedStmt(ct.c, id.bl)
	case profile.CounterHot:
		return hotStmt(ct, opt, id)
	case profile.CounterPPP:
		if id.constant {
			return slotConstStmt(ct, opt, id)
		}
		if id.hasLikely && !opt.Atomic {
			if s, ok := likelySlotStmt(ct, opt, id); ok {
				return s
			}
		}
		return slotStmt(ct, opt, id)
	case profile.CounterPPPHash:
		return knownStmt(ct, id.bl)
	case profile.CounterNone:
		return residualStmt(ct.fn, id.bl)
	}
	panic(fmt.Sprintf("counter kind %q", ct.c.Kind))
}

// countAndRecord is the statement that counts path id (in a -flight build,
// that records it in the goroutine's ring instead: flightStmt), followed,
// in a -wpp build, by the path's event in the call's frame (wppPathStmt), or, if
// returns, by the path's and the return's (wppPathReturnStmt).
func countAndRecord(ct *counting, opt *buildspec.Spec, id pathIDs, returns bool) string {
	if opt.Flight > 0 {
		return flightStmt(ct, id)
	}
	s := countStmt(ct, opt, id)
	switch {
	case !opt.WPP || ct.sink != "":
	case returns:
		s += "; " + wppPathReturnStmt(id.bl)
	default:
		s += "; " + wppPathStmt(id.bl)
	}
	return s
}

// pathID is the path id that count op counts, in register reg: an
// expression, or a constant for OpCountConst:
//
//	_pathcoverR
//	(_pathcoverR+2)
//	(_pathcoverR-3)
//	7
func pathID(reg string, op numbering.Op) string {
	if op.Kind == numbering.OpCountConst {
		return strconv.FormatUint(op.Inc, 10)
	}
	if op.Inc == 0 {
		return reg
	}
	if int64(op.Inc) < 0 {
		return "(" + reg + "-" + strconv.FormatUint(-op.Inc, 10) + ")"
	}
	return "(" + reg + "+" + strconv.FormatUint(op.Inc, 10) + ")"
}

// addStmt adds inc, a signed number, to register reg; empty for 0:
//
//	_pathcoverR += 3
//	_pathcoverR -= 2
func addStmt(reg string, inc uint64) string {
	switch {
	case inc == 0:
		return ""
	case int64(inc) < 0:
		return reg + " -= " + strconv.FormatUint(-inc, 10)
	}
	return reg + " += " + strconv.FormatUint(inc, 10)
}

// setStmt initialises register reg, merged with the first increment:
//
//	_pathcoverR = 5
func setStmt(reg string, v uint64) string { return reg + " = " + strconv.FormatUint(v, 10) }

// join joins two statements, either of which may be empty.
func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// incStmt adds one to counter, an addressable uint64; atomically, as -race
// builds need:
//
//	_pathcoverA3[(_pathcoverR+2)]++
//	_pathcoverAdd(&_pathcoverA3[(_pathcoverR+2)])
func incStmt(counter string, atomic bool) string {
	if atomic {
		return fmt.Sprintf("%s(&%s)", addFunc, counter)
	}
	return counter + "++"
}

// likelyIncStmt counts path id.bl in ct's array, at a fixed address
// (constWord) when it is the likely path id.likely, else through the view:
//
//	if (_pathcoverR+5) == 5 { _pathcoverW[_pathcoverO+17]++ } else { _pathcoverV[(_pathcoverR+5)]++ }
//
// Why: in a loop, a count at an index in a register is a read-modify-write
// of memory that the next round's count of the same path reads again, and
// x86 processors forward a store to such a load fastest when its address
// is a fixed displacement from the program counter, or from a register
// the loop does not change, as -cover's counters are (AMD EPYC here:
// fastjson's whitespace loop ran 2.1 ms under the indexed count, 1.4 ms
// under this, 1.25 ms under -covermode=count). The test costs a compare
// and a branch that the likely path predicts. Only non-atomic counts, in
// functions with a local view and in supergraphs (counting.likely).
func likelyIncStmt(ct *counting, id pathIDs) string {
	view := ct.viewName()
	return fmt.Sprintf("if %s == %d { %s++ } else { %s[%s]++ }", id.bl, id.likely, ct.constWord(id.likely), view, id.bl)
}

// constWord is word k of ct's array, or of its PPP array seen as words:
// in the package's array of counters (rt.RegisterStatic), which the
// compiler addresses by a fixed displacement, as it does -cover's
// counters, with no view to load; in a sharded build, whose shards have
// no fixed address, through the view:
//
//	_pathcoverW[_pathcoverO+12]
//	_pathcoverA3P()[2]
//	_pathcoverV[2]
func (ct *counting) constWord(k uint64) string {
	if !ct.sharded {
		return fmt.Sprintf("%s[%s+%d]", staticWords, staticPad, uint64(ct.c.Offset)+k)
	}
	if ct.c.Kind == profile.CounterPPP {
		return fmt.Sprintf("%s[%d][%d]", ct.viewName(), k/2, k%2)
	}
	return fmt.Sprintf("%s[%d]", ct.viewName(), k)
}

// hashedStmt counts path bl in a function's hash table (rt.CountHashed):
//
//	_pathcoverHashed(_pathcoverC[10:31], (_pathcoverR+2))
func hashedStmt(c profile.Counters, bl string) string {
	return fmt.Sprintf("%s(%s[%d:%d], %s)", hashFunc, counters, c.Offset, c.Offset+c.Size, bl)
}

// hotStmt counts a path in a function's hot path table (rt.CountHot):
// the hit in the first way of its set, which the first path to reach the
// set keeps, here, through the table's view, and the rest of the search
// in rt, for a call would leave no cheaper than a hash table. The set is
// rt.HotSet's (profile.HotSet), taken now for a constant id. Atomically
// (rt.CountHotAtomic), all of it in rt:
//
//	if _pathcoverh := &_pathcoverH3[((_pathcoverR+2)*0x9e3779b97f4a7c15)>>40&3]; _pathcoverh[0] == (_pathcoverR+2)+1 { _pathcoverh[1]++ } else { _pathcoverHot(_pathcoverC[10:58], (_pathcoverR+2)) }
//	if _pathcoverh := &_pathcoverH3[1]; _pathcoverh[0] == 7+1 { _pathcoverh[1]++ } else { _pathcoverHot(_pathcoverC[10:58], 7) }
//	_pathcoverHot(_pathcoverC[10:58], (_pathcoverR+2))
func hotStmt(ct *counting, opt *buildspec.Spec, id pathIDs) string {
	c := ct.c
	call := fmt.Sprintf("%s(%s[%d:%d], %s)", hotFunc, counters, c.Offset, c.Offset+c.Size, id.bl)
	if opt.Atomic {
		return call
	}
	sets := uint64(c.Size / (3 * profile.HotWays))
	set := hotSetExpr(id.bl, sets)
	if id.constant {
		set = strconv.FormatUint(profile.HotSet(id.blConst, sets), 10)
	}
	return fmt.Sprintf("if %s := &%s%d[%s]; %s[0] == %s+1 { %s[1]++ } else { %s }",
		hotWay, hotView, ct.fn, set, hotWay, id.bl, hotWay, call)
}

// hotSetExpr is profile.HotSet(bl, sets) in Go, for a uint64 bl:
//
//	((_pathcoverR+2)*0x9e3779b97f4a7c15)>>40&3
func hotSetExpr(bl string, sets uint64) string {
	return fmt.Sprintf("(%s*%#x)>>40&%d", bl, uint64(profile.HotMultiplier), sets-1)
}

// knownStmt counts path bl in a PPP build's hash table of a function's
// interesting paths, or as residual if it is not one (rt.CountKnown):
//
//	_pathcoverKnown(_pathcoverC[10:26], 3, (_pathcoverR+2))
func knownStmt(ct *counting, bl string) string {
	return fmt.Sprintf("%s(%s[%d:%d], %d, %s)", knownFunc, counters, ct.c.Offset, ct.c.Offset+ct.c.Size, ct.fn, bl)
}

// residualStmt records path bl of function fn as residual
// (rt.Residuals.Count):
//
//	_pathcoverResidual(3, (_pathcoverR+2))
func residualStmt(fn int, bl string) string { return fmt.Sprintf("%s(%d, %s)", residFunc, fn, bl) }

// slotStmt counts a path in a PPP array if its PPP id has a slot and the
// slot's Ball-Larus id is the path's, and records it as residual
// otherwise; once the PPP id is below the slot count the compiler checks no
// bounds:
//
//	if _pathcoverq := (_pathcoverQ+1); _pathcoverq < 4 && _pathcoverS3[_pathcoverq][0] == (_pathcoverR+2)+1 { _pathcoverS3[_pathcoverq][1]++ } else { _pathcoverResidual(3, (_pathcoverR+2)) }
//
// In a sharded build, outside a function's local view, the shard's view
// is taken once:
//
//	if _pathcoverq, _pathcoverv := (_pathcoverQ+1), _pathcoverS3P(); _pathcoverq < 4 && _pathcoverv[_pathcoverq][0] == (_pathcoverR+2)+1 { _pathcoverv[_pathcoverq][1]++ } else { _pathcoverResidual(3, (_pathcoverR+2)) }
func slotStmt(ct *counting, opt *buildspec.Spec, id pathIDs) string {
	slots := uint64(ct.c.Size / 2)
	view := ct.viewName()
	init := pppID + " := " + id.ppp
	if ct.sharded && !ct.local {
		init = pppID + ", " + shardView + " := " + id.ppp + ", " + view
		view = shardView
	}
	resid := residualStmt(ct.fn, id.bl)
	if id.hasLikely && !opt.Atomic && ct.reg != "" {
		resid = residualRoundStmt(ct.fn, id.bl)
	}
	return fmt.Sprintf("if %s; %s < %d && %s[%s][0] == %s+1 { %s } else { %s }",
		init, pppID, slots, view, pppID, id.bl,
		incStmt(fmt.Sprintf("%s[%s][1]", view, pppID), opt.Atomic),
		resid)
}

// residualRoundStmt is residualStmt for a supergraph's count that ends a
// loop's round (pathIDs.hasLikely: in a callee's clone), in builds that
// count plainly: a residual segment that runs round after round (a callee
// loop's round that the tests ran from no such caller) is found in its
// home slot here, through the supergraph's residual head
// (rt.ResidualHead.Slot, inlined), with no call. Functions' own counts
// keep the call: their residual paths are rarer, and the code would grow
// every loop of a PPP build.
//
//	if _pathcoverc := _pathcoverRH[3].Slot((_pathcoverR+2)); _pathcoverc != nil { *_pathcoverc++ } else { _pathcoverResidual(3, (_pathcoverR+2)) }
func residualRoundStmt(fn int, bl string) string {
	return fmt.Sprintf("if %s := %s[%d].Slot(%s); %s != nil { *%s++ } else { %s }",
		residCount, residHeads, fn, bl, residCount, residCount, residualStmt(fn, bl))
}

// likelySlotStmt is likelyIncStmt for a PPP array: when the Ball-Larus id
// is the likely path's, an interesting path with PPP id p in the array,
// the slot's check would pass, so the count goes straight to slot p's
// second word at its fixed address (constWord); other paths take slotStmt.
// It reports false when the likely path has no slot.
//
//	if (_pathcoverR+5) == 5 { _pathcoverW[_pathcoverO+7]++ } else { if _pathcoverq := (_pathcoverQ+1); ... }
func likelySlotStmt(ct *counting, opt *buildspec.Spec, id pathIDs) (string, bool) {
	p, ok := ct.ppp.ID(id.likely)
	if !ok || p >= uint64(ct.c.Size/2) {
		return "", false
	}
	return fmt.Sprintf("if %s == %d { %s++ } else { %s }", id.bl, id.likely, ct.constWord(2*p+1), slotStmt(ct, opt, id)), true
}

// slotConstStmt is slotStmt for a path whose ids are both known now: the
// check is made now, and the count is slot 1's second word (constWord).
//
//	_pathcoverW[_pathcoverO+13]++
//	_pathcoverResidual(3, 6)
func slotConstStmt(ct *counting, opt *buildspec.Spec, id pathIDs) string {
	if bl, ok := ct.ppp.BL(id.pppConst); ok && bl == id.blConst && id.pppConst < uint64(ct.c.Size/2) {
		return incStmt(ct.constWord(2*id.pppConst+1), opt.Atomic)
	}
	return residualStmt(ct.fn, id.bl)
}

// sinkStmt counts a path that ends in a clone for another package through
// the caller's frame:
//
//	_pathcoverXP.S.Count((_pathcoverXP.R[0]+2), (_pathcoverXP.R[1]+1))
func sinkStmt(sink string, id pathIDs) string { return fmt.Sprintf("%s(%s, %s)", sink, id.bl, id.ppp) }

// witnessStmt is the witness of edge id, for tracing (rt.TraceEdge):
//
//	_pathcoverTrace(_pathcoverI, 12);
func witnessStmt(id numbering.EdgeID) string {
	return fmt.Sprintf("%s(%s, %d); ", traceFunc, invocation, id)
}

// view returns the package-level view of the array or PPP array that ct
// counts in, or "" if it counts otherwise; in a sharded build, the call of
// the function that returns the view of the calling goroutine's shard
// (shardViewDecl):
//
//	_pathcoverA3
//	_pathcoverA3P()
func (ct *counting) view() string {
	var v string
	switch ct.c.Kind {
	case profile.CounterArray:
		v = arrayView + strconv.Itoa(ct.fn)
	case profile.CounterPPP:
		v = slotView + strconv.Itoa(ct.fn)
	default:
		return ""
	}
	if ct.sharded {
		return v + shardSuffix + "()"
	}
	return v
}

// viewName is the name that ct's count statements index: the function's
// local copy of its view (counting.local), or the package-level view.
func (ct *counting) viewName() string {
	if ct.local {
		return localView
	}
	return ct.view()
}

// localViewDecl copies a function's view of its counters into a local at
// the top of its body, and checks it for nil there. A count in a loop then
// reloads no package variable (which any store in the loop could have
// changed, as far as the compiler knows), and the compiler's nil checks of
// the local are all dominated by the first one, so it drops them: a path
// counted is one increment of memory at an address in registers. Only
// functions with loops get it (function.loops): in one without, each count
// runs once a call, and the few nodes it adds to the body could cost a
// small function its inlining.
//
// The check reads the view's first word in a build that counts plainly,
// and only takes its address in an atomic one: there other goroutines add
// to that word atomically, and a plain read of it, needless as it is,
// would be a data race that go test -race reports in the user's test
// (the address is the same nil check, and reads no memory). Plain builds
// keep the read, which weighs one node less in the inliner's budget.
//
//	_pathcoverV := _pathcoverA3; _ = _pathcoverV[0];
//	_pathcoverV := _pathcoverA3; _ = &_pathcoverV[0];
func localViewDecl(view string, atomic bool) string {
	check := localView + "[0]"
	if atomic {
		check = "&" + check
	}
	return localView + " := " + view + "; _ = " + check + "; "
}

// registerDecls declares a function's registers at the top of its body,
// the PPP one too with ppp:
//
//	var _pathcoverR uint64; _ = _pathcoverR; var _pathcoverQ uint64; _ = _pathcoverQ;
func registerDecls(ppp bool) string {
	decl := "var " + register + " uint64; _ = " + register + "; "
	if ppp {
		decl += "var " + pppReg + " uint64; _ = " + pppReg + "; "
	}
	return decl
}

// heldResultDecls declares, at the top of a body, the variables that hold
// the results of its return statements that call clones, typed as the
// signature spells them (results.go):
//
//	var _pathcoverY0 int; var _pathcoverY1 error;
func heldResultDecls(types []string) string {
	s := ""
	for i, t := range types {
		s += "var " + heldResult + strconv.Itoa(i) + " " + t + "; "
	}
	return s
}

// heldResultsAssign replaces the keyword of a return statement whose n
// results are held:
//
//	_pathcoverY0, _pathcoverY1 =
func heldResultsAssign(n int) string {
	return heldResultList(n) + " ="
}

// heldResultsReturn returns the held results, after the supergraph's code
// of the return edge:
//
//	; return _pathcoverY0, _pathcoverY1
func heldResultsReturn(n int) string {
	return "; return " + heldResultList(n)
}

func heldResultList(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = heldResult + strconv.Itoa(i)
	}
	return strings.Join(names, ", ")
}

// flightRingDecl gets the calling goroutine's ring at the top of a
// function's body in a -flight build (rt.Ring, inlined), and, in a
// function that holds the ring's position (flightPositions), that and its
// code (fn 3 here), so that a loop's record loads neither:
//
//	_pathcoverG := _pathcoverRing();
//	_pathcoverG := _pathcoverRing(); _pathcoverP, _pathcoverFF := _pathcoverG.pos, _pathcoverFB + 3<<40; _, _ = _pathcoverP, _pathcoverFF;
//
// and, should the function record nothing, _ = _pathcoverG, which
// elsewhere would weigh 3 of the inliner's 80 units for nothing.
func flightRingDecl(ct *counting, records bool) string {
	s := flightRing + " := " + flightRingFunc + "(); "
	if !records {
		s += "_ = " + flightRing + "; "
	}
	if ct.flight != nil {
		s += fmt.Sprintf("%s, %s := %s.pos, %s + %d<<40; _, _ = %[1]s, %[2]s; ", flightPos, flightFunc, flightRing, flightBase, ct.fn)
	}
	return s
}

// recordsAny reports whether placement p counts some path on an edge that
// can run (emitEdges writes no code on the others).
func recordsAny(p *numbering.Placement) bool {
	if countsPath(p.EntryOps()) {
		return true
	}
	for id, e := range p.Graph().Edges {
		if p.Reachable(e.Src) && countsPath(p.EdgeOps(numbering.EdgeID(id))) {
			return true
		}
	}
	return false
}

// countsPath reports whether ops count a path.
func countsPath(ops []numbering.Op) bool {
	for _, op := range ops {
		if op.Kind == numbering.OpCount || op.Kind == numbering.OpCountConst {
			return true
		}
	}
	return false
}

// flightStmt records path id in the goroutine's ring, as an entry that is
// the function's code, the package's base plus its index shifted by 40
// (rt.FlightRegister), plus the id (rt.FlightRing.Put, inlined); for a
// function with 2^40 - 1 paths or more, whose ids may not fit, with
// rt.FlightRing.PutLong:
//
//	_pathcoverG.Put(_pathcoverFB + 3<<40 + (_pathcoverR+2))
//	_pathcoverG.Put(_pathcoverFB + (3<<40 + 7))
//	_pathcoverG.PutLong(_pathcoverFB + 3<<40, (_pathcoverR+2))
//
// In a function that holds the ring's position in a local, flightAtStmt.
func flightStmt(ct *counting, id pathIDs) string {
	var entry string
	switch {
	case ct.paths >= 1<<40-1:
		s := fmt.Sprintf("%s.PutLong(%s + %d<<40, %s)", flightRing, flightBase, ct.fn, id.bl)
		if ct.flight != nil {
			s += fmt.Sprintf("; %s = %s.pos", flightPos, flightRing)
		}
		return s
	case ct.flight != nil && id.constant:
		entry = fmt.Sprintf("%s + %d", flightFunc, id.blConst)
	case ct.flight != nil:
		entry = fmt.Sprintf("%s + %s", flightFunc, id.bl)
	case id.constant:
		return fmt.Sprintf("%s.Put(%s + (%d<<40 + %d))", flightRing, flightBase, ct.fn, id.blConst)
	default:
		return fmt.Sprintf("%s.Put(%s + %d<<40 + %s)", flightRing, flightBase, ct.fn, id.bl)
	}
	return flightAtStmt(entry, ct.flight.fresh[id.at])
}

// flightAtStmt records entry at the position held in the function's
// local, if fresh, or else at the ring's own, and keeps the advanced
// position in the local (flightPositions):
//
//	_pathcoverP = _pathcoverG.At(_pathcoverP, _pathcoverFF + (_pathcoverR+3))
//	_pathcoverP = _pathcoverG.At(_pathcoverG.pos, _pathcoverFF + 5)
func flightAtStmt(entry string, fresh bool) string {
	pos := flightRing + ".pos"
	if fresh {
		pos = flightPos
	}
	return fmt.Sprintf("%s = %s.At(%s, %s)", flightPos, flightRing, pos, entry)
}

// flightReloadStmt loads the ring's position into the local of a function
// that holds it, before a loop that a call came before
// (flightPositions.reload):
//
//	_pathcoverP = _pathcoverG.pos;
func flightReloadStmt() string {
	return flightPos + " = " + flightRing + ".pos; "
}

// wppEnterDecl records a call of function fn in a -wpp build and defers
// the record of its return, so that a panic unwinding the call records it
// too (rt.WPPCode.TryEnter and rt.WPPFrame.TryReturn, inlined, and Enter
// and Return where they report false):
//
//	_pathcoverF, _pathcoverOK := _pathcoverWE[3].TryEnter(); if !_pathcoverOK { _pathcoverF = _pathcoverWE[3].Enter() }; defer func() { if !_pathcoverF.TryReturn() { _pathcoverF.Return() } }();
func wppEnterDecl(fn int) string {
	return fmt.Sprintf("%s, %s := %s[%d].TryEnter(); if !%s { %s = %s[%d].Enter() }; defer func() { if !%s.TryReturn() { %s.Return() } }(); ",
		wppFrame, wppEntered, wppEnters, fn, wppEntered, wppFrame, wppEnters, fn, wppFrame, wppFrame)
}

// wppPathStmt records that the call completed path bl (rt.WPPFrame.TryPath,
// inlined, and Path where it reports false):
//
//	if !_pathcoverF.TryPath((_pathcoverR+2)) { _pathcoverF.Path((_pathcoverR+2)) }
func wppPathStmt(bl string) string {
	return fmt.Sprintf("if !%s.TryPath(%s) { %s.Path(%s) }", wppFrame, bl, wppFrame, bl)
}

// wppPathReturnStmt records that the call completed path bl and returns
// with nothing in between (rt.WPPFrame.TryPathReturn and PathReturn; see
// pathReturns):
//
//	if !_pathcoverF.TryPathReturn(2) { _pathcoverF.PathReturn(2) }
func wppPathReturnStmt(bl string) string {
	return fmt.Sprintf("if !%s.TryPathReturn(%s) { %s.PathReturn(%s) }", wppFrame, bl, wppFrame, bl)
}

// wppGoOpen and wppGoClose wrap the function value of a go statement, so
// that the goroutine it starts records its spawn (rt.WPPGo...):
//
//	go _pathcoverGo1_0(_pathcoverF, f)(x)
func wppGoOpen(shape goShape) string { return shape.name() + "(" + wppFrame + ", " }

const wppGoClose = ")"

// wppGoDecl is the generated file's helper for go statements of a shape:
//
//	func _pathcoverGo1_0[A0 any](f _pathcoverRT.WPPFrame, fn func(A0)) func(A0) { return _pathcoverRT.WPPGo1_0(f, fn) }
func wppGoDecl(shape goShape) string {
	var tparams, params, results []string
	for i := range shape.params {
		t := fmt.Sprintf("A%d", i)
		tparams = append(tparams, t)
		if shape.variadic && i == shape.params-1 {
			t = "..." + t
		}
		params = append(params, t)
	}
	for i := range shape.results {
		t := fmt.Sprintf("R%d", i)
		tparams = append(tparams, t)
		results = append(results, t)
	}
	fn := "func(" + strings.Join(params, ", ") + ")"
	switch len(results) {
	case 0:
	case 1:
		fn += " " + results[0]
	default:
		fn += " (" + strings.Join(results, ", ") + ")"
	}
	tp := ""
	if len(tparams) > 0 {
		tp = "[" + strings.Join(tparams, ", ") + " any]"
	}
	return fmt.Sprintf("\nfunc %s%s(f _pathcoverRT.WPPFrame, fn %s) func(%s) { return _pathcoverRT.WPPGo%s(f, fn) }\n",
		shape.name(), tp, fn, strings.Join(params, ", "), shape.suffix())
}

// enterDecl records a call of function fn when tracing (rt.TraceEnter),
// and, in a -wpp or -flight build (returns), defers the record of its
// return, which tells the oracle how calls nest (rt.TraceReturn):
//
//	_pathcoverI := _pathcoverEnter(3); _ = _pathcoverI;
//	_pathcoverI := _pathcoverEnter(3); defer _pathcoverTraceReturn(_pathcoverI);
func enterDecl(fn int, returns bool) string {
	if returns {
		return fmt.Sprintf("%s := %s(%d); defer %s(%s); ", invocation, enterFunc, fn, traceReturnFunc, invocation)
	}
	return fmt.Sprintf("%s := %s(%d); _ = %s; ", invocation, enterFunc, fn, invocation)
}

// superDecl declares a caller's supergraph registers, or, when some of its
// sites' clones are in other packages or shared, its frame, whose sink is
// supergraph fn's (sinkDecl): the registers zeroed and one pointer set,
// in every call of the caller.
//
//	var _pathcoverX [2]uint64; _ = _pathcoverX;
//	var _pathcoverX struct{ R [2]uint64; S *struct{ Count func(uint64, uint64); A []uint64 } }; _pathcoverX.S = &_pathcoverXS4;
func superDecl(frame bool, fn int) string {
	if !frame {
		return "var " + superReg + " [2]uint64; _ = " + superReg + "; "
	}
	return fmt.Sprintf("var %s %s; %s.S = &%s%d; ", superReg, frameType, superReg, sinkVar, fn)
}

// cloneRegisters are the registers of a clone, through its pointer to the
// caller's.
func cloneRegisters(frame bool) (bl, ppp string) {
	if frame {
		return superRegPtr + ".R[0]", superRegPtr + ".R[1]"
	}
	return superRegPtr + "[0]", superRegPtr + "[1]"
}

// cloneParam is the parameter a clone takes first, followed by a comma if
// the callee has parameters:
//
//	_pathcoverXP *[2]uint64,
//	_pathcoverXP *struct{ R [2]uint64; S *struct{ Count func(uint64, uint64); A []uint64 } },
func cloneParam(frame, more bool) string {
	p := superRegPtr + " *[2]uint64"
	if frame {
		p = superRegPtr + " *" + frameType
	}
	if more {
		p += ", "
	}
	return p
}

// cloneArg is the argument a site's call passes its clone first (the
// caller's registers, or a clone's pointer passed on), followed by a comma
// if the call has arguments:
//
//	&_pathcoverX,
//	_pathcoverXP,
func cloneArg(arg string, more bool) string {
	if more {
		return arg + ", "
	}
	return arg
}

// sinkDecl is, for the generated file, the sink of supergraph ct (the
// frames of its caller point to it: superDecl): the function of the
// caller's package that counts, as ct counts, the paths that end inside
// the clones of other packages or shared ones, and view, the supergraph's
// array, if not "" (for shared clones: a count there costs no call):
//
//	func _pathcoverSink4(bl, ppp uint64) { _pathcoverA4[bl]++ }
//
//	var _pathcoverXS4 = struct{ Count func(uint64, uint64); A []uint64 }{_pathcoverSink4, nil}
//	var _pathcoverXS4 = struct{ Count func(uint64, uint64); A []uint64 }{_pathcoverSink4, _pathcoverA4[:]}
func sinkDecl(ct *counting, opt *buildspec.Spec, view string) []byte {
	src := fmt.Appendf(nil, "\nfunc %s%d(bl, ppp uint64) { %s }\n", sinkFunc, ct.fn, countStmt(&counting{fn: ct.fn, c: ct.c, ppp: ct.ppp, sharded: ct.sharded}, opt, pathIDs{bl: "bl", ppp: "ppp"}))
	array := "nil"
	if view != "" {
		array = view + "[:]"
	}
	return fmt.Appendf(src, "\nvar %s%d = %s{%s%d, %s}\n", sinkVar, ct.fn, sinkType, sinkFunc, ct.fn, array)
}
