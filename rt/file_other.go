//go:build !unix

package rt

import "errors"

// segment is not available without shared file mappings: counting into
// memory that is written at exit would lose counts on os.Exit and on kills,
// which DESIGN rules out, so on these systems nothing is written.
func segment(dir string, magic [8]byte, hash string, words int, fill func(header, words []uint64)) ([]uint64, error) {
	return nil, errors.New("counter files need a Unix system")
}
