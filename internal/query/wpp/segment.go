package wpp

import (
	"fmt"

	"github.com/pathcover/pathcover/profile"
)

// Segments: one goroutine's stream compacted on several cores.
//
// Most of a suite's recording is often one goroutine's (regexp's: 65%;
// math/big's: two of 226 MB each in 767), and one core walks a stream at
// about 50 MB a second. Compact hands its jobs out in order, no more
// than a few ahead of the merge, so while one long stream was walked
// the other cores soon had nothing to do. A long stream is therefore cut
// into segments (FileSource: spans of its chunks, where the cuts depend
// on the file alone), and each segment is compacted on its own, as a
// goroutine is, into a TWPP of its own (a part):
//
//   - The segment is walked as if inside the calls open when it began,
//     which it does not know (walk's outerCalls): they are numbered k =
//     1, 2, … from the innermost, and each is a frame of its own
//     (compactor.outer) that gets what the segment did to it: its paths,
//     and its items (the calls it made that returned, spawns, paths up),
//     At counting its paths in the segment only; how many of them
//     returned, innermost first; and the references that need call k to
//     have been open (outerCheck). Calls of the segment's own are
//     compacted as usual: those that return in it become nodes of its
//     part.
//   - Its calls still open at its end are handed on with their paths
//     and items so far (segmentPart.open).
//
// The merge (Compact's loop, in the order of the segments) adds each
// part to the TWPP as it adds a goroutine's, and carries the calls open
// across segments in a compactor of its own, on the TWPP itself
// (goroutineMerge): it extends each call open before the segment with
// what the segment gave it, closes those that returned (innermost
// first, each adding its node to its caller ahead of the caller's own
// items of the segment, which all came after that return), and pushes
// the segment's open calls on top. What depends on the calls open
// before a segment is checked there, with the errors Walk gives the
// stream read whole: a path, access or value of a call that was not
// open, a return or spawn outside any call, a start event after others,
// an event after the stop.
//
// The TWPP is the same one: the same functions, traces, nodes and
// roots; only the order in which traces and nodes are numbered depends
// on the cuts, and the cuts depend on the recording alone, so the file
// is the same whatever the number of cores (TestCompactWorkers), and a
// stream cut anywhere compacts to what it compacts to whole
// (TestCompactSegments, FuzzCompactSegments, TestCompactFileSegments).
// A stream that is not cut is compacted as before, byte for byte.

// Which streams are cut, and where: every stream longer than a segment
// and a half, into segments of a thirty-second of its process's
// recording and no less than minSegmentBytes. The jobs are then small
// beside each core's share, and not so many that each segment's first
// sight of its traces and nodes (each part finds them again, and the
// merge once more) costs much: encoding/json's suite, 555 goroutines of
// 1.4 MB or less, is compacted whole (in batches: compactBatched).
const (
	minSegmentBytes   = 1 << 20
	segmentsOfProcess = 32
)

// A segmentedSource is a Source whose goroutines' streams it can cut into
// segments, each readable on its own: Segments gives, for each in order,
// a function that calls fn with its events, as Events does the stream's.
type segmentedSource interface {
	Segments(g uint64) []func(fn func(*profile.WPPEvent) error) error
}

// Segments cuts goroutine g's stream at chunks (profile.WPPFile.Spans),
// if it is long; none if it is not.
func (s FileSource) Segments(g uint64) []func(fn func(*profile.WPPEvent) error) error {
	return s.segments(g, minSegmentBytes)
}

// segments is Segments with segments of at least least bytes.
func (s FileSource) segments(g uint64, least int64) []func(fn func(*profile.WPPEvent) error) error {
	mine, all := s.WPPFile.StreamBytes(g)
	size := max(least, all/segmentsOfProcess)
	if 2*mine < 3*size {
		return nil
	}
	spans := s.WPPFile.Spans(g, int(size))
	segs := make([]func(fn func(*profile.WPPEvent) error) error, len(spans))
	for i, sp := range spans {
		segs[i] = func(fn func(*profile.WPPEvent) error) error { return s.WPPFile.SpanRecords(g, sp, fn) }
	}
	return segs
}

// segmentsOf returns the segments of goroutine g of s: its whole stream
// if s does not cut it.
func segmentsOf(s Source, g uint64) []func(fn func(*profile.WPPEvent) error) error {
	if ss, ok := s.(segmentedSource); ok {
		if segs := ss.Segments(g); len(segs) > 0 {
			return segs
		}
	}
	return []func(fn func(*profile.WPPEvent) error) error{func(fn func(*profile.WPPEvent) error) error { return s.Events(g, fn) }}
}

// An outerCheck is a reference of a segment to call k open before it
// that needs call k to have been open: a path, an access or a value of
// it, a spawn or a return by it; the event's kind, Up, and the calls the
// segment had open (depth) and had seen return of those open before it
// (returned), for the error if it was not. A segment notes a reference
// only when it goes deeper than the ones before, so the first of its
// checks that fails is its first reference to a call that was not open.
type outerCheck struct {
	kind            profile.WPPEventKind
	k               int
	up              uint32
	depth, returned int
}

// err is the error of the reference if only d calls were open before the
// segment (k > d): the error Walk gives when it reads the stream whole.
func (ch outerCheck) err(d int) error {
	switch ch.kind {
	case profile.WPPReturn, profile.WPPSpawn:
		return fmt.Errorf("%s outside any call", kindArticle[ch.kind])
	}
	return fmt.Errorf("%s %d calls below the %d open", kindArticle[ch.kind], ch.up, d-ch.returned+ch.depth)
}

// A segmentPart is what compacting one segment made (compactor.segment).
type segmentPart struct {
	part *TWPP
	// gr holds, of a first segment, the start event's fields and the
	// roots it made (nodes of part); of any, whether it stopped.
	gr *Goroutine
	// outer[k] is what the segment gave call k open before it: its
	// paths, and its items, At counting only the paths in outer[k]
	// (outer[0] is unused); returned of them returned, innermost first.
	// With k past the calls open, outer[k]'s calls are roots.
	outer    []frame
	returned int
	checks   []outerCheck
	// far is what the segment gave calls deeper than outer holds: paths
	// of calls many levels up (compactor.frame), and nothing else.
	far map[int]frame
	// open is the segment's calls still open at its end, outermost
	// first, unless it is its goroutine's last: open[0]'s caller is
	// outer[open[0].outer], or none (0), with paths counted as in outer.
	open    []frame
	events  bool // it held an event
	started bool // not a first segment, and its first event was a start event
	err     error
}

// frame returns the frame of fi: a call of the segment, or, negative,
// one open before it (c.outer[-fi]).
func (c *compactor) frame(fi frameIndex) *frame {
	if fi >= 0 {
		return &c.frames[fi]
	}
	k := int(-fi)
	if k < len(c.outer) {
		return &c.outer[k]
	}
	if k >= len(c.outer)+maxOuterStep {
		// A path Up many calls at once: k comes from the recording,
		// and a damaged one says 2^32 (the merge's check refuses it;
		// it must not size what the segment holds first).
		if c.far == nil {
			c.far = make(map[int]*frame)
		}
		f := c.far[k]
		if f == nil {
			f = new(frame)
			c.far[k] = f
		}
		return f
	}
	for len(c.outer) <= k {
		if f, ok := c.far[len(c.outer)]; ok {
			c.outer = append(c.outer, *f)
			delete(c.far, len(c.outer)-1)
			continue
		}
		c.outer = append(c.outer, frame{})
	}
	return &c.outer[k]
}

// maxOuterStep bounds how far c.outer grows at once; references further
// down are kept apart (compactor.far). A return, a spawn, a call made,
// an item for a path up each refer to the innermost call still open
// (a return grows c.outer too), so only a path of a call many levels up
// jumps, and a call in far gets nothing but paths: it neither returns
// nor makes calls until c.outer has grown to it and taken it back.
const maxOuterStep = 1 << 10

// check notes the reference of st to a call open before the segment, if
// it is deeper than the references before.
func (c *compactor) check(st *Step[frameIndex]) {
	k := int(-st.Call)
	if n := len(c.checks); n > 0 && c.checks[n-1].k >= k {
		return
	}
	c.checks = append(c.checks, outerCheck{kind: st.Kind, k: k, up: st.Up, depth: st.Depth, returned: c.returned})
}

// take returns f's paths and items and leaves f empty, holding none of
// them.
func (f *frame) take() frame {
	t := *f
	f.paths, f.items, f.full = nil, nil, nil
	return t
}

// A goroutineMerge carries one goroutine's calls open across its
// segments: c's frames, on the TWPP being merged into, depth of them.
type goroutineMerge struct {
	gr      *Goroutine
	c       *compactor
	depth   int
	events  bool // a segment before held an event
	stopped bool // a segment before held the stop event
}

// newGoroutineMerge starts the merge of goroutine id's segments into t;
// one segment (the goroutine's whole stream) leaves no call open, and
// needs no encoder of its own for the long traces of those that return
// in a later segment.
func newGoroutineMerge(t *TWPP, id uint64, segments int) *goroutineMerge {
	m := &goroutineMerge{gr: &Goroutine{ID: id}, c: &compactor{t: t}}
	if segments > 1 {
		m.c.enc = newBackgroundEncoder()
	}
	return m
}

// add merges segment sp (first if it is the goroutine's first) into the
// TWPP.
func (m *goroutineMerge) add(sp *segmentPart, first bool) error {
	if m.stopped && sp.events {
		return fmt.Errorf("an event after the stop")
	}
	if sp.started && m.events {
		return fmt.Errorf("a start event after others")
	}
	d0 := m.depth
	for _, ch := range sp.checks {
		if ch.k > d0 {
			return ch.err(d0)
		}
	}
	if first || sp.started {
		m.gr.Parent, m.gr.Spawn = sp.gr.Parent, sp.gr.Spawn
	}
	if first {
		m.gr.Roots = sp.gr.Roots
	}
	m.events = m.events || sp.events
	m.stopped = m.stopped || sp.gr.Stopped
	t, c := m.c.t, m.c
	var funcs, nodes []int
	if first {
		funcs, nodes = t.merge(sp.part, m.gr)
	} else {
		funcs, nodes = t.merge(sp.part)
	}
	// Call k open before the segment is frame d0-k. Each gets the
	// segment's paths and items, and those that returned are closed,
	// innermost first, each adding its node to its caller before the
	// caller's items of the segment (which all came after the return).
	// The calls of outer[d0+1] are the goroutine's roots.
	for len(sp.outer) <= sp.returned {
		sp.outer = append(sp.outer, frame{})
	}
	for k := 1; k < len(sp.outer); k++ {
		o := &sp.outer[k]
		if k > d0 {
			o.eachItem(func(it Item) {
				m.gr.Roots = append(m.gr.Roots, int32(nodes[it.Node]))
			})
			continue
		}
		f := &c.frames[d0-k]
		if err := m.extend(f, o, nodes); err != nil {
			return err
		}
		if k <= sp.returned {
			c.close(frameIndex(d0-k), false, m.gr)
		}
	}
	for k, o := range sp.far {
		if k > d0 {
			return fmt.Errorf("a path of call %d of the %d open before a segment", k, d0) // the checks above refuse it first
		}
		if err := m.extend(&c.frames[d0-k], &o, nodes); err != nil {
			return err
		}
	}
	if sp.err != nil {
		return sp.err
	}
	m.depth = d0 - sp.returned
	for i := range sp.open {
		oc := &sp.open[i]
		f := c.newFrame(frameIndex(m.depth), funcs[oc.fn])
		f.at = oc.at
		if k := int(oc.outer); i == 0 && k > 0 {
			// Its caller is call k open before the segment, whose
			// paths before the segment oc.at did not count; or none.
			f.at = 0
			if k <= d0 {
				f.at = uint32(len(c.frames[d0-k].paths)-len(sp.outer[k].paths)) + oc.at
			}
		}
		if err := m.extend(f, oc, nodes); err != nil {
			return err
		}
		m.depth++
	}
	return nil
}

// extend adds o's paths and items to f, o's items' At counting from f's
// paths before and their calls nodes of the part (nodes).
func (m *goroutineMerge) extend(f, o *frame, nodes []int) error {
	base := uint32(len(f.paths))
	if uint64(len(f.paths))+uint64(len(o.paths)) > maxItemAt {
		return fmt.Errorf("a call of more than %d paths", maxItemAt)
	}
	f.paths = append(f.paths, o.paths...)
	o.eachItem(func(it Item) {
		it.At += base
		if it.Kind == ItemCall {
			it.Node = int32(nodes[it.Node])
		}
		m.c.addItem(f, it)
	})
	return nil
}

// eachItem calls fn with each of f's items in order.
func (f *frame) eachItem(fn func(Item)) {
	for _, b := range f.full {
		for _, it := range b {
			fn(it)
		}
	}
	for _, it := range f.items {
		fn(it)
	}
}

// finish closes the calls still open at the goroutine's end, innermost
// first, and returns the goroutine.
func (m *goroutineMerge) finish() *Goroutine {
	for d := m.depth - 1; d >= 0; d-- {
		m.c.close(frameIndex(d), true, m.gr)
	}
	m.depth = 0
	if m.c.enc != nil {
		m.c.enc.wait()
	}
	m.gr.Stopped = m.stopped
	return m.gr
}
