package slice

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/profile"
)

// TestWETOrphans: accesses that no path of their call completes (a call
// open at the end of the recording, an inner call that panicked) are left
// out of the WET's graph as out of FP's, even when the goroutine's next
// path, whose timestamp they carry, is of the same function.
func TestWETOrphans(t *testing.T) {
	store := func(stmt uint32) profile.WPPEvent {
		return profile.WPPEvent{Kind: profile.WPPMemory, Stmt: stmt, Access: profile.WPPStore, Seq: 1, Addr: 100, Size: 8}
	}
	load := func(stmt uint32) profile.WPPEvent {
		return profile.WPPEvent{Kind: profile.WPPMemory, Stmt: stmt, Access: profile.WPPLoad, Seq: 1, Addr: 100, Size: 8}
	}
	enter, ret := profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1}, profile.WPPEvent{Kind: profile.WPPReturn}
	path := func(id uint64) profile.WPPEvent { return profile.WPPEvent{Kind: profile.WPPPath, Path: id} }
	for p := range uint64(2) {
		for s := uint32(1); s < 3; s++ {
			for _, c := range []struct {
				name string
				gs   map[uint64][]profile.WPPEvent
			}{
				{"a call open at the end, then another goroutine's", map[uint64][]profile.WPPEvent{
					1: {enter, path(p), store(s)},
					2: {enter, load(3 - s), path(1 - p), ret},
				}},
				{"an inner call that panicked", map[uint64][]profile.WPPEvent{
					1: {enter, enter, store(s), ret, load(3 - s), path(p), ret},
				}},
			} {
				hash, raw := fuzzMeta(t)
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o644); err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := profile.WriteWPP(&buf, profile.WPPHeader{Limit: 1 << 30}, []string{hash}, c.gs); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "pathcover.1.1.wpp"), buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				g, err := Load(dir, 1000)
				if err != nil {
					t.Fatal(err)
				}
				built, err := wet.BuildDir(dir, nil)
				if err != nil {
					t.Fatal(err)
				}
				o, err := LoadWET(dir, built)
				if err != nil {
					t.Fatal(err)
				}
				if len(g.Nodes) < 3 || o.Nodes() != len(g.Nodes) {
					t.Fatalf("%s: %d nodes, the WET's graph %d", c.name, len(g.Nodes), o.Nodes())
				}
				for n := range int32(len(g.Nodes)) {
					got, _ := o.nodeAt(n)
					if a, b := fuzzNode(nil, got), fuzzNode(nil, &g.Nodes[n]); a != b {
						t.Errorf("%s (path %d, statement %d): node %d: %s, FP's %s", c.name, p, s, n, a, b)
					}
				}
				if (len(o.Problems) == 0) != (len(g.Problems) == 0) {
					t.Errorf("%s (path %d, statement %d): the WET's graph's problems %q, FP's %q", c.name, p, s, o.Problems, g.Problems)
				}
			}
		}
	}
}

// TestWETSourceOrder: a WET's goroutines share one reader of their
// accesses, sorted by timestamp, so one read after a later one is an
// error, not a goroutine without accesses.
func TestWETSourceOrder(t *testing.T) {
	store := profile.WPPEvent{Kind: profile.WPPMemory, Stmt: 1, Access: profile.WPPStore, Seq: 1, Addr: 100, Size: 8}
	enter, ret := profile.WPPEvent{Kind: profile.WPPEnter, Pkg: 1}, profile.WPPEvent{Kind: profile.WPPReturn}
	path := profile.WPPEvent{Kind: profile.WPPPath, Path: 0}
	hash, raw := fuzzMeta(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gs := map[uint64][]profile.WPPEvent{1: {enter, store, path, ret}, 2: {enter, store, path, ret}}
	if err := profile.WriteWPP(&buf, profile.WPPHeader{Limit: 1 << 30}, []string{hash}, gs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pathcover.1.1.wpp"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := wet.BuildDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	count := func(src *wetSource, g uint64) (int, error) {
		n := 0
		err := src.Events(g, func(e *profile.WPPEvent) error {
			if e.Kind == profile.WPPMemory {
				n++
			}
			return nil
		})
		return n, err
	}
	srcs, done, err := wetSources(w, false)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	ids := srcs[0].Goroutines()
	if n, err := count(srcs[0], ids[0]); err != nil || n != 1 {
		t.Fatalf("goroutine %d in order: %d accesses, %v", ids[0], n, err)
	}
	if n, err := count(srcs[0], ids[1]); err != nil || n != 1 {
		t.Fatalf("goroutine %d in order: %d accesses, %v", ids[1], n, err)
	}
	if _, err := count(srcs[0], ids[0]); err == nil {
		t.Fatalf("goroutine %d read again after goroutine %d: no error", ids[0], ids[1])
	}
}
