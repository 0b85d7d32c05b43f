package wpp

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A HotPath is a sequence of consecutive paths and how often it ran.
type HotPath struct {
	// Steps are the paths, each of its function.
	Steps []HotStep
	Count uint64
	// Weight is Count × len(Steps): the paths it stands for.
	Weight uint64
	// Interprocedural says the sequence crosses calls.
	Interprocedural bool
}

// A HotStep is one path of a hot sequence.
type HotStep struct {
	Func FuncKey
	Name string `json:",omitempty"`
	Path uint64
}

// HotPaths are the hottest sequences.
type HotPaths []HotPath

// MaxHotLen bounds the sequences Hot counts: each distinct call subtree
// keeps its first and last MaxHotLen-1 paths while Hot runs.
const MaxHotLen = 64

// Hot returns the k heaviest sequences of 2 to maxLen consecutive path
// events (Larus's hot subpaths: weight is length × frequency), heaviest
// first, then shortest, then by their steps (function, then path), a
// sequence within one call before the same across calls:
//
//   - within one call: counted on each function's distinct traces,
//     weighted by their calls;
//   - across calls: the windows of each goroutine's paths, in the order
//     they ran, that hold paths of two calls or more, counted on the
//     call graph's DAG without expanding it (hotCounter), so in time
//     linear in the TWPP, not in the run.
func (t *TWPP) Hot(k, maxLen int, names Names) (HotPaths, error) {
	if maxLen < 2 || maxLen > MaxHotLen {
		return nil, fmt.Errorf("hot sequences of at most %d paths: 2 to %d", maxLen, MaxHotLen)
	}
	h := &hotCounter{t: t, maxLen: maxLen}
	h.withinCalls()
	if err := h.acrossCalls(); err != nil {
		return nil, err
	}
	name := func(fi int32) string { return "" }
	if names != nil {
		cache := make(map[int32]string)
		name = func(fi int32) string {
			s, ok := cache[fi]
			if !ok {
				s = names(t.Funcs[fi].Key)
				cache[fi] = s
			}
			return s
		}
	}
	slices.SortFunc(h.entries, func(a, b hotEntry) int {
		return cmp.Or(cmp.Compare(b.weight(), a.weight()), cmp.Compare(len(a.steps), len(b.steps)), h.compareSteps(a.steps, b.steps), compareBool(a.inter, b.inter))
	})
	out := make(HotPaths, 0, min(k, len(h.entries)))
	for _, e := range h.entries[:min(k, len(h.entries))] {
		hp := HotPath{Count: e.count, Weight: e.weight(), Interprocedural: e.inter}
		for _, s := range e.steps {
			hp.Steps = append(hp.Steps, HotStep{Func: t.Funcs[s.fn].Key, Name: name(s.fn), Path: s.path})
		}
		out = append(out, hp)
	}
	return out, nil
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// A hotTok is a path in a sequence that hotCounter counts windows of: of
// function fn, completed by call src (a number the counter gives each
// call, or each occurrence of a summarised subtree, of the sequence).
// A gap (fn < 0) stands for paths left out: no window spans it.
type hotTok struct {
	fn   int32
	src  int32
	path uint64
}

var hotGap = hotTok{fn: -1}

// A hotEntry is a sequence counted, with its count.
type hotEntry struct {
	steps []hotTok // src unset
	count uint64
	inter bool
}

func (e hotEntry) weight() uint64 { return satMul(e.count, uint64(len(e.steps))) }

// A hotSummary is what a parent's windows see of a subtree: its first
// and last maxLen-1 paths, with a gap between if it has more than twice
// that many, or else all its paths (head).
type hotSummary struct {
	head, tail []hotTok
}

// A hotCounter counts windows of consecutive paths.
//
// Across calls it works on the DAG of call subtrees. Every window of a
// goroutine's paths that spans two calls or more has one lowest call
// whose subtree holds it all; it is counted there, once per occurrence
// of that subtree in the run (occ, from the goroutines' roots down the
// DAG), and at the goroutine if it spans two of its roots. A subtree's
// sequence of paths is its call's own paths and, where it made a call,
// the callee's summary (hotSummary): a window that reaches into a
// callee sees at most maxLen-1 of its first or last paths, and one
// that lies within the callee is the callee's to count. So each
// distinct node's sequence is built once from its trace and its
// callees' summaries, and the work grows with the DAG, not the run.
//
// A path up (ItemUp: a range-over-func loop body's path, completed by
// a caller while the iterator runs) belongs to a call outside the
// subtree that recorded it, so a subtree with such paths that escape
// it (esc > 0) has no sequence of its own: it is expanded in place in
// the sequence of its lowest caller whose subtree they do not escape,
// with the cursors of Expand.
type hotCounter struct {
	t       *TWPP
	maxLen  int
	entries []hotEntry
	index   hashIndex // entries by their hash

	esc     []uint32 // per node: how many of its callers its paths up reach
	summary []hotSummary
	canon   []int32 // per closed node: the first node of its sequence
	srcs    int32

	// The callees' contexts counted so far (emitCallee).
	callees     []calleeContext
	calleeArena []hotTok
	calleeIndex hashIndex

	// The sequence being made across calls is streamed (push), not
	// kept: a test's loop makes one of millions of paths. What is kept
	// is its last maxLen paths (win), its first 2(maxLen-1) (head) and
	// last maxLen-1 (tail, a ring), its key, its length, and the run of
	// its last source; weight (0: none) is what its windows are counted
	// with as they end.
	stream struct {
		weight        uint64
		n             int
		win           []hotTok
		runLen, noGap int // the last source's run, the paths since a gap
		head, tail    []hotTok
		lastSrc       int32
		keyA, keyB    uint64
	}
}

// add adds weight to the count of window w, found by a hash of its
// functions and paths (hashIndex: the hottest loop of a suite makes
// windows by the hundred million).
func (h *hotCounter) add(w []hotTok, weight uint64, inter bool) {
	hash := uint64(len(w))
	if inter {
		hash |= 1 << 8
	}
	for _, x := range w {
		hash = (hash^uint64(x.fn))*0x9e3779b97f4a7c15 ^ x.path
		hash *= 0xbf58476d1ce4e5b9
	}
	if i, ok := h.index.find(hash, func(i int) bool { return h.entries[i].is(w, inter) }); ok {
		h.entries[i].count = satAdd(h.entries[i].count, weight)
		return
	}
	steps := make([]hotTok, len(w))
	for j, x := range w {
		steps[j] = hotTok{fn: x.fn, path: x.path}
	}
	h.entries = append(h.entries, hotEntry{steps: steps, inter: inter, count: weight})
	h.index.add(hash)
}

// is says whether e counts window w.
func (e *hotEntry) is(w []hotTok, inter bool) bool {
	if e.inter != inter || len(e.steps) != len(w) {
		return false
	}
	for i, x := range w {
		if e.steps[i].fn != x.fn || e.steps[i].path != x.path {
			return false
		}
	}
	return true
}

func (h *hotCounter) compareSteps(a, b []hotTok) int {
	for i := range min(len(a), len(b)) {
		fa, fb := h.t.Funcs[a[i].fn].Key, h.t.Funcs[b[i].fn].Key
		if c := cmp.Or(strings.Compare(fa.Hash, fb.Hash), cmp.Compare(fa.Index, fb.Index), cmp.Compare(a[i].path, b[i].path)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// withinCalls counts the windows within one call, on each function's
// distinct traces, weighted by their calls. A window is a suffix of the
// maxLen paths that end where it ends (its gram; fewer at a trace's
// start), and a trace's loops repeat a few grams many times
// (fastjson's suite: 50 M paths in traces, 59 distinct grams of 4):
// so each position's gram is counted, one lookup where its windows are
// maxLen-1, and then each distinct gram's suffixes.
func (h *hotCounter) withinCalls() {
	type gram struct {
		fn    int32
		at, n int // its paths: arena[at : at+n]
		count uint64
	}
	var (
		arena []uint64
		grams []gram
		index hashIndex
	)
	m := h.maxLen - 1
	for fi, f := range h.t.Funcs {
		fn := int32(fi)
		for _, tr := range f.Traces {
			for i := 1; i < len(tr.Paths); i++ {
				g := tr.Paths[max(0, i-m) : i+1]
				hash := uint64(len(g))<<32 ^ uint64(uint32(fn))
				for _, p := range g {
					hash = (hash ^ p) * 0x9e3779b97f4a7c15
					hash ^= hash >> 29
				}
				j, ok := index.find(hash, func(j int) bool {
					e := &grams[j]
					return e.fn == fn && slices.Equal(arena[e.at:e.at+e.n], g)
				})
				if !ok {
					j = len(grams)
					grams = append(grams, gram{fn: fn, at: len(arena), n: len(g)})
					arena = append(arena, g...)
					index.add(hash)
				}
				grams[j].count = satAdd(grams[j].count, tr.Calls)
			}
		}
	}
	w := make([]hotTok, h.maxLen)
	for _, g := range grams {
		paths := arena[g.at : g.at+g.n]
		for i, p := range paths {
			w[i] = hotTok{fn: g.fn, path: p}
		}
		for l := 2; l <= len(paths); l++ {
			h.add(w[len(paths)-l:len(paths)], g.count, false)
		}
	}
}

// acrossCalls counts the windows that span calls (hotCounter).
func (h *hotCounter) acrossCalls() error {
	t := h.t
	h.esc = make([]uint32, len(t.Nodes))
	h.summary = make([]hotSummary, len(t.Nodes))
	occ := make([]uint64, len(t.Nodes))
	for ni, n := range t.Nodes {
		if n.Func < 0 || n.Func >= len(t.Funcs) || n.Trace < 0 || n.Trace >= len(t.Funcs[n.Func].Traces) {
			return fmt.Errorf("node %d: no function %d, trace %d", ni, n.Func, n.Trace)
		}
		var esc uint32
		for _, it := range n.Items {
			switch it.Kind {
			case ItemCall:
				if it.Node < 0 || it.Node >= ni {
					return fmt.Errorf("node %d calls node %d, not one before it", ni, it.Node)
				}
				if e := h.esc[it.Node]; e > 0 {
					esc = max(esc, e-1)
				}
			case ItemUp:
				esc = max(esc, it.Up)
			}
		}
		h.esc[ni] = esc
	}
	for _, p := range t.Processes {
		for _, g := range p.Goroutines {
			for _, r := range g.Roots {
				if r < 0 || r >= len(t.Nodes) {
					return fmt.Errorf("goroutine %d: no node %d", g.ID, r)
				}
				occ[r] = satAdd(occ[r], 1)
			}
		}
	}
	for ni := len(t.Nodes) - 1; ni >= 0; ni-- {
		for _, it := range t.Nodes[ni].Items {
			if it.Kind == ItemCall {
				occ[it.Node] = satAdd(occ[it.Node], occ[ni])
			}
		}
	}
	// Children come before their callers, so each closed node's callees
	// are summarised when it is reached. Distinct subtrees often have
	// the same sequence (their callees' summaries alike: math/big's
	// suite, 338 k closed nodes, has 39 k sequences): each sequence is
	// counted once, with the occurrences of all its nodes (weight, at
	// its first node), after they are all known.
	var stack []hotCursor
	weight := make([]uint64, len(t.Nodes))
	first := make(map[seqKey]int32)
	counted := make([]bool, len(t.Nodes)) // the first node of its sequence
	canon := make([]int32, len(t.Nodes))  // a closed node's sequence's first node
	h.canon = canon
	for ni := range t.Nodes {
		if h.esc[ni] > 0 {
			continue
		}
		if err := h.genClosed(ni, &stack, 0); err != nil {
			return err
		}
		k, sum := h.end()
		if f, ok := first[k]; ok {
			weight[f] = satAdd(weight[f], occ[ni])
			h.summary[ni] = h.summary[f]
			canon[ni] = f
			continue
		}
		first[k] = int32(ni)
		canon[ni] = int32(ni)
		counted[ni] = true
		weight[ni] = occ[ni]
		h.summary[ni] = sum
	}
	first = nil
	for ni := range t.Nodes {
		if counted[ni] && weight[ni] > 0 {
			if err := h.genClosed(ni, &stack, weight[ni]); err != nil {
				return err
			}
		}
	}
	h.countCallees()
	return h.acrossRoots(canon)
}

// acrossRoots counts the windows that span two roots of a goroutine or
// more. A test's loop calls into the package from code that is not
// instrumented, so a goroutine can have millions of roots (math/big's
// suite: 75 M paths in its roots' summaries), and most follow the same
// few roots. The windows that end in a root's paths and start before it
// depend only on its sequence and on the last maxLen-1 paths before it:
// the sequences of the roots before it, back to the first that takes
// the paths before it to maxLen-1, or to the goroutine's start (its
// context). So each distinct context (by the sequences' first nodes,
// canon) is counted once, with how often it occurs.
func (h *hotCounter) acrossRoots(canon []int32) error {
	m := h.maxLen - 1
	sumLen := func(ni int32) int {
		s := &h.summary[ni]
		return len(s.head) + len(s.tail)
	}
	var (
		arena  []int32 // the contexts, one after the other
		ctxs   []rootContext
		index  hashIndex
		key    []int32
		prev   []int32 // the roots' sequences, the goroutine's so far
		lastAt = -1    // ctxs's index of the last context, or -1
	)
	for _, p := range h.t.Processes {
		for _, g := range p.Goroutines {
			prev = prev[:0]
			lastAt = -1
			for _, r := range g.Roots {
				if h.esc[r] > 0 {
					return fmt.Errorf("goroutine %d: a path %d calls up, below the goroutine's first call", g.ID, h.esc[r])
				}
				c := canon[r]
				if sumLen(c) == 0 {
					continue // no paths: no window sees it
				}
				if len(prev) > 4*h.maxLen {
					// Every root in prev has a path, so its last
					// maxLen roots hold the maxLen-1 paths before the
					// next, and more.
					prev = prev[:copy(prev, prev[len(prev)-h.maxLen:])]
				}
				prev = append(prev, c)
				i, need := len(prev)-1, m
				for i > 0 && need > 0 {
					i--
					need -= sumLen(prev[i])
				}
				key = prev[i:]
				if lastAt >= 0 && slices.Equal(ctxs[lastAt].of(arena), key) {
					ctxs[lastAt].count = satAdd(ctxs[lastAt].count, 1)
					continue
				}
				hash := uint64(len(key))
				for _, x := range key {
					hash = (hash ^ uint64(uint32(x))) * 0x9e3779b97f4a7c15
					hash ^= hash >> 29
				}
				j, ok := index.find(hash, func(j int) bool { return slices.Equal(ctxs[j].of(arena), key) })
				if !ok {
					j = len(ctxs)
					ctxs = append(ctxs, rootContext{at: len(arena), n: len(key)})
					arena = append(arena, key...)
					index.add(hash)
				}
				ctxs[j].count = satAdd(ctxs[j].count, 1)
				lastAt = j
			}
		}
	}
	for _, c := range ctxs {
		key := c.of(arena)
		h.srcs = 0
		h.begin(0)
		for _, r := range key[:len(key)-1] {
			h.emitSummary(int(r))
		}
		h.stream.weight = c.count
		h.emitSummary(int(key[len(key)-1]))
	}
	return nil
}

// emitCallee pushes closed node ni's summary, a callee's, to the
// sequence. The windows counted that end in it are those that start
// before it (within it, all are of one source), so they depend only on
// its sequence and on the last maxLen-1 paths before it, whatever their
// sources (each such window spans the callee's and another): a loop's
// calls repeat a few such contexts
// (compress/flate's suite: 21 M calls in 28 k subtrees). So its windows
// are not counted here but its context is, with the sequence's weight,
// and countCallees counts each context's windows once.
func (h *hotCounter) emitCallee(ni int) {
	st := &h.stream
	if st.weight == 0 {
		h.emitSummary(ni)
		return
	}
	m := h.maxLen - 1
	ctx := st.win[len(st.win)-min(st.noGap, m, len(st.win)):]
	c := h.canon[ni]
	hash := uint64(uint32(c))<<8 | uint64(len(ctx))
	for _, x := range ctx {
		hash = (hash^uint64(uint32(x.fn)))*0x9e3779b97f4a7c15 ^ x.path
		hash ^= hash >> 29
	}
	j, ok := h.calleeIndex.find(hash, func(j int) bool {
		e := &h.callees[j]
		return e.node == c && e.n == len(ctx) && sameSteps(h.calleeArena[e.at:e.at+e.n], ctx)
	})
	if !ok {
		j = len(h.callees)
		h.callees = append(h.callees, calleeContext{node: c, at: len(h.calleeArena), n: len(ctx)})
		h.calleeArena = append(h.calleeArena, ctx...)
		h.calleeIndex.add(hash)
	}
	h.callees[j].count = satAdd(h.callees[j].count, st.weight)
	w := st.weight
	st.weight = 0
	h.emitSummary(ni)
	st.weight = w
}

// sameSteps says whether a and b are the same paths of the same functions.
func sameSteps(a, b []hotTok) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].fn != b[i].fn || a[i].path != b[i].path {
			return false
		}
	}
	return true
}

// A calleeContext is a callee's sequence (node) and the paths before it
// that its windows see (emitCallee): calleeArena[at:at+n]; count is the
// weight of its windows.
type calleeContext struct {
	node  int32
	at, n int
	count uint64
}

// countCallees counts the windows of each callee's context once
// (emitCallee).
func (h *hotCounter) countCallees() {
	for _, e := range h.callees {
		h.srcs = 0
		h.begin(0)
		src := h.newSource()
		for _, x := range h.calleeArena[e.at : e.at+e.n] {
			h.push(hotTok{fn: x.fn, src: src, path: x.path})
		}
		h.stream.weight = e.count
		h.emitSummary(int(e.node))
	}
	h.callees, h.calleeArena, h.calleeIndex = nil, nil, hashIndex{}
}

// A rootContext is a root's sequence with the sequences before it that
// its windows see (acrossRoots): arena[at:at+n], the root's last.
type rootContext struct {
	at, n int
	count uint64
}

func (c rootContext) of(arena []int32) []int32 { return arena[c.at : c.at+c.n] }

// begin starts a sequence (stream), its windows of 2 to maxLen paths
// without a gap that span two sources or more counted as they end, with
// weight (0: not counted).
func (h *hotCounter) begin(weight uint64) {
	st := &h.stream
	m := h.maxLen - 1
	st.weight, st.n, st.runLen, st.noGap, st.lastSrc = weight, 0, 0, 0, 0
	st.win = slices.Grow(st.win[:0], 2*h.maxLen)
	st.head = slices.Grow(st.head[:0], 2*m)
	st.tail = slices.Grow(st.tail[:0], m)[:m]
	st.keyA, st.keyB = 0, 0x6a09e667f3bcc908
}

// push appends x to the sequence: it counts the windows that end at x
// (begin), and keeps what end needs.
func (h *hotCounter) push(x hotTok) {
	st := &h.stream
	st.n++
	// The key: the paths, and where the sources change (keyOf).
	change := uint64(0)
	if st.n > 1 && x.src != st.lastSrc {
		change = 1
	}
	st.lastSrc = x.src
	st.keyA = (st.keyA^uint64(uint32(x.fn))^change<<32)*0x9e3779b97f4a7c15 ^ x.path
	st.keyA ^= st.keyA >> 29
	st.keyB = (st.keyB^x.path)*0xbf58476d1ce4e5b9 ^ (uint64(uint32(x.fn)) | change<<32)
	st.keyB ^= st.keyB >> 31
	m := h.maxLen - 1
	if len(st.head) < 2*m {
		st.head = append(st.head, x)
	}
	st.tail[st.n%m] = x
	if x.fn < 0 {
		st.win, st.runLen, st.noGap = st.win[:0], 0, 0
		return
	}
	if st.noGap > 0 && x.src != st.win[len(st.win)-1].src {
		st.runLen = 0
	}
	st.runLen++
	st.noGap++
	if len(st.win) == cap(st.win) {
		st.win = st.win[:copy(st.win, st.win[len(st.win)-(h.maxLen-1):])]
	}
	st.win = append(st.win, x)
	if st.weight == 0 {
		return
	}
	// Windows within the last source's run are of one source.
	for l := max(2, st.runLen+1); l <= h.maxLen && l <= st.noGap; l++ {
		h.add(st.win[len(st.win)-l:], st.weight, true)
	}
}

// skipOwn stands for n paths of fn's call, pushed after maxLen-1 paths
// or more of the same source and the sequence's head (gen), and
// followed by maxLen-1 more of it: it changes none of the windows
// counted, nor the head or the tail, only the key and the counts of
// paths. The key says only that paths of fn were left out here: two
// sequences that differ only within such runs count the same windows
// and have the same summary, so they may be counted as one.
func (h *hotCounter) skipOwn(fn int32, n int) {
	st := &h.stream
	st.n += n
	st.runLen += n
	st.noGap += n
	st.keyA = (st.keyA^uint64(uint32(fn))^3<<32)*0x9e3779b97f4a7c15 ^ 1<<63
	st.keyA ^= st.keyA >> 29
	st.keyB = (st.keyB^1<<63)*0xbf58476d1ce4e5b9 ^ (uint64(uint32(fn)) | 3<<32)
	st.keyB ^= st.keyB >> 31
}

// end returns the sequence's key and its summary: its first and last
// maxLen-1 paths, or all of them if it has at most twice that. Every gap
// in a sequence has maxLen-1 paths or more on each side (a summary's
// head and tail), so a summary's head and tail hold no gap.
func (h *hotCounter) end() (seqKey, hotSummary) {
	st := &h.stream
	m := h.maxLen - 1
	key := seqKey{st.keyA ^ uint64(st.n), st.keyB}
	if st.n <= 2*m {
		return key, hotSummary{head: slices.Clone(st.head[:st.n])}
	}
	s := hotSummary{head: slices.Clone(st.head[:m]), tail: make([]hotTok, 0, m)}
	for i := st.n - m + 1; i <= st.n; i++ {
		s.tail = append(s.tail, st.tail[i%m])
	}
	return key, s
}

// genClosed streams the sequence of closed node ni (gen), its windows
// counted with weight (0: not counted).
func (h *hotCounter) genClosed(ni int, stack *[]hotCursor, weight uint64) error {
	h.srcs = 0
	h.begin(weight)
	*stack = (*stack)[:0]
	return h.gen(ni, stack)
}

// A seqKey is a hash of a sequence, 128 bits: its paths, and where its
// sources change (the windows counted across calls are those that span
// a change). Two sequences of one key are taken for the same.
type seqKey [2]uint64

// emitSummary pushes closed node ni's summary to the sequence, as one
// source.
func (h *hotCounter) emitSummary(ni int) {
	src := h.newSource()
	s := h.summary[ni]
	for _, x := range s.head {
		h.push(hotTok{fn: x.fn, src: src, path: x.path})
	}
	if s.tail == nil {
		return
	}
	h.push(hotGap)
	for _, x := range s.tail {
		h.push(hotTok{fn: x.fn, src: src, path: x.path})
	}
}

func (h *hotCounter) newSource() int32 {
	h.srcs++
	return h.srcs
}

// A hotCursor is a call being expanded into a sequence: its paths emitted
// so far, as Expand's cursor.
type hotCursor struct {
	fn    int32
	src   int32
	paths []uint64
	next  int
}

// gen appends the sequence of call ni, expanded as Expand does but for
// its callees whose paths up do not escape them, which are summarised.
func (h *hotCounter) gen(ni int, stack *[]hotCursor) error {
	t := h.t
	n := t.Nodes[ni]
	*stack = append(*stack, hotCursor{fn: int32(n.Func), src: h.newSource(), paths: t.Funcs[n.Func].Traces[n.Trace].Paths})
	me := len(*stack) - 1
	m := h.maxLen - 1
	own := func(upTo int) {
		c := &(*stack)[me]
		upTo = min(upTo, len(c.paths))
		if skip := upTo - c.next - 2*m; skip > 0 {
			// A long run of the call's own paths: the windows that end
			// past its first m paths and before its last m lie within
			// it, one source, and are not counted.
			for end := c.next + m; c.next < end || h.stream.n < 2*m; c.next++ {
				h.push(hotTok{fn: c.fn, src: c.src, path: c.paths[c.next]})
			}
			if skip = upTo - c.next - m; skip > 0 {
				h.skipOwn(c.fn, skip)
				c.next += skip
			}
		}
		for ; c.next < upTo; c.next++ {
			h.push(hotTok{fn: c.fn, src: c.src, path: c.paths[c.next]})
		}
	}
	for _, it := range n.Items {
		own(int(min(it.At, uint64(len((*stack)[me].paths)))))
		switch it.Kind {
		case ItemCall:
			if h.esc[it.Node] == 0 {
				h.emitCallee(it.Node)
			} else if err := h.gen(it.Node, stack); err != nil {
				return err
			}
		case ItemUp:
			s := *stack
			if int(it.Up) >= len(s) {
				return fmt.Errorf("node %d: a path %d calls up, above its lowest caller that holds it", ni, it.Up)
			}
			owner := &s[len(s)-1-int(it.Up)]
			if owner.next >= len(owner.paths) {
				return fmt.Errorf("node %d: a path %d calls up, past the end of that call's trace", ni, it.Up)
			}
			h.push(hotTok{fn: owner.fn, src: owner.src, path: owner.paths[owner.next]})
			owner.next++
		}
	}
	own(len((*stack)[me].paths))
	*stack = (*stack)[:me]
	return nil
}

// WriteText writes the hot paths, heaviest first.
func (hs HotPaths) WriteText(w io.Writer) error {
	for i, h := range hs {
		kind := "in one call"
		if h.Interprocedural {
			kind = "across calls"
		}
		fmt.Fprintf(w, "%d. %d runs × %d paths = %d, %s:\n", i+1, h.Count, len(h.Steps), h.Weight, kind)
		for _, s := range h.Steps {
			fmt.Fprintf(w, "     %s path %d\n", refName(s.Func, s.Name), s.Path)
		}
	}
	return nil
}

// WriteJSON writes the hot paths as JSON.
func (hs HotPaths) WriteJSON(w io.Writer) error { return writeJSON(w, hs) }
