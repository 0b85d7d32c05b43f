//go:build unix

package wet

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/profile"
)

// longRecording is a recording too long to hold as first-tier labels,
// made as it is read: one goroutine's call of n loop iterations, each a
// path and four memory accesses (at addresses of a few strides, so that
// the second tier holds them in a few bits each), and then a value of
// two words every 16 iterations.
type longRecording struct{ n int }

// access returns the address iteration i's k-th access touches.
func (longRecording) access(i, k int) uint64 {
	return 0xc000100000 + uint64(k)<<20 + 8*uint64((i*(k+1))%4096)
}

func (longRecording) Header() profile.WPPHeader { return profile.WPPHeader{} }
func (longRecording) Name() string              { return "long" }
func (longRecording) Packages() map[uint32]string {
	return map[uint32]string{1: strings.Repeat("cd", 16)}
}
func (longRecording) Goroutines() []uint64 { return []uint64{1} }
func (s longRecording) Events(g uint64, fn func(*profile.WPPEvent) error) error {
	e := &profile.WPPEvent{}
	emit := func(ev profile.WPPEvent) error { *e = ev; return fn(e) }
	if err := emit(profile.WPPEvent{Kind: profile.WPPStart}); err != nil {
		return err
	}
	if err := emit(profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1}); err != nil {
		return err
	}
	for i := range s.n {
		for k := range 4 {
			if err := emit(profile.WPPEvent{Kind: profile.WPPMemory, Stmt: uint32(k + 1), Access: profile.WPPLoad, Seq: 1, Addr: s.access(i, k), Size: 8}); err != nil {
				return err
			}
		}
		if i%16 == 0 {
			for part := range uint8(2) {
				if err := emit(profile.WPPEvent{Kind: profile.WPPValue, Site: 0, Part: part, Value: uint64(i)>>part + uint64(part)}); err != nil {
					return err
				}
			}
		}
		if err := emit(profile.WPPEvent{Kind: profile.WPPPath, Path: uint64(i % 3)}); err != nil {
			return err
		}
	}
	return emit(profile.WPPEvent{Kind: profile.WPPReturn})
}

// boundedLimit is the memory the child may map (RLIMIT_DATA: its heap,
// every private writable mapping): less than the labels of its recording
// take uncompressed. Not RLIMIT_AS: Go reserves address space it never
// touches, and a limit on that stops a Go program before its first
// allocation.
const boundedLimit = 128 << 20

// TestBuildBoundedMemory builds the WET of a recording whose labels take
// more than boundedLimit as words, in a process limited to that much
// address space (RLIMIT_DATA), and checks every entry of the WET against
// the recording's generator.
func TestBuildBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a WET of 1.2 M iterations")
	}
	const n = 1_200_000
	if os.Getenv("PATHCOVER_WET_BOUNDED_CHILD") == "1" {
		boundedChild(t, n)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBuildBoundedMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "PATHCOVER_WET_BOUNDED_CHILD=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "cannot limit the memory") {
		t.Skipf("%s", out)
	}
	if err != nil {
		t.Fatalf("the build under a %d MiB limit failed: %v\n%s", boundedLimit>>20, err, out)
	}
	// The child says how many first-tier words it made: more than the
	// limit holds, or the test proves nothing.
	var words int64
	for _, line := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "tier1words "); ok {
			words, _ = strconv.ParseInt(s, 10, 64)
		}
	}
	if 8*words <= boundedLimit {
		t.Fatalf("the labels took %d bytes uncompressed, within the %d-byte limit: the test is too small\n%s", 8*words, boundedLimit, out)
	}
}

// boundedChild builds and checks the WET under the limit.
func boundedChild(t *testing.T, n int) {
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: boundedLimit, Max: boundedLimit}); err != nil {
		t.Skipf("cannot limit the memory: %v", err)
	}
	src := longRecording{n}
	w, err := Build(nil, []wpp.Source{src}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("tier1words %d\n", w.Stats.Tier1Words)
	if w.Stats.Paths != int64(n) || w.Stats.Accesses != int64(4*n) || w.Stats.ValueRecords != int64((n+15)/16) {
		t.Fatalf("stats %+v for %d iterations", w.Stats, n)
	}
	// Every access's address, in order, per statement.
	for i := range w.Accesses {
		a := &w.Accesses[i]
		k := int(a.Stmt) - 1
		if a.Addr == nil {
			t.Fatalf("statement %d: no address stream", a.Stmt)
		}
		a.Addr.Seek(0)
		for it := range n {
			v, ok := a.Addr.Next()
			if !ok || v != src.access(it, k) {
				t.Fatalf("statement %d, access %d: address %#x, want %#x", a.Stmt, it, v, src.access(it, k))
			}
		}
	}
	// Every value, by its timestamp: iteration i's path is timestamp i.
	if len(w.ValueGroups) != 1 || len(w.ValueGroups[0].Words[0]) != 2 {
		t.Fatalf("value groups %+v", w.ValueGroups)
	}
	g := &w.ValueGroups[0]
	g.Times.Seek(0)
	words := g.Words[0]
	for _, s := range words {
		if s != nil {
			s.Seek(0)
		}
	}
	for i := 0; i < n; i += 16 {
		tm, ok := g.Times.Next()
		if !ok || tm != uint64(i) {
			t.Fatalf("value of iteration %d at timestamp %d", i, tm)
		}
		for part, s := range words {
			want := uint64(i)>>part + uint64(part)
			got := g.Constant[0][part]
			if s != nil {
				got, _ = s.Next()
			}
			if got != want {
				t.Fatalf("iteration %d, word %d: %d, want %d", i, part, got, want)
			}
		}
	}
	// The trace: enter, then each iteration's path.
	c := w.Goroutines[0].Trace
	c.Seek(0)
	if sym, _ := c.Next(); sym&7 != SymEnter {
		t.Fatalf("trace starts with %d", sym)
	}
	for i := range n {
		sym, _ := c.Next()
		if node := w.Nodes[sym>>3]; sym&7 != SymPath || node.Path != uint64(i%3) {
			t.Fatalf("trace symbol %d: %d (path %d), want path %d", i+1, sym, node.Path, i%3)
		}
	}
}
