//go:build unix

package rt

import (
	"errors"
	"syscall"
	"unsafe"
)

// The files are made with package syscall, not os: os would bring io/fs,
// time, unicode/utf8 and more into rt's dependencies, and pppexec cannot
// instrument a package that rt depends on.

// The counter file of this process, created at the first Register.
var counts = ownFile{fd: -1}

// segment adds a segment for hash to this process's counter file and
// returns its words, mapped shared from the file. The layout is defined in
// package profile: a header page, then page-aligned segments of a 64-byte
// header and the words. fill sets the header's own words and the initial
// words before the magic marks the segment complete. The caller holds mu.
func segment(dir string, magic [8]byte, hash string, words int, fill func(header, words []uint64)) ([]uint64, error) {
	shards, _, err := segments(dir, magic, hash, words, 1, fill)
	if err != nil {
		return nil, err
	}
	return shards[0], nil
}

// segments adds n segments for hash, one after the other in one mapping:
// the shards of a package's counters (shards.go). It returns each one's
// words and stride, the distance in bytes from one shard's words to the
// next's, a multiple of the page size. fill is called for each, and each
// is marked complete as it is filled.
func segments(dir string, magic [8]byte, hash string, words, n int, fill func(header, words []uint64)) (shards [][]uint64, stride int, err error) {
	page := int64(syscall.Getpagesize())
	if !counts.made() {
		if err := createCounts(dir, page); err != nil {
			return nil, 0, err
		}
	}
	fd, fileSize, err := counts.descriptor()
	if err != nil {
		return nil, 0, err
	}
	off := (fileSize + page - 1) / page * page
	size := (segmentHeader + 8*int64(words) + page - 1) / page * page
	all, err := mapWords(&counts, fd, off, int(size)*n)
	if err != nil {
		return nil, 0, err
	}
	for i := range n {
		m := all[int64(i)*size/8:]
		copy((*[16]byte)(unsafe.Pointer(&m[1]))[:], hashBytes(hash))
		m[3] = uint64(words)
		w := m[segmentHeader/8 : segmentHeader/8+int64(words) : segmentHeader/8+int64(words)]
		if fill != nil {
			fill(m[:segmentHeader/8], w)
		}
		*(*[8]byte)(unsafe.Pointer(&m[0])) = magic // last: the segment is complete
		shards = append(shards, w)
	}
	return shards, int(size), nil
}

// createCounts creates this process's counter file in dir and writes its
// header page.
func createCounts(dir string, page int64) error {
	if err := counts.create(dir, ".counts", syscall.O_RDWR); err != nil {
		return err
	}
	hdr, err := mapWords(&counts, counts.fd, 0, int(page))
	if err != nil {
		counts.drop()
		return err
	}
	hdr[1] = uint64(page)
	hdr[2] = uint64(syscall.Getpid())
	hdr[3] = byteOrderMark
	*(*[8]byte)(unsafe.Pointer(&hdr[0])) = fileMagic
	return nil
}

// An ownFile is a file of the profile that rt keeps open while the program
// runs: the counter file, to add segments to, or the trace file.
//
// The program may close descriptors it did not open (daemons close every
// one they inherited, with a loop or close_range), and its next open then
// gets the same number: a write through the kept number would go into the
// program's file, and the counts with it would be lost. So the descriptor
// is moved above the numbers open hands out first, where close loops with
// a fixed bound (256, 1024) do not reach, and before each use it is
// checked to still be the file rt made, by device and inode. If it is not,
// the number belongs to the program and rt never touches it again: it opens
// its file anew by its path, and if that fails or finds another file,
// the caller counts in memory.
type ownFile struct {
	fd       int    // -1 for none
	path     string // empty until the file is made
	mode     int    // syscall.O_RDWR, or syscall.O_WRONLY|syscall.O_APPEND
	dev, ino uint64 // which file it is
}

// made reports whether the file was created (it may have been lost since).
func (f *ownFile) made() bool { return f.path != "" }

// create makes a new file of this process in dir, named
// pathcover.<pid>.<n><suffix>, opened for mode, and keeps it.
func (f *ownFile) create(dir, suffix string, mode int) error {
	fd, path, err := createUnique(dir+"/pathcover."+itoa(uint64(syscall.Getpid()))+".", suffix, mode, filePerm)
	if err != nil {
		return err
	}
	var st syscall.Stat_t
	if err := retry(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		syscall.Close(fd)
		syscall.Unlink(path)
		return err
	}
	*f = ownFile{fd: moveHigh(fd), path: path, mode: mode, dev: uint64(st.Dev), ino: uint64(st.Ino)}
	return nil
}

// drop removes f, which was just created and could not be set up, so that
// no reader finds it half made, closes its descriptor unless the program
// took the number meanwhile, and forgets it.
func (f *ownFile) drop() {
	syscall.Unlink(f.path)
	var st syscall.Stat_t
	if f.is(f.fd, &st) {
		syscall.Close(f.fd)
	}
	*f = ownFile{fd: -1}
}

// writeOn writes b at the end of f's file as it is now, through its
// descriptor if that still is f's (descriptor), so that a descriptor that
// the program closed and reopened for something else is never written.
func (f *ownFile) writeOn(b []byte) error {
	fd, size, err := f.descriptor()
	for err == nil && len(b) > 0 {
		var n int
		err = retry(func() (err error) {
			n, err = syscall.Pwrite(fd, b, size)
			return err
		})
		if err == nil && n == 0 {
			err = syscall.EIO
		}
		b, size = b[n:], size+int64(n)
	}
	return err
}

// close closes f's descriptor if it still is f's.
func (f *ownFile) close() {
	var st syscall.Stat_t
	if f.is(f.fd, &st) {
		syscall.Close(f.fd)
	}
}

// descriptor returns a descriptor of f and f's size, after checking that
// the descriptor still is f; if it is not, it opens f again by its path.
func (f *ownFile) descriptor() (int, int64, error) {
	var st syscall.Stat_t
	if f.fd >= 0 && f.is(f.fd, &st) {
		return f.fd, st.Size, nil
	}
	// The program closed the descriptor, and may have one of its own files
	// under the number now: forget it, never close it.
	f.fd = -1
	if !f.made() {
		return -1, 0, errNoFile
	}
	var fd int
	err := retry(func() (err error) {
		fd, err = syscall.Open(f.path, f.mode|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
		return err
	})
	if err != nil {
		return -1, 0, errors.New("the program closed the descriptor of " + f.base() + ", which cannot be opened again: " + err.Error())
	}
	if !f.is(fd, &st) {
		syscall.Close(fd)
		return -1, 0, errors.New("the program closed the descriptor of " + f.base() + ", which is another file now")
	}
	f.fd = moveHigh(fd)
	return f.fd, st.Size, nil
}

// is reports whether descriptor fd is the file f, with its status in st.
func (f *ownFile) is(fd int, st *syscall.Stat_t) bool {
	err := retry(func() error { return syscall.Fstat(fd, st) })
	return err == nil && uint64(st.Dev) == f.dev && uint64(st.Ino) == f.ino
}

// check fails unless descriptor fd still is the file f: the program's
// other goroutines run while rt works. A number that is not f's any more
// is forgotten, so that nothing uses it again.
func (f *ownFile) check(fd int) error {
	var st syscall.Stat_t
	if !f.is(fd, &st) {
		if fd == f.fd {
			f.fd = -1
		}
		return errors.New("the program closed the descriptor of " + f.base())
	}
	return nil
}

// base is f's name in its directory, which the warnings name already.
func (f *ownFile) base() string { return f.path[lastSlash(f.path)+1:] }

var errNoFile = errors.New("no file")

// filePerm is the mode counter, trace and metadata files are created with,
// before the umask. Nobody but the owner may write: another user who could
// would rewrite the counts, or truncate a live counter file, which kills
// the program (see the package doc). Others may read, as the umask allows:
// the profile is for people and tools, often under another account than
// the profiled service's; a umask of 077 keeps it private. dirPerm is the
// same for the directories rt makes.
const (
	filePerm = 0o644
	dirPerm  = 0o755
)

// createUnique creates a file named prefix, a number, suffix, that did not
// exist, opened for mode. The number starts at the time in microseconds
// and goes up past names that exist, so that it is new at the first try
// for a process whose PID an earlier process of the directory had: PID 1
// in a container restarted into a kept directory. (Counting up from 0 would
// cost each start as many tries as earlier starts left files.) The bound on
// tries only guards against a file system that says every name exists:
// each try is a new name.
func createUnique(prefix, suffix string, mode int, perm uint32) (int, string, error) {
	n := microseconds()
	for try := 0; ; try++ {
		name := prefix + itoa(n) + suffix
		fd, err := createNew(name, mode, perm)
		if err != syscall.EEXIST || try == 1<<16 {
			return fd, name, err
		}
		n = max(microseconds(), n+1)
	}
}

// microseconds returns the time in microseconds since 1970.
func microseconds() uint64 {
	var tv syscall.Timeval
	if syscall.Gettimeofday(&tv) != nil {
		return 0
	}
	return uint64(tv.Nano() / 1000)
}

// mapWords extends f, whose descriptor is fd, with size zero bytes at off
// (growFile) and maps them, shared, as words. The mapping is never
// unmapped: the counters live as long as the process.
func mapWords(f *ownFile, fd int, off int64, size int) ([]uint64, error) {
	if err := growFile(f, fd, off, size); err != nil {
		return nil, err
	}
	b, err := syscall.Mmap(fd, off, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), size/8), nil
}

// mapGrowing writes f's first size bytes, zero, and maps its first limit
// bytes, shared: the pages past the file's end may be used once the file
// has grown over them (growFile), and never before, since a store past
// the end of a mapped file is a SIGBUS.
func mapGrowing(f *ownFile, fd int, limit, size int) (unsafe.Pointer, error) {
	if err := growFile(f, fd, 0, size); err != nil {
		return nil, err
	}
	b, err := syscall.Mmap(fd, 0, limit, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return unsafe.Pointer(&b[0]), nil
}

// growFile writes size zero bytes at off of f, whose descriptor is fd (if
// fd is -1, whichever f has now). The zeros are written, not left as a
// hole by truncation, so that the disk blocks exist: a store into a hole
// of a full disk would kill the program with SIGBUS, while a full disk
// here is an error the program survives. Each write checks that the
// descriptor still is f. The zeros are written from a buffer of at most
// 64 KiB: a sharded package's segments can be large.
func growFile(f *ownFile, fd int, off int64, size int) error {
	zeros := make([]byte, min(size, 64<<10))
	for done := 0; done < size; {
		if fd < 0 {
			var err error
			if fd, _, err = f.descriptor(); err != nil {
				return err
			}
		} else if err := f.check(fd); err != nil {
			return err
		}
		var n int
		err := retry(func() (err error) {
			n, err = syscall.Pwrite(fd, zeros[:min(len(zeros), size-done)], off+int64(done))
			return err
		})
		if err != nil {
			return err
		}
		if n == 0 {
			return syscall.EIO
		}
		done += n
	}
	return f.check(fd)
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
	fd, tmp, err := createUnique(name+".tmp"+itoa(uint64(syscall.Getpid()))+".", "", syscall.O_WRONLY, filePerm)
	if err != nil {
		return err
	}
	// No Fchmod: the mode follows the umask, which may keep the profile
	// private.
	err = writeAll(fd, []byte(meta))
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
	err := retry(func() error { return syscall.Mkdir(dir, dirPerm) })
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

// isAbs reports whether dir, not empty, is an absolute path.
func isAbs(dir string) bool { return dir[0] == '/' }

// absolute returns dir, relative to the directory the run was started in
// (runDir), as an absolute path; dir as it is if that cannot be known.
func absolute(dir string) string {
	wd := runDir()
	if wd == "" {
		return dir
	}
	for len(dir) > 2 && dir[:2] == "./" {
		dir = dir[2:]
	}
	if dir == "." || dir == "./" {
		return wd
	}
	return trimSlashes(wd) + "/" + dir
}

// runDir returns the directory a relative profile directory is taken
// from: the go command's working directory when the go command started
// this process, else this process's own; "" if neither can be known.
// go test runs each test binary in its package's directory, so that a
// relative PATHCOVERDIR=prof of go test ./... meant to each process a
// prof directory of its own package; the user meant the one they ran go
// test in, which is the go command's (go run does not change directory,
// so there the two are the same).
func runDir() string {
	if wd := goCommandDir(); wd != "" {
		return wd
	}
	wd, err := syscall.Getwd()
	if err != nil || wd == "" || !isAbs(wd) {
		return ""
	}
	return wd
}

// goCommandDir returns the working directory of this process's parent if
// the parent is the go command (its executable is named go), as Linux's
// /proc tells; "" otherwise, or where there is no /proc.
func goCommandDir() string {
	proc := "/proc/" + itoa(uint64(syscall.Getppid())) + "/"
	exe := readlink(proc + "exe")
	if exe[lastSlash(exe)+1:] != "go" {
		return ""
	}
	if cwd := readlink(proc + "cwd"); cwd != "" && isAbs(cwd) {
		return cwd
	}
	return ""
}

// readlink returns the target of the link name, "" if it has none.
func readlink(name string) string {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink(name, buf)
	if err != nil || n <= 0 || n == len(buf) {
		return ""
	}
	return string(buf[:n])
}

// countsFile returns the directory and name of this process's counter
// file, or "" for none made: the tests file lies beside it and names it.
func countsFile() (dir, base string) {
	if !counts.made() {
		return "", ""
	}
	return counts.path[:lastSlash(counts.path)], counts.base()
}
