package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
