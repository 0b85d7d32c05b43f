package source

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFilesRefuse: only Go files under the roots are read, regular and
// not too large, whatever the name asked for.
func TestFilesRefuse(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		if err := os.WriteFile(name, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
		return name
	}
	ok := write(filepath.Join(root, "ok.go"), "package p\n")
	secret := write(filepath.Join(outside, "secret.go"), "SECRET\n")
	link := filepath.Join(root, "link.go")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	notGo := write(filepath.Join(root, "passwd"), "SECRET\n")
	dirGo := filepath.Join(root, "dir.go")
	os.Mkdir(dirGo, 0o777)
	fifo := filepath.Join(root, "fifo.go")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(root, "huge.go")
	if err := os.WriteFile(huge, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	s := Under(root)
	if data, err := s.ReadFile(ok); err != nil || string(data) != "package p\n" {
		t.Errorf("ReadFile(%s) = %q, %v", ok, data, err)
	}
	for _, name := range []string{secret, link, notGo, dirGo, fifo, huge, "ok.go", root + "/../" + filepath.Base(outside) + "/secret.go", "/etc/passwd"} {
		if data, err := s.ReadFile(name); err == nil || strings.Contains(string(data), "SECRET") {
			t.Errorf("ReadFile(%s) = %q, %v; want an error", name, data, err)
		}
	}
}
