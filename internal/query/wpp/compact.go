package wpp

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathcover/pathcover/profile"
)

// A TWPP is the whole program paths of a profile, compacted: each
// function's distinct traces, and the dynamic call graph of every
// goroutine of every process as a DAG of distinct call subtrees.
type TWPP struct {
	Processes []*Process
	// Funcs are the functions that ran, by their metadata hash and index.
	Funcs []*Func
	// Nodes are the distinct call subtrees, each after the subtrees it
	// calls (so a node's index is larger than its children's).
	Nodes []*Node

	funcIndex map[FuncKey]int
	// The compaction's indexes (nodes here, index, onePath and leaf in
	// each Func) are Compact's alone: a TWPP read from a file answers
	// queries and is not compacted into, so the reader does not make
	// them (on fastjson's suite, a key of every trace was a third of
	// the read).
	nodes hashIndex // Nodes by nodeHash
}

// A Process is one process's recording (one WPP file).
type Process struct {
	File  string // base name of the WPP file
	PID   uint64
	Start time.Time
	ProcessEnd
	// Packages are the metadata hashes of the process's packages, by the
	// numbers its WPP file gave them.
	Packages   map[uint32]string
	Goroutines []*Goroutine
	// Tests are the tests that ran, each with its goroutine, as the WPP
	// file's test chunks say (recorded with -tests: pathcover test).
	Tests []profile.WPPTest
}

// A ProcessEnd is how a process's recording ended, as its WPP file's
// header says (profile.WPPHeader).
type ProcessEnd struct {
	Limit        uint64
	LimitReached bool
	WriteFailed  bool
	WriteErrno   uint32
	Ended        bool
}

// EndOf is the end of the recording whose header is h.
func EndOf(h profile.WPPHeader) ProcessEnd {
	return ProcessEnd{h.Limit, h.LimitReached, h.WriteFailed, h.WriteErrno, h.Ended}
}

// DecodeEnd is the end that Flags, the limit and the errno encode, as
// TWPP and WET files hold it: an error if they could not be written.
func DecodeEnd(flags, limit, errno uint64) (ProcessEnd, error) {
	switch {
	case flags&^(profile.WPPLimitReached|profile.WPPWriteFailed|profile.WPPEnded) != 0:
		return ProcessEnd{}, fmt.Errorf("unknown flags %#x", flags)
	case errno > 1<<32-1 || errno != 0 && flags&profile.WPPWriteFailed == 0:
		return ProcessEnd{}, fmt.Errorf("errno %d", errno)
	}
	return ProcessEnd{
		Limit:        limit,
		LimitReached: flags&profile.WPPLimitReached != 0,
		WriteFailed:  flags&profile.WPPWriteFailed != 0,
		WriteErrno:   uint32(errno),
		Ended:        flags&profile.WPPEnded != 0,
	}, nil
}

// Cut says why the recording covers only part of its process's run, one
// reason a sentence; nil if it covers the whole run.
func (e ProcessEnd) Cut() []string {
	return profile.WPPHeader{Limit: e.Limit, LimitReached: e.LimitReached, WriteFailed: e.WriteFailed, WriteErrno: e.WriteErrno, Ended: e.Ended}.Cut()
}

// Flags are e's flags as the WPP header has them.
func (e ProcessEnd) Flags() uint64 {
	var f uint64
	if e.LimitReached {
		f |= profile.WPPLimitReached
	}
	if e.WriteFailed {
		f |= profile.WPPWriteFailed
	}
	if e.Ended {
		f |= profile.WPPEnded
	}
	return f
}

// Cut says, for each process whose recording covers only part of its
// run, which and why: what every query's answer must say it is
// based on. Nil if every recording is whole.
func (t *TWPP) Cut() []string {
	var why []string
	for _, p := range t.Processes {
		why = append(why, CutNotes(p.File, p.ProcessEnd)...)
	}
	return why
}

// CutNotes is Cut of a process's end, each reason naming its file.
func CutNotes(file string, e ProcessEnd) []string {
	var why []string
	for _, c := range e.Cut() {
		why = append(why, file+": "+c)
	}
	return why
}

// A Goroutine is one goroutine's recording: the calls made from outside
// any instrumented function (usually one), in order.
type Goroutine struct {
	ID     uint64
	Parent uint64 // the goroutine that created it; 0 if none
	Spawn  uint64 // the spawn event that started it; 0 if not recorded
	// Roots are nodes: int32, as Item.Node is (a goroutine of math/big's
	// suite makes 11 million calls from outside any instrumented
	// function: as ints, 92 MB, more than all the nodes' items that wpp
	// hot reads with them).
	Roots []int32
	// Stopped says the recording stopped in this goroutine (its process's
	// ProcessEnd says why: the size limit, or a write that failed).
	Stopped bool
}

// A FuncKey names a function: its package's metadata hash and its index
// in that metadata.
type FuncKey struct {
	Hash  string
	Index uint32
}

func (k FuncKey) String() string { return k.Hash + "/" + strconv.FormatUint(uint64(k.Index), 10) }

// A Func is one function's distinct traces.
type Func struct {
	Key    FuncKey
	Traces []*Trace
	index  hashIndex // traces by pathsHash, compared path for path
	// onePath[p] is the trace of the one path p, or -1; leaf[i] the node
	// of a returned call of trace i that made no call, or -1 (Compact's
	// shortcuts past hashing: most calls are of one of these).
	onePath []int32
	leaf    []int32
}

// A Trace is a sequence of the Ball-Larus paths that a call completed, in
// order, with how many calls took it.
type Trace struct {
	Paths []uint64
	Calls uint64
	// enc is Paths encoded as the file holds them (appendTrace), made by
	// Compact in the background: the paths of a trace Compact made never
	// change.
	enc []byte
}

// A Node is a call subtree: a call of Func that took trace Trace and made
// Items, in order. Open says the call had not returned when its
// goroutine's recording ended.
type Node struct {
	Func  int
	Trace int
	Open  bool
	Items []Item
	// Calls counts the calls of the subtree, this one included.
	Calls uint64
}

// An ItemKind is what happened inside a call between its paths.
type ItemKind uint8

const (
	// ItemCall is a call of an instrumented function: Node.
	ItemCall ItemKind = iota
	// ItemSpawn is a goroutine started at a go statement: Spawn.
	ItemSpawn
	// ItemUp is a path of the call Up levels below, completed while this
	// call ran (a range-over-func loop body runs inside the iterator's
	// call): the next path of that call's trace.
	ItemUp
)

// An Item is an event inside a call, At paths into its trace (the number
// of the call's paths completed before it).
//
// An item is 16 bytes: a read TWPP holds them all (compress/flate's
// suite: 21 M of them, 670 MB at 32 bytes, whose pages cost as much
// to fault in as the rest of the read). So At is 32 bits (a reader
// reads no trace longer than maxTracePaths paths, and Compact refuses
// a call of more than 1<<32-1), Node is 32 bits (the reader and
// Compact refuse more nodes), and a spawn's id, 64 bits, is kept in
// Node and Up, which a spawn has no use for (Spawn).
type Item struct {
	At   uint32
	Node int32  // ItemCall
	Up   uint32 // ItemUp
	Kind ItemKind
}

// Spawn is an ItemSpawn's spawn id.
func (it Item) Spawn() uint64 { return uint64(it.Up)<<32 | uint64(uint32(it.Node)) }

// spawnItem is the item of spawn id s, after at paths.
func spawnItem(at uint32, s uint64) Item {
	return Item{At: at, Node: int32(uint32(s)), Up: uint32(s >> 32), Kind: ItemSpawn}
}

// maxItemAt and maxNodes are what an Item holds (Item).
const (
	maxItemAt = 1<<32 - 1
	maxNodes  = 1<<31 - 1
)

// A Source is a recording to compact: the WPP files of a profile.
type Source interface {
	Header() profile.WPPHeader
	Name() string
	Packages() map[uint32]string
	Goroutines() []uint64
	// Events calls fn with each event of goroutine g in order; the
	// event is valid only until fn returns (profile.WPPFile.Records).
	Events(g uint64, fn func(*profile.WPPEvent) error) error
}

// A TestSource is a Source that knows which goroutine ran each test.
type TestSource interface {
	TestRuns() []profile.WPPTest
}

// FileSource adapts a profile.WPPFile.
type FileSource struct{ *profile.WPPFile }

func (s FileSource) Header() profile.WPPHeader   { return s.WPPFile.Header }
func (s FileSource) Name() string                { return s.WPPFile.Name }
func (s FileSource) Packages() map[uint32]string { return s.WPPFile.Packages }
func (s FileSource) Goroutines() []uint64        { return s.WPPFile.Goroutines() }
func (s FileSource) Events(g uint64, fn func(*profile.WPPEvent) error) error {
	return s.WPPFile.Records(g, fn)
}
func (s FileSource) TestRuns() []profile.WPPTest { return s.WPPFile.Tests }

// Compact compacts recordings: each goroutine's stream is split into
// calls, each call's paths become its trace (stored once per function
// however many calls took it), and each call, with the items between its
// paths, becomes a node (stored once however many calls made the same
// subtree).
//
// Goroutines are compacted in parallel, each into a TWPP of its own
// (compactor), and merged into the result in the order of the sources
// and of their goroutines (merge): the result is the one compacting
// them one after the other would make, function for function and node
// for node, whatever the number of workers. At most a few goroutines'
// TWPPs wait to be merged at a time.
func Compact(sources []Source) (*TWPP, error) {
	return compactWith(sources, runtime.GOMAXPROCS(0))
}

func compactWith(sources []Source, workers int) (*TWPP, error) {
	return compactBatched(sources, workers, maxBatch)
}

// Goroutines compacted whole go to the workers in batches of consecutive
// ones of a process, of at most maxBatch goroutines and about
// minSegmentBytes of recording: a suite can run thousands of goroutines
// of a few kilobytes each (BurntSushi/toml's: 2,447, 5 kB on average),
// and each job's part of its own met every function, trace and node of
// its goroutine for the first time (allocated, hashed, merged again),
// which cost more than walking it. One part for a batch makes the TWPP
// merging its goroutines one by one makes: what is new in it comes in
// the same order.
const maxBatch = 256

// compactBatched is compactWith with batches of at most batch goroutines.
func compactBatched(sources []Source, workers, batch int) (*TWPP, error) {
	workers = max(workers, 1)
	t := &TWPP{funcIndex: make(map[FuncKey]int)}
	// A job is a batch of whole goroutines of one process (gs), or a
	// segment of one goroutine's stream (segment.go).
	type job struct {
		s         Source
		p         *Process
		gs        []uint64
		each      func(func(*profile.WPPEvent) error) error
		seg, nseg int
		parts     []*segmentPart // one a goroutine of gs
		part      *TWPP
		done      chan struct{}
	}
	var all []*job
	for _, s := range sources {
		h := s.Header()
		name := s.Name()
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		p := &Process{File: name, PID: h.PID, Start: h.Start, ProcessEnd: EndOf(h), Packages: maps.Clone(s.Packages())}
		if ts, ok := s.(TestSource); ok {
			p.Tests = slices.Clone(ts.TestRuns())
		}
		t.Processes = append(t.Processes, p)
		var open *job // the batch being filled
		var openBytes int64
		for _, g := range s.Goroutines() {
			segs := segmentsOf(s, g)
			if len(segs) == 1 {
				if open == nil || len(open.gs) == batch || openBytes >= minSegmentBytes {
					open, openBytes = &job{s: s, p: p, nseg: 1, done: make(chan struct{})}, 0
					all = append(all, open)
				}
				open.gs = append(open.gs, g)
				openBytes += streamBytes(s, g)
				continue
			}
			open = nil
			for i, each := range segs {
				all = append(all, &job{s: s, p: p, gs: []uint64{g}, each: each, seg: i, nseg: len(segs), done: make(chan struct{})})
			}
		}
	}
	run := func(j *job, reuse *compactor) {
		c := &compactor{t: &TWPP{funcIndex: make(map[FuncKey]int)}, enc: newBackgroundEncoder(), frames: reuse.frames, blocks: reuse.blocks, outer: reuse.outer}
		if j.each != nil {
			j.parts = []*segmentPart{c.segment(j.each, j.s.Packages(), j.seg == 0, j.seg == j.nseg-1)}
		} else {
			for _, g := range j.gs {
				sp := c.segment(func(fn func(*profile.WPPEvent) error) error { return j.s.Events(g, fn) }, j.s.Packages(), true, true)
				j.parts = append(j.parts, sp)
				if sp.err != nil {
					break
				}
			}
		}
		reuse.frames, reuse.blocks, reuse.outer = c.frames, c.blocks, c.outer
		c.enc.wait()
		if n := len(j.parts) - 1; j.parts[n].err == nil && len(c.t.Nodes) > maxNodes {
			j.parts[n].err = fmt.Errorf("more than %d distinct call subtrees", maxNodes)
		}
		for _, sp := range j.parts {
			sp.part = c.t
		}
		j.part = c.t
		close(j.done)
	}
	// Jobs are handed out in order, no more than ahead of the merge
	// (long streams are cut, so a job is small beside the rest).
	jobs := make(chan *job)
	ahead := make(chan struct{}, 2*workers)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		defer close(jobs)
		for _, j := range all {
			select {
			case ahead <- struct{}{}:
			case <-quit:
				return
			}
			select {
			case jobs <- j:
			case <-quit:
				return
			}
		}
	}()
	for range workers {
		go func() {
			// A worker's frames go from goroutine to goroutine: a
			// suite has hundreds, and each grew its frames' paths and
			// items again (encoding/json's: nearly half of what
			// compacting it allocated).
			var reuse compactor
			for j := range jobs {
				run(j, &reuse)
			}
		}()
	}
	var m *goroutineMerge
	for _, j := range all {
		<-j.done
		<-ahead
		if j.each == nil {
			// A batch: its goroutines' streams whole, in one part.
			var grs []*Goroutine
			for i, sp := range j.parts {
				if sp.err != nil {
					return nil, fmt.Errorf("%s: goroutine %d: %v", j.p.File, j.gs[i], sp.err)
				}
				sp.gr.ID = j.gs[i]
				grs = append(grs, sp.gr)
			}
			t.merge(j.part, grs...)
			if len(t.Nodes) > maxNodes {
				return nil, fmt.Errorf("more than %d distinct call subtrees", maxNodes)
			}
			j.p.Goroutines = append(j.p.Goroutines, grs...)
			j.parts, j.part = nil, nil
			continue
		}
		g := j.gs[0]
		if j.seg == 0 {
			m = newGoroutineMerge(t, g, j.nseg)
		}
		err := m.add(j.parts[0], j.seg == 0)
		if err == nil && len(t.Nodes) > maxNodes {
			err = fmt.Errorf("more than %d distinct call subtrees", maxNodes)
		}
		if err != nil {
			if m.c.enc != nil {
				m.c.enc.wait()
			}
			return nil, fmt.Errorf("%s: goroutine %d: %v", j.p.File, g, err)
		}
		j.parts, j.part = nil, nil
		if j.seg == j.nseg-1 {
			j.p.Goroutines = append(j.p.Goroutines, m.finish())
			if len(t.Nodes) > maxNodes {
				return nil, fmt.Errorf("more than %d distinct call subtrees", maxNodes)
			}
		}
	}
	return t, nil
}

// streamBytes is the size of goroutine g's recording in s, if s says
// (FileSource), else minSegmentBytes/maxBatch: batches of maxBatch.
func streamBytes(s Source, g uint64) int64 {
	if f, ok := s.(interface{ StreamBytes(uint64) (int64, int64) }); ok {
		mine, _ := f.StreamBytes(g)
		return mine
	}
	return minSegmentBytes / maxBatch
}

// merge adds part, the TWPP of goroutines grs alone, to t, and makes
// their roots t's nodes. Functions, traces and nodes new to t are added in
// the order part has them, the order they first ran in grs.
//
// It returns where part's functions and nodes are in t.
func (t *TWPP) merge(part *TWPP, grs ...*Goroutine) (funcs, nodes []int) {
	funcs = make([]int, len(part.Funcs))
	traces := make([][]int, len(part.Funcs))
	for i, pf := range part.Funcs {
		funcs[i] = t.funcOf(pf.Key)
		f := t.Funcs[funcs[i]]
		traces[i] = make([]int, len(pf.Traces))
		for j, tr := range pf.Traces {
			ti, ok := f.onePathTrace(tr.Paths)
			if !ok {
				// part has hashed its traces already: a benchmark's
				// loop makes traces of millions of paths.
				h := pf.index.hashes[j]
				if ti, ok = f.findTrace(h, tr.Paths); !ok {
					ti = f.addTrace(&Trace{Paths: tr.Paths, enc: tr.enc}, h)
				}
			}
			f.Traces[ti].Calls = satAdd(f.Traces[ti].Calls, tr.Calls)
			traces[i][j] = ti
		}
	}
	nodes = make([]int, len(part.Nodes))
	for i, n := range part.Nodes {
		n.Func, n.Trace = funcs[n.Func], traces[n.Func][n.Trace]
		for k := range n.Items {
			if n.Items[k].Kind == ItemCall {
				n.Items[k].Node = int32(nodes[n.Items[k].Node])
			}
		}
		nodes[i] = t.intern(n)
	}
	for _, gr := range grs {
		for k, r := range gr.Roots {
			gr.Roots[k] = int32(nodes[r])
		}
	}
	return funcs, nodes
}

// mergeProcess adds part, the TWPP of one process's recording alone, to
// t, and its process after t's: as merging its goroutines one after the
// other into t would have (Compact), since part holds what is new in
// each goroutine in the order they came.
func (t *TWPP) mergeProcess(part *TWPP) error {
	p := part.Processes[0]
	t.merge(part, p.Goroutines...)
	if len(t.Nodes) > maxNodes {
		return fmt.Errorf("more than %d distinct call subtrees", maxNodes)
	}
	t.Processes = append(t.Processes, p)
	return nil
}

// A frame is a call being split off its goroutine's stream. Frames are
// reused (compactor.frames): a call's paths and items are copied only
// when they make a new trace or a new node.
type frame struct {
	fn int
	at uint32 // the caller's paths when it was entered
	// outer is, in a segment, the call open before it (segment.go)
	// that called this one, 1 the innermost: then at counts only the
	// caller's paths in the segment. 0 for a call whose caller is a
	// frame or none.
	outer int32
	paths []uint64
	// The call's items are full's blocks, each itemBlock items, and
	// then items: the outermost call of a test can make millions of
	// calls, and one slice grown to hold them was copied at each step
	// (regexp's suite: a call of a million items, whose copies were a
	// quarter of compacting it, and nearly half of what it allocated).
	// Blocks are the compactor's, reused (compactor.blocks).
	items []Item
	full  [][]Item
}

// itemBlock is the length of a frame's full blocks of items.
const itemBlock = 1 << 12

// nItems is the number of f's items.
func (f *frame) nItems() int { return len(f.full)*itemBlock + len(f.items) }

// itemsEqual says whether f's items are x.
func (f *frame) itemsEqual(x []Item) bool {
	if len(x) != f.nItems() {
		return false
	}
	for _, b := range f.full {
		if !slices.Equal(x[:len(b)], b) {
			return false
		}
		x = x[len(b):]
	}
	return slices.Equal(x, f.items)
}

// cloneItems returns a copy of f's items.
func (f *frame) cloneItems() []Item {
	if len(f.full) == 0 {
		return slices.Clone(f.items)
	}
	x := make([]Item, 0, f.nItems())
	for _, b := range f.full {
		x = append(x, b...)
	}
	return append(x, f.items...)
}

// addItem appends it to f's items.
func (c *compactor) addItem(f *frame, it Item) {
	if len(f.items) == itemBlock {
		f.full = append(f.full, f.items)
		if n := len(c.blocks); n > 0 {
			f.items, c.blocks = c.blocks[n-1], c.blocks[:n-1]
		} else {
			f.items = make([]Item, 0, itemBlock)
		}
	}
	f.items = append(f.items, it)
}

// A compactor is what Compact reuses from call to call: most calls of a
// recording are short calls that end in a trace and a node already seen,
// and finding those must cost no allocation.
type compactor struct {
	_ [64]byte // the walk reads it at every event: not a line another core writes (walkState)
	t *TWPP
	// frames[d] is the call open at depth d, and Walk's record of a call
	// is its depth (a frameIndex): calls nest, so the frame of a call
	// that returned is the next call's at its depth, and a record with
	// no pointer in it costs the walk no write barrier (the frames' own
	// pointers were a fifth of compacting encoding/json's suite while
	// the collector ran).
	frames []frame
	blocks [][]Item           // free blocks of items (frame)
	enc    *backgroundEncoder // of the long traces, while the goroutine is compacted
	// funcs are the TWPP's functions (index+1, 0 unknown) by package
	// and index in it; last the package of the call before.
	funcs    map[string][]int32
	lastHash string
	last     []int32
	// In a segment, the calls open before it (segment.go): outer[k] is
	// what the segment gave call k (1 the innermost), of which returned
	// returned; checks what the merge must check of them.
	outer    []frame
	far      map[int]*frame
	returned int
	checks   []outerCheck
	_        [64]byte
}

// funcOf is t.funcOf of function fn of package hash, found without
// hashing FuncKey: calls follow calls of the same package.
func (c *compactor) funcOf(hash string, fn uint32) int {
	if hash != c.lastHash || c.last == nil {
		if c.funcs == nil {
			c.funcs = make(map[string][]int32)
		}
		c.lastHash, c.last = hash, c.funcs[hash]
	}
	if int(fn) < len(c.last) && c.last[fn] > 0 {
		return int(c.last[fn]) - 1
	}
	i := c.t.funcOf(FuncKey{hash, fn})
	if fn < 1<<16 {
		for len(c.last) <= int(fn) {
			c.last = append(c.last, 0)
		}
		c.last[fn] = int32(i) + 1
		c.funcs[hash] = c.last
	}
	return i
}

// segment splits one segment of a goroutine's stream into calls (walk):
// the whole stream if it is both the first and the last, and then what
// it makes is the goroutine's, its calls' nodes and its roots in c.t.
// Otherwise (segment.go) it walks as if inside the calls open before it
// (none if first), which it keeps as frames of their own (c.outer) for
// the merge to carry on, and leaves its calls still open at its end
// (unless last) in part.open.
func (c *compactor) segment(each func(func(*profile.WPPEvent) error) error, pkgs map[uint32]string, first, last bool) *segmentPart {
	part := &segmentPart{gr: &Goroutine{}}
	gr := part.gr
	c.outer, c.far, c.returned, c.checks = c.outer[:0], nil, 0, nil
	var outer *outerCalls[frameIndex]
	if !first {
		// A frameIndex is 32 bits, and a damaged path names calls up
		// to 2^32 up: no recording is 2^31 calls deep, and the merge
		// refuses a reference to any call that was not open.
		outer = &outerCalls[frameIndex]{frame: func(k int) frameIndex { return -frameIndex(min(k, math.MaxInt32)) }}
	}
	enter := func(hash string, fn uint32, caller frameIndex, hasCaller bool) (frameIndex, error) {
		d := frameIndex(0)
		if hasCaller && caller >= 0 {
			d = caller + 1
		}
		f := c.newFrame(d, c.funcOf(hash, fn))
		if hasCaller {
			// Paths the caller completes while this call runs
			// (up events) come after it in the caller's trace.
			f.at = uint32(len(c.frame(caller).paths))
			if caller < 0 {
				f.outer = int32(-caller)
			}
		}
		return d, nil
	}
	open, err := walk(pkgs, each, outer, enter, func(st *Step[frameIndex]) error {
		if !part.events {
			part.events = true
		}
		switch st.Kind {
		case profile.WPPStart:
			gr.Parent, gr.Spawn = st.Parent, st.Spawn
		case profile.WPPPath:
			if st.Call < 0 {
				c.check(st)
			}
			if st.Up > 0 {
				top := c.frame(st.Top)
				c.addItem(top, Item{At: uint32(len(top.paths)), Kind: ItemUp, Up: st.Up})
			}
			call := c.frame(st.Call)
			if len(call.paths) == maxItemAt {
				return fmt.Errorf("a call of more than %d paths", maxItemAt)
			}
			call.paths = append(call.paths, st.Path)
		case profile.WPPSpawn:
			if st.Call < 0 {
				c.check(st)
			}
			call := c.frame(st.Call)
			c.addItem(call, spawnItem(uint32(len(call.paths)), st.Spawn))
		case profile.WPPReturn:
			if st.Call < 0 {
				c.check(st)
				c.frame(st.Call) // outer grows with the returns: compactor.frame
				c.returned++
				break
			}
			c.close(st.Call, false, gr)
		case profile.WPPStop:
			gr.Stopped = true
		case profile.WPPMemory, profile.WPPValue:
			// A -deps build's memory accesses are the slicer's
			// (package slice), a -wet build's values the whole execution
			// trace's; the TWPP holds control flow only. One of a call
			// open before the segment says that call was open.
			if st.Call < 0 {
				c.check(st)
			}
		}
		return nil
	})
	if outer != nil {
		part.started, part.events = outer.started, part.events || outer.events
	}
	switch {
	case err != nil:
		part.err = err
	case !last:
		part.open = make([]frame, len(open))
		for i, d := range open {
			part.open[i] = c.frames[d].take()
		}
	default:
		// Calls still open when the recording ended, innermost first.
		for i := len(open) - 1; i >= 0; i-- {
			c.close(open[i], true, gr)
		}
	}
	part.outer, part.returned, part.checks = make([]frame, len(c.outer)), c.returned, c.checks
	for k := range c.outer {
		part.outer[k] = c.outer[k].take()
	}
	if len(c.far) > 0 {
		part.far = make(map[int]frame, len(c.far))
		for k, f := range c.far {
			part.far[k] = f.take()
		}
	}
	return part
}

// A frameIndex is a call's frame in compactor.frames: its depth.
type frameIndex int32

// newFrame returns the frame at depth d, made the one of a new call of
// function fn.
func (c *compactor) newFrame(d frameIndex, fn int) *frame {
	if int(d) == len(c.frames) {
		c.frames = append(c.frames, frame{})
	}
	f := &c.frames[d]
	for _, b := range f.full {
		c.blocks = append(c.blocks, b[:0])
	}
	f.fn, f.at, f.outer, f.paths, f.items, f.full = fn, 0, 0, f.paths[:0], f.items[:0], f.full[:0]
	return f
}

// close makes a node of the call of frame d, which returned (or was
// open at the end), and adds it to its caller's items (frame d-1), or,
// with no caller, to the goroutine's roots. The frame is free again
// after.
func (c *compactor) close(d frameIndex, open bool, gr *Goroutine) {
	f := &c.frames[d]
	t := c.t
	fn := t.Funcs[f.fn]
	ti := c.trace(fn, f.paths)
	fn.Traces[ti].Calls++
	var n int
	if f.nItems() == 0 && !open {
		// A call that made no call (most calls): its node is its
		// trace's leaf.
		for len(fn.leaf) <= ti {
			fn.leaf = append(fn.leaf, -1)
		}
		if n = int(fn.leaf[ti]); n < 0 {
			n = t.intern(&Node{Func: f.fn, Trace: ti})
			fn.leaf[ti] = int32(n)
		}
	} else {
		h := nodeHashStart(f.fn, ti, open)
		for _, b := range f.full {
			h = nodeHashItems(h, b)
		}
		h = nodeHashEnd(nodeHashItems(h, f.items))
		var ok bool
		n, ok = t.nodes.find(h, func(i int) bool {
			n := t.Nodes[i]
			return n.Func == f.fn && n.Trace == ti && n.Open == open && f.itemsEqual(n.Items)
		})
		if !ok {
			n = t.addNode(h, &Node{Func: f.fn, Trace: ti, Open: open, Items: f.cloneItems()})
		}
	}
	switch {
	case d > 0:
		c.addItem(&c.frames[d-1], Item{At: f.at, Kind: ItemCall, Node: int32(n)})
	case f.outer > 0:
		// Called by a call open before the segment (segment.go).
		c.addItem(c.frame(-frameIndex(f.outer)), Item{At: f.at, Kind: ItemCall, Node: int32(n)})
	default:
		gr.Roots = append(gr.Roots, int32(n))
	}
}

// trace returns the index of fn's trace of paths, adding a copy of paths
// if there is none.
func (c *compactor) trace(fn *Func, paths []uint64) int {
	if ti, ok := fn.onePathTrace(paths); ok {
		return ti
	}
	h := pathsHash(paths)
	if ti, ok := fn.findTrace(h, paths); ok {
		return ti
	}
	tr := &Trace{}
	if len(paths) > 0 {
		tr.Paths = slices.Clone(paths)
	}
	if len(paths) >= minBackgroundPaths {
		c.enc.add(tr)
	}
	return fn.addTrace(tr, h)
}

// minBackgroundPaths is the length from which a trace is encoded while
// its goroutine is compacted (backgroundEncoder), rather than when the
// TWPP is written: a long trace seen in two goroutines is encoded twice,
// a short one is cheap to encode.
const minBackgroundPaths = 64

// findTrace returns the index of f's trace of paths, whose pathsHash is h.
func (f *Func) findTrace(h uint64, paths []uint64) (int, bool) {
	return f.index.find(h, func(i int) bool { return slices.Equal(f.Traces[i].Paths, paths) })
}

// onePathTrace returns the index of f's trace of paths if it is one path
// that Func.onePath finds.
func (f *Func) onePathTrace(paths []uint64) (int, bool) {
	if len(paths) == 1 && paths[0] < uint64(len(f.onePath)) && f.onePath[paths[0]] >= 0 {
		return int(f.onePath[paths[0]]), true
	}
	return 0, false
}

// addTrace adds tr, whose pathsHash is h, to f's traces.
func (f *Func) addTrace(tr *Trace, h uint64) int {
	ti := len(f.Traces)
	f.index.add(h)
	f.Traces = append(f.Traces, tr)
	if len(tr.Paths) == 1 && tr.Paths[0] < maxOnePath {
		p := int(tr.Paths[0])
		for len(f.onePath) <= p {
			f.onePath = append(f.onePath, -1)
		}
		f.onePath[p] = int32(ti)
	}
	return ti
}

// maxOnePath bounds the path ids whose one-path traces are found by
// index (Func.onePath) rather than by key.
const maxOnePath = 1 << 12

func (t *TWPP) funcOf(k FuncKey) int {
	i, ok := t.funcIndex[k]
	if !ok {
		i = len(t.Funcs)
		t.funcIndex[k] = i
		t.Funcs = append(t.Funcs, &Func{Key: k})
	}
	return i
}

// intern returns the index of the node equal to n, adding n if there is
// none.
func (t *TWPP) intern(n *Node) int {
	h := nodeHash(n.Func, n.Trace, n.Open, n.Items)
	if i, ok := t.findNode(h, n.Func, n.Trace, n.Open, n.Items); ok {
		return i
	}
	return t.addNode(h, n)
}

// addNode adds n, whose nodeHash is h and which equals no node, and
// counts its calls.
func (t *TWPP) addNode(h uint64, n *Node) int {
	n.Calls = 1
	for _, it := range n.Items {
		if it.Kind == ItemCall {
			n.Calls = satAdd(n.Calls, t.Nodes[it.Node].Calls)
		}
	}
	t.Nodes = append(t.Nodes, n)
	t.nodes.add(h)
	return len(t.Nodes) - 1
}

// findNode returns the index of the node of these contents, whose
// nodeHash is h, if there is one. (A suite's recording looks up a node
// for each of its hundreds of millions of calls; a map keyed by an
// encoding of the node cost more than the rest of the compaction.)
func (t *TWPP) findNode(h uint64, fn, trace int, open bool, items []Item) (int, bool) {
	return t.nodes.find(h, func(i int) bool {
		n := t.Nodes[i]
		return n.Func == fn && n.Trace == trace && n.Open == open && slices.Equal(n.Items, items)
	})
}

// nodeHash hashes a node's contents: nodeHashStart, then
// nodeHashItems of its items, in one piece or in several, then
// nodeHashEnd.
func nodeHash(fn, trace int, open bool, items []Item) uint64 {
	return nodeHashEnd(nodeHashItems(nodeHashStart(fn, trace, open), items))
}

func nodeHashStart(fn, trace int, open bool) uint64 {
	h := uint64(fn)*0x9e3779b97f4a7c15 ^ uint64(trace)
	if open {
		h = ^h
	}
	return h * 0xbf58476d1ce4e5b9
}

func nodeHashItems(h uint64, items []Item) uint64 {
	for _, it := range items {
		h = (h ^ uint64(it.At)) * 0x9e3779b97f4a7c15
		h = (h ^ uint64(it.Kind)<<56 ^ uint64(uint32(it.Node)) ^ uint64(it.Up)<<32) * 0xbf58476d1ce4e5b9
	}
	return h
}

func nodeHashEnd(h uint64) uint64 { return h ^ h>>29 }

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

// pathsKey is paths as uvarints, one after the other (a uvarint ends
// itself, so different paths make different keys).
func pathsKey(paths []uint64) string { return string(appendPathsKey(nil, paths)) }

// pathsHash hashes a trace's paths: Compact finds traces by it (Func's
// index), and a reader checks that no trace is given twice, without
// pathsKey's copy of every trace. Four lanes, each
// every fourth path, so that a lane's multiplication does not wait for
// the one before: fastjson's suite reads 50 M paths.
func pathsHash(paths []uint64) uint64 {
	var h [4]uint64
	h[0] = uint64(len(paths))
	i := 0
	for ; i+4 <= len(paths); i += 4 {
		for j := range h {
			h[j] = (h[j] ^ paths[i+j]) * 0x9e3779b97f4a7c15
			h[j] ^= h[j] >> 29
		}
	}
	for j, p := range paths[i:] {
		h[j] = (h[j] ^ p) * 0x9e3779b97f4a7c15
		h[j] ^= h[j] >> 29
	}
	for j := 1; j < len(h); j++ {
		h[0] = (h[0]^h[j])*0xbf58476d1ce4e5b9 + uint64(j)
		h[0] ^= h[0] >> 31
	}
	return h[0]
}

func appendPathsKey(b []byte, paths []uint64) []byte {
	for _, p := range paths {
		b = binary.AppendUvarint(b, p)
	}
	return b
}

// Func returns the function k, or nil if it never ran.
func (t *TWPP) Func(k FuncKey) *Func {
	if i, ok := t.funcIndex[k]; ok {
		return t.Funcs[i]
	}
	return nil
}

// sortedTraces returns f's traces, most calls first.
func (f *Func) sortedTraces() []*Trace {
	s := slices.Clone(f.Traces)
	slices.SortStableFunc(s, func(a, b *Trace) int {
		switch {
		case a.Calls > b.Calls:
			return -1
		case a.Calls < b.Calls:
			return 1
		}
		return 0
	})
	return s
}
