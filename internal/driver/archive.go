package driver

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
)

// fingerprint returns the fingerprint of a compiled package: the hash the
// linker checks every import against ("fingerprint mismatch"). Archives of
// one package built in two go commands differ in their build IDs, and so
// in their bytes, yet link together if their fingerprints are equal.
//
// An archive is an ar file; its _go_.o member is a text header ending in
// "\n!\n", then the object file, which starts with "\x00go120ld" and the
// 8-byte fingerprint (cmd/internal/goobj).
//
// It reads the member headers and the start of _go_.o only: an archive of
// the standard library holds megabytes of export data before it, and a
// link compares the fingerprints of several (runtime.go, matches).
func fingerprint(archive string) (string, error) {
	f, err := os.Open(archive)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	magic := make([]byte, 8)
	if _, err := f.ReadAt(magic, 0); err != nil || string(magic) != "!<arch>\n" {
		return "", errors.New("not an archive")
	}
	hdr := make([]byte, 60)
	for off := int64(8); off+60 <= info.Size(); {
		if _, err := f.ReadAt(hdr, off); err != nil {
			return "", err
		}
		name := strings.TrimSpace(string(hdr[:16]))
		size, err := strconv.ParseInt(strings.TrimSpace(string(hdr[48:58])), 10, 64)
		if err != nil || size < 0 || off+60+size > info.Size() {
			return "", errors.New("bad archive member header")
		}
		if name == "_go_.o" {
			// The text header is a line or two ("go object ...", the
			// build ID): the first 4 KB hold it, short of a hostile file.
			body := make([]byte, min(size, 4096))
			if _, err := f.ReadAt(body, off+60); err != nil {
				return "", err
			}
			i := bytes.Index(body, []byte("\n!\n"))
			const magic = "\x00go120ld"
			if i < 0 || !bytes.HasPrefix(body[i+3:], []byte(magic)) || len(body) < i+3+len(magic)+8 {
				return "", errors.New("no object header in _go_.o")
			}
			return string(body[i+3+len(magic) : i+3+len(magic)+8]), nil
		}
		off += 60 + size + size%2
	}
	return "", errors.New("no _go_.o member")
}
