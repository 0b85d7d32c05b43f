package slice

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/spill"
	"github.com/pathcover/pathcover/profile"
)

// The compact form of a goroutine's recording, which the compact graph
// (OPT) keeps and the demand-driven slicer (LP) rebuilds as it needs it:
// its calls in the order they were entered (preorder), each with its
// function, its parent, the end of its subtree, and its Ball-Larus paths,
// uvarints in an arena; and, once replayed, the nodes of its subtree and
// its return node. The nodes are numbered as Load numbers them.

// A funcTable is the functions of a run, by their order of first call.
type funcTable struct {
	p       *profile.Profile
	funcs   []*Func
	index   map[funcKey]int32
	anyDeps bool
	// pkgs are the import paths of the packages with metadata: a call of
	// one of them is a call of instrumented code.
	pkgs map[string]bool
	// shapes numbers the calls' shapes as the build replay numbers them
	// (shape.go).
	shapes *shapeTable
}

func newFuncTable(p *profile.Profile) *funcTable {
	t := &funcTable{p: p, index: make(map[funcKey]int32), pkgs: make(map[string]bool), shapes: newShapeTable()}
	for _, m := range p.Metas {
		t.pkgs[profile.PackagePath(m.Package)] = true
	}
	return t
}

// fn returns the index of a function, adding it (as builder.fn).
func (t *funcTable) fn(k funcKey) (int32, error) {
	if i, ok := t.index[k]; ok {
		return i, nil
	}
	f, err := newFunc(t.p, k)
	if err != nil {
		return 0, err
	}
	t.anyDeps = t.anyDeps || f.Deps != nil
	i := int32(len(t.funcs))
	t.funcs = append(t.funcs, f)
	t.index[k] = i
	return i, nil
}

// matches reports whether a call of function fn can be the call of site
// dc (as matcher.matches).
func (t *funcTable) matches(fn int32, dc *profile.DepCall) bool {
	f := t.funcs[fn]
	switch {
	case dc.Func != "":
		return dc.Func == f.Func.Name && dc.Package == f.Package
	case dc.Method != "":
		return strings.HasSuffix(f.Func.Name, "."+dc.Method)
	}
	return true
}

// instrumented reports whether a site's callee is known to be in an
// instrumented package.
func (t *funcTable) instrumented(dc *profile.DepCall) bool {
	return dc.Func != "" && t.pkgs[dc.Package]
}

// A ccall is a call of a goroutine's compact form.
type ccall struct {
	fn     int32
	parent int32 // -1 for a root
	next   int32 // the index after its subtree
	paths  uint32
	// first and end are the nodes of its subtree, ret its return node or
	// -1, shape its shape's number or 0 (shape.go; set by the replay).
	first, end, ret int32
	shape           int32
}

// callBytes is what a ccall takes.
const callBytes = 8 * 4

// A gor is a goroutine's compact form. Its calls are numbered from
// their read form (readCalls: readGor's, packed too) into packed blocks
// (data), a block at a time: a block is plain (open) from when the
// replay that numbers them enters its first call until its last call
// returns, then packed, and the read form is freed behind the replay as
// it goes. A goroutine of tens of millions of calls (a long main loop)
// never holds them all plain: with 28 bytes a call and append's copies,
// a 45 M-call goroutine took 2.3 GB. A goroutine can also be plain
// whole (calls), as LP keeps the first call of each.
type gor struct {
	file  int    // index of its recording
	id    uint64 // the runtime's goroutine id
	spawn uint64 // the spawn that started it, 0 if none
	n     int32  // calls
	calls []ccall
	// read is the calls as read, open the blocks being numbered, by
	// block, while the replay numbers them (numbering).
	read *readCalls
	open []*openBlock
	// arena holds each call's paths: their count and their ids, uvarints.
	arena []byte
	// The packed form: blocks of packBlock calls in data, each call's
	// fields uvarints relative to its index and to the call before it,
	// the last where its paths are in the arena; a block's offset and
	// first node. A block lies in one chunk of data (dataChunkBits).
	data   [][]byte
	blocks []packedBlock
	cache  *blockCache
	// first and end are its nodes; start is the node of the go statement
	// that started it, or -1.
	first, end int32
	start      int32
}

// packBlock is the calls of a block of a packed goroutine.
const packBlock = 32

type packedBlock struct {
	off   uint32 // dataChunkBits and up: the chunk; unpacked until packed
	first int32
	// fns has fnBit set for each function its calls are of, so that a
	// search for a function's calls passes over the blocks without one.
	fns uint64
}

// fnBit is function fn's bit in packedBlock.fns.
func fnBit(fn int32) uint64 { return 1 << (uint32(fn) * 0x9e3779b1 >> 26) }

// unpacked marks a block not packed yet.
const unpacked = math.MaxUint32

// dataChunkBits sizes the chunks of a goroutine's packed calls: at most
// 4 MiB, so that a long goroutine's blocks grow without copying more
// than that. A chunk starts at firstChunk bytes and grows as a slice
// does: a suite has thousands of goroutines, most of a few calls.
const (
	dataChunkBits = 22
	firstChunk    = 1 << 10
)

// An openBlock is a block of calls being numbered, plain, with how many
// of its calls are yet to return.
type openBlock struct {
	calls [packBlock]ccall
	left  int32
}

// A blockCache holds blocks of packed calls decoded: direct-mapped, by
// goroutine and block.
type blockCache struct {
	keys  []blockKey
	calls [][packBlock]ccall
}

type blockKey struct {
	g *gor
	b int32
}

// blockCacheBits sizes the cache: 8,192 blocks, 7.5 MB. A slice of a
// whole suite visits calls all over the run, and each node's ancestors
// (to find its call) again and again: with 1,024 blocks, decoding them
// took a ninth of the time of a 23.7 M-step slice of btree's suite.
const (
	blockCacheBits = 13
	blockCacheSize = 1 << blockCacheBits
)

func newBlockCache() *blockCache { return &blockCache{} }

// numbering prepares g, read, to be numbered by a replay: every block
// unpacked, none open; the blocks it packs are read through cache.
func (g *gor) numbering(cache *blockCache) {
	g.cache = cache
	nb := (g.n + packBlock - 1) / packBlock
	g.open = make([]*openBlock, nb)
	g.blocks = make([]packedBlock, nb)
	for b := range g.blocks {
		g.blocks[b].off = unpacked
	}
}

// enter notes that the replay numbering g enters call c at node first,
// opening its block if c is the block's first call.
func (g *gor) enter(c, first int32) {
	if g.calls != nil {
		g.calls[c].first = first
		return
	}
	b := c / packBlock
	o := g.open[b]
	if o == nil {
		// Calls are entered in order: a block is taken from the read
		// form once.
		var read [packBlock]rcall
		g.read.take(b, &read)
		o = &openBlock{left: min(packBlock, g.n-b*packBlock)}
		for i := range o.left {
			rc := &read[i]
			o.calls[i] = ccall{fn: rc.fn, parent: rc.parent, next: rc.next, paths: rc.paths, first: -1, end: -1, ret: -1}
		}
		g.open[b] = o
	}
	o.calls[c%packBlock].first = first
}

// exit notes that call c returned, its subtree's nodes ending at end, its
// return node ret (or -1) and its shape (or 0), and packs its block if it
// was the last of the block's calls to return.
func (g *gor) exit(c, end, ret, shape int32) error {
	if g.calls != nil {
		g.calls[c].end, g.calls[c].ret, g.calls[c].shape = end, ret, shape
		return nil
	}
	b := c / packBlock
	o := g.open[b]
	cc := &o.calls[c%packBlock]
	cc.end, cc.ret, cc.shape = end, ret, shape
	if o.left--; o.left > 0 {
		return nil
	}
	g.open[b] = nil
	return g.packBlock(b, o.calls[:min(packBlock, g.n-b*packBlock)])
}

// packBlock packs block b, its calls numbered, into g.data.
func (g *gor) packBlock(b int32, calls []ccall) error {
	// A block's bytes: 8 uvarints of at most 5 bytes a call.
	const most = packBlock * 8 * 5
	k := len(g.data) - 1
	if k < 0 || len(g.data[k])+most > 1<<dataChunkBits {
		if len(g.data) >= 1<<(32-dataChunkBits)-1 {
			return errors.New("more calls than the compact form holds")
		}
		g.data = append(g.data, make([]byte, 0, firstChunk))
		k++
	}
	data := g.data[k]
	var fns uint64
	for i := range calls {
		fns |= fnBit(calls[i].fn)
	}
	g.blocks[b] = packedBlock{uint32(k)<<dataChunkBits | uint32(len(data)), calls[0].first, fns}
	prev, prevPaths := calls[0].first, uint32(0)
	for i := range calls {
		c, cc := b*packBlock+int32(i), &calls[i]
		parent := uint64(0)
		if cc.parent >= 0 {
			parent = uint64(c - cc.parent)
		}
		ret := uint64(0)
		if cc.ret >= 0 {
			ret = uint64(cc.ret-cc.first) + 1
		}
		data = binary.AppendUvarint(data, uint64(cc.fn))
		data = binary.AppendUvarint(data, parent)
		data = binary.AppendUvarint(data, uint64(cc.next-c))
		data = binary.AppendUvarint(data, uint64(cc.first-prev))
		data = binary.AppendUvarint(data, uint64(cc.end-cc.first))
		data = binary.AppendUvarint(data, ret)
		data = binary.AppendUvarint(data, uint64(cc.shape))
		// Where its paths are in the arena, which stays: decoding a
		// block must not read a long call's paths.
		data = binary.AppendVarint(data, int64(cc.paths)-int64(prevPaths))
		prev, prevPaths = cc.first, cc.paths
	}
	g.data[k] = data
	return nil
}

// numbered ends g's numbering: every call must have returned in the
// replay.
func (g *gor) numbered() error {
	if g.calls != nil {
		return nil
	}
	for _, o := range g.open {
		if o != nil {
			return errors.New("a call's replay did not end")
		}
	}
	if k := len(g.data) - 1; k >= 0 {
		g.data[k] = slices.Clone(g.data[k]) // not the room it grew
	}
	g.read, g.open = nil, nil
	return nil
}

// call returns call c.
func (g *gor) call(c int32) ccall {
	if g.calls != nil {
		return g.calls[c]
	}
	b := c / packBlock
	if g.read != nil {
		// Being numbered: a call is in an open block, or packed, or
		// ahead of the replay, as read.
		if o := g.open[b]; o != nil {
			return o.calls[c%packBlock]
		}
		if g.blocks[b].off == unpacked {
			rc := g.read.peek(c)
			return ccall{fn: rc.fn, parent: rc.parent, next: rc.next, paths: rc.paths, first: -1, end: -1, ret: -1}
		}
	}
	if g.cache.keys == nil {
		g.cache.keys = make([]blockKey, blockCacheSize)
		g.cache.calls = make([][packBlock]ccall, blockCacheSize)
	}
	i := (uint64(uintptr(unsafe.Pointer(g)))>>4 ^ uint64(b)*0x9e3779b97f4a7c15) >> (64 - blockCacheBits)
	if g.cache.keys[i] != (blockKey{g, b}) {
		g.decode(b, &g.cache.calls[i])
		g.cache.keys[i] = blockKey{g, b}
	}
	return g.cache.calls[i][c%packBlock]
}

// each calls fn with each call of g in order, decoding each block once.
func (g *gor) each(fn func(c int32, cc *ccall)) {
	if g.calls != nil {
		for c := range g.n {
			fn(c, &g.calls[c])
		}
		return
	}
	var buf [packBlock]ccall
	for b := range int32(len(g.blocks)) {
		g.decode(b, &buf)
		for i := range min(packBlock, g.n-b*packBlock) {
			fn(b*packBlock+i, &buf[i])
		}
	}
}

// eachOf calls fn with each call of g in order that may be of a
// function whose fnBit is in mask: the blocks with none are not decoded.
func (g *gor) eachOf(mask uint64, fn func(c int32, cc *ccall)) {
	if g.calls != nil {
		g.each(fn)
		return
	}
	var buf [packBlock]ccall
	for b := range int32(len(g.blocks)) {
		if g.blocks[b].fns&mask == 0 {
			continue
		}
		g.decode(b, &buf)
		for i := range min(packBlock, g.n-b*packBlock) {
			fn(b*packBlock+i, &buf[i])
		}
	}
}

// decode decodes block b into calls, and reports whether its bytes
// held the block whole (a graph read from a file is checked with it:
// checkGor).
func (g *gor) decode(b int32, calls *[packBlock]ccall) bool {
	off := g.blocks[b].off
	chunk := int(off >> dataChunkBits)
	if chunk >= len(g.data) || int(off&(1<<dataChunkBits-1)) > len(g.data[chunk]) {
		return false
	}
	data := g.data[chunk][off&(1<<dataChunkBits-1):]
	prev, prevPaths := g.blocks[b].first, int64(0)
	k, ok := 0, true
	next := func() uint64 {
		v, n := binary.Uvarint(data[k:])
		if n <= 0 {
			ok, n = false, 0
		}
		k += n
		return v
	}
	for i := range int32(packBlock) {
		c := b*packBlock + i
		if c >= g.n || !ok {
			break
		}
		cc := &calls[i]
		cc.fn = int32(next())
		cc.parent = -1
		if p := int32(next()); p > 0 {
			cc.parent = c - p
		}
		cc.next = c + int32(next())
		cc.first = prev + int32(next())
		prev = cc.first
		cc.end = cc.first + int32(next())
		cc.ret = -1
		if r := int32(next()); r > 0 {
			cc.ret = cc.first + r - 1
		}
		cc.shape = int32(next())
		d, n := binary.Varint(data[k:])
		if n <= 0 {
			ok, n = false, 0
		}
		k += n
		prevPaths += d
		cc.paths = uint32(prevPaths)
	}
	return ok
}

// bytes is what g holds.
func (g *gor) bytes() int64 {
	n := 96 + int64(len(g.calls))*callBytes + int64(len(g.arena)) + int64(len(g.blocks))*int64(unsafe.Sizeof(packedBlock{}))
	for _, d := range g.data {
		n += int64(len(d))
	}
	if g.read != nil {
		n += g.read.bytes()
	}
	return n
}

// locate returns the call of g whose own node n is.
func (g *gor) locate(t *funcTable, n int32) (int32, error) {
	var c int32
	if g.calls != nil {
		c = int32(sort.Search(int(g.n), func(i int) bool { return g.calls[i].first > n })) - 1
	} else {
		b := int32(sort.Search(len(g.blocks), func(i int) bool { return g.blocks[i].first > n })) - 1
		if b >= 0 {
			c = b*packBlock + int32(sort.Search(int(min(packBlock, g.n-b*packBlock)), func(i int) bool { return g.call(b*packBlock+int32(i)).first > n })) - 1
		} else {
			c = -1
		}
	}
	for c >= 0 {
		cc := g.call(c)
		if t.funcs[cc.fn].Deps != nil && n < cc.end {
			return c, nil
		}
		c = cc.parent
	}
	return 0, fmt.Errorf("node %d is in no call", n)
}

// pathIDs appends the path ids of call c to buf.
func (g *gor) pathIDs(c int32, buf []uint64) []uint64 {
	b := g.arena[g.call(c).paths:]
	n, k := binary.Uvarint(b)
	b = b[k:]
	for range n {
		id, k := binary.Uvarint(b)
		b = b[k:]
		buf = append(buf, id)
	}
	return buf
}

// pathList returns how many paths call c has, and their ids (uvarints,
// followed by what comes after them).
func (g *gor) pathList(c int32) (int, []byte) {
	b := g.arena[g.call(c).paths:]
	n, k := binary.Uvarint(b)
	return int(n), b[k:]
}

// children calls fn with each child of call c, in order.
func (g *gor) children(c int32, fn func(int32)) {
	for ch, end := c+1, g.call(c).next; ch < end; ch = g.call(ch).next {
		fn(ch)
	}
}

// A rawAccess is a memory event of a call as the stream reading keeps it
// for the replay to place, or, read for values (readGor's vals), a word of
// a value: kind valueWord, the word in addr, the value site in src, which
// word in flags, and the site's statement in stmt.
type rawAccess struct {
	seq, addr, size, src uint64
	stmt                 uint32
	kind                 profile.WPPAccess
	flags                uint8
	path                 int32 // the paths its call had recorded before it
}

// valueWord is the kind of a rawAccess that is a word of a value.
const valueWord profile.WPPAccess = 255

// A gorMem is what the replay that numbers a goroutine needs beside its
// compact form: its memory accesses, by call, and its spawns.
type gorMem struct {
	// accs holds the goroutine's accesses sorted by call, each call's in
	// order (spill: a goroutine of tens of millions of accesses holds a
	// few million in memory at a time); the replay, which takes the calls
	// in order, reads them back through sorted (take).
	accs   *spill.Sorter[callAccess]
	sorted *spill.Reader[callAccess]
	peek   *callAccess
	spawns map[int32][]uint64
	// attributed says that each access's path is the one it belongs to
	// (a WET's: readGor's attributed), not the count of paths recorded
	// before it, which the tail rule corrects (profile.InTail).
	attributed bool
}

// A callAccess is an access of a goroutine's call.
type callAccess struct {
	call int32
	rawAccess
}

// spillCallAccesses is how many accesses of a goroutine are sorted in
// memory before they are written to a temporary file.
const spillCallAccesses = 1 << 20

func accessCall(a callAccess) uint64 { return uint64(a.call) }

// newCallAccesses returns a sorter of a goroutine's accesses that holds
// limit (0: spillCallAccesses) in memory.
func newCallAccesses(limit int) *spill.Sorter[callAccess] {
	return spill.New(accessCall, callAccessCodec, cmp.Or(limit, spillCallAccesses), "")
}

// callAccessCodec writes a callAccess in 46 bytes.
var callAccessCodec = spill.Codec[callAccess]{
	Size: 46,
	Put: func(b []byte, a callAccess) {
		le := binary.LittleEndian
		le.PutUint32(b, uint32(a.call))
		le.PutUint64(b[4:], a.seq)
		le.PutUint64(b[12:], a.addr)
		le.PutUint64(b[20:], a.size)
		le.PutUint64(b[28:], a.src)
		le.PutUint32(b[36:], a.stmt)
		b[40], b[41] = byte(a.kind), a.flags
		le.PutUint32(b[42:], uint32(a.path))
	},
	Get: func(b []byte) callAccess {
		le := binary.LittleEndian
		return callAccess{int32(le.Uint32(b)), rawAccess{seq: le.Uint64(b[4:]), addr: le.Uint64(b[12:]), size: le.Uint64(b[20:]), src: le.Uint64(b[28:]),
			stmt: le.Uint32(b[36:]), kind: profile.WPPAccess(b[40]), flags: b[41], path: int32(le.Uint32(b[42:]))}}
	},
}

// take returns the accesses of call c, in order: the replay takes calls
// in increasing order, and the accesses of calls it skips (of functions
// without statements) are dropped.
func (m *gorMem) take(c int32, buf []rawAccess) ([]rawAccess, error) {
	if m.sorted == nil {
		r, err := m.accs.Records()
		if err != nil {
			return nil, err
		}
		m.sorted = r
	}
	for {
		if m.peek == nil {
			a, ok, err := m.sorted.Next()
			if err != nil || !ok {
				return buf, err
			}
			m.peek = &a
		}
		switch {
		case m.peek.call < c:
			m.peek = nil
		case m.peek.call == c:
			buf = append(buf, m.peek.rawAccess)
			m.peek = nil
		default:
			return buf, nil
		}
	}
}

// close removes the files of m's accesses.
func (m *gorMem) close() {
	if m != nil {
		m.accs.Close()
	}
}

// readGor reads the events of goroutine gid of f into its read form, for
// a replay to number (gor.numbering, then the replay's gor.enter and
// gor.exit, then gor.numbered); with mem, it keeps its memory accesses and spawns too, and with vals as
// well, the words of its values (as rawAccess says). It fails as
// builder.calls does. If f is attributed (a WET's), each memory event
// follows the path it belongs to, a path of the call Up levels below the
// current one (wetSource).
// The accesses are sorted by accs (newCallAccesses), which the caller
// reuses from goroutine to goroutine.
func readGor(t *funcTable, f wpp.Source, file int, gid uint64, mem, vals bool, accs *spill.Sorter[callAccess]) (*gor, *gorMem, error) {
	g := &gor{file: file, id: gid, start: -1, read: newReadCalls()}
	var m *gorMem
	if mem {
		m = &gorMem{spawns: make(map[int32][]uint64), accs: accs}
	}
	// bufs[k] holds the paths of the open call k calls deep (wpp.Walk
	// keeps the calls), until it returns.
	var bufs [][]uint64
	var seq uint64
	flush := func(k int, c int32) error {
		if len(g.arena) > math.MaxUint32 {
			return errors.New("more paths than the compact form holds")
		}
		paths := uint32(len(g.arena))
		g.arena = binary.AppendUvarint(g.arena, uint64(len(bufs[k])))
		for _, id := range bufs[k] {
			g.arena = binary.AppendUvarint(g.arena, id)
		}
		bufs[k] = bufs[k][:0]
		bufs = bufs[:k]
		return g.read.returned(c, g.read.n, paths)
	}
	_, attributed := f.(*wetSource)
	if m != nil {
		m.attributed = attributed
	}
	// add appends a to the accesses of call c, k calls deep: its path is
	// the number of paths that call recorded before it, or, attributed,
	// the last of them.
	var addErr error
	add := func(a rawAccess, k int, c int32) {
		a.path = int32(len(bufs[k]))
		if attributed {
			a.path--
		}
		if err := m.accs.Add(callAccess{c, a}); err != nil && addErr == nil {
			addErr = err
		}
	}
	enter := func(hash string, fn uint32, caller int32, hasCaller bool) (int32, error) {
		fi, err := t.fn(funcKey{hash, fn})
		if err != nil {
			return 0, err
		}
		parent := int32(-1)
		if hasCaller {
			parent = caller
		}
		c := g.read.n
		if err := g.read.add(rcall{fn: fi, parent: parent, next: -1}); err != nil {
			return 0, err
		}
		if len(bufs) < cap(bufs) {
			bufs = bufs[:len(bufs)+1]
		} else {
			bufs = append(bufs, nil)
		}
		return c, nil
	}
	open, err := wpp.Walk(f, gid, enter, func(st *wpp.Step[int32]) error {
		switch st.Kind {
		case profile.WPPMemory:
			seq += st.Seq
			if mem { // of the call Up levels below: a range-over-func body's caller
				add(rawAccess{seq: seq, addr: st.Addr, size: st.Size, src: st.Src, stmt: st.Stmt, kind: st.Access, flags: st.Flags}, st.Depth-1-int(st.Up), st.Call)
			}
		case profile.WPPValue:
			// A site the metadata does not list is left out: it names no
			// statement to place it at.
			if d := t.funcs[g.read.at(st.Call).fn].Deps; mem && vals && d != nil && int(st.Site) < len(d.Values) {
				add(rawAccess{addr: st.Value, src: uint64(st.Site), flags: st.Part, stmt: uint32(d.Values[st.Site].Stmt), kind: valueWord}, st.Depth-1-int(st.Up), st.Call)
			}
		case profile.WPPPath:
			k := st.Depth - 1 - int(st.Up)
			bufs[k] = append(bufs[k], st.Path)
		case profile.WPPSpawn:
			if mem {
				m.spawns[st.Call] = append(m.spawns[st.Call], st.Spawn)
			}
		case profile.WPPStart:
			g.spawn = st.Spawn
		case profile.WPPReturn:
			return flush(st.Depth, st.Call)
		}
		return nil
	})
	if err == nil {
		err = addErr
	}
	if err != nil {
		m.close()
		return nil, nil, err
	}
	for k := len(open) - 1; k >= 0; k-- {
		if err := flush(k, open[k]); err != nil {
			m.close()
			return nil, nil, err
		}
	}
	if err := g.read.done(); err != nil {
		m.close()
		return nil, nil, err
	}
	g.arena = g.arena[:len(g.arena):len(g.arena)]
	g.n = g.read.n
	return g, m, nil
}
