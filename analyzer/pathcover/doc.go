// Package pathcover defines an Analyzer that reports functions with more
// acyclic paths than tests can reasonably cover, or, given a profile, fewer
// paths run than a gate asks.
//
// # Analyzer pathcover
//
// pathcover: report functions with too many acyclic paths
//
// A function's acyclic paths are the ways through it from its start, or from
// where a loop goes round again, to a return, a call that never returns, or
// the loop's next round. Path coverage counts which of them tests ran, so a
// function with thousands of paths can never be covered well. pathcover
// reports each function with more paths than -pathcover.maxpaths (default
// 1000), giving the exact number and the statement that multiplies them most:
// the if, switch, select or loop with the most paths through it, and, when
// the count comes from many statements in a row, how many there are.
//
// Some paths cannot run: two branches test related conditions, so no input
// takes one way at the first and the contrary way at the second. For a
// function over the limit, pathcover proves what it can of that from the
// package's SSA form, as pppexec does for the reports (see package
// internal/static/infeasible), says how many paths it proved infeasible, and
// leaves the function out when the paths left are within the limit.
//
// With -pathcover.profile=DIR (a profile directory or text profile, or
// several, comma-separated), pathcover is a gate on untested paths instead:
// it reports each function of a profiled package whose tests ran less than
// -pathcover.min percent (default 100) of its feasible paths (those the
// build did not prove infeasible; -pathcover.allpaths: of all its paths),
// with the number untested and the first -pathcover.show (default 3) of
// them decoded, each with the conditions it needs, as `pathcover gate`
// does; the path count report is then off unless
// -pathcover.maxpaths is given. Functions in _test.go files are not judged:
// they are never profiled.
//
// With -pathcover.interprocedural it also reports each function whose
// interprocedural path segments of depth 1 are more than
// -pathcover.maxpaths: the paths of its supergraph, the function with the
// callees of all its call sites inlined (PPP thesis 3.4), which is what
// pppexec -ippp counts when every site runs; with the call that multiplies
// them most. Callees in other packages are inlined from the graphs that
// pathnumber exports as facts.
//
// Generated files (those with a "Code generated ... DO NOT EDIT." comment)
// are not reported. With -pathcover.verbose it also reports functions that
// cannot be numbered, which a pathcover build leaves uninstrumented.
package pathcover
