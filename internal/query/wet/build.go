package wet

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/pathcover/pathcover/internal/query/wet/bidi"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/profile"
)

// A WET is a whole execution trace (doc.go).
type WET struct {
	// Processes are the recordings it was built from, one a process.
	Processes  []Process
	Funcs      []Func
	Nodes      []Node
	Goroutines []Goroutine
	// ValueGroups hold the values; Values name each site's place in them,
	// in the order of the groups and their members.
	ValueGroups []ValueGroup
	Values      []ValueLabel
	Accesses    []AccessLabel
	// Stats are its sizes, from Build.
	Stats Stats
}

// A Process is one process's recording: its WPP file's name, and how
// the recording ended.
type Process struct {
	File string
	End  wpp.ProcessEnd
	// Tests are the tests that ran, each with its goroutine (recorded
	// with -tests: pathcover test).
	Tests []profile.WPPTest
}

// Cut says, for each process whose recording covers only part of its
// run, which and why (wpp.TWPP.Cut); nil if every recording is whole.
func (w *WET) Cut() []string {
	var why []string
	for _, p := range w.Processes {
		why = append(why, wpp.CutNotes(p.File, p.End)...)
	}
	return why
}

// A Func is a function that ran: its package's metadata hash and its
// index there, its package path and name (empty where the profile lacks
// its metadata).
type Func struct {
	Hash          string
	Index         uint32
	Package, Name string
}

// A Node is a Ball-Larus path of a function that ran, labelled with the
// timestamps of its executions, increasing.
type Node struct {
	Func  int
	Path  uint64
	Times *bidi.Stream
}

// A Goroutine is one goroutine of one process: its id and the goroutine
// and spawn that started it (profile.WPPStart), the timestamps its paths
// took, [Start, End), and its trace (Symbol).
type Goroutine struct {
	Process           int
	ID, Parent, Spawn uint64
	Start, End        uint64
	Trace             *bidi.Stream
	Stopped           bool // recording stopped in it (its Process's End says why)
}

// A ValueLabel is one value site of a function (profile.DepValue: Site
// indexes its Deps.Values), whose values, each with the timestamp of the
// path execution it was recorded in, are member Member of value group
// Group (ValuesOf reads them).
type ValueLabel struct {
	Func          int
	Site          uint32
	Group, Member int
}

// AccessOrphan is a flag of an access (besides profile.WPPStackAddr and
// WPPStackSrc): it was made after its call's last completed path (the call
// panicked, or was still open when the recording ended), so its timestamp
// is not a path of its call's, but the goroutine's next (or its end).
const AccessOrphan = 4

// An AccessLabel is one statement's accesses of one kind: per access, the
// timestamp of the path execution it was made in, its number in the
// process's order of accesses (Seq), the bytes it touched (Addr, Size, and
// Src for a copy) and its flags (profile.WPPStackAddr, WPPStackSrc). A map
// access (profile.WPPMapRead, WPPMapWrite) has the map in Addr and in Size
// its key's number among the map's keys, from 1 (where the recording has
// the key's hash: see builder.keyNumber).
//
// A field whose every entry is the same (a statement's accesses have one
// size, most have no source and the same flags) has no stream: its value
// is in Constant. A stream spends its header and some bits a run of
// entries at least; a constant, nothing.
//
// The timestamps are a stream (Times), or, where it is smaller, said by
// the executions of the label's statement (Execs): most statements make
// one access of a kind each time they run, so an access's timestamp is
// the next execution's, which the nodes' labels hold already.
type AccessLabel struct {
	Func                        int
	Stmt                        uint32
	Access                      profile.WPPAccess
	Times, Seq, Addr, Size, Src *bidi.Stream
	Flags                       *bidi.Stream
	// Constant holds the value of each of Seq, Addr, Size, Src and Flags
	// (in that order) whose stream is nil.
	Constant [5]uint64
	// Execs, when Times is nil, gives the timestamps.
	Execs *Execs
}

// Execs are an access label's timestamps as executions of its statement:
// the statement runs at the timestamps of Nodes (the nodes whose paths
// hold it), merged in order; access i is at the execution whose index is
// the sum of the first i+1 Skips (zigzag-coded differences, the first
// from 0), a stream, or SkipConstant repeated if Skips is nil. N is the
// number of accesses.
type Execs struct {
	N            int
	Nodes        []int
	Skips        *bidi.Stream
	SkipConstant uint64
}

// count returns the label's number of accesses.
func (a *AccessLabel) count() int {
	if a.Execs != nil {
		return a.Execs.N
	}
	return a.Times.Len()
}

// fields returns the label's fields after Times, in the order of
// Constant.
func (a *AccessLabel) fields() [5]**bidi.Stream {
	return [5]**bidi.Stream{&a.Seq, &a.Addr, &a.Size, &a.Src, &a.Flags}
}

// fieldValues returns field k's entries (in the order of Constant).
func (a *AccessLabel) fieldValues(k int) []uint64 {
	if s := *a.fields()[k]; s != nil {
		return s.Values()
	}
	out := make([]uint64, a.count())
	for i := range out {
		out[i] = a.Constant[k]
	}
	return out
}

// Stats are a WET's sizes: the recording's bytes (its records), the words
// of the first tier's labels (8 bytes each), the bytes of the second
// tier's streams, and what the run executed.
type Stats struct {
	RecordBytes  int64
	Tier1Words   int64
	Tier2Bytes   int64
	ValueBytes   int64 // of Tier2Bytes, the values' streams (words and patterns)
	Paths        int64 // path executions (timestamps)
	Statements   int64 // statement executions, where the metadata says
	ValueRecords int64
	Accesses     int64
	// SiteValueBytes is what the value sites' streams would take in the
	// second tier without value groups: each site its own timestamps and
	// words. GroupedValueBytes is what they take with them: the groups'
	// timestamps, patterns and words.
	SiteValueBytes    int64
	GroupedValueBytes int64
}

// The symbols of a goroutine's trace: the kind in the low 3 bits.
const (
	SymPath   = iota // a path: the node's index << 3
	SymEnter         // a call: the function's index << 3
	SymReturn        // the current call returned
	SymSpawn         // the current call started a goroutine: the spawn id << 3
	SymUp            // the path after it is of the call k << 3 levels below
	SymStop          // recording stopped (the Process's End says why)
)

// Build builds the WET of recordings, naming functions from profile p
// (which may be nil), and compresses its labels (Options for bidi).
func Build(p *profile.Profile, sources []wpp.Source, opt *bidi.Options) (*WET, error) {
	b := &builder{p: p, w: &WET{}, funcs: make(map[funcKey]int), nodes: make(map[nodeKey]int),
		values: make(map[siteKey]int), accesses: make(map[accessKey]int)}
	for pi, s := range sources {
		p := Process{File: filepath.Base(s.Name()), End: wpp.EndOf(s.Header())}
		if ts, ok := s.(wpp.TestSource); ok {
			p.Tests = slices.Clone(ts.TestRuns())
		}
		b.w.Processes = append(b.w.Processes, p)
		for _, g := range s.Goroutines() {
			if err := b.goroutine(pi, s, g); err != nil {
				return nil, fmt.Errorf("%s, goroutine %d: %v", s.Name(), g, err)
			}
		}
	}
	if err := b.countStatements(); err != nil {
		return nil, err
	}
	b.compress(opt)
	return b.w, nil
}

type funcKey struct {
	hash  string
	index uint32
}

type nodeKey struct {
	fn   int
	path uint64
}

type siteKey struct {
	fn   int
	site uint32
}

type accessKey struct {
	fn   int
	stmt uint32
	kind profile.WPPAccess
}

// builder holds the first tier: every label uncompressed.
type builder struct {
	p        *profile.Profile
	w        *WET
	funcs    map[funcKey]int
	nodes    map[nodeKey]int
	values   map[siteKey]int
	accesses map[accessKey]int
	t        uint64 // the next timestamp
	// the labels' words, by index in w's slices
	nodeTimes [][]uint64
	traces    [][]uint64
	valTimes  [][]uint64
	valWords  [][][]uint64
	acc       []*accessWords
	tails     map[int]map[int32]bool // by node: the statements after its count
	// stmtNodes are, by function and statement, the nodes whose paths run
	// it (countStatements).
	stmtNodes map[[2]int][]int
	// keys number each map's keys (keyNumber), and mapKeys count them.
	keys    map[mapKey]uint64
	mapKeys map[mapKey]uint64
}

// A mapKey is a key's hash in a map of a process (hash 0 for the map).
type mapKey struct {
	process int
	m, hash uint64
}

// keyNumber returns the number of the key of hash hash in map m of process
// p: its keys are numbered from 1 in the order the builder meets them. A
// map access's Size is that number, not the hash the recording has. The
// hash is of the process's random seed, and tells only which accesses
// touch the same key, as the number does, in a few bits where a hash
// takes 64.
func (b *builder) keyNumber(p int, m, hash uint64) uint64 {
	if b.keys == nil {
		b.keys, b.mapKeys = make(map[mapKey]uint64), make(map[mapKey]uint64)
	}
	k := mapKey{p, m, hash}
	if n, ok := b.keys[k]; ok {
		return n
	}
	mk := mapKey{process: p, m: m}
	b.mapKeys[mk]++
	b.keys[k] = b.mapKeys[mk]
	return b.keys[k]
}

type accessWords struct{ times, seq, addr, size, src, flags []uint64 }

// A frame is a call open in a goroutine: its function, its last path
// (node -1 before the first) and that path's timestamp, and the labels'
// entries made since, which belong to the last path or to the next one
// (stamp).
type frame struct {
	fn       int
	lastNode int
	lastT    uint64
	pending  []pending
}

// A pending entry is the i-th entry of a value site's label (access
// false) or of an access label (by index, since the labels grow), made by
// statement stmt.
type pending struct {
	access   bool
	label, i int
	stmt     int32
}

// orphan marks entry p as made after its call's last completed path (a
// panic, or a call still open at the end): an access keeps its entry,
// flagged AccessOrphan; a value is dropped, as one cut short is.
func (b *builder) orphan(p pending) {
	if p.access {
		b.acc[p.label].flags[p.i] |= AccessOrphan
		return
	}
	b.valTimes[p.label][p.i] = orphanTime
}

// orphanTime marks a value to drop.
const orphanTime = ^uint64(0)

// times returns the timestamps of the label p is an entry of.
func (b *builder) times(p pending) []uint64 {
	if p.access {
		return b.acc[p.label].times
	}
	return b.valTimes[p.label]
}

func (b *builder) fn(hash string, index uint32) int {
	k := funcKey{hash, index}
	if i, ok := b.funcs[k]; ok {
		return i
	}
	f := Func{Hash: hash, Index: index}
	if b.p != nil {
		if m := b.p.Metas[hash]; m != nil && int(index) < len(m.Funcs) {
			f.Package, f.Name = profile.PackagePath(m.Package), m.Funcs[index].Name
		}
	}
	b.w.Funcs = append(b.w.Funcs, f)
	b.funcs[k] = len(b.w.Funcs) - 1
	return len(b.w.Funcs) - 1
}

// goroutine adds goroutine g of process pi's recording s.
func (b *builder) goroutine(pi int, s wpp.Source, g uint64) error {
	gr := Goroutine{Process: pi, ID: g, Start: b.t}
	var trace []uint64
	var seq uint64
	// stamp gives the entries made since f's last path their path
	// execution, when f completes its next one (node, at t) or returns (node
	// -1, t the goroutine's next timestamp). A path's record is made where
	// its path is counted, and the statements after that point on the path
	// (its tail) run after the record: the first entries, while their
	// statements are the last path's tail, are the last path's
	// (profile.InTail); the rest the next one's.
	stamp := func(f *frame, node int, t uint64) {
		i := 0
		if f.lastNode >= 0 {
			i = profile.InTail(b.tail(f.lastNode), len(f.pending), func(i int) int32 { return f.pending[i].stmt })
			for _, p := range f.pending[:i] {
				b.times(p)[p.i] = f.lastT
			}
		}
		for _, p := range f.pending[i:] {
			b.times(p)[p.i] = t
			if node < 0 {
				b.orphan(p)
			}
		}
		f.pending = f.pending[:0]
		if node >= 0 {
			f.lastNode, f.lastT = node, t
		}
	}
	var record []byte
	enter := func(hash string, fn uint32, _ *frame, _ bool) (*frame, error) {
		return &frame{fn: b.fn(hash, fn), lastNode: -1}, nil
	}
	stack, err := wpp.Walk(s, g, enter, func(st *wpp.Step[*frame]) error {
		e := st.WPPEvent
		record = profile.AppendWPPEvent(record[:0], *e)
		b.w.Stats.RecordBytes += int64(len(record))
		switch e.Kind {
		case profile.WPPStart:
			gr.Parent, gr.Spawn = e.Parent, e.Spawn
		case profile.WPPEnter:
			trace = append(trace, uint64(st.Call.fn)<<3|SymEnter)
		case profile.WPPPath:
			f := st.Call
			k := nodeKey{f.fn, e.Path}
			n, ok := b.nodes[k]
			if !ok {
				n = len(b.w.Nodes)
				b.nodes[k] = n
				b.w.Nodes = append(b.w.Nodes, Node{Func: f.fn, Path: e.Path})
				b.nodeTimes = append(b.nodeTimes, nil)
			}
			if e.Up > 0 {
				trace = append(trace, uint64(e.Up)<<3|SymUp)
			}
			trace = append(trace, uint64(n)<<3) // SymPath is 0
			b.nodeTimes[n] = append(b.nodeTimes[n], b.t)
			stamp(f, n, b.t)
			b.t++
		case profile.WPPReturn:
			// What the call recorded after its last path's tail belongs
			// to a path that did not complete (it panicked): it takes the
			// goroutine's next timestamp.
			stamp(st.Call, -1, b.t)
			trace = append(trace, SymReturn)
		case profile.WPPSpawn:
			trace = append(trace, e.Spawn<<3|SymSpawn)
		case profile.WPPStop:
			gr.Stopped = true
			trace = append(trace, SymStop)
		case profile.WPPValue:
			top := st.Call // Up levels below: a range-over-func body's caller
			k := siteKey{top.fn, e.Site}
			v, ok := b.values[k]
			if !ok {
				v = len(b.w.Values)
				b.values[k] = v
				b.w.Values = append(b.w.Values, ValueLabel{Func: top.fn, Site: e.Site})
				b.valTimes = append(b.valTimes, nil)
				b.valWords = append(b.valWords, nil)
			}
			words := b.valWords[v]
			if int(e.Part) > len(words) {
				return fmt.Errorf("word %d of a value at site %d before word %d", e.Part, e.Site, len(words))
			}
			if e.Part > 0 && (len(b.valTimes[v]) == 0 || len(words[e.Part-1]) != len(b.valTimes[v])) {
				// Its word before belongs to a value dropped, or to none.
				return fmt.Errorf("word %d of a value at site %d without its word %d", e.Part, e.Site, e.Part-1)
			}
			if e.Part == 0 {
				top.pending = append(top.pending, pending{label: v, i: len(b.valTimes[v]), stmt: b.siteStmt(top.fn, e.Site)})
				b.valTimes[v] = append(b.valTimes[v], 0)
			}
			if int(e.Part) == len(words) {
				b.valWords[v] = append(words, make([]uint64, len(b.valTimes[v])-1))
			}
			w := &b.valWords[v][e.Part]
			if len(*w) != len(b.valTimes[v])-1 {
				return fmt.Errorf("value site %d: word %d out of turn", e.Site, e.Part)
			}
			*w = append(*w, e.Value)
		case profile.WPPMemory:
			top := st.Call // Up levels below: a range-over-func body's caller
			seq += e.Seq
			k := accessKey{top.fn, e.Stmt, e.Access}
			a, ok := b.accesses[k]
			if !ok {
				a = len(b.w.Accesses)
				b.accesses[k] = a
				b.w.Accesses = append(b.w.Accesses, AccessLabel{Func: top.fn, Stmt: e.Stmt, Access: e.Access})
				b.acc = append(b.acc, &accessWords{})
			}
			aw := b.acc[a]
			top.pending = append(top.pending, pending{access: true, label: a, i: len(aw.times), stmt: int32(e.Stmt)})
			aw.times = append(aw.times, 0)
			aw.seq = append(aw.seq, seq)
			aw.addr = append(aw.addr, e.Addr)
			size := e.Size
			if e.Access == profile.WPPMapRead || e.Access == profile.WPPMapWrite {
				size = b.keyNumber(pi, e.Addr, e.Size)
			}
			aw.size = append(aw.size, size)
			aw.src = append(aw.src, e.Src)
			aw.flags = append(aw.flags, uint64(e.Flags))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, f := range stack {
		stamp(f, -1, b.t) // calls still open at the end: their last paths did not complete
	}
	// A value whose later words never came (a kill) is dropped.
	for v := range b.valWords {
		n := len(b.valTimes[v])
		for _, w := range b.valWords[v] {
			n = min(n, len(w))
		}
		b.valTimes[v] = b.valTimes[v][:n]
		for i := range b.valWords[v] {
			b.valWords[v][i] = b.valWords[v][i][:n]
		}
		// And so is one made after its call's last completed path.
		if !slices.Contains(b.valTimes[v], orphanTime) {
			continue
		}
		keep := 0
		for j, t := range b.valTimes[v] {
			if t == orphanTime {
				continue
			}
			b.valTimes[v][keep] = t
			for i := range b.valWords[v] {
				b.valWords[v][i][keep] = b.valWords[v][i][j]
			}
			keep++
		}
		b.valTimes[v] = b.valTimes[v][:keep]
		for i := range b.valWords[v] {
			b.valWords[v][i] = b.valWords[v][i][:keep]
		}
	}
	gr.End = b.t
	b.w.Goroutines = append(b.w.Goroutines, gr)
	b.traces = append(b.traces, trace)
	return nil
}

// meta returns the metadata of function fn, or nil.
func (b *builder) meta(fn int) *profile.Func {
	f := b.w.Funcs[fn]
	if b.p == nil {
		return nil
	}
	m := b.p.Metas[f.Hash]
	if m == nil || int(f.Index) >= len(m.Funcs) {
		return nil
	}
	return &m.Funcs[f.Index]
}

// siteStmt returns the statement of value site site of function fn, or -1
// if the metadata does not say.
func (b *builder) siteStmt(fn int, site uint32) int32 {
	if mf := b.meta(fn); mf != nil && mf.Deps != nil && int(site) < len(mf.Deps.Values) {
		return mf.Deps.Values[site].Stmt
	}
	return -1
}

// tail returns the statements of node n's path that run after its count
// (profile.Func.Tail), none if the metadata does not say.
func (b *builder) tail(n int) map[int32]bool {
	if t, ok := b.tails[n]; ok {
		return t
	}
	if b.tails == nil {
		b.tails = make(map[int]map[int32]bool)
	}
	var t map[int32]bool
	if mf := b.meta(b.w.Nodes[n].Func); mf != nil {
		t, _ = mf.Tail(b.w.Nodes[n].Path)
	}
	b.tails[n] = t
	return t
}

// countStatements counts the statement executions of the run: per node,
// the statements of its path's blocks (where the metadata describes them)
// times its executions.
func (b *builder) countStatements() error {
	for n, node := range b.w.Nodes {
		execs := int64(len(b.nodeTimes[n]))
		b.w.Stats.Paths += execs
		f := b.w.Funcs[node.Func]
		if b.p == nil {
			continue
		}
		m := b.p.Metas[f.Hash]
		if m == nil || int(f.Index) >= len(m.Funcs) || m.Funcs[f.Index].Deps == nil {
			continue
		}
		mf := &m.Funcs[f.Index]
		num, err := mf.Numbering()
		if err != nil {
			return fmt.Errorf("%s: %v", mf.Name, err)
		}
		edges, err := num.Decode(node.Path)
		if err != nil {
			return fmt.Errorf("%s: path %d: %v", mf.Name, node.Path, err)
		}
		stmts := 0
		blocks := num.Blocks(edges)
		if b.stmtNodes == nil {
			b.stmtNodes = make(map[[2]int][]int)
		}
		if len(blocks) > 0 && int32(blocks[0]) == mf.Entry {
			b.stmtNodes[[2]int{node.Func, 0}] = append(b.stmtNodes[[2]int{node.Func, 0}], n) // the entry
		}
		for _, blk := range blocks {
			if int(blk) < len(mf.Deps.Blocks) {
				stmts += len(mf.Deps.Blocks[blk])
				for _, st := range mf.Deps.Blocks[blk] {
					if k := ([2]int{node.Func, int(st)}); len(b.stmtNodes[k]) == 0 || b.stmtNodes[k][len(b.stmtNodes[k])-1] != n {
						b.stmtNodes[k] = append(b.stmtNodes[k], n)
					}
				}
			}
		}
		b.w.Stats.Statements += int64(stmts) * execs
	}
	return nil
}

// compress makes every label a bidi stream, and counts the sizes.
func (b *builder) compress(opt *bidi.Options) {
	st := &b.w.Stats
	stream := func(vals []uint64) *bidi.Stream {
		s := bidi.Compress(vals, opt)
		enc, _ := s.MarshalBinary()
		st.Tier1Words += int64(len(vals))
		st.Tier2Bytes += int64(len(enc))
		return s
	}
	// The nodes' labels are not in the file: the traces say them (a
	// node's timestamps are where its symbol is in them), and the reader
	// makes them again (nodeTimes). They are first-tier words all the same.
	for n := range b.w.Nodes {
		b.w.Nodes[n].Times = bidi.Compress(b.nodeTimes[n], opt)
		st.Tier1Words += int64(len(b.nodeTimes[n]))
	}
	for g := range b.w.Goroutines {
		b.w.Goroutines[g].Trace = stream(b.traces[g])
	}
	b.groupValues(opt, b.metaGroups)
	for a, aw := range b.acc {
		st.Accesses += int64(len(aw.times))
		l := &b.w.Accesses[a]
		var size int64
		l.Times, l.Execs, size = b.when(l.Func, int32(l.Stmt), aw.times, opt)
		st.Tier1Words += int64(len(aw.times))
		st.Tier2Bytes += size
		for k, vals := range [5][]uint64{aw.seq, aw.addr, aw.size, aw.src, aw.flags} {
			if c, ok := constant(vals); ok {
				st.Tier1Words += int64(len(vals))
				st.Tier2Bytes += constBytes(c)
				l.Constant[k] = c
				continue
			}
			*l.fields()[k] = stream(vals)
		}
	}
	// A stream that repeats another's values is written as a reference
	// (share.go).
	streams, _ := b.w.wordStreams()
	for i, r := range b.w.sharedStreams() {
		if r == nil {
			continue
		}
		enc, _ := streams[i].MarshalBinary()
		saved := int64(len(enc)) - refBytes(*r)
		st.Tier2Bytes -= saved
		if r.value {
			st.ValueBytes -= saved
			st.GroupedValueBytes -= saved
		}
	}
}

// when encodes the timestamps of a label of function fn whose entries
// statement stmt made (-1 if the metadata does not say): as a stream, or
// as executions of the statement if that is smaller (Execs). It returns
// the encoding's bytes in the file, its tag included.
func (b *builder) when(fn int, stmt int32, times []uint64, opt *bidi.Options) (*bidi.Stream, *Execs, int64) {
	s := bidi.Compress(times, opt)
	enc, _ := s.MarshalBinary()
	size := 1 + int64(len(enc))
	if e, esize := b.execs(fn, stmt, times, opt); e != nil && esize < size {
		return nil, e, esize
	}
	return s, nil, size
}

// execs returns times as executions of statement stmt of function fn,
// and their size in the file, or nil if a timestamp is not one of them
// (an access of a call that did not complete its path) or the metadata
// does not say.
func (b *builder) execs(fn int, stmt int32, times []uint64, opt *bidi.Options) (*Execs, int64) {
	if stmt < 0 {
		return nil, 0
	}
	nodes := b.stmtNodes[[2]int{fn, int(stmt)}]
	if len(nodes) == 0 || len(times) == 0 {
		return nil, 0
	}
	var runs []uint64
	for _, n := range nodes {
		runs = append(runs, b.nodeTimes[n]...)
	}
	slices.Sort(runs)
	skips := make([]uint64, len(times))
	prev := 0
	for i, t := range times {
		j, ok := slices.BinarySearch(runs, t)
		if !ok {
			return nil, 0
		}
		d := int64(j - prev)
		skips[i], prev = uint64(d<<1^d>>63), j
	}
	e := &Execs{N: len(times), Nodes: nodes}
	size := 1 + int64(len(binary.AppendUvarint(nil, uint64(len(times))))) + int64(len(binary.AppendUvarint(nil, uint64(len(nodes)))))
	for _, n := range nodes {
		size += int64(len(binary.AppendUvarint(nil, uint64(n))))
	}
	// A constant skip of 0 would say nothing of how many entries there
	// are: such a label keeps a stream (the reader bounds a constant's
	// entries by the executions).
	if c, ok := constant(skips); ok && c != 0 {
		e.SkipConstant = c
		return e, size + constBytes(c)
	}
	e.Skips = bidi.Compress(skips, opt)
	enc, _ := e.Skips.MarshalBinary()
	return e, size + 1 + int64(len(enc))
}

// constant returns the value of vals if they are all the same, and at
// least one.
func constant(vals []uint64) (uint64, bool) {
	if len(vals) == 0 {
		return 0, false
	}
	for _, v := range vals[1:] {
		if v != vals[0] {
			return 0, false
		}
	}
	return vals[0], true
}

// BuildDir builds the WET of the recordings (*.wpp) of profile directory
// dir, with its metadata. If the recordings ran functions of packages whose
// metadata is missing or cannot be read, it returns the WET, which lacks
// their statements, with a *profile.MissingMetaError that names them.
func BuildDir(dir string, opt *bidi.Options) (*WET, error) {
	p := profile.New()
	problems, err := p.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names, err := profile.Need(dir, profile.KindWPP, "record them with pathcover test -wet or pppexec -wet")
	if err != nil {
		return nil, err
	}
	var sources []wpp.Source
	for _, name := range names {
		f, err := profile.OpenWPP(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		sources = append(sources, wpp.FileSource{WPPFile: f})
	}
	w, err := Build(p, sources, opt)
	if err != nil {
		return nil, err
	}
	return w, p.MissingMetas(w.Packages(), problems)
}

// Packages returns the metadata hashes of the functions that ran, each
// with its package's path, or "" where the WET was built without the
// package's metadata.
func (w *WET) Packages() map[string]string {
	pkgs := make(map[string]string)
	for _, f := range w.Funcs {
		if pkgs[f.Hash] == "" {
			pkgs[f.Hash] = f.Package
		}
	}
	return pkgs
}
