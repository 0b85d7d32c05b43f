package inflate

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

func gz(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// TestBomb: zeros compress about a thousandfold; a stream of them is
// refused by its ratio long before the size bound, and one within the
// ratio but past the size bound by that.
func TestBomb(t *testing.T) {
	l := Limits{Max: 64 << 20, Ratio: 64, Floor: 1 << 20}
	bomb := gz(t, make([]byte, 32<<20))
	if _, err := Gzip(bomb, l); err == nil || !strings.Contains(err.Error(), "64 times") {
		t.Errorf("a stream of %d bytes inflating to 32 MiB: %v; want refused by its ratio", len(bomb), err)
	}
	if _, err := Gzip(bomb, Limits{Max: 1 << 20}); err == nil || !strings.Contains(err.Error(), "more than 1 MiB") {
		t.Errorf("past Max: %v", err)
	}
	small := gz(t, make([]byte, 100<<10)) // under the floor
	if out, err := Gzip(small, l); err != nil || len(out) != 100<<10 {
		t.Errorf("100 KiB of zeros, under the floor: %d bytes, %v", len(out), err)
	}
	if _, err := Gzip([]byte("not gzip"), l); err == nil {
		t.Error("not gzip: no error")
	}
}

// FuzzGzip: whatever the input, Gzip gives no more than its bound, and
// gives back exactly what was compressed when that is within it.
func FuzzGzip(f *testing.F) {
	f.Add([]byte("{\"Package\":\"p\"}"), uint16(1))
	f.Add(bytes.Repeat([]byte{0}, 4096), uint16(40))
	f.Fuzz(func(t *testing.T, content []byte, rep uint16) {
		l := Limits{Max: 1 << 20, Ratio: 16, Floor: 4 << 10}
		raw := bytes.Repeat(content, int(rep%64)+1)
		data := gz(t, raw)
		out, err := Gzip(data, l)
		if err != nil {
			if int64(len(raw)) <= l.bound(len(data)) {
				t.Fatalf("%d bytes within the bound %d: %v", len(raw), l.bound(len(data)), err)
			}
			return
		}
		if !bytes.Equal(out, raw) {
			t.Fatalf("inflated %d bytes, compressed %d", len(out), len(raw))
		}
		// The raw bytes of an arbitrary input are refused or bounded too.
		if out, err := Gzip(content, l); err == nil && int64(len(out)) > l.bound(len(content)) {
			t.Fatalf("%d bytes past the bound", len(out))
		}
	})
}
