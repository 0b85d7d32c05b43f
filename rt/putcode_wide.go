//go:build amd64 || arm64 || ppc64le || loong64

package rt

import "unsafe"

// putCode writes at chunk[at:] the record that code holds (WPPRegister:
// at most 7 bytes, the first the lowest, the length in the top byte) and
// returns where it ends. Here, on 64-bit little-endian machines that store
// at any alignment, with one 8-byte store (a zero after the record, where
// the chunk is zero): a kill sees all of the record or none of it. The
// caller has made room for 8 bytes.
func putCode(chunk []byte, at int, code uint64) int {
	_ = chunk[at+7]
	*(*uint64)(unsafe.Pointer(&chunk[at])) = code &^ (0xff << 56)
	return at + int(code>>56)
}

// putFastCode is putCode for a caller that has checked at against the
// recorder's fast mark (at most len(chunk)-wppFastRoom), so that the store
// needs no bounds check of its own: WPPCode.TryEnter, which must fit the
// inliner's budget.
func putFastCode(chunk []byte, at int, code uint64) int {
	*(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(chunk)), at)) = code &^ (0xff << 56)
	return at + int(code>>56)
}
