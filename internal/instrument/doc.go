// Package instrument rewrites a package's source so that it counts
// Ball-Larus paths: the path register, its increments and the counter
// updates that package numbering placed, at the probe sites that package
// funcgraph found.
//
// Each function gets a local register, declared at the top of its body
// (function literals get their own; a range-over-func body shares its
// enclosing function's, as the closure it becomes captures it). The code of
// each edge goes at its site as one line of statements:
//
//	r += c                      an increment on a chord
//	r = c                       the register's initialisation, merged with
//	                            the first increment
//	C[off+(r+c)]++              the counter update, merged with the last
//	                            increment, for a function counted in an array
//	CountHashed(C[off:end], r+c)  the same for one counted in a hash table
//
// where C is the package's counter slice. In atomic mode (chosen for -race
// builds) updates go through rt.Add instead of ++. A PPP build's counters,
// with a second register, are described in layout.go; an interprocedural
// build's supergraph registers and clones in supergraph.go. codegen.go
// holds every statement form, with the Go it emits; the golden files of
// testdata/golden show whole packages instrumented in each mode.
//
// The files follow the stages of Package: functions.go numbers a package's
// functions and describes them in the metadata, layout.go lays out their
// counters, supergraph.go makes the supergraphs of an interprocedural
// build, codegen.go, clone.go and results.go write the code through an
// editor of each file (edit.go), and generated.go writes the generated file. positions.go
// and units.go give the metadata the user's positions and go test
// -cover's statements.
//
// The rewriter inserts text: every byte of the original stays where it
// was, but for the names of the callees whose clones an interprocedural
// build calls and the keyword of a return statement whose results it holds
// (results.go), which it replaces. Each insertion is followed by a
// /*line file:line:col*/ comment that gives the next token its original
// position back, so compiler errors, panics and stack traces point at the
// user's lines; in generated code, the position its own line directives
// give it (their file names as written, and no column where they give
// none). The rest, the counter slice and the helpers, goes in one
// generated file, so user files need no new imports. Synthesized branches become real syntax: an if without else
// gets `else { ... }`; `else if` is wrapped as `else { ...; if ... }`; a
// switch without default gets `default: ...`. Where the ends of several
// statement lists meet, as at the end of an else-if chain, the code at the
// end of each goes after what closes the lists inside it (see edit.go).
package instrument
