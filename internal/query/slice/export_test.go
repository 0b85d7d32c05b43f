package slice

import "github.com/pathcover/pathcover/internal/query/wpp"

// ReplayInWindows makes o replay its calls in windows of n statements,
// and hold at most 64 kilobytes of them, so that tests of small
// programs check calls of many windows, replayed again once dropped.
func ReplayInWindows(o *Compact, n int) {
	o.replayed.r.windowStmts = n
	o.replayed.limit = 64 << 10
}

// LoadCompactSpilling is LoadCompact sorting at most n accesses and n
// label pairs in memory at a time: the rest go to temporary files.
func LoadCompactSpilling(dir string, n int) (*Compact, error) {
	return loadCompact(&loader{dir: dir, keep: true, cache: newBlockCache(), spillAccesses: n, spillPairs: n})
}

// SameSlice is sameSlice, for the tests outside the package.
var SameSlice = sameSlice

// loadCompactFrom is LoadCompact of srcs, read instead of the
// recordings of dir (whose metadata they name).
func loadCompactFrom(dir string, srcs ...wpp.Source) (*Compact, error) {
	return loadCompact(&loader{dir: dir, keep: true, cache: newBlockCache(), sources: srcs})
}

// CursorAnswered returns how many nodes o's cursor gave from templates,
// without its replay cache.
func CursorAnswered(o *Compact) int { return o.cursor.answered }
