package wet

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenRefuses: the WET reader opens its file through
// profile.OpenFile: a FIFO, a link (to /dev/zero or to another file), a
// file past MaxFileSize and a sparse one are refused at once, by name.
func TestOpenRefuses(t *testing.T) {
	read := func(n string) error { _, err := ReadFile(n); return err }
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	big := filepath.Join(dir, "big")
	sparse := filepath.Join(dir, "sparse")
	for name, size := range map[string]int64{big: MaxFileSize + 1, sparse: 1 << 30} {
		f, _ := os.Create(name)
		if err := f.Truncate(size); err != nil {
			t.Skip(err)
		}
		f.Close()
	}
	for _, c := range []struct{ name, want string }{
		{fifo, "not a regular file"},
		{zero, "symbolic link"},
		{big, "larger than any"},
		{sparse, "holes"},
	} {
		err := read(c.name)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: %v; want an error naming it: %s", filepath.Base(c.name), err, c.want)
		}
	}
}

// TestWriteFilePlantedLink: profile.wet planted as a link to another file
// is replaced by the WET, not written through.
func TestWriteFilePlantedLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("the victim's"), 0o600)
	target := filepath.Join(dir, "profile.wet")
	os.Symlink(victim, target)
	if err := (&WET{}).WriteFile(target); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "the victim's" {
		t.Errorf("the victim's file now holds %q", b)
	}
	if _, err := ReadFile(target); err != nil {
		t.Errorf("the WET written: %v", err)
	}
}
