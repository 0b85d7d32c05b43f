// Package wpp compacts the whole program paths that programs built with
// pppexec -wpp record (profile/wpp.go) into a timestamped whole program
// path (TWPP, after Zhang and Gupta, "Timestamped Whole Program Path
// Representation and its Applications", PLDI 2001), and answers queries on
// it: a function's distinct traces, one call with its callees and callers,
// hot sequences of paths, and the whole recording again.
//
// # From a recording to a TWPP
//
// A recording is, for each goroutine of each process, the sequence of its
// events: calls of instrumented functions, the Ball-Larus paths each call
// completed, returns, goroutines started. Compact splits each stream into
// calls (the paper's path traces, here sequences of path ids, one per
// completed path, not of basic blocks), linked by the dynamic call graph:
// each call knows the calls it made and the goroutines it started, with
// how many of its paths it had completed before each (its position). Then:
//
//  1. Redundant traces are stored once: a function's calls that completed
//     the same paths in the same order share one trace, with a count.
//  2. Each trace is stored with a dictionary of its dynamic basic blocks
//     (dbb.go: the paper's DBBs over path ids) and, whichever is smaller,
//     as its sequence of DBBs or as each DBB's timestamps, written as
//     arithmetic series lo:hi:stride (the paper's timestamp compaction).
//  3. The dynamic call graph is compacted too: two calls whose subtrees are
//     equal (the same function and trace, and the same calls at the same
//     positions, recursively) are one node, so the graph is a DAG of
//     distinct subtrees.
//  4. The DAG is written so that what repeats costs little (dcg.go): each
//     item is a terminal (a call, a spawn or a path up, with the paths its
//     caller completed since the item before), and the sequences of
//     terminals of all nodes and of all goroutines' roots share one
//     grammar (grammar.go: recursive pairing in rounds, with runs), so a
//     loop whose rounds repeat one pattern of calls costs a few bytes
//     however many rounds it runs, whether the pattern is one call or
//     several (calls of two functions in turn, a callee taking two traces
//     in turn), and a stretch of items that recurs in many nodes, or in
//     many goroutines' roots, is written once. A node
//     referenced once in the DAG (most are: a deep recursion whose levels
//     all differ is one node a level) is private: it is written right
//     after the node that calls it, which says "a private call here"
//     rather than naming it, so that the levels of a recursion write the
//     same bytes; nodes referenced more than once are shared, numbered.
//  5. Each section of the file, one function's traces or the call graph,
//     is deflated (compress/flate) on its own if that makes it smaller.
//
// The paper's text of section 2 is missing the construction of the TWPP
// and the compaction of the dynamic call graph; (2) to (5) are this
// package's design of them. The paper numbers a DBB by its first block and
// keeps its timestamps in a dynamic CFG per trace; here DBBs are numbered
// in the order they first occur in their trace, and the timestamped form
// is kept only where it is smaller than the sequence, since for straight
// traces (no repetition) timestamps cost more than the sequence (the
// paper's own Table 2 shows that for 099.go). For (3), the paper's Table 3
// reports a "compacted DCG" without saying how; hash-consing subtrees is
// the natural counterpart of step 1 for the call graph. It is not enough
// on its own: a call whose callees differ a little from one round of its
// loop to the next (take one of a few traces, alternate between two
// functions) made items that no arithmetic series covers, goroutines
// started from code that is not instrumented made as many roots, and each
// level of a recursion over distinct data made a node of its own; the
// DAG was then most of the file, and the file many times Sequitur's size
// (Sequitur, over the whole stream, shares all of these). The grammar of
// (4) is Sequitur's idea applied where TWPP leaves the repetition: not to
// the whole stream, which would scatter a function's traces through it,
// but to the call graph alone, whose items are already free of the paths;
// and (5) is an entropy coder per section. What TWPP is for stays: a
// function's traces are one read of its section (and an inflate), and a
// call is found by descending the DAG, each node knowing how many calls
// its subtree holds.
//
// Go's goroutines are not in the paper. A goroutine's stream is its own,
// whatever the scheduling; a goroutine started at an instrumented go
// statement names the spawn event in its creator's call, so the call
// graph spans goroutines (Call's SpawnedBy); one started by code that is
// not instrumented names only its creator. A path completed by a call
// that is not the goroutine's current one (the body of a range-over-func
// loop runs inside the iterator's call) belongs to the call it is a path
// of, at its place among that call's paths, and the current call keeps an
// item saying where it ran, so expansion is exact.
//
// # Speed
//
// A suite's recording is hundreds of millions of events, most of them a
// call of a small function that completes one path and returns, so
// compaction costs what one event and one call cost. Walk hands each
// event by pointer, decoded in place (profile.WPPFile.Records), never
// copied; a call that made no call finds its node by its trace's index
// (Func.leaf), one of one path its trace by the path (Func.onePath);
// other nodes are found in a hash table of their own on their contents
// (hashIndex), not by an encoded key. A call's frame is its depth in
// the compactor's stack of frames, so Walk's records of calls hold no
// pointer for the collector's write barrier, and a worker's frames, with
// the capacity their paths and items grew to, go on to its next
// goroutine; a call's items are kept in blocks (frame), so the outermost
// call of a test, which makes millions of calls, is never copied as it
// grows. Goroutines are compacted in parallel, each into a TWPP of its
// own, merged in order, so the file is the same on any number of cores
// (TestCompactWorkers); the sections of the file are encoded and
// deflated in parallel too, the call graph's grammar counting its pairs
// in a table of its own (countTable), not a map. A suite's recording is
// often mostly one goroutine's (regexp's: 65%, btree's and math/big's
// nearly all), so a long stream is cut into segments, compacted on
// several cores as goroutines are, each as if inside the calls open
// when it began, which the merge then carries from segment to segment
// (segment.go); the cuts depend on the recording alone, so the TWPP is
// the same on any number of cores. (Before that, a reader goroutine
// that handed the builder the events Walk resolved, in batches of
// words, cost a quarter more CPU for no less time: the cores pass each
// batch by the cache line.) The harness times it on every workload
// (bench -wpp, docs/performance.md).
//
// # The file
//
// format.go defines the TWPP file: a header that gives each function's
// section (one read gives a function's traces: File.ReadFunc), and the
// calls section: the call graph, and the processes with their
// goroutines. Expand gives back every event of every goroutine, in
// order: TestRoundTrip and FuzzRoundTrip check the round trip raw → TWPP
// → file → raw on random recordings, and the end-to-end tests of pppexec
// -wpp on real programs. FuzzGrammar checks the grammar against its own
// expansion, written apart; TestHandWritten reads a file written by hand
// from the format's drawing, and FuzzReadTWPP reads any bytes: an error,
// or a TWPP that answers every query, never a panic.
//
// # Queries
//
// Call numbers calls 0, 1, … in the order of processes, goroutines and
// calls made (pre-order), and finds one by descending the DAG with each
// node's number of calls. Hot counts, for sequences of 2 to n consecutive
// paths, how often they ran, weighted by length (Larus's hot subpaths):
// within one call on the distinct traces, each weighted by its calls, by
// the n paths that end at each position (a loop repeats few of them);
// and across calls on the DAG, never expanded: a sequence is counted at
// the lowest call whose subtree holds it, once per distinct subtree and
// weighted by how often it occurs, from its trace and its callees'
// first and last n-1 paths (hot.go), passing over the middle of a
// call's long runs of its own paths, where no window spans two calls;
// and a goroutine's roots once per distinct context of roots, the roots
// back to n-1 paths before. Each step of a sequence (a path, or a
// callee's summary) is a transition of a machine whose state is the
// last n-1 paths, and the windows are counted once per distinct
// transition, with how often it was taken. So the work follows the
// TWPP's distinct traces and subtrees, not the run (the harness times it
// on every workload), and what Hot keeps is bounded (maxHotSteps): past
// the bound it fails, asking for shorter sequences.
//
// What leads from an answer to a call: FirstCalls gives each trace of a
// function its first call, by a pre-order walk of the DAG that passes
// over a subtree met before (firstcall.go); AddFirstRuns gives each hot
// sequence the call of its first run, by walking the run's paths in order
// until every sequence is found (firstrun.go), since Hot never knows
// where. TraceTests gives each trace the tests that took it, a bit per
// test pushed down the DAG once (tests.go).
package wpp
