package profile

import (
	"fmt"
	"hash/crc32"
)

// The formats written since the counter files (TWPP, WET, tests, flight
// and .wpp files) guard each section with a checksum: CRC-32C (Castagnoli)
// of its bytes, which the reader checks before it decodes the section, so
// that a flipped bit is an error naming the section rather than another
// answer, and a corrupt count never makes a reader work long. rt, which
// imports no hash package, computes the same sum with its own table
// (rt/format.go); rt's tests check that the two agree.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the checksum of a section's bytes.
func Checksum(b []byte) uint32 {
	return crc32.Checksum(b, castagnoli)
}

// ChecksumUpdate returns the checksum of the bytes whose checksum is sum
// followed by b.
func ChecksumUpdate(sum uint32, b []byte) uint32 {
	return crc32.Update(sum, castagnoli, b)
}

// ChecksumError is the error of a section whose checksum does not match.
type ChecksumError struct {
	Section    string // what the section holds, and where it lies
	Want, Have uint32
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s: checksum %08x, not the %08x written: the file is corrupt", e.Section, e.Have, e.Want)
}

// VerifyChecksum returns a *ChecksumError if b's checksum is not want.
func VerifyChecksum(section string, b []byte, want uint32) error {
	if have := Checksum(b); have != want {
		return &ChecksumError{section, want, have}
	}
	return nil
}
