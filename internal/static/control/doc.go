// Package control computes the post-dominators and control dependences of
// a function's control-flow graph (numbering.Graph, as internal/funcgraph
// builds it): the static half of dynamic control dependence, which the
// slicer (package slice) replays along a run's paths.
//
// Block b is control dependent on edge e = a→s when b post-dominates s
// (reflexively) and does not strictly post-dominate a (Ferrante, Ottenstein
// and Warren, 1987): taking e decides that b runs. Dependences are on
// edges, not blocks, because parallel edges (two cases to one block) are
// distinct outcomes.
//
// Post-dominance is undefined for a block that cannot reach the exit (an
// infinite loop with no break). As compilers and slicers usually do, each
// such block (each that cannot reach the exit in the graph as given) is
// given a virtual edge to the exit, which no result names: the blocks in
// such a loop then depend on the edges that lead into them, as in a loop
// that could stop anywhere, not on nothing. Post-dominators are computed on the reverse graph with
// the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
// Dominance Algorithm"), in near-linear time on the graphs of real code.
package control
