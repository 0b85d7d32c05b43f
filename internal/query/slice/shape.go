package slice

import (
	"encoding/binary"
	"slices"
)

// Shapes: the dependences a call's local replay infers repeat from call
// to call. What a call of one window gives (replay.localWindows: its own
// nodes' statements, control, data and defs, and what each child's
// entry depends on) is a function of its shape alone, once its node
// numbers are taken relative to the call:
//
//	shape = uvarint fn
//	        the call's path list as its arena holds it (uvarint count, uvarint ids)
//	        for each child, in order: uvarint fn<<1 | 1 if it has a return node
//
// (a child's function decides which sites it matches, and whether it
// returned which results the calling statement gets). Whole suites repeat
// few shapes: btree's 40.8 M calls have 420 among those of one window,
// which hold 124 M of its 129 M statement executions. The build replay
// gives each call its shape's number (ccall.shape, 0 for none: a call
// whose shape is too long, or past the table's bound), and the slicer
// replays a shape once, into a template (shapeTemplate): then a call of
// that shape is its template with its own node numbers put in, without
// a replay. This is what the paper's shortcut edges do for OPT (a chain
// of inferred dependences worked out once, not at each execution), in
// the form that keeps every execution listed: the chain is worked out
// once per shape, and each call of it is numbered.

// A shapeTable numbers the shapes of a run's calls.
type shapeTable struct {
	ids map[string]int32
	// bytes is what the keys hold; past maxShapeBytes, or maxShapes
	// shapes, a new shape gets no number.
	bytes int
	key   []byte // the key being made
}

const (
	// maxShapeKey bounds a shape's key: a call of many paths or children
	// is seldom repeated, and is replayed.
	maxShapeKey = 256
	maxShapes   = 1 << 20
	// maxShapeBytes bounds the table's keys while the graph is built.
	maxShapeBytes = 32 << 20
)

func newShapeTable() *shapeTable { return &shapeTable{ids: make(map[string]int32)} }

// of returns the shape number of call c of g, numbered (its children
// returned), or 0.
func (st *shapeTable) of(t *funcTable, g *gor, c int32) int32 {
	cc := g.call(c)
	if t.funcs[cc.fn].Deps == nil {
		return 0
	}
	k := binary.AppendUvarint(st.key[:0], uint64(cc.fn))
	n, list := g.pathList(c)
	end := 0
	for range n {
		for end < len(list) && list[end]&0x80 != 0 {
			end++
		}
		end++
		if end > maxShapeKey {
			return 0
		}
	}
	head := g.arena[cc.paths:]
	k = append(k, head[:len(head)-len(list)+end]...)
	for ch, stop := c+1, cc.next; ch < stop; {
		kc := g.call(ch)
		hasRet := uint64(0)
		if kc.ret >= 0 {
			hasRet = 1
		}
		k = binary.AppendUvarint(k, uint64(kc.fn)<<1|hasRet)
		if len(k) > maxShapeKey {
			st.key = k
			return 0
		}
		ch = kc.next
	}
	st.key = k
	if id, ok := st.ids[string(k)]; ok {
		return id
	}
	if len(st.ids) >= maxShapes-1 || st.bytes+len(k) > maxShapeBytes {
		return 0
	}
	id := int32(len(st.ids) + 1)
	st.ids[string(k)] = id
	st.bytes += len(k) + 48 // the map's entry
	return id
}

// A shapeTemplate is a call of one window replayed locally, its node
// numbers relative to the call (a ref): an own node by its index (0 is
// the entry), -1 for none, -2-j for the return node of child j.
type shapeTemplate struct {
	nodes []cnode // ctl a ref
	kids  []ckid  // ch the child's index among the call's children; ctl, caller refs
	words []int32 // refs
	// kidPos[j] is how many own nodes come before child j.
	kidPos []int32
}

// notOneWindow marks a shape whose calls take more than one window, or
// whose replay made a problem: they are replayed.
var notOneWindow = &shapeTemplate{}

// A callKids is a call's children, as a template is filled in from them.
type callKids struct {
	ch, first, end, ret []int32
}

// kidsOf returns the children of call c of g into buf.
func kidsOf(g *gor, c int32, buf *callKids) *callKids {
	return kidsBetween(g, c+1, g.call(c).next, buf)
}

// kidsBetween returns the calls of g from ch to stop, siblings with
// their subtrees between them, into buf.
func kidsBetween(g *gor, ch, stop int32, buf *callKids) *callKids {
	buf.ch, buf.first, buf.end, buf.ret = buf.ch[:0], buf.first[:0], buf.end[:0], buf.ret[:0]
	for ch < stop {
		kc := g.call(ch)
		buf.ch = append(buf.ch, ch)
		buf.first = append(buf.first, kc.first)
		buf.end = append(buf.end, kc.end)
		buf.ret = append(buf.ret, kc.ret)
		ch = kc.next
	}
	return buf
}

// templateOf makes the template of d, the one window of a call whose
// children are kids, or returns nil if a node it names is not the call's
// own nor a child's return.
func templateOf(d *callDeps, kids *callKids) *shapeTemplate {
	if len(d.kids) != len(kids.ch) {
		return nil
	}
	ok := true
	ref := func(n int32) int32 {
		if n < 0 {
			return -1
		}
		if k, found := slices.BinarySearch(d.ids, n); found {
			return int32(k)
		}
		j, _ := slices.BinarySearch(kids.first, n+1) // the child whose subtree holds n
		if j--; j >= 0 && kids.ret[j] == n {
			return -2 - int32(j)
		}
		ok = false
		return -1
	}
	t := &shapeTemplate{nodes: slices.Clone(d.nodes), kids: slices.Clone(d.kids), words: make([]int32, len(d.words)), kidPos: make([]int32, len(kids.ch))}
	for k := range t.nodes {
		t.nodes[k].ctl = ref(t.nodes[k].ctl)
	}
	for i, w := range d.words {
		t.words[i] = ref(w)
	}
	for j := range t.kids {
		kd := &t.kids[j]
		if kd.ch != kids.ch[j] {
			return nil
		}
		kd.ch = int32(j)
		kd.ctl, kd.caller = ref(kd.ctl), ref(kd.caller)
		pos, _ := slices.BinarySearch(d.ids, kids.first[j])
		t.kidPos[j] = int32(pos)
	}
	if !ok {
		return nil
	}
	return t
}

// fits reports whether t can be the template of a call whose children
// are kids: a call has its shape's children, but a graph file made by
// hand can give a call any shape. The nodes a template then gives are
// wrong, never out of range: its refs are its own nodes and its kids.
func (t *shapeTemplate) fits(kids *callKids) bool {
	if len(kids.ch) != len(t.kids) {
		return false
	}
	for j := range kids.ch {
		if kids.end[j] < kids.first[j] {
			return false
		}
	}
	return true
}

// fill returns the window of the call of function fn whose entry is node
// first and whose children are kids, made from t: its own nodes numbered
// around the children's subtrees, every ref made a node.
func (t *shapeTemplate) fill(fn, first int32, kids *callKids) *callDeps {
	// One array for the ids and the words: a window of a few nodes is
	// three allocations, not five.
	buf := make([]int32, len(t.nodes)+len(t.words))
	ids, words := buf[:len(t.nodes):len(t.nodes)], buf[len(t.nodes):]
	next, j := first, 0
	for k := range ids {
		for j < len(t.kidPos) && t.kidPos[j] == int32(k) {
			next = kids.end[j]
			j++
		}
		ids[k] = next
		next++
	}
	node := func(ref int32) int32 {
		switch {
		case ref >= 0:
			return ids[ref]
		case ref == -1:
			return -1
		}
		return kids.ret[-2-ref]
	}
	for i, w := range t.words {
		words[i] = node(w)
	}
	d := &callDeps{fn: fn, ids: ids, nodes: make([]cnode, len(t.nodes)), kids: make([]ckid, len(t.kids)), words: words}
	for k, n := range t.nodes {
		n.ctl = node(n.ctl)
		d.nodes[k] = n
	}
	for j, kd := range t.kids {
		kd.ch = kids.ch[kd.ch]
		kd.ctl, kd.caller = node(kd.ctl), node(kd.caller)
		d.kids[j] = kd
	}
	return d
}
