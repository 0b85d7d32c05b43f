package profile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"
)

// testsBuilder writes tests files record by record, apart from rt's writer.
type testsBuilder struct{ b []byte }

func (tb *testsBuilder) rec(kind byte, payload ...any) *testsBuilder {
	var p []byte
	for _, x := range payload {
		switch x := x.(type) {
		case int:
			p = binary.AppendUvarint(p, uint64(x))
		case string:
			p = append(p, x...)
		case []byte:
			p = append(p, x...)
		}
	}
	if tb.b == nil {
		tb.b = []byte(testsMagic)
	}
	start := len(tb.b)
	tb.b = append(binary.AppendUvarint(append(tb.b, kind), uint64(len(p))), p...)
	tb.b = binary.LittleEndian.AppendUint32(tb.b, Checksum(tb.b[start:]))
	return tb
}

// resumTests rewrites the checksums of a tests file's records, as far as
// they can be found, so that fuzzing reaches the records' decoding.
func resumTests(data []byte) []byte {
	data = bytes.Clone(data)
	for pos := len(testsMagic); pos < len(data); {
		n, k := binary.Uvarint(data[pos+1:])
		if k <= 0 || n > uint64(len(data)-pos-1-k) || uint64(len(data)-pos-1-k)-n < 4 {
			break
		}
		end := pos + 1 + k + int(n)
		binary.LittleEndian.PutUint32(data[end:], Checksum(data[pos:end]))
		pos = end + 4
	}
	return data
}

// sampleTests attributes a diamondMeta package's counts: F is an array of
// 3 paths, G a hash table of 5 slots from word 3. Before any test, F's
// path 0 ran once; TestA ran F's path 2 twice and G's path 1 three times
// (G's slot 1, key 2, words 5 and 6); TestB and TestC together ran F's
// path 2 once; what is left (F's path 0 four times) is TestC's, whose
// process was killed.
func sampleTests(hash string) (*testsBuilder, *CountFile) {
	h := make([]byte, 16)
	for i := range h {
		h[i] = byte(i)
	}
	tb := (&testsBuilder{}).
		rec(TestRecCounts, "pathcover.7.12.counts").
		rec(TestRecPackage, "example.com/p").
		rec(TestRecSegment, 0, h).
		rec(TestRecDelta, 1, 0, 1, 0, 1). // seg 0, 1 word: index 0 +1
		rec(TestRecName, 1, 0, "TestA").
		rec(TestRecRunning, 1, 1).
		rec(TestRecDelta, 1, 0, 3, 2, 2, 2, 2, 0, 3). // index 2 +2, index 5 (key) +2, index 6 +3
		rec(TestRecName, 2, 0, "TestB").
		rec(TestRecName, 3, 0, "TestC").
		rec(TestRecParallel, 2).
		rec(TestRecRunning, 2, 2, 3).
		rec(TestRecDelta, 1, 0, 1, 2, 1).
		rec(TestRecRunning, 1, 3)
	cf := &CountFile{Segments: []Segment{NewSegment(hash, []uint64{5, 0, 3, 0, 0, 2, 3, 0, 0, 0, 0, 0, 0, 0})}}
	return tb, cf
}

func TestAddTests(t *testing.T) {
	m, raw := diamondMeta(t)
	hash := "000102030405060708090a0b0c0d0e0f"
	p := New()
	p.Metas[hash], p.Raw[hash] = m, raw
	tb, cf := sampleTests(hash)
	tf, err := ParseTests(tb.b)
	if err != nil {
		t.Fatal(err)
	}
	if tf.Counts != "pathcover.7.12.counts" || tf.Package != "example.com/p" || len(tf.Parts) != 3 {
		t.Fatalf("read %+v", tf)
	}
	if err := p.AddTests(tf, cf); err != nil {
		t.Fatal(err)
	}
	got := make(map[string]uint64)
	for fn, byID := range p.Tests.Runs[hash] {
		for id, byGroup := range byID {
			for g, n := range byGroup {
				got[m.Funcs[fn].Name+string(rune('0'+id))+" "+p.Tests.Groups[g].String()] += n
			}
		}
	}
	want := map[string]uint64{
		"F0 (outside tests)": 1,
		"F2 TestA":           2,
		"G1 TestA":           3,
		"F2 TestB | TestC":   1,
		"F0 TestC":           4,
	}
	if !maps.Equal(got, want) {
		t.Errorf("attribution\n got %v\nwant %v", got, want)
	}
	for _, g := range p.Tests.Groups {
		if g.Parallel != (g.String() == "TestB | TestC") {
			t.Errorf("group %s: Parallel %v", g, g.Parallel)
		}
	}

	// Cut in the last record: the records before it are read.
	cut, err := ParseTests(tb.b[:len(tb.b)-1])
	if !errors.Is(err, ErrTestsCut) || cut == nil || len(cut.Parts) != 3 || len(cut.Running) != 2 {
		t.Errorf("cut file: %v, %+v", err, cut)
	}
}

func TestParseTestsErrors(t *testing.T) {
	for name, tb := range map[string]*testsBuilder{
		"counter file elsewhere": (&testsBuilder{}).rec(TestRecCounts, "../x.counts"),
		"unknown test":           (&testsBuilder{}).rec(TestRecRunning, 1, 4),
		"unannounced segment":    (&testsBuilder{}).rec(TestRecDelta, 1, 3, 1, 0, 1),
		"named twice":            (&testsBuilder{}).rec(TestRecName, 1, 0, "T").rec(TestRecName, 1, 0, "U"),
		"unknown kind":           (&testsBuilder{}).rec('Z'),
		// Names that would reach a terminal raw.
		"escape in a test name":   (&testsBuilder{}).rec(TestRecName, 1, 0, "Test\x1b]0;owned\x07"),
		"bidi in a test name":     (&testsBuilder{}).rec(TestRecName, 1, 0, "Test\u202eA"),
		"invalid UTF-8 test name": (&testsBuilder{}).rec(TestRecName, 1, 0, "Test\xff"),
		"newline in a package":    (&testsBuilder{}).rec(TestRecPackage, "p\nrm -rf"),
	} {
		if _, err := ParseTests(tb.b); err == nil || errors.Is(err, ErrTestsCut) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ParseTests([]byte("pcovcnt1")); err == nil {
		t.Error("a counter file read as a tests file")
	}
}

func FuzzParseTests(f *testing.F) {
	m, raw := diamondMeta(f)
	hash := "000102030405060708090a0b0c0d0e0f"
	tb, cf := sampleTests(hash)
	f.Add(tb.b)
	f.Add(append([]byte{1}, tb.b...))
	f.Add([]byte(testsMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 0 && data[0]&1 == 1 && bytes.HasPrefix(data[1:], []byte(testsMagic)) {
			data = resumTests(data[1:]) // past the checksums
		}
		tf, err := ParseTests(data)
		if tf == nil {
			return
		}
		if err != nil && !errors.Is(err, ErrTestsCut) {
			t.Fatalf("partial result with an error other than a cut: %v", err)
		}
		for _, part := range tf.Parts {
			for _, id := range part.Running {
				if tf.Tests[id] == nil {
					t.Fatalf("running test %d unnamed", id)
				}
			}
		}
		p := New()
		p.Metas[hash], p.Raw[hash] = m, raw
		p.AddTests(tf, cf) // must not panic
		for _, byID := range p.Tests.Runs[hash] {
			for _, byGroup := range byID {
				for g := range byGroup {
					if g >= len(p.Tests.Groups) {
						t.Fatalf("group %d of %d", g, len(p.Tests.Groups))
					}
				}
			}
		}
	})
}

// TestTestsBitFlips flips each bit of a tests file, one at a time: the
// reader says the file is corrupt or cut short, or reads exactly the file
// written, never another.
func TestTestsBitFlips(t *testing.T) {
	tb, _ := sampleTests("000102030405060708090a0b0c0d0e0f")
	want, err := ParseTests(tb.b)
	if err != nil {
		t.Fatal(err)
	}
	for bit := range 8 * len(tb.b) {
		bad := bytes.Clone(tb.b)
		bad[bit/8] ^= 1 << (bit % 8)
		if got, err := ParseTests(bad); err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("bit %d of %d flipped: read another tests file with no error", bit, 8*len(tb.b))
		}
	}
	old := append([]byte("pcovtst1"), tb.b[len(testsMagic):]...)
	if _, err := ParseTests(old); err == nil || !strings.Contains(err.Error(), "another version of pathcover") {
		t.Errorf("a version 1 file: %v", err)
	}
}
