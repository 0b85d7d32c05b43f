//go:build !unix

package rt

import (
	"errors"
	"unsafe"
)

// Without shared file mappings nothing is written: counting into memory
// that is written at exit would lose counts on os.Exit and on kills, which
// invariant 5 of docs/design.md rules out. The counters still count, in memory.

var errNoFiles = errors.New("counter files need a Unix system")

func segment(dir string, magic [8]byte, hash string, words int, fill func(header, words []uint64)) ([]uint64, error) {
	return nil, errNoFiles
}

func segments(dir string, magic [8]byte, hash string, words, n int, fill func(header, words []uint64)) ([][]uint64, int, error) {
	return nil, 0, errNoFiles
}

func writeMeta(dir, hash, meta string) error { return errNoFiles }

// ownFile is the type of the files rt makes; none is ever made here.
type ownFile struct {
	fd   int
	path string // always empty
}

func (f *ownFile) made() bool { return false }

func (f *ownFile) create(dir, suffix string, mode int) error { return errNoFiles }

func (f *ownFile) drop() {}

func (f *ownFile) writeOn(b []byte) error { return errNoFiles }

func (f *ownFile) close() {}

func (f *ownFile) descriptor() (int, int64, error) { return -1, 0, errNoFiles }

func writeAll(fd int, b []byte) error { return errNoFiles }

// Nothing is written, so a directory needs no resolving.
func isAbs(dir string) bool { return true }

func absolute(dir string) string { return dir }

func mapGrowing(f *ownFile, fd int, limit, size int) (unsafe.Pointer, error) { return nil, errNoFiles }

func mapWords(f *ownFile, fd int, off int64, size int) ([]uint64, error) { return nil, errNoFiles }

func growFile(f *ownFile, fd int, off int64, size int) error { return errNoFiles }

func countsFile() (dir, base string) { return "", "" }

func mkdirAll(dir string) error { return errNoFiles }

// lastSlash is the index of the last '/' in s, or -1.
func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}
