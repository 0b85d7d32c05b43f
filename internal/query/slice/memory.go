package slice

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/pathcover/pathcover/internal/spill"
	"github.com/pathcover/pathcover/profile"
)

// Memory dependences. Each goroutine's accesses are placed at the nodes of
// the statements that made them as its calls are replayed; then the
// accesses of all goroutines are replayed in the order of their numbers
// (rt/deps.go: in a program without data races, each read comes after the
// write it read), over a shadow memory that holds, for each byte, the node
// that wrote it last. A read depends on the writers of its bytes. The
// copy builtin reads its source and writes its destination, as any
// statement; but when an append moves its slice's elements to a new
// array, their writers move with them (a move event), so that an element
// read later depends on the statement that made it, not on the append. Map entries are shadowed by map and key hash, and a receive
// depends on the send it took the value of: the n-th receive from a
// channel in access order takes the n-th send's, which is exact for a
// channel with one sender and one receiver at a time, and an
// approximation when several race.

// An access is a memory event placed at a node.
type access struct {
	profile.WPPEvent
	goroutine, proc int32
	node            int32
}

// maxMove is the largest access whose bytes' writers are followed; a
// larger one is recorded as a problem and changes nothing (a crafted
// recording must not make the slicer loop over an exabyte).
const maxMove = 1 << 24

// place notes access e of node n.
func (b *builder) place(e profile.WPPEvent, n int32) {
	b.accesses = append(b.accesses, access{WPPEvent: e, goroutine: b.goroutine, proc: b.proc, node: n})
}

// A shadow holds the last writer of each byte, by 8-byte word.
type shadow map[uint64]*[8]int32

func (s shadow) set(addr, size uint64, n int32) {
	// A word at a time: one lookup for its bytes.
	for a, end := addr, addr+size; a < end; {
		word := a >> 3
		w := s[word]
		if w == nil {
			w = new([8]int32)
			s[word] = w
		}
		for ; a < end && a>>3 == word; a++ {
			w[a&7] = n + 1
		}
	}
}

// writers appends the writers of [addr, addr+size) to to, each once a
// word (an 8-byte load of one store's bytes gives it once).
func (s shadow) writers(addr, size uint64, to []int32) []int32 {
	for a, end := addr, addr+size; a < end; {
		word := a >> 3
		w := s[word]
		last := int32(0)
		for ; a < end && a>>3 == word; a++ {
			if w != nil && w[a&7] > 0 && w[a&7] != last {
				last = w[a&7]
				to = append(to, last-1)
			}
		}
	}
	return to
}

func (s shadow) move(dst, src, size uint64) {
	tmp := make([]int32, size)
	for i := range size {
		if w := s[(src+i)>>3]; w != nil {
			tmp[i] = w[(src+i)&7]
		}
	}
	for i, n := range tmp {
		a := dst + uint64(i)
		w := s[a>>3]
		if w == nil {
			if n == 0 {
				continue
			}
			w = new([8]int32)
			s[a>>3] = w
		}
		w[a&7] = n
	}
}

type mapEntry struct{ m, hash uint64 }

// key makes an address of a goroutine's stack distinct from the heap's and
// from other goroutines' stacks, and an address of the heap of process
// proc (the index of its recording) distinct from the same address in
// another process: a run's processes (a test binary per package) share no
// memory, and their accesses are replayed in one order. A stack address
// is recorded as its distance below the stack's top (at most 1 GB, the
// largest stack), which decreases as the address increases: it is turned
// around so that the bytes of an access are at increasing keys, as in the
// heap. Goroutines are numbered over all processes.
func key(addr uint64, stack bool, g, proc int32) uint64 {
	if !stack {
		return heapKey(addr, proc)
	}
	return 1<<63 | uint64(g)<<40 | (1<<39 - addr)
}

// heapKey is key of a heap address (or a map's or a channel's) of process
// proc. User space addresses are below 2^48 on the 64-bit platforms Go
// supports, so the process goes in bits 48 to 62 (processes past 2^15
// share them, as all did before).
func heapKey(addr uint64, proc int32) uint64 {
	return addr ^ uint64(proc)&(1<<15-1)<<48
}

// replayMemory adds the memory dependences of every access (the replay
// that OPT's labels come from too: replayAccesses).
func (b *builder) replayMemory() {
	acc := make([]placed, len(b.accesses))
	for i := range b.accesses {
		a := &b.accesses[i]
		p := placed{seq: a.Seq, addr: a.Addr, size: a.Size, src: a.Src, node: a.node, kind: a.Access}
		if a.Access <= profile.WPPCopy {
			p.addr, p.src = key(a.Addr, a.Flags&profile.WPPStackAddr != 0, a.goroutine, a.proc), key(a.Src, a.Flags&profile.WPPStackSrc != 0, a.goroutine, a.proc)
		} else {
			p.addr = heapKey(a.Addr, a.proc) // a map's or a channel's
		}
		acc[i] = p
	}
	b.accesses = nil
	replayAccesses(acc, &b.g.Problems, func(n int32, from []int32) {
		node := &b.g.Nodes[n]
		node.Memory = dedupNodes(append(node.Memory, from...))
		// A node never depends on itself (x op= y reads before it writes).
		node.Memory = slices.DeleteFunc(node.Memory, func(m int32) bool { return m == n })
	})
}

// A placed is a memory access placed at a node, for the memory replay.
type placed struct {
	seq, addr, size, src uint64 // addr and src keyed (key) but for maps and channels
	node                 int32
	kind                 profile.WPPAccess
}

// key of an access (see key), but for maps and channels, which are keyed
// by the map or channel.
func accessKey(a *rawAccess, g, proc int32) (addr, src uint64) {
	if a.kind > profile.WPPCopy {
		return heapKey(a.addr, proc), a.src
	}
	return key(a.addr, a.flags&profile.WPPStackAddr != 0, g, proc), key(a.src, a.flags&profile.WPPStackSrc != 0, g, proc)
}

// replayAccesses replays accesses in the order of their numbers (stable:
// ties keep their order) over a shadow memory, and
// calls read with each reading node and the nodes it read from.
func replayAccesses(acc []placed, problems *[]string, read func(n int32, from []int32)) {
	slices.SortStableFunc(acc, bySeq)
	m := newMemReplay(problems, read)
	for i := range acc {
		m.access(&acc[i])
	}
	m.finish()
}

// bySeq orders accesses by their numbers; placedSeq is that key.
func bySeq(x, y placed) int { return cmp.Compare(x.seq, y.seq) }

func placedSeq(p placed) uint64 { return p.seq }

// pairKey is a label pair's key: itself.
func pairKey(p uint64) uint64 { return p }

// A memReplay replays accesses, given in the order of their numbers, over
// a shadow memory (replayAccesses).
type memReplay struct {
	problems     *[]string
	read         func(n int32, from []int32)
	mem          shadow
	entries      map[mapEntry]int32
	sends, recvs map[uint64][]int32
	buf          []int32
}

func newMemReplay(problems *[]string, read func(n int32, from []int32)) *memReplay {
	return &memReplay{problems: problems, read: read, mem: make(shadow), entries: make(map[mapEntry]int32),
		sends: make(map[uint64][]int32), recvs: make(map[uint64][]int32)}
}

// access replays access a.
func (m *memReplay) access(a *placed) {
	if a.kind <= profile.WPPCopy && a.size > maxMove {
		*m.problems = appendOnce(*m.problems, fmt.Sprintf("an access of %d bytes: its writers are not followed", a.size))
		return
	}
	switch a.kind {
	case profile.WPPLoad:
		m.buf = m.mem.writers(a.addr, a.size, m.buf[:0])
		m.read(a.node, m.buf)
	case profile.WPPStore:
		m.mem.set(a.addr, a.size, a.node)
	case profile.WPPUpdate:
		m.buf = m.mem.writers(a.addr, a.size, m.buf[:0])
		m.read(a.node, m.buf)
		m.mem.set(a.addr, a.size, a.node)
	case profile.WPPCopy:
		m.mem.move(a.addr, a.src, a.size)
	case profile.WPPMapRead:
		if w, ok := m.entries[mapEntry{a.addr, a.size}]; ok {
			m.read(a.node, []int32{w})
		}
	case profile.WPPMapWrite:
		m.entries[mapEntry{a.addr, a.size}] = a.node
	case profile.WPPSend:
		m.sends[a.addr] = append(m.sends[a.addr], a.node)
	case profile.WPPRecv:
		m.recvs[a.addr] = append(m.recvs[a.addr], a.node)
	}
}

// finish pairs receives with sends. A receiver records its receive
// before it waits, so a receive can be numbered before the send it
// takes: they are paired by count.
func (m *memReplay) finish() {
	for ch, rs := range m.recvs {
		for i, r := range rs {
			if i < len(m.sends[ch]) {
				m.read(r, m.sends[ch][i:i+1])
			}
		}
	}
}

// placedCodec writes a placed in 37 bytes, for a spill.Sorter.
var placedCodec = spill.Codec[placed]{
	Size: 37,
	Put: func(b []byte, p placed) {
		binary.LittleEndian.PutUint64(b, p.seq)
		binary.LittleEndian.PutUint64(b[8:], p.addr)
		binary.LittleEndian.PutUint64(b[16:], p.size)
		binary.LittleEndian.PutUint64(b[24:], p.src)
		binary.LittleEndian.PutUint32(b[32:], uint32(p.node))
		b[36] = byte(p.kind)
	},
	Get: func(b []byte) placed {
		return placed{seq: binary.LittleEndian.Uint64(b), addr: binary.LittleEndian.Uint64(b[8:]), size: binary.LittleEndian.Uint64(b[16:]),
			src: binary.LittleEndian.Uint64(b[24:]), node: int32(binary.LittleEndian.Uint32(b[32:])), kind: profile.WPPAccess(b[36])}
	},
}

// pairCodec writes a label's pair (reader<<32 | writer) in 8 bytes.
var pairCodec = spill.Codec[uint64]{
	Size: 8,
	Put:  func(b []byte, p uint64) { binary.LittleEndian.PutUint64(b, p) },
	Get:  func(b []byte) uint64 { return binary.LittleEndian.Uint64(b) },
}
