//go:build !(amd64 || arm64 || ppc64le || loong64)

package rt

// putCode writes at chunk[at:] the record that code holds (WPPRegister:
// at most 7 bytes, the first the lowest, the length in the top byte) and
// returns where it ends: byte by byte, its first byte last, so that a kill
// in between leaves a zero where the record begins.
func putCode(chunk []byte, at int, code uint64) int {
	n := int(code >> 56)
	for i := n - 1; i > 0; i-- {
		chunk[at+i] = byte(code >> (8 * i))
	}
	chunk[at] = byte(code)
	return at + n
}

// putFastCode is putCode: byte by byte, each store checked.
func putFastCode(chunk []byte, at int, code uint64) int { return putCode(chunk, at, code) }
