package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestPlantedLink: a link planted at the target is replaced by the new
// file; the file it pointed at is untouched.
func TestPlantedLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("the victim's"), 0o600)
	target := filepath.Join(dir, "profile.wet")
	if err := os.Symlink(victim, target); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "the victim's" {
		t.Errorf("the victim's file now holds %q", b)
	}
	info, err := os.Lstat(target)
	if err != nil || !info.Mode().IsRegular() {
		t.Fatalf("the target is %v, %v; want a regular file", info.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "ours" {
		t.Errorf("the target holds %q", b)
	}
}

// TestFailedWrite: a write that fails leaves the old file as it was and
// no temporary file behind.
func TestFailedWrite(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out")
	os.WriteFile(target, []byte("old"), 0o644)
	boom := errors.New("disk full")
	err := Write(target, 0o644, func(w io.Writer) error {
		w.Write(make([]byte, 1<<20))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write: %v; want the writer's error", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Errorf("the old file now holds %d bytes", len(b))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory; want the old one alone", len(entries))
	}
}

// TestMode: the new file's mode is perm less the umask, as os.WriteFile's.
func TestMode(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "want")
	os.WriteFile(want, nil, 0o644)
	got := filepath.Join(dir, "got")
	if err := WriteFile(got, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := os.Stat(want)
	b, _ := os.Stat(got)
	if a.Mode() != b.Mode() {
		t.Errorf("mode %v; os.WriteFile gives %v", b.Mode(), a.Mode())
	}
}
