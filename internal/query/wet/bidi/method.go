package bidi

import (
	"fmt"
	"math/bits"
)

// A Kind is a way of predicting a value from its neighbours.
type Kind uint8

const (
	Raw         Kind = iota // no prediction: each value's bits, as a miss stores them
	FCM                     // the value that followed the same Order values last time
	DFCM                    // the difference that followed the same Order differences last time
	LastN                   // one of the Order nearest values
	LastNStride             // the nearest value plus one of the Order nearest strides
	FCM2                    // FCM remembering the last two values that followed each context
	DFCM2                   // DFCM remembering two differences
	Runs                    // the nearest value (Order 1) or it plus the nearest stride (2), its hits counted in runs
	numKinds
)

var kindNames = [...]string{Raw: "raw", FCM: "fcm", DFCM: "dfcm", LastN: "last-n", LastNStride: "last-n-stride", FCM2: "fcm2", DFCM2: "dfcm2", Runs: "runs"}

// tabled reports whether the kind predicts from a table.
func (k Kind) tabled() bool { return k == FCM || k == DFCM || k == FCM2 || k == DFCM2 }

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Limits of a Method.
const (
	MaxOrder     = 8
	MaxTableBits = 16
)

// A Method is a predictor with its parameters: a context of Order values
// (1 to MaxOrder), and for FCM and DFCM a table of 2^TableBits entries
// (TableBits 1 to MaxTableBits; 0 for the others).
type Method struct {
	Kind      Kind
	Order     int
	TableBits int
}

func (m Method) String() string {
	switch m.Kind {
	case Raw:
		return "raw"
	case FCM, DFCM, FCM2, DFCM2:
		return fmt.Sprintf("%s(%d, 2^%d)", m.Kind, m.Order, m.TableBits)
	}
	return fmt.Sprintf("%s(%d)", m.Kind, m.Order)
}

// check reports whether m's parameters are in range.
func (m Method) check() error {
	switch {
	case m.Kind >= numKinds:
		return fmt.Errorf("unknown kind %d", m.Kind)
	case m.Kind == Raw && (m.Order != 0 || m.TableBits != 0):
		return fmt.Errorf("raw method with order %d, table 2^%d", m.Order, m.TableBits)
	case m.Kind != Raw && (m.Order < 1 || m.Order > MaxOrder):
		return fmt.Errorf("%s of order %d", m.Kind, m.Order)
	case m.Kind.tabled() && (m.TableBits < 1 || m.TableBits > MaxTableBits):
		return fmt.Errorf("%s with a table of 2^%d", m.Kind, m.TableBits)
	case m.Kind == Runs && m.Order > 2:
		return fmt.Errorf("%s of order %d", m.Kind, m.Order)
	case (m.Kind == LastN || m.Kind == LastNStride || m.Kind == Runs) && m.TableBits != 0:
		return fmt.Errorf("%s with a table", m.Kind)
	}
	return nil
}

// valuesPerBit is how many values a bit of the method's stacks holds at
// most: one but for Runs.
func (m Method) valuesPerBit() uint64 {
	if m.Kind == Runs {
		return maxValuesPerBit
	}
	return 1
}

// window is how many values the method's context holds: the values a
// stream keeps plainly at its cursor.
func (m Method) window() int {
	switch m.Kind {
	case Raw:
		return 1
	case DFCM, DFCM2, LastNStride:
		return m.Order + 1 // Order differences need one value more
	}
	return m.Order
}

// A coder pushes values on a stack and pops them back, predicting each
// from its context: the method's window of neighbours, nearest first. A
// pop undoes the push before it exactly, the coder's table included.
type coder interface {
	push(s *bitStack, v uint64, ctx []uint64)
	pop(s *bitStack, ctx []uint64) (uint64, bool)
}

func (m Method) coder() coder {
	switch m.Kind {
	case FCM, DFCM:
		return &tableCoder{order: m.Order, diff: m.Kind == DFCM, shift: uint(64 - m.TableBits), table: make([]uint64, 1<<m.TableBits)}
	case FCM2, DFCM2:
		return &tableCoder{order: m.Order, diff: m.Kind == DFCM2, ways: true, shift: uint(64 - m.TableBits), table: make([]uint64, 2<<m.TableBits)}
	case LastN:
		return lastN{m.Order}
	case LastNStride:
		return lastNStride{m.Order}
	case Runs:
		return runs{stride: m.Order == 2}
	}
	return raw{}
}

// A tableCoder is FCM, or DFCM if diff. After a push, the entry its
// context hashes to holds the value (or difference) pushed; a hit pushes a
// 1, a miss the XOR of the entry it evicts with the value, then a 0. A pop
// reads the value from the entry, and on a miss puts the evicted entry
// back. (The paper's miss stores the value, and its pop sets the entry to
// the value, losing the evicted one: doc.go.)
//
// With two ways (FCM2, DFCM2), a context has two entries, the most recent
// value first: a hit on the first pushes a 1; on the second, a 1 then a
// 0, and the two swap; a miss pushes the XOR of the second (which it
// evicts) with the value, then two 0s, and the first becomes the second.
// A pop reads the value from the first entry and undoes the move.
type tableCoder struct {
	order int
	diff  bool
	ways  bool // two entries a context: table[2i], table[2i+1]
	shift uint
	table []uint64
}

const hashMul = 0x9e3779b97f4a7c15

func (c *tableCoder) index(ctx []uint64) int {
	var h uint64
	for k := range c.order {
		x := ctx[k]
		if c.diff {
			x -= ctx[k+1]
		}
		h = (h ^ x) * hashMul
	}
	return int(h >> c.shift)
}

func (c *tableCoder) push(s *bitStack, v uint64, ctx []uint64) {
	i := c.index(ctx)
	if c.diff {
		v -= ctx[0]
	}
	if c.ways {
		first, second := c.table[2*i], c.table[2*i+1]
		switch v {
		case first:
			s.push(1, 1)
		case second:
			s.push(1, 1)
			s.push(0, 1)
			c.table[2*i], c.table[2*i+1] = v, first
		default:
			s.pushPayload(second ^ v)
			s.push(0, 2)
			c.table[2*i], c.table[2*i+1] = v, first
		}
		return
	}
	if old := c.table[i]; old == v {
		s.push(1, 1)
	} else {
		s.pushPayload(old ^ v)
		s.push(0, 1)
		c.table[i] = v
	}
}

func (c *tableCoder) pop(s *bitStack, ctx []uint64) (uint64, bool) {
	i := c.index(ctx)
	if c.ways {
		i *= 2
	}
	v := c.table[i]
	hit, ok := s.pop(1)
	if !ok {
		return 0, false
	}
	if c.ways && hit == 0 {
		second, ok := s.pop(1)
		if !ok {
			return 0, false
		}
		if second == 1 {
			c.table[i], c.table[i+1] = c.table[i+1], v
		} else {
			x, ok := s.popPayload()
			if !ok {
				return 0, false
			}
			c.table[i], c.table[i+1] = c.table[i+1], v^x
		}
		hit = 1 // the value is v
	}
	if hit == 0 {
		x, ok := s.popPayload()
		if !ok {
			return 0, false
		}
		c.table[i] = v ^ x
	}
	if c.diff {
		v += ctx[0]
	}
	return v, true
}

// indexBits is the bits of an index into n candidates.
func indexBits(n int) int { return bits.Len(uint(n - 1)) }

// lastN predicts one of the n nearest values: a hit pushes its index and
// a 1, a miss the XOR with the nearest value and a 0. It has no table.
type lastN struct{ n int }

func (c lastN) push(s *bitStack, v uint64, ctx []uint64) {
	for k := range c.n {
		if ctx[k] == v {
			s.push(uint64(k), indexBits(c.n))
			s.push(1, 1)
			return
		}
	}
	s.pushPayload(v ^ ctx[0])
	s.push(0, 1)
}

func (c lastN) pop(s *bitStack, ctx []uint64) (uint64, bool) {
	hit, ok := s.pop(1)
	if !ok {
		return 0, false
	}
	if hit == 1 {
		k, ok := s.pop(indexBits(c.n))
		if !ok || k >= uint64(c.n) {
			return 0, false
		}
		return ctx[k], true
	}
	x, ok := s.popPayload()
	return ctx[0] ^ x, ok
}

// lastNStride predicts the nearest value plus one of the n nearest
// strides (differences of neighbours), as lastN does values.
type lastNStride struct{ n int }

func (c lastNStride) candidate(ctx []uint64, k int) uint64 { return ctx[0] + ctx[k] - ctx[k+1] }

func (c lastNStride) push(s *bitStack, v uint64, ctx []uint64) {
	for k := range c.n {
		if c.candidate(ctx, k) == v {
			s.push(uint64(k), indexBits(c.n))
			s.push(1, 1)
			return
		}
	}
	s.pushPayload(v ^ c.candidate(ctx, 0))
	s.push(0, 1)
}

func (c lastNStride) pop(s *bitStack, ctx []uint64) (uint64, bool) {
	hit, ok := s.pop(1)
	if !ok {
		return 0, false
	}
	if hit == 1 {
		k, ok := s.pop(indexBits(c.n))
		if !ok || k >= uint64(c.n) {
			return 0, false
		}
		return c.candidate(ctx, int(k)), true
	}
	x, ok := s.popPayload()
	return c.candidate(ctx, 0) ^ x, ok
}

// raw pushes each value's bits as a miss does.
type raw struct{}

func (raw) push(s *bitStack, v uint64, _ []uint64) { s.pushPayload(v) }

func (raw) pop(s *bitStack, _ []uint64) (uint64, bool) { return s.popPayload() }

// runs predicts the nearest value, or with stride it plus the nearest
// stride, and counts its hits in runs: a stream that the prediction fits
// but for a few values (a statement's accesses one an execution, flags
// that seldom change, a loop's addresses) costs 12 bits a run of up to
// maxRun hits where the other methods spend a bit a value. The stack
// holds records, each ending in a flag: a run of c hits (c in k bits, k-1
// in 3 bits, then a 1), or a miss (its payload, then a 0). A hit pushed
// on a run shorter than maxRun makes it one longer (else it starts a
// run), and a pop makes the top run one shorter, removing it at 0, so
// that a pop undoes the push before it. Runs are capped so that a stream
// holds at least a bit for every maxValuesPerBit values, which bounds
// what a small file can make a reader allocate (encode.go).
type runs struct{ stride bool }

const (
	maxRun          = 255
	maxValuesPerBit = 22 // a run of maxRun in 12 bits
)

func (c runs) predict(ctx []uint64) uint64 {
	if c.stride {
		return 2*ctx[0] - ctx[1]
	}
	return ctx[0]
}

func (c runs) push(s *bitStack, v uint64, ctx []uint64) {
	if v != c.predict(ctx) {
		s.pushPayload(v ^ c.predict(ctx))
		s.push(0, 1)
		return
	}
	if s.addToRun(1) {
		return
	}
	n := uint64(1)
	switch flag, ok := s.pop(1); {
	case !ok:
	case flag == 0:
		s.push(0, 1) // a miss's flag: put it back
	default:
		if run := popRun(s); run < maxRun {
			n += run
		} else {
			pushRun(s, run) // full: a new run on top of it
		}
	}
	pushRun(s, n)
}

func (c runs) pop(s *bitStack, ctx []uint64) (uint64, bool) {
	if s.addToRun(-1) {
		return c.predict(ctx), true
	}
	flag, ok := s.pop(1)
	if !ok {
		return 0, false
	}
	if flag == 0 {
		x, ok := s.popPayload()
		return c.predict(ctx) ^ x, ok
	}
	n := popRun(s)
	if n == 0 {
		return 0, false
	}
	if n > 1 {
		pushRun(s, n-1)
	}
	return c.predict(ctx), true
}

// pushRun pushes a run of n hits, 1 ≤ n ≤ maxRun, and its flag.
func pushRun(s *bitStack, n uint64) {
	k := bits.Len64(n)
	s.push(n, k)
	s.push(uint64(k-1), 3)
	s.push(1, 1)
}

// addToRun adds d to the run on top of the stack in place, where there is
// one, and it stays from 1 to maxRun in as many bits: what popping it and
// pushing the new run would do, in a few operations.
func (s *bitStack) addToRun(d int) bool {
	if s.n < 5 || s.field(s.n-1, 1) != 1 {
		return false
	}
	k := int(s.field(s.n-4, 3)) + 1
	if s.n < 4+k {
		return false
	}
	n := s.field(s.n-4-k, k)
	m := uint64(int64(n) + int64(d))
	if m < 1 || m > maxRun || bits.Len64(n) != k || bits.Len64(m) != k {
		return false
	}
	s.setField(s.n-4-k, k, m)
	return true
}

// popRun pops a run's length after its flag; 0 if the stack holds none.
func popRun(s *bitStack) uint64 {
	k, ok := s.pop(3)
	if !ok {
		return 0
	}
	n, ok := s.pop(int(k) + 1)
	if !ok || bits.Len64(n) != int(k)+1 {
		return 0
	}
	return n
}
