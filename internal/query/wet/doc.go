// Package wet builds a whole execution trace (WET, after Zhang and Gupta,
// "Whole Execution Traces and their Applications", TACO 2005) from the
// recording of a -wet build (pppexec -wet): the program's static entities
// labelled with every execution's timestamp, the values each definition
// gave, and the memory each access touched, each label a stream that can be
// walked both ways from any point without decompressing the rest.
//
// # Timestamps and nodes
//
// A node is a Ball-Larus path of a function (the paper's tier 1, 3.1:
// paths as nodes, all the blocks of a path sharing one timestamp). Every
// path that a goroutine completes gets the next timestamp; goroutines are
// numbered one after the other, so each goroutine's paths have consecutive
// timestamps, [Goroutine.Start, Goroutine.End), and a timestamp names one
// path execution of the whole run. The paper's programs are sequential;
// here the order within a goroutine is exact, and the order between
// goroutines is what their memory accesses' numbers say (Access.Seq).
//
// # Labels
//
//   - a node's label: the timestamps of its executions (Node.Times),
//     which the traces say (its path symbols, in order, one timestamp
//     each): a WET file does not hold them, and its reader makes them;
//   - a goroutine's trace: its events in order (enters, paths, returns,
//     spawns), one symbol each (Goroutine.Trace), which is the control-flow
//     trace the paper walks through the nodes' timestamps, kept whole;
//   - a value site's label (profile.DepValue: a variable, and the
//     statement at which its value is recorded): for each record, the
//     timestamp of the path execution it was made in, and the value's
//     words (ValueLabel). The sites of a block that run together and
//     follow from the same inputs share one label, a value group
//     (ValueGroup, the paper's 3.2: groups.go): one stream of timestamps,
//     and either each member's words or one pattern of their distinct
//     tuples, whichever is smaller. Its timestamps may be given as
//     executions of its statement, as an access label's are;
//   - a memory access's label, per statement and kind of access: for each
//     access, its timestamp, its number in the process's order of
//     accesses, its address and size (AccessLabel); a map access's key
//     is numbered among the map's keys, where the recording has its hash.
//     The timestamps may be given as executions of the statement, which
//     the nodes' labels hold: most often each execution makes one access
//     (Execs).
//
// A field whose every entry is the same (an access's size, its flags; a
// variable that never changes) is kept as that value: a stream spends its
// header and some bits a run of entries at least. Every other label is a stream of 64-bit words
// compressed by package bidi (the
// paper's tier 2): a cursor steps forwards and backwards from anywhere,
// each stream with the predictor that suits it best. A value word's or
// access field's stream whose values are another's, or them plus a
// constant (a pointer recorded as a value and the loads at it), is kept
// once: the file refers to it (share.go).
//
// # Building in bounded memory
//
// Build reads the recordings once, goroutine by goroutine, and holds
// what the program has, not what the run did: its functions, nodes and
// labels, each label's last entries, and a count of each statement's
// executions so far (an entry's place among them, which Execs needs, is
// known when it is stamped). An entry is final once its path execution
// stamps it (and, for a value, once its every word has come: a kill can
// cut the last value short, and a goroutine's end drops it); from there
// on it goes to its label's column (spill.Columns), a chunk at a time,
// in a temporary file. A label's entries are written in the order made,
// so one that waits holds those after it: an outer call's entry waits
// for that call's next path while a recursive call of the same function
// makes entries of the same label, and so what is held grows with the
// depth of such recursion, not with the run's length. Then each label is
// compressed from its columns
// (bidi.CompressSource, the same streams Compress makes of the values in
// memory), labels in parallel, and the WET holds only the second tier.
// Value groups compare their sites' timestamps and find their tuples
// reading columns; a pattern is given up past maxPatternTuples distinct
// tuples. TestBuildBoundedMemory builds a WET whose labels take twice its
// memory limit.
//
// The queries read a label whole the same way (EachAccess, EachValue),
// and slices over a WET sort its accesses by timestamp on disk.
//
// # Slices
//
// Slices over the WET (the paper's 6.1) are the compact graph of package
// ddg built from a WET and the metadata alone (slice.LoadWET, pathcover
// slice -graph wet): the traces give each call's paths, which infer
// every dependence but those through memory, and the accesses' labels
// give those, replayed in the order of their numbers when the graph is
// loaded. The WET stores no dependence labels of its own (the paper's
// 3.3): its addresses say them.
package wet
