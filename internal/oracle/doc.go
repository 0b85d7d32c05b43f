// Package oracle counts paths from traces, independently of the path
// numbering's placement and probes, to check them: the path histogram that
// a program's Ball-Larus counters record must equal the one regenerated
// from its trace.
//
// A program built with pppexec -trace writes a witness for every edge that
// has a probe site. That is the tracing of Ball-Larus 1994 §4 with every
// such edge a witness: from the graph and the witnesses alone, the whole
// sequence of edges each call took is regenerated (the paper's Fig. 7). At
// a block with several out edges, the next witness decides: each out edge e
// has a witness set, e itself if it is a witness, else the witnesses (and
// EOF, the end of the call) that paths from its target reach first without
// passing one. If the sets of a block's out edges overlap, the block cannot
// be decoded, which is reported. The edge sequence is then split into paths
// at the cut edges, and each path is numbered with Encode, which the
// numbering's own tests check against enumeration.
package oracle
