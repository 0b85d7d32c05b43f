package infeasible

// The search: which sets of edges contradict.

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A Contradiction is a set of a function's edges that no execution of one
// of its paths takes together: every path through all of them is
// infeasible.
type Contradiction struct {
	// Edges are graph edges, in the order a path takes them.
	Edges []numbering.EdgeID
	// Why says, for each of Edges that has a condition, what taking it
	// says of the function's values, in the source's terms; together they
	// cannot hold.
	Why string
}

// Limits on the work for one function: past them the search stops, and
// what it found so far stands (each contradiction is proved on its own).
const (
	maxBlocks    = 4096  // larger functions are not analysed
	maxSolves    = 20000 // solver calls per function
	maxTripleSet = 48    // facts sharing terms, to look for triples among
	maxViews     = 6     // loops entered, per edge, to take φ-nodes from
)

// A fact is what taking edge, on a path that also takes guards, says.
// The edge is a graph edge, or the DAG's start edge of a range loop's head
// (a path that starts where the loop goes round again: a round ran).
type fact struct {
	edge   numbering.EdgeID
	guards []numbering.EdgeID
	f      *formula
	conj   [][]atom
	terms  []term // the non-constant terms it speaks of
	// because says why the formula holds, for a fact that is not a
	// branch's outcome.
	because string
}

// Analyze returns the contradictions among the edges of f, whose SSA form
// (built in debug mode, see BuildPackage) is fn. Nothing it returns is
// wrong: a path through all the edges of a contradiction cannot run
// (doc.go says why). It finds what correlated branches on the same
// values show, alone, in pairs and in threes.
func Analyze(f *funcgraph.Numbered, fn *ssa.Function, info *types.Info) []Contradiction {
	if f.Numbering == nil || fn == nil || len(fn.Blocks) == 0 || len(f.Blocks) > maxBlocks {
		return nil
	}
	a := &analysis{f: f, t: newTerms(fn), info: info}
	a.c = newConditions(a.t, info, f.Body)
	a.reach = reachability(f.Numbering)
	a.loops = a.findLoops(fn)
	a.facts()
	return a.search()
}

type analysis struct {
	f     *funcgraph.Numbered
	t     *terms
	c     *conditions
	info  *types.Info
	reach [][]uint64 // per block, the blocks its real DAG edges reach
	loops []loop
	all   []*fact
	// solves counts solver calls against maxSolves.
	solves int
}

// A loop is a for or range statement entered through entering, its one
// edge in from outside. On a path that takes that edge, the loop runs its
// first round: a range loop's first test says whether it has any element,
// and the φ-nodes of header, the SSA loop header (nil if it was not
// found), hold the values from before the loop.
type loop struct {
	region   *funcgraph.Region
	header   *ssa.BasicBlock
	entering numbering.EdgeID
}

// findLoops finds the function's loops that have one edge in, and maps
// them to SSA loop headers: a for loop's by its condition, a range loop's
// by its key, each the block that computes it, when that is a loop header
// with one edge from outside. A for loop whose header is not found is
// left out (its first round says nothing more); a range loop is kept.
func (a *analysis) findLoops(fn *ssa.Function) []loop {
	var loops []loop
	for i := range a.f.Regions {
		r := &a.f.Regions[i]
		var probe ast.Expr
		switch s := r.Stmt.(type) {
		case *ast.ForStmt:
			probe = s.Cond
		case *ast.RangeStmt:
			probe = s.Key
		default:
			continue
		}
		var entering []numbering.EdgeID
		for id, e := range a.f.Graph.Edges {
			if e.Dst == r.Start && a.f.Edges[id].Kind != funcgraph.EdgeLoop {
				entering = append(entering, numbering.EdgeID(id))
			}
		}
		if len(entering) != 1 {
			continue
		}
		var header *ssa.BasicBlock
		if probe != nil {
			ast.Inspect(probe, func(n ast.Node) bool {
				e, ok := n.(ast.Expr)
				if !ok || header != nil {
					return header == nil
				}
				if v, ok := a.t.exprs[ast.Unparen(e)].(ssa.Instruction); ok && v.Block() != nil && outsideEdge(v.Block()) >= 0 && isHeader(v.Block()) {
					header = v.Block()
				}
				return header == nil
			})
		}
		if _, isRange := r.Stmt.(*ast.RangeStmt); header != nil || isRange {
			loops = append(loops, loop{region: r, header: header, entering: entering[0]})
		}
		if len(loops) == 64 {
			break
		}
	}
	return loops
}

func isHeader(b *ssa.BasicBlock) bool {
	for _, p := range b.Preds {
		if b.Dominates(p) {
			return true
		}
	}
	return false
}

// facts lists what each branch edge says: with no loop entered, and, for
// the loops around it, with each entered on the path and with all.
func (a *analysis) facts() {
	headers := make([]*ssa.BasicBlock, len(a.loops))
	for i, l := range a.loops {
		headers[i] = l.header
	}
	for id, e := range a.f.Edges {
		eid := numbering.EdgeID(id)
		if !a.f.Numbering.InDAG(eid) || a.f.Numbering.Edge(eid).Kind != numbering.RealEdge {
			continue
		}
		src := a.f.Graph.Edges[id].Src
		// The loops a path can enter before this edge: on such a path,
		// their headers' φ-nodes still hold what flowed in (the path
		// cannot go round), so the view is sound beyond the loop too.
		var around []int
		for i, l := range a.loops {
			if from := a.f.Numbering.Edge(l.entering).Dst; from == src || reaches(a.reach, from, src) {
				around = append(around, i)
			}
		}
		if len(around) > maxViews {
			around = around[len(around)-maxViews:]
		}
		views := []uint64{0}
		for _, i := range around {
			views = append(views, 1<<i)
		}
		if len(around) > 1 {
			var all uint64
			for _, i := range around {
				all |= 1 << i
			}
			views = append(views, all)
		}
		var plain string
		for k, set := range views {
			vw := view{headers: headers, set: set}
			f := a.edgeFormula(e, src, vw, set)
			if f == nil || f.op == fTrue {
				continue
			}
			s := f.String(a.t)
			if k == 0 {
				plain = s
			} else if s == plain {
				continue // entering the loop adds nothing
			}
			fa := &fact{edge: eid, f: f}
			for i := range a.loops {
				if set&(1<<i) != 0 {
					fa.guards = append(fa.guards, a.loops[i].entering)
				}
			}
			a.addFact(fa)
		}
	}
	a.roundsRan()
}

// roundsRan adds, for each range loop over a length (a slice, string,
// array or integer), what a path that starts inside the loop says: the
// loop had an element. A path starts in the loop's body or post block
// only after the loop took an element (no jump enters a block from
// outside it); at the loop's head, only if every cut edge into the head
// comes from inside the loop (its back edge, a continue), not a cut made
// elsewhere to fit the numbering in 63 bits. The function's entry starts
// the paths that begin with the call, so it is never one.
func (a *analysis) roundsRan() {
	n := a.f.Numbering
	for _, l := range a.loops {
		rs, ok := l.region.Stmt.(*ast.RangeStmt)
		if !ok {
			continue
		}
		f := a.c.rangeFirst(rs, true, view{})
		if f.op == fTrue {
			continue
		}
		for b := range numbering.BlockID(n.Graph().NumBlocks) {
			if b == n.Graph().Entry || n.Start(b) == numbering.NoEdge || !l.region.Contains(b) {
				continue
			}
			if b == l.region.Start && !a.roundsOnly(l) {
				continue
			}
			a.addFact(&fact{edge: n.Start(b), f: f, because: "a round of the loop ran"})
		}
	}
}

// roundsOnly reports whether every cut edge into the head of loop l comes
// from inside the loop.
func (a *analysis) roundsOnly(l loop) bool {
	for id, e := range a.f.Graph.Edges {
		if _, cut := a.f.Numbering.CutKind(numbering.EdgeID(id)); cut && e.Dst == l.region.Start && !l.region.Contains(e.Src) {
			return false
		}
	}
	return true
}

// addFact adds a fact, with its formula in disjunctive normal form and
// the terms it speaks of, unless the form is too large.
func (a *analysis) addFact(fa *fact) {
	conj, ok := fa.f.dnf()
	if !ok {
		return
	}
	fa.conj = conj
	seen := make(map[term]bool)
	fa.f.terms(func(x term) {
		if !seen[x] && a.t.info[x].value == nil && !a.t.info[x].isNil {
			seen[x] = true
			fa.terms = append(fa.terms, x)
		}
	})
	a.all = append(a.all, fa)
}

// edgeFormula returns what taking edge e (from block src) says in view vw
// (set: the loops entered), or nil if it is not a branch outcome.
func (a *analysis) edgeFormula(e funcgraph.Edge, src numbering.BlockID, vw view, set uint64) *formula {
	switch s := e.Node.(type) {
	case *ast.IfStmt:
		switch e.Kind {
		case funcgraph.EdgeTrue:
			return a.c.cond(s.Cond, vw)
		case funcgraph.EdgeFalse:
			return a.c.cond(s.Cond, vw).not()
		}
	case *ast.ForStmt:
		if s.Cond == nil {
			return nil
		}
		switch e.Kind {
		case funcgraph.EdgeTrue:
			return a.c.cond(s.Cond, vw)
		case funcgraph.EdgeFalse:
			return a.c.cond(s.Cond, vw).not()
		}
	case *ast.RangeStmt:
		if e.Kind != funcgraph.EdgeRangeNext && e.Kind != funcgraph.EdgeRangeDone {
			return nil
		}
		// Only the first round's test says something: the loop's own
		// region must be entered in this view.
		for i, l := range a.loops {
			if l.region.Stmt == s && set&(1<<i) != 0 {
				return a.c.rangeFirst(s, e.Kind == funcgraph.EdgeRangeNext, vw)
			}
		}
		if set == 0 {
			// A range loop whose SSA header was not found: its first
			// round's test, guarded by its entering edge, as a view of
			// its own (rangeGuard).
			return nil
		}
	case *ast.CaseClause:
		switch e.Kind {
		case funcgraph.EdgeCase:
			return a.c.clause(s, vw)
		case funcgraph.EdgeNextCase:
			return a.c.clause(s, vw).not()
		}
	case *ast.SwitchStmt, *ast.TypeSwitchStmt:
		if e.Kind != funcgraph.EdgeNoMatch {
			return nil
		}
		var body *ast.BlockStmt
		if sw, ok := s.(*ast.SwitchStmt); ok {
			body = sw.Body
		} else {
			body = s.(*ast.TypeSwitchStmt).Body
		}
		var none []*formula
		for _, cc := range body.List {
			if cc := cc.(*ast.CaseClause); cc.List != nil {
				none = append(none, a.c.clause(cc, vw).not())
			}
		}
		return and(none...)
	}
	return nil
}

// search finds the contradictions: facts that cannot hold alone, then
// pairs, then threes of facts that share terms, on one path.
func (a *analysis) search() []Contradiction {
	var found []Contradiction
	var cores [][]numbering.EdgeID
	contains := func(set []numbering.EdgeID) bool {
		for _, c := range cores {
			if subset(c, set) {
				return true
			}
		}
		return false
	}
	try := func(fs ...*fact) {
		if a.solves >= maxSolves || len(found) >= profile.MaxContradictions {
			return
		}
		set := a.edgeSet(fs)
		if set == nil || contains(set) {
			return
		}
		a.solves++
		if !a.unsat(fs) {
			return
		}
		cores = append(cores, set)
		found = append(found, Contradiction{Edges: set, Why: a.why(fs)})
	}
	for _, f := range a.all {
		try(f)
	}
	// Facts by the terms they speak of.
	byTerm := make(map[term][]int)
	for i, f := range a.all {
		for _, x := range f.terms {
			byTerm[x] = append(byTerm[x], i)
		}
	}
	related := make(map[[2]int]bool)
	for _, fs := range byTerm {
		for i, x := range fs {
			for _, y := range fs[i+1:] {
				if x != y {
					related[[2]int{min(x, y), max(x, y)}] = true
				}
			}
		}
	}
	pairs := make([][2]int, 0, len(related))
	for p := range related {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(p, q [2]int) int {
		if p[0] != q[0] {
			return p[0] - q[0]
		}
		return p[1] - q[1]
	})
	for _, p := range pairs {
		try(a.all[p[0]], a.all[p[1]])
	}
	// Threes: a pair and a third fact related to either, among the facts
	// of term groups small enough.
	for _, p := range pairs {
		for k := range a.all {
			if k <= p[1] || k == p[0] {
				continue
			}
			r0 := related[[2]int{min(p[0], k), max(p[0], k)}]
			r1 := related[[2]int{min(p[1], k), max(p[1], k)}]
			if !r0 && !r1 {
				continue
			}
			if len(byTerm) > 0 && len(pairs) > maxTripleSet*maxTripleSet {
				break
			}
			try(a.all[p[0]], a.all[p[1]], a.all[k])
		}
	}
	return found
}

// unsat reports whether the facts cannot hold together.
func (a *analysis) unsat(fs []*fact) bool {
	conj := [][]atom{nil}
	for _, f := range fs {
		if len(conj)*len(f.conj) > maxConjuncts {
			return false
		}
		var next [][]atom
		for _, c := range conj {
			for _, d := range f.conj {
				next = append(next, append(append([]atom(nil), c...), d...))
			}
		}
		conj = next
	}
	for _, c := range conj {
		if !unsat(a.t, c) {
			return false
		}
	}
	return true
}

// edgeSet returns the edges of facts fs and their guards, in the order a
// path takes them, or nil if no path of the numbering takes them all (or
// two facts of one edge, or an edge twice in another way, are given).
func (a *analysis) edgeSet(fs []*fact) []numbering.EdgeID {
	var set []numbering.EdgeID
	edges := make(map[numbering.EdgeID]bool)
	for _, f := range fs {
		if edges[f.edge] {
			return nil // two views of one edge
		}
		edges[f.edge] = true
	}
	for _, f := range fs {
		set = append(set, f.edge)
		set = append(set, f.guards...)
	}
	slices.Sort(set)
	set = slices.Compact(set)
	n := a.f.Numbering
	slices.SortFunc(set, func(x, y numbering.EdgeID) int {
		return n.TopoIndex(n.Edge(x).Src) - n.TopoIndex(n.Edge(y).Src)
	})
	for i := 1; i < len(set); i++ {
		if n.Edge(set[i]).Kind == numbering.StartEdge {
			return nil // a path starts once
		}
		from, to := n.Edge(set[i-1]).Dst, n.Edge(set[i]).Src
		if from != to && !reaches(a.reach, from, to) {
			return nil
		}
	}
	return set
}

// reachability returns, per block, the set of blocks that the numbering's
// real DAG edges lead to from it.
func reachability(n *numbering.Numbering) [][]uint64 {
	nb := n.Graph().NumBlocks
	words := (nb + 63) / 64
	reach := make([][]uint64, nb)
	topo := n.Topo()
	for i := len(topo) - 1; i >= 0; i-- {
		v := topo[i]
		if int(v) >= nb {
			continue // the root
		}
		r := make([]uint64, words)
		for _, e := range n.Out(v) {
			d := n.Edge(e)
			if d.Kind != numbering.RealEdge {
				continue
			}
			r[d.Dst/64] |= 1 << (d.Dst % 64)
			if rd := reach[d.Dst]; rd != nil {
				for w := range r {
					r[w] |= rd[w]
				}
			}
		}
		reach[v] = r
	}
	return reach
}

func reaches(reach [][]uint64, from, to numbering.BlockID) bool {
	r := reach[from]
	return r != nil && r[to/64]&(1<<(to%64)) != 0
}

func subset(small, big []numbering.EdgeID) bool {
	for _, e := range small {
		if !slices.Contains(big, e) {
			return false
		}
	}
	return true
}

// why says what each fact says, in the order of the path.
func (a *analysis) why(fs []*fact) string {
	n := a.f.Numbering
	fs = slices.Clone(fs)
	slices.SortFunc(fs, func(x, y *fact) int {
		return n.TopoIndex(n.Edge(x.edge).Src) - n.TopoIndex(n.Edge(y.edge).Src)
	})
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.f.String(a.t)
		if f.because != "" {
			parts[i] = f.because + ": " + parts[i]
		}
	}
	return strings.Join(parts, "; ")
}
