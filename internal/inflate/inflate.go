package inflate

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// Limits bound what a compressed input may inflate to: at most Max bytes,
// and at most Ratio times its compressed size, though never less than
// Floor (a small input's ratio says little: a few hundred bytes of
// repetitive JSON may inflate a hundredfold).
type Limits struct {
	Max   int64
	Ratio int64
	Floor int64
}

// bound is the most that n compressed bytes may inflate to.
func (l Limits) bound(n int) int64 {
	b := max(int64(n)*l.Ratio, l.Floor)
	if l.Ratio <= 0 || b > l.Max {
		b = l.Max
	}
	return b
}

// Gzip returns the decompressed content of the gzip stream data, or an
// error if it is not one, or if it inflates to more than l allows: it
// reads at most one byte past that bound, so a bomb costs the bound.
func Gzip(data []byte, l Limits) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	bound := l.bound(len(data))
	out, err := io.ReadAll(io.LimitReader(zr, bound+1))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > bound {
		if bound == l.Max {
			return nil, fmt.Errorf("inflates to more than %s", size(l.Max))
		}
		return nil, fmt.Errorf("%s inflate to more than %s, %d times as much: not what pathcover writes", size(int64(len(data))), size(bound), l.Ratio)
	}
	return out, nil
}

// size says n bytes in the largest unit that keeps it whole-ish.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
