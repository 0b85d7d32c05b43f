package slice

import (
	"fmt"
	"slices"
	"sort"
	"unsafe"
)

// A replayCache holds the calls that OPT and LP have replayed locally to
// infer a slice's dependences (replay.localWindows), a window at a time
// and bounded in bytes, so that neither keeps more of a run than
// replayCacheLimit however long its calls are.
//
// A call of one window (almost every call) is replayed whole when one of
// its nodes is asked for. A longer call (a test's body, a main's loop) is
// replayed once from its start, which leaves a checkpoint per window, and
// then each window again from its checkpoint alone when it is asked for
// and no longer held: the cost of asking for a node is bounded by a
// window, not by its call.
//
// Invariants: a call's windows, and so its checkpoints, depend only on
// the recording, never on what was asked before; windows holds the
// checkpoints of every call of more than one window replayed so far; a
// window's replay is the same from its checkpoint as within the replay
// of its whole call (TestWindowsMatchWhole).
type replayCache struct {
	t *funcTable
	r replay
	// windows are the checkpoints of the calls of more than one window
	// replayed so far: windows[ref][w] is where window w+1 begins.
	windows map[callRef][]checkpoint
	// young and old hold the windows replayed, two generations of an
	// LRU's approximation: a window asked for goes to young; when young
	// holds half the limit, old is dropped and young becomes old. The
	// windows a slice keeps asking for stay; the cache holds at most
	// limit bytes. Each is a table with a place for each window (by a
	// hash of its name), not a map: a whole suite's slice replays tens
	// of millions of calls, and a map's insertions and lookups were a
	// fifth of its time; a window that takes another's place drops it.
	young, old        *windowTable
	youngBytes, limit int
	// front holds the windows asked for lately, in front of the tables,
	// whose places are in memory a slice goes through at random: a
	// slice asks for a few windows in turn (a call's, its callees', the
	// call's again). It is emptied with old; it may hold 64 windows the
	// tables dropped.
	front [frontSize]windowEntry
	// last is the window asked for last: a slice asks for the nodes of
	// one window in turn.
	last    *callDeps
	lastRef partRef
	// lastN is the node lastHolds found last, at lastK in last's ids.
	lastN int32
	lastK int
	// templates are the shapes' templates, by shape number (nil: not
	// made yet), tplBytes what they hold; kids is a call's children as
	// a template is made or filled.
	templates []*shapeTemplate
	tplBytes  int
	kids      callKids
}

// maxTemplateBytes bounds what a replayCache's templates hold: a shape
// past it is replayed.
const maxTemplateBytes = 64 << 20

// template returns the template of shape, nil if it is not made yet.
func (rc *replayCache) template(shape int32) *shapeTemplate {
	if int(shape) < len(rc.templates) {
		return rc.templates[shape]
	}
	return nil
}

// setTemplate notes the template of shape.
func (rc *replayCache) setTemplate(shape int32, t *shapeTemplate) {
	if t != notOneWindow {
		size := 4*(len(t.words)+len(t.kidPos)) + int(unsafe.Sizeof(cnode{}))*len(t.nodes) + int(unsafe.Sizeof(ckid{}))*len(t.kids)
		if rc.tplBytes+size > maxTemplateBytes {
			t = notOneWindow
		} else {
			rc.tplBytes += size
		}
	}
	if int(shape) >= len(rc.templates) {
		rc.templates = slices.Grow(rc.templates, int(shape)+1-len(rc.templates))[:shape+1]
	}
	rc.templates[shape] = t
}

// oneWindow reports whether call c of g (goroutine gi), of shape shape,
// is known to be of one window: a shape with a template, or a call
// replayed without checkpoints.
func (rc *replayCache) oneWindow(gi, c, shape int32) bool {
	if t := rc.template(shape); t != nil && t != notOneWindow {
		return true
	}
	_, big := rc.windows[callRef{gi, c}]
	return !big
}

const frontSize = 64

// hashRef is the hash of a window's name.
func hashRef(ref partRef) uint32 {
	return uint32(ref.g)*0x9e3779b1 ^ uint32(ref.c)*0x85ebca77 ^ uint32(ref.w)*0xc2b2ae3d
}

// A windowTable holds windows, each in the place of its name's hash.
type windowTable struct {
	slots []windowEntry // a power of two of them
	shift uint          // 32 - log2(len(slots))
}

type windowEntry struct {
	ref partRef
	d   *callDeps
}

// newWindowTable returns a table for a generation of limit bytes: a
// place for each 256 bytes, about the smallest window, up to 2^19.
func newWindowTable(limit int) *windowTable {
	bits := uint(10)
	for bits < 19 && 256<<bits < limit {
		bits++
	}
	return &windowTable{slots: make([]windowEntry, 1<<bits), shift: 32 - bits}
}

// slot returns the place of window ref in t.
func (t *windowTable) slot(ref partRef) *windowEntry {
	return &t.slots[hashRef(ref)>>t.shift]
}

// get returns window ref if t holds it.
func (t *windowTable) get(ref partRef) *callDeps {
	if e := t.slot(ref); e.d != nil && e.ref == ref {
		return e.d
	}
	return nil
}

// callRef names a call: its goroutine's index and its index there.
type callRef struct{ g, c int32 }

// A partRef names window w of a call.
type partRef struct{ g, c, w int32 }

// replayCacheLimit bounds the bytes of the windows a replayCache holds.
const replayCacheLimit = 256 << 20

func newReplayCache(t *funcTable) *replayCache {
	return &replayCache{t: t, r: replay{t: t}, windows: make(map[callRef][]checkpoint), limit: replayCacheLimit}
}

// own returns the window of call c of g (goroutine gi) that holds c's own
// node n.
func (rc *replayCache) own(g *gor, gi, c, n int32) *callDeps {
	if d := rc.last; d != nil && rc.lastRef.g == gi && rc.lastRef.c == c && len(d.ids) > 0 && n >= d.ids[0] && n <= d.ids[len(d.ids)-1] {
		return d
	}
	if rc.oneWindow(gi, c, g.call(c).shape) {
		// A call of one window, or one not replayed yet: most are.
		if d := rc.held(partRef{gi, c, 0}); d != nil {
			rc.last, rc.lastRef = d, partRef{gi, c, 0}
			return d
		}
	}
	cps := rc.checkpoints(g, gi, c)
	w := int32(sort.Search(len(cps), func(i int) bool { return cps[i].node > n }))
	return rc.window(g, partRef{gi, c, w})
}

// checkpoints returns the checkpoints of call c of g (goroutine gi),
// replaying it first if it has not been.
func (rc *replayCache) checkpoints(g *gor, gi, c int32) []checkpoint {
	cps, big := rc.windows[callRef{gi, c}]
	if !big && rc.held(partRef{gi, c, 0}) == nil {
		rc.first(g, partRef{gi, c, 0})
		cps = rc.windows[callRef{gi, c}]
	}
	return cps
}

// lastHolds says whether node n is an own node of the window asked for
// last, and of which call.
func (rc *replayCache) lastHolds(n int32) (gi, c int32, ok bool) {
	d := rc.last
	if d == nil || len(d.ids) == 0 || n < d.ids[0] || n > d.ids[len(d.ids)-1] {
		return 0, 0, false
	}
	k, ok := slices.BinarySearch(d.ids, n)
	if !ok {
		return 0, 0, false // a node of a child's subtree
	}
	rc.lastN, rc.lastK = n, k
	return rc.lastRef.g, rc.lastRef.c, true
}

// kid returns what child ch of call p of g depends on: the window of p
// that matched it knows.
func (rc *replayCache) kid(g *gor, gi, p, ch int32) kidDeps {
	if rc.oneWindow(gi, p, g.call(p).shape) {
		if d := rc.held(partRef{gi, p, 0}); d != nil {
			kd, _ := d.kid(ch)
			return kd
		}
	}
	cps := rc.checkpoints(g, gi, p)
	w := int32(sort.Search(len(cps), func(i int) bool { return cps[i].kid > ch }))
	kd, _ := rc.window(g, partRef{gi, p, w}).kid(ch)
	return kd
}

// window returns window ref of its call, replayed.
func (rc *replayCache) window(g *gor, ref partRef) *callDeps {
	d := rc.held(ref)
	if d == nil {
		cps, big := rc.windows[callRef{ref.g, ref.c}]
		if !big {
			d = rc.first(g, ref)
		} else {
			var from *checkpoint // window 0 begins at the call's entry
			if ref.w > 0 {
				from = &cps[ref.w-1]
			}
			rc.r.localWindows(g, ref.g, ref.c, from, false, func(w *callDeps, _ *checkpoint) bool {
				d = w
				return false
			})
			rc.keep(ref, d)
		}
	}
	rc.last, rc.lastRef = d, ref
	return d
}

// first replays call ref.c from its start, keeping its checkpoints if it
// has more than one window, and returns window ref.w.
//
// A call of a shape with a template is made from it instead; the first
// call of a shape replayed in one window makes its template.
func (rc *replayCache) first(g *gor, ref partRef) *callDeps {
	cc := g.call(ref.c)
	t := rc.template(cc.shape)
	if cc.shape > 0 && t != nil && t != notOneWindow {
		// A call that does not fit its shape's template (of a graph file
		// made by hand) is replayed.
		if kids := kidsOf(g, ref.c, &rc.kids); t.fits(kids) {
			d := t.fill(cc.fn, cc.first, kids)
			rc.keep(ref, d)
			return d
		}
	}
	var want *callDeps
	var cps []checkpoint
	w := int32(0)
	rc.r.localWindows(g, ref.g, ref.c, nil, true, func(d *callDeps, next *checkpoint) bool {
		if w == ref.w {
			want = d
		}
		rc.keep(partRef{ref.g, ref.c, w}, d)
		if next != nil {
			cps = append(cps, *next)
		}
		w++
		return true
	})
	if cps != nil {
		rc.windows[callRef{ref.g, ref.c}] = slices.Clip(cps)
	}
	if cc.shape > 0 && t == nil {
		t = notOneWindow
		if w == 1 {
			if t = templateOf(want, kidsOf(g, ref.c, &rc.kids)); t == nil {
				t = notOneWindow
			}
		}
		rc.setTemplate(cc.shape, t)
	}
	if want == nil {
		panic(fmt.Sprintf("slice: call %d of goroutine %d has no window %d", ref.c, ref.g, ref.w))
	}
	return want
}

// held returns window ref if the cache holds it, moved to the young
// generation.
func (rc *replayCache) held(ref partRef) *callDeps {
	f := &rc.front[hashRef(ref)>>(32-6)]
	if f.d != nil && f.ref == ref {
		return f.d
	}
	if rc.young == nil {
		rc.young, rc.old = newWindowTable(rc.limit/2), newWindowTable(rc.limit/2)
	}
	if d := rc.young.get(ref); d != nil {
		*f = windowEntry{ref, d}
		return d
	}
	d := rc.old.get(ref)
	if d != nil {
		*rc.old.slot(ref) = windowEntry{}
		rc.keep(ref, d)
	}
	return d
}

// keep holds window ref in the young generation.
func (rc *replayCache) keep(ref partRef, d *callDeps) {
	if d.size == 0 {
		d.size = d.bytes()
	}
	if rc.young == nil {
		rc.young, rc.old = newWindowTable(rc.limit/2), newWindowTable(rc.limit/2)
	}
	e := rc.young.slot(ref)
	if e.d != nil {
		rc.youngBytes -= e.d.size // it takes the place of another
	}
	*e = windowEntry{ref, d}
	rc.front[hashRef(ref)>>(32-6)] = windowEntry{ref, d}
	if rc.youngBytes += d.size; rc.youngBytes > rc.limit/2 {
		clear(rc.old.slots)
		rc.old, rc.young, rc.youngBytes = rc.young, rc.old, 0
		rc.front = [frontSize]windowEntry{}
	}
}

// nodeOf returns node n of call c of g (goroutine gi), with the
// dependences a local replay infers; other gives nodes of the run.
func (rc *replayCache) nodeOf(g *gor, gi, n, c int32, other func(int32) (*Node, error)) (Node, error) {
	d := rc.own(g, gi, c, n)
	k, ok := rc.lastK, d == rc.last && n == rc.lastN // lastHolds found it
	if !ok {
		if k, ok = slices.BinarySearch(d.ids, n); !ok {
			return Node{}, fmt.Errorf("node %d is not in its call", n)
		}
	}
	nd := d.node(k)
	if k != 0 || rc.lastRef.w != 0 {
		return nd, nil // not the call's entry, the first node of its first window
	}
	// The entry depends on what its caller's replay gave it.
	if p := g.call(c).parent; p >= 0 {
		if rc.t.funcs[g.call(p).fn].Deps != nil {
			kd := rc.kid(g, gi, p, c)
			nd.Data, nd.Control, nd.Call = kd.data, kd.ctl, kd.caller
		}
		return nd, nil
	}
	if c == 0 && g.start >= 0 {
		gn, err := other(g.start)
		if err != nil {
			return Node{}, err
		}
		nd.Call = g.start
		nd.Data = dedupNodes(append(slices.Clone(nd.Data), gn.Data...))
	}
	return nd, nil
}
