package atomicfile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Write writes the file name with what write writes to its writer
// (buffered), whole or not at all (see the package's doc). perm is the
// new file's mode before the umask, as for os.WriteFile; the file
// replaces name whatever name was, a link included. Errors name the file.
func Write(name string, perm os.FileMode, write func(io.Writer) error) error {
	tmp, err := create(name, perm)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	w := bufio.NewWriter(tmp)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// WriteFile writes data to the file name as Write does.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	return Write(name, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// TempPrefix begins the name of every temporary file: hidden, and one
// prefix that a cache's trimming can tell from its entries.
const tempPrefix = ".tmp-"

// IsTemp reports whether a file's base name is a temporary file's, one
// being written or left by a writer that was killed.
func IsTemp(base string) bool { return strings.HasPrefix(base, tempPrefix) }

// create makes the temporary file beside name: O_EXCL, so that it is a
// new file of ours and not one planted under a name we would pick (the
// names are random, so that planting them all in advance cannot stop the
// write either).
func create(name string, perm os.FileMode) (*os.File, error) {
	dir, base := filepath.Split(name)
	for range 100 {
		var r [8]byte
		rand.Read(r[:])
		f, err := os.OpenFile(filepath.Join(dir, tempPrefix+base+"-"+hex.EncodeToString(r[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("no new temporary file could be made beside it")
}
