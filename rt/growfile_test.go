//go:build unix

package rt

import (
	"os"
	"syscall"
	"testing"
)

// TestGrowFileLarge: growFile writes a size larger than its zero buffer,
// and one that is not a multiple of it, wholly, at its offset, leaving the
// bytes before it alone.
func TestGrowFileLarge(t *testing.T) {
	for _, size := range []int{1, 64 << 10, 200_003} {
		var f ownFile
		if err := f.create(t.TempDir(), ".grow", syscall.O_RDWR); err != nil {
			t.Fatal(err)
		}
		if _, err := syscall.Pwrite(f.fd, []byte("head"), 0); err != nil {
			t.Fatal(err)
		}
		if err := growFile(&f, -1, 4, size); err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		b, err := os.ReadFile(f.path)
		syscall.Close(f.fd)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != 4+size || string(b[:4]) != "head" {
			t.Fatalf("size %d: file of %d bytes beginning %q", size, len(b), b[:min(4, len(b))])
		}
		for i, c := range b[4:] {
			if c != 0 {
				t.Fatalf("size %d: byte %d is %d", size, 4+i, c)
			}
		}
	}
}
