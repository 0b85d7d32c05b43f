package profile

// A tests file says which tests ran while each part of one process's counts
// was made (per-test attribution, pppexec -tests). rt writes it beside the
// process's counter file as pathcover.<pid>.<n>.tests, appending one write
// of whole records at each test event (a test starts, calls t.Parallel,
// waits for its parallel subtests, resumes, ends), so a killed process
// loses at most the record it was writing:
//
//	[8]byte "pcovtst2"
//	then records, each
//		byte    kind
//		uvarint n, the payload's length
//		n bytes, the payload
//		uint32  little-endian, the checksum (CRC-32C, Checksum) of the
//		        record's kind, length and payload
//	the payloads:
//	'C'	the name of the process's counter file in the same directory
//	'K'	the import path of the package whose tests run
//	'N'	a test: uvarint id (1 or more), uvarint its parent's id (0 for
//		none recorded: a top-level test, or a fuzz target's seed), then
//		the test's full name (t.Name())
//	'P'	uvarint id: the test called t.Parallel
//	'H'	uvarint segment number, then the 16 bytes of a metadata hash:
//		the process's segment with that number counts that package
//	'D'	uvarint s, then s segments, each: uvarint segment number,
//		uvarint w, then w × (uvarint index gap, uvarint amount): counter
//		words of the segment grew by these amounts (wrapping, as counters
//		wrap) since the previous 'D'; an index is the previous one's plus
//		the gap (the first's gap is its index)
//	'R'	uvarint n, then n uvarint ids, ascending: the tests that may run
//		from now on (no test, before the first 'R')
//
// A 'D' record is what the tests of the last 'R' before it ran. What the
// counter file holds beyond all the 'D' records together is what the tests
// of the last 'R' ran, before the process ended or was killed: at a clean
// end that 'R' names no test. Several tests in one 'R' ran together
// (parallel tests, or a test that calls t.Run from several goroutines),
// and their counts cannot be told apart.
//
// Words at a hash table's key are keys, not counts: their growth is
// ignored, and the key is read from the counter file. Hot path tables
// (CounterHot) replace their entries, so their counts are not attributed.

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pathcover/pathcover/internal/wire"
	"github.com/pathcover/pathcover/numbering"
)

const testsMagic = "pcovtst2"

// The record kinds of a tests file.
const (
	TestRecCounts   = 'C'
	TestRecPackage  = 'K'
	TestRecName     = 'N'
	TestRecParallel = 'P'
	TestRecSegment  = 'H'
	TestRecDelta    = 'D'
	TestRecRunning  = 'R'
)

// MaxTestsFile is the largest tests file read.
const MaxTestsFile = 1 << 30

// A TestsFile is a tests file, read.
type TestsFile struct {
	Counts  string // the counter file's name, in the same directory
	Package string
	// Tests are the tests by id.
	Tests map[uint64]*TestName
	// Parts are the process's counts, in order, with the tests that ran
	// while each was made.
	Parts []TestPart
	// Running are the tests of the last 'R': what the counter file holds
	// beyond the parts is theirs.
	Running []uint64
}

// A TestName is one test of a tests file.
type TestName struct {
	Name     string
	Parent   uint64 // 0 for none
	Parallel bool
}

// A TestPart is what one 'D' record says: counter words that grew, by
// segment hash, while the tests Running ran.
type TestPart struct {
	Running []uint64
	Deltas  []Segment // Len is 0: only Hash and Words
}

// ReadTests reads a tests file. A file cut short (a process killed while
// it wrote) gives the records before the cut and an error saying so.
func ReadTests(name string) (*TestsFile, error) {
	f, _, err := OpenFile(name, "tests file", MaxTestsFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxTestsFile+1))
	if err != nil {
		return nil, err
	}
	return ParseTests(data)
}

// ErrTestsCut is wrapped by the error of a tests file whose last record is
// cut short.
var ErrTestsCut = errors.New("the last record is cut short (the process was killed while writing it?)")

// ParseTests parses a tests file's content. Records after one that is cut
// short are lost, and the error wraps ErrTestsCut; a malformed record is an
// error that returns nothing.
func ParseTests(data []byte) (*TestsFile, error) {
	if !bytes.HasPrefix(data, []byte(testsMagic)) {
		if len(data) >= len(testsMagic) && bytes.HasPrefix(data, []byte(testsMagic[:len(testsMagic)-1])) {
			return nil, fmt.Errorf("a tests file of version %q, not %q: written by another version of pathcover", data[len(testsMagic)-1:len(testsMagic)], testsMagic[len(testsMagic)-1:])
		}
		return nil, fmt.Errorf("not a tests file (no %s header)", testsMagic)
	}
	tf := &TestsFile{Tests: make(map[uint64]*TestName)}
	hashes := make(map[uint64]string)
	rest := data[len(testsMagic):]
	for len(rest) > 0 {
		kind := rest[0]
		n, k := binary.Uvarint(rest[1:])
		if k <= 0 || n > uint64(len(rest)-1-k) || uint64(len(rest)-1-k)-n < 4 {
			if k < 0 {
				return nil, fmt.Errorf("record at byte %d: its length overflows", len(data)-len(rest))
			}
			return tf, fmt.Errorf("record at byte %d: %w", len(data)-len(rest), ErrTestsCut)
		}
		end := 1 + k + int(n)
		payload := rest[1+k : end]
		at := len(data) - len(rest)
		if err := VerifyChecksum(fmt.Sprintf("record at byte %d", at), rest[:end], binary.LittleEndian.Uint32(rest[end:])); err != nil {
			return nil, err
		}
		rest = rest[end+4:]
		if err := tf.record(kind, payload, hashes); err != nil {
			return nil, fmt.Errorf("record %q at byte %d: %w", kind, at, err)
		}
	}
	return tf, nil
}

// record adds one record to tf.
func (tf *TestsFile) record(kind byte, b []byte, hashes map[uint64]string) error {
	r := &wire.Decoder{B: b}
	switch kind {
	case TestRecCounts:
		name := string(b)
		if !isCountsName(name) {
			return fmt.Errorf("names %q, which is not a counter file's name", name)
		}
		tf.Counts = name
		return nil
	case TestRecPackage:
		if err := checkTestsText("package", b); err != nil {
			return err
		}
		tf.Package = string(b)
		return nil
	case TestRecName:
		id, parent := r.Uvarint(""), r.Uvarint("")
		if r.Err != nil {
			return r.Err
		}
		if id == 0 || parent == id {
			return fmt.Errorf("test id %d, parent %d", id, parent)
		}
		if _, ok := tf.Tests[id]; ok {
			return fmt.Errorf("test %d named twice", id)
		}
		if parent != 0 && tf.Tests[parent] == nil {
			return fmt.Errorf("test %d has parent %d, not named before", id, parent)
		}
		if err := checkTestsText("test name", r.B[r.Pos:]); err != nil {
			return err
		}
		tf.Tests[id] = &TestName{Name: string(r.B[r.Pos:]), Parent: parent}
		return nil
	case TestRecParallel:
		id := r.Uvarint("")
		if err := r.End(); err != nil {
			return err
		}
		t := tf.Tests[id]
		if t == nil {
			return fmt.Errorf("unknown test %d", id)
		}
		t.Parallel = true
		return nil
	case TestRecSegment:
		seg := r.Uvarint("")
		if r.Err != nil || r.Left() != 16 {
			return errors.New("not a segment number and a hash")
		}
		if _, ok := hashes[seg]; ok {
			return fmt.Errorf("segment %d announced twice", seg)
		}
		hashes[seg] = hex.EncodeToString(r.B[r.Pos:])
		return nil
	case TestRecRunning:
		n := r.Uvarint("")
		if r.Err == nil && n > uint64(r.Left()) {
			return errors.New("more tests than bytes")
		}
		ids := make([]uint64, 0, n)
		for range n {
			id := r.Uvarint("")
			if r.Err != nil {
				return r.Err
			}
			if tf.Tests[id] == nil {
				return fmt.Errorf("unknown test %d", id)
			}
			if len(ids) > 0 && id <= ids[len(ids)-1] {
				return errors.New("test ids not ascending")
			}
			ids = append(ids, id)
		}
		if err := r.End(); err != nil {
			return err
		}
		tf.Running = ids
		return nil
	case TestRecDelta:
		part := TestPart{Running: tf.Running}
		segs := r.Uvarint("")
		if r.Err == nil && segs > uint64(r.Left()) {
			return errors.New("more segments than bytes")
		}
		for range segs {
			seg, words := r.Uvarint(""), r.Uvarint("")
			if r.Err != nil {
				return r.Err
			}
			hash, ok := hashes[seg]
			if !ok {
				return fmt.Errorf("segment %d not announced", seg)
			}
			if words > uint64(r.Left())/2 {
				return errors.New("more words than bytes")
			}
			s := Segment{Hash: hash, Words: make([]Word, 0, words)}
			var index uint64
			for i := range words {
				gap, v := r.Uvarint(""), r.Uvarint("")
				if i > 0 {
					gap++
				}
				if r.Err != nil {
					return r.Err
				}
				if index+gap < index {
					return errors.New("word index overflows")
				}
				index += gap
				s.Words = append(s.Words, Word{index, v})
			}
			part.Deltas = append(part.Deltas, s)
		}
		if err := r.End(); err != nil {
			return err
		}
		tf.Parts = append(tf.Parts, part)
		return nil
	}
	return fmt.Errorf("unknown record kind %d", kind)
}

// checkTestsText refuses a name in a tests file that is not UTF-8 or
// holds a control or bidirectional formatting character, as metadata's
// names are refused (unsafeRune): go test writes none into a test's name
// (package testing spells a subtest's unprintable runes as escapes), and
// such a name would reach the user's terminal as it is.
func checkTestsText(what string, b []byte) error {
	if !utf8.Valid(b) || bytes.IndexFunc(b, unsafeRune) >= 0 {
		return fmt.Errorf("a %s with control characters or invalid UTF-8: %q", what, b)
	}
	return nil
}

// isCountsName reports whether name is a counter file's name in its
// directory, so that a tests file cannot make a reader open another file.
func isCountsName(name string) bool {
	base, ok := strings.CutSuffix(name, ".counts")
	if !ok || !strings.HasPrefix(base, "pathcover.") {
		return false
	}
	for _, c := range base[len("pathcover."):] {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// A TestGroup is tests that ran a path together: one test, or several
// that ran at the same time, which counts cannot tell apart; none, for
// what ran outside any test (init, TestMain, a background goroutine
// between tests).
type TestGroup struct {
	Package string   `json:",omitempty"`
	Tests   []string // full names, sorted
	// Parallel says that a test of the group called t.Parallel.
	Parallel bool `json:",omitempty"`
}

func (g TestGroup) key() string {
	return g.Package + "\x00" + strings.Join(g.Tests, "\x00")
}

// String names the group: its test, "outside tests", or its tests joined
// with " | ".
func (g TestGroup) String() string {
	if len(g.Tests) == 0 {
		return "(outside tests)"
	}
	return strings.Join(g.Tests, " | ")
}

// Attribution says which tests ran which paths.
type Attribution struct {
	Groups []TestGroup
	// Runs[hash][func][id][group] is how many times the group (an index
	// in Groups) ran path id of function func of the metadata hash.
	Runs map[string]map[int]map[uint64]map[int]uint64
	// Unattributed are the functions counted in a way whose counts
	// cannot be attributed (hot path tables), by hash.
	Unattributed map[string]map[int]bool
	index        map[string]int
}

func (a *Attribution) group(g TestGroup) int {
	if a.index == nil {
		a.index = make(map[string]int)
	}
	k := g.key()
	if i, ok := a.index[k]; ok {
		a.Groups[i].Parallel = a.Groups[i].Parallel || g.Parallel
		return i
	}
	a.Groups = append(a.Groups, g)
	a.index[k] = len(a.Groups) - 1
	return len(a.Groups) - 1
}

func (a *Attribution) add(hash string, fn int, id uint64, group int, n uint64) {
	if n == 0 {
		return
	}
	if a.Runs == nil {
		a.Runs = make(map[string]map[int]map[uint64]map[int]uint64)
	}
	byFunc := a.Runs[hash]
	if byFunc == nil {
		byFunc = make(map[int]map[uint64]map[int]uint64)
		a.Runs[hash] = byFunc
	}
	byID := byFunc[fn]
	if byID == nil {
		byID = make(map[uint64]map[int]uint64)
		byFunc[fn] = byID
	}
	byGroup := byID[id]
	if byGroup == nil {
		byGroup = make(map[int]uint64)
		byID[id] = byGroup
	}
	byGroup[group] = numbering.SatAdd(byGroup[group], n)
}

// merge adds b's attribution to a.
func (a *Attribution) merge(b *Attribution) {
	for hash, byFunc := range b.Runs {
		for fn, byID := range byFunc {
			for id, byGroup := range byID {
				for g, n := range byGroup {
					a.add(hash, fn, id, a.group(b.Groups[g]), n)
				}
			}
		}
	}
	for hash, fns := range b.Unattributed {
		for fn := range fns {
			a.unattributed(hash, fn)
		}
	}
}

func (a *Attribution) unattributed(hash string, fn int) {
	if a.Unattributed == nil {
		a.Unattributed = make(map[string]map[int]bool)
	}
	if a.Unattributed[hash] == nil {
		a.Unattributed[hash] = make(map[int]bool)
	}
	a.Unattributed[hash][fn] = true
}

// AddTests attributes the counts of counter file cf, which tests file tf
// names, to tests, with the metadata in p. Deltas of segments whose
// metadata p lacks are left out, as AddCounts leaves their counts out.
func (p *Profile) AddTests(tf *TestsFile, cf *CountFile) error {
	if p.Tests == nil {
		p.Tests = &Attribution{}
	}
	a := p.Tests
	// A sharded build's counter file has a segment per shard of each
	// package (rt/shards.go), each with its own 'H' record in the tests
	// file: the keys of tables are read from the first, which holds the
	// hash tables and has every PPP array's keys, and what the file holds
	// beyond the parts is the sum of all.
	final := make(map[string]Segment)
	total := make(map[string]map[uint64]uint64)
	for _, s := range cf.Segments {
		if s.Residual {
			continue
		}
		if _, ok := final[s.Hash]; !ok {
			final[s.Hash] = s
			total[s.Hash] = make(map[uint64]uint64, len(s.Words))
		}
		for _, w := range s.Words {
			total[s.Hash][w.Index] += w.Value
		}
	}
	groupOf := func(running []uint64) int {
		g := TestGroup{Package: tf.Package, Tests: make([]string, 0, len(running))}
		for _, id := range running {
			t := tf.Tests[id]
			g.Tests = append(g.Tests, t.Name)
			g.Parallel = g.Parallel || t.Parallel
		}
		slices.Sort(g.Tests)
		return a.group(g)
	}
	// What the counter file holds beyond the parts is the last 'R''s.
	sum := make(map[string]map[uint64]uint64)
	for _, part := range tf.Parts {
		for _, d := range part.Deltas {
			if sum[d.Hash] == nil {
				sum[d.Hash] = make(map[uint64]uint64)
			}
			for _, w := range d.Words {
				sum[d.Hash][w.Index] += w.Value
			}
		}
	}
	rest := TestPart{Running: tf.Running}
	for _, hash := range slices.Sorted(maps.Keys(final)) {
		d := Segment{Hash: hash}
		for _, i := range slices.Sorted(maps.Keys(total[hash])) {
			if v := total[hash][i] - sum[hash][i]; v != 0 {
				d.Words = append(d.Words, Word{i, v})
			}
		}
		rest.Deltas = append(rest.Deltas, d)
	}
	var problems problems
	for _, part := range append(slices.Clip(tf.Parts), rest) {
		g := groupOf(part.Running)
		for _, d := range part.Deltas {
			m := p.Metas[d.Hash]
			s, ok := final[d.Hash]
			if m == nil || !ok {
				continue
			}
			if len(d.Words) > 0 && d.Words[len(d.Words)-1].Index >= uint64(m.Words) {
				problems = append(problems, fmt.Errorf("tests file: a word of %s past its %d", m.Package, m.Words))
				continue
			}
			for i := range m.Funcs {
				counts, ok := m.Funcs[i].DeltaCounts(d.Words, s.Words)
				if !ok {
					a.unattributed(d.Hash, i)
					continue
				}
				for id, n := range counts {
					a.add(d.Hash, i, id, g, n)
				}
			}
		}
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// DeltaCounts reads the path counts that a growth of the function's
// counter words makes: delta are the words that grew and by how much,
// final the words of the counter file at the end (for the keys of hash
// tables). ok is false for a hot path table, whose entries are replaced,
// so that a growth of its words is no count.
func (f *Func) DeltaCounts(delta, final []Word) (counts map[uint64]uint64, ok bool) {
	c := f.Counters
	lo, hi := uint64(c.Offset), uint64(c.Offset)+uint64(c.Size)
	d := wordRange(delta, lo, hi)
	switch c.Kind {
	case CounterHot:
		if len(d) > 0 {
			return nil, false
		}
		return nil, true
	case CounterArray:
		counts = make(map[uint64]uint64, len(d))
		for _, x := range d {
			if x.Index-lo < f.Paths {
				counts[x.Index-lo] = x.Value
			}
		}
		return counts, true
	case CounterHash, CounterPPPHash, CounterPPP:
		counts = make(map[uint64]uint64, len(d))
		for _, x := range d {
			if (x.Index-lo)%2 == 0 {
				continue // a key, or the hash table's count of runs that found it full
			}
			i, found := slices.BinarySearchFunc(final, x.Index-1, func(w Word, i uint64) int { return cmp.Compare(w.Index, i) })
			if !found {
				continue
			}
			if key := final[i].Value; key != 0 && key-1 < f.Paths {
				counts[key-1] = numbering.SatAdd(counts[key-1], x.Value)
			}
		}
		return counts, true
	}
	return nil, true
}
