package slice

import (
	"slices"

	"github.com/pathcover/pathcover/internal/static/control"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// Potential dependences: what a relevant slice adds to a dynamic one.
//
// A dynamic slice follows what ran. A bug that keeps a statement from
// running is out of its reach: in
//
//	n := 0
//	for ; i < len(s) && s[i] != '.'; i++ {
//		if s[i] >= '0' && s[i] < '9' {   // '9' is not a digit here
//			n = n*10 + int(s[i]-'0')
//		}
//	}
//	return n, s[i:]
//
// the n that return reads on "9" comes from n := 0, and the condition
// that is wrong decided only that the assignment did not run, so the
// dynamic slice of the return meets it late if at all. A use potentially
// depends on a predicate execution (Agrawal, Horgan, Krauser and London,
// "Incremental regression testing", 1993; the relevant slice) if the
// predicate ran after the definition that reached the use, and had it
// gone another way a different definition could have reached it. The
// slice then holds the condition right under the value it did not
// change.
//
// Here, statically, a use of v in block B potentially depends on
// predicate block p (a block of statements the block of a definition of
// v is control dependent on, directly or through other predicates: p
// decides whether that definition runs) if B can be reached from a block
// that defines v; dynamically, on p's last execution in the call if that
// came after v's last definition. That is wider than the definition: it
// does not ask that the branch taken at p's last execution be the one
// away from the definition (when it was not, the definition's own
// predicate under p kept it from running, and p controls that one); nor
// that the definition p decides be one that reaches B. A predicate whose
// branches both lead on to the same definitions (a check in a loop's
// body that sets something else) decides none of them and is left out.
// Each predicate is taken at its last execution since the definition,
// not at every one: a loop of a million rounds that never defines v
// gives its condition's last round, not a million.
// Only locals are followed (the symbolic variables of defuse), as the
// replay's definitions are.

// A potCand is a predicate block a statement's use may potentially depend
// on: Use indexes the statement's Uses.
type potCand struct {
	use   int32
	block numbering.BlockID
}

// maxPotentialWork bounds the static search of a function's potential
// dependences (variables times blocks and edges): past it, as in
// generated functions of tens of thousands of blocks and variables, the
// function's uses get none, and its slices are dynamic slices.
const maxPotentialWork = 1 << 26

// potentialsOf returns the predicate blocks the uses of statement si of
// f may potentially depend on, ordered by use.
func (f *Func) potentialsOf(si int32) []potCand {
	f.potOnce.Do(func() { f.pot = potentialCands(f.Func, f.Deps, f.control) })
	if int(si) >= len(f.pot) || si < 0 {
		return nil
	}
	return f.pot[si]
}

// potentialCands works out Func.potentialsOf for function pf with
// dependences deps and control dependences cd.
func potentialCands(pf *profile.Func, deps *profile.Deps, cd *control.Deps) [][]potCand {
	nb := len(deps.Blocks)
	if pf == nil || deps == nil || cd == nil || nb == 0 || len(deps.Vars)*(nb+len(pf.Edges)) > maxPotentialWork {
		return nil
	}
	succ := make([][]int32, nb)
	for _, e := range pf.Edges {
		if e.Src >= 0 && int(e.Src) < nb && e.Dst >= 0 && int(e.Dst) < nb && !slices.Contains(succ[e.Src], e.Dst) {
			succ[e.Src] = append(succ[e.Src], e.Dst)
		}
	}
	// The predicates each block is control dependent on, directly or
	// through other predicates: those that decide whether it runs.
	deciders := make([][]int32, nb)
	decided := make([]bool, nb)
	decide := func(b int32) []int32 {
		if decided[b] {
			return deciders[b]
		}
		decided[b] = true
		var out []int32
		stack := []int32{b}
		seen := make(map[int32]bool) // b too, if a loop's header decides it
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, e := range cd.Of(numbering.BlockID(x)) {
				if int(e) >= len(pf.Edges) {
					continue
				}
				p := pf.Edges[e].Src
				if p < 0 || int(p) >= nb || seen[p] {
					continue
				}
				seen[p] = true
				stack = append(stack, p)
				if len(deps.Blocks[p]) > 0 {
					out = append(out, p)
				}
			}
		}
		slices.Sort(out)
		deciders[b] = out
		return out
	}
	// The blocks that define each variable (the entry's definitions of
	// the parameters are no block's).
	defBlocks := make([][]int32, len(deps.Vars))
	blockOf := make([]int32, len(deps.Stmts))
	for i := range blockOf {
		blockOf[i] = -1
	}
	for b, stmts := range deps.Blocks {
		for _, si := range stmts {
			if si <= 0 || int(si) >= len(deps.Stmts) {
				continue
			}
			blockOf[si] = int32(b)
			for _, v := range deps.Stmts[si].Defs {
				if v >= 0 && int(v) < len(deps.Vars) && !slices.Contains(defBlocks[v], int32(b)) {
					defBlocks[v] = append(defBlocks[v], int32(b))
				}
			}
		}
	}
	// For each variable used, the predicates that decide whether one of
	// its definitions runs, and the blocks its definitions reach.
	type varCands struct {
		preds   []int32
		reached []bool
	}
	byVar := make(map[int32]*varCands)
	cands := func(v int32) *varCands {
		if vc, ok := byVar[v]; ok {
			return vc
		}
		vc := &varCands{}
		byVar[v] = vc
		// Those that decide a definition directly first, then those that
		// decide them: the slice's walk meets them in this order, and the
		// chain lists the condition that guards the definition first.
		for _, d := range defBlocks[v] {
			for _, e := range cd.Of(numbering.BlockID(d)) {
				if int(e) < len(pf.Edges) {
					if p := pf.Edges[e].Src; p >= 0 && int(p) < nb && len(deps.Blocks[p]) > 0 && !slices.Contains(vc.preds, p) {
						vc.preds = append(vc.preds, p)
					}
				}
			}
		}
		for _, d := range defBlocks[v] {
			for _, p := range decide(d) {
				if !slices.Contains(vc.preds, p) {
					vc.preds = append(vc.preds, p)
				}
			}
		}
		if len(vc.preds) == 0 {
			return vc
		}
		vc.reached = make([]bool, nb)
		stack := slices.Clone(defBlocks[v])
		for _, b := range stack {
			vc.reached[b] = true
		}
		for len(stack) > 0 {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, c := range succ[b] {
				if !vc.reached[c] {
					vc.reached[c] = true
					stack = append(stack, c)
				}
			}
		}
		return vc
	}
	out := make([][]potCand, len(deps.Stmts))
	for si := range deps.Stmts {
		b := blockOf[si]
		if b < 0 {
			continue
		}
		for k, v := range deps.Stmts[si].Uses {
			if v < 0 || int(v) >= len(deps.Vars) {
				continue
			}
			vc := cands(v)
			if len(vc.preds) == 0 || !vc.reached[b] {
				continue
			}
			for _, p := range vc.preds {
				out[si] = append(out[si], potCand{use: int32(k), block: numbering.BlockID(p)})
			}
		}
	}
	return out
}

// lastNodes is what a replay knows of the call so far: the node that last
// defined each variable, and the last node of each block (-1 for none).
// A replay's own type, not funcs, so that the replay allocates nothing.
type lastNodes interface {
	lastDefOf(v int32) int32
	lastBlockOf(b numbering.BlockID) int32
}

// appendPotential appends to out the potential dependences of a use of
// statement si, given each variable's last definition and each block's
// last node in the call (-1 for none), as Node.Potential holds them:
// each use's predicate nodes, each use's list ended by -1, none after the
// last that has some.
func appendPotential[L lastNodes](cands []potCand, uses []int32, last L, out []int32) []int32 {
	start := len(out)
	use := int32(0)
	for _, c := range cands {
		n := last.lastBlockOf(c.block)
		if n < 0 || n <= last.lastDefOf(uses[c.use]) {
			continue
		}
		for ; use < c.use; use++ {
			out = append(out, -1)
		}
		out = append(out, n)
	}
	if len(out) > start {
		out = append(out, -1)
	}
	return out
}
