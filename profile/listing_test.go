package profile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestList: a profile directory's files by kind, each once and sorted;
// files named as a kind that are not regular are problems, not files;
// other files, temporary files and subdirectories are passed over.
func TestList(t *testing.T) {
	dir := t.TempDir()
	touch := func(names ...string) {
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	touch("0123456789abcdef0123456789abcdef.meta", "pathcover.2.0.counts", "pathcover.1.0.counts", "pathcover.1.0.tests",
		"pathcover.1.0.wpp", "pathcover.1.1.flight", TWPPFile, WETFile, DDGFile, "notes.txt", ".tmp-profile.wet-0011")
	os.Mkdir(filepath.Join(dir, "sub.wpp"), 0o755)
	os.Symlink("/dev/zero", filepath.Join(dir, "pathcover.9.0.wpp"))
	fifo := filepath.Join(dir, "pathcover.9.0.counts")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	l, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := func(names []string) []string {
		var b []string
		for _, n := range names {
			b = append(b, filepath.Base(n))
		}
		return b
	}
	for k, want := range map[FileKind][]string{
		KindMeta:   {"0123456789abcdef0123456789abcdef.meta"},
		KindCounts: {"pathcover.1.0.counts", "pathcover.2.0.counts"},
		KindTests:  {"pathcover.1.0.tests"},
		KindWPP:    {"pathcover.1.0.wpp"},
		KindFlight: {"pathcover.1.1.flight"},
		KindTWPP:   {TWPPFile},
		KindWET:    {WETFile},
		KindDDG:    {DDGFile},
	} {
		if got := base(l.Files(k)); !slices.Equal(got, want) {
			t.Errorf("%v files %q, want %q", k, got, want)
		}
	}
	if len(l.Problems) != 2 || l.Err(KindWPP) == nil || l.Err(KindCounts) == nil || l.Err(KindMeta) != nil {
		t.Errorf("problems %v", l.Problems)
	}
	if _, err := l.Need(KindWPP, ""); err == nil || !strings.Contains(err.Error(), "pathcover.9.0.wpp") {
		t.Errorf("Need(KindWPP) with a link among them: %v", err)
	}
	empty, _ := List(t.TempDir())
	var none *NoFilesError
	if _, err := empty.Need(KindWPP, "record them with -wpp"); !errors.As(err, &none) || !strings.Contains(err.Error(), "record them with -wpp") {
		t.Errorf("Need(KindWPP) of an empty directory: %v", err)
	}
	if _, err := List(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("List of a missing directory: no error")
	}
}
