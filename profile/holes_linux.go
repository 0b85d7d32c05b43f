package profile

import (
	"errors"
	"os"
	"syscall"
)

// seekData is lseek's SEEK_DATA on Linux.
const seekData = 3

// nextData returns where the first byte at or after off that is not in a
// hole of f lies: a counter file that rt wrote has no holes, but a crafted
// or corrupt one can be gigabytes of them, which read() would fill with
// zeros one page at a time. ok is false if f cannot tell; end is true if
// only holes follow.
func nextData(f *os.File, off int64) (data int64, end, ok bool) {
	d, err := f.Seek(off, seekData)
	switch {
	case errors.Is(err, syscall.ENXIO):
		return 0, true, true
	case err != nil:
		return 0, false, false
	}
	return d, false, true
}

// seekHole is lseek's SEEK_HOLE on Linux.
const seekHole = 4

// nextHole returns where the first hole at or after off begins (the
// file's size if none: its end counts as one). ok is false if f cannot
// tell.
func nextHole(f *os.File, off int64) (hole int64, ok bool) {
	h, err := f.Seek(off, seekHole)
	return h, err == nil
}
