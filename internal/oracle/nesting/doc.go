// Package nesting writes the oracle's program of nested constructs: Go
// source of one package, nesting, whose functions each end with a
// construct that holds another at the end of one of its blocks, and its
// driver, Drive, which runs every function with choices that take every
// branch of every construct in it.
//
// Code that the instrumenter puts at the end of a block must run exactly
// when control leaves that block, whatever ends there: an else it
// synthesizes, the braces it wraps an else-if chain in, a default it adds
// to a switch. Those meet where one construct ends another's block, so the
// program is made of exactly that: every pair of [Kinds], the inner one at
// the end of each block of the outer one (and the outer one at the end of
// the function's body), and every triple of [Core] kinds, each at the end
// of the last block of the one outside it. The oracle tests build it in
// every counter mode and check the counts against the trace.
package nesting
