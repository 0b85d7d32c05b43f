package wpp

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pathcover/pathcover/profile"
)

// uvarints writes numbers (and strings, as their bytes) as the format
// does.
func uvarints(vs ...any) []byte {
	var b []byte
	for _, v := range vs {
		switch v := v.(type) {
		case int:
			b = binary.AppendUvarint(b, uint64(v))
		case uint64:
			b = binary.AppendUvarint(b, v)
		case string:
			b = append(b, v...)
		case []byte:
			b = append(b, v...)
		}
	}
	return b
}

// assemble writes a TWPP file from the drawing in format.go: the given
// packages, one function (package 0, index 0) whose section is funcSec,
// and the calls section calls, both stored as they are.
func assemble(pkgs []string, funcSec, calls []byte) []byte {
	return assembleVersion(version, pkgs, funcSec, calls)
}

// assembleVersion is assemble, of format version v.
func assembleVersion(v int, pkgs []string, funcSec, calls []byte) []byte {
	var h []byte
	h = append(h, uvarints(len(pkgs))...)
	for _, p := range pkgs {
		b, _ := hex.DecodeString(p)
		h = append(h, b...)
	}
	h = append(h, uvarints(1, 0, 0, 0, len(funcSec), len(funcSec), uint64(profile.Checksum(funcSec)), 1)...)
	h = append(h, uvarints(len(funcSec), len(calls), len(calls), uint64(profile.Checksum(calls)))...)
	h = append(h, uvarints(1, 1, "p", profile.WPPEnded, 0, 0)...) // process p, whose recording ended
	return withHeaderVersion(v, h, append(bytes.Clone(funcSec), calls...))
}

// withHeader is a TWPP file of header h, with its checksum, and data.
func withHeader(h, data []byte) []byte { return withHeaderVersion(version, h, data) }

func withHeaderVersion(v int, h, data []byte) []byte {
	out := uvarints(magic, v, len(h), h)
	out = binary.LittleEndian.AppendUint32(out, profile.Checksum(out))
	return append(out, data...)
}

// readBytes reads a file from memory, whole.
func readBytes(b []byte) (*TWPP, error) {
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	return f.ReadAll()
}

// TestHandWritten reads a file written by hand from the format's drawing:
// one goroutine whose one root call, private, took the trace of one path
// 5 and made no calls; then the same file with one thing wrong at a time,
// each an error that says what.
func TestHandWritten(t *testing.T) {
	hash := testHashes[1]
	// One trace: 1 call, one DBB [5], the sequence form: DBB 0.
	funcSec := uvarints(1, 1, 1, 1, 5, 0, 1, 0)
	// Goroutine 1 ran test TestA/x, which ended.
	tests := uvarints(1, 1, len("TestA/x"), "TestA/x", len("TestA"), "TestA", 1)
	callsWith := func(terms, rules, shared, root, tree, tests []byte) []byte {
		return uvarints(terms, rules, shared,
			1, 7, 0, 1, 1, 0, // process p (the header's), pid 7, package 1 is package 0
			1, 1, 0, 0, 0, root, tree, // goroutine 1: its roots, then the private trees
			tests)
	}
	calls := func(terms, rules, shared, root, tree []byte) []byte {
		return callsWith(terms, rules, shared, root, tree, tests)
	}
	privateTerm := uvarints(1, 0<<2|termPrivate)
	rootBody := uvarints(1, 0<<1) // one symbol: terminal 0
	leaf := uvarints(0, 0)        // trace 0<<1, not open; no items
	good := assemble([]string{hash}, funcSec, calls(privateTerm, uvarints(0), uvarints(0), rootBody, leaf))
	tw, err := readBytes(good)
	if err != nil {
		t.Fatal(err)
	}
	var got []profile.WPPEvent
	if err := tw.Expand(tw.Processes[0], func(_ *Goroutine, e profile.WPPEvent) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []profile.WPPEvent{{Kind: profile.WPPStart}, {Kind: profile.WPPEnter, Pkg: 1}, {Kind: profile.WPPPath, Path: 5}, {Kind: profile.WPPReturn}}
	if p := tw.Processes[0]; !reflect.DeepEqual(got, want) || p.File != "p" || p.PID != 7 || !p.Start.Equal(time.Unix(0, 0)) {
		t.Fatalf("read %+v: %v, want %v", tw.Processes[0], got, want)
	}
	if ts, want := tw.Processes[0].Tests, []profile.WPPTest{{Goroutine: 1, Name: "TestA/x", Parent: "TestA", Ended: true}}; !reflect.DeepEqual(ts, want) {
		t.Fatalf("tests %+v, want %+v", ts, want)
	}
	// Version 3, before the tests: the same, without them.
	v3 := assembleVersion(noTests, []string{hash}, funcSec, callsWith(privateTerm, uvarints(0), uvarints(0), rootBody, leaf, nil))
	if tw, err := readBytes(v3); err != nil || len(tw.Processes) != 1 || tw.Processes[0].Tests != nil {
		t.Fatalf("version 3: %v", err)
	}

	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"a rule that uses itself", assemble([]string{hash}, funcSec, calls(privateTerm, uvarints(1, 2<<1, 1, 0), uvarints(0), rootBody, leaf)), "rule 0 out of range [0,0)"},
		{"a run of one", assemble([]string{hash}, funcSec, calls(privateTerm, uvarints(1, 1<<1|1, 0), uvarints(0), rootBody, leaf)), "a run of 1"},
		{"a rule of one symbol", assemble([]string{hash}, funcSec, calls(privateTerm, uvarints(1, 1<<1, 0), uvarints(0), rootBody, leaf)), "a rule of 1 symbols"},
		{"a run too long to expand", assemble([]string{hash}, funcSec, calls(uvarints(1, 0<<2|termShared, 0), uvarints(1, uint64(1)<<41|1, 0), uvarints(0), uvarints(1, 0<<1|1), nil)), "more than 134217728"},
		{"a call of a shared node not written", assemble([]string{hash}, funcSec, calls(uvarints(1, 0<<2|termShared, 5), uvarints(0), uvarints(0), rootBody, nil)), "a call of shared node 5, not before shared node 0"},
		{"a trace out of range", assemble([]string{hash}, funcSec, calls(privateTerm, uvarints(0), uvarints(0), rootBody, uvarints(1<<1, 0))), "trace 1 out of range [0,1)"},
		{"an item past its trace", assemble([]string{hash}, funcSec, calls(uvarints(2, 0<<2|termPrivate, 2<<2|termSpawn, 9), uvarints(0), uvarints(0), rootBody, uvarints(0, 1, 1<<1))), "an item at path 0+2 of a trace of 1"},
		{"a root that is a spawn", assemble([]string{hash}, funcSec, calls(uvarints(1, 0<<2|termSpawn, 9), uvarints(0), uvarints(0), rootBody, nil)), "a goroutine's root of kind 1"},
		{"a terminal out of range", assemble([]string{hash}, funcSec, calls(privateTerm, uvarints(0), uvarints(0), uvarints(1, 1<<1), leaf)), "terminal 1 out of range [0,1)"},
		{"a path 0 levels up", assemble([]string{hash}, funcSec, calls(uvarints(1, 0<<2|termUp, 0), uvarints(0), uvarints(0), rootBody, nil)), "a path 0 calls up"},
		{"a private tree missing", assemble([]string{hash}, funcSec, callsWith(privateTerm, uvarints(0), uvarints(0), rootBody, nil, nil)), "truncated"},
		{"a byte left over", assemble([]string{hash}, funcSec, append(calls(privateTerm, uvarints(0), uvarints(0), rootBody, leaf), 0)), "1 bytes left over"},
		{"a test's name past the end", assemble([]string{hash}, funcSec, callsWith(privateTerm, uvarints(0), uvarints(0), rootBody, leaf, uvarints(1, 1, 99, "TestA"))), "cannot fit"},
		{"tests in a version 3 file", assembleVersion(noTests, []string{hash}, funcSec, calls(privateTerm, uvarints(0), uvarints(0), rootBody, leaf)), "left over"},
		{"a version to come", assembleVersion(version+1, []string{hash}, funcSec, calls(privateTerm, uvarints(0), uvarints(0), rootBody, leaf)), "written by another version"},
		{"a function section cut short", assemble([]string{hash}, funcSec[:3], calls(privateTerm, uvarints(0), uvarints(0), rootBody, leaf)), "cannot fit"},
	} {
		_, err := readBytes(c.file)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestDeflatedSections: sections deflated, and their sizes in the header
// wrong, one at a time: each an error, never more allocated than the
// header's size allows.
func TestDeflatedSections(t *testing.T) {
	tw, err := Compact([]Source{loopSource(50, 20)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tw.Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	f, err := NewFile(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	if f.calls.raw == f.calls.len {
		t.Fatal("the calls section is not deflated")
	}
	// rewrite is the file with the calls section's raw length raw, and
	// the data from the original.
	rewrite := func(raw int) []byte {
		var h []byte
		h = append(h, uvarints(len(f.pkgs))...)
		for _, p := range f.pkgs {
			b, _ := hex.DecodeString(p)
			h = append(h, b...)
		}
		h = append(h, uvarints(len(f.funcs))...)
		pkg := map[string]int{}
		for i, p := range f.pkgs {
			pkg[p] = i
		}
		for _, ff := range f.funcs {
			h = append(h, uvarints(pkg[ff.key.Hash], int(ff.key.Index), ff.sec.off, ff.sec.len, ff.sec.raw, uint64(ff.sec.sum), ff.calls)...)
		}
		h = append(h, uvarints(f.calls.off, f.calls.len, raw, uint64(f.calls.sum), len(f.procs))...)
		for _, p := range f.procs {
			h = append(h, uvarints(len(p.name), p.name, p.end.Flags(), p.end.Limit, int(p.end.WriteErrno))...)
		}
		return withHeader(h, good[f.dataOff:])
	}
	if _, err := readBytes(rewrite(f.calls.raw)); err != nil {
		t.Fatalf("the header written again: %v", err)
	}
	for _, c := range []struct {
		raw  int
		want string
	}{
		{f.calls.raw - 1, "longer than the header says"},
		{f.calls.raw + 1, "inflating: unexpected EOF"},
		{f.calls.len - 1, "inflating to"},
		{f.calls.len*maxInflate + 65, "inflating to"},
	} {
		if _, err := readBytes(rewrite(c.raw)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("raw length %d of %d: error %v, want %q", c.raw, f.calls.raw, err, c.want)
		}
	}
	// Each byte of the deflated section changed: an error or a TWPP, but
	// no panic.
	for i := f.calls.off; i < f.calls.off+f.calls.len; i++ {
		bad := bytes.Clone(good)
		bad[int(f.dataOff)+i] ^= 0x55
		readBytes(bad)
	}
}
