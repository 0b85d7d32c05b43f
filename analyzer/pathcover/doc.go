// Package pathcover defines an Analyzer that reports functions with more
// acyclic paths than tests can reasonably cover.
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
// Generated files (those with a "Code generated ... DO NOT EDIT." comment)
// are not reported. With -pathcover.verbose it also reports functions that
// cannot be numbered, which a pathcover build leaves uninstrumented.
package pathcover
