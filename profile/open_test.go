package profile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadersRefuse: every reader of a profile's files opens them through
// OpenFile, and refuses, at once and naming the file, a FIFO (which would
// wait for a writer), a link (to /dev/zero, which never ends, or to any
// file of the user's), a file larger than its kind holds, and (where the
// kind is read whole, or scanned to its end) one with holes.
func TestReadersRefuse(t *testing.T) {
	readers := map[string]func(string) error{
		"flight": func(n string) error { _, err := ReadFlight(n); return err },
		"wpp": func(n string) error {
			w, err := OpenWPP(n)
			if err == nil {
				w.Close()
			}
			return err
		},
		"tests":  func(n string) error { _, err := ReadTests(n); return err },
		"counts": func(n string) error { _, err := ReadCounts(n); return err },
		"text": func(n string) error {
			_, _, err := Load(n)
			return err
		},
	}
	for kind, read := range readers {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip(err)
			}
			zero := filepath.Join(dir, "zero")
			if err := os.Symlink("/dev/zero", zero); err != nil {
				t.Fatal(err)
			}
			regular := filepath.Join(dir, "regular")
			os.WriteFile(regular, []byte("data"), 0o644)
			link := filepath.Join(dir, "link")
			os.Symlink(regular, link)
			sparse := filepath.Join(dir, "sparse")
			f, _ := os.Create(sparse)
			if err := f.Truncate(128 << 30); err != nil { // past every kind's bound
				t.Skip(err)
			}
			f.Close()
			for _, c := range []struct{ name, want string }{
				{fifo, "not a regular file"},
				{zero, "symbolic link"},
				{link, "symbolic link"},
				{sparse, "larger than any"},
			} {
				err := read(c.name)
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
					t.Errorf("%s: %v; want an error naming it: %s", filepath.Base(c.name), err, c.want)
				}
			}
		})
	}
}

// TestRefuseHoles: a file within its kind's bound but made of holes is
// refused before it is read, a whole one is not.
func TestRefuseHoles(t *testing.T) {
	dir := t.TempDir()
	sparse := filepath.Join(dir, "sparse.flight")
	f, _ := os.Create(sparse)
	if err := f.Truncate(1 << 30); err != nil {
		t.Skip(err)
	}
	f.Close()
	f, _, err := OpenFile(sparse, "flight file", MaxFlightSize)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := nextHole(f, 0); !ok {
		t.Skip("this file system does not tell holes")
	}
	if _, err := ReadFlight(sparse); err == nil || !strings.Contains(err.Error(), "holes") {
		t.Errorf("a sparse flight file of 1 GiB: %v", err)
	}
	if _, err := OpenWPP(sparse); err == nil || !strings.Contains(err.Error(), "holes") {
		t.Errorf("a sparse WPP file of 1 GiB: %v", err)
	}
	whole := filepath.Join(dir, "whole")
	os.WriteFile(whole, make([]byte, 8192), 0o644)
	g, ginfo, err := OpenFile(whole, "flight file", MaxFlightSize)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if b, err := ReadWhole(g, "flight file", ginfo.Size()); err != nil || len(b) != 8192 {
		t.Errorf("a whole file of zeros: %d bytes, %v", len(b), err)
	}
}
