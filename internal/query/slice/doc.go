// Package slice replays the recording of a -deps build (pppexec -deps) into
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
//     them, then replayed in their process-wide order (memory.go), each
//     process on its own: processes share no memory, so a heap address
//     is keyed with its process.
//
// This is the paper's full graph, FP: every dependence instance is
// explicit, which makes it the oracle for the compact forms, and bounds it
// to runs of some tens of millions of statement executions (Load's
// maxNodes), at about 100 bytes each.
//
// # Slices
//
// A slice starts at a criterion's node (of one test's goroutines, with a
// Scope) and follows dependences backwards, each node once: definitions,
// memory writers, results, arguments and control; a calling statement
// (Node.Call) reached only as the caller of a callee in the slice joins
// it with its control dependence alone, not the results it goes on to
// use, and with them as soon as another dependence reaches it too; one
// reached only through memory brings in its results only if a reader
// came after them (a read inside its call of the literal it passed does
// not depend on what the call returned). These rules (sliceRules, in
// slice.go) make a slice's nodes the same whatever order they are met in, so
// slicing takes them in the order the graphs answer fastest (markSlice):
// the last node pending first, which has OPT and LP replay each window of
// a call about once, where a breadth-first walk of a whole suite's slice
// goes back and forth across the run, one step of each chain at a time.
// Reads that were not recorded end the slice and are listed
// (Slice.Memory). A Slice keeps its statements and how many of each
// one's executions it holds, not its steps: those are walked again from
// the graph when asked for (Slice.Walk, walkSlice), breadth first from the
// criterion, so that a statement's first step is its shortest chain
// back, a page at a time by the commands. Both walks are one code for the
// three graphs below, which differ only in how they give a node's
// dependences; so their slices, steps and order included, are equal when
// their nodes are. A slice of tens of millions of executions takes memory
// bounded by the program (bitsets of a bit per node of the run at most
// aside, and the breadth-first walk's queue).
//
// # Relevant slices
//
// With Criterion.Potential, a slice also follows potential dependences
// (potential.go): a use of a local depends on the last execution, since
// the definition that reached it, of each predicate that decides whether
// another of its definitions runs, so that a condition that wrongly kept
// an assignment from running is in the slice of the value it left alone.
// The replay finds them as it finds control dependences (the last node
// of each candidate block, against the variable's last definition), and
// gives them as Node.Potential, which FP, OPT and LP hold alike.
//
// # The compact graph (OPT)
//
// LoadCompact builds the paper's OPT. Its nodes are Load's, numbered the
// same way, but it holds only what the paths cannot infer. Each goroutine
// keeps its calls in the order they were entered, packed in blocks of 32
// (stream.go): each call's function, parent, subtree, first and last node
// and return node, and its Ball-Larus paths, as uvarints relative to the
// call before. The only dependences labelled are those through memory,
// one sorted list of writers per reading node, packed in blocks of 16
// readers (labels.go). Everything else is inferred when a slice needs a
// node: the call it is in (found by binary search on the calls' first
// nodes) is replayed alone (replay.go), exactly as Load replays it, its
// children's subtrees taken as numbered; a child's entry gets what its
// caller's replay gives it. A call of more than windowStmts statements (a
// test's body, a main's loop) is replayed a window at a time: once from
// its start, which leaves a checkpoint of the replay's state at each
// window, then each window alone from its checkpoint. Replayed windows
// are cached (replayed.go, 256 MB at most, without pointers), so a call's
// dependences are inferred about once for all its nodes, and asking for a
// node costs a window at most.
//
// Most calls are not replayed at all. What a call of one window's replay
// gives is a function of its shape (shape.go): its function, its paths
// and its children's functions; whole suites repeat a few hundred shapes
// over tens of millions of calls. The build replay numbers each call's
// shape, and a shape's first call replayed makes its template, the
// replay with node numbers relative to the call. A slice walks the
// nodes through a cursor (cursor.go): a stack of the calls it is in,
// each its template with this call's node numbers put in (or, for a
// call of many windows, the window that holds the node), so that going
// down the run it moves from a call to its children and back without
// locating, replaying or caching anything per call. Finding a
// criterion's executions (Find) reads the statements of a call from its
// template too, and passes over the blocks of calls of other functions.
//
// Building OPT holds, beside what it keeps, the calls of the goroutine
// being numbered, as read (packed a block of 32 calls at a time once
// the block's calls have returned, and freed behind the replay that
// numbers them, which packs each block again once its calls' replays
// have ended: readcalls.go; stream.go, gor.enter and gor.exit), and a
// bounded
// number of memory accesses and labels: a goroutine's accesses are
// sorted by call, a process's by number, then its labels by reader, a
// few million at a time in memory (internal/spill writes the rest to
// unlinked temporary files).
//
// How the paper's optimizations map onto this:
//
//   - OPT-1a (a def-use within a block inferred, t_d = t_u) and OPT-2c
//     (path specialisation, which makes a non-local def-use local) are
//     implicit, and go further: the run's Ball-Larus paths are the
//     specialised paths, and since a call keeps all its paths, every
//     def-use through a local, within a path or across paths of the call,
//     is inferred by the replay (the last definition in the call's
//     sequence); parameters from arguments and uses of results from
//     returns follow from the call tree, which the paper does not cover.
//     The guarantee is the paper's: a local here is symbolic (no address
//     taken, not captured), so nothing but its own definitions can reach a
//     use, and the sequence says which one did.
//   - OPT-4, OPT-5a and OPT-5b (control ancestors at a fixed distance,
//     after specialisation) are implicit: no control dependence is
//     labelled; the replay finds the predicate instance as the last
//     execution, in the call's sequence, of a block the node's block is
//     control dependent on (the call's entry if none), which is FP's
//     definition. OPT-6 (sharing labels between data and control edges)
//     does not apply: there are no control labels to share.
//   - OPT-3 (edges that always carry the same labels share one list) is
//     explicit in one form: all the memory reads of one statement
//     execution (several accesses, fields, bytes) share one list of
//     writers, each writer once.
//   - OPT-1b and OPT-2b (a static edge for memory with labelled
//     exceptions; use-use edges between reads of the same location) and
//     OPT-2a (node specialisation) are not built: every dependence through
//     memory is labelled. They would need an alias analysis that defuse
//     does not do; and on Go code the labels are a small part of OPT (see
//     the slicing table of docs/performance.md).
//   - Shortcuts are not built as edges: a slice lists every execution in
//     it (Slice.Steps), so a chain of inferred edges cannot be skipped
//     without changing what it lists. Templates have their role: the
//     chain of a call's inferred dependences is worked out once per
//     shape, and each call of the shape only numbered.
//
// A node's number plays the paper's timestamp: labels are node numbers,
// found by binary search, and the memory replay that makes them is FP's.
//
// # The demand-driven slicer (LP)
//
// OpenDemand prepares the paper's LP: it numbers the run once (keeping,
// per goroutine, only its first and last node and the go statement that
// started it), and writes the memory accesses, placed at their nodes and
// in the order of their numbers, to a temporary file, with a summary per
// block of 4096 accesses (a Bloom filter of the words and map entries it
// writes) and an index of each node's reads. A slice keeps nothing from
// the one before: it re-reads from the recording each goroutine it needs
// (and, to find the criterion, every goroutine), numbers it again and
// replays its calls as OPT does; the writers of a read are found by going
// back through the access file from the read, block by block, skipping
// the blocks whose summary shows they write none of the bytes still
// looked for, following copies back to their sources.
//
// # Values
//
// In a -wet recording, a value record names its site (profile.DepValue:
// a variable, at a statement), so it is placed as a memory access is: at
// the execution of that statement in the path its record follows, or in
// the tail of the path before (profile.InTail). ValuesOf reads the
// recording once more and gives the values of the nodes a slice asks for
// (pathcover slice -why and -json show them by each step); the graphs
// keep none. TestSliceValues (cmd/pathcover) checks them against what
// the program printed; FuzzLoad, that they are whole and at their sites'
// statements.
//
// # The oracle
//
// TestOPTNodes requires every node of OPT and LP to have FP's
// dependences, and TestOPTSlices their slices to be FP's, on every
// statement of the test programs (each execution, or a seeded sample);
// FuzzLoad does both on random recordings. FP itself is held by the
// slices worked out by hand (TestHandSlices), which all three must give.
package slice
