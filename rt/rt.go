package rt

import (
	"sync"
	"sync/atomic"
	"syscall"
)

// Register is called once for each instrumented package, from a
// package-level variable initializer of the code pppexec generates, before
// any of the package's functions can run. It returns the package's counters:
// words 64-bit words laid out as the metadata says, zero but for init, which
// holds pairs (index, value): the Ball-Larus ids of the slots of PPP arrays
// and the keys of PPP hash tables. hash names the metadata, meta is its
// content, and defaultDir is the directory pppexec was given with -dir (empty
// for none).
//
// It also returns the package's residual tables, for its first funcs
// functions (0 in a Ball-Larus build, which has none).
func Register(hash, meta string, words int, init []uint64, funcs int, defaultDir string) ([]uint64, *Residuals) {
	c, r, _, _ := register(hash, meta, words, init, funcs, defaultDir, 1)
	return c, r
}

// register is Register and RegisterShards: it maps n shards of the
// package's counters (shards.go), or makes them in memory if they cannot
// be written, and returns shard 0's words, the residual tables, and the
// shards' mask (n-1) and stride in bytes.
func register(hash, meta string, words int, init []uint64, funcs int, defaultDir string, n int) (c []uint64, r *Residuals, mask, stride uintptr) {
	mu.Lock()
	defer mu.Unlock()
	mask = uintptr(n - 1)
	var shards [][]uint64
	var size int
	r, mapped := registration(hash, meta, funcs, defaultDir, func(dir string) (err error) {
		shards, size, err = segments(dir, segmentMagic, hash, words, n, func(_, w []uint64) { setWords(w, init) })
		return err
	})
	if !mapped {
		c, stride = shardsInMemory(words, init, n)
		return c, r, mask, stride
	}
	for _, s := range shards {
		attributeSegment(hash, s)
	}
	return shards[0], r, mask, uintptr(size)
}

// registration is what every registration of a package does (register,
// RegisterStatic), with mu held: it makes the residual tables, finds the
// profile's directory, writes the metadata there, and maps the counters
// with mapCounters. It reports whether they were mapped; when they were
// not (no directory, rt disabled, or an error, which it warns of), the
// residual tables write nothing either, since no metadata describes them,
// and the caller counts in memory.
func registration(hash, meta string, funcs int, defaultDir string, mapCounters func(dir string) error) (*Residuals, bool) {
	dir := profileDir(defaultDir)
	r := &Residuals{hash: hash, heads: make([]atomic.Pointer[residualTable], funcs)}
	if dir == "" || disabled {
		return r, false
	}
	if err := writeMeta(dir, hash, meta); err != nil {
		warn(dir, err)
		return r, false
	}
	if err := mapCounters(dir); err != nil {
		warn(dir, err)
		return r, false
	}
	r.dir = dir
	return r, true
}

// setWords stores the pairs (index, value) of init into w.
func setWords(w []uint64, init []uint64) {
	for i := 0; i+1 < len(init); i += 2 {
		w[init[i]] = init[i+1]
	}
}

// profileDir returns the directory the profile goes to: $PATHCOVERDIR,
// else defaultDir; empty for none. A relative one is made absolute against
// the directory the run was started in (runDir: under go test, the go
// command's, not the package's directory that go test runs each test
// binary in) by the first call that sees it, so that a program that
// changes directory keeps writing into one place, and the process says
// once on its standard error where that is.
func profileDir(defaultDir string) string {
	dir, _ := syscall.Getenv("PATHCOVERDIR")
	if dir == "" {
		dir = defaultDir
	}
	if dir == "" || isAbs(dir) {
		return dir
	}
	dirMu.Lock()
	defer dirMu.Unlock()
	if dir != relDir {
		relDir, absDir = dir, absolute(dir)
		if !relWarned {
			writeStderr("pathcover: the profile directory " + dir + " is relative: this process writes its profile to " + absDir + "\n")
			relWarned = true
		}
	}
	return absDir
}

var (
	dirMu          sync.Mutex
	relDir, absDir string // the last relative directory resolved, and where it is
	relWarned      bool
)

var (
	mu       sync.Mutex
	disabled bool // a write failed: count in memory from now on
)

// warn reports once that counts cannot be written, and stops trying.
func warn(dir string, err error) {
	if !disabled {
		writeStderr("pathcover: cannot write path counts to " + dir + ": " + err.Error() + "\n")
	}
	disabled = true
}

// Add adds one to a counter atomically; pppexec uses it in -race builds.
func Add(c *uint64) { atomic.AddUint64(c, 1) }

// CountHashed counts path id in a table of a function with too many paths
// for an array: table holds capacity pairs (id+1, count) and then a count of
// the paths that found the table full. Slots are claimed with compare and
// swap, so concurrent goroutines never lose a path to each other.
func CountHashed(table []uint64, id uint64) {
	n := uint64(len(table)-1) / 2
	if n == 0 {
		return
	}
	key := id + 1
	i := home(id, n)
	for range n {
		k := atomic.LoadUint64(&table[2*i])
		if k == 0 && atomic.CompareAndSwapUint64(&table[2*i], 0, key) {
			k = key
		} else if k == 0 {
			k = atomic.LoadUint64(&table[2*i])
		}
		if k == key {
			atomic.AddUint64(&table[2*i+1], 1)
			return
		}
		if i++; i == n {
			i = 0
		}
	}
	atomic.AddUint64(&table[2*n], 1)
}

// writeStderr writes s to the standard error, as well as it can.
func writeStderr(s string) { syscall.Write(syscall.Stderr, []byte(s)) }
