package numbering

import (
	"errors"
	"fmt"
	"strings"
)

// Errors returned by this package wrap one of these, so callers can tell bad
// input from a limit with errors.Is.
var (
	// ErrInvalidGraph: dangling edges, a bad entry or exit, an edge out of
	// the exit, or a block that is reachable but cannot reach the exit.
	ErrInvalidGraph = errors.New("invalid control-flow graph")
	// ErrNoPath: the exit cannot be reached from the entry.
	ErrNoPath = errors.New("no path from entry to exit")
	// ErrTooManyPaths: the paths could not be cut down to Options.MaxPaths,
	// because no block where a cut could go is left.
	ErrTooManyPaths = errors.New("too many paths")
	// ErrBadPath: a path id out of range, or an edge sequence that is not a
	// path of the DAG.
	ErrBadPath = errors.New("not a path")
	// ErrBadOptions: an option out of range, such as an unknown preferred
	// edge.
	ErrBadOptions = errors.New("bad numbering options")
	// ErrBadCounts: counts that cannot come from any execution.
	ErrBadCounts = errors.New("inconsistent counts")
)

// An UnprobedCycleError reports edges that cannot hold a probe but close a
// cycle: a directed cycle (it cannot be broken without a probe on one of
// them) or a cycle of the spanning tree (one of them would need an
// increment). The caller must give one of them a probe site.
type UnprobedCycleError struct {
	Edges    []EdgeID
	Directed bool // a directed cycle of the graph, not an undirected one of the tree
	g        *Graph
}

func (e *UnprobedCycleError) Error() string {
	var b strings.Builder
	if e.Directed {
		b.WriteString("edges that cannot hold a probe form a directed cycle, which no path boundary can break: ")
	} else {
		b.WriteString("edges that cannot hold a probe close a cycle of the spanning tree, so one of them would need an increment: ")
	}
	for i, id := range e.Edges {
		if i > 0 {
			b.WriteString(", ")
		}
		if e.g != nil && id >= 0 && int(id) < len(e.g.Edges) {
			b.WriteString(e.g.edgeString(id))
		} else {
			fmt.Fprintf(&b, "e%d", id)
		}
	}
	return b.String()
}

func (e *UnprobedCycleError) Unwrap() error { return ErrInvalidGraph }
