package wpp

// A TWPP file, what `pathcover wpp compact` writes (profile.twpp by
// default), holds a TWPP. Every number is a uvarint (encoding/binary)
// unless said otherwise.
//
//	file     = magic "pcovtwpp" (8 bytes) version(=4) headerLen header headerSum data
//	header   = nPackages hash(16 bytes)^nPackages
//	           nFuncs { package index section calls } calls:section
//	           nProcs { nameLen name end }^nProcs
//	end      = flags limit errno                (how the process's recording ended, as
//	                                             its WPP header says: flags
//	                                             profile.WPPLimitReached, WPPWriteFailed
//	                                             and WPPEnded, the size limit, the errno
//	                                             of the write that failed)
//	headerSum= checksum of the file's bytes before it (4 bytes, little-endian)
//	section  = offset length rawLength sum      (offset from the start of data;
//	                                             sum: the checksum of its bytes as stored)
//	data     = funcSection* callsSection        (each stored, or deflated if that is smaller)
//
//	funcSection  = nTraces trace*               (one function's traces: one read)
//	trace        = calls nDBB { len path^len } form body
//	body         = form 0: n dbb^n              (the sequence of DBBs)
//	             | form 1: { nSeries { lo stride n }^nSeries }^nDBB
//	                                            (each DBB's timestamps)
//
//	callsSection = nTerms terminal^nTerms nRules rule^nRules
//	               nShared tree^nShared nProcs process^nProcs
//	terminal     = dAt<<2|kind payload          (kind 0 a call of shared node payload,
//	                                             1 spawn payload, 2 a path payload levels up;
//	             | dAt<<2|3                      3 a call of a private node: no payload)
//	rule         = len<<1 symbol^len            (a sequence of len ≥ 2 symbols)
//	             | n<<1|1 symbol                (one symbol repeated n ≥ 2 times)
//	symbol       = terminal<<1 | rule<<1|1      (a rule uses only rules before it)
//	tree         = trace<<1|open body tree^k    (a node, then the trees of its k private calls, in order)
//	body         = nSymbols symbol^nSymbols     (expanded: the node's items)
//	process      = pid start nPackages { number package }^nPackages
//	               nGoroutines goroutine^nGoroutines nTests test^nTests
//	                                            (its name and end are the header's
//	                                             nProcs entries, in the same order)
//	test         = goroutine nameLen name parentLen parent ended
//	                                            (a test that ran, as the WPP file's
//	                                             test chunks say: profile.WPPTest;
//	                                             version 3, which has none, is read too)
//	goroutine    = id parent spawn stopped body tree^k
//	                                            (body: its roots, as calls at dAt 0;
//	                                             then the trees of its k private roots)
//
// A checksum is CRC-32C (profile.Checksum). The reader checks the
// header's before it decodes the header, and a section's before it
// inflates or decodes the section: a corrupt file is an error naming the
// part, never another answer.
//
// The processes' names and ends are in the header so that every query,
// those that read one function's section too, can say which recordings
// cover only part of their run, and why (File.Cut).
//
// Packages are named once, by their metadata hash, in the header; a
// function, and a process's package numbers, refer to them by index.
// A section whose length is its rawLength is stored as it is; a shorter
// one is deflated (RFC 1951, compress/flate), and inflates to exactly
// rawLength bytes, at most maxInflate times its length: so one
// function's traces are still one read, and the reader allocates no more
// than a fixed multiple of what it read.
//
// The calls section is the dynamic call graph (dcg.go): a node's trace is
// numbered over all functions' traces, in order (function 0's first);
// terminals are items, dAt the paths of the node's trace completed since
// the item before; a node's body, expanded through the rules
// (grammar.go), is its items in order. A shared node (one referenced more
// than once) is numbered in the order of the shared trees, and calls
// only shared nodes before it; a private node's tree comes right after
// the node that calls it, so nodes are read in one pass. start is the
// process's start in Unix nanoseconds. The reader checks every index,
// count and position against the file, and never allocates more than the
// file's size justifies, except for what expands: the paths of traces in
// the timestamped form, up to maxTracePaths in all, and the items of
// bodies through rules, up to maxItems in all.

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"sync"

	"github.com/pathcover/pathcover/internal/atomicfile"
	"github.com/pathcover/pathcover/internal/wire"
	"github.com/pathcover/pathcover/profile"
)

const (
	magic   = "pcovtwpp"
	version = 4
	// noTests is the version before the processes listed their tests.
	noTests = 3
	// maxTracePaths bounds the paths of all traces a reader expands.
	maxTracePaths = 1 << 28
	// maxInflate bounds how much larger than its bytes in the file a
	// deflated section can be: DEFLATE codes at most 258 bytes in two
	// bits (RFC 1951), so 1032 times, and a few bytes more.
	maxInflate = 1032
)

// verifySums is false only in FuzzReadTWPP's second pass, which fuzzes
// the decoders behind the checksums.
var verifySums = true

// verifySum checks a part's checksum.
func verifySum(what string, b []byte, sum uint32) error {
	if !verifySums {
		return nil
	}
	return profile.VerifyChecksum(what, b, sum)
}

// Write writes t in the TWPP format. Its sections, the call graph's and
// each function's, are encoded and deflated in parallel, and written in
// order: the file is the same whatever the number of cores.
func (t *TWPP) Write(w io.Writer) error {
	type entry struct {
		off, len, raw int
		sum           uint32
		body          []byte // as stored: deflated if that is smaller
		err           error
	}
	traceBase := make([]int, len(t.Funcs))
	traces := 0
	for i, f := range t.Funcs {
		traceBase[i] = traces
		traces += len(f.Traces)
	}
	pkgs, pkgIndex, err := t.packageTable()
	if err != nil {
		return err
	}
	// Section 0 is the call graph's (the largest, so first), i+1
	// function i's.
	sections := make([]entry, 1+len(t.Funcs))
	encode := func(z *deflater, i int) {
		var raw []byte
		if i == 0 {
			raw, sections[0].err = t.encodeCalls(pkgIndex, traceBase)
			if sections[0].err != nil {
				return
			}
		} else {
			raw = encodeFunc(t.Funcs[i-1])
		}
		zb, err := z.deflate(raw)
		if err != nil {
			sections[i].err = err
			return
		}
		sections[i].raw, sections[i].body = len(raw), raw
		if len(zb) < len(raw) {
			sections[i].body = zb
		}
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(sections))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var z deflater
			for i := range next {
				encode(&z, i)
			}
		}()
	}
	for i := range sections {
		next <- i
	}
	close(next)
	wg.Wait()
	var data bytes.Buffer
	add := func(e *entry) error {
		if e.err != nil {
			return e.err
		}
		e.off = data.Len()
		data.Write(e.body)
		e.len = len(e.body)
		e.sum = profile.Checksum(e.body)
		e.body = nil
		return nil
	}
	funcs := sections[1:]
	for i := range funcs {
		if err := add(&funcs[i]); err != nil {
			return err
		}
	}
	calls := &sections[0]
	if err := add(calls); err != nil {
		return err
	}

	var h []byte
	h = binary.AppendUvarint(h, uint64(len(pkgs)))
	for _, hash := range pkgs {
		h = append(h, hash...)
	}
	h = binary.AppendUvarint(h, uint64(len(t.Funcs)))
	for i, f := range t.Funcs {
		h = binary.AppendUvarint(h, uint64(pkgIndex[f.Key.Hash]))
		h = binary.AppendUvarint(h, uint64(f.Key.Index))
		h = binary.AppendUvarint(h, uint64(funcs[i].off))
		h = binary.AppendUvarint(h, uint64(funcs[i].len))
		h = binary.AppendUvarint(h, uint64(funcs[i].raw))
		h = binary.AppendUvarint(h, uint64(funcs[i].sum))
		var calls uint64
		for _, tr := range f.Traces {
			calls = satAdd(calls, tr.Calls)
		}
		h = binary.AppendUvarint(h, calls)
	}
	h = binary.AppendUvarint(h, uint64(calls.off))
	h = binary.AppendUvarint(h, uint64(calls.len))
	h = binary.AppendUvarint(h, uint64(calls.raw))
	h = binary.AppendUvarint(h, uint64(calls.sum))
	h = binary.AppendUvarint(h, uint64(len(t.Processes)))
	for _, p := range t.Processes {
		h = binary.AppendUvarint(h, uint64(len(p.File)))
		h = append(h, p.File...)
		h = binary.AppendUvarint(h, p.Flags())
		h = binary.AppendUvarint(h, p.Limit)
		h = binary.AppendUvarint(h, uint64(p.WriteErrno))
	}

	out := []byte(magic)
	out = binary.AppendUvarint(out, version)
	out = binary.AppendUvarint(out, uint64(len(h)))
	out = append(out, h...)
	out = binary.LittleEndian.AppendUint32(out, profile.Checksum(out))
	if _, err := w.Write(out); err != nil {
		return err
	}
	_, err = w.Write(data.Bytes())
	return err
}

// A deflater compresses sections, one after another, at flate's default
// level: the best level took 0.51 s where the default takes 0.32 s to
// compact sort's tests (most of it writing), for files 0.4% smaller
// (math/big's suite: 0.8%, 3 s of its 20). Its writer is reused: a new
// one allocates about 1 MB, and regexp's suite has 128 sections, whose
// writers were a quarter of what compacting it allocated (and of the
// page faults that cost it a third of its time).
type deflater struct {
	w *flate.Writer
}

// deflate returns b compressed, in a new slice.
func (d *deflater) deflate(b []byte) ([]byte, error) {
	var z bytes.Buffer
	if d.w == nil {
		w, err := flate.NewWriter(&z, flate.DefaultCompression)
		if err != nil {
			return nil, err
		}
		d.w = w
	} else {
		d.w.Reset(&z)
	}
	d.w.Write(b)
	if err := d.w.Close(); err != nil {
		return nil, err
	}
	return z.Bytes(), nil
}

// packageTable returns the metadata hashes of the packages of t's
// functions and processes, sorted, as bytes, and each one's index.
func (t *TWPP) packageTable() ([][]byte, map[string]int, error) {
	set := make(map[string]bool)
	for _, f := range t.Funcs {
		set[f.Key.Hash] = true
	}
	for _, p := range t.Processes {
		for _, h := range p.Packages {
			set[h] = true
		}
	}
	var pkgs [][]byte
	index := make(map[string]int)
	for _, h := range slices.Sorted(maps.Keys(set)) {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 16 {
			return nil, nil, fmt.Errorf("bad metadata hash %q", h)
		}
		index[h] = len(pkgs)
		pkgs = append(pkgs, b)
	}
	return pkgs, index, nil
}

func encodeFunc(f *Func) []byte {
	var e traceEncoder
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(f.Traces)))
	for _, tr := range f.Traces {
		b = binary.AppendUvarint(b, tr.Calls)
		if tr.enc != nil {
			b = append(b, tr.enc...)
		} else {
			b = e.appendTrace(b, tr.Paths)
		}
	}
	return b
}

// appendTrace appends a trace's paths as the file holds them: its DBBs,
// then the trace in the smaller of the two forms (the sequence if they
// are equal).
func (e *traceEncoder) appendTrace(b []byte, paths []uint64) []byte {
	dict, seq := e.dbbs(paths)
	b = binary.AppendUvarint(b, uint64(len(dict)))
	for _, d := range dict {
		b = binary.AppendUvarint(b, uint64(len(d)))
		for _, p := range d {
			b = binary.AppendUvarint(b, p)
		}
	}
	if ss, ok := e.timestamps(seq, len(dict), sequenceLen(seq)); ok {
		return appendTimestamps(b, ss)
	}
	return appendSequence(b, seq)
}

// A backgroundEncoder encodes traces (Trace.enc) while Compact goes on
// compacting: encoding the traces takes about as long as compacting
// them, and a long stream's segments (segment.go) are still each one
// core's.
type backgroundEncoder struct {
	batches chan []*Trace
	batch   []*Trace
	paths   int // in batch
	done    chan struct{}
}

func newBackgroundEncoder() *backgroundEncoder {
	be := &backgroundEncoder{batches: make(chan []*Trace, 4), done: make(chan struct{})}
	go func() {
		defer close(be.done)
		var e traceEncoder
		for batch := range be.batches {
			for _, tr := range batch {
				tr.enc = e.appendTrace(nil, tr.Paths)
			}
		}
	}()
	return be
}

// add encodes tr, some time before wait returns. tr.Paths must not
// change after.
func (be *backgroundEncoder) add(tr *Trace) {
	be.batch = append(be.batch, tr)
	if be.paths += len(tr.Paths); be.paths >= 1<<16 {
		be.batches <- be.batch
		be.batch, be.paths = nil, 0
	}
}

// wait encodes the last batch and waits for every trace added to be
// encoded.
func (be *backgroundEncoder) wait() {
	if len(be.batch) > 0 {
		be.batches <- be.batch
		be.batch = nil
	}
	close(be.batches)
	<-be.done
}

func boolUint(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// WriteFile writes t to name whole or not at all, never through a link
// at name (atomicfile).
func (t *TWPP) WriteFile(name string) error {
	return atomicfile.Write(name, 0o644, t.Write)
}

// A fileFunc is a function's entry in the header.
type fileFunc struct {
	key   FuncKey
	sec   section
	calls uint64
}

// A section is where a part of the file lies in its data, and its size
// once inflated (equal to len if it is stored as it is).
type section struct {
	off, len, raw int
	sum           uint32 // of its bytes as stored
}

// A File is a TWPP file opened for queries: its header read, each
// function's section read when asked for (ReadFunc), or the whole TWPP
// (ReadAll).
type File struct {
	r       io.ReaderAt
	dataOff int64
	size    int64
	pkgs    []string // metadata hashes, by index
	funcs   []fileFunc
	byKey   map[FuncKey]int
	calls   section
	procs   []fileProcess
	closer  io.Closer
	tests   bool // its processes list their tests (version 4)
}

// MaxFileSize is the largest TWPP file read: compaction makes a TWPP a
// fraction of the recordings it came from (each at most 1 GiB unless
// PATHCOVERWPPMAX says otherwise).
const MaxFileSize = 16 << 30

// A fileProcess is a process's entry in the header.
type fileProcess struct {
	name string
	end  ProcessEnd
}

// Cut says, for each process whose recording covers only part of its
// run, which and why (TWPP.Cut), from the header alone.
func (f *File) Cut() []string {
	var why []string
	for _, p := range f.procs {
		why = append(why, CutNotes(p.name, p.end)...)
	}
	return why
}

// Open opens a TWPP file and reads its header.
func Open(name string) (*File, error) {
	f, st, err := profile.OpenFile(name, "TWPP file", MaxFileSize)
	if err != nil {
		return nil, err
	}
	err = profile.RefuseHoles(f, "TWPP file", st.Size())
	var tf *File
	if err == nil {
		tf, err = NewFile(f, st.Size())
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	tf.closer = f
	return tf, nil
}

// Close closes the file.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// NewFile reads the header of a TWPP file of size bytes read through r.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	var head [8 + 2*binary.MaxVarintLen64]byte
	n, err := r.ReadAt(head[:min(int64(len(head)), size)], 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if n < 8 || string(head[:8]) != magic {
		return nil, errors.New("not a TWPP file")
	}
	d := &wire.Decoder{B: head[8:n], Off: 8, What: "header"}
	v := d.Uvarint("")
	if d.Err == nil && v != version && v != noTests {
		return nil, fmt.Errorf("TWPP format version %d, not %d: written by another version of pathcover", v, version)
	}
	hlen := d.Uvarint("")
	if d.Err != nil {
		return nil, d.Err
	}
	start := int64(8 + d.Pos)
	if hlen > uint64(size-start) || size-start-int64(hlen) < 4 {
		return nil, fmt.Errorf("header of %d bytes past the end of the file", hlen)
	}
	// The header and its checksum, read with what comes before them.
	whole := make([]byte, start+int64(hlen)+4)
	if _, err := r.ReadAt(whole, 0); err != nil {
		return nil, err
	}
	hb := whole[start : start+int64(hlen)]
	if err := verifySum("header", whole[:len(whole)-4], binary.LittleEndian.Uint32(whole[len(whole)-4:])); err != nil {
		return nil, err
	}
	f := &File{r: r, dataOff: int64(len(whole)), size: size, byKey: make(map[FuncKey]int), tests: v == version}
	dataLen := size - f.dataOff
	d = &wire.Decoder{B: hb, Off: int(start), What: "header"}
	np := d.Count("elements", 16)
	for range np {
		f.pkgs = append(f.pkgs, hex.EncodeToString(d.Bytes(16)))
	}
	nf := d.Count("elements", 6)
	sec := func(what string) section {
		off, n, raw, sum := d.Uvarint(""), d.Uvarint(""), d.Uvarint(""), d.Uvarint("")
		switch {
		case d.Err != nil:
		case sum > 1<<32-1:
			d.Fail("%s's checksum %#x", what, sum)
		case off > uint64(dataLen) || n > uint64(dataLen)-off:
			d.Fail("%s [%d,+%d) past the end of the data (%d bytes)", what, off, n, dataLen)
		case raw < n || raw > n*maxInflate+64:
			d.Fail("%s of %d bytes inflating to %d", what, n, raw)
		}
		return section{int(off), int(n), int(raw), uint32(sum)}
	}
	for range nf {
		pkg := d.Index("package", len(f.pkgs))
		idx := d.Uvarint("")
		if d.Err == nil && idx > 1<<32-1 {
			d.Fail("function index %d", idx)
		}
		s := sec("function section")
		calls := d.Uvarint("")
		if d.Err != nil {
			break
		}
		k := FuncKey{f.pkgs[pkg], uint32(idx)}
		if _, dup := f.byKey[k]; dup {
			d.Fail("function %s twice", k)
			break
		}
		f.byKey[k] = len(f.funcs)
		f.funcs = append(f.funcs, fileFunc{k, s, calls})
	}
	f.calls = sec("calls")
	nproc := d.Count("elements", 4)
	for range nproc {
		name := string(d.Bytes(d.Count("elements", 1)))
		flags, limit, errno := d.Uvarint(""), d.Uvarint(""), d.Uvarint("")
		if d.Err != nil {
			break
		}
		end, err := DecodeEnd(flags, limit, errno)
		if err != nil {
			d.Fail("process %q: %v", name, err)
			break
		}
		f.procs = append(f.procs, fileProcess{name, end})
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) read(s section, what string) (*wire.Decoder, error) {
	b := make([]byte, s.len)
	if _, err := f.r.ReadAt(b, f.dataOff+int64(s.off)); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	if err := verifySum(fmt.Sprintf("%s (data bytes %d to %d)", what, s.off, s.off+s.len), b, s.sum); err != nil {
		return nil, err
	}
	if s.raw == s.len {
		return &wire.Decoder{B: b, Off: int(f.dataOff) + s.off, What: what}, nil
	}
	// Deflated: what allocates is the size the header gave, which it
	// checked against the section's bytes.
	raw := make([]byte, s.raw)
	zr := flate.NewReader(bytes.NewReader(b))
	_, err := io.ReadFull(zr, raw)
	if err == nil {
		var one [1]byte
		if n, _ := zr.Read(one[:]); n != 0 {
			err = errors.New("longer than the header says")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: inflating: %v", what, err)
	}
	return &wire.Decoder{B: raw, What: what + " (inflated)"}, nil
}

// Sizes returns the bytes of the file's parts as stored: its header
// (with the magic and version), its functions' sections, and its calls
// section.
func (f *File) Sizes() (header, traces, calls int64) {
	for _, ff := range f.funcs {
		traces += int64(ff.sec.len)
	}
	return f.dataOff, traces, int64(f.calls.len)
}

// Funcs returns the functions of the file, with how many calls each made.
func (f *File) Funcs() []FuncKey {
	keys := make([]FuncKey, len(f.funcs))
	for i, ff := range f.funcs {
		keys[i] = ff.key
	}
	return keys
}

// ReadFunc reads one function's traces: one read of its section.
func (f *File) ReadFunc(k FuncKey) (*Func, error) {
	i, ok := f.byKey[k]
	if !ok {
		return nil, fmt.Errorf("function %s did not run", k)
	}
	ff := f.funcs[i]
	d, err := f.read(ff.sec, "function "+k.String())
	if err != nil {
		return nil, err
	}
	budget := maxTracePaths
	fn := decodeFunc(d, k, &budget)
	if err := d.End(); err != nil {
		return nil, err
	}
	return fn, nil
}

func decodeFunc(d *wire.Decoder, k FuncKey, budget *int) *Func {
	fn := &Func{Key: k}
	seen := make(map[uint64][]int32) // traces by tracesHash, to refuse one twice
	nt := d.Count("elements", 3)
	for range nt {
		tr := &Trace{Calls: d.Uvarint("")}
		nd := d.Count("elements", 2)
		if d.Err == nil && nd > 1<<31-1 {
			d.Fail("%d dynamic basic blocks", nd)
		}
		dict := make([][]uint64, nd)
		for i := range dict {
			l := d.Count("elements", 1)
			if d.Err == nil && l == 0 {
				d.Fail("an empty dynamic basic block")
			}
			dict[i] = make([]uint64, l)
			for j := range dict[i] {
				dict[i][j] = d.Uvarint("")
			}
		}
		var seq []int32
		switch form := d.Uvarint(""); form {
		case 0:
			seq = make([]int32, d.Count("elements", 1))
			for i := range seq {
				seq[i] = int32(d.Index("dynamic basic block", nd))
			}
		case 1:
			spans, n := timestampSpans(d, nd, *budget)
			if d.Err != nil {
				return nil
			}
			if !slices.ContainsFunc(dict, func(b []uint64) bool { return len(b) != 1 }) {
				// Each DBB one path (fastjson's suite: 50 M paths
				// so): the paths themselves placed, not their DBBs
				// and then their paths, each a pass over them all.
				firsts := make([]uint64, nd)
				for i, b := range dict {
					firsts[i] = b[0]
				}
				if n > 0 {
					tr.Paths = placeTimestamps(d, spans, n, firsts)
				}
				*budget -= n
				break
			}
			ids := make([]int32, nd)
			for i := range ids {
				ids[i] = int32(i)
			}
			seq = placeTimestamps(d, spans, n, ids)
		default:
			d.Fail("trace form %d", form)
		}
		if d.Err != nil {
			return nil
		}
		total := 0
		for _, s := range seq {
			if len(dict[s]) > *budget-total {
				d.Fail("traces longer than %d paths", maxTracePaths)
				return nil
			}
			total += len(dict[s])
		}
		*budget -= total
		if total > 0 {
			tr.Paths = make([]uint64, 0, total)
		}
		for _, s := range seq {
			if b := dict[s]; len(b) == 1 {
				tr.Paths = append(tr.Paths, b[0])
			} else {
				tr.Paths = append(tr.Paths, b...)
			}
		}
		h := pathsHash(tr.Paths)
		for _, other := range seen[h] {
			if slices.Equal(fn.Traces[other].Paths, tr.Paths) {
				d.Fail("a trace twice")
				return nil
			}
		}
		seen[h] = append(seen[h], int32(len(fn.Traces)))
		fn.Traces = append(fn.Traces, tr)
	}
	return fn
}

// A tsSpan is a series of DBB d's timestamps.
type tsSpan struct {
	s series
	d int
}

// timestampSpans reads the timestamped form of a trace of nd DBBs: its
// series, and L, the positions they must cover once each (at most
// budget; placeTimestamps checks them).
func timestampSpans(d *wire.Decoder, nd int, budget int) ([]tsSpan, int) {
	var spans []tsSpan
	var total uint64
	for i := range nd {
		ns := d.Count("elements", 3)
		for range ns {
			s := series{d.Uvarint(""), d.Uvarint(""), d.Uvarint("")}
			if d.Err != nil {
				return nil, 0
			}
			if s.n == 0 || (s.n > 1 && s.stride == 0) || s.n > uint64(budget) || (s.n > 1 && s.stride > uint64(budget)) || s.lo > uint64(budget) {
				d.Fail("series %d:%d:%d", s.lo, s.stride, s.n)
				return nil, 0
			}
			total += s.n
			if total > uint64(budget) {
				d.Fail("a trace longer than %d paths", budget)
				return nil, 0
			}
			spans = append(spans, tsSpan{s, i})
		}
	}
	return spans, int(total)
}

// placeTimestamps returns the sequence of n positions in which spans
// place their DBBs' values (vals: a DBB's number, or its one path), and
// fails unless they place each position once.
func placeTimestamps[T int32 | uint64](d *wire.Decoder, spans []tsSpan, n int, vals []T) []T {
	out := make([]T, n)
	placed := make([]uint64, (n+63)/64) // a bit a position
	for _, sp := range spans {
		v := vals[sp.d]
		t := sp.s.lo
		for range sp.s.n {
			if t >= uint64(n) || placed[t/64]&(1<<(t%64)) != 0 {
				d.Fail("timestamp %d out of the trace or given twice", t)
				return nil
			}
			placed[t/64] |= 1 << (t % 64)
			out[t] = v
			t += sp.s.stride
		}
	}
	return out
}

// ReadAll reads the whole TWPP.
func (f *File) ReadAll() (*TWPP, error) {
	t := &TWPP{}
	budget := maxTracePaths
	for _, ff := range f.funcs {
		d, err := f.read(ff.sec, "function "+ff.key.String())
		if err != nil {
			return nil, err
		}
		fn := decodeFunc(d, ff.key, &budget)
		if err := d.End(); err != nil {
			return nil, err
		}
		t.Funcs = append(t.Funcs, fn)
	}
	d, err := f.read(f.calls, "calls")
	if err != nil {
		return nil, err
	}
	t.decodeCalls(d, f.pkgs, f.procs, f.tests)
	if err := d.End(); err != nil {
		return nil, err
	}
	t.funcIndex = make(map[FuncKey]int, len(t.Funcs))
	for i, f := range t.Funcs {
		t.funcIndex[f.Key] = i
	}
	return t, nil
}
