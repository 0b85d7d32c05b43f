package control

import (
	"fmt"
	"slices"

	"github.com/pathcover/pathcover/numbering"
)

// PostDom is the post-dominator tree of a graph.
type PostDom struct {
	idom  []numbering.BlockID // immediate post-dominator; -1 for none
	order []int               // each block's position in the reverse graph's postorder; -1 if unreached
	exit  numbering.BlockID
}

// PostDominators computes the post-dominator tree of g.
func PostDominators(g *numbering.Graph) (*PostDom, error) {
	n := g.NumBlocks
	if g.Entry < 0 || int(g.Entry) >= n || g.Exit < 0 || int(g.Exit) >= n {
		return nil, fmt.Errorf("entry %d or exit %d not among %d blocks", g.Entry, g.Exit, n)
	}
	succ := make([][]numbering.BlockID, n)
	pred := make([][]numbering.BlockID, n) // in the forward graph
	for id, e := range g.Edges {
		if e.Src < 0 || int(e.Src) >= n || e.Dst < 0 || int(e.Dst) >= n {
			return nil, fmt.Errorf("edge %d: %d→%d outside %d blocks", id, e.Src, e.Dst, n)
		}
		if e.Src == g.Exit {
			return nil, fmt.Errorf("edge %d leaves the exit", id)
		}
		succ[e.Src] = append(succ[e.Src], e.Dst)
		pred[e.Dst] = append(pred[e.Dst], e.Src)
	}
	// Blocks that cannot reach the exit get a virtual edge to it.
	reaches := make([]bool, n)
	stack := []numbering.BlockID{g.Exit}
	reaches[g.Exit] = true
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range pred[b] {
			if !reaches[p] {
				reaches[p] = true
				stack = append(stack, p)
			}
		}
	}
	for b := range n {
		if !reaches[b] {
			succ[b] = append(succ[b], g.Exit)
			pred[g.Exit] = append(pred[g.Exit], numbering.BlockID(b))
		}
	}
	// Postorder of the reverse graph from the exit: a block's "successors"
	// there are its predecessors here.
	p := &PostDom{idom: make([]numbering.BlockID, n), order: make([]int, n), exit: g.Exit}
	for i := range p.order {
		p.order[i] = -1
		p.idom[i] = -1
	}
	var post []numbering.BlockID
	visited := make([]bool, n)
	type item struct {
		b numbering.BlockID
		i int
	}
	walk := []item{{g.Exit, 0}}
	visited[g.Exit] = true
	for len(walk) > 0 {
		top := &walk[len(walk)-1]
		if top.i < len(pred[top.b]) {
			next := pred[top.b][top.i]
			top.i++
			if !visited[next] {
				visited[next] = true
				walk = append(walk, item{next, 0})
			}
			continue
		}
		p.order[top.b] = len(post)
		post = append(post, top.b)
		walk = walk[:len(walk)-1]
	}
	p.idom[g.Exit] = g.Exit
	for changed := true; changed; {
		changed = false
		for i := len(post) - 1; i >= 0; i-- {
			b := post[i]
			if b == g.Exit {
				continue
			}
			newIdom := numbering.BlockID(-1)
			for _, s := range succ[b] {
				if p.idom[s] < 0 {
					continue
				}
				if newIdom < 0 {
					newIdom = s
				} else {
					newIdom = p.intersect(s, newIdom)
				}
			}
			if newIdom != p.idom[b] {
				p.idom[b] = newIdom
				changed = true
			}
		}
	}
	p.idom[g.Exit] = -1
	return p, nil
}

func (p *PostDom) intersect(a, b numbering.BlockID) numbering.BlockID {
	for a != b {
		for p.order[a] < p.order[b] {
			a = p.idom[a]
		}
		for p.order[b] < p.order[a] {
			b = p.idom[b]
		}
	}
	return a
}

// Idom returns b's immediate post-dominator, or -1 for the exit.
func (p *PostDom) Idom(b numbering.BlockID) numbering.BlockID { return p.idom[b] }

// Dominates reports whether a post-dominates b (every block post-dominates
// itself).
func (p *PostDom) Dominates(a, b numbering.BlockID) bool {
	for b >= 0 {
		if a == b {
			return true
		}
		b = p.idom[b]
	}
	return false
}

// Deps lists, for each block, the edges it is control dependent on.
type Deps struct {
	of [][]numbering.EdgeID
}

// ControlDeps computes the control dependences of g's blocks.
func ControlDeps(g *numbering.Graph) (*Deps, error) {
	p, err := PostDominators(g)
	if err != nil {
		return nil, err
	}
	d := &Deps{of: make([][]numbering.EdgeID, g.NumBlocks)}
	for id, e := range g.Edges {
		stop := p.idom[e.Src]
		// The blocks from e.Dst up the tree to ipdom(e.Src), excluded.
		for b := e.Dst; b >= 0 && b != stop; b = p.idom[b] {
			d.of[b] = append(d.of[b], numbering.EdgeID(id))
		}
	}
	for b := range d.of {
		slices.Sort(d.of[b])
	}
	return d, nil
}

// Of returns the edges block b is control dependent on, sorted.
func (d *Deps) Of(b numbering.BlockID) []numbering.EdgeID { return d.of[b] }
