package slice

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/pathcover/pathcover/internal/atomicfile"
	"github.com/pathcover/pathcover/internal/wire"
	"github.com/pathcover/pathcover/profile"
)

// The compact graph's file, profile.ddg: OPT as LoadCompact builds it, so
// that the slices after the first read it instead of building it again.
// Building OPT of a whole suite's recording takes minutes (btree's,
// 129 M statement executions, about two); reading its file, seconds.
// Every number is a uvarint (encoding/binary), a signed one a varint; a
// string or a byte string is its length and its bytes.
//
//	file       = magic "pcovddg1" section(inputs) section(funcs)
//	             section(goroutines) section(labels)
//	section    = length sum content        (sum: 4 bytes, little-endian)
//	inputs     = n { name size sum }^n nodes n { problem }^n
//	funcs      = n { hash index n { word }^n }^n
//	goroutines = n { file id spawn calls first end start+1 arena
//	                 n { chunk }^n n { off first fns }^n }^n
//	labels     = count readers data n { first off }^n
//
// inputs are the files the graph was built from, the directory's
// recordings and metadata, by base name, each with its size and the
// CRC-32C of its bytes: a file whose inputs are not those the directory
// holds now is not read, but built again. Then the run's statement
// executions and the problems its build met (Compact.Problems). funcs
// are the functions that ran, by their order of first call: the
// metadata's hash and the function's index there, and the statements an
// access was placed at (Func.accessed). A goroutine (gor) is its
// recording's index in inputs, its runtime id and spawn, its calls, its
// nodes and the node of the go statement that started it, then its
// packed form as it is held: the arena of paths, the chunks of packed
// calls, and each block's offset, first node and function bits. labels
// are the dependences through memory as labels holds them.
//
// A section's sum is the CRC-32C of its content (profile.Checksum), which
// the reader checks for every section before it decodes any. The reader
// then checks what the slicer relies on (checkGor, checkLabels): every
// block decodes within its chunk, every call's function, parent, subtree
// and nodes nest as a call tree numbered in order does, every path list
// lies in its arena, the goroutines' nodes follow each other, and every
// label names nodes of the run. A file that passes is held as read: its
// arenas, chunks and labels are slices of the file's bytes.

const graphMagic = "pcovddg1"

// graphSections name the file's sections, in order, in errors.
var graphSections = [...]string{"inputs", "functions", "goroutines", "labels"}

// MaxGraphSize bounds the graph files read: what a graph of 2^31
// statement executions can hold.
const MaxGraphSize = 16 << 30

// verifyGraphSums is false only in FuzzReadGraph's second pass, which
// fuzzes the decoders behind the checksums.
var verifyGraphSums = true

// An inputFile is a file a graph was built from.
type inputFile struct {
	name string // base name
	size int64
	sum  uint32
}

// graphInputs returns the files of dir that OPT is built from: its
// recordings and its metadata, in the order List gives them.
func graphInputs(dir string) ([]inputFile, error) {
	l, err := profile.List(dir)
	if err != nil {
		return nil, err
	}
	var in []inputFile
	for _, k := range []profile.FileKind{profile.KindMeta, profile.KindWPP} {
		for _, name := range l.Files(k) {
			f, info, err := profile.OpenFile(name, k.String()+" file", 1<<40)
			if err != nil {
				return nil, err
			}
			sum, err := fileSum(f)
			f.Close()
			if err != nil {
				return nil, err
			}
			in = append(in, inputFile{filepath.Base(name), info.Size(), sum})
		}
	}
	return in, nil
}

// fileSum returns the CRC-32C of f's bytes.
func fileSum(f *os.File) (uint32, error) {
	buf := make([]byte, 1<<20)
	var sum uint32
	for {
		n, err := f.Read(buf)
		sum = profile.ChecksumUpdate(sum, buf[:n])
		if err == io.EOF {
			return sum, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// writeGraph writes o, built from in, in the graph file's format.
func (o *Compact) writeGraph(out io.Writer, in []inputFile) error {
	bw := bufio.NewWriterSize(out, 1<<20)
	if _, err := bw.WriteString(graphMagic); err != nil {
		return err
	}
	// A section is small numbers and strings, in b, and large byte
	// strings (arenas, chunks, labels) written from where they are held:
	// parts, in order; its length and sum are those of all of them.
	var b []byte
	var parts [][]byte
	uv := func(v uint64) { b = binary.AppendUvarint(b, v) }
	str := func(s string) { uv(uint64(len(s))); b = append(b, s...) }
	big := func(data []byte) {
		uv(uint64(len(data)))
		parts = append(parts, b)
		parts = append(parts, data)
		b = nil
	}
	section := func() error {
		parts = append(parts, b)
		n, sum := 0, uint32(0)
		for _, p := range parts {
			n += len(p)
			sum = profile.ChecksumUpdate(sum, p)
		}
		head := binary.AppendUvarint(nil, uint64(n))
		head = binary.LittleEndian.AppendUint32(head, sum)
		if _, err := bw.Write(head); err != nil {
			return err
		}
		for _, p := range parts {
			if _, err := bw.Write(p); err != nil {
				return err
			}
		}
		b, parts = nil, nil
		return nil
	}

	uv(uint64(len(in)))
	for _, f := range in {
		str(f.name)
		uv(uint64(f.size))
		uv(uint64(f.sum))
	}
	uv(uint64(o.nodes))
	uv(uint64(len(o.Problems)))
	for _, p := range o.Problems {
		str(p)
	}
	if err := section(); err != nil {
		return err
	}

	uv(uint64(len(o.t.funcs)))
	for _, f := range o.t.funcs {
		str(f.key.hash)
		uv(uint64(f.key.index))
		uv(uint64(len(f.accessed)))
		for _, w := range f.accessed {
			uv(w)
		}
	}
	if err := section(); err != nil {
		return err
	}

	uv(uint64(len(o.gors)))
	for _, g := range o.gors {
		if g.calls != nil || g.read != nil {
			return errors.New("a goroutine is not packed")
		}
		uv(uint64(g.file))
		uv(g.id)
		uv(g.spawn)
		uv(uint64(g.n))
		uv(uint64(g.first))
		uv(uint64(g.end))
		uv(uint64(g.start + 1))
		big(g.arena)
		uv(uint64(len(g.data)))
		for _, chunk := range g.data {
			big(chunk)
		}
		uv(uint64(len(g.blocks)))
		for _, pb := range g.blocks {
			uv(uint64(pb.off))
			uv(uint64(pb.first))
			uv(pb.fns)
		}
	}
	if err := section(); err != nil {
		return err
	}

	l := &o.labels
	uv(uint64(l.count))
	uv(uint64(l.readers))
	big(l.data)
	uv(uint64(len(l.blocks)))
	for _, li := range l.blocks {
		uv(uint64(li.first))
		uv(uint64(li.off))
	}
	if err := section(); err != nil {
		return err
	}
	return bw.Flush()
}

// readGraph reads a graph file's bytes, of the recordings of dir, whose
// metadata p holds; want are the inputs dir holds now. It returns
// errStaleGraph if the graph was built from others.
func readGraph(data []byte, dir string, p *profile.Profile, want []inputFile) (*Compact, error) {
	if len(data) < len(graphMagic) || string(data[:len(graphMagic)]) != graphMagic {
		if len(data) >= 7 && string(data[:7]) == graphMagic[:7] {
			return nil, fmt.Errorf("a compact graph of another version of pathcover (%q)", data[:len(graphMagic)])
		}
		return nil, errors.New("not a compact graph file")
	}
	// The sections, each checked before any is decoded.
	var secs [len(graphSections)]*wire.Decoder
	pos := len(graphMagic)
	for i := range secs {
		d := &wire.Decoder{B: data, Pos: pos, What: graphSections[i] + " section's header"}
		n := d.Uvarint("length")
		sum := d.Bytes(4)
		if d.Err == nil && n > uint64(d.Left()) {
			d.Fail("length %d past the file's end", n)
		}
		if d.Err != nil {
			return nil, d.Err
		}
		content := data[d.Pos : d.Pos+int(n)]
		if verifyGraphSums {
			if err := profile.VerifyChecksum(fmt.Sprintf("%s section at byte %d", graphSections[i], d.Pos), content, binary.LittleEndian.Uint32(sum)); err != nil {
				return nil, err
			}
		}
		secs[i] = &wire.Decoder{B: content, Off: d.Pos, What: graphSections[i] + " section"}
		pos = d.Pos + int(n)
	}
	if pos != len(data) {
		return nil, fmt.Errorf("%d bytes after the last section", len(data)-pos)
	}

	d := secs[0]
	var in []inputFile
	for range d.Count("inputs", 3) {
		in = append(in, inputFile{string(d.Bytes(d.Count("name bytes", 1))), int64(d.Uvarint("size")), uint32(d.Small("sum", 1<<32))})
	}
	nodes := d.Small("nodes", 1<<31)
	var problems []string
	for range d.Count("problems", 1) {
		problems = append(problems, string(d.Bytes(d.Count("problem bytes", 1))))
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	if !slices.Equal(in, want) {
		return nil, errStaleGraph
	}
	var files []string // the recordings, by index
	for _, f := range in {
		if filepath.Ext(f.name) == ".wpp" {
			files = append(files, filepath.Join(dir, f.name))
		}
	}

	t := newFuncTable(p)
	t.shapes = nil // every call has its shape's number
	d = secs[1]
	for range d.Count("functions", 3) {
		hash := string(d.Bytes(d.Count("hash bytes", 1)))
		index := d.Small("function index", 1<<32)
		var accessed []uint64
		for range d.Count("accessed words", 1) {
			accessed = append(accessed, d.Uvarint("accessed"))
		}
		if d.Err != nil {
			break
		}
		fi, err := t.fn(funcKey{hash, uint32(index)})
		if err != nil {
			return nil, fmt.Errorf("function %d of metadata %s: %v", index, hash, err)
		}
		if int(fi) != len(t.funcs)-1 {
			d.Fail("function %d of metadata %s listed twice", index, hash)
			break
		}
		t.funcs[fi].accessed = accessed
	}
	if err := d.End(); err != nil {
		return nil, err
	}

	d = secs[3]
	var lab labels
	lab.count = d.Count("labels", 1)
	lab.readers = d.Count("readers", 1)
	lab.data = d.Bytes(d.Count("label bytes", 1))
	for range d.Count("label blocks", 2) {
		lab.blocks = append(lab.blocks, labelIndex{first: int32(d.Small("block's first reader", nodes)), off: uint32(d.Small("block offset", uint64(len(lab.data))+1))})
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	// The labels are checked while the goroutines are: each is a second
	// or so of a whole suite's graph.
	var labelsErr error
	labelsChecked := make(chan struct{})
	go func() {
		labelsErr = checkLabels(&lab, int32(nodes))
		close(labelsChecked)
	}()
	defer func() { <-labelsChecked }() // an early return waits for it too

	d = secs[2]
	cache := newBlockCache()
	var gors []*gor
	next := int32(0) // the goroutines' nodes follow each other
	for range d.Count("goroutines", 10) {
		g := &gor{file: d.Index("recording", len(files)), id: d.Uvarint("id"), spawn: d.Uvarint("spawn"), cache: cache}
		g.n = int32(d.Small("calls", 1<<31))
		g.first, g.end = int32(d.Small("first node", nodes+1)), int32(d.Small("end node", nodes+1))
		g.start = int32(d.Small("go statement's node", nodes+1)) - 1
		g.arena = d.Bytes(d.Count("arena bytes", 1))
		for range d.Count("chunks", 1) {
			g.data = append(g.data, d.Bytes(d.Count("chunk bytes", 1)))
		}
		nb := d.Count("blocks", 3)
		if d.Err == nil && int64(nb) != (int64(g.n)+packBlock-1)/packBlock {
			d.Fail("%d blocks for %d calls", nb, g.n)
		}
		for range nb {
			g.blocks = append(g.blocks, packedBlock{off: uint32(d.Small("block offset", 1<<32)), first: int32(d.Small("block's first node", nodes+1)), fns: d.Uvarint("functions")})
		}
		if d.Err != nil {
			break
		}
		if g.first != next || g.end < g.first {
			d.Fail("goroutine %d's nodes [%d, %d) do not follow node %d", len(gors), g.first, g.end, next)
			break
		}
		next = g.end
		if err := checkGor(t, g); err != nil {
			d.Fail("goroutine %d: %v", len(gors), err)
			break
		}
		gors = append(gors, g)
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	if next != int32(nodes) {
		return nil, fmt.Errorf("the goroutines hold %d nodes of the run's %d", next, nodes)
	}

	if <-labelsChecked; labelsErr != nil {
		return nil, fmt.Errorf("labels: %v", labelsErr)
	}

	o := &Compact{Problems: problems, t: t, gors: gors, files: files, nodes: int32(nodes), labels: lab}
	o.replayed = newReplayCache(o.t)
	o.cursor = &cursor{rc: o.replayed, t: o.t}
	return o, nil
}

// errStaleGraph is readGraph's error for a graph of other recordings.
var errStaleGraph = errors.New("built from other recordings")

// checkGor checks what the slicer relies on in g, read from a file: that
// every block decodes, and its calls nest as a call tree numbered in
// order does (preorder; a subtree's calls and nodes within its parent's;
// a block's first node its first call's; each path list in the arena),
// with functions of t.
func checkGor(t *funcTable, g *gor) error {
	var calls [packBlock]ccall
	// open are the calls whose subtrees hold the call being checked.
	type openCall struct{ c, next, first, end int32 }
	var open []openCall
	prevFirst := g.first
	for b := range int32(len(g.blocks)) {
		if !g.decode(b, &calls) {
			return fmt.Errorf("block %d does not decode", b)
		}
		var fns uint64
		for i := range min(packBlock, g.n-b*packBlock) {
			c, cc := b*packBlock+i, calls[i]
			fns |= fnBit(cc.fn)
			switch {
			case cc.fn < 0 || int(cc.fn) >= len(t.funcs):
				return fmt.Errorf("call %d: function %d of %d", c, cc.fn, len(t.funcs))
			case cc.next <= c || cc.next > g.n:
				return fmt.Errorf("call %d: its subtree ends at call %d", c, cc.next)
			case cc.first < prevFirst || cc.end < cc.first || cc.end > g.end:
				return fmt.Errorf("call %d: nodes [%d, %d) out of order", c, cc.first, cc.end)
			case cc.ret < -1 || cc.ret >= 0 && (cc.ret < cc.first || cc.ret >= cc.end):
				return fmt.Errorf("call %d: return node %d outside its nodes", c, cc.ret)
			case cc.shape < 0:
				return fmt.Errorf("call %d: shape %d", c, cc.shape)
			case i == 0 && cc.first != g.blocks[b].first:
				return fmt.Errorf("block %d: first node %d, its first call's %d", b, g.blocks[b].first, cc.first)
			case !pathListFits(g.arena, cc.paths):
				return fmt.Errorf("call %d: its paths are not in the arena", c)
			}
			for len(open) > 0 && open[len(open)-1].next <= c {
				open = open[:len(open)-1]
			}
			parent := int32(-1)
			if len(open) > 0 {
				p := open[len(open)-1]
				parent = p.c
				if cc.next > p.next || cc.first < p.first || cc.end > p.end {
					return fmt.Errorf("call %d: not within its parent's subtree", c)
				}
			}
			if cc.parent != parent {
				return fmt.Errorf("call %d: parent %d, its subtree's %d", c, cc.parent, parent)
			}
			open = append(open, openCall{c, cc.next, cc.first, cc.end})
			prevFirst = cc.first
		}
		if fns != g.blocks[b].fns {
			return fmt.Errorf("block %d: its functions' bits are not its calls'", b)
		}
	}
	if g.start < -1 {
		return fmt.Errorf("go statement's node %d", g.start)
	}
	return nil
}

// pathListFits reports whether a path list (a count, then that many
// path ids) lies in arena from off.
func pathListFits(arena []byte, off uint32) bool {
	if int64(off) >= int64(len(arena)) {
		return false
	}
	b := arena[off:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return false
	}
	b = b[k:]
	for range n {
		_, k := binary.Uvarint(b)
		if k <= 0 {
			return false
		}
		b = b[k:]
	}
	return true
}

// checkLabels checks labels read from a file: every block decodes, its
// readers increasing from its first, every node a node of the run.
func checkLabels(l *labels, nodes int32) error {
	readers, count := 0, 0
	last := int32(-1)
	for b := range l.blocks {
		if b > 0 && l.blocks[b].off < l.blocks[b-1].off {
			return fmt.Errorf("block %d before block %d", b, b-1)
		}
		if !l.decode(b) {
			return fmt.Errorf("block %d does not decode", b)
		}
		d := &l.dec
		if len(d.readers) == 0 || d.readers[0] != l.blocks[b].first {
			return fmt.Errorf("block %d: first reader is not the block's", b)
		}
		for _, r := range d.readers {
			if r <= last || r >= nodes {
				return fmt.Errorf("block %d: reader %d after %d, of %d nodes", b, r, last, nodes)
			}
			last = r
		}
		for _, w := range d.writers {
			if w < 0 || w >= nodes {
				return fmt.Errorf("block %d: writer %d of %d nodes", b, w, nodes)
			}
		}
		readers += len(d.readers)
		count += len(d.writers)
	}
	l.last = 0
	if readers != l.readers || count != l.count {
		return fmt.Errorf("%d readers and %d labels, the file says %d and %d", readers, count, l.readers, l.count)
	}
	return nil
}

// A GraphFile says what OpenCompact did with the directory's graph file.
type GraphFile struct {
	Path string
	// Read says that the graph was read from the file. Else it was
	// built: Outdated says that the file was built from other recordings
	// (or metadata) than the directory holds now, ReadErr why it could
	// not be read (nil if there was none), Wrote that the graph built was
	// written, WriteErr why it could not be (the slice goes on without).
	Read     bool
	Outdated bool
	ReadErr  error
	Wrote    bool
	WriteErr error
	Bytes    int64 // the file's, read or written
}

// OpenCompact returns the compact graph (OPT) of the recordings of a
// -deps build in dir: read from dir's graph file (profile.ddg) if a slice
// wrote it from the files dir holds now, or else built (LoadCompact) and
// written there, for the next slices of the same recording. A graph file
// that cannot be read is built again (GraphFile says why); one that
// cannot be written is only noted.
func OpenCompact(dir string) (*Compact, *GraphFile, error) {
	gf := &GraphFile{Path: profile.DerivedPath(dir, profile.KindDDG)}
	p := profile.New()
	readProblems, err := p.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	in, err := graphInputs(dir)
	if err != nil {
		return nil, nil, err
	}
	data, err := readGraphBytes(gf.Path) // its errors name the file
	var o *Compact
	if err == nil {
		if o, err = readGraph(data, dir, p, in); err != nil && !errors.Is(err, errStaleGraph) {
			err = fmt.Errorf("%s: %w", gf.Path, err)
		}
	}
	switch {
	case err == nil:
		gf.Read = true
		if info, err := os.Stat(gf.Path); err == nil {
			gf.Bytes = info.Size()
		}
		return o, gf, nil
	case errors.Is(err, errStaleGraph):
		gf.Outdated = true
	case !errors.Is(err, os.ErrNotExist):
		gf.ReadErr = err
	}
	l := &loader{dir: dir, p: p, keep: true, cache: newBlockCache()}
	for _, e := range readProblems {
		l.problems = append(l.problems, e.Error())
	}
	if o, err = loadCompact(l); err != nil {
		return nil, nil, err
	}
	gf.WriteErr = atomicfile.Write(gf.Path, 0o644, func(w io.Writer) error { return o.writeGraph(w, in) })
	if gf.WriteErr == nil {
		gf.Wrote = true
		if info, err := os.Stat(gf.Path); err == nil {
			gf.Bytes = info.Size()
		}
	}
	return o, gf, nil
}

// readGraphBytes reads graph file name whole, as every reader of the
// files pathcover writes opens them (profile.OpenFile).
func readGraphBytes(name string) ([]byte, error) {
	f, info, err := profile.OpenFile(name, "compact graph file", MaxGraphSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return profile.ReadWhole(f, "compact graph file", info.Size())
}

// ReadCompactFile reads the compact graph kept in file name (as
// OpenCompact keeps it) of the recordings of a -deps build in dir: an
// error if the file is not one, or was built from other files than dir
// holds now.
func ReadCompactFile(name, dir string) (*Compact, error) {
	data, err := readGraphBytes(name)
	if err != nil {
		return nil, err
	}
	p := profile.New()
	if _, err := p.ReadDir(dir); err != nil {
		return nil, err
	}
	in, err := graphInputs(dir)
	if err != nil {
		return nil, err
	}
	o, err := readGraph(data, dir, p, in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return o, nil
}
