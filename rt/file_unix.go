//go:build unix

package rt

import (
	"syscall"
	"unsafe"
)

// The files are made with package syscall, not os: os would bring io/fs,
// time, unicode/utf8 and more into rt's dependencies, and pppexec cannot
// instrument a package that rt depends on.

// The counter file of this process, created at the first Register; -1
// before.
var counts = -1

// segment adds a segment for hash to this process's counter file and
// returns its words, mapped shared from the file. The layout is defined in
// package profile: a header page, then page-aligned segments of a 64-byte
// header and the words. fill sets the header's own words and the initial
// words before the magic marks the segment complete. The caller holds mu.
func segment(dir string, magic [8]byte, hash string, words int, fill func(header, words []uint64)) ([]uint64, error) {
	page := int64(syscall.Getpagesize())
	if counts < 0 {
		fd, err := createCounts(dir)
		if err != nil {
			return nil, err
		}
		hdr, err := mapWords(fd, 0, int(page))
		if err != nil {
			syscall.Close(fd)
			return nil, err
		}
		hdr[1] = uint64(page)
		hdr[2] = uint64(syscall.Getpid())
		hdr[3] = byteOrderMark
		*(*[8]byte)(unsafe.Pointer(&hdr[0])) = fileMagic
		counts = fd
	}
	var st syscall.Stat_t
	if err := retry(func() error { return syscall.Fstat(counts, &st) }); err != nil {
		return nil, err
	}
	off := (st.Size + page - 1) / page * page
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
func createCounts(dir string) (int, error) {
	base := dir + "/pathcover." + itoa(uint64(syscall.Getpid())) + "."
	for n := uint64(0); ; n++ {
		fd, err := createNew(base+itoa(n)+".counts", syscall.O_RDWR, 0o666)
		if err != syscall.EEXIST || n > 1000 {
			return fd, err
		}
	}
}

// mapWords extends the file fd with size zero bytes at off and maps them,
// shared, as words. The zeros are written, not left as a hole by
// truncation, so that the disk blocks exist: a store into a hole of a full
// disk would kill the program with SIGBUS, while a full disk here is an
// error Register survives. The mapping is never unmapped: the counters live
// as long as the process.
func mapWords(fd int, off int64, size int) ([]uint64, error) {
	zeros := make([]byte, size)
	for done := 0; done < size; {
		var n int
		err := retry(func() (err error) {
			n, err = syscall.Pwrite(fd, zeros[done:], off+int64(done))
			return err
		})
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, syscall.EIO
		}
		done += n
	}
	b, err := syscall.Mmap(fd, off, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), size/8), nil
}

// writeMeta writes the metadata file of hash unless some process already
// has. It writes a temporary file and renames it, so that readers never see
// a partial one.
func writeMeta(dir, hash, meta string) error {
	if err := mkdirAll(dir); err != nil {
		return err
	}
	name := dir + "/" + hash + ".meta"
	var st syscall.Stat_t
	if retry(func() error { return syscall.Stat(name, &st) }) == nil {
		return nil
	}
	base := name + ".tmp" + itoa(uint64(syscall.Getpid())) + "."
	var tmp string
	fd := -1
	for n := uint64(0); fd < 0; n++ {
		tmp = base + itoa(n)
		var err error
		fd, err = createNew(tmp, syscall.O_WRONLY, 0o644)
		if err != nil && (err != syscall.EEXIST || n > 1000) {
			return err
		}
	}
	// The umask may have taken bits away; the profile is for others to read.
	err := retry(func() error { return syscall.Fchmod(fd, 0o644) })
	if err == nil {
		err = writeAll(fd, []byte(meta))
	}
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err == nil {
		err = retry(func() error { return syscall.Rename(tmp, name) })
	}
	if err != nil {
		syscall.Unlink(tmp)
	}
	return err
}

// mkdirAll makes dir and the directories above it that are missing.
func mkdirAll(dir string) error {
	var st syscall.Stat_t
	if retry(func() error { return syscall.Stat(dir, &st) }) == nil {
		if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			return syscall.ENOTDIR
		}
		return nil
	}
	if i := lastSlash(dir); i > 0 {
		if err := mkdirAll(dir[:i]); err != nil {
			return err
		}
	}
	err := retry(func() error { return syscall.Mkdir(dir, 0o777) })
	if err == syscall.EEXIST {
		return nil // made by another process meanwhile
	}
	return err
}

func lastSlash(s string) int {
	s = trimSlashes(s)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

func trimSlashes(s string) string {
	for len(s) > 1 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// createNew creates a file that must not exist yet, for mode (O_RDWR or
// O_WRONLY), closed on exec.
func createNew(name string, mode int, perm uint32) (int, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = syscall.Open(name, mode|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, perm)
		return err
	})
	if err != nil {
		return -1, err
	}
	return fd, nil
}

// writeAll writes b to fd, however many writes it takes.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		var n int
		err := retry(func() (err error) {
			n, err = syscall.Write(fd, b)
			return err
		})
		if err != nil {
			return err
		}
		if n == 0 {
			return syscall.EIO
		}
		b = b[n:]
	}
	return nil
}

// retry runs a system call again while a signal interrupts it, as package
// os does: the Go runtime's own signals (preemption, profiling) may.
func retry(call func() error) error {
	for {
		if err := call(); err != syscall.EINTR {
			return err
		}
	}
}
