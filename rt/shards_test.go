//go:build unix

package rt_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/profile"
	"github.com/pathcover/pathcover/rt"
)

// shardRuns is what the "shards" helper counts: for each P id it runs on
// (past the shards' mask, so that ids wrap round), how often each of the
// three paths runs. The expected totals are summed here, not read back
// from rt.
var shardRuns = []struct{ proc, path, n int }{
	{0, 0, 3}, {1, 0, 5}, {2, 1, 7}, {3, 2, 11}, {5, 2, 13}, {6, 0, 17},
}

// countInShard counts a path as the generated code of a sharded build
// does: through its view moved by ShardOffset (instrument's
// appendShardViews).
func countInShard(view *[3]uint64, mask, stride uintptr, path int) {
	(*[3]uint64)(unsafe.Pointer(uintptr(unsafe.Pointer(view)) + rt.ShardOffset(mask, stride)))[path]++
}

func init() {
	helpers["shards"] = func() {
		var proc int
		rt.SetTestProc(func() int { return proc })
		c, _, mask, stride := rt.RegisterShards(os.Getenv("RT_HASH"), os.Getenv("RT_META"), 3, nil, 1, "")
		os.Stdout.WriteString(strconv.Itoa(int(mask)) + " " + strconv.Itoa(int(stride)) + "\n")
		view := (*[3]uint64)(c)
		for _, r := range shardRuns {
			proc = r.proc
			for range r.n {
				countInShard(view, mask, stride, r.path)
			}
		}
		// Shard 0 holds only what Ps 0 and 4 counted: ids wrap at the mask.
		if c[0] != 3 || c[1] != 0 || c[2] != 0 {
			os.Stdout.WriteString("shard 0 holds " + strconv.Itoa(int(c[0])) + " " + strconv.Itoa(int(c[1])) + " " + strconv.Itoa(int(c[2])) + "\n")
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL) // the counts must survive
		select {}
	}
}

// TestShards: a sharded package's counts, made on several Ps and in a
// process that is killed, are in the counter file as one segment per
// shard, and a reader adds them up to what ran.
func TestShards(t *testing.T) {
	hash, meta := testMeta(t)
	dir := filepath.Join(t.TempDir(), "profile")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RT_HELPER=shards", "RT_HASH="+hash, "RT_META="+meta, "PATHCOVERDIR="+dir, "PATHCOVERSHARDS=3")
	out, _ := cmd.Output() // killed: the error says so
	fields := strings.Fields(string(out))
	if len(fields) != 2 || fields[0] != "3" {
		t.Fatalf("helper said %q; want the mask 3 (PATHCOVERSHARDS=3 rounds up to 4 shards) and a stride", out)
	}
	if stride, _ := strconv.Atoi(fields[1]); stride < os.Getpagesize() || stride%os.Getpagesize() != 0 {
		t.Fatalf("stride %s bytes, not a whole number of pages", fields[1])
	}

	cf := cmdtest.OnlyCounterFile(t, dir)
	if len(cf.Segments) != 4 {
		t.Fatalf("%d segments, want 4 shards", len(cf.Segments))
	}
	var want [3]uint64
	perShard := make([][3]uint64, 4)
	for _, r := range shardRuns {
		want[r.path] += uint64(r.n)
		perShard[r.proc&3][r.path] += uint64(r.n)
	}
	for i, s := range cf.Segments {
		if s.Hash != hash || s.Len != 3 {
			t.Fatalf("segment %d: hash %s, %d words", i, s.Hash, s.Len)
		}
		var got [3]uint64
		for _, w := range s.Words {
			got[w.Index] = w.Value
		}
		if got != perShard[i] {
			t.Errorf("shard %d holds %v, want %v", i, got, perShard[i])
		}
	}
	p := profile.New()
	if problems, err := p.ReadDir(dir); err != nil || len(problems) > 0 {
		t.Fatalf("ReadDir: %v %v", problems, err)
	}
	for path, n := range want {
		if got := p.Counts[hash][0][uint64(path)]; got != n {
			t.Errorf("path %d: %d runs read, %d ran", path, got, n)
		}
	}
}

// TestShardsInMemory: without a profile directory, shards are still apart
// (a count on P 1 is not in shard 0) and every shard's words are in the
// allocation.
func TestShardsInMemory(t *testing.T) {
	t.Setenv("PATHCOVERDIR", "")
	var proc int
	rt.SetTestProc(func() int { return proc })
	defer rt.SetTestProc(nil)
	hash, meta := testMeta(t)
	c, _, mask, stride := rt.RegisterShards(hash, meta, 3, nil, 1, "")
	if mask == 0 {
		t.Skip("one shard (GOMAXPROCS=1): no other shard to tell apart")
	}
	view := (*[3]uint64)(c)
	for proc = range int(mask) + 1 {
		countInShard(view, mask, stride, 2)
	}
	if c[2] != 1 {
		t.Fatalf("shard 0's path 2 ran %d times, want 1 (mask %d, stride %d)", c[2], mask, stride)
	}
}
