package profile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestSaturation: counts, lost runs and process counts that would pass the
// largest value stay there instead of wrapping round to small numbers.
func TestSaturation(t *testing.T) {
	_, raw := diamondMeta(t)
	hash := Hash(raw)
	var text bytes.Buffer
	text.WriteString("pathcover-profile 1\nprocesses 9223372036854775807\nmeta " + hash + " " + string(raw) + "\n")
	text.WriteString("paths " + hash + " 0 1 18446744073709551615\n")
	text.WriteString("lost " + hash + " 1 18446744073709551615\n")
	p := New()
	for range 2 {
		if err := p.ReadText(bytes.NewReader(text.Bytes())); err != nil {
			t.Fatal(err)
		}
	}
	p.Add(hash, 0, 1, 2)
	if got := p.Counts[hash][0][1]; got != math.MaxUint64 {
		t.Errorf("count of 2^64-1, twice, plus 2 = %d", got)
	}
	if got := p.Lost[hash][1]; got != math.MaxUint64 {
		t.Errorf("lost runs = %d", got)
	}
	if p.Processes != math.MaxInt {
		t.Errorf("processes = %d", p.Processes)
	}
	// What merge writes of it reads back.
	var out bytes.Buffer
	if err := p.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	q := New()
	if err := q.ReadText(&out); err != nil {
		t.Fatalf("reading back a saturated profile: %v", err)
	}
	if q.Processes != math.MaxInt || q.Counts[hash][0][1] != math.MaxUint64 {
		t.Errorf("read back: %d processes, count %d", q.Processes, q.Counts[hash][0][1])
	}
}

// TestZeroCount: a path counted 0 times did not run, whatever file says
// so.
func TestZeroCount(t *testing.T) {
	_, raw := diamondMeta(t)
	hash := Hash(raw)
	p := New()
	err := p.ReadText(strings.NewReader("pathcover-profile 1\nprocesses 1\nmeta " + hash + " " + string(raw) + "\npaths " + hash + " 0 2 0\npaths " + hash + " 0 1 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Counts[hash][0][2]; ok || p.Counts[hash][0][1] != 5 {
		t.Errorf("counts = %v", p.Counts[hash][0])
	}
	if ids, _, _ := p.PathsRun().Lookup("example.com/p", "F", &p.Metas[hash].Funcs[0]); len(ids) != 1 || ids[0] != 1 {
		t.Errorf("paths run = %v", ids)
	}
}

// TestMetaHostileText: names that would drive a terminal or forge a line of
// CI output are refused where metadata is read, so no report prints them.
func TestMetaHostileText(t *testing.T) {
	for _, edit := range []func(m *Meta){
		func(m *Meta) { m.Funcs[0].Name = "F\n::error file=x.go::forged" },
		func(m *Meta) { m.Funcs[0].Name = "F\x1b[2J" },
		func(m *Meta) { m.Package = "example.com/p\r" },
		func(m *Meta) { m.Files[0] = "/tmp/p\u202e.go" },
		func(m *Meta) { m.Funcs[0].Edges[0].Kind = "true\x00" },
		func(m *Meta) { m.Funcs[0].Blocks[0].Kind = "body\x7f" },
		func(m *Meta) { m.Funcs[0].Blocks[2].Calls[0].Func = "M\n" },
		func(m *Meta) { m.Sums = []string{"not hex"} },
		func(m *Meta) { m.Sums = []string{Hash(nil), Hash(nil)} },
	} {
		m, _ := diamondMeta(t)
		edit(m)
		raw, _ := json.Marshal(m)
		if _, err := ParseMeta(raw); err == nil {
			t.Errorf("ParseMeta accepted %s", raw[:min(len(raw), 200)])
		}
	}
	// Ordinary names, and non-ASCII ones, are fine.
	m, _ := diamondMeta(t)
	m.Funcs[0].Name = "(*Tëst[T]).Méthode.func1"
	m.Files[0] = "/home/ünïcode/p.go"
	m.Sums = []string{Hash([]byte("package p"))}
	raw, _ := json.Marshal(m)
	if _, err := ParseMeta(raw); err != nil {
		t.Errorf("ParseMeta: %v", err)
	}
}

// TestMetaAbsurdTotal: a path count longer than the graph allows is
// refused before it is parsed (a two-million-digit one cost every command
// seconds).
func TestMetaAbsurdTotal(t *testing.T) {
	m, _ := diamondMeta(t)
	m.Funcs[0].Total = "1" + strings.Repeat("0", 2_000_000)
	raw, _ := json.Marshal(m)
	if _, err := ParseMeta(raw); err == nil || !strings.Contains(err.Error(), "digits") {
		t.Errorf("ParseMeta of a 2,000,001-digit path count: %v", err)
	}
	// The largest count the graph allows is accepted: 5 edges, at most
	// 2^10 paths once cut edges are split, 4 digits.
	m.Funcs[0].Total = "1024"
	raw, _ = json.Marshal(m)
	if _, err := ParseMeta(raw); err != nil {
		t.Errorf("ParseMeta of a 4-digit path count: %v", err)
	}
}

// TestMetaTimes: a profile directory remembers when each metadata file was
// written, which reports use to tell the newest build.
func TestMetaTimes(t *testing.T) {
	dir, hash := profileDir(t)
	p := New()
	if _, err := p.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, hash+".meta"))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.MetaTimes[hash]; !got.Equal(info.ModTime()) {
		t.Errorf("MetaTimes = %v, file %v", got, info.ModTime())
	}
}

// TestProblemKinds: the problems that leave functions out (unreadable
// metadata, counts without metadata) are told from those that only lose
// counts.
func TestProblemKinds(t *testing.T) {
	dir, hash := profileDir(t)
	if err := os.WriteFile(filepath.Join(dir, "pathcover.9.0.counts"), []byte("garbage"), 0o666); err != nil {
		t.Fatal(err)
	}
	p := New()
	problems, err := p.ReadDir(dir)
	if err != nil || len(problems) != 1 || IsMetaProblem(problems[0]) {
		t.Errorf("a bad counter file: %v, %v", problems, err)
	}
	if err := os.Remove(filepath.Join(dir, hash+".meta")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000000000000000.meta"), []byte("{}"), 0o666); err != nil {
		t.Fatal(err)
	}
	problems, err = New().ReadDir(dir)
	meta := 0
	for _, pr := range problems {
		if IsMetaProblem(pr) {
			meta++
		}
	}
	// The corrupt metadata file, and the two counter files whose metadata
	// is gone; not the bad counter file.
	if err != nil || len(problems) != 4 || meta != 3 {
		t.Errorf("problems %v: %d leave functions out, want 3 of 4", problems, meta)
	}
}

// TestReadDirIrregular: a link or a FIFO in a profile directory is not
// followed or opened.
func TestReadDirIrregular(t *testing.T) {
	dir, hash := profileDir(t)
	outside := t.TempDir()
	if err := os.Rename(filepath.Join(dir, hash+".meta"), filepath.Join(outside, hash+".meta")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, hash+".meta"), filepath.Join(dir, hash+".meta")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pathcover.7.0.counts"), 0o666); err != nil {
		t.Fatal(err)
	}
	p := New()
	problems, err := p.ReadDir(dir)
	if err != nil || len(p.Metas) != 0 {
		t.Fatalf("ReadDir: %d metadata, %v", len(p.Metas), err)
	}
	var irregular int
	for _, pr := range problems {
		if strings.Contains(pr.Error(), "not a regular file") {
			irregular++
		}
	}
	if irregular != 2 {
		t.Errorf("problems: %v", problems)
	}
}

// TestSparseCounts: a counter file of gigabytes, mostly holes, is read in
// pieces, keeping only the words that are not zero: it costs neither the
// memory its size claims nor the time to read its holes. One larger than
// any file rt writes is refused.
func TestSparseCounts(t *testing.T) {
	dir := t.TempDir()
	sparse := func(name string, size int64) (string, []Word) {
		t.Helper()
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		words := uint64(size-4096-segmentHeader) / 8
		head := smallCounts()[:32]
		binary.LittleEndian.PutUint64(head[8:], 4096)
		seg := make([]byte, segmentHeader)
		copy(seg, segmentMagic)
		binary.LittleEndian.PutUint64(seg[24:], words)
		last := make([]byte, 8)
		binary.LittleEndian.PutUint64(last, 7)
		for _, w := range []struct {
			b   []byte
			off int64
		}{{head, 0}, {seg, 4096}, {last, 4096 + segmentHeader + 8*1000}, {last, size - 8}} {
			if _, err := f.WriteAt(w.b, w.off); err != nil {
				t.Skipf("cannot write a sparse file here: %v", err)
			}
		}
		return f.Name(), []Word{{1000, 7}, {words - 1, 7}}
	}
	name, want := sparse("pathcover.1.0.counts", 3<<30)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cf, err := ReadCounts(name)
	runtime.ReadMemStats(&after)
	if err != nil || len(cf.Segments) != 1 || !slices.Equal(cf.Segments[0].Words, want) {
		t.Fatalf("ReadCounts of a 3 GiB sparse file: %v, %+v", err, cf)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("reading it allocated %d MiB", alloc>>20)
	}
	huge, _ := sparse("pathcover.2.0.counts", MaxCountsSize+4096)
	if _, err := ReadCounts(huge); err == nil || !strings.Contains(err.Error(), "larger than any counter file") {
		t.Errorf("ReadCounts of a file past the limit: %v", err)
	}
}

// TestMissingMetas: the packages a recording ran whose metadata a profile
// lacks are named, each with why: the problem that rejected its file, or
// that there is none; the package's path where the recording knows it.
func TestMissingMetas(t *testing.T) {
	dir, hash := profileDir(t)
	const gone, rejected = "11111111111111111111111111111111", "22222222222222222222222222222222"
	if err := os.WriteFile(filepath.Join(dir, rejected+".meta"), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := New()
	problems, err := p.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.MissingMetas(map[string]string{hash: ""}, problems); err != nil {
		t.Errorf("all there: %v", err)
	}
	err = p.MissingMetas(map[string]string{hash: "", gone: "example.com/gone", rejected: ""}, problems)
	var mm *MissingMetaError
	if !errors.As(err, &mm) || !errors.Is(err, ErrNoMeta) || len(mm.Packages) != 2 {
		t.Fatalf("two missing: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"2 packages", "example.com/gone: no metadata file " + gone + ".meta", filepath.Join(dir, rejected+".meta") + ": "} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
}
