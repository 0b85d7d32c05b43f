// Package numbering holds the graph algorithms of path profiling: turning a
// function's control-flow graph into a DAG, numbering its acyclic paths,
// placing the increments of a path register, and reading counts back.
//
// It depends on the standard library only; the analyzer, the toolexec
// rewriter and the reports all call it on the same [Graph], so the graph that
// is numbered is the graph that is instrumented.
//
// # The pipeline
//
//  1. Build a [Graph]: blocks, edges with stable ids, an entry and an exit.
//     Each edge says whether it can hold a probe (code of the profiler).
//  2. [Number] breaks cycles (thesis §3.2.2), numbers the acyclic paths with
//     the Ball-Larus algorithm (thesis Fig. 3.1) and returns a [Numbering].
//     Path ids are uint64; when a function has more paths than
//     [Options.MaxPaths], Number cuts the DAG at further blocks until they fit
//     and records every cut.
//  3. [Numbering.Place] computes a maximum spanning tree of the DAG plus the
//     edge exit→root for a [Weights] (the static heuristic of Ball-Larus 1994
//     §5.1, or measured frequencies) and puts increments on the chords only.
//     It pushes register initialisation down and merges the last increment of
//     a path into the counter update: the result is a list of [Op] per edge.
//  4. [Placement.PPP] numbers a set of interesting paths preferentially
//     (thesis Fig. 3.10) with increments on the same chords, for an array
//     indexed by PPP id that keeps each slot's Ball-Larus id for the alias
//     check.
//  5. [Numbering.Decode], [Numbering.Encode], [Numbering.CountsFromPaths] and
//     [Placement.CountsFromChords] turn ids and counts back into edges and
//     blocks.
//
// # The DAG
//
// The DAG has one node per reachable block plus a virtual root. Its edges are
// the reachable edges of the graph that were not cut, each keeping its
// [EdgeID], and dummy edges numbered from [Graph.NumEdges] up:
//
//   - a start edge root→h for each block h at which a path can begin: the
//     entry (the function's start) and every block entered by a cut edge;
//   - an end edge u→exit for each cut edge u→h.
//
// A cut edge u→h therefore ends the running path with its end edge and begins
// the next one with h's start edge, exactly like a loop back edge in the
// Ball-Larus paper. A path is a sequence of DAG edges from the root to the
// exit; two paths that visit the same blocks but leave the last one by
// different cut edges are different paths, because the last branch differs.
//
// # Arithmetic
//
// Path ids, increments and register values are uint64 and wrap: a chord's
// increment may be negative, and the sum along a path is exact modulo 2^64.
// Since every id is below [Options.MaxPaths] ≤ 2^63, the wrapped sum is the id.
package numbering
