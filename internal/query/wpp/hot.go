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
	// FirstCall is the call its first path ran in, at its first run
	// (TWPP.AddFirstRuns), if asked for.
	FirstCall *CallID `json:",omitempty"`
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
//
// It fails, rather than swamp the machine, if the distinct windows and
// contexts it would keep hold more than maxHotSteps paths (2 GB of
// them: sort's suite goes past it with maxLen 32, and was killed at 24 GB
// with 64 before there was a bound).
func (t *TWPP) Hot(k, maxLen int, names Names) (HotPaths, error) {
	return t.hot(k, maxLen, names, false)
}

// HotMaximal is Hot, but a sequence that lies within a heavier one it
// lists is left out: a loop's windows of fewer rounds, listed after its
// window of maxLen rounds (path 33 ×3 after path 33 ×4) and the windows
// that start elsewhere in its rounds (B A B A after A B A B), and the
// parts of a longer hot sequence that occur no more often than it. What is left
// are the sequences that are hot in their own right: a part that also
// occurs elsewhere, often enough to outweigh the whole, is listed before
// it and kept.
func (t *TWPP) HotMaximal(k, maxLen int, names Names) (HotPaths, error) {
	return t.hot(k, maxLen, names, true)
}

func (t *TWPP) hot(k, maxLen int, names Names, maximal bool) (HotPaths, error) {
	if maxLen < 2 || maxLen > MaxHotLen {
		return nil, fmt.Errorf("hot sequences of at most %d paths: 2 to %d", maxLen, MaxHotLen)
	}
	h := &hotCounter{t: t, maxLen: maxLen}
	h.withinCalls()
	if err := h.acrossCalls(); err != nil {
		return nil, err
	}
	if h.full {
		return nil, h.tooLarge()
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
	// (The steps compared only between sequences of one weight and
	// length: cmp.Or would compare them every time.)
	h.rankFuncs()
	slices.SortFunc(h.entries, func(a, b hotEntry) int {
		if c := cmp.Or(cmp.Compare(b.weight(), a.weight()), cmp.Compare(len(a.steps), len(b.steps))); c != 0 {
			return c
		}
		return cmp.Or(h.compareSteps(a.steps, b.steps), compareBool(a.inter, b.inter))
	})
	out := make(HotPaths, 0, min(k, len(h.entries)))
	var listed []hotEntry
	for _, e := range h.entries {
		if len(out) == k {
			break
		}
		if maximal && slices.ContainsFunc(listed, func(l hotEntry) bool { return within(e.steps, l.steps) }) {
			continue
		}
		listed = append(listed, e)
		hp := HotPath{Count: e.count, Weight: e.weight(), Interprocedural: e.inter}
		for _, s := range e.steps {
			hp.Steps = append(hp.Steps, HotStep{Func: t.Funcs[s.fn].Key, Name: name(s.fn), Path: s.path})
		}
		out = append(out, hp)
	}
	return out, nil
}

// within reports whether steps lie, in order and together, in longer or
// in its next round if longer repeats (a loop of hash4 and deflate,
// listed as A B A B, holds B A B A too: another window of its rounds).
func within(steps, longer []hotTok) bool {
	same := func(a, b hotTok) bool { return a.fn == b.fn && a.path == b.path }
	for p := 1; p < len(longer); p++ {
		if slices.EqualFunc(longer[p:], longer[:len(longer)-p], same) {
			longer = append(slices.Clip(longer), longer[len(longer)-p:]...)
			break
		}
	}
	for i := 0; i+len(steps) <= len(longer); i++ {
		if slices.EqualFunc(steps, longer[i:i+len(steps)], same) {
			return true
		}
	}
	return false
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

// maxHotSteps bounds the paths Hot keeps, 16 bytes each: those of the
// distinct windows it counts (within calls, each distinct gram's), and
// of the distinct contexts it counts them in (hotState). Each is at
// most maxLen paths, and a run makes more distinct ones the longer they
// are: sort's suite, with maxLen 64, made 24 GB of them. A variable,
// so that a test can lower it.
var maxHotSteps = 1 << 27

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
// distinct node's sequence is made once from its trace and its
// callees' summaries, and the work grows with the DAG, not the run.
// (Two nodes of one sequence were once counted once, found by a hash
// of the sequence: making it cost as much as counting it.)
//
// A path up (ItemUp: a range-over-func loop body's path, completed by
// a caller while the iterator runs) belongs to a call outside the
// subtree that recorded it, so a subtree with such paths that escape
// it (esc > 0) has no sequence of its own: it is expanded in place in
// the sequence of its lowest caller whose subtree they do not escape,
// with the cursors of Expand.
//
// A sequence is streamed (push, emitSummary), not kept: a test's loop
// makes one of millions of paths. It is streamed to one of two ends
// (begin). To summarise it, what is kept is its first 2(maxLen-1)
// paths, its last maxLen-1 and its length; most nodes' summaries need
// no sequence, but are made from their items (structure). To count its
// windows, it runs a machine (hotState, hotTrans) whose state is what
// the windows still to come see of the sequence so far; each step (a
// path, or a callee's whole summary) is a transition, counted with the
// sequence's weight, and each distinct transition's windows are counted
// once, at the end, with its count (countTransitions). A loop's
// sequence repeats a few transitions millions of times (compress/flate's
// suite: 21 M calls, 6 k distinct transitions), so a step costs a
// comparison with the last transition taken from its state, and the
// windows are hashed once per distinct transition. The callees of one
// summary are one to the machine (canon).
type hotCounter struct {
	t       *TWPP
	maxLen  int
	entries []hotEntry
	index   hashIndex // entries by their hash
	rank    []int32   // per function: its place in the order of keys
	kept    int       // paths kept, against maxHotSteps
	full    bool      // kept would have passed maxHotSteps

	esc     []uint32 // per node: how many of its callers its paths up reach
	summary []hotSummary
	canon   []int32 // per closed node: the first node of its summary, or -1 if it has no path
	srcs    int32

	// The counting machine.
	states     []hotState
	stateToks  []hotTok // the states' paths, one after the other
	stateIndex hashIndex
	trans      []hotTrans
	transIndex hashIndex
	last       []hotLast // per state: the transition last taken from it
	prev       []int32   // per state: the one taken before it, or -1
	simBuf     []hotTok  // step's scratch

	scratch  [2][]hotTok // structure's
	tokArena []hotTok    // the summaries' paths, in chunks (saveToks)

	stream struct {
		counting bool
		weight   uint64 // what the windows are counted with
		state    int32  // counting: the machine's
		lastSrc  int32  // the source of the last path
		// Summarising: the paths, counted; the first 2(maxLen-1) (head),
		// the last maxLen-1 (tail, a ring).
		n          int
		head, tail []hotTok
	}
}

// A hotState is what the windows still to come see of a sequence: its
// last min(maxLen-1, paths since its last gap) paths, stateToks[at :
// at+n], and how many of them, at the end, are of the last one's source
// (runLen, maxLen-1 standing for that many or more). A window of the
// last l paths is counted across calls if it spans two sources, l >
// runLen, and no gap.
type hotState struct {
	at, n  int32
	runLen int32
}

// A hotTrans is a transition of the counting machine: from state from,
// by a path (callee < 0: of function fn, of another source than the
// path before it if newSrc) or by the summary of callee (its first
// node, canon), to state to. count is the weight of the windows that
// end in its step.
type hotTrans struct {
	from, to int32
	callee   int32
	fn       int32
	newSrc   bool
	path     uint64
	count    uint64
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
	if !h.keep(len(w)) {
		return
	}
	steps := make([]hotTok, len(w))
	for j, x := range w {
		steps[j] = hotTok{fn: x.fn, path: x.path}
	}
	h.entries = append(h.entries, hotEntry{steps: steps, inter: inter, count: weight})
	h.index.add(hash)
}

// keep takes n paths from what Hot may keep (maxHotSteps), or says
// there is not that much left.
func (h *hotCounter) keep(n int) bool {
	if h.full || n > maxHotSteps-h.kept {
		h.full = true
		return false
	}
	h.kept += n
	return true
}

// tooLarge is the error of a count that passed maxHotSteps.
func (h *hotCounter) tooLarge() error {
	return fmt.Errorf("hot sequences of up to %d paths: their distinct windows and contexts hold more than %d paths (%d MB), the most Hot keeps; count shorter sequences (a smaller -len)", h.maxLen, maxHotSteps, maxHotSteps*16>>20)
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

// compareSteps orders steps by function (its key: rankFuncs), then path.
func (h *hotCounter) compareSteps(a, b []hotTok) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Or(cmp.Compare(h.rank[a[i].fn], h.rank[b[i].fn]), cmp.Compare(a[i].path, b[i].path)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// rankFuncs numbers the functions in the order of their keys (hash,
// then index), for compareSteps.
func (h *hotCounter) rankFuncs() {
	funcs := h.t.Funcs
	order := make([]int32, len(funcs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		fa, fb := funcs[a].Key, funcs[b].Key
		return cmp.Or(strings.Compare(fa.Hash, fb.Hash), cmp.Compare(fa.Index, fb.Index))
	})
	h.rank = make([]int32, len(funcs))
	for r, fi := range order {
		h.rank[fi] = int32(r)
	}
}

// withinCalls counts the windows within one call, on each function's
// distinct traces, weighted by their calls. A window is a suffix of the
// maxLen paths that end where it ends (its gram; fewer at a trace's
// start), and a trace's loops repeat a few grams many times
// (fastjson's suite: 50 M paths in traces, 59 distinct grams of 4):
// so each position's gram is counted, and then each distinct gram's
// suffixes. A position's gram is its predecessor's and its path (one
// more path, or, once the grams are maxLen long, one less at the
// start), so each gram keeps the gram that last followed it, and a loop
// finds the next gram with one comparison, not a hash of maxLen paths;
// and a gram that follows itself is that of every position of the run
// of its last path.
func (h *hotCounter) withinCalls() {
	type gram struct {
		fn       int32
		at, n    int // its paths: arena[at : at+n]
		count    uint64
		next     int32 // the gram that last followed it, or -1
		nextPath uint64
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
			prev := int32(-1)
			for i := 1; i < len(tr.Paths); i++ {
				p := tr.Paths[i]
				var j int32
				if prev >= 0 && grams[prev].next >= 0 && grams[prev].nextPath == p {
					j = grams[prev].next
				} else {
					g := tr.Paths[max(0, i-m) : i+1]
					hash := uint64(len(g))<<32 ^ uint64(uint32(fn))
					for _, p := range g {
						hash = (hash ^ p) * 0x9e3779b97f4a7c15
						hash ^= hash >> 29
					}
					k, ok := index.find(hash, func(k int) bool {
						e := &grams[k]
						return e.fn == fn && slices.Equal(arena[e.at:e.at+e.n], g)
					})
					if !ok {
						if !h.keep(len(g)) {
							return
						}
						k = len(grams)
						grams = append(grams, gram{fn: fn, at: len(arena), n: len(g), next: -1})
						arena = append(arena, g...)
						index.add(hash)
					}
					j = int32(k)
					if prev >= 0 {
						grams[prev].next, grams[prev].nextPath = j, p
					}
				}
				reps := uint64(1)
				if j == prev {
					// The gram that follows itself by p: a run of p,
					// each position of it this gram, counted at once.
					for i+1 < len(tr.Paths) && tr.Paths[i+1] == p {
						i++
						reps++
					}
				}
				grams[j].count = satAdd(grams[j].count, satMul(reps, tr.Calls))
				prev = j
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
	anyUp := false
	for _, p := range t.Processes {
		for _, g := range p.Goroutines {
			for _, r := range g.Roots {
				if r < 0 || int(r) >= len(t.Nodes) {
					return fmt.Errorf("goroutine %d: no node %d", g.ID, r)
				}
				occ[r] = satAdd(occ[r], 1)
			}
		}
	}
	// (The nodes are checked here, the callers first, and their own
	// paths up found: each pass over the items reads them all from
	// memory, 336 MB of them in compress/flate's suite.)
	for ni := len(t.Nodes) - 1; ni >= 0; ni-- {
		n := t.Nodes[ni]
		if n.Func < 0 || n.Func >= len(t.Funcs) || n.Trace < 0 || n.Trace >= len(t.Funcs[n.Func].Traces) {
			return fmt.Errorf("node %d: no function %d, trace %d", ni, n.Func, n.Trace)
		}
		for _, it := range n.Items {
			switch it.Kind {
			case ItemCall:
				if it.Node < 0 || int(it.Node) >= ni {
					return fmt.Errorf("node %d calls node %d, not one before it", ni, it.Node)
				}
				occ[it.Node] = satAdd(occ[it.Node], occ[ni])
			case ItemUp:
				h.esc[ni] = max(h.esc[ni], it.Up)
				anyUp = true
			}
		}
	}
	// Children come before their callers, so each closed node's callees
	// are summarised when it is reached, and it is counted then, with
	// its occurrences. Most nodes' sequences are their own paths and
	// their callees' summaries, and their summaries are made from their
	// items (structure); the others' are made in a first pass (gen).
	// Nodes of one summary are one callee to the counting machine
	// (canon: the first of them).
	var stack []hotCursor
	canon := make([]int32, len(t.Nodes)) // a closed node's summary's first node, or -1
	h.canon = canon
	var (
		sums     hashIndex // the distinct summaries,
		sumNodes []int32   // by their first nodes
	)
	h.states = append(h.states, hotState{}) // 0: the empty state
	h.stateIndex.add(stateHash(nil, 0))
	h.last = append(h.last, hotLast{trans: -1})
	h.prev = append(h.prev, -1)
	for ni := range t.Nodes {
		sum, summarised := h.structure(ni, anyUp)
		if h.esc[ni] > 0 {
			continue
		}
		if !summarised {
			if err := h.genClosed(ni, &stack, false, 0); err != nil {
				return err
			}
			sum = h.end()
		}
		hash := stateHash(sum.head, int32(len(sum.tail)))
		hash = stateHash(sum.tail, int32(hash))
		f, ok := sums.find(hash, func(f int) bool {
			fs := &h.summary[sumNodes[f]]
			return sameSteps(fs.head, sum.head) && (fs.tail == nil) == (sum.tail == nil) && sameSteps(fs.tail, sum.tail)
		})
		if ok {
			canon[ni] = sumNodes[f]
			h.summary[ni] = h.summary[canon[ni]]
		} else {
			canon[ni] = int32(ni)
			sums.add(hash)
			sumNodes = append(sumNodes, int32(ni))
			if !h.keep(len(sum.head) + len(sum.tail)) {
				return nil
			}
			h.summary[ni] = hotSummary{head: h.saveToks(sum.head), tail: h.saveToks(sum.tail)}
		}
		if len(sum.head) == 0 {
			canon[ni] = -1 // no path: no window sees it
		}
		if occ[ni] > 0 && summarised {
			h.countSummarised(ni, occ[ni])
		} else if occ[ni] > 0 {
			if err := h.genClosed(ni, &stack, true, occ[ni]); err != nil {
				return err
			}
		}
		if h.full {
			return nil
		}
	}
	if err := h.acrossRoots(canon); err != nil {
		return err
	}
	h.countTransitions()
	return nil
}

// saveToks returns a copy of x (nil if x is nil) in the arena of the
// summaries' paths: 338 k nodes in math/big's suite, whose summaries
// allocated one by one cost more than making them.
func (h *hotCounter) saveToks(x []hotTok) []hotTok {
	if x == nil {
		return nil
	}
	if len(x) > cap(h.tokArena)-len(h.tokArena) {
		h.tokArena = make([]hotTok, 0, max(1<<14, len(x)))
	}
	at := len(h.tokArena)
	h.tokArena = append(h.tokArena, x...)
	return h.tokArena[at:len(h.tokArena):len(h.tokArena)]
}

// structure finds node ni's esc, whose callees' are known, and its own
// paths up's (h.esc[ni], from acrossCalls), and, if it is closed,
// returns its summary made from its items, without its sequence, if
// that sequence is its own paths and its callees' summaries: if no
// callee of its is expanded in place (esc). (Spawns add no path.)
// Without paths up in the TWPP (anyUp false), all nodes are closed, and
// the summary is made from the first items and the last.
func (h *hotCounter) structure(ni int, anyUp bool) (hotSummary, bool) {
	t := h.t
	n := t.Nodes[ni]
	if anyUp {
		esc := h.esc[ni]
		summarised := true
		for _, it := range n.Items {
			if it.Kind != ItemCall {
				continue
			}
			if e := h.esc[it.Node]; e > 0 {
				esc = max(esc, e-1)
				summarised = false
			}
		}
		h.esc[ni] = esc
		if esc > 0 || !summarised {
			return hotSummary{}, false
		}
	}
	paths := t.Funcs[n.Func].Traces[n.Trace].Paths
	m := h.maxLen - 1
	head, long := h.firstPaths(n, paths, 2*m, h.scratch[0][:0])
	h.scratch[0] = head
	if !long {
		return hotSummary{head: head}, true
	}
	h.scratch[1] = slices.Grow(h.scratch[1][:0], m)[:m]
	return hotSummary{head: head[:m], tail: h.lastPaths(n, paths, h.scratch[1])}, true
}

// firstPaths appends to out the first paths, up to k, of the sequence
// of node n, of trace paths, whose callees are all summarised
// (structure), and says whether the sequence has more paths or gaps
// than that. (A summary with a tail has a head of maxLen-1 paths, and k
// is 2(maxLen-1): the paths before its gap are taken, and no more.)
func (h *hotCounter) firstPaths(n *Node, paths []uint64, k int, out []hotTok) ([]hotTok, bool) {
	fn := int32(n.Func)
	next := 0
	own := func(upTo int) bool {
		for ; next < upTo; next++ {
			if len(out) == k {
				return false
			}
			out = append(out, hotTok{fn: fn, path: paths[next]})
		}
		return true
	}
	for _, it := range n.Items {
		if it.Kind != ItemCall {
			continue
		}
		if !own(min(int(it.At), len(paths))) {
			return out, true
		}
		s := &h.summary[it.Node]
		if s.tail != nil || len(s.head) > k-len(out) {
			return append(out, s.head[:min(len(s.head), k-len(out))]...), true
		}
		out = append(out, s.head...)
	}
	return out, !own(len(paths))
}

// lastPaths fills out with the last len(out) paths of the sequence of
// node n, of trace paths, whose callees are all summarised and which
// has more than twice that many paths and gaps: none of those is a gap
// (end).
func (h *hotCounter) lastPaths(n *Node, paths []uint64, out []hotTok) []hotTok {
	j := len(out) // out[j:] are the last paths found
	fn := int32(n.Func)
	next := len(paths)
	for i := len(n.Items) - 1; i >= 0 && j > 0; i-- {
		it := n.Items[i]
		if it.Kind != ItemCall {
			continue
		}
		for at := min(int(it.At), len(paths)); next > at && j > 0; next-- {
			j--
			out[j] = hotTok{fn: fn, path: paths[next-1]}
		}
		// (A summary's tail is maxLen-1 paths: out is full before its
		// gap.)
		s := &h.summary[it.Node]
		part := s.head
		if s.tail != nil {
			part = s.tail
		}
		for l := len(part); l > 0 && j > 0; l-- {
			j--
			out[j] = part[l-1]
		}
	}
	for ; next > 0 && j > 0; next-- {
		j--
		out[j] = hotTok{fn: fn, path: paths[next-1]}
	}
	return out
}

// acrossRoots counts the windows that span two roots of a goroutine or
// more. A test's loop calls into the package from code that is not
// instrumented, so a goroutine can have millions of roots (math/big's
// suite: 75 M paths in its roots' summaries), and most follow the same
// few roots. The windows that end in a root's paths and start before it
// depend only on its sequence and on the last maxLen-1 paths before it:
// the sequences of the roots before it, back to the first that takes
// the paths before it to maxLen-1, or to the goroutine's start (its
// context), of which the windows see only the summaries. So each
// distinct context (by the summaries' first nodes, canon) is counted
// once, with how often it occurs.
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
		prev   []int32 // the last context's roots, and the root
		lastAt = -1    // ctxs's index of the last context, or -1
	)
	for _, p := range h.t.Processes {
		for _, g := range p.Goroutines {
			lastAt = -1
			for _, r := range g.Roots {
				if h.esc[r] > 0 {
					return fmt.Errorf("goroutine %d: a path %d calls up, below the goroutine's first call", g.ID, h.esc[r])
				}
				c := canon[r]
				if c < 0 {
					continue // no paths: no window sees it
				}
				// A root's context is its own and the previous root's
				// context's last few (that context reaches maxLen-1
				// paths before the previous root, or to the start):
				// the context that last followed that one by this
				// root, or else made from it.
				if lastAt >= 0 && ctxs[lastAt].nextRoot == c && ctxs[lastAt].next >= 0 {
					lastAt = int(ctxs[lastAt].next)
					ctxs[lastAt].count = satAdd(ctxs[lastAt].count, 1)
					continue
				}
				prev = prev[:0]
				if lastAt >= 0 {
					prev = append(prev, ctxs[lastAt].of(arena)...)
				}
				prev = append(prev, c)
				i, need := len(prev)-1, m
				for i > 0 && need > 0 {
					i--
					need -= sumLen(prev[i])
				}
				key = prev[i:]
				hash := uint64(len(key))
				for _, x := range key {
					hash = (hash ^ uint64(uint32(x))) * 0x9e3779b97f4a7c15
					hash ^= hash >> 29
				}
				j, ok := index.find(hash, func(j int) bool { return slices.Equal(ctxs[j].of(arena), key) })
				if !ok {
					j = len(ctxs)
					ctxs = append(ctxs, rootContext{at: len(arena), n: len(key), next: -1})
					arena = append(arena, key...)
					index.add(hash)
				}
				ctxs[j].count = satAdd(ctxs[j].count, 1)
				if lastAt >= 0 {
					ctxs[lastAt].next, ctxs[lastAt].nextRoot = int32(j), c
				}
				lastAt = j
			}
		}
	}
	for _, c := range ctxs {
		key := c.of(arena)
		h.srcs = 0
		h.begin(true, 0)
		for _, r := range key[:len(key)-1] {
			h.emitSummary(int(r))
		}
		h.stream.weight = c.count
		h.emitSummary(int(key[len(key)-1]))
	}
	return nil
}

// A rootContext is a root's sequence with the sequences before it that
// its windows see (acrossRoots): arena[at:at+n], the root's last. Next
// is the context that last followed it, by a root of sequence nextRoot
// (or -1).
type rootContext struct {
	at, n    int
	count    uint64
	next     int32
	nextRoot int32
}

func (c rootContext) of(arena []int32) []int32 { return arena[c.at : c.at+c.n] }

// begin starts a sequence (stream): its windows of 2 to maxLen paths
// without a gap that span two sources or more counted, with weight, if
// counting, or else its summary and key made (end).
func (h *hotCounter) begin(counting bool, weight uint64) {
	st := &h.stream
	m := h.maxLen - 1
	st.counting, st.weight, st.state, st.lastSrc, st.n = counting, weight, 0, 0, 0
	if counting {
		return
	}
	st.head = slices.Grow(st.head[:0], 2*m)
	st.tail = slices.Grow(st.tail[:0], m)[:m]
}

// push appends x to the sequence (begin).
func (h *hotCounter) push(x hotTok) {
	st := &h.stream
	if st.counting {
		newSrc := x.src != st.lastSrc
		st.lastSrc = x.src
		if x.fn < 0 {
			st.state = 0
			return
		}
		// (step, without making its key: the path of a loop's round is
		// most often the one of the round before.)
		if l := &h.last[st.state]; l.trans >= 0 && l.callee < 0 && l.fn == x.fn && l.path == x.path && l.newSrc == (newSrc && st.state != 0) {
			t := &h.trans[l.trans]
			t.count = satAdd(t.count, st.weight)
			st.state = l.to
			return
		}
		h.step(hotTrans{callee: -1, fn: x.fn, path: x.path, newSrc: newSrc})
		return
	}
	st.n++
	m := h.maxLen - 1
	if len(st.head) < 2*m {
		st.head = append(st.head, x)
	}
	st.tail[st.n%m] = x
}

// end returns the sequence's summary: its first and last maxLen-1
// paths, or all of them if it has at most twice that. Every gap in a
// sequence has maxLen-1 paths or more on each side (a summary's head
// and tail), so a summary's head and tail hold no gap.
func (h *hotCounter) end() hotSummary {
	st := &h.stream
	m := h.maxLen - 1
	if st.n <= 2*m {
		return hotSummary{head: slices.Clone(st.head[:st.n])}
	}
	s := hotSummary{head: slices.Clone(st.head[:m]), tail: make([]hotTok, 0, m)}
	for i := st.n - m + 1; i <= st.n; i++ {
		s.tail = append(s.tail, st.tail[i%m])
	}
	return s
}

// genClosed streams the sequence of closed node ni (gen), counted with
// weight or summarised (begin).
func (h *hotCounter) genClosed(ni int, stack *[]hotCursor, counting bool, weight uint64) error {
	h.srcs = 0
	h.begin(counting, weight)
	*stack = (*stack)[:0]
	return h.gen(ni, stack)
}

// emitSummary pushes closed node ni's summary to the sequence, as one
// source: counting, in one step.
func (h *hotCounter) emitSummary(ni int) {
	src := h.newSource()
	st := &h.stream
	if st.counting {
		c := h.canon[ni]
		if c < 0 {
			return // no path: not even the source of the last path changes
		}
		st.lastSrc = src
		h.stepCallee(c)
		return
	}
	s := &h.summary[ni]
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

// step takes the counting machine's transition from its state by the
// path or callee of key, and adds the sequence's weight to its count.
func (h *hotCounter) step(key hotTrans) {
	st := &h.stream
	key.from = st.state
	if key.from == 0 {
		key.newSrc = false // no path before it
	}
	// The transition taken before the last from the state (a loop's
	// round that alternates two callees, or a callee and a path), or
	// else the transitions by their hash.
	j := int(h.prev[key.from])
	if j < 0 || !h.trans[j].same(&key) {
		hash := (uint64(uint32(key.from))<<32 | uint64(uint32(key.callee))) * 0x9e3779b97f4a7c15
		hash = (hash ^ uint64(uint32(key.fn)) ^ uint64(boolUint(key.newSrc))<<32) * 0xbf58476d1ce4e5b9
		hash = (hash ^ key.path) * 0x9e3779b97f4a7c15
		hash ^= hash >> 29
		var ok bool
		j, ok = h.transIndex.find(hash, func(j int) bool { return h.trans[j].same(&key) })
		if !ok {
			// (A transition is some 3 paths' worth of memory.)
			if !h.keep(3) {
				return
			}
			key.to = h.run(&key, nil)
			j = len(h.trans)
			h.trans = append(h.trans, key)
			h.transIndex.add(hash)
		}
	}
	t := &h.trans[j]
	h.prev[key.from] = h.last[key.from].trans
	h.last[key.from] = hotLast{trans: int32(j), to: t.to, callee: t.callee, fn: t.fn, path: t.path, newSrc: t.newSrc}
	t.count = satAdd(t.count, st.weight)
	st.state = t.to
}

// stepCallee is step by the summary of callee c (canon), but first
// tries the transition last taken from the state.
func (h *hotCounter) stepCallee(c int32) {
	st := &h.stream
	if l := &h.last[st.state]; l.trans >= 0 && l.callee == c {
		t := &h.trans[l.trans]
		t.count = satAdd(t.count, st.weight)
		st.state = l.to
		return
	}
	h.step(hotTrans{callee: c})
}

// A hotLast is the transition last taken from a state (trans, or -1),
// with its step and the state it leads to: what a step compares first,
// in one place (a loop's millions of steps wait on each other's state).
type hotLast struct {
	trans, to, callee, fn int32
	path                  uint64
	newSrc                bool
}

// same says whether t and k are transitions by the same step from the
// same state.
func (t *hotTrans) same(k *hotTrans) bool {
	return t.from == k.from && t.callee == k.callee && t.fn == k.fn && t.path == k.path && t.newSrc == k.newSrc
}

// run runs transition t's step from its state, as the paths it pushes:
// it calls emit, if not nil, with each window that ends in them and is
// counted across calls (hotState), or else returns the state it leads
// to.
func (h *hotCounter) run(t *hotTrans, emit func(w []hotTok)) int32 {
	s := h.states[t.from]
	buf := append(h.simBuf[:0], h.stateToks[s.at:s.at+s.n]...)
	runLen, noGap := int(s.runLen), int(s.n)
	push := func(x hotTok, newSrc bool) {
		if newSrc {
			runLen = 0
		}
		runLen++
		noGap++
		buf = append(buf, x)
		if emit == nil {
			return
		}
		for l := max(2, runLen+1); l <= h.maxLen && l <= noGap; l++ {
			emit(buf[len(buf)-l:])
		}
	}
	if t.callee < 0 {
		push(hotTok{fn: t.fn, path: t.path}, t.newSrc)
	} else {
		sum := &h.summary[t.callee]
		for i, x := range sum.head {
			push(x, i == 0)
		}
		if sum.tail != nil {
			// The gap: no window spans it.
			buf, runLen, noGap = buf[:0], 0, 0
			for _, x := range sum.tail {
				push(x, false)
			}
		}
	}
	h.simBuf = buf
	if emit != nil {
		return t.to
	}
	m := h.maxLen - 1
	return h.state(buf[len(buf)-min(noGap, m):], int32(min(runLen, m)))
}

// state returns the machine's state of paths toks and runLen, made if
// it is new.
func (h *hotCounter) state(toks []hotTok, runLen int32) int32 {
	hash := stateHash(toks, runLen)
	i, ok := h.stateIndex.find(hash, func(i int) bool {
		s := &h.states[i]
		return s.runLen == runLen && sameSteps(h.stateToks[s.at:s.at+s.n], toks)
	})
	if ok {
		return int32(i)
	}
	if !h.keep(len(toks)) {
		return 0
	}
	h.states = append(h.states, hotState{at: int32(len(h.stateToks)), n: int32(len(toks)), runLen: runLen})
	h.stateToks = append(h.stateToks, toks...)
	h.stateIndex.add(hash)
	h.last = append(h.last, hotLast{trans: -1})
	h.prev = append(h.prev, -1)
	return int32(len(h.states) - 1)
}

func stateHash(toks []hotTok, runLen int32) uint64 {
	hash := uint64(len(toks))<<8 | uint64(runLen)
	for _, x := range toks {
		hash = (hash^uint64(uint32(x.fn)))*0x9e3779b97f4a7c15 ^ x.path
		hash ^= hash >> 29
	}
	return hash
}

// countTransitions counts the windows of each transition taken, with
// its count (hotCounter).
func (h *hotCounter) countTransitions() {
	for i := range h.trans {
		t := &h.trans[i]
		if t.count == 0 {
			continue // only in a root's context (acrossRoots)
		}
		h.run(t, func(w []hotTok) { h.add(w, t.count, true) })
	}
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

// A hotCursor is a call being expanded into a sequence: its paths emitted
// so far, as Expand's cursor.
type hotCursor struct {
	fn    int32
	src   int32
	paths []uint64
	next  int
}

// countOwn pushes paths[next:upTo], paths of a call of fn, source src,
// to the sequence being counted, and returns upTo.
func (h *hotCounter) countOwn(fn, src int32, paths []uint64, next, upTo int) int {
	st := &h.stream
	m := h.maxLen - 1
	for ; next < upTo; next++ {
		if next < upTo-m && src == st.lastSrc && h.states[st.state].runLen == int32(m) {
			// A long run of the call's own paths, maxLen-1 of them
			// pushed: the windows that end in the rest of it are of
			// one source but for those that end in its last maxLen-1
			// paths, and the machine's state after those is theirs.
			next = upTo - m
		}
		h.push(hotTok{fn: fn, src: src, path: paths[next]})
	}
	return upTo
}

// countSummarised counts the windows of closed node ni, whose callees
// are all summarised (structure), with weight: gen, without Expand's
// cursors, for the loops that make millions of calls.
func (h *hotCounter) countSummarised(ni int, weight uint64) {
	n := h.t.Nodes[ni]
	paths := h.t.Funcs[n.Func].Traces[n.Trace].Paths
	fn := int32(n.Func)
	h.begin(true, weight)
	st := &h.stream
	const own, callee = 1, 2 // the sources: one for all callees is enough here
	next := 0
	for _, it := range n.Items {
		if it.Kind != ItemCall {
			continue
		}
		if at := min(int(it.At), len(paths)); next < at {
			next = h.countOwn(fn, own, paths, next, at)
		}
		c := h.canon[it.Node]
		if c < 0 {
			continue // no path: not even the source of the last path changes
		}
		st.lastSrc = callee
		h.stepCallee(c)
	}
	h.countOwn(fn, own, paths, next, len(paths))
}

// gen appends the sequence of call ni, expanded as Expand does but for
// its callees whose paths up do not escape them, which are summarised.
func (h *hotCounter) gen(ni int, stack *[]hotCursor) error {
	t := h.t
	n := t.Nodes[ni]
	*stack = append(*stack, hotCursor{fn: int32(n.Func), src: h.newSource(), paths: t.Funcs[n.Func].Traces[n.Trace].Paths})
	me := len(*stack) - 1
	m := h.maxLen - 1
	st := &h.stream
	own := func(upTo int) {
		c := &(*stack)[me]
		upTo = min(upTo, len(c.paths))
		if st.counting {
			c.next = h.countOwn(c.fn, c.src, c.paths, c.next, upTo)
			return
		}
		if skip := upTo - c.next - 2*m; skip > 0 {
			// A long run of the call's own paths: but for the head's,
			// only its first m paths and its last m are seen by its
			// callers (its summary) or by windows across calls.
			for end := c.next + m; c.next < end || st.n < 2*m; c.next++ {
				h.push(hotTok{fn: c.fn, src: c.src, path: c.paths[c.next]})
			}
			if skip = upTo - c.next - m; skip > 0 {
				// Only the count of paths sees them (end).
				h.stream.n += skip
				c.next += skip
			}
		}
		for ; c.next < upTo; c.next++ {
			h.push(hotTok{fn: c.fn, src: c.src, path: c.paths[c.next]})
		}
	}
	for _, it := range n.Items {
		own(int(it.At))
		switch it.Kind {
		case ItemCall:
			if h.esc[it.Node] == 0 {
				h.emitSummary(int(it.Node))
			} else if err := h.gen(int(it.Node), stack); err != nil {
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
		first := ""
		if h.FirstCall != nil {
			first = fmt.Sprintf(" (the first: call %d)", *h.FirstCall)
		}
		fmt.Fprintf(w, "%d. %d runs × %d paths = %d, %s%s:\n", i+1, h.Count, len(h.Steps), h.Weight, kind, first)
		// A run of one function's one path (a loop's rounds) is a line.
		for j := 0; j < len(h.Steps); {
			s, n := h.Steps[j], 1
			for j+n < len(h.Steps) && h.Steps[j+n].Func == s.Func && h.Steps[j+n].Path == s.Path {
				n++
			}
			times := ""
			if n > 1 {
				times = fmt.Sprintf(" ×%d", n)
			}
			fmt.Fprintf(w, "     %s path %d%s\n", refName(s.Func, s.Name), s.Path, times)
			j += n
		}
	}
	return nil
}

// WriteJSON writes the hot paths as JSON.
func (hs HotPaths) WriteJSON(w io.Writer) error { return writeJSON(w, hs) }
