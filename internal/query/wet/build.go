package wet

import (
	"encoding/binary"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pathcover/pathcover/internal/query/wet/bidi"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/spill"
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
	// shared are the streams that repeat others (sharedStreams).
	shared *sharing
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
//
// It reads each recording once, in order, and writes each label's
// entries, once they are final, to a column spilled to a temporary file
// in os.TempDir: what it holds while it reads is the program's (its
// functions, paths, labels and their last entries), not the run's. Then
// it compresses the labels from their columns (the second tier), a few at
// a time, holding the WET's compressed streams.
func Build(p *profile.Profile, sources []wpp.Source, opt *bidi.Options) (*WET, error) {
	b := newBuilder("", p)
	defer b.cols.Close()
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
	if err := b.compress(opt); err != nil {
		return nil, err
	}
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

// builder holds the first tier: every label's entries, in columns
// spilled to disk (column), and those not final yet in memory.
type builder struct {
	p        *profile.Profile
	w        *WET
	cols     *spill.Columns
	funcs    map[funcKey]int
	nodes    map[nodeKey]int
	values   map[siteKey]int
	accesses map[accessKey]int
	t        uint64 // the next timestamp
	// the labels, by index in w's slices
	nodeLabels []*nodeLabel
	traces     []*column
	vals       []*valueLabel
	acc        []*accessLabel
	tails      map[int]map[int32]bool // by node: the statements after its count
	// stmtIDs number the statements of the functions that ran, and
	// stmtRuns count each one's executions so far (the run of its nodes'
	// executions an entry's timestamp is in: Execs).
	stmtIDs  map[[2]int]int32
	stmtRuns []int64
	// stmtNodeIndex lists, by function and statement, the nodes whose
	// paths run it (stmtNodes), once the recordings are read.
	stmtNodeIndex map[[2]int][]int
	// nodeErr is the first error decoding a node's path.
	nodeErr error
	// keys number each map's keys (keyNumber), and mapKeys count them.
	keys    map[mapKey]uint64
	mapKeys map[mapKey]uint64
	// touched are the value and access labels given entries in the
	// goroutine being read: they are finished at its end.
	touchedVals, touchedAcc []int
}

func newBuilder(dir string, p *profile.Profile) *builder {
	return &builder{p: p, w: &WET{}, cols: spill.NewColumns(dir), funcs: make(map[funcKey]int), nodes: make(map[nodeKey]int),
		values: make(map[siteKey]int), accesses: make(map[accessKey]int), stmtIDs: make(map[[2]int]int32)}
}

// A column is a label's entries, spilled (spill.Column), with what the
// second tier asks of them without reading them: whether they are all one
// value, and a hash of them, which tells columns apart.
type column struct {
	*spill.Column
	first  uint64
	varied bool
	hash   uint64
}

func (b *builder) column() *column { return &column{Column: b.cols.New()} }

func (c *column) add(v uint64) {
	if c.Len() == 0 {
		c.first = v
	} else if v != c.first {
		c.varied = true
	}
	c.hash = (c.hash^v)*0x100000001b3 + 0x9e3779b97f4a7c15
	c.Append(v)
}

// constant returns the column's value if every entry is the same, and
// there is at least one.
func (c *column) constant() (uint64, bool) { return c.first, c.Len() > 0 && !c.varied }

// equal reports whether two columns hold the same entries.
func (c *column) equal(d *column) (bool, error) {
	if c.Len() != d.Len() || c.hash != d.hash {
		return false, nil
	}
	rc, rd := c.Reader(), d.Reader()
	for {
		x, ok := rc.Next()
		y, _ := rd.Next()
		if !ok || x != y {
			if err := c.Err(); err != nil {
				return false, err
			}
			return !ok, nil
		}
	}
}

// A nodeLabel is a node's executions, and what its path holds: its
// statements (sorted, with their numbers in stmtIDs), the statements of
// its tail among them, and how many statements its blocks hold.
type nodeLabel struct {
	times      *column
	stmts, ids []int32
	tailSet    map[int32]bool // builder.tail
	tail       []int          // indexes in stmts
	nstmts     int64
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

// noRun is an entry's place among its statement's executions when its
// timestamp is not one of them.
const noRun = -1

// skips are a label's entries as executions of its statement (Execs): the
// place of each among them less the place of the one before (the first
// less 0), zigzag-coded, in a column, as Execs.Skips holds them; gone
// once an entry's timestamp is not an execution (the label then keeps its
// timestamps), and the column is no longer written.
type skips struct {
	col  *column
	last int64
	gone bool
}

// add adds an entry at place run (noRun: none).
func (s *skips) add(run int64) {
	if s.gone || run == noRun {
		s.gone = true
		return
	}
	s.col.add(zigzag(run - s.last))
	s.last = run
}

func zigzag(d int64) uint64 { return uint64(d<<1 ^ d>>63) }

// A valueLabel is a value site's entries: in columns, those final, and
// in rows, those after (the first at index base), waiting for their
// timestamp or their words. made and wordsMade count the entries and
// each word's entries as the recording gives them (a word added late
// counts the entries before it as zeros), until the goroutine ends: they
// say which records are out of turn, and which values a kill cut short.
type valueLabel struct {
	times     *column
	skips     skips
	words     []*column
	rows      []valueRow
	base      int
	made      int
	wordsMade []int
	// doomed is the first row that lacked a word when the next began (a
	// value cut short: its words never come), -1 if none: it and the rows
	// after wait for the goroutine's end, which drops them.
	doomed  int
	touched bool
}

type valueRow struct {
	t       uint64
	run     int64
	words   []uint64
	stamped bool
	orphan  bool
}

// An accessLabel is an access label's entries, as a valueLabel's: the
// columns of AccessLabel's fields and its skips (Execs), and the rows not
// stamped yet.
type accessLabel struct {
	times, seq, addr, size, src, flags *column
	skips                              skips
	rows                               []accessRow
	base                               int
	touched                            bool
}

type accessRow struct {
	t, seq, addr, size, src, flags uint64
	run                            int64
	stamped                        bool
}

// A frame is a call open in a goroutine: its function, its last path
// (node -1 before the first) and that path's timestamp, the executions
// before it of that path's tail statements (runs, as stmts' entries:
// entries stamped with lastT are of those statements), and the labels'
// entries made since, which belong to the last path or to the next one
// (stamp).
type frame struct {
	fn       int
	lastNode int
	lastT    uint64
	runs     []int64
	pending  []pending
}

// A pending entry is row i of a value site's label (access false) or of
// an access label, made by statement stmt.
type pending struct {
	access   bool
	label, i int
	stmt     int32
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

// node returns the node of path path of function fn, made on first use
// with its statements (where the metadata describes them).
func (b *builder) node(fn int, path uint64) int {
	k := nodeKey{fn, path}
	if n, ok := b.nodes[k]; ok {
		return n
	}
	n := len(b.w.Nodes)
	b.nodes[k] = n
	b.w.Nodes = append(b.w.Nodes, Node{Func: fn, Path: path})
	nl := &nodeLabel{times: b.column(), tailSet: b.tail(n)}
	b.nodeLabels = append(b.nodeLabels, nl)
	if err := b.pathStmts(n, nl); err != nil && b.nodeErr == nil {
		b.nodeErr = err
	}
	return n
}

// pathStmts finds the statements of node n's path: those of its blocks,
// and statement 0 (the entry) if the path starts at the function's entry.
func (b *builder) pathStmts(n int, nl *nodeLabel) error {
	node := b.w.Nodes[n]
	mf := b.meta(node.Func)
	if mf == nil || mf.Deps == nil {
		return nil
	}
	num, err := mf.Numbering()
	if err != nil {
		return fmt.Errorf("%s: %v", mf.Name, err)
	}
	edges, err := num.Decode(node.Path)
	if err != nil {
		return fmt.Errorf("%s: path %d: %v", mf.Name, node.Path, err)
	}
	blocks := num.Blocks(edges)
	set := make(map[int32]bool)
	tail := nl.tailSet
	if len(blocks) > 0 && int32(blocks[0]) == mf.Entry {
		set[0] = true
	}
	for _, blk := range blocks {
		if int(blk) < len(mf.Deps.Blocks) {
			nl.nstmts += int64(len(mf.Deps.Blocks[blk]))
			for _, st := range mf.Deps.Blocks[blk] {
				set[st] = true
			}
		}
	}
	nl.stmts = slices.Sorted(maps.Keys(set))
	for i, st := range nl.stmts {
		k := [2]int{node.Func, int(st)}
		id, ok := b.stmtIDs[k]
		if !ok {
			id = int32(len(b.stmtRuns))
			b.stmtIDs[k] = id
			b.stmtRuns = append(b.stmtRuns, 0)
		}
		nl.ids = append(nl.ids, id)
		if tail[st] {
			nl.tail = append(nl.tail, i)
		}
	}
	return nil
}

// run returns the executions of statement stmt before this one of node
// n: the place of this execution among its statement's (Execs), or noRun
// if n's path does not hold stmt.
func (b *builder) run(n int, stmt int32) int64 {
	nl := b.nodeLabels[n]
	if i, ok := slices.BinarySearch(nl.stmts, stmt); ok && stmt >= 0 {
		return b.stmtRuns[nl.ids[i]]
	}
	return noRun
}

// goroutine adds goroutine g of process pi's recording s.
func (b *builder) goroutine(pi int, s wpp.Source, g uint64) error {
	gr := Goroutine{Process: pi, ID: g, Start: b.t}
	trace := b.column()
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
		if f.lastNode >= 0 && len(f.pending) > 0 {
			nl := b.nodeLabels[f.lastNode]
			i = profile.InTail(nl.tailSet, len(f.pending), func(i int) int32 { return f.pending[i].stmt })
			for _, p := range f.pending[:i] {
				run := int64(noRun)
				for k, si := range nl.tail {
					if nl.stmts[si] == p.stmt && p.stmt >= 0 {
						run = f.runs[k]
					}
				}
				b.settle(p, f.lastT, run, false)
			}
		}
		for _, p := range f.pending[i:] {
			run := int64(noRun)
			if node >= 0 {
				run = b.run(node, p.stmt)
			}
			b.settle(p, t, run, node < 0)
		}
		f.pending = f.pending[:0]
		if node >= 0 {
			f.lastNode, f.lastT = node, t
			nl := b.nodeLabels[node]
			f.runs = f.runs[:0]
			for _, si := range nl.tail {
				f.runs = append(f.runs, b.stmtRuns[nl.ids[si]])
			}
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
			trace.add(uint64(st.Call.fn)<<3 | SymEnter)
		case profile.WPPPath:
			f := st.Call
			n := b.node(f.fn, e.Path)
			if e.Up > 0 {
				trace.add(uint64(e.Up)<<3 | SymUp)
			}
			trace.add(uint64(n) << 3) // SymPath is 0
			nl := b.nodeLabels[n]
			nl.times.add(b.t)
			stamp(f, n, b.t)
			for _, id := range nl.ids {
				b.stmtRuns[id]++
			}
			b.t++
		case profile.WPPReturn:
			// What the call recorded after its last path's tail belongs
			// to a path that did not complete (it panicked): it takes the
			// goroutine's next timestamp.
			stamp(st.Call, -1, b.t)
			trace.add(SymReturn)
		case profile.WPPSpawn:
			trace.add(e.Spawn<<3 | SymSpawn)
		case profile.WPPStop:
			gr.Stopped = true
			trace.add(SymStop)
		case profile.WPPValue:
			return b.value(st.Call, e) // Up levels below: a range-over-func body's caller
		case profile.WPPMemory:
			top := st.Call // Up levels below: a range-over-func body's caller
			seq += e.Seq
			k := accessKey{top.fn, e.Stmt, e.Access}
			a, ok := b.accesses[k]
			if !ok {
				a = len(b.w.Accesses)
				b.accesses[k] = a
				b.w.Accesses = append(b.w.Accesses, AccessLabel{Func: top.fn, Stmt: e.Stmt, Access: e.Access})
				b.acc = append(b.acc, &accessLabel{times: b.column(), seq: b.column(), addr: b.column(), size: b.column(),
					src: b.column(), flags: b.column(), skips: skips{col: b.column()}})
			}
			al := b.acc[a]
			if !al.touched {
				al.touched = true
				b.touchedAcc = append(b.touchedAcc, a)
			}
			top.pending = append(top.pending, pending{access: true, label: a, i: al.base + len(al.rows), stmt: int32(e.Stmt)})
			size := e.Size
			if e.Access == profile.WPPMapRead || e.Access == profile.WPPMapWrite {
				size = b.keyNumber(pi, e.Addr, e.Size)
			}
			al.rows = append(al.rows, accessRow{seq: seq, addr: e.Addr, size: size, src: e.Src, flags: uint64(e.Flags)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, f := range stack {
		stamp(f, -1, b.t) // calls still open at the end: their last paths did not complete
	}
	b.finishGoroutine()
	gr.End = b.t
	b.w.Goroutines = append(b.w.Goroutines, gr)
	b.traces = append(b.traces, trace)
	return nil
}

// value adds a value record of call f.
func (b *builder) value(f *frame, e *profile.WPPEvent) error {
	k := siteKey{f.fn, e.Site}
	v, ok := b.values[k]
	if !ok {
		v = len(b.w.Values)
		b.values[k] = v
		b.w.Values = append(b.w.Values, ValueLabel{Func: f.fn, Site: e.Site})
		b.vals = append(b.vals, &valueLabel{times: b.column(), skips: skips{col: b.column()}, doomed: -1})
	}
	vl := b.vals[v]
	if !vl.touched {
		vl.touched = true
		b.touchedVals = append(b.touchedVals, v)
	}
	nwords := len(vl.wordsMade)
	if int(e.Part) > nwords {
		return fmt.Errorf("word %d of a value at site %d before word %d", e.Part, e.Site, nwords)
	}
	if e.Part > 0 && (vl.made == 0 || vl.wordsMade[e.Part-1] != vl.made || len(vl.rows) == 0) {
		// Its word before belongs to a value dropped, or to none (as a
		// goroutine's first event for the site: the values of the
		// goroutines before are written).
		return fmt.Errorf("word %d of a value at site %d without its word %d", e.Part, e.Site, e.Part-1)
	}
	if e.Part == 0 {
		if n := len(vl.rows); n > 0 && len(vl.rows[n-1].words) < nwords && vl.doomed < 0 {
			vl.doomed = vl.base + n - 1 // its words never come
		}
		f.pending = append(f.pending, pending{label: v, i: vl.made, stmt: b.siteStmt(f.fn, e.Site)})
		vl.rows = append(vl.rows, valueRow{})
		vl.made++
		b.flushValues(vl)
	}
	if int(e.Part) == nwords {
		// A word no value had: the values before have it zero.
		vl.wordsMade = append(vl.wordsMade, vl.made-1)
		c := b.column()
		for range vl.times.Len() {
			c.add(0)
		}
		vl.words = append(vl.words, c)
	}
	if vl.wordsMade[e.Part] != vl.made-1 {
		return fmt.Errorf("value site %d: word %d out of turn", e.Site, e.Part)
	}
	vl.wordsMade[e.Part]++
	row := &vl.rows[len(vl.rows)-1]
	for len(row.words) < int(e.Part) {
		row.words = append(row.words, 0)
	}
	row.words = append(row.words, e.Value)
	return nil
}

// settle gives pending entry p its timestamp t and its place among its
// statement's executions (run, noRun if t is none of them); orphan marks
// it made after its call's last completed path (a panic, or a call still
// open at the end): an access keeps its entry, flagged AccessOrphan; a
// value is dropped, as one cut short is.
func (b *builder) settle(p pending, t uint64, run int64, orphan bool) {
	if p.access {
		al := b.acc[p.label]
		r := &al.rows[p.i-al.base]
		r.t, r.run, r.stamped = t, run, true
		if orphan {
			r.flags |= AccessOrphan
		}
		b.flushAccesses(al)
		return
	}
	vl := b.vals[p.label]
	r := &vl.rows[p.i-vl.base]
	r.t, r.run, r.stamped, r.orphan = t, run, true, orphan
	b.flushValues(vl)
}

// flushAccesses writes the label's stamped rows from its first on.
func (b *builder) flushAccesses(al *accessLabel) {
	i := 0
	for ; i < len(al.rows) && al.rows[i].stamped; i++ {
		r := &al.rows[i]
		al.times.add(r.t)
		al.seq.add(r.seq)
		al.addr.add(r.addr)
		al.size.add(r.size)
		al.src.add(r.src)
		al.flags.add(r.flags)
		al.skips.add(r.run)
	}
	al.rows = al.rows[:copy(al.rows, al.rows[i:])]
	al.base += i
}

// flushValues writes the label's rows that are final from its first on:
// stamped, and with a row after them (so their words are all there), and
// before a row cut short (which the goroutine's end drops, and the rows
// after it).
func (b *builder) flushValues(vl *valueLabel) {
	i := 0
	for ; i < len(vl.rows)-1 && vl.rows[i].stamped && (vl.doomed < 0 || vl.base+i < vl.doomed); i++ {
		b.writeValue(vl, &vl.rows[i])
	}
	vl.rows = vl.rows[:copy(vl.rows, vl.rows[i:])]
	vl.base += i
}

// writeValue writes row r to the label's columns, unless it is dropped;
// words it lacks are zeros.
func (b *builder) writeValue(vl *valueLabel, r *valueRow) {
	if r.orphan {
		return
	}
	vl.times.add(r.t)
	vl.skips.add(r.run)
	for k, c := range vl.words {
		w := uint64(0)
		if k < len(r.words) {
			w = r.words[k]
		}
		c.add(w)
	}
}

// finishGoroutine writes what the labels given entries in the goroutine
// hold: every entry is stamped now. A value whose later words never came
// (a kill) is dropped, with those after it; and so is one made after its
// call's last completed path.
func (b *builder) finishGoroutine() {
	for _, a := range b.touchedAcc {
		al := b.acc[a]
		b.flushAccesses(al)
		al.touched = false
	}
	for _, v := range b.touchedVals {
		vl := b.vals[v]
		vl.touched = false
		n := vl.made
		for _, m := range vl.wordsMade {
			n = min(n, m)
		}
		keep := max(n-vl.base, 0)
		for i := range vl.rows[:keep] {
			b.writeValue(vl, &vl.rows[i])
		}
		vl.rows = vl.rows[:0]
		vl.made, vl.doomed = vl.times.Len(), -1
		for k := range vl.wordsMade {
			vl.wordsMade[k] = vl.made
		}
		vl.base = vl.made
	}
	b.touchedAcc, b.touchedVals = b.touchedAcc[:0], b.touchedVals[:0]
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

// countStatements counts the path and statement executions of the run:
// per node, the statements of its path's blocks (where the metadata
// describes them) times its executions; and indexes the nodes by the
// statements their paths run (stmtNodes).
func (b *builder) countStatements() error {
	if b.nodeErr != nil {
		return b.nodeErr
	}
	b.stmtNodeIndex = make(map[[2]int][]int)
	for n, nl := range b.nodeLabels {
		execs := int64(nl.times.Len())
		b.w.Stats.Paths += execs
		b.w.Stats.Statements += nl.nstmts * execs
		for _, st := range nl.stmts {
			k := [2]int{b.w.Nodes[n].Func, int(st)}
			b.stmtNodeIndex[k] = append(b.stmtNodeIndex[k], n)
		}
	}
	return nil
}

// stmtNodes returns the nodes whose paths run statement stmt of function
// fn, in order.
func (b *builder) stmtNodes(fn int, stmt int32) []int {
	return b.stmtNodeIndex[[2]int{fn, int(stmt)}]
}

// compress makes every label a bidi stream from its column, and counts the
// sizes. The labels are compressed in parallel (each a task of its own,
// reading its columns and making its streams), and gathered in order.
func (b *builder) compress(opt *bidi.Options) error {
	if err := b.cols.Err(); err != nil {
		return err
	}
	st := &b.w.Stats
	// stream compresses c, counting its words and bytes in sizes.
	stream := func(c *column, sizes *Stats) (*bidi.Stream, error) {
		s, err := bidi.CompressSource(c, opt)
		if err != nil {
			return nil, err
		}
		enc, _ := s.MarshalBinary()
		sizes.Tier1Words += int64(c.Len())
		sizes.Tier2Bytes += int64(len(enc))
		return s, nil
	}
	// The nodes' labels are not in the file: the traces say them (a
	// node's timestamps are where its symbol is in them), and the reader
	// makes them again (nodeTimes). They are first-tier words all the same.
	err := parallel(len(b.nodeLabels), func(n int) error {
		s, err := bidi.CompressSource(b.nodeLabels[n].times, opt)
		b.w.Nodes[n].Times = s
		return err
	})
	if err != nil {
		return err
	}
	for _, nl := range b.nodeLabels {
		st.Tier1Words += int64(nl.times.Len())
	}
	sizes := make([]Stats, len(b.traces))
	err = parallel(len(b.traces), func(g int) error {
		s, err := stream(b.traces[g], &sizes[g])
		b.w.Goroutines[g].Trace = s
		return err
	})
	if err != nil {
		return err
	}
	for _, sz := range sizes {
		st.add(sz)
	}
	if err := b.groupValues(opt, b.metaGroups); err != nil {
		return err
	}
	sizes = make([]Stats, len(b.acc))
	err = parallel(len(b.acc), func(a int) error {
		al, l, sz := b.acc[a], &b.w.Accesses[a], &sizes[a]
		sz.Accesses += int64(al.times.Len())
		var size int64
		var err error
		l.Times, l.Execs, size, err = b.when(l.Func, int32(l.Stmt), al.times, &al.skips, opt)
		if err != nil {
			return err
		}
		sz.Tier1Words += int64(al.times.Len())
		sz.Tier2Bytes += size
		for k, c := range [5]*column{al.seq, al.addr, al.size, al.src, al.flags} {
			if v, ok := c.constant(); ok {
				sz.Tier1Words += int64(c.Len())
				sz.Tier2Bytes += constBytes(v)
				l.Constant[k] = v
				continue
			}
			s, err := stream(c, sz)
			if err != nil {
				return err
			}
			*l.fields()[k] = s
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, sz := range sizes {
		st.add(sz)
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
	return b.cols.Err()
}

// add adds the sizes of t to s.
func (s *Stats) add(t Stats) {
	s.RecordBytes += t.RecordBytes
	s.Tier1Words += t.Tier1Words
	s.Tier2Bytes += t.Tier2Bytes
	s.ValueBytes += t.ValueBytes
	s.Paths += t.Paths
	s.Statements += t.Statements
	s.ValueRecords += t.ValueRecords
	s.Accesses += t.Accesses
	s.SiteValueBytes += t.SiteValueBytes
	s.GroupedValueBytes += t.GroupedValueBytes
}

// parallel calls task with 0 to n-1, on as many goroutines as the
// program may run at once, and returns the error of the lowest task that
// failed.
func parallel(n int, task func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = task(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// when encodes the timestamps of a label of function fn whose entries
// statement stmt made (-1 if the metadata does not say): as a stream, or
// as executions of the statement if that is smaller (Execs, from sk). It
// returns the encoding's bytes in the file, its tag included.
func (b *builder) when(fn int, stmt int32, times *column, sk *skips, opt *bidi.Options) (*bidi.Stream, *Execs, int64, error) {
	s, err := bidi.CompressSource(times, opt)
	if err != nil {
		return nil, nil, 0, err
	}
	enc, _ := s.MarshalBinary()
	size := 1 + int64(len(enc))
	if stmt < 0 || sk.gone || times.Len() == 0 {
		return s, nil, size, nil
	}
	e, esize, err := b.execs(fn, stmt, sk.col, opt)
	if err != nil {
		return nil, nil, 0, err
	}
	if e != nil && esize < size {
		return nil, e, esize, nil
	}
	return s, nil, size, nil
}

// execs returns a label's timestamps as executions of statement stmt of
// function fn, whose skips are skips, and their size in the file; nil if
// the statement ran in no node.
func (b *builder) execs(fn int, stmt int32, skips *column, opt *bidi.Options) (*Execs, int64, error) {
	nodes := b.stmtNodes(fn, stmt)
	if len(nodes) == 0 {
		return nil, 0, nil
	}
	e := &Execs{N: skips.Len(), Nodes: nodes}
	size := 1 + int64(len(binary.AppendUvarint(nil, uint64(skips.Len())))) + int64(len(binary.AppendUvarint(nil, uint64(len(nodes)))))
	for _, n := range nodes {
		size += int64(len(binary.AppendUvarint(nil, uint64(n))))
	}
	// A constant skip of 0 would say nothing of how many entries there
	// are: such a label keeps a stream (the reader bounds a constant's
	// entries by the executions).
	if c, ok := skips.constant(); ok && c != 0 {
		e.SkipConstant = c
		return e, size + constBytes(c), nil
	}
	var err error
	if e.Skips, err = bidi.CompressSource(skips, opt); err != nil {
		return nil, 0, err
	}
	enc, _ := e.Skips.MarshalBinary()
	return e, size + 1 + int64(len(enc)), nil
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
