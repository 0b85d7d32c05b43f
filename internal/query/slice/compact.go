package slice

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"

	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/spill"
	"github.com/pathcover/pathcover/profile"
)

// A Compact is a run's compact dynamic dependence graph (the paper's
// OPT): what Load would build, holding only what the paths cannot infer.
// A node is numbered as in Load's graph. Each goroutine keeps its calls
// in compact form (stream.go): function, parent, subtree, paths, and the
// subtree's nodes; the only dependences kept are those through memory,
// one sorted list of writers per reading node. Every other dependence is
// inferred when a slice needs it, by replaying the one call it is in
// (replay.go), whose result is cached.
type Compact struct {
	// Problems are what the replay could not follow exactly, as Load's.
	Problems []string
	t        *funcTable
	gors     []*gor
	files    []string // the recordings, by index (gor.file)
	nodes    int32
	// labels are the memory dependences (labels.go).
	labels labels
	// replayed holds the calls replayed to infer the dependences, and
	// cursor gives those of calls with templates without it.
	replayed *replayCache
	cursor   *cursor
	// node is the node nodeAt gave last.
	node Node
}

// loader reads a directory's recordings into compact goroutines,
// numbering their nodes as Load does.
type loader struct {
	dir string
	// files are the recordings read, by index (gor.file).
	files []string
	// p, when set, is dir's profile, read already.
	p        *profile.Profile
	t        *funcTable
	gors     []*gor
	problems []string
	next     int64
	// mem, when set, is given each goroutine's accesses as they are
	// placed, with the goroutine's index and its recording's.
	mem func(a *rawAccess, g, proc int32, node int32)
	// spillAccesses and spillPairs, if not 0, replace the constants
	// (tests spill a few records at a time).
	spillAccesses, spillPairs int
	// callAccesses sorts each goroutine's accesses in turn.
	callAccesses *spill.Sorter[callAccess]
	// fileDone, when set, is called when a recording's goroutines are
	// numbered and their accesses placed.
	fileDone func()
	// value, when set, is given each word of a value as it is placed,
	// with the node's function.
	value func(a *rawAccess, fn, node int32)
	// wet, when set, is read instead of the directory's recordings
	// (LoadWET); sources too (tests: recordings made as they are read).
	wet     *wet.WET
	sources []wpp.Source
	// keep says whether to keep the goroutines' compact forms, packed;
	// their blocks are read through cache.
	keep  bool
	cache *blockCache
}

// load reads every recording of l.dir.
func (l *loader) load() error {
	if l.p == nil {
		l.p = profile.New()
		problems, err := l.p.ReadDir(l.dir)
		if err != nil {
			return err
		}
		for _, e := range problems {
			l.problems = append(l.problems, e.Error())
		}
	}
	l.t = newFuncTable(l.p)
	if l.wet != nil {
		srcs, done, err := wetSources(l.wet, l.value != nil)
		if err != nil {
			return err
		}
		defer done()
		for pi, src := range srcs {
			if err := l.file(src, pi); err != nil {
				return err
			}
			l.problems = append(l.problems, src.problems()...)
		}
		return l.checkDeps()
	}
	if l.sources != nil {
		for fi, src := range l.sources {
			if err := l.file(src, fi); err != nil {
				return err
			}
		}
		return l.checkDeps()
	}
	names, err := profile.Need(l.dir, profile.KindWPP, recordDeps)
	if err != nil {
		return err
	}
	for fi, name := range names {
		f, err := profile.OpenWPP(name)
		if err != nil {
			return err
		}
		err = l.file(wpp.FileSource{WPPFile: f}, fi)
		f.Close()
		if err != nil {
			return err
		}
	}
	return l.checkDeps()
}

// checkDeps fails if no function the recording called has statements in
// the metadata.
func (l *loader) checkDeps() error {
	if !l.t.anyDeps {
		return fmt.Errorf("%s was not recorded by a -deps build: its metadata has no statements (record with pathcover test -deps or pppexec -deps)", l.dir)
	}
	return nil
}

// file numbers the goroutines of one recording.
func (l *loader) file(f wpp.Source, fi int) error {
	base := filepath.Base(f.Name())
	l.files = append(l.files, f.Name())
	spawned := make(map[uint64]int32)
	var mine []*gor
	for _, gid := range f.Goroutines() {
		if l.callAccesses == nil {
			l.callAccesses = newCallAccesses(l.spillAccesses)
		}
		g, m, err := readGor(l.t, f, fi, gid, true, l.value != nil, l.callAccesses)
		if err != nil {
			return fmt.Errorf("%s: goroutine %d: %v", base, gid, err)
		}
		gi := int32(len(l.gors))
		r := &replay{t: l.t, g: g, gi: gi, next: l.next, build: true, mem: m, spawned: spawned, problems: &l.problems}
		if l.mem != nil {
			r.place = func(a *rawAccess, node int32) { l.mem(a, gi, int32(fi), node) }
		} else {
			r.place = func(*rawAccess, int32) {}
		}
		r.placeValue = l.value
		g.first = int32(l.next)
		if l.cache == nil {
			l.cache = newBlockCache()
		}
		g.numbering(l.cache)
		for c := int32(0); c < g.n; c = g.call(c).next {
			r.call(c)
		}
		m.close()
		if r.err == nil {
			r.err = g.numbered()
		}
		if r.err != nil {
			return fmt.Errorf("%s: goroutine %d: %v", base, gid, r.err)
		}
		if r.next >= math.MaxInt32 {
			return fmt.Errorf("%s: %w: more than %d", l.dir, ErrTooLarge, math.MaxInt32-1)
		}
		l.next = r.next
		g.end = int32(l.next)
		if !l.keep {
			// Only what the next recordings and the memory replay need.
			var calls []ccall
			if g.n > 0 {
				calls = []ccall{g.call(0)}
			}
			g = &gor{file: g.file, id: g.id, spawn: g.spawn, first: g.first, end: g.end, start: -1, n: min(1, g.n), calls: calls}
		}
		mine = append(mine, g)
		l.gors = append(l.gors, g)
	}
	// A goroutine's first call depends on the go statement that started
	// it.
	for _, g := range mine {
		if g.spawn != 0 && g.n > 0 && l.t.funcs[g.call(0).fn].Deps != nil {
			if n, ok := spawned[g.spawn]; ok {
				g.start = n
			}
		}
	}
	if l.fileDone != nil {
		l.fileDone()
	}
	return nil
}

// LoadCompact builds the compact graph (OPT) of the recordings of a -deps
// build in dir: the calls of each goroutine in compact form, numbered,
// and the dependences through memory, which it replays as Load does.
// Its slices are Load's, for runs of any size up to 2^31 statement
// executions.
func LoadCompact(dir string) (*Compact, error) {
	return loadCompact(&loader{dir: dir, keep: true, cache: newBlockCache()})
}

// loadCompact builds OPT from what l reads.
func loadCompact(l *loader) (*Compact, error) {
	// Each process's accesses are replayed once its recording is
	// numbered, and its labels packed: processes share no memory. The
	// accesses, and then the labels, are sorted in bounded memory
	// (spill): a process of hundreds of millions of accesses writes
	// them to temporary files.
	acc := spill.New(placedSeq, placedCodec, cmp.Or(l.spillAccesses, spillAccesses), "")
	defer acc.Close()
	pairs := spill.New(pairKey, pairCodec, cmp.Or(l.spillPairs, spillPairs), "")
	defer pairs.Close()
	var lab labels
	var err error
	l.mem = func(a *rawAccess, g, proc int32, node int32) {
		addr, src := accessKey(a, g, proc)
		if e := acc.Add(placed{seq: a.seq, addr: addr, size: a.size, src: src, node: node, kind: a.kind}); e != nil && err == nil {
			err = e
		}
	}
	l.fileDone = func() {
		if err != nil {
			return
		}
		m := newMemReplay(&l.problems, func(n int32, from []int32) {
			for _, w := range from {
				if w == n {
					continue // a node never depends on itself (x op= y reads before it writes)
				}
				if e := pairs.Add(uint64(n)<<32 | uint64(uint32(w))); e != nil && err == nil {
					err = e
				}
			}
		})
		err = acc.Each(func(p placed) error {
			m.access(&p)
			return err
		})
		if err == nil {
			m.finish()
			err = packPairs(pairs, &lab)
		}
	}
	if lerr := l.load(); lerr != nil {
		return nil, lerr
	}
	if err != nil {
		return nil, err
	}
	lab.data, lab.blocks = slices.Clip(lab.data), slices.Clip(lab.blocks)
	l.t.shapes = nil // every call has its shape's number: the keys are not needed
	o := &Compact{Problems: l.problems, t: l.t, gors: l.gors, files: l.files, nodes: int32(l.next), labels: lab}
	o.replayed = newReplayCache(o.t)
	o.cursor = &cursor{rc: o.replayed, t: o.t}
	return o, nil
}

// spillAccesses and spillPairs are how many accesses (37 bytes each on
// disk, 72 in memory with their keys and the sort's scratch) and label
// pairs (8 bytes on disk, 40 in memory) OPT's load sorts in memory before
// it writes them to temporary files: some 300 MB at most, with a
// goroutine's accesses (spillCallAccesses). TestSliceBoundedMemory builds
// OPT of 50 M statement executions in 1 GiB with them.
const (
	spillAccesses = 2 << 20
	spillPairs    = 4 << 20
)

// packPairs packs the label pairs sorted (reader<<32 | writer), each once,
// into lab, a reader's all at once.
func packPairs(pairs *spill.Sorter[uint64], lab *labels) error {
	var batch []uint64
	err := pairs.Each(func(p uint64) error {
		if k := len(batch); k > 0 && batch[k-1] == p {
			return nil
		}
		if k := len(batch); k >= 1<<16 && batch[k-1]>>32 != p>>32 {
			lab.add(batch)
			batch = batch[:0]
		}
		batch = append(batch, p)
		return nil
	})
	lab.add(batch)
	return err
}

// Nodes returns the number of statement executions.
func (o *Compact) Nodes() int { return int(o.nodes) }

// Funcs are the functions that ran, by their order of first call.
func (o *Compact) Funcs() []*Func { return o.t.funcs }

// Labelled returns the dependences the graph keeps: those through memory.
func (o *Compact) Labelled() int { return o.labels.count }

// Bytes returns what the graph holds, in bytes, but the metadata: the
// calls, their paths, the goroutines and the labels (not the cache of
// replayed calls, which Slice fills and bounds).
func (o *Compact) Bytes() int64 {
	n := o.labels.bytes()
	for _, g := range o.gors {
		n += g.bytes()
	}
	return n
}

// locate returns the goroutine and call of node n.
func (o *Compact) locate(n int32) (int32, int32, error) {
	if n < 0 || n >= o.nodes {
		return 0, 0, fmt.Errorf("no node %d", n)
	}
	gi := sort.Search(len(o.gors), func(i int) bool { return o.gors[i].end > n })
	c, err := o.gors[gi].locate(o.t, n)
	return int32(gi), c, err
}

// memoryOf returns the writers node n read from.
func (o *Compact) memoryOf(n int32) []int32 { return o.labels.of(n) }

// nodeAt returns node n with its dependences, inferred.
func (o *Compact) nodeAt(n int32) (*Node, error) {
	if nd, ok := o.cursor.node(n, o.locate, o.gors); ok {
		if o.t.funcs[nd.Func].wasAccessed(nd.Stmt) {
			nd.Memory = o.memoryOf(n)
		}
		o.node = nd
		return &o.node, nil
	}
	// Often a node of the window asked for last: no need to locate it.
	gi, c, ok := o.replayed.lastHolds(n)
	if !ok {
		var err error
		if gi, c, err = o.locate(n); err != nil {
			return nil, err
		}
	}
	nd, err := o.replayed.nodeOf(o.gors[gi], gi, n, c, o.nodeAt)
	if err != nil {
		return nil, err
	}
	nd.Memory = o.memoryOf(n)
	o.node = nd
	return &o.node, nil
}

func (o *Compact) funcAt(i int32) *Func { return o.t.funcs[i] }

func (o *Compact) goroutineOf(n int32) (string, uint64) {
	g := o.gors[sort.Search(len(o.gors), func(i int) bool { return o.gors[i].end > n })]
	return o.files[g.file], g.id
}

// Node returns node n with its dependences, inferred but for those
// through memory: Load's node n, its Func an index in Funcs.
func (o *Compact) Node(n int32) (*Node, error) { return ownNode(o.nodeAt(n)) }

// ownNode returns a copy of nd, which its graph gave to be read before it
// is asked for another, that the caller may keep.
func ownNode(nd *Node, err error) (*Node, error) {
	if err != nil {
		return nil, err
	}
	return &Node{Func: nd.Func, Stmt: nd.Stmt, Data: slices.Clone(nd.Data), Control: nd.Control, Defs: slices.Clone(nd.Defs), Memory: slices.Clone(nd.Memory), Call: nd.Call, Potential: slices.Clone(nd.Potential)}, nil
}

// ownStmts returns the statements of call c of g's own nodes, in order
// (the entry first), as the replay numbers them.
func ownStmts(t *funcTable, g *gor, c int32) []int32 {
	f := t.funcs[g.call(c).fn]
	if f.Deps == nil {
		return nil
	}
	stmts := []int32{0}
	for _, id := range g.pathIDs(c, nil) {
		blocks, err := f.pathBlocks(id)
		if err != nil {
			break
		}
		for _, b := range blocks {
			stmts = append(stmts, f.Deps.Blocks[b]...)
		}
	}
	return stmts
}

// ownIDs calls fn with each own node of call c of g, in order: the nodes
// of its subtree that are not its callees'.
func ownIDs(g *gor, c int32, fn func(k int, n int32)) {
	next := g.call(c).first
	k := 0
	emit := func(to int32) {
		for ; next < to; next++ {
			fn(k, next)
			k++
		}
	}
	g.children(c, func(ch int32) {
		cc := g.call(ch)
		emit(cc.first)
		next = max(next, cc.end)
	})
	emit(g.call(c).end)
}

// A finder finds the executions of the statements of a criterion
// (match, by function), goroutine by goroutine. A block of calls none of
// whose functions match is not decoded (packedBlock.fns); a call whose
// shape has a template takes its statements from the template (shape.go)
// and is passed over when it runs none of them, without its paths
// decoded. A whole suite has tens of millions of calls: finding the
// criterion took a second a slice.
type finder struct {
	t     *funcTable
	rc    *replayCache // nil: no templates
	match map[int32]map[int32]bool
	mask  uint64
	// byShape holds, for each shape met, the indexes of its calls' own
	// nodes that run the statements.
	byShape map[int32][]int32
	kids    callKids
}

func newFinder(t *funcTable, rc *replayCache, match map[int32]map[int32]bool) *finder {
	fd := &finder{t: t, rc: rc, match: match, byShape: make(map[int32][]int32)}
	for fn := range match {
		fd.mask |= fnBit(fn)
	}
	return fd
}

// in appends to found the nodes of g (goroutine gi) whose statements
// match.
func (fd *finder) in(g *gor, gi int32, found []int32) []int32 {
	g.eachOf(fd.mask, func(c int32, cc *ccall) {
		m := fd.match[cc.fn]
		if m == nil {
			return
		}
		if cc.shape > 0 && fd.rc != nil {
			if t := fd.template(g, gi, c, cc.shape); t != nil {
				if kids := kidsBetween(g, c+1, cc.next, &fd.kids); t.fits(kids) {
					found = fd.fromTemplate(cc, t, kids, m, found)
					return
				}
			}
		}
		stmts := ownStmts(fd.t, g, c)
		ownIDs(g, c, func(k int, n int32) {
			if k < len(stmts) && m[stmts[k]] {
				found = append(found, n)
			}
		})
	})
	return found
}

// template returns the template of shape, the shape of call c of g,
// made if it is not yet, or nil if its calls have none.
func (fd *finder) template(g *gor, gi, c, shape int32) *shapeTemplate {
	t := fd.rc.template(shape)
	if t == nil {
		fd.rc.first(g, partRef{gi, c, 0})
		t = fd.rc.template(shape)
	}
	if t == notOneWindow {
		return nil
	}
	return t
}

// fromTemplate appends to found the own nodes of call cc, of template t
// and children kids, that run the statements of m.
func (fd *finder) fromTemplate(cc *ccall, t *shapeTemplate, kids *callKids, m map[int32]bool, found []int32) []int32 {
	at, ok := fd.byShape[cc.shape]
	if !ok {
		for k, n := range t.nodes {
			if m[n.stmt] {
				at = append(at, int32(k))
			}
		}
		fd.byShape[cc.shape] = at
	}
	if len(at) == 0 {
		return found
	}
	next, j, i := cc.first, 0, 0
	for k := int32(0); i < len(at); k++ {
		for j < len(t.kidPos) && t.kidPos[j] == k {
			next = kids.end[j]
			j++
		}
		if k == at[i] {
			found = append(found, next)
			i++
		}
		next++
	}
	return found
}

// Find returns the nodes of the statements at c's place, in order, as
// Graph.Find.
func (o *Compact) Find(c Criterion) []int32 {
	found, _ := findOrAll(c, func(c Criterion) ([]int32, error) { return o.find(c), nil })
	return found
}

func (o *Compact) find(c Criterion) []int32 {
	match := matchStmts(o.t.funcs, c)
	if len(match) == 0 {
		return nil
	}
	var found []int32
	fd := newFinder(o.t, o.replayed, match)
	for gi, g := range o.gors {
		found = fd.in(g, int32(gi), found)
	}
	slices.Sort(found)
	return found
}

// Slice computes the backward slice of criterion c: Graph.Slice's.
func (o *Compact) Slice(c Criterion) (*Slice, error) {
	return sliceOf(o, o.Find(c), c)
}

// Calls returns the number of calls the graph keeps.
func (o *Compact) Calls() int {
	n := 0
	for _, g := range o.gors {
		n += int(g.n)
	}
	return n
}

// Count returns the dependences of the run, as Load's graph holds them
// (data, memory, control and call edges), and those the graph labels
// (through memory): it replays every call, keeping nothing.
func (o *Compact) Count() (deps, labelled int64) {
	labelled = int64(o.labels.count)
	deps = labelled
	edges := func(n *Node) int64 {
		k := int64(len(n.Data))
		if n.Control >= 0 {
			k++
		}
		if n.Call >= 0 {
			k++
		}
		return k
	}
	r := &replay{t: o.t, windowStmts: o.replayed.r.windowStmts}
	for gi, g := range o.gors {
		for c := range g.n {
			if o.t.funcs[g.call(c).fn].Deps == nil {
				continue
			}
			entry := g.call(c).first
			r.localWindows(g, int32(gi), c, nil, false, func(d *callDeps, _ *checkpoint) bool {
				for k := range d.nodes {
					if d.ids[k] != entry {
						nd := d.node(k)
						deps += edges(&nd)
					}
				}
				for _, kd := range d.kids {
					if o.t.funcs[g.call(kd.ch).fn].Deps != nil {
						deps += edges(&Node{Data: make([]int32, kd.n), Control: kd.ctl, Call: kd.caller})
					}
				}
				return true
			})
		}
		// Root calls: their entries depend on nothing, but a goroutine's
		// first on its go statement.
		if g.start >= 0 {
			if nd, err := o.nodeAt(g.call(0).first); err == nil {
				deps += edges(nd)
			}
		}
	}
	return deps, labelled
}

// Executed returns the statements that ran (the entries of functions
// aside), in order of file, line and column.
func (o *Compact) Executed() []Stmt {
	seen := make(map[[2]int32]bool)
	for _, g := range o.gors {
		g.each(func(c int32, cc *ccall) {
			for _, si := range ownStmts(o.t, g, c) {
				if si > 0 {
					seen[[2]int32{cc.fn, si}] = true
				}
			}
		})
	}
	stmts := make(map[Stmt]bool)
	for k := range seen {
		stmts[stmtOf(o.t.funcs[k[0]], k[1])] = true
	}
	var list []Stmt
	for st := range stmts {
		list = append(list, st)
	}
	slices.SortFunc(list, func(a, b Stmt) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Func, b.Func))
	})
	return list
}
