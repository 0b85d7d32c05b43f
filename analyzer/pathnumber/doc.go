// Package pathnumber defines an Analyzer that numbers the acyclic paths of
// every function and places their counters.
//
// # Analyzer pathnumber
//
// pathnumber: number the acyclic paths of every function
//
// For each function declaration and literal, pathnumber builds the
// control-flow graph with probe sites (package funcgraph), taking calls that
// never return from the ctrlflow analyzer's facts; numbers its paths with
// the Ball-Larus algorithm; and places the increments of the path register
// on the chords of a maximum spanning tree under the static weighting of
// Ball-Larus 1994 (package numbering). It reports nothing.
//
// Its result, a *Result, holds every function's graph, numbering and
// placement, for the analyzers that need them. With -pathnumber.facts, it
// exports a *FuncFact for each declared function and a *PackageFact
// listing all functions, literals included, so that other packages and
// tools can read path counts without rebuilding graphs. The facts are off
// by default: encoding them into every package's facts, and decoding its
// imports', cost vet a fifth of its time on the standard library.
//
// With -pathnumber.graphs (which -pathcover.interprocedural sets), which
// exports the facts, each FuncFact also holds its function's graph, so
// that callers in other packages can inline it, and the result holds each
// function's call sites with their callees' graphs (the sites of its
// depth-1 supergraph). Encoding the graphs too costs about a quarter of
// vet's time on the standard library.
package pathnumber
