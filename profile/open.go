package profile

import (
	"fmt"
	"os"
)

// OpenFile opens a file of a profile to read it, as every reader of the
// files pathcover writes does: a regular file, not a link to one (another
// user who can write a shared profile directory could point a name at any
// file of ours), of at most max bytes, the most a kind of file can hold.
// A FIFO would wait for a writer, and a device such as /dev/zero never
// end: the file is opened without blocking (openFlags) and refused before
// a byte is read. kind names the file in errors ("flight file").
func OpenFile(name, kind string, max int64) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if isLink(name) {
			return nil, nil, fmt.Errorf("%s: a symbolic link: pathcover reads no %s through one", name, kind)
		}
		return nil, nil, err
	}
	info, err := f.Stat()
	switch {
	case err != nil:
	case !info.Mode().IsRegular():
		err = fmt.Errorf("%s: not a regular file (%v)", name, info.Mode().Type())
	case info.Size() > max:
		err = fmt.Errorf("%s: %d bytes, larger than any %s pathcover writes (%d MiB)", name, info.Size(), kind, max>>20)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// isLink reports whether name is a symbolic link.
func isLink(name string) bool {
	info, err := os.Lstat(name)
	return err == nil && info.Mode()&os.ModeSymlink != 0
}

// RefuseHoles returns an error if f, of size bytes, has holes, where the
// system can tell. The files that pathcover and its runtime write have
// none (rt grows its files by writing zeros, the commands write theirs in
// order), while a crafted sparse file of gigabytes of holes would be read
// as zeros a page at a time, into as much memory where it is read whole.
// (A copy made sparse by a tool is made whole again by cp
// --sparse=never.)
func RefuseHoles(f *os.File, kind string, size int64) error {
	if h, ok := nextHole(f, 0); ok && h < size {
		return fmt.Errorf("%s: has holes (a sparse file): not a %s pathcover wrote", f.Name(), kind)
	}
	return nil
}

// ReadWhole reads a file that OpenFile opened, of size bytes, into memory,
// for the kinds of file that are parsed whole, once RefuseHoles has
// passed it.
func ReadWhole(f *os.File, kind string, size int64) ([]byte, error) {
	if err := RefuseHoles(f, kind, size); err != nil {
		return nil, err
	}
	b := make([]byte, size)
	n, err := f.ReadAt(b, 0)
	if int64(n) == size {
		return b, nil
	}
	return nil, fmt.Errorf("%s: %v", f.Name(), err)
}
