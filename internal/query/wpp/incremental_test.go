package wpp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

// TestIncremental: recordings compacted a process at a time as they are
// done, the others at the end, make the file CompactDir makes of them
// all, byte for byte; and only those done are compacted early (a process
// still running, or one that never said it ended, is left to Finish).
func TestIncremental(t *testing.T) {
	for seed := range uint64(60) {
		dir := t.TempDir()
		done := 0
		for i := range 1 + seed%4 {
			s := randomSource(seed*10 + i)
			h := s.h
			h.PID = 1<<40 + seed*10 + i // no process's
			if seed%5 == 0 && i == 0 {
				h.PID = uint64(os.Getpid()) // one still running
			}
			if h.Ended && h.PID != uint64(os.Getpid()) {
				done++
			}
			var b bytes.Buffer
			if err := profile.WriteWPPTests(&b, h, []string{testHashes[1], testHashes[2]}, s.gs, s.tests); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("pathcover.%d.%d.wpp", h.PID, i)), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		whole, _, err := CompactDir(dir, filepath.Join(t.TempDir(), "whole.twpp"))
		if err != nil {
			t.Fatal(err)
		}
		c := NewIncremental(dir)
		c.Scan()
		c.Scan() // a second scan compacts nothing again
		if !(profile.WPPHeader{Ended: true, PID: 1 << 40}).Done() {
			done = 0 // this system cannot tell a process is gone (profile/process_other.go)
		}
		if c.Scanned() != done {
			t.Fatalf("seed %d: Scan compacted %d recordings, want the %d done", seed, c.Scanned(), done)
		}
		parts, _, err := c.Finish(filepath.Join(t.TempDir(), "parts.twpp"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(whole)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(parts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d: compacted a process at a time, %d bytes; all at once, %d bytes: not the same file", seed, len(got), len(want))
		}
	}
}

// TestIncrementalBadRecording: a done recording that cannot be compacted
// is not compacted by Scan (nor tried again), and Finish fails as
// CompactDir does, naming it.
func TestIncrementalBadRecording(t *testing.T) {
	if !(profile.WPPHeader{Ended: true, PID: 1 << 40}).Done() {
		t.Skip("this system cannot tell a process is gone (profile/process_other.go): Scan compacts nothing")
	}
	dir := t.TempDir()
	s := randomSource(1)
	h := s.h
	h.PID, h.Ended = 1<<40, true
	var b bytes.Buffer
	if err := profile.WriteWPPTests(&b, h, []string{testHashes[1], testHashes[2]}, s.gs, s.tests); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	data[profile.WPPUnit] ^= 0xff // the first chunk's magic
	if err := os.WriteFile(filepath.Join(dir, "pathcover.1.1.wpp"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, want := CompactDir(dir, filepath.Join(t.TempDir(), "whole.twpp"))
	if want == nil {
		t.Fatal("CompactDir compacted a recording whose chunk is broken")
	}
	c := NewIncremental(dir)
	c.Scan()
	c.Scan()
	if c.Scanned() != 0 || !c.failed[filepath.Join(dir, "pathcover.1.1.wpp")] {
		t.Fatalf("Scan compacted %d recordings, failed %v; want none, and the broken one failed", c.Scanned(), c.failed)
	}
	if _, _, err := c.Finish(filepath.Join(t.TempDir(), "parts.twpp")); err == nil || err.Error() != want.Error() {
		t.Fatalf("Finish: %v; want CompactDir's error %v", err, want)
	}
}
