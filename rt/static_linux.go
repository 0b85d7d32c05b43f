package rt

import (
	"syscall"
	"unsafe"
)

// mapStatic adds a segment for hash to this process's counter file whose
// words are c, which lie in whole pages of their array (RegisterStatic),
// and maps the file over those pages. The segment is drawn in package
// profile: a page of its header, which says where in the segment the
// words start (the next page plus c's offset in its first page), then the
// pages mapped over c's. The words counted so far are written into the
// file before the mapping replaces them. The caller holds mu.
func mapStatic(dir, hash string, c []uint64) error {
	if len(c) == 0 {
		_, err := segment(dir, segmentMagic, hash, 0, nil)
		return err
	}
	page := uintptr(syscall.Getpagesize())
	if page > StaticPad*8 {
		return errPageTooLarge
	}
	start := uintptr(unsafe.Pointer(&c[0]))
	lo := start &^ (page - 1)
	hi := (start + uintptr(8*len(c)) + page - 1) &^ (page - 1)
	if !counts.made() {
		if err := createCounts(dir, int64(page)); err != nil {
			return err
		}
	}
	fd, fileSize, err := counts.descriptor()
	if err != nil {
		return err
	}
	off := (fileSize + int64(page) - 1) / int64(page) * int64(page)
	if err := growFile(&counts, fd, off, int(page+hi-lo)); err != nil {
		return err
	}
	// The header, but for its magic, which marks the segment complete once
	// the words are the file's.
	var head [segmentHeader / 8]uint64
	copy((*[16]byte)(unsafe.Pointer(&head[1]))[:], hashBytes(hash))
	head[3] = uint64(len(c))
	head[staticWordsWord] = uint64(page + start - lo)
	if err := pwriteAll(fd, unsafe.Slice((*byte)(unsafe.Pointer(&head[0])), segmentHeader), off); err != nil {
		return err
	}
	// The words so far: increments between this copy and the mapping are
	// lost, which only code running in other goroutines while the package
	// initialises could make.
	// lo is in c's array, which pads c by more than a page.
	pages := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&c[0]), -int(start-lo))), hi-lo)
	if err := pwriteAll(fd, pages, off+int64(page)); err != nil {
		return err
	}
	if err := counts.check(fd); err != nil {
		return err
	}
	// MAP_FIXED replaces the pages in one call: the kernel checks what can
	// fail (the descriptor, the mapping count) before it unmaps anything.
	addr, _, errno := syscall.Syscall6(syscall.SYS_MMAP, uintptr(unsafe.Pointer(&pages[0])), hi-lo, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_FIXED, uintptr(fd), uintptr(off)+page)
	if errno != 0 {
		return errno
	}
	if addr != lo {
		return errMappedElsewhere
	}
	magic := segmentMagic
	return pwriteAll(fd, magic[:], off)
}

// pwriteAll writes b at off of fd.
func pwriteAll(fd int, b []byte, off int64) error {
	for len(b) > 0 {
		var n int
		err := retry(func() (err error) {
			n, err = syscall.Pwrite(fd, b, off)
			return err
		})
		if err != nil {
			return err
		}
		if n == 0 {
			return syscall.EIO
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}
