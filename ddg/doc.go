// Package ddg replays the recording of a -deps build (pppexec -deps) into
// a dynamic dependence graph and computes backward slices of it: which
// statement executions the value read at one execution depends on.
//
// # The graph
//
// A node is one execution of one statement (profile.DepStmt, from package
// defuse). Load replays each goroutine's calls: a call's Ball-Larus paths,
// decoded, give its blocks in order, and each block's statements run in
// the order the metadata lists them. Along the way:
//
//   - a use of a local depends on the node that last defined it in the
//     same call, the entry node for a parameter;
//   - a node depends on the predicate execution that decided its block
//     ran: among the branches its block is control dependent on (package
//     control), the one whose block ran last in the call; the call's entry
//     if none did;
//   - calls are matched to the statements' call sites in order, by callee
//     (calls of code that is not instrumented leave no call in the
//     recording, and a call from such code back into instrumented code, as
//     sort.Slice's less, is replayed on its own): the callee's entry
//     depends on the definitions of the arguments, on the calling
//     statement's control dependence, and names the calling statement
//     (Node.Call); the calling statement depends on the callee's last
//     return, or, for a callee that is not instrumented, on the arguments;
//   - deferred calls run at the end of the call, last in first out, and
//     depend on their defer statement; a goroutine's first call on the go
//     statement that started it;
//   - memory accesses are placed at the nodes of the statements that made
//     them, then replayed in their process-wide order (memory.go).
//
// This is the paper's full graph, FP: every dependence instance is
// explicit, which makes it the oracle for compact forms, and bounds it to
// runs of some tens of millions of statement executions (Load's maxNodes).
//
// # Slices
//
// A slice starts at a criterion's node and walks dependences backwards,
// breadth first, each node once: definitions, memory writers, results,
// arguments and control; a calling statement (Node.Call) joins the slice
// with its control dependence only, not the results it goes on to use.
// A criterion with a variable starts from that variable's definition and
// the statement's control dependence. Reads that were not recorded end the
// slice and are listed (Slice.Memory).
//
// # Not yet: the compact graph and the demand-driven slicer
//
// The paper's OPT keeps only the dependence instances that the static
// graph cannot infer. Here the paths already infer most of them: a use of
// a local, a parameter's argument, a result and a control dependence all
// follow from the call's decoded paths and the call tree, as Load's replay
// shows. The plan for OPT: a node is (call, position in the call's
// statement sequence); a call keeps its paths (an offset into the
// recording, or the TWPP's trace), its parent and its call statement's
// position; only the memory dependences are labelled, per reading node,
// sorted by position for binary search; Slice infers the rest by scanning
// the call's sequence backwards (with shortcuts for chains of inferred
// edges, and a cache of decoded sequences). The test it must pass: on every
// criterion of the test programs, its slice equals this graph's (FP). LP,
// the paper's other baseline, would replay on demand from the recording
// on disk, keeping nothing.
package ddg
