//go:build unix

package rt

import (
	"os"
	"syscall"
	"unsafe"
)

// The counter file of this process, created at the first Register.
var counts *os.File

// segment adds a segment for hash to this process's counter file and
// returns its words, mapped shared from the file. The layout is defined in
// package profile: a header page, then page-aligned segments of a 64-byte
// header and the words. fill sets the header's own words and the initial
// words before the magic marks the segment complete. The caller holds mu.
func segment(dir string, magic [8]byte, hash string, words int, fill func(header, words []uint64)) ([]uint64, error) {
	page := int64(os.Getpagesize())
	if counts == nil {
		f, err := createCounts(dir)
		if err != nil {
			return nil, err
		}
		hdr, err := mapWords(f, 0, int(page))
		if err != nil {
			f.Close()
			return nil, err
		}
		hdr[1] = uint64(page)
		hdr[2] = uint64(os.Getpid())
		hdr[3] = byteOrderMark
		*(*[8]byte)(unsafe.Pointer(&hdr[0])) = fileMagic
		counts = f
	}
	info, err := counts.Stat()
	if err != nil {
		return nil, err
	}
	off := (info.Size() + page - 1) / page * page
	size := (segmentHeader + 8*int64(words) + page - 1) / page * page
	m, err := mapWords(counts, off, int(size))
	if err != nil {
		return nil, err
	}
	copy((*[16]byte)(unsafe.Pointer(&m[1]))[:], hashBytes(hash))
	m[3] = uint64(words)
	w := m[segmentHeader/8 : segmentHeader/8+int64(words) : segmentHeader/8+int64(words)]
	if fill != nil {
		fill(m[:segmentHeader/8], w)
	}
	*(*[8]byte)(unsafe.Pointer(&m[0])) = magic // last: the segment is complete
	return w, nil
}

// createCounts creates a counter file that no other process uses:
// pathcover.<pid>.<n>.counts, with n counting up until the name is new.
func createCounts(dir string) (*os.File, error) {
	base := dir + string(os.PathSeparator) + "pathcover." + itoa(uint64(os.Getpid())) + "."
	for n := uint64(0); ; n++ {
		f, err := os.OpenFile(base+itoa(n)+".counts", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil || !os.IsExist(err) || n > 1000 {
			return f, err
		}
	}
}

// mapWords extends f with size zero bytes at off and maps them, shared, as
// words. The zeros are written, not left as a hole by truncation, so that
// the disk blocks exist: a store into a hole of a full disk would kill the
// program with SIGBUS, while a full disk here is an error Register survives.
// The mapping is never unmapped: the counters live as long as the process.
func mapWords(f *os.File, off int64, size int) ([]uint64, error) {
	if _, err := f.WriteAt(make([]byte, size), off); err != nil {
		return nil, err
	}
	b, err := syscall.Mmap(int(f.Fd()), off, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), size/8), nil
}
