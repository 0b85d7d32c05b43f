package rt

// The constants of the counter file format, which package profile defines
// and reads. rt's tests (TestCountsSurvive, TestResidualExact) write files
// with rt and read them with package profile, which checks that the two
// agree.
var (
	fileMagic     = [8]byte{'p', 'c', 'o', 'v', 'c', 'n', 't', '1'}
	segmentMagic  = [8]byte{'p', 'c', 'o', 'v', 's', 'e', 'g', '1'}
	residualMagic = [8]byte{'p', 'c', 'o', 'v', 'r', 'e', 's', '1'}
)

const (
	// byteOrderMark is written in the writer's byte order.
	byteOrderMark = 0x0102030405060708
	segmentHeader = 64
	// The header word of a counter segment that says where its words
	// start, in bytes from the segment's start; 0 for the end of the
	// header (RegisterStatic's segments start them a page later, at their
	// offset in their page).
	staticWordsWord = 4
	// The header words of a residual segment that follow the common ones.
	residualFuncWord = 4
	residualLostWord = 5
)

// hashBytes turns a 32-digit hex hash into its 16 bytes; other strings are
// truncated or zero-padded, which the reader will not match.
func hashBytes(h string) []byte {
	b := make([]byte, 16)
	for i := 0; i < 16 && 2*i+1 < len(h); i++ {
		b[i] = unhex(h[2*i])<<4 | unhex(h[2*i+1])
	}
	return b
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return 0
}

func itoa(n uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			return string(b[i:])
		}
	}
}

// The tests file's magic and record kinds (profile/tests.go).
const testsMagic = "pcovtst2"

const (
	testRecCounts   = 'C'
	testRecPackage  = 'K'
	testRecName     = 'N'
	testRecParallel = 'P'
	testRecSegment  = 'H'
	testRecDelta    = 'D'
	testRecRunning  = 'R'
)

// checksum returns the CRC-32C (Castagnoli) of b, the checksum of the
// formats that package profile reads with profile.Checksum: rt imports no
// hash package (the list in doc.go), so it has its own table.
// TestChecksum checks that the two agree. It is computed when rt writes
// a record or a block, never per event.
func checksum(b []byte) uint32 { return checksumUpdate(0, b) }

// checksumUpdate returns the checksum of the bytes whose checksum is sum
// followed by b, as crc32.Update does.
func checksumUpdate(sum uint32, b []byte) uint32 {
	crc := ^sum
	for _, c := range b {
		crc = castagnoliTable[byte(crc)^c] ^ crc>>8
	}
	return ^crc
}

var castagnoliTable = func() (t [256]uint32) {
	const poly = 0x82f63b78 // Castagnoli's, bits reversed
	for i := range t {
		crc := uint32(i)
		for range 8 {
			if crc&1 == 1 {
				crc = crc>>1 ^ poly
			} else {
				crc >>= 1
			}
		}
		t[i] = crc
	}
	return t
}()

// appendUint32 appends v in little-endian order.
func appendUint32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}
