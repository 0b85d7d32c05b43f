package wpp

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

// TestCutTests requires a recording cut at its limit to say which tests
// it holds whole (started and ended), cut (started) and missing (named by
// the process's tests file only), and one that covers its run to say
// nothing.
func TestCutTests(t *testing.T) {
	dir := t.TempDir()
	gs := map[uint64][]profile.WPPEvent{5: {{Kind: profile.WPPStart}}, 6: {{Kind: profile.WPPStart, Parent: 5}, {Kind: profile.WPPStop}}}
	tests := []profile.WPPTest{{Goroutine: 5, Name: "TestA", Ended: true}, {Goroutine: 6, Name: "TestB"}}
	write := func(name string, h profile.WPPHeader) {
		var buf bytes.Buffer
		if err := profile.WriteWPPTests(&buf, h, nil, gs, tests); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pathcover.41.1.wpp", profile.WPPHeader{Limit: 1 << 20, LimitReached: true, PID: 41})
	write("pathcover.42.1.wpp", profile.WPPHeader{Limit: 1 << 20, Ended: true, PID: 42})
	// The tests file of process 41: it ran TestA, TestB and TestC.
	tf := []byte("pcovtst2")
	record := func(kind byte, payload []byte) {
		rec := binary.AppendUvarint([]byte{kind}, uint64(len(payload)))
		rec = append(rec, payload...)
		tf = binary.LittleEndian.AppendUint32(append(tf, rec...), profile.Checksum(rec))
	}
	record(profile.TestRecCounts, []byte("pathcover.41.1.counts"))
	for i, name := range []string{"TestA", "TestB", "TestC"} {
		record(profile.TestRecName, append(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(i+1)), 0), name...))
	}
	if err := os.WriteFile(filepath.Join(dir, "pathcover.41.1.tests"), tf, 0o644); err != nil {
		t.Fatal(err)
	}
	// A tests file that names no counter file (a process killed before
	// it wrote one) tells no process: it is passed over.
	if err := os.WriteFile(filepath.Join(dir, "pathcover.43.1.tests"), []byte("pcovtst2"), 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := CutTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) != 1 || held[0].File != "pathcover.41.1.wpp" {
		t.Fatalf("cut recordings %+v, want pathcover.41.1.wpp's alone", held)
	}
	h := held[0]
	if !slices.Equal(h.Whole, []string{"TestA"}) || !slices.Equal(h.Partial, []string{"TestB"}) || !slices.Equal(h.Missing, []string{"TestC"}) || len(h.Cut) == 0 {
		t.Errorf("held %+v: want TestA whole, TestB cut, TestC missing", h)
	}
	line := h.String()
	for _, want := range []string{"pathcover.41.1.wpp: ", "limit", "holds 1 tests whole", "cut: TestB", "missing: TestC"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
}
