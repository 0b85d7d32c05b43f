package driver

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCompileCacheLimit: PATHCOVERCOMPILECACHE is off, a size or unset; a
// value that is none of those fails the compile with a message naming it,
// and runs no compiler.
func TestCompileCacheLimit(t *testing.T) {
	for _, c := range []struct {
		value string
		want  int64
		bad   bool
	}{
		{"", defaultCompileCacheLimit, false},
		{"off", 0, false},
		{"0", 0, false},
		{"20G", 20 << 30, false},
		{"500M", 500 << 20, false},
		{"1048576", 1 << 20, false},
		{"on", 0, true},
		{"5GB", 0, true},
		{"-1G", 0, true},
		{"99999999999G", 0, true},
	} {
		t.Setenv(compileCacheEnv, c.value)
		got, err := compileCacheLimit()
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("%s=%q: %d, %v; want %d, error %v", compileCacheEnv, c.value, got, err, c.want, c.bad)
		}
	}

	f := newCompileFixture(t)
	t.Setenv(compileCacheEnv, "lots")
	var out bytes.Buffer
	if code := f.x.runCached(f.args(id1), &out, compileKey); code == 0 || !strings.Contains(out.String(), compileCacheEnv+"=lots") {
		t.Errorf("a compile with %s=lots: exit %d, printed %q; want a failure naming it", compileCacheEnv, code, out.String())
	}
	if f.runs() != 0 {
		t.Errorf("the compiler ran %d times", f.runs())
	}
}

// TestCompileCacheSize: a limit whose shard's share is smaller than an
// entry keeps nothing (each compile runs the compiler); one with room keeps
// the entry.
func TestCompileCacheSize(t *testing.T) {
	f := newCompileFixture(t)
	t.Setenv(compileCacheEnv, "512") // 2 bytes a shard
	f.compile(id1)
	f.compile(id2)
	if f.runs() != 2 {
		t.Errorf("with a limit of 512 bytes: the compiler ran %d times, want 2", f.runs())
	}
	if kept, _ := filepath.Glob(filepath.Join(os.Getenv(cacheEnv), "compile", "*", "*")); len(kept) != 0 {
		t.Errorf("with a limit of 512 bytes the cache kept %v", kept)
	}
	t.Setenv(compileCacheEnv, "1M")
	f.compile(id1)
	f.compile(id2)
	if f.runs() != 3 {
		t.Errorf("with a limit of 1M: the compiler ran %d times, want 3", f.runs())
	}
}

// TestStoreBoundsShard stores entries one after another into one shard
// whose share holds about three: after each store the shard is within its
// share, the entry just stored is restored, and those gone are the least
// recently used (the first entry, restored often, stays).
func TestStoreBoundsShard(t *testing.T) {
	cache := t.TempDir()
	needFreeSpace(t, cache)
	out := t.TempDir()
	const entrySize, share = 1000, 3500
	key := func(i int) toolKey {
		o := filepath.Join(out, fmt.Sprint(i))
		return toolKey{sum: fmt.Sprintf("ab%062x", i), outputs: map[string]string{"a": o}}
	}
	dir := filepath.Join(cache, "compile", "ab")
	for i := range 12 {
		k := key(i)
		if err := os.WriteFile(k.outputs["a"], bytes.Repeat([]byte{byte(i)}, entrySize), 0o600); err != nil {
			t.Fatal(err)
		}
		store(cache, dir, k, share*compileCacheShards)
		if size := dirSize(t, dir); size > share {
			t.Fatalf("after store %d the shard holds %d bytes, more than its share %d", i, size, share)
		}
		os.Remove(k.outputs["a"])
		if err := restore(dir, k); err != nil {
			t.Fatalf("entry %d, just stored: %v", i, err)
		}
		// Entry 0 is used after each store; the rest only when stored.
		// Marks are kept at most once a touchInterval, so ages are set.
		ageIndex(t, dir, k, time.Duration(12-i)*2*touchInterval)
		if i > 0 {
			ageIndex(t, dir, key(0), 0)
		}
	}
	var kept, gone []int
	for i := range 12 {
		if _, err := os.Stat(entryFile(dir, key(i), "id")); err == nil {
			kept = append(kept, i)
		} else {
			gone = append(gone, i)
		}
	}
	if !slices.Contains(kept, 0) || !slices.Contains(kept, 11) || len(gone) == 0 {
		t.Fatalf("entries kept %v, gone %v: want 0 (used often) and 11 (the last) kept, some gone", kept, gone)
	}
	for _, k := range kept[1:] {
		if k < slices.Max(gone) {
			t.Errorf("entries kept %v, gone %v: entry %d, stored before %d, stayed", kept, gone, k, slices.Max(gone))
		}
	}
}

// needFreeSpace skips a test that stores into the compile cache where the
// file system is too full for the cache to store anything.
func needFreeSpace(t *testing.T, dir string) {
	t.Helper()
	if free, ok := freeSpace(dir); ok && free < 2*minFreeSpace {
		t.Skipf("%d bytes free: the compile cache stores nothing with less than %d", free, minFreeSpace)
	}
}

// TestCompileCacheDiskFull: nothing is stored where the file system would
// be left with less than minFreeSpace.
func TestCompileCacheDiskFull(t *testing.T) {
	f := newCompileFixture(t)
	free, ok := freeSpace(f.src)
	if !ok {
		t.Skip("free space unknown here")
	}
	defer func(m int64) { minFreeSpace = m }(minFreeSpace)
	// Far more than is free: other tests (or programs) that delete files
	// while this one runs must not make room (a CI run on a disk with
	// 10 GB free stored the entry when minFreeSpace was just what was
	// free at the start).
	minFreeSpace = free + 1<<40
	f.compile(id1)
	f.compile(id1)
	if f.runs() != 2 {
		t.Errorf("with the disk all but full the compiler ran %d times, want 2 (nothing stored)", f.runs())
	}
}

// ageIndex sets the time an entry was last used to age ago.
func ageIndex(t *testing.T, dir string, k toolKey, age time.Duration) {
	t.Helper()
	when := time.Now().Add(-age)
	if err := os.Chtimes(entryFile(dir, k, "id"), when, when); err != nil {
		t.Fatal(err)
	}
}

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range files {
		if info, err := f.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

// FuzzBoundShard bounds a shard of entries of any sizes and last uses,
// with files of entries being written beside them: a shard within its
// share is not touched; otherwise it ends within shardLowWater of it, or
// with only the kept entry and files being written left; entries go
// whole, least recently used first; the kept entry and the files being
// written stay.
func FuzzBoundShard(f *testing.F) {
	f.Add([]byte{10, 1, 20, 2, 30, 3, 40, 4}, uint16(50), uint8(0))
	f.Add([]byte{200, 9, 200, 8, 1, 7, 1, 6, 90, 5}, uint16(300), uint8(3))
	f.Add([]byte{5, 5, 5, 5, 5, 5}, uint16(100), uint8(1))
	f.Add([]byte{1, 1}, uint16(0), uint8(0))
	f.Fuzz(func(t *testing.T, spec []byte, share uint16, keepIndex uint8) {
		if len(spec) > 40 {
			return
		}
		dir := t.TempDir()
		type entry struct {
			key  string
			size int
			used time.Time
		}
		var entries []entry
		base := time.Now().Add(-1000 * time.Hour)
		for i := 0; i+1 < len(spec); i += 2 {
			e := entry{key: fmt.Sprintf("%064x", i), size: int(spec[i]) * 10, used: base.Add(time.Duration(spec[i+1])*time.Hour + time.Duration(i)*time.Second)}
			entries = append(entries, e)
			write(t, filepath.Join(dir, e.key+"-a"), strings.Repeat("x", e.size), 0o600)
			write(t, filepath.Join(dir, e.key+"-id"), "", 0o600)
			os.Chtimes(filepath.Join(dir, e.key+"-id"), e.used, e.used)
		}
		// A store in progress: an output with no index yet, and a
		// temporary file.
		write(t, filepath.Join(dir, strings.Repeat("f", 64)+"-a"), strings.Repeat("y", 70), 0o600)
		write(t, filepath.Join(dir, ".tmp-123"), strings.Repeat("z", 30), 0o600)
		keep := ""
		if len(entries) > 0 {
			keep = entries[int(keepIndex)%len(entries)].key
		}
		before := dirSize(t, dir)

		boundShard(dir, int64(share), keep)

		after := dirSize(t, dir)
		var kept, gone []entry
		for _, e := range entries {
			_, errA := os.Stat(filepath.Join(dir, e.key+"-a"))
			_, errID := os.Stat(filepath.Join(dir, e.key+"-id"))
			if (errA == nil) != (errID == nil) {
				t.Fatalf("entry %s half removed", e.key[60:])
			}
			if errA == nil {
				kept = append(kept, e)
			} else {
				gone = append(gone, e)
			}
		}
		stay := []string{strings.Repeat("f", 64) + "-a", ".tmp-123"}
		if keep != "" {
			stay = append(stay, keep+"-a", keep+"-id")
		}
		for _, name := range stay {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Errorf("%s was removed", name)
			}
		}
		if before <= int64(share) {
			if len(gone) > 0 {
				t.Fatalf("a shard of %d bytes within its share %d lost %d entries", before, share, len(gone))
			}
			return
		}
		onlyKept := len(kept) == 0 || len(kept) == 1 && kept[0].key == keep
		if float64(after) > shardLowWater*float64(share) && !onlyKept {
			t.Errorf("a shard of %d bytes, share %d: %d bytes left with %d entries", before, share, after, len(kept))
		}
		newestGone := slices.MaxFunc(append(gone, entry{used: base.Add(-time.Hour)}), func(a, b entry) int { return a.used.Compare(b.used) })
		for _, e := range kept {
			if e.key != keep && e.used.Before(newestGone.used) {
				t.Errorf("entry used at %v kept, one used later (%v) removed", e.used, newestGone.used)
			}
		}
		// Removing fewer would not do: with the last one removed (the
		// one used most recently) the shard was above its low water.
		if len(gone) > 0 && float64(after+int64(newestGone.size)) <= shardLowWater*float64(share) {
			t.Errorf("removed the entry used at %v when the shard was within its low water without it", newestGone.used)
		}
	})
}

// TestTrimCache: once a trimInterval, a pppexec that writes into the cache
// removes what was not used for trimAge (runtimes, the compile cache's
// entries, tools' lines) and what was left half made before that
// interval; what a build uses is marked used and stays.
func TestTrimCache(t *testing.T) {
	cache := t.TempDir()
	dep := filepath.Join(t.TempDir(), "dep.a")
	write(t, dep, "!<arch>\n", 0o600)
	long, day := time.Now().Add(-trimAge-time.Hour), time.Now().Add(-trimInterval-time.Hour)
	recent := time.Now().Add(-2 * touchInterval)
	age := func(name string, when time.Time) {
		t.Helper()
		if err := os.Chtimes(name, when, when); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(name string) string {
		t.Helper()
		if err := os.MkdirAll(name, 0o700); err != nil {
			t.Fatal(err)
		}
		return name
	}
	file := func(name string, when time.Time) string {
		t.Helper()
		mkdir(filepath.Dir(name))
		write(t, name, "x", 0o600)
		age(name, when)
		return name
	}

	unusedRT := writeRuntimeDir(t, filepath.Join(cache, "rt-000000000000000000000001"), dep)
	age(filepath.Join(unusedRT, sumsFile), long)
	usedRT := writeRuntimeDir(t, filepath.Join(cache, "rt-000000000000000000000002"), dep)
	age(filepath.Join(usedRT, sumsFile), long)
	if _, err := readRuntimeBuild(usedRT); err != nil { // a build uses it: marked used
		t.Fatal(err)
	}
	recentRT := writeRuntimeDir(t, filepath.Join(cache, "rt-000000000000000000000003"), dep)
	age(filepath.Join(recentRT, sumsFile), recent)
	brokenRT := mkdir(filepath.Join(cache, "rt-000000000000000000000004"))
	age(brokenRT, long)
	killedBuild := mkdir(filepath.Join(cache, "rt-build-1"))
	age(killedBuild, day)
	runningBuild := mkdir(filepath.Join(cache, "rt-build-2"))
	notOurs := file(filepath.Join(cache, "notes.txt"), long)

	oldMemo := file(filepath.Join(cache, "versions", strings.Repeat("1", 64)), long)
	newMemo := file(filepath.Join(cache, "versions", strings.Repeat("2", 64)), recent)

	shard := filepath.Join(cache, "compile", "ab")
	oldEntry := []string{file(filepath.Join(shard, "ab1-a"), long), file(filepath.Join(shard, "ab1-id"), long)}
	usedEntry := []string{file(filepath.Join(shard, "ab2-a"), long), file(filepath.Join(shard, "ab2-id"), recent)}
	oldOrphan := file(filepath.Join(shard, "ab3-a"), long)
	newOrphan := file(filepath.Join(shard, "ab4-a"), recent)
	oldTemp := file(filepath.Join(shard, ".tmp-1"), day)
	newTemp := file(filepath.Join(shard, ".tmp-2"), recent)
	oldMarker := file(filepath.Join(cache, "compile", "trimmed"), recent)
	file(filepath.Join(cache, "trimmed"), day)

	trimCache(cache)

	want := map[string]bool{
		unusedRT: false, usedRT: true, recentRT: true, brokenRT: false, killedBuild: false, runningBuild: true, notOurs: true,
		oldMemo: false, newMemo: true,
		oldEntry[0]: false, oldEntry[1]: false, usedEntry[0]: true, usedEntry[1]: true,
		oldOrphan: false, newOrphan: true, oldTemp: false, newTemp: true, oldMarker: false,
	}
	for name, want := range want {
		if _, err := os.Lstat(name); (err == nil) != want {
			rel, _ := filepath.Rel(cache, name)
			t.Errorf("%s: exists %v after the trim, want %v", rel, err == nil, want)
		}
	}

	// Trimmed now: the next writer within trimInterval does not trim.
	again := file(filepath.Join(cache, "versions", strings.Repeat("3", 64)), long)
	trimCache(cache)
	if _, err := os.Lstat(again); err != nil {
		t.Errorf("a second trim within trimInterval removed an unused memo")
	}
}
