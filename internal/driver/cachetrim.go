package driver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/atomicfile"
	"github.com/pathcover/pathcover/internal/buildspec"
)

// How the cache directory (cachedir.go) stays bounded. It holds, for the
// user alone:
//
//	rt-KEY/                 a compiled runtime (runtime.go), SHA256SUMS last
//	rt-build-NNN/           a runtime being compiled (a killed build leaves one)
//	compile/XX/KEY-{a,h,x,s} the compile cache's outputs (compilecache.go),
//	compile/XX/KEY-id       and its index, written last
//	compile/XX/.tmp-NNN     a file being written
//	versions/KEY            a tool's -V=full line (toolversion.go)
//	trimmed                 empty: its modification time is the last trim's
//
// None of it may grow without bound: on this project's machine one day of
// the harness's builds left 23 GB in the compile cache beside the go
// command's 55 GB, and a build then failed for want of space. So:
//
//   - What a build uses is marked used (its modification time set to now),
//     at most once a touchInterval: a runtime's SHA256SUMS when it is
//     verified, an entry's index when it is restored, a tool's memo when
//     it is read (markUsed).
//   - Once a trimInterval, the first pppexec to write into the cache
//     removes what was not used for trimAge, and temporary files and
//     directories older than trimInterval (trimCache), as the go command
//     trims its own cache.
//   - The compile cache holds at most compileCacheLimit bytes (5 GiB, or
//     $PATHCOVERCOMPILECACHE, such as 20G). Its entries are spread evenly over 256
//     shards by their keys' first byte (SHA-256), so each store bounds
//     only its own shard, to a 256th of the limit, removing the entries
//     used least recently (boundShard), as ccache bounds its cache: a
//     store reads one directory of a few dozen files, not the cache. An
//     entry larger than a shard's share is not kept.
//   - Nothing is stored where the file system would be left with less
//     than minFreeSpace (diskspace_linux.go), so that the cache never
//     takes the space a build needs.
//
// Removing is safe for a compile that is reading an entry at the time: it
// finds a file gone or a checksum wrong, and compiles instead (restore). A
// runtime is linked by its path, so one removed between a build's compile
// and its link would fail the link; it is removed only after trimAge
// unused, and a build marks it used before using it, the trade-off the go
// command makes for its own cache's files.

const (
	defaultCompileCacheLimit = 5 << 30
	compileCacheShards       = 256
	// boundShard removes entries until its shard holds at most this part
	// of its share, so that it does not remove one at every store.
	shardLowWater = 0.8
)

// minFreeSpace is the space that the compile cache leaves free (a
// variable for tests).
var minFreeSpace int64 = 1 << 30

// compileCacheLimit returns the compile cache's bound in bytes, 0 if the
// cache is off: PATHCOVERCOMPILECACHE is off, a size in parseSize's
// syntax (5G, 500M, 1048576) or empty for the default.
func compileCacheLimit() (int64, error) {
	v := os.Getenv(compileCacheEnv)
	switch v {
	case "":
		return defaultCompileCacheLimit, nil
	case "off":
		return 0, nil
	}
	n, ok := buildspec.ParseSize(v)
	if !ok {
		return 0, fmt.Errorf("%s=%s is neither off nor a size (such as 5G or 500M: the compile cache's largest)", compileCacheEnv, v)
	}
	return n, nil
}

// markUsed sets a cache file's modification time to now if it is older
// than touchInterval: what trimCache reads as its last use.
func markUsed(name string) {
	if info, err := os.Lstat(name); err == nil && time.Since(info.ModTime()) > touchInterval {
		now := time.Now()
		os.Chtimes(name, now, now)
	}
}

// trimCache removes what was not used for trimAge from the cache
// directory, and what was left half made, if that was not done for
// trimInterval.
func trimCache(cache string) {
	marker := filepath.Join(cache, "trimmed")
	if info, err := os.Stat(marker); err == nil && time.Since(info.ModTime()) < trimInterval {
		return
	}
	if atomicfile.WriteFile(marker, nil, 0o600) != nil {
		return
	}
	now := time.Now()
	unused, abandoned := now.Add(-trimAge), now.Add(-trimInterval)
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		name, path := e.Name(), filepath.Join(cache, e.Name())
		switch {
		case runtimeDir.MatchString(name):
			// Its SHA256SUMS is marked used; a directory without one is
			// no runtime, and goes when it is old.
			used := path
			if _, err := os.Lstat(filepath.Join(path, sumsFile)); err == nil {
				used = filepath.Join(path, sumsFile)
			}
			if olderThan(used, unused) {
				os.RemoveAll(path)
			}
		case strings.HasPrefix(name, "rt-build-") && olderThan(path, abandoned):
			os.RemoveAll(path)
		}
	}
	trimFiles(filepath.Join(cache, "versions"), unused)
	shards, _ := os.ReadDir(filepath.Join(cache, "compile"))
	for _, shard := range shards {
		if shard.IsDir() {
			trimShard(filepath.Join(cache, "compile", shard.Name()), unused, abandoned)
		}
	}
	os.Remove(filepath.Join(cache, "compile", "trimmed")) // where an older pppexec kept its marker
}

// olderThan reports whether name (not followed if a link) was last
// modified before t.
func olderThan(name string, t time.Time) bool {
	info, err := os.Lstat(name)
	return err == nil && info.ModTime().Before(t)
}

// trimFiles removes the files in dir last modified before cutoff.
func trimFiles(dir string, cutoff time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if olderThan(filepath.Join(dir, e.Name()), cutoff) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// trimShard removes from a shard of the compile cache the entries not
// used since unused, outputs without an index (a compile killed between
// them) and temporary files older than abandoned.
func trimShard(dir string, unused, abandoned time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if atomicfile.IsTemp(name) {
			if olderThan(path, abandoned) {
				os.Remove(path)
			}
			continue
		}
		key, kind, ok := cutKind(name)
		if !ok || !olderThan(path, unused) {
			continue
		}
		if kind == "id" {
			removeEntry(dir, key)
			continue
		}
		// An output whose index was never written, or was removed by an
		// earlier trim.
		if _, err := os.Lstat(filepath.Join(dir, key+"-id")); errors.Is(err, fs.ErrNotExist) {
			os.Remove(path)
		}
	}
}

// cutKind splits the name of an entry's file, KEY-KIND.
func cutKind(name string) (key, kind string, ok bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return "", "", false
	}
	return name[:i], name[i+1:], true
}

// removeEntry removes an entry of the compile cache: the index first, so
// that the entry is gone even if removing the rest fails.
func removeEntry(dir, key string) {
	if err := os.Remove(filepath.Join(dir, key+"-id")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return
	}
	for _, kind := range outputKinds {
		os.Remove(filepath.Join(dir, key+"-"+kind))
	}
}

// boundShard removes the entries of a shard of the compile cache used
// least recently (by their indexes' modification times) until the shard
// holds at most shardLowWater of share bytes, if it holds more than share.
// The entry keep (just stored) stays. Files of entries being written, with
// no index yet, count but are left to their writers.
func boundShard(dir string, share int64, keep string) {
	files, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type entry struct {
		key  string
		size int64
		used time.Time
	}
	byKey := map[string]*entry{}
	var total int64
	for _, f := range files {
		info, err := f.Info()
		if err != nil {
			continue
		}
		total += info.Size()
		key, kind, ok := cutKind(f.Name())
		if !ok || atomicfile.IsTemp(f.Name()) {
			continue
		}
		e := byKey[key]
		if e == nil {
			e = &entry{key: key}
			byKey[key] = e
		}
		e.size += info.Size()
		if kind == "id" {
			e.used = info.ModTime()
		}
	}
	if total <= share {
		return
	}
	var complete []*entry
	for _, e := range byKey {
		if !e.used.IsZero() && e.key != keep {
			complete = append(complete, e)
		}
	}
	slices.SortFunc(complete, func(a, b *entry) int { return a.used.Compare(b.used) })
	for _, e := range complete {
		if float64(total) <= shardLowWater*float64(share) {
			break
		}
		removeEntry(dir, e.key)
		total -= e.size
	}
}
