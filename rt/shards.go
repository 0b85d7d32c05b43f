package rt

import (
	"runtime"
	"sync"
	"syscall"
)

// # Counters per P
//
// Goroutines that run at once on several cores and count into the same
// words fight for the cache lines that hold them: each increment takes the
// line from the core that last wrote it. Parallel benchmarks then ran 4 to
// 12 times slower under Ball-Larus than without it, and -covermode=count,
// whose counters are shared the same way, did as badly.
//
// In a sharded build (pppexec -shard=p; not the default) each package
// therefore has one copy of its counters per P, its shards, and a count
// goes to the shard of the P that runs the goroutine: goroutines that run
// at the same moment run on different Ps, so they never write the same
// line. The shards are segments of the counter file like any other, with
// the package's hash, one after the other, stride bytes apart:
//
//	shard 0: header, words, padding to a page  <- Register's counters
//	shard 1: header, words, padding to a page  <- + stride
//	...
//
// and readers add their counts as they add those of several processes
// (package profile). The generated code finds the shard of a function's
// view as view + ShardOffset(mask, stride): a load of the P's id (the
// patched runtime's PathcoverProc) and some arithmetic, no call.
//
// Finding the shard costs every count. The P's id is one load: the
// patched runtime keeps it in the g as the scheduler runs it
// (internal/driver/goroutine.go: pathcoverRun, pathcoverWire), where it
// was three dependent loads through the g's M and a nil check. Ball-Larus
// on one P cost +51% at the median with shards and +18% without with the
// three loads (AMD EPYC, 2026-11-27), +45% and +27% with the one (Intel
// Xeon, 2026-12-02); measured apart, five alternating quick runs of each
// (docs/performance.md), the gap was 27 points at the median with the
// three loads and 16 with the one. What remains is mostly the
// inliner's: a sharded count costs about 26 of its budget of
// 80 where a count in the static array costs 4, so small functions stop
// being inlined (unicode/utf8's word, RuneLen, ValidRune). So shards are
// still for code whose goroutines run at once, not the default; making
// them cheap in the inliner's terms needs one stride for every package,
// so that the g can hold the shard's byte offset itself.
//
// What a shard holds is a copy of the package's whole layout, so the PPP
// arrays' keys are set in every shard. Only the arrays and the PPP arrays
// are counted per P; hash tables, hot path tables and residual tables, for
// functions with more paths than an array holds, stay in shard 0, as they
// are without shards (rt's functions count in them with atomic
// operations, or are rarely run).
//
// Counting stays as exact as without shards. In atomic mode (-race) every
// increment is atomic, whichever shard it is in. Otherwise increments are
// plain, as before: a goroutine that the scheduler moves to another P
// between the load of its P's id and its increment may race with the
// goroutine that now runs on its old P, as any two goroutines raced for
// every count without shards.
//
// The number of shards is the smallest power of two at least GOMAXPROCS
// when the first package registers, at most maxShards, or
// $PATHCOVERSHARDS (rounded up to a power of two; 1 turns shards off at
// run time). P ids past the last shard wrap round (the mask). Every shard
// is written out, zeros, when its package registers (growFile: a hole in
// the file would turn a full disk into a SIGBUS at a count), so each one
// costs the package's counters in disk and page cache, whether or not a P
// counts in it: the file is up to maxShards times larger than without.

// maxShards bounds the shards of a package: the file's size grows with
// them, and past 64 cores two Ps sharing a shard cost little.
const maxShards = 64

// RegisterShards is Register for a sharded build: it returns the package's
// counters (shard 0's), its residual tables, and the mask and stride that
// ShardOffset takes.
func RegisterShards(hash, meta string, words int, init []uint64, funcs int, defaultDir string) (c []uint64, r *Residuals, mask, stride uintptr) {
	return register(hash, meta, words, init, funcs, defaultDir, shardCount())
}

// ShardOffset returns the distance in bytes from shard 0's counters to
// those of the shard of the P that runs the calling goroutine.
func ShardOffset(mask, stride uintptr) uintptr { return uintptr(proc()) & mask * stride }

// shardsInMemory returns n shards of words counters in one allocation, a
// stride of whole cache lines apart, for a program whose counts are not
// written.
func shardsInMemory(words int, init []uint64, n int) ([]uint64, uintptr) {
	const line = 8 // words: 64 bytes
	stride := (words + line - 1) / line * line
	all := make([]uint64, stride*n+1) // +1: an empty package still has an address
	for i := range n {
		setWords(all[i*stride:i*stride+words], init)
	}
	return all[:words:words], uintptr(stride * 8)
}

var (
	shardsOnce sync.Once
	shardsN    int
)

// shardCount returns the number of shards of every package of the process,
// decided when the first one registers.
func shardCount() int {
	shardsOnce.Do(func() {
		want := runtime.GOMAXPROCS(0)
		if s, ok := syscall.Getenv("PATHCOVERSHARDS"); ok {
			if v, ok := atoiPositive(s); ok {
				want = v
			} else {
				writeStderr("pathcover: PATHCOVERSHARDS=" + s + " is not a positive number: using " + itoa(uint64(want)) + "\n")
			}
		}
		shardsN = 1
		for shardsN < want && shardsN < maxShards {
			shardsN *= 2
		}
	})
	return shardsN
}

// atoiPositive parses a decimal number from 1 to 1<<20.
func atoiPositive(s string) (int, bool) {
	if s == "" || len(s) > 7 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int(c-'0')
	}
	return n, n > 0 && n <= 1<<20
}
