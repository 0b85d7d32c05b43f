package profile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// randomWPP makes the events of a few goroutines from seed: every kind of
// event, ids of every size (the long path form too), calls nested.
func randomWPP(seed uint64) map[uint64][]WPPEvent {
	r := rand.New(rand.NewPCG(seed, 1))
	gs := make(map[uint64][]WPPEvent)
	for g := range 1 + r.IntN(4) {
		id := uint64(g)*7 + 1
		evs := []WPPEvent{{Kind: WPPStart, Parent: r.Uint64N(id + 1), Spawn: r.Uint64N(3)}}
		depth := 0
		for range r.IntN(3000) {
			switch k := r.IntN(10); {
			case k < 5 && depth > 0:
				p := r.Uint64N(50)
				if r.IntN(20) == 0 {
					p = r.Uint64() >> 1
				}
				evs = append(evs, WPPEvent{Kind: WPPPath, Path: p})
			case k == 5 && depth > 1:
				evs = append(evs, WPPEvent{Kind: WPPPath, Up: uint32(1 + r.IntN(depth-1)), Path: r.Uint64N(9)})
			case k < 8:
				evs = append(evs, WPPEvent{Kind: WPPEnter, Pkg: uint32(1 + r.IntN(3)), Func: uint32(r.IntN(40))})
				depth++
			case k == 8 && depth > 0:
				evs = append(evs, WPPEvent{Kind: WPPSpawn, Spawn: r.Uint64N(1 << 40)})
			case depth > 0:
				evs = append(evs, WPPEvent{Kind: WPPReturn})
				depth--
			}
		}
		if r.IntN(4) == 0 {
			evs = append(evs, WPPEvent{Kind: WPPStop})
		}
		gs[id] = evs
	}
	return gs
}

var testPackages = []string{strings.Repeat("ab", 16), strings.Repeat("cd", 16), strings.Repeat("0f", 16)}

func readAllWPP(t testing.TB, data []byte) (*WPPFile, map[uint64][]WPPEvent, error) {
	w, err := ParseWPP(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, err
	}
	got := make(map[uint64][]WPPEvent)
	for _, g := range w.Goroutines() {
		if err := w.Events(g, func(e WPPEvent) error {
			got[g] = append(got[g], e)
			return nil
		}); err != nil {
			return w, nil, err
		}
	}
	return w, got, nil
}

// TestWPPRoundTrip writes random streams and reads them back exactly.
func TestWPPRoundTrip(t *testing.T) {
	for seed := range uint64(50) {
		want := randomWPP(seed)
		var buf bytes.Buffer
		h := WPPHeader{Limit: 1 << 30, LimitReached: seed%2 == 0, WriteFailed: seed%3 == 0, Ended: seed%5 != 0, Start: time.Unix(0, 12345), PID: 77}
		if h.WriteFailed {
			h.WriteErrno = uint32(seed)
		}
		tests := randomTests(seed)
		if err := WriteWPPTests(&buf, h, testPackages, want, tests); err != nil {
			t.Fatal(err)
		}
		w, got, err := readAllWPP(t, buf.Bytes())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: events differ", seed)
		}
		if !slices.Equal(w.Tests, tests) {
			t.Fatalf("seed %d: tests %+v, want %+v", seed, w.Tests, tests)
		}
		if w.Header.Limit != h.Limit || w.Header.LimitReached != h.LimitReached || w.Header.WriteFailed != h.WriteFailed || w.Header.WriteErrno != h.WriteErrno || w.Header.Ended != h.Ended || w.Header.PID != 77 || !w.Header.Start.Equal(h.Start) {
			t.Errorf("seed %d: header %+v, want %+v", seed, w.Header, h)
		}
		for i, p := range testPackages {
			if w.Packages[uint32(i+1)] != p {
				t.Errorf("package %d is %q, want %q", i+1, w.Packages[uint32(i+1)], p)
			}
		}
	}
}

// TestWPPEventEncoding checks the encoding against the format's table,
// written out by hand.
func TestWPPEventEncoding(t *testing.T) {
	for _, c := range []struct {
		e    WPPEvent
		want []uint64
	}{
		{WPPEvent{Kind: WPPPath, Path: 5}, []uint64{21}},
		{WPPEvent{Kind: WPPPath, Path: 0}, []uint64{1}},
		{WPPEvent{Kind: WPPPath, Path: 5, Returns: true}, []uint64{22}},
		{WPPEvent{Kind: WPPPath, Path: 1 << 62}, []uint64{28, 1 << 62}},
		{WPPEvent{Kind: WPPPath, Path: 1 << 62, Returns: true}, []uint64{32, 1 << 62}},
		{WPPEvent{Kind: WPPEnter, Pkg: 2, Func: 9}, []uint64{11, 9}},
		{WPPEvent{Kind: WPPReturn}, []uint64{4}},
		{WPPEvent{Kind: WPPSpawn, Spawn: 4}, []uint64{8, 4}},
		{WPPEvent{Kind: WPPStart, Parent: 1, Spawn: 3}, []uint64{12, 1, 3}},
		{WPPEvent{Kind: WPPStop}, []uint64{16}},
		{WPPEvent{Kind: WPPPath, Up: 2, Path: 7}, []uint64{20, 2, 7}},
		{WPPEvent{Kind: WPPMemory, Stmt: 3, Access: WPPStore, Flags: WPPStackAddr, Seq: 2, Addr: 40, Size: 8}, []uint64{24, 3<<5 | 1<<3 | 1, 2, 40, 8}},
		{WPPEvent{Kind: WPPMemory, Stmt: 1, Access: WPPCopy, Flags: WPPStackSrc, Seq: 1, Addr: 4096, Size: 16, Src: 24}, []uint64{24, 1<<5 | 2<<3 | 3, 1, 4096, 16, 24}},
		{WPPEvent{Kind: WPPValue, Site: 5, Part: 2, Value: 1 << 40}, []uint64{36, 5<<3 | 2, 1 << 40}},
		{WPPEvent{Kind: WPPMemory, Up: 2, Stmt: 3, Access: WPPLoad, Seq: 2, Addr: 40, Size: 8}, []uint64{40, 2, 3 << 5, 2, 40, 8}},
		{WPPEvent{Kind: WPPMemory, Up: 1, Stmt: 1, Access: WPPCopy, Seq: 1, Addr: 4096, Size: 16, Src: 24}, []uint64{40, 1, 1<<5 | 3, 1, 4096, 16, 24}},
		{WPPEvent{Kind: WPPValue, Up: 3, Site: 5, Part: 1, Value: 7}, []uint64{44, 3, 5<<3 | 1, 7}},
	} {
		var want []byte
		for _, v := range c.want {
			want = binary.AppendUvarint(want, v)
		}
		if got := AppendWPPEvent(nil, c.e); !bytes.Equal(got, want) {
			t.Errorf("%+v encodes as %x, want %x", c.e, got, want)
		}
		e, n, err := DecodeWPPEvent(want)
		if err != nil || n != len(want) || e != c.e {
			t.Errorf("%x decodes as %+v, %d, %v; want %+v", want, e, n, err, c.e)
		}
		if want[0] == 0 {
			t.Errorf("%+v: a record that begins with a zero byte", c.e)
		}
	}
}

// TestWPPPathReturn: a path-and-return record is two events, a path and
// a return, to every reader of Events.
func TestWPPPathReturn(t *testing.T) {
	evs := []WPPEvent{{Kind: WPPStart}, {Kind: WPPEnter, Pkg: 1, Func: 2}, {Kind: WPPPath, Path: 3}, {Kind: WPPReturn}, {Kind: WPPEnter, Pkg: 1}, {Kind: WPPPath, Path: 1 << 62}, {Kind: WPPReturn}}
	var buf bytes.Buffer
	if err := WriteWPP(&buf, WPPHeader{}, testPackages[:1], map[uint64][]WPPEvent{1: evs}); err != nil {
		t.Fatal(err)
	}
	payload := buf.Bytes()[2*WPPUnit+WPPChunkHeader:]
	want := []byte{12, 0, 0, 7, 2, 14, 7, 0, 32}
	if !bytes.Equal(payload[:len(want)], want) || payload[len(want)+9] != 0 {
		t.Errorf("records % x, want % x then the long id and a zero", payload[:len(want)+10], want)
	}
	_, got, err := readAllWPP(t, buf.Bytes())
	if err != nil || !reflect.DeepEqual(got[1], evs) {
		t.Errorf("read %v, %v; want %v", got[1], err, evs)
	}
}

// TestWPPTorn: rt writes a record's first byte last, so a record cut
// short by a kill has a zero where it begins, and the stream ends before
// it; what follows a zero is never read.
func TestWPPTorn(t *testing.T) {
	evs := []WPPEvent{{Kind: WPPStart}, {Kind: WPPEnter, Pkg: 1, Func: 300}, {Kind: WPPPath, Path: 1 << 40}}
	var buf bytes.Buffer
	if err := WriteWPP(&buf, WPPHeader{}, testPackages[:1], map[uint64][]WPPEvent{1: evs}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	last := 2*WPPUnit + WPPChunkHeader + len(AppendWPPEvent(AppendWPPEvent(nil, evs[0]), evs[1]))
	b[last] = 0
	_, got, err := readAllWPP(t, b)
	if err != nil || !reflect.DeepEqual(got[1], evs[:2]) {
		t.Errorf("read %v, %v; want %v", got[1], err, evs[:2])
	}
}

// TestWPPCut checks what a header says of a recording that covers only
// part of its run: the reasons, one each, or none for a whole one.
func TestWPPCut(t *testing.T) {
	for _, c := range []struct {
		h    WPPHeader
		want []string
	}{
		{WPPHeader{Ended: true}, nil},
		{WPPHeader{}, []string{"wrote no end: it was killed, crashed, or is still running"}},
		{WPPHeader{Ended: true, Limit: 4096, LimitReached: true}, []string{"size limit of 4096 bytes"}},
		{WPPHeader{Ended: true, WriteFailed: true, WriteErrno: uint32(syscall.ENOSPC)}, []string{"could not grow: " + syscall.ENOSPC.Error()}},
		{WPPHeader{WriteFailed: true}, []string{"could not grow: an error", "wrote no end"}},
	} {
		got := c.h.Cut()
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], c.want[i])
		}
		if !ok {
			t.Errorf("%+v: Cut() = %q, want %q", c.h, got, c.want)
		}
	}
}

// TestWPPMalformed checks that damaged files are errors that say where.
func TestWPPMalformed(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteWPP(&buf, WPPHeader{}, testPackages[:1], map[uint64][]WPPEvent{3: {{Kind: WPPStart}, {Kind: WPPEnter, Pkg: 1}}}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"short", func(b []byte) []byte { return b[:100] }, "not a WPP file"},
		{"magic", func(b []byte) []byte { b[0] = 'x'; return b }, "not a WPP file"},
		{"version", func(b []byte) []byte { b[7] = '2'; return b }, `version "2", not "4": written by another version of pathcover`},
		{"flags", func(b []byte) []byte { b[24] = 0x80; return b }, "unknown flags"},
		{"errno", func(b []byte) []byte { b[28] = 28; return b }, "errno 28 of a write that did not fail"},
		{"chunk size", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[512+8:], 100); return b }, "offset 512: chunk of 100 bytes"},
		{"past end", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[1024+8:], 4096); return b }, "runs past the end"},
		{"kind", func(b []byte) []byte { b[1024+4] = 9; return b }, "unknown kind 9"},
		{"package twice", func(b []byte) []byte { b[1024+4] = 2; b[1024+16] = 1; return b }, "package 1 named twice"},
		{"event", func(b []byte) []byte { b[1024+32] = 0x30; return b }, "unknown control event 12"},
		{"truncated event", func(b []byte) []byte {
			for i := 1024 + 32 + 5; i < 1536; i++ {
				b[i] = 0x81
			}
			return b
		}, "truncated"},
	} {
		b := c.edit(bytes.Clone(good))
		_, _, err := readAllWPP(t, b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// Units never written are skipped.
	padded := append(bytes.Clone(good[:1024]), make([]byte, 1024)...)
	padded = append(padded, good[1024:]...)
	if _, got, err := readAllWPP(t, padded); err != nil || len(got[3]) != 2 {
		t.Errorf("zero units: %v, %v", got, err)
	}
}

// FuzzParseWPP reads any bytes as a WPP file: errors, never a panic, and
// what it reads is what WriteWPP writes back.
// withMemory adds random memory events (-deps builds) and values (-wet
// builds) to the calls of gs.
func withMemory(seed uint64, gs map[uint64][]WPPEvent) map[uint64][]WPPEvent {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make(map[uint64][]WPPEvent)
	for g, evs := range gs {
		var with []WPPEvent
		depth := 0
		for _, e := range evs {
			with = append(with, e)
			switch e.Kind {
			case WPPEnter:
				depth++
			case WPPReturn:
				depth--
			}
			if depth > 0 && r.IntN(3) == 0 {
				m := WPPEvent{Kind: WPPMemory, Stmt: uint32(r.IntN(30)), Access: WPPAccess(r.IntN(8)), Seq: r.Uint64N(1 << 20), Addr: r.Uint64(), Size: r.Uint64N(64)}
				m.Flags = uint8(r.IntN(2))
				if depth > 1 && r.IntN(4) == 0 {
					m.Up = uint32(1 + r.IntN(depth-1)) // a range-over-func body's
				}
				if m.Access == WPPCopy {
					m.Src = r.Uint64()
					m.Flags |= uint8(r.IntN(2)) << 1
				}
				with = append(with, m)
			}
			if depth > 0 && r.IntN(4) == 0 {
				with = append(with, WPPEvent{Kind: WPPValue, Up: uint32(r.IntN(depth)), Site: uint32(r.IntN(40)), Part: uint8(r.IntN(3)), Value: r.Uint64() >> uint(r.IntN(64))})
			}
		}
		out[g] = with
	}
	return out
}

func TestWPPMemoryEvents(t *testing.T) {
	for seed := range uint64(3) {
		want := withMemory(seed, randomWPP(seed))
		var buf bytes.Buffer
		if err := WriteWPP(&buf, WPPHeader{Limit: 1 << 30}, testPackages, want); err != nil {
			t.Fatal(err)
		}
		_, got, err := readAllWPP(t, buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("seed %d: memory events do not round-trip", seed)
		}
	}
}

func FuzzParseWPP(f *testing.F) {
	for seed := range uint64(4) {
		var buf bytes.Buffer
		WriteWPPTests(&buf, WPPHeader{Limit: 1 << 20}, testPackages, randomWPP(seed), randomTests(seed))
		f.Add(buf.Bytes())
		buf.Reset()
		WriteWPP(&buf, WPPHeader{Limit: 1 << 20}, testPackages, withMemory(seed, randomWPP(seed)))
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// ReadWPPHeader reads any file without a panic, and reads the
		// header ParseWPP does of a file it reads.
		name := filepath.Join(t.TempDir(), "pathcover.1.1.wpp")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		h, herr := ReadWPPHeader(name)
		w, got, err := readAllWPP(t, data)
		if err != nil {
			return
		}
		if herr != nil || !reflect.DeepEqual(h, w.Header) {
			t.Fatalf("ReadWPPHeader: %+v, %v; ParseWPP: %+v", h, herr, w.Header)
		}
		var pkgs []string
		for i := uint32(1); ; i++ {
			p, ok := w.Packages[i]
			if !ok {
				break
			}
			pkgs = append(pkgs, p)
		}
		if len(pkgs) != len(w.Packages) {
			return // numbers with gaps cannot be written back
		}
		var buf bytes.Buffer
		if err := WriteWPPTests(&buf, w.Header, pkgs, got, w.Tests); err != nil {
			t.Fatal(err)
		}
		w2, again, err := readAllWPP(t, buf.Bytes())
		if err != nil || !reflect.DeepEqual(again, got) || !slices.Equal(w2.Tests, w.Tests) {
			t.Fatalf("read %v, wrote and read back %v (%v)", got, again, err)
		}
	})
}

// randomTests returns a few tests, subtests among them, on goroutines 1
// to 9.
func randomTests(seed uint64) []WPPTest {
	r := rand.New(rand.NewPCG(seed, 7))
	var tests []WPPTest
	for i := range r.IntN(5) {
		t := WPPTest{Goroutine: 1 + r.Uint64N(9), Name: fmt.Sprintf("Test%d", i), Ended: r.IntN(3) > 0}
		if i > 0 && r.IntN(2) == 0 {
			t.Parent = tests[r.IntN(len(tests))].Name
			t.Name = t.Parent + "/sub_é" + strings.Repeat("x", r.IntN(600))
		}
		tests = append(tests, t)
	}
	return tests
}

// TestWPPTestChunks requires a flipped bit of a test chunk's goroutine,
// checksum, event or names to be an error, and a version 3 file, which
// has no test chunks, to be read.
func TestWPPTestChunks(t *testing.T) {
	var buf bytes.Buffer
	tests := []WPPTest{{Goroutine: 5, Name: "TestA", Ended: true}, {Goroutine: 6, Name: "TestA/b", Parent: "TestA"}}
	if err := WriteWPPTests(&buf, WPPHeader{Limit: 1 << 20}, testPackages, randomWPP(1), tests); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	w, _, err := readAllWPP(t, data)
	if err != nil || !slices.Equal(w.Tests, tests) {
		t.Fatalf("tests %+v (%v), want %+v", w.Tests, err, tests)
	}
	// The first test chunk follows the package chunks.
	at := bytes.Index(data[WPPUnit:], []byte("wppc\x03")) + WPPUnit
	if at < WPPUnit {
		t.Fatal("no test chunk")
	}
	covered := append([]int{16, 17, 18, 19, 20, 21, 22, 23}, makeRange(WPPChunkHeader, WPPChunkHeader+5+1+len("TestA")+1)...)
	for _, i := range covered {
		for bit := range 8 {
			bad := bytes.Clone(data)
			bad[at+i] ^= 1 << bit
			if _, _, err := readAllWPP(t, bad); err == nil {
				t.Errorf("byte %d of the test chunk, bit %d flipped: read", i, bit)
			}
		}
	}
	buf.Reset()
	if err := WriteWPP(&buf, WPPHeader{Limit: 1 << 20}, testPackages, randomWPP(1)); err != nil {
		t.Fatal(err)
	}
	v3 := buf.Bytes()
	copy(v3, wppMagicV3)
	if w, _, err := readAllWPP(t, v3); err != nil || len(w.Tests) != 0 {
		t.Errorf("version 3: %v", err)
	}
}

func makeRange(from, to int) []int {
	var r []int
	for i := from; i < to; i++ {
		r = append(r, i)
	}
	return r
}

// TestWPPDone: a recording is done once its process said it ended and is
// gone: not while it runs (this process), nor if it never said so.
func TestWPPDone(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no process check here (process_other.go): a recording is never done before the end")
	}
	gone := uint64(1 << 40) // no process's
	for _, c := range []struct {
		h    WPPHeader
		done bool
	}{
		{WPPHeader{Ended: true, PID: gone}, true},
		{WPPHeader{Ended: false, PID: gone}, false},
		{WPPHeader{Ended: true, PID: uint64(os.Getpid())}, false},
		{WPPHeader{Ended: true, PID: 0}, false},
	} {
		if got := c.h.Done(); got != c.done {
			t.Errorf("%+v: Done() = %v, want %v", c.h, got, c.done)
		}
	}
}

// TestWPPSpans: a goroutine's spans cover its chunks in order, each of
// at least the bytes asked but the last, and their records, read span by
// span, are the stream's.
func TestWPPSpans(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	streams := map[uint64][]WPPEvent{}
	for g := uint64(1); g <= 3; g++ {
		evs := []WPPEvent{{Kind: WPPStart, Parent: g}}
		for range 100000 * int(g) {
			evs = append(evs, WPPEvent{Kind: WPPEnter, Pkg: 1, Func: uint32(r.IntN(300))}, WPPEvent{Kind: WPPPath, Path: r.Uint64N(1 << 20)}, WPPEvent{Kind: WPPReturn})
		}
		streams[g] = evs
	}
	var buf bytes.Buffer
	if err := WriteWPP(&buf, WPPHeader{Limit: 1 << 30}, testPackages, streams); err != nil {
		t.Fatal(err)
	}
	w, err := ParseWPP(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for g, want := range streams {
		mine, all := w.StreamBytes(g)
		if mine <= 0 || all <= mine {
			t.Fatalf("goroutine %d: %d of %d bytes", g, mine, all)
		}
		for _, least := range []int{1, 300 << 10, 1 << 20, 1 << 40} {
			spans := w.Spans(g, least)
			var got []WPPEvent
			next := 0
			for i, sp := range spans {
				if sp.first != next || sp.end <= sp.first {
					t.Fatalf("goroutine %d, least %d: span %d is chunks %d to %d after %d", g, least, i, sp.first, sp.end, next)
				}
				next = sp.end
				n := 0
				for _, c := range w.chunks[g][sp.first:sp.end] {
					n += c.size
				}
				if i < len(spans)-1 && n < least {
					t.Fatalf("goroutine %d, least %d: span %d holds %d bytes", g, least, i, n)
				}
				if err := w.SpanRecords(g, sp, func(e *WPPEvent) error { got = append(got, *e); return nil }); err != nil {
					t.Fatal(err)
				}
			}
			if next != len(w.chunks[g]) {
				t.Fatalf("goroutine %d, least %d: spans end at chunk %d of %d", g, least, next, len(w.chunks[g]))
			}
			if least == 1 && len(spans) != len(w.chunks[g]) || least == 1<<40 && len(spans) != 1 {
				t.Fatalf("goroutine %d, least %d: %d spans of %d chunks", g, least, len(spans), len(w.chunks[g]))
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("goroutine %d, least %d: the spans' records are not the stream", g, least)
			}
		}
	}
	if err := w.SpanRecords(1, WPPSpan{0, 1 << 20}, func(*WPPEvent) error { return nil }); err == nil {
		t.Fatal("a span past the chunks read")
	}
}
