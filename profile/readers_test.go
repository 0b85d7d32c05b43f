package profile_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pathcover/pathcover/internal/query/slice"
	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/profile"
)

// TestReadersRefuse: every reader of a file that pathcover writes opens it
// through profile.OpenFile, and refuses, at once and naming the file, a
// FIFO (which would wait for a writer), a link (to /dev/zero, which never
// ends, or to any file of the user's), a file larger than its kind holds,
// and, where the kind is read whole or scanned to its end, one of holes.
// Readers of a directory (metadata, text profiles) are TestReadDirIrregular's.
// It lives here, in one table, so that a new file kind's reader is added
// to it rather than given a test of its own.
func TestReadersRefuse(t *testing.T) {
	closed := func(c interface{ Close() error }, err error) error {
		if err == nil {
			c.Close()
		}
		return err
	}
	readers := []struct {
		kind  string
		read  func(string) error
		holes bool // read whole or to its end: a sparse file within its bound is refused
	}{
		{"flight", func(n string) error { _, err := profile.ReadFlight(n); return err }, true},
		{"wpp", func(n string) error { w, err := profile.OpenWPP(n); return closed(w, err) }, true},
		{"tests", func(n string) error { _, err := profile.ReadTests(n); return err }, false},
		{"counts", func(n string) error { _, err := profile.ReadCounts(n); return err }, false},
		{"text", func(n string) error { _, _, err := profile.Load(n); return err }, false},
		{"wet", func(n string) error { _, err := wet.ReadFile(n); return err }, true},
		{"twpp", func(n string) error { f, err := wpp.Open(n); return closed(f, err) }, true},
		{"ddg", func(n string) error { _, err := slice.ReadCompactFile(n, filepath.Dir(n)); return err }, true},
	}
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
	huge := filepath.Join(dir, "huge")
	if err := makeSparse(huge, 128<<30); err != nil { // past every kind's bound
		t.Skip(err)
	}
	sparse := filepath.Join(dir, "sparse")
	if err := makeSparse(sparse, 1<<30); err != nil { // within every kind's bound
		t.Skip(err)
	}
	tellsHoles := false
	if f, err := os.Open(sparse); err == nil {
		_, tellsHoles = profile.NextHole(f, 0)
		f.Close()
	}
	for _, r := range readers {
		t.Run(r.kind, func(t *testing.T) {
			cases := []struct{ name, want string }{
				{fifo, "not a regular file"},
				{zero, "symbolic link"},
				{link, "symbolic link"},
				{huge, "larger than any"},
			}
			if r.holes && tellsHoles {
				cases = append(cases, struct{ name, want string }{sparse, "holes"})
			}
			for _, c := range cases {
				err := r.read(c.name)
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
					t.Errorf("%s: %v; want an error naming it: %s", filepath.Base(c.name), err, c.want)
				}
			}
		})
	}
}

// makeSparse makes a file of size bytes, all of them a hole.
func makeSparse(name string, size int64) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Truncate(size)
}
