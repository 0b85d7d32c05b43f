package rt

import "errors"

// Counters in the program's own memory.
//
// A count is one increment of memory. -covermode=count's counters are
// package variables, so the compiler addresses them by a fixed
// displacement from the program counter; counters reached through a
// pointer variable, as Register returns them, cost a load of the pointer
// per function call (no store may be assumed not to change it), and a
// count of the same path in the next call then waits for the last one's
// store: x86 processors forward a store to the next load of the same
// address fastest when the address is a fixed displacement from a register
// the code has not written since (a micro-benchmark of a copy of
// utf8.FullRune's code called in a loop, counting both ways: +45% through
// the pointer, +0% in a package variable).
//
// So a package's counters are a package variable, StaticPad words from
// each end of an array of StaticPad+words+StaticPad words, and
// RegisterStatic maps the counter file's pages over the whole pages that
// hold them (the padding makes sure no other variable shares those pages).
// The mapping is shared, as Register's, so the counts survive kills; the
// counters keep their addresses, so code that counted before the package
// registered (a package-level initialiser that calls an instrumented
// function runs before the registration if Go orders it so) keeps
// counting into the same words, whose values are copied into the file
// first.

// StaticPad is the words of padding on each side of a package's counters
// in its array: 64 KiB, the largest page size Go supports on Linux.
const StaticPad = 8192

// RegisterStatic is Register for counters in the package's own array w,
// of StaticPad+words+StaticPad words: it returns w's middle words (where
// the counts go, zero but for init, set now) and the residual tables.
// If w's pages cannot be mapped from the counter file (not Linux, a page
// size above the padding, no file), the words count in memory, as
// Register's do when nothing can be written.
func RegisterStatic(hash, meta string, words int, init []uint64, funcs int, defaultDir string, w []uint64) ([]uint64, *Residuals) {
	if len(w) != 2*StaticPad+words {
		panic("pathcover: RegisterStatic: the array's length does not match its words")
	}
	c := w[StaticPad : StaticPad+words : StaticPad+words]
	mu.Lock()
	defer mu.Unlock()
	setWords(c, init)
	r, mapped := registration(hash, meta, funcs, defaultDir, func(dir string) error { return mapStatic(dir, hash, c) })
	if mapped {
		attributeSegment(hash, c)
	}
	return c, r
}

// The reasons mapStatic gives for counting in memory.
var (
	errPageTooLarge    = errors.New("the page size is larger than the counters' padding")
	errMappedElsewhere = errors.New("the counter file was mapped at another address than the counters'")
)
