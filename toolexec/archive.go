package toolexec

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
func fingerprint(archive string) (string, error) {
	data, err := os.ReadFile(archive)
	if err != nil {
		return "", err
	}
	if !bytes.HasPrefix(data, []byte("!<arch>\n")) {
		return "", errors.New("not an archive")
	}
	for off := 8; off+60 <= len(data); {
		name := strings.TrimSpace(string(data[off : off+16]))
		size, err := strconv.Atoi(strings.TrimSpace(string(data[off+48 : off+58])))
		if err != nil || size < 0 || off+60+size > len(data) {
			return "", errors.New("bad archive member header")
		}
		body := data[off+60 : off+60+size]
		if name == "_go_.o" {
			i := bytes.Index(body, []byte("\n!\n"))
			const magic = "\x00go120ld"
			if i < 0 || !bytes.HasPrefix(body[i+3:], []byte(magic)) || len(body) < i+3+len(magic)+8 {
				return "", errors.New("no object header in _go_.o")
			}
			fp := body[i+3+len(magic) : i+3+len(magic)+8]
			return string(fp), nil
		}
		off += 60 + size + size%2
	}
	return "", errors.New("no _go_.o member")
}
