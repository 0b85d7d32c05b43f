package instrument

// Shared clones (PPP thesis 3.4.5). A clone per site copies the callee once
// for every site that calls it, with that site's increments written in;
// go/parser's (*parser).next has 68 sites. A callee with at least
// Options.ShareBlocks blocks, called from the sites of several supergraphs
// of its package, has one clone instead, which those sites share:
//
//	func (p *parser) _pathcoverIPPPS12(_pathcoverXP *struct{ R [2]uint64; S *struct{ Count func(uint64, uint64); A []uint64 } }, _pathcoverXT *[6]uint64, a int) { ... }
//
// and each site's call passes its own table of increments,
//
//	p._pathcoverIPPPS12(&_pathcoverX, &_pathcoverT4_2, a)
//
// where the generated file has var _pathcoverT4_2 = [6]uint64{...}.
//
// The thesis passes a register per context and has every edge update all
// of them; here a site passes its table, so an edge does one update
// whatever the number of sites. That needs the code of every site's copy
// to be of the same kinds, only its increments differing: a supergraph
// places its numbering with the copies of such sites kept open
// (numbering.PlaceOpen), so that inside them an edge only adds to the
// register (or does nothing, which is adding 0), the end of a callee's
// loop round counts and the next round's start sets. Which sites are open
// is planned from the profile alone (planSuper), as every compile must
// place a supergraph alike; which of them share is decided here, in the
// caller's package's compile: a callee with one open site, or a site whose
// copy does not fit the others' (a cut for the path limit in one context
// and not another), keeps a clone of its own, which works with any
// placement.
//
// A shared clone counts a segment that ends inside it, at a callee's loop,
// in its frame's A, the supergraph's Ball-Larus array, or, for other
// counters, through its frame's Count (sinkDecl), as a clone in another
// package does; so every supergraph with an open site has a frame. (A call
// of Count at every round of a hot loop cost fastjson's Validate a tenth of
// its time: Go's calls keep no register across them.)

import (
	"cmp"
	"fmt"
	"go/ast"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

const (
	sharedClonePrefix = "_pathcoverIPPPS" // + the callee's index in the metadata
	sharedTable       = "_pathcoverT"     // + supergraph "_" site: a site's increments
	sharedTablePtr    = "_pathcoverXT"    // a shared clone's pointer to them
)

// A sharedClone is the clone of one callee that some open sites share.
type sharedClone struct {
	callee   *function
	name     string
	slots    []shareSlot
	words    int  // in each site's table
	ppp      bool // some site's supergraph has a PPP register
	contexts []shareContext
}

// A shareContext is a site that shares a clone, with the ops of its
// callee's copy in its supergraph.
type shareContext struct {
	s    *super
	site int
	ops  map[slotKey]numbering.Op
}

// A slotKey names an op of a callee's copy: the op-th op of the callee's
// edge (or of the site's call edge, numbering.CallEdge).
type slotKey struct {
	edge numbering.EdgeID
	op   int
}

// A slotKind is the statement that a shared clone makes of a slot.
type slotKind uint8

const (
	slotAdd    slotKind = iota + 1 // sharedAddStmt
	slotSet                        // sharedSetStmt
	slotCount                      // sharedCountStmt
	slotMasked                     // sharedMaskedStmt: a call edge that sets in some sites and adds in others
)

// A shareSlot is one op of the shared clone, at word of each site's table.
type shareSlot struct {
	key  slotKey
	kind slotKind
	word int
}

// shareClones decides which open sites of the package's supergraphs share
// their callee's clone, names the clones and the sites' tables, and
// returns the clones.
func (b *builder) shareClones() []*sharedClone {
	groups := make(map[*function][]shareContext)
	var callees []*function
	for _, u := range b.funcs {
		s := u.super
		if s == nil {
			continue
		}
		for i, site := range s.sites {
			if !site.open || site.callee == nil {
				continue
			}
			ops, ok := s.siteOps(i)
			if !ok {
				continue
			}
			if _, seen := groups[site.callee]; !seen {
				callees = append(callees, site.callee)
			}
			groups[site.callee] = append(groups[site.callee], shareContext{s, i, ops})
		}
	}
	var clones []*sharedClone
	for _, callee := range callees {
		sc := newSharedClone(callee, groups[callee])
		if sc == nil {
			continue
		}
		for _, c := range sc.contexts {
			site := &c.s.sites[c.site]
			site.clone = sc.name
			site.table = sharedTable + strconv.Itoa(c.s.ct.fn) + "_" + strconv.Itoa(c.site)
		}
		clones = append(clones, sc)
	}
	return clones
}

// siteOps returns the ops on the edges of site i's callee copy, and false
// if the return edge has any (it cannot hold code).
func (s *super) siteOps(i int) (map[slotKey]numbering.Op, bool) {
	ops := make(map[slotKey]numbering.Op)
	for id, o := range s.sg.Edges {
		if o.Site != i || !s.p.Reachable(s.sg.Graph.Edges[id].Src) {
			continue
		}
		for j, op := range s.p.EdgeOps(numbering.EdgeID(id)) {
			if o.Edge == numbering.ReturnEdge {
				return nil, false
			}
			ops[slotKey{o.Edge, j}] = op
		}
	}
	return ops, true
}

// shape returns the edges of a copy with ops ops that end a path (a cut:
// a count, then a set), and false if some op is not of the kinds an open
// copy has (numbering.PlaceOpen): at the call edge an add or a set, inside
// an add, or a cut's count and set.
func shape(ops map[slotKey]numbering.Op) (map[numbering.EdgeID]bool, bool) {
	cuts := make(map[numbering.EdgeID]bool)
	for k, op := range ops {
		switch {
		case k.edge == numbering.CallEdge:
			if k.op != 0 || (op.Kind != numbering.OpAdd && op.Kind != numbering.OpSet) {
				return nil, false
			}
		case k.op == 0 && op.Kind == numbering.OpAdd:
			if _, more := ops[slotKey{k.edge, 1}]; more {
				return nil, false
			}
		case k.op == 0 && op.Kind == numbering.OpCount:
			if next, ok := ops[slotKey{k.edge, 1}]; !ok || next.Kind != numbering.OpSet {
				return nil, false
			}
			cuts[k.edge] = true
		case k.op == 1 && op.Kind == numbering.OpSet:
			// the cut's start, checked with its count
		default:
			return nil, false
		}
	}
	return cuts, true
}

// newSharedClone returns the clone that the contexts of callee share: those
// whose copies have the first fitting one's shape. It returns nil if fewer
// than two do.
func newSharedClone(callee *function, contexts []shareContext) *sharedClone {
	var fit []shareContext
	var cuts map[numbering.EdgeID]bool
	for _, c := range contexts {
		cs, ok := shape(c.ops)
		if !ok || (fit != nil && !maps.Equal(cs, cuts)) {
			continue
		}
		cuts = cs
		fit = append(fit, c)
	}
	if len(fit) < 2 {
		return nil
	}
	sc := &sharedClone{callee: callee, name: sharedClonePrefix + strconv.Itoa(callee.meta), contexts: fit}
	kinds := make(map[slotKey]slotKind)
	sets := 0 // sites whose call edge sets the register
	for _, c := range fit {
		sc.ppp = sc.ppp || c.s.ct.ppp != nil
		for k, op := range c.ops {
			switch {
			case k.edge == numbering.CallEdge && op.Kind == numbering.OpSet:
				sets++
			case op.Kind == numbering.OpAdd:
				kinds[k] = slotAdd
			case op.Kind == numbering.OpCount:
				kinds[k] = slotCount
			case op.Kind == numbering.OpSet:
				kinds[k] = slotSet
			}
		}
	}
	call := slotKey{numbering.CallEdge, 0}
	switch {
	case sets == len(fit):
		kinds[call] = slotSet
	case sets > 0:
		kinds[call] = slotMasked
	}
	keys := slices.SortedFunc(maps.Keys(kinds), func(a, b slotKey) int {
		return cmp.Or(cmp.Compare(a.edge, b.edge), cmp.Compare(a.op, b.op))
	})
	for _, k := range keys {
		sl := shareSlot{key: k, kind: kinds[k], word: sc.words}
		sc.words += sc.valueWords()
		if sl.kind == slotMasked {
			sc.words++
		}
		sc.slots = append(sc.slots, sl)
	}
	return sc
}

// valueWords is the number of words of a value in the tables: the
// Ball-Larus increment, and the PPP one if some site has a PPP register.
func (sc *sharedClone) valueWords() int {
	if sc.ppp {
		return 2
	}
	return 1
}

// table returns context c's table: at each slot, its mask (slotMasked:
// all ones to add, 0 to set) and its increments; a slot that c's copy has
// no op for adds 0.
func (sc *sharedClone) table(c shareContext) []uint64 {
	t := make([]uint64, sc.words)
	for _, sl := range sc.slots {
		w := sl.word
		op, ok := c.ops[sl.key]
		if sl.kind == slotMasked {
			t[w] = ^uint64(0)
			if ok && op.Kind == numbering.OpSet {
				t[w] = 0
			}
			w++
		}
		if !ok {
			continue
		}
		t[w] = op.Inc
		if sc.ppp && c.s.ct.ppp != nil {
			t[w+1] = c.s.ct.ppp.Inc(op.Edge)
		}
	}
	return t
}

// tableDecls are the sites' tables, for the generated file:
//
//	var _pathcoverT4_2 = [3]uint64{5, 0, 18446744073709551615}
func (sc *sharedClone) tableDecls() []byte {
	var b []byte
	for _, c := range sc.contexts {
		b = fmt.Appendf(b, "\nvar %s = [%d]uint64{", c.s.sites[c.site].table, sc.words)
		for i, v := range sc.table(c) {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendUint(b, v, 10)
		}
		b = append(b, "}\n"...)
	}
	return b
}

// source returns the shared clone's declaration: the callee's, renamed, with
// the frame's pointer and the table's as first parameters, its own paths'
// code (and its own supergraph's) as in the callee, and the slots' code on
// its edges.
func (sc *sharedClone) source(in *Input, all []*function, opt *buildspec.Spec) ([]byte, error) {
	callee := sc.callee
	decl := callee.Node.(*ast.FuncDecl)
	e := newEditor(in.Fset, in.Files[callee.file], in.Src[callee.file])
	for _, v := range all {
		if v.Node.Pos() < callee.Node.Pos() || v.Node.End() > callee.Node.End() {
			continue // not the callee or a function literal in it
		}
		if err := v.emit(e, opt, true); err != nil {
			return nil, err
		}
	}
	code := make(map[numbering.EdgeID][]string)
	for _, sl := range sc.slots {
		code[sl.key.edge] = append(code[sl.key.edge], sc.slotStmt(sl, opt.Atomic))
	}
	for _, edge := range slices.Sorted(maps.Keys(code)) {
		site, order := callee.EntrySite(), 0
		if edge != numbering.CallEdge {
			site = callee.Edges[edge].Site
			order = callee.Numbering.TopoIndex(callee.Graph.Edges[edge].Src)
		}
		c := strings.Join(code[edge], "; ") + "; "
		if !e.insertAfterResults(site, order, c) {
			e.insert(site, order, c)
		}
	}
	return cloneDecl(e, decl, sc.name, sharedParams(sc.words, decl.Type.Params.NumFields() > 0)), nil
}

// slotStmt is the statement of slot sl, counting atomically if atomic.
func (sc *sharedClone) slotStmt(sl shareSlot, atomic bool) string {
	switch sl.kind {
	case slotAdd:
		return sharedAddStmt(sl.word, sc.ppp)
	case slotSet:
		return sharedSetStmt(sl.word, sc.ppp)
	case slotCount:
		return sharedCountStmt(sl.word, sc.ppp, atomic)
	case slotMasked:
		return sharedMaskedStmt(sl.word, sc.ppp)
	}
	panic(fmt.Sprintf("slot kind %d", sl.kind))
}

// sharedWord is word w of the site's table: _pathcoverXT[3]
func sharedWord(w int) string { return sharedTablePtr + "[" + strconv.Itoa(w) + "]" }

// sharedAddStmt adds the site's increments at word w to the registers (the
// PPP one if ppp):
//
//	_pathcoverXP.R[0] += _pathcoverXT[3]; _pathcoverXP.R[1] += _pathcoverXT[4]
func sharedAddStmt(w int, ppp bool) string {
	bl, preg := cloneRegisters(true)
	s := bl + " += " + sharedWord(w)
	if ppp {
		s += "; " + preg + " += " + sharedWord(w+1)
	}
	return s
}

// sharedSetStmt sets the registers to the site's values at word w, at the
// start of a callee's loop round (or at the call, where every site sets):
//
//	_pathcoverXP.R[0] = _pathcoverXT[3]; _pathcoverXP.R[1] = _pathcoverXT[4]
func sharedSetStmt(w int, ppp bool) string {
	bl, preg := cloneRegisters(true)
	s := bl + " = " + sharedWord(w)
	if ppp {
		s += "; " + preg + " = " + sharedWord(w+1)
	}
	return s
}

// sharedCountStmt counts the segment that ends at the end of a callee's
// loop round, the site's increments at word w added: in the frame's array
// if the site's supergraph counts plainly in one (sharedArray), with no
// call, or through the frame's Count:
//
//	if _pathcoverXP.S.A != nil { _pathcoverXP.S.A[_pathcoverXP.R[0]+_pathcoverXT[3]]++ } else { _pathcoverXP.S.Count(_pathcoverXP.R[0]+_pathcoverXT[3], _pathcoverXP.R[1]+_pathcoverXT[4]) }
func sharedCountStmt(w int, ppp, atomic bool) string {
	bl, preg := cloneRegisters(true)
	id := bl + "+" + sharedWord(w)
	p := "0"
	if ppp {
		p = preg + "+" + sharedWord(w+1)
	}
	return fmt.Sprintf("if %s.S.A != nil { %s } else { %s.S.Count(%s, %s) }", superRegPtr, incStmt(superRegPtr+".S.A["+id+"]", atomic), superRegPtr, id, p)
}

// sharedArray returns the view of s's Ball-Larus array, for its frame's A,
// if some site of s shares a clone and s counts plainly in an array (not
// sharded); "" otherwise.
func (s *super) sharedArray() string {
	if s.ct.c.Kind != profile.CounterArray || s.ct.sharded {
		return ""
	}
	for _, site := range s.sites {
		if site.table != "" {
			return s.ct.view()
		}
	}
	return ""
}

// sharedMaskedStmt is a call edge's op where some sites set the registers
// and others add to them: the mask at word w is 0 to set, all ones to add,
// and the values follow:
//
//	_pathcoverXP.R[0] = _pathcoverXP.R[0]&_pathcoverXT[3] + _pathcoverXT[4]; _pathcoverXP.R[1] = _pathcoverXP.R[1]&_pathcoverXT[3] + _pathcoverXT[5]
func sharedMaskedStmt(w int, ppp bool) string {
	bl, preg := cloneRegisters(true)
	s := bl + " = " + bl + "&" + sharedWord(w) + " + " + sharedWord(w+1)
	if ppp {
		s += "; " + preg + " = " + preg + "&" + sharedWord(w) + " + " + sharedWord(w+2)
	}
	return s
}

// sharedParams are the parameters a shared clone takes first, followed by
// a comma if the callee has parameters:
//
//	_pathcoverXP *struct{ R [2]uint64; S *struct{ Count func(uint64, uint64); A []uint64 } }, _pathcoverXT *[6]uint64,
func sharedParams(words int, more bool) string {
	p := fmt.Sprintf("%s *%s, %s *[%d]uint64", superRegPtr, frameType, sharedTablePtr, words)
	if more {
		p += ", "
	}
	return p
}

// sharedArg is the argument a site that shares its callee's clone passes
// it first, followed by a comma if the call has arguments:
//
//	&_pathcoverX, &_pathcoverT4_2,
func sharedArg(table string, more bool) string {
	return cloneArg("&"+superReg+", &"+table, more)
}
