// Package funcgraph builds the control-flow graph of a Go function from its
// typed syntax, with a probe site on every edge that can hold one.
//
// The analyzers and the toolexec rewriter both call [Build], so the graph
// that is numbered is the graph that is instrumented (invariant 1 of docs/design.md).
//
// # Why not golang.org/x/tools/go/cfg
//
// go/cfg is the model for this package, but path profiling needs what it
// leaves out: a single exit block that every return, panic and fall-off-the-
// end reaches; the outcome of each branch (true, case 3, default, range done)
// for reports; and, above all, where code for each edge can be inserted in
// the source. go/cfg also splits && and || into blocks of their own, which
// would make each operand a decision. Here:
//
//   - Decisions are Go's statement-level branches: if and for conditions,
//     switch and type switch clauses, select cases, range steps. && and ||
//     stay inside one decision: a condition is one node of its block, so
//     `if a && b` has two outcomes, not three.
//   - One clause's expression list (`case a, b:`) is one decision; the edge
//     from a clause's test to the next clause's test has no probe site, so
//     the numbering keeps it in its spanning tree (invariant 2 of docs/design.md).
//   - Calls that never return end their block with an edge to the exit:
//     panic, os.Exit, log.Fatal*, runtime.Goexit, the testing FailNow, Fatal
//     and Skip families (also through testing.TB), and every function the
//     caller's NoReturn reports, which the analyzer takes from the ctrlflow
//     facts. Only calls made as statements count, as in go/cfg.
//   - `select {}` blocks forever: its block ends with an edge to the exit.
//   - Every for and range loop gets a post block, even with no post
//     statement. The edges into it (the end of the body, and continue) are
//     the preferred cuts: paths end there, before the post statement, which
//     cannot hold code. The post block's edge to the loop head has no site.
//   - A label starts a block only if some goto names it; labels used by
//     break and continue alone do not split the flow.
//   - Function literals are functions of their own; defer and go are plain
//     statements. A range-over-func loop is a loop: its body is a closure
//     to the compiler, but the path register is a local that the closure
//     shares, so a path runs through it unchanged.
//
// # Probe sites
//
// Every site is a place in a statement list ([Site.List], [Site.Index])
// where code can be inserted:
//
//   - [Head]: the start of a block that has no other incoming edge (the
//     body of an if, a case, a loop);
//   - [Before]: just before a branch statement (return, break, continue,
//     goto, fallthrough), a call that never returns, or `select {}`;
//   - [Else], [Default]: a synthesized else of an if, or default clause of
//     a switch, that the rewriter adds;
//   - [FallEnd]: the end of a block that falls through to the next one;
//   - [NoSite]: none. A loop's exit edge has a site only when no break leaves
//     the loop too, since the code after the loop would also run for them.
//
// Several sites can share a position: `if c { return }` puts the then edge
// and the return edge before the return. Their code runs in the order of
// their edges along the path, which is the order of their source blocks in
// the numbering's topological order.
package funcgraph
