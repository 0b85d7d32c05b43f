package rt_test

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/pathcover/pathcover/profile"
	"github.com/pathcover/pathcover/rt"
)

// allowedImports is the list in the package doc.
var allowedImports = []string{"errors", "runtime", "sync", "sync/atomic", "syscall", "unsafe"}

func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "source.go" {
			continue // not compiled into profiled programs
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !slices.Contains(allowedImports, path) {
				t.Errorf("%s imports %s, which is not in the allowed list %v", name, path, allowedImports)
			}
		}
	}
}

// TestClosure checks that what rt imports keeps the packages that
// programs are most often profiled for out of rt's dependencies: pppexec
// cannot instrument those.
func TestClosure(t *testing.T) {
	out, err := exec.Command("go", append([]string{"list", "-deps"}, allowedImports...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := strings.Fields(string(out))
	for _, p := range []string{"os", "io", "io/fs", "time", "unicode/utf8", "strconv", "path"} {
		if slices.Contains(deps, p) {
			t.Errorf("rt depends on %s", p)
		}
	}
}

// testMeta is the metadata of a package with one function of 3 paths.
func testMeta(t *testing.T) (string, string) {
	t.Helper()
	m := profile.Meta{
		Format: profile.MetaFormat, Package: "example.com/p", Mode: "bl", Files: []string{"p.go"}, Words: 3,
		Funcs: []profile.Func{{
			Name: "F", Entry: 0, Exit: 1, Paths: 3, Total: "3",
			Blocks: []profile.Block{{}, {}, {}, {}},
			Edges: []profile.Edge{
				{Src: 0, Dst: 2, Probe: true}, {Src: 0, Dst: 3, Probe: true}, {Src: 2, Dst: 3, Probe: true},
				{Src: 3, Dst: 1, Probe: true}, {Src: 2, Dst: 1, Probe: true},
			},
			Counters: profile.Counters{Kind: "array", Size: 3},
		}},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return profile.Hash(raw), string(raw)
}

// helpers are the helper processes of other tests, by the name in
// $RT_HELPER.
var helpers = map[string]func(){}

// The helper process: registers the package, counts path 0 five times and
// path 2 once, then ends as $RT_END says; or runs one of helpers.
func TestMain(m *testing.M) {
	if h := helpers[os.Getenv("RT_HELPER")]; h != nil {
		h()
		os.Exit(0)
	}
	if end := os.Getenv("RT_END"); end != "" {
		c, res := []uint64(nil), (*rt.Residuals)(nil)
		if os.Getenv("RT_STATIC") == "" {
			c, res = rt.Register(os.Getenv("RT_HASH"), os.Getenv("RT_META"), 3, nil, 1, "")
		} else {
			// Two counts before the registration, in the array's words,
			// which it keeps.
			staticWords[rt.StaticPad] += 2
			c, res = rt.RegisterStatic(os.Getenv("RT_HASH"), os.Getenv("RT_META"), 3, nil, 1, "", staticWords[:])
			if &c[0] != &staticWords[rt.StaticPad] {
				panic("RegisterStatic moved the counters")
			}
		}
		for range 5 {
			c[0]++
		}
		rt.Add(&c[2])
		res.Count(0, 1) // path 1 as a residual path
		res.Count(0, 1)
		switch end {
		case "exit":
			os.Exit(3)
		case "panic":
			panic("the end")
		case "kill":
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// staticWords are the helper's counters for RegisterStatic: 3 words
// between the padding.
var staticWords [2*rt.StaticPad + 3]uint64

// TestCountsSurvive runs a process that counts and then returns, calls
// os.Exit, panics, or is killed with SIGKILL: its counts are on disk. Its
// counters are mapped from the file by Register, or mapped over its own
// array by RegisterStatic (Linux only), which keeps what the array
// counted before: the counts after the mapping are only in the file, so a
// kill shows they are there.
func TestCountsSurvive(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("counter files need a Unix system")
	}
	hash, meta := testMeta(t)
	for _, static := range []bool{false, true} {
		for _, end := range []string{"return", "exit", "panic", "kill"} {
			name := end
			if static {
				if runtime.GOOS != "linux" {
					continue
				}
				name = "static/" + end
			}
			t.Run(name, func(t *testing.T) { countsSurvive(t, hash, meta, end, static) })
		}
	}
}

func countsSurvive(t *testing.T, hash, meta, end string, static bool) {
	dir := filepath.Join(t.TempDir(), "profile") // created by rt
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RT_END="+end, "RT_HASH="+hash, "RT_META="+meta, "PATHCOVERDIR="+dir)
	want := uint64(5)
	if static {
		cmd.Env = append(cmd.Env, "RT_STATIC=1")
		want += 2 // counted before the registration
	}
	out, err := cmd.CombinedOutput()
	if end == "return" && err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	p := profile.New()
	problems, err := p.ReadDir(dir)
	if err != nil || len(problems) > 0 {
		t.Fatalf("ReadDir: %v %v", problems, err)
	}
	if p.Processes != 1 || p.Counts[hash][0][0] != want || p.Counts[hash][0][1] != 2 || p.Counts[hash][0][2] != 1 {
		t.Fatalf("after %s: %d processes, counts %v; want %d of path 0", end, p.Processes, p.Counts[hash], want)
	}
}

// TestOneFilePerProcess: parallel processes never share a counter file,
// and the metadata is written once.
func TestOneFilePerProcess(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("counter files need a Unix system")
	}
	hash, meta := testMeta(t)
	dir := t.TempDir()
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "RT_END=return", "RT_HASH="+hash, "RT_META="+meta, "PATHCOVERDIR="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("helper: %v\n%s", err, out)
			}
		})
	}
	wg.Wait()
	metas, _ := filepath.Glob(filepath.Join(dir, "*.meta"))
	counts, _ := filepath.Glob(filepath.Join(dir, "*.counts"))
	if len(metas) != 1 || len(counts) != 6 {
		t.Fatalf("%d metadata and %d counter files; want 1 and 6", len(metas), len(counts))
	}
	p := profile.New()
	if problems, err := p.ReadDir(dir); err != nil || len(problems) > 0 {
		t.Fatalf("ReadDir: %v %v", problems, err)
	}
	if p.Counts[hash][0][0] != 30 {
		t.Errorf("path 0 counted %d times; want 30", p.Counts[hash][0][0])
	}
}

// TestNoDirectory: with no directory, nothing is written and the counters
// still work.
func TestNoDirectory(t *testing.T) {
	t.Setenv("PATHCOVERDIR", "")
	wd, _ := os.Getwd()
	c, res := rt.Register("00000000000000000000000000000000", "{}", 4, []uint64{1, 7}, 1, "")
	c[3]++
	res.Count(0, 9)
	if len(c) != 4 || c[3] != 1 || c[1] != 7 {
		t.Fatalf("counters %v", c)
	}
	if after, _ := os.ReadDir(wd); slices.ContainsFunc(after, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".counts") }) {
		t.Errorf("a counter file appeared in %s", wd)
	}
}

// TestNoDirectoryStatic: RegisterStatic with no directory counts in the
// array it was given, with init's words set.
func TestNoDirectoryStatic(t *testing.T) {
	t.Setenv("PATHCOVERDIR", "")
	var w [2*rt.StaticPad + 4]uint64
	c, _ := rt.RegisterStatic("00000000000000000000000000000000", "{}", 4, []uint64{1, 7}, 1, "", w[:])
	c[3]++
	if len(c) != 4 || w[rt.StaticPad+3] != 1 || w[rt.StaticPad+1] != 7 {
		t.Fatalf("counters %v", c)
	}
}

func TestCountHashed(t *testing.T) {
	table := make([]uint64, 2*64+1)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for id := range uint64(50) {
				rt.CountHashed(table, id*1000+uint64(g%2))
			}
		})
	}
	wg.Wait()
	// 100 distinct ids, 4 goroutines each, into 64 slots: 64 ids are kept
	// and the runs of the other 36 are lost, none both.
	counts := map[uint64]uint64{}
	var kept uint64
	for i := 0; i < 64; i++ {
		if table[2*i] != 0 {
			counts[table[2*i]-1] = table[2*i+1]
			kept += table[2*i+1]
		}
	}
	if len(counts) != 64 || kept+table[128] != 400 {
		t.Fatalf("%d ids kept with %d runs, %d lost; want 64 ids and 400 runs in all", len(counts), kept, table[128])
	}
	for id, n := range counts {
		if n != 4 {
			t.Errorf("id %d counted %d times; want 4", id, n)
		}
	}
}

// TestResidualExact: goroutines recording many residual paths at once, more
// than a first table holds, lose none and count each exactly; and
// CountPlain, in one goroutine, counts as exactly.
func TestResidualExact(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("counter files need a Unix system")
	}
	dir := t.TempDir()
	t.Setenv("PATHCOVERDIR", dir)
	const ids, goroutines = 3000, 8
	_, res := rt.Register(testHash, "{}", 0, nil, 4, "")
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range uint64(ids) {
				id := (i*7919 + uint64(g)) % ids // each goroutine in its own order
				res.Count(1, id<<20)             // ids far apart, as big functions have
				if i%2 == 0 {
					res.Count(0, i)
				}
			}
		})
	}
	wg.Wait()
	// Function 2 counts plainly, in one goroutine: path i runs 3 - i%3
	// times, through tables that grow.
	for round := range uint64(3) {
		for i := range uint64(ids) {
			if i%3 <= round {
				res.CountPlain(2, i<<33|i)
			}
		}
	}
	// The package's heads, shared after those tables were made (as when
	// package variables' initializers run instrumented code first), find
	// some of them in their home slots, and counts through the word they
	// return reach the file; they find no path never counted. Function 3's
	// first table is made after: its head finds it too.
	heads := make([]rt.ResidualHead, 4)
	if res.Share(heads[:3]) || (*rt.Residuals)(nil).Share(heads) || !res.Share(heads) {
		t.Fatal("Share took heads of the wrong number, or refused the right one")
	}
	slotted := map[uint64]bool{}
	for i := range uint64(ids) {
		if c := heads[2].Slot(i<<33 | i); c != nil {
			*c++
			slotted[i] = true
		}
	}
	if len(slotted) == 0 {
		t.Error("the head found no path in its home slot")
	}
	if heads[2].Slot(1<<62) != nil || heads[3].Slot(0) != nil {
		t.Error("a head found a path never counted")
	}
	res.CountPlain(3, 5)
	if c := heads[3].Slot(5); c == nil {
		t.Error("the head of a function whose first table was made after Share does not find its path")
	} else {
		*c++
	}
	counts, tables := residualCounts(t, dir)
	if tables < 5 {
		t.Errorf("%d residual tables; the test means to fill some", tables)
	}
	for i := range uint64(ids) {
		if n := counts[[2]uint64{1, i << 20}]; n != goroutines {
			t.Fatalf("function 1 path %d counted %d times; want %d", i<<20, n, goroutines)
		}
		want := uint64(0)
		if i%2 == 0 {
			want = goroutines
		}
		if n := counts[[2]uint64{0, i}]; n != want {
			t.Fatalf("function 0 path %d counted %d times; want %d", i, n, want)
		}
	}
	for i := range uint64(ids) {
		want := 3 - i%3
		if slotted[i] {
			want++
		}
		if n := counts[[2]uint64{2, i<<33 | i}]; n != want {
			t.Fatalf("function 2 path %d counted %d times (plainly); want %d", i<<33|i, n, want)
		}
	}
	if n := counts[[2]uint64{3, 5}]; n != 2 {
		t.Errorf("function 3 path 5 counted %d times; want 2", n)
	}
	if len(counts) != 2*ids+ids/2+1 {
		t.Errorf("%d paths recorded; want %d", len(counts), 2*ids+ids/2+1)
	}
}

// residualCounts reads the residual tables of testHash in dir's counter
// files: the runs of each function and path, and the number of tables.
func residualCounts(t *testing.T, dir string) (map[[2]uint64]uint64, int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.counts"))
	counts := map[[2]uint64]uint64{}
	tables := 0
	for _, name := range files {
		f, err := profile.ReadCounts(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Segments {
			if !s.Residual || s.Hash != testHash {
				continue
			}
			tables++
			if s.Lost != 0 {
				t.Errorf("%d runs lost", s.Lost)
			}
			s.Pairs(func(key, n uint64) { counts[[2]uint64{uint64(s.Func), key - 1}] += n })
		}
	}
	return counts, tables
}

const testHash = "0123456789abcdef0123456789abcdef"

// TestCountKnown: a table laid out with profile.HashHome, as pppexec lays
// out PPP hash tables, finds its keys and only them. The table's size is
// not a power of two and some keys are large, as big functions' ids are:
// with 16 slots, homes that differ by a multiple of 16 in the bits above
// 32 look alike (a mismatch of rt's and profile's hashes went unseen so).
func TestCountKnown(t *testing.T) {
	const n = 12
	table := make([]uint64, 2*n)
	keys := []uint64{0, 5, 1 << 40, 77, 78, 3<<61 + 12345, 0xdeadbeefcafebabe}
	for _, id := range keys {
		i := profile.HashHome(id, n)
		for table[2*i] != 0 {
			i = (i + 1) % n
		}
		table[2*i] = id + 1
	}
	for range 2 { // each key counted twice
		for _, id := range keys {
			if !rt.CountKnown(table, id) {
				t.Errorf("key %d not found", id)
			}
		}
	}
	for _, id := range []uint64{1, 6, 1<<40 + 1, 80, 1<<63 - 1} {
		if rt.CountKnown(table, id) {
			t.Errorf("id %d found, but is no key", id)
		}
	}
	for i := 0; i < n; i++ {
		if table[2*i] != 0 && table[2*i+1] != 2 {
			t.Errorf("key %d counted %d times; want 2", table[2*i]-1, table[2*i+1])
		}
	}
}

// FuzzHome checks that rt's home slot is profile.HashHome's, with which
// pppexec lays out PPP hash tables, and lies in the table.
func FuzzHome(f *testing.F) {
	for _, seed := range [][2]uint64{{0, 1}, {77, 12}, {1 << 40, 16}, {1<<64 - 1, 252}, {3<<61 + 12345, 1 << 32}, {0xdeadbeefcafebabe, 1<<32 + 1}, {5, 1<<64 - 1}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, id, n uint64) {
		if n == 0 {
			return
		}
		got, want := rt.Home(id, n), profile.HashHome(id, n)
		if got != want || got >= n {
			t.Errorf("home(%d, %d) = %d, profile.HashHome %d", id, n, got, want)
		}
	})
}

// TestChecksum: rt's checksum is package profile's (CRC-32C).
func TestChecksum(t *testing.T) {
	b := make([]byte, 300)
	for i := range b {
		b[i] = byte(i * 7)
	}
	for n := range len(b) {
		if got, want := rt.Checksum(b[:n]), crc32.Checksum(b[:n], crc32.MakeTable(crc32.Castagnoli)); got != want {
			t.Fatalf("checksum of %d bytes %08x, want %08x", n, got, want)
		}
	}
}
