package slice

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/spill"
	"github.com/pathcover/pathcover/profile"
)

// A Demand slices on demand from the recording on disk (the paper's LP):
// it keeps no call and no dependence in memory. Open numbers the run once,
// as Load does, and writes the memory accesses, in the order of their
// numbers and placed at their nodes, to a file, with a summary per block
// of accesses (which words and map entries it writes); it keeps only each
// goroutine's nodes. A slice then re-reads each goroutine it needs from
// the recording and replays it, and finds the writers of a read by going
// back through the access file from the read, skipping the blocks whose
// summary shows they do not write what is looked for: for each word
// looked for, the blocks that may write it are listed the first time
// (writingBlocks), so that the search goes from one to the next.
type Demand struct {
	// Problems are what the replay could not follow exactly, as Load's.
	Problems []string
	t        *funcTable
	names    []string
	gors     []*gor // each with its nodes, its start, its first call
	nodes    int32
	tmp      string
	acc      *os.File
	blocks   []accSummary
	count    int      // accesses in the file
	reads    *os.File // (node, position) of each read, by node
	readIdx  []int32  // the node of each block's first read
	nreads   int
	// Deadline, if set, stops a slice that passes it (ErrDeadline).
	Deadline time.Time
	asked    int
	// caches, bounded: goroutines re-read, access blocks, calls
	// replayed.
	replayed *replayCache
	loaded   map[int32]*demandGor
	loadedN  int
	// cache holds blocks of the loaded goroutines' packed calls.
	cache    *blockCache
	accCache map[int][]accRecord
	// lastRecs is accCache's block lastRecsBlock, the one record read
	// last.
	lastRecs      []accRecord
	lastRecsBlock int
	readsCache    map[int][]uint64 // blocks of the read file
	node          Node             // the node nodeAt gave last
	// writing holds, by word, the blocks whose summaries say they may
	// write it (writingBlocks), made as the words are looked for, and
	// bigBlocks the blocks with larger writes.
	writing      map[uint64][]int32
	writingCount int
	bigBlocks    []int32
}

// ErrDeadline is the error of a slice that passed Demand.Deadline.
var ErrDeadline = errors.New("the slice passed its deadline")

// demandGor is a goroutine re-read from the recording and numbered.
type demandGor struct {
	g *gor
}

// An accRecord is an access of the access file.
type accRecord struct {
	addr, size, src uint64 // for a receive, src is the node of the send it took
	node            int32
	kind            profile.WPPAccess
}

const (
	accRecordBytes = 32
	accBlock       = 4096 // accesses a block
	readBlock      = 8192 // reads a block of the read file
	bloomWords     = 512  // the summary's bits: 32768, 8 a record
	bigWrite       = 64   // words: larger writes are listed, not hashed
	loadedLimit    = 4 << 20
	accCacheLimit  = 64
	writingLimit   = 16 << 20 // blocks listed in Demand.writing, 64 MB
	nearBlocks     = 64       // blocks a search tests before it lists a word's
)

// accSummary is what a block of accesses writes: a Bloom filter of the
// words and map entries, and the ranges of larger writes.
type accSummary struct {
	bloom [bloomWords]uint64
	big   [][2]uint64
}

var bloomSeed = maphash.MakeSeed()

func bloomHash(x, salt uint64) (uint64, uint64) {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], x)
	binary.LittleEndian.PutUint64(b[8:], salt)
	h := maphash.Bytes(bloomSeed, b[:])
	return h % (bloomWords * 64), (h >> 32) % (bloomWords * 64)
}

func (s *accSummary) add(x, salt uint64) {
	i, j := bloomHash(x, salt)
	s.bloom[i/64] |= 1 << (i % 64)
	s.bloom[j/64] |= 1 << (j % 64)
}

func (s *accSummary) has(x, salt uint64) bool {
	i, j := bloomHash(x, salt)
	return s.bloom[i/64]&(1<<(i%64)) != 0 && s.bloom[j/64]&(1<<(j%64)) != 0
}

// OpenDemand prepares the recordings of a -deps build in dir for slicing
// on demand (LP). Close removes its files.
func OpenDemand(dir string) (*Demand, error) { return openDemand(dir, 0) }

// openDemand is OpenDemand sorting at most limit accesses and reads in
// memory at a time (0: spillAccesses and spillPairs), the rest in
// temporary files: a whole suite's run makes hundreds of millions.
func openDemand(dir string, limit int) (*Demand, error) {
	acc := spill.New(placedSeq, placedCodec, cmp.Or(limit, spillAccesses), "")
	defer acc.Close()
	// The sends, to give each receive the send of its rank: few beside
	// the accesses, they are kept.
	var sends []placed
	var addErr error
	l := &loader{dir: dir}
	l.mem = func(a *rawAccess, g, proc int32, node int32) {
		addr, src := accessKey(a, g, proc)
		p := placed{seq: a.seq, addr: addr, size: a.size, src: src, node: node, kind: a.kind}
		if p.kind == profile.WPPSend {
			sends = append(sends, p)
		}
		if err := acc.Add(p); err != nil && addErr == nil {
			addErr = err
		}
	}
	if err := l.load(); err != nil {
		return nil, err
	}
	if addErr != nil {
		return nil, addErr
	}
	names, err := profile.Need(dir, profile.KindWPP, recordDeps)
	if err != nil {
		return nil, err
	}
	d := &Demand{Problems: l.problems, t: l.t, names: names, gors: l.gors, nodes: int32(l.next), cache: newBlockCache()}
	if d.tmp, err = os.MkdirTemp("", "pathcover-lp-"); err != nil {
		return nil, err
	}
	reads := spill.New(pairKey, pairCodec, cmp.Or(limit, spillPairs), "")
	defer reads.Close()
	if err := d.writeAccesses(acc, sends, reads); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// writeAccesses writes the access file, in the order of the accesses'
// numbers, with its summaries, then the read file.
func (d *Demand) writeAccesses(acc *spill.Sorter[placed], sends []placed, reads *spill.Sorter[uint64]) error {
	// A receive takes the send of its rank (see replayAccesses).
	slices.SortStableFunc(sends, func(x, y placed) int { return cmp.Compare(x.seq, y.seq) })
	sent := make(map[uint64][]int32)
	for _, s := range sends {
		sent[s.addr] = append(sent[s.addr], s.node)
	}
	rank := make(map[uint64]int)
	var err error
	if d.acc, err = os.Create(filepath.Join(d.tmp, "accesses")); err != nil {
		return err
	}
	if d.reads, err = os.Create(filepath.Join(d.tmp, "reads")); err != nil {
		return err
	}
	var buf []byte
	recs, err := acc.Records()
	if err != nil {
		return err
	}
	defer recs.Close()
	i := 0
	for ; ; i++ {
		a, ok, err := recs.Next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if i%accBlock == 0 {
			d.blocks = append(d.blocks, accSummary{})
		}
		s := &d.blocks[len(d.blocks)-1]
		big := a.kind <= profile.WPPCopy && a.size > maxMove
		switch {
		case big:
			d.Problems = appendOnce(d.Problems, fmt.Sprintf("an access of %d bytes: its writers are not followed", a.size))
		case a.kind == profile.WPPStore || a.kind == profile.WPPUpdate || a.kind == profile.WPPCopy:
			if a.size > 8*bigWrite {
				if len(s.big) == 0 {
					d.bigBlocks = append(d.bigBlocks, int32(len(d.blocks)-1))
				}
				s.big = append(s.big, [2]uint64{a.addr, a.addr + a.size})
			} else if a.size > 0 {
				for w := a.addr >> 3; w <= (a.addr+a.size-1)>>3; w++ {
					s.add(w, 0)
				}
			}
		case a.kind == profile.WPPMapWrite:
			s.add(a.addr, a.size|1<<63)
		case a.kind == profile.WPPRecv:
			a.src = 1<<64 - 1
			if k := rank[a.addr]; k < len(sent[a.addr]) {
				a.src = uint64(sent[a.addr][k])
			}
			rank[a.addr]++
		}
		if !big && (a.kind == profile.WPPLoad || a.kind == profile.WPPUpdate || a.kind == profile.WPPMapRead || a.kind == profile.WPPRecv) {
			if err := reads.Add(uint64(a.node)<<32 | uint64(i)); err != nil {
				return err
			}
		}
		buf = binary.LittleEndian.AppendUint64(buf, a.addr)
		buf = binary.LittleEndian.AppendUint64(buf, a.size)
		buf = binary.LittleEndian.AppendUint64(buf, a.src)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(a.node))
		buf = append(buf, byte(a.kind), 0, 0, 0)
		if len(buf) >= 1<<20 {
			if _, err := d.acc.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if _, err := d.acc.Write(buf); err != nil {
		return err
	}
	d.count = i
	buf = buf[:0]
	err = reads.Each(func(r uint64) error {
		if d.nreads%readBlock == 0 {
			d.readIdx = append(d.readIdx, int32(r>>32))
		}
		d.nreads++
		buf = binary.LittleEndian.AppendUint64(buf, r)
		if len(buf) >= 1<<20 {
			_, err := d.reads.Write(buf)
			buf = buf[:0]
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = d.reads.Write(buf)
	return err
}

// Close removes the files Open wrote.
func (d *Demand) Close() error {
	if d.acc != nil {
		d.acc.Close()
	}
	if d.reads != nil {
		d.reads.Close()
	}
	return os.RemoveAll(d.tmp)
}

// Nodes returns the number of statement executions.
func (d *Demand) Nodes() int { return int(d.nodes) }

// Bytes returns what d keeps in memory between slices, but the metadata:
// the goroutines' nodes, the summaries and the words' blocks listed so
// far.
func (d *Demand) Bytes() int64 {
	n := int64(len(d.gors))*(64+callBytes) + int64(len(d.readIdx))*4 + int64(len(d.bigBlocks))*4
	for i := range d.blocks {
		n += bloomWords*8 + 24 + int64(len(d.blocks[i].big))*16
	}
	return n + int64(d.writingCount)*4 + int64(len(d.writing))*48
}

// gor returns goroutine gi, re-read from the recording and numbered.
func (d *Demand) gor(gi int32) (*demandGor, error) {
	if dg, ok := d.loaded[gi]; ok {
		return dg, nil
	}
	idx := d.gors[gi]
	f, err := profile.OpenWPP(d.names[idx.file])
	if err != nil {
		return nil, err
	}
	g, _, err := readGor(d.t, wpp.FileSource{WPPFile: f}, idx.file, idx.id, false, false, nil)
	f.Close()
	if err != nil {
		return nil, err
	}
	g.first, g.end, g.start, g.spawn = idx.first, idx.end, idx.start, idx.spawn
	r := &replay{t: d.t, g: g, gi: gi, next: int64(g.first), build: true, place: func(*rawAccess, int32) {}}
	g.numbering(d.cache)
	for c := int32(0); c < g.n; c = g.call(c).next {
		r.call(c)
	}
	if r.err == nil {
		r.err = g.numbered()
	}
	if r.err != nil {
		return nil, fmt.Errorf("goroutine %d of %s: %v", idx.id, d.names[idx.file], r.err)
	}
	if r.next != int64(g.end) {
		return nil, fmt.Errorf("goroutine %d of %s numbers %d nodes, not %d as before: the recording changed", idx.id, d.names[idx.file], r.next-int64(g.first), g.end-g.first)
	}
	if d.loaded == nil || d.loadedN+int(g.n) > loadedLimit {
		d.loaded, d.loadedN = make(map[int32]*demandGor), 0
	}
	dg := &demandGor{g: g}
	d.loaded[gi] = dg
	d.loadedN += int(g.n)
	return dg, nil
}

func (d *Demand) funcAt(i int32) *Func { return d.t.funcs[i] }

func (d *Demand) goroutineOf(n int32) (string, uint64) {
	g := d.gors[sort.Search(len(d.gors), func(i int) bool { return d.gors[i].end > n })]
	return d.names[g.file], g.id
}

// Funcs are the functions that ran, by their order of first call.
func (d *Demand) Funcs() []*Func { return d.t.funcs }

// Node returns node n with its dependences, as Load's node n.
func (d *Demand) Node(n int32) (*Node, error) { return ownNode(d.nodeAt(n)) }

func (d *Demand) nodeAt(n int32) (*Node, error) {
	if !d.Deadline.IsZero() {
		if d.asked++; d.asked%1024 == 0 && time.Now().After(d.Deadline) {
			return nil, ErrDeadline
		}
	}
	if n < 0 || n >= d.nodes {
		return nil, fmt.Errorf("no node %d", n)
	}
	gi := int32(sort.Search(len(d.gors), func(i int) bool { return d.gors[i].end > n }))
	dg, err := d.gor(gi)
	if err != nil {
		return nil, err
	}
	g := dg.g
	c, err := g.locate(d.t, n)
	if err != nil {
		return nil, err
	}
	if d.replayed == nil {
		d.replayed = newReplayCache(d.t)
	}
	nd, err := d.replayed.nodeOf(g, gi, n, c, d.nodeAt)
	if err != nil {
		return nil, err
	}
	if nd.Memory, err = d.memoryOf(n); err != nil {
		return nil, err
	}
	d.node = nd
	return &d.node, nil
}

// record returns access i of the file.
func (d *Demand) record(i int) (*accRecord, error) {
	recs, err := d.accBlockOf(i / accBlock)
	if err != nil {
		return nil, err
	}
	return &recs[i%accBlock], nil
}

// accBlockOf returns block b of the access file, from a cache of the
// blocks read last.
func (d *Demand) accBlockOf(b int) ([]accRecord, error) {
	if d.lastRecs != nil && d.lastRecsBlock == b {
		return d.lastRecs, nil
	}
	recs, ok := d.accCache[b]
	if !ok {
		n := min(accBlock, d.count-b*accBlock)
		buf := make([]byte, n*accRecordBytes)
		if _, err := d.acc.ReadAt(buf, int64(b)*accBlock*accRecordBytes); err != nil && err != io.EOF {
			return nil, err
		}
		recs = make([]accRecord, n)
		for k := range recs {
			p := buf[k*accRecordBytes:]
			recs[k] = accRecord{addr: binary.LittleEndian.Uint64(p), size: binary.LittleEndian.Uint64(p[8:]), src: binary.LittleEndian.Uint64(p[16:]),
				node: int32(binary.LittleEndian.Uint32(p[24:])), kind: profile.WPPAccess(p[28])}
		}
		if d.accCache == nil {
			d.accCache = make(map[int][]accRecord)
		}
		if len(d.accCache) >= accCacheLimit {
			for old := range d.accCache { // one, at random
				delete(d.accCache, old)
				break
			}
		}
		d.accCache[b] = recs
	}
	d.lastRecs, d.lastRecsBlock = recs, b
	return recs, nil
}

// readsOf returns the positions of node n's reads in the access file.
func (d *Demand) readsOf(n int32) ([]int, error) {
	// The first block whose first read is n's or later, and the one before.
	b := max(0, sort.Search(len(d.readIdx), func(i int) bool { return d.readIdx[i] >= n })-1)
	var pos []int
	for ; b < len(d.readIdx) && d.readIdx[b] <= n; b++ {
		rs, err := d.readsBlock(b)
		if err != nil {
			return nil, err
		}
		// The block's reads are by node: n's are a run.
		k := sort.Search(len(rs), func(k int) bool { return int32(rs[k]>>32) >= n })
		for ; k < len(rs) && int32(rs[k]>>32) == n; k++ {
			pos = append(pos, int(uint32(rs[k])))
		}
	}
	return pos, nil
}

// readsBlock returns block b of the read file, from a cache of the
// blocks read last (a slice asks for the reads of nodes near each other).
func (d *Demand) readsBlock(b int) ([]uint64, error) {
	if rs, ok := d.readsCache[b]; ok {
		return rs, nil
	}
	cnt := min(readBlock, d.nreads-b*readBlock)
	buf := make([]byte, cnt*8)
	if _, err := d.reads.ReadAt(buf, int64(b)*readBlock*8); err != nil && err != io.EOF {
		return nil, err
	}
	rs := make([]uint64, cnt)
	for k := range rs {
		rs[k] = binary.LittleEndian.Uint64(buf[k*8:])
	}
	if d.readsCache == nil || len(d.readsCache) >= accCacheLimit {
		d.readsCache = make(map[int][]uint64)
	}
	d.readsCache[b] = rs
	return rs, nil
}

// memoryOf returns the writers node n read from, going back through the
// access file from each of its reads.
func (d *Demand) memoryOf(n int32) ([]int32, error) {
	pos, err := d.readsOf(n)
	if err != nil || len(pos) == 0 {
		return nil, err
	}
	var from []int32
	for _, p := range pos {
		a, err := d.record(p)
		if err != nil {
			return nil, err
		}
		switch a.kind {
		case profile.WPPLoad, profile.WPPUpdate:
			from, err = d.writersBefore(a.addr, a.addr+a.size, p, from)
		case profile.WPPMapRead:
			from, err = d.entryBefore(a.addr, a.size, p, from)
		case profile.WPPRecv:
			if a.src != 1<<64-1 {
				from = append(from, int32(a.src))
			}
		}
		if err != nil {
			return nil, err
		}
	}
	from = dedupNodes(from)
	return slices.DeleteFunc(from, func(m int32) bool { return m == n }), nil
}

// entryBefore appends the last writer of map entry (m, hash) before access
// p.
func (d *Demand) entryBefore(m, hash uint64, p int, to []int32) ([]int32, error) {
	for q := p - 1; q >= 0; {
		b := q / accBlock
		if !d.blocks[b].has(m, hash|1<<63) {
			q = b*accBlock - 1
			continue
		}
		for ; q >= b*accBlock; q-- {
			a, err := d.record(q)
			if err != nil {
				return nil, err
			}
			if a.kind == profile.WPPMapWrite && a.addr == m && a.size == hash {
				return append(to, a.node), nil
			}
		}
	}
	return to, nil
}

// writingBlocks returns the blocks whose summaries say they may write
// word w, in order. A read's writer is looked for back from the read,
// block by block, each block's summary hashed again at every step
// (regexp's suite: 41% of three slices' time in accSummary.has), and
// one that the run does not write before the read is looked for back to
// the run's start. So a word's blocks are listed once, when a search
// for it goes past the nearBlocks before it, and bounded in all
// (writingLimit).
func (d *Demand) writingBlocks(w uint64) []int32 {
	if bl, ok := d.writing[w]; ok {
		return bl
	}
	i, j := bloomHash(w, 0)
	var bl []int32
	for b := range d.blocks {
		s := &d.blocks[b]
		if s.bloom[i/64]&(1<<(i%64)) != 0 && s.bloom[j/64]&(1<<(j%64)) != 0 {
			bl = append(bl, int32(b))
		}
	}
	if d.writing == nil || d.writingCount+len(bl) > writingLimit {
		d.writing, d.writingCount = make(map[uint64][]int32), 0
	}
	d.writing[w] = bl
	d.writingCount += len(bl) + 1
	return bl
}

// lastBlockWriting returns the last block at or before block b whose
// summary says it may write a byte of [lo, hi), or -1: one whose larger
// writes overlap it, or whose Bloom filter holds one of its words (found
// in the blocks of each word, writingBlocks), or any if the range is
// too large to look for word by word.
func (d *Demand) lastBlockWriting(lo, hi uint64, b int) int {
	if hi-lo > 8*bigWrite {
		return b // any block may
	}
	// Most writers are near: the blocks just before are tested first,
	// each word hashed once, and a word's blocks are listed only for a
	// search that goes farther (listing them reads every summary).
	var bits [bigWrite][2]uint64
	words := bits[:0]
	for w := lo >> 3; w <= (hi-1)>>3; w++ {
		i, j := bloomHash(w, 0)
		words = append(words, [2]uint64{i, j})
	}
	for c := b; c >= 0 && c > b-nearBlocks; c-- {
		s := &d.blocks[c]
		for _, ij := range words {
			if s.bloom[ij[0]/64]&(1<<(ij[0]%64)) != 0 && s.bloom[ij[1]/64]&(1<<(ij[1]%64)) != 0 {
				return c
			}
		}
		for _, r := range s.big {
			if r[0] < hi && lo < r[1] {
				return c
			}
		}
	}
	b -= nearBlocks
	if b < 0 {
		return -1
	}
	last := -1
	for w := lo >> 3; w <= (hi-1)>>3 && last < b; w++ {
		// The last of the word's blocks at or before b.
		bl := d.writingBlocks(w)
		if k := sort.Search(len(bl), func(k int) bool { return int(bl[k]) > b }); k > 0 {
			last = max(last, int(bl[k-1]))
		}
	}
	for k := sort.Search(len(d.bigBlocks), func(k int) bool { return int(d.bigBlocks[k]) > b }) - 1; k >= 0 && int(d.bigBlocks[k]) > last; k-- {
		for _, r := range d.blocks[d.bigBlocks[k]].big {
			if r[0] < hi && lo < r[1] {
				last = int(d.bigBlocks[k])
				break
			}
		}
	}
	return last
}

// writersBefore appends the writers of the bytes [lo, hi) as they were
// before access p: going back, a store or update writes them, a copy
// moves its source's writers into them.
func (d *Demand) writersBefore(lo, hi uint64, p int, to []int32) ([]int32, error) {
	if hi <= lo {
		return to, nil
	}
	open := [][2]uint64{{lo, hi}} // the bytes whose writer is still looked for
	for q := p - 1; q >= 0 && len(open) > 0; {
		b := q / accBlock
		next := -1 // the last block at or before b that may write an open byte
		for _, r := range open {
			next = max(next, d.lastBlockWriting(r[0], r[1], b))
		}
		if next < 0 {
			break
		}
		if next < b {
			q = (next+1)*accBlock - 1
			continue
		}
		recs, err := d.accBlockOf(b)
		if err != nil {
			return nil, err
		}
		for ; q >= b*accBlock && len(open) > 0; q-- {
			a := &recs[q-b*accBlock]
			if a.kind != profile.WPPStore && a.kind != profile.WPPUpdate && a.kind != profile.WPPCopy || a.size > maxMove {
				continue
			}
			wlo, whi := a.addr, a.addr+a.size
			if !slices.ContainsFunc(open, func(r [2]uint64) bool { return max(r[0], wlo) < min(r[1], whi) }) {
				continue
			}
			var next [][2]uint64
			hit := false
			for _, r := range open {
				x, y := max(r[0], wlo), min(r[1], whi)
				if x >= y {
					next = append(next, r)
					continue
				}
				if r[0] < x {
					next = append(next, [2]uint64{r[0], x})
				}
				if y < r[1] {
					next = append(next, [2]uint64{y, r[1]})
				}
				if a.kind == profile.WPPCopy {
					src := a.src + (x - wlo)
					if to, err = d.writersBefore(src, src+(y-x), q, to); err != nil {
						return nil, err
					}
				} else {
					hit = true
				}
			}
			if hit {
				to = append(to, a.node)
			}
			open = next
		}
	}
	return to, nil
}

// Find returns the nodes of the statements at c's place, in order, as
// Graph.Find: it re-reads every goroutine.
func (d *Demand) Find(c Criterion) ([]int32, error) {
	return findOrAll(c, d.find)
}

func (d *Demand) find(c Criterion) ([]int32, error) {
	match := matchStmts(d.t.funcs, c)
	if len(match) == 0 {
		return nil, nil
	}
	var found []int32
	if d.replayed == nil {
		d.replayed = newReplayCache(d.t)
	}
	fd := newFinder(d.t, d.replayed, match)
	for gi := range d.gors {
		if d.gors[gi].end == d.gors[gi].first {
			continue
		}
		if !d.Deadline.IsZero() && time.Now().After(d.Deadline) {
			return nil, ErrDeadline
		}
		dg, err := d.gor(int32(gi))
		if err != nil {
			return nil, err
		}
		found = fd.in(dg.g, int32(gi), found)
	}
	slices.Sort(found)
	return found, nil
}

// Slice computes the backward slice of criterion c: Graph.Slice's.
func (d *Demand) Slice(c Criterion) (*Slice, error) {
	// Nothing is kept from one slice to the next.
	d.loaded, d.accCache = nil, nil
	found, err := d.Find(c)
	if err != nil {
		return nil, err
	}
	s, err := sliceOf(d, found, c)
	d.loaded, d.accCache = nil, nil
	return s, err
}
