package main

// The whole-program-path part of the harness (-wpp; issue 16): for each
// workload, its tests run once from a build with pppexec -wpp, and the
// recording is measured three ways: raw (the .wpp files), compacted to a
// TWPP (package wpp), and compressed by Sequitur (sequitur.go), with the
// time each takes to give all the traces of one function.
//
// # Sequitur's input and its grammar file
//
// Sequitur reads one process's recording (one .wpp file) as one sequence
// of symbols: its goroutines in increasing id order, each goroutine's
// events preceded by a marker symbol of its own, so that no rule spans two
// goroutines without saying where one ends. A symbol is one event as the
// stream has it, as Larus's WPP symbols were: enter(package, function),
// path(id), path up k (id), return, spawn(s), start(parent, s), stop. The
// terminals are numbered in the order they first occur, and the grammar
// file lists them (its alphabet), each in the raw stream's own encoding:
//
//	grammar file (one per process)
//	uvarint  P                     packages
//	P ×      uvarint number, [16]byte metadata hash
//	uvarint  A                     terminals
//	A ×      an event as profile.AppendWPPEvent writes it, or a goroutine
//	         marker: uvarint 15<<2 (a control code the raw format does
//	         not use), uvarint goroutine id
//	uvarint  R                     rules; rule 0 is the start rule
//	R ×      uvarint L, L × uvarint symbol: 2t for terminal t, 2r+1 for
//	         rule r, where r is greater than the rule's own number
//
// Its size is the grammar's size in the table: every number a uvarint,
// each rule its length and its symbols, as small a plain encoding as
// Sequitur's grammar has (the paper's Sequitur sizes are of its own
// files; Larus's encoded rules much the same way).
//
// # Extracting one function's traces
//
// What the TWPP paper's Table 5 times, averaged over the functions that
// ran: all the traces of one function F, that is the sequence of paths of
// each call of F, and how many calls took each. Each of the three is asked
// as a separate query, reading its files:
//
//   - raw: read every .wpp file, follow each goroutine's call stack, and
//     collect the paths of each call of F;
//   - TWPP: wpp.Open, ReadFunc and FuncTraces: the file's header gives F's
//     section, one read;
//   - Sequitur: read the grammar files whole (the paper's "read"), then
//     walk each grammar from its start rule, following the call stack as
//     the raw scan does (its "process"). The walk is the one a user of the
//     grammar who wants to be quick would write, not a full expansion:
//     each rule is first summarized (bottom up, once a query: how deep
//     into the stack it was entered with it reaches by returns and by
//     paths of calls below, how deep it leaves the stack, and whether it
//     enters F), so that a rule that does not enter F and reaches no call
//     of F is passed over in O(1); and a rule that reaches nothing below
//     the call it starts in and leaves the stack as it found it (its calls
//     all return within it) gives the same traces wherever it occurs, so
//     they are computed once and counted again at each other use.
//
// The harness checks that the three give the same traces with the same
// counts for every function it times, and fails otherwise.

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/profile"
)

// wppMarkerCode is the first uvarint of a goroutine marker in a grammar
// file's alphabet: control event 15, which the raw format does not use.
const wppMarkerCode = 15 << 2

// A wppSymbol is a terminal of Sequitur's input: an event, or the marker
// that starts goroutine Goroutine's events.
type wppSymbol struct {
	Marker    bool
	Goroutine uint64
	Event     profile.WPPEvent
}

// wppSequitur is the Sequitur grammar of one process's recording, and its
// input's size.
type wppSequitur struct {
	packages map[uint32]string
	alphabet []wppSymbol
	grammar  *grammar
	events   uint64 // events of the recording (markers not counted)
	bytes    int64  // their encoding in the raw stream
}

// sequiturOfWPP builds the grammar of f's recording.
func sequiturOfWPP(f *profile.WPPFile) (*wppSequitur, error) {
	s := &wppSequitur{packages: f.Packages}
	q := newSequitur()
	numbers := make(map[wppSymbol]uint64)
	add := func(sym wppSymbol) {
		t, ok := numbers[sym]
		if !ok {
			t = uint64(len(s.alphabet))
			numbers[sym] = t
			s.alphabet = append(s.alphabet, sym)
		}
		q.add(t)
	}
	var buf []byte
	for _, g := range f.Goroutines() {
		add(wppSymbol{Marker: true, Goroutine: g})
		err := f.Events(g, func(e profile.WPPEvent) error {
			s.events++
			buf = profile.AppendWPPEvent(buf[:0], e)
			s.bytes += int64(len(buf))
			add(wppSymbol{Event: e})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	s.grammar = q.grammar()
	return s, nil
}

// encode writes the grammar file.
func (s *wppSequitur) encode() []byte {
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(s.packages)))
	for _, n := range slices.Sorted(maps.Keys(s.packages)) {
		b = binary.AppendUvarint(b, uint64(n))
		h, _ := hex.DecodeString(s.packages[n])
		b = append(b, h...)
	}
	b = binary.AppendUvarint(b, uint64(len(s.alphabet)))
	for _, sym := range s.alphabet {
		if sym.Marker {
			b = binary.AppendUvarint(b, wppMarkerCode)
			b = binary.AppendUvarint(b, sym.Goroutine)
			continue
		}
		b = profile.AppendWPPEvent(b, sym.Event)
	}
	b = binary.AppendUvarint(b, uint64(len(s.grammar.rules)))
	for _, body := range s.grammar.rules {
		b = binary.AppendUvarint(b, uint64(len(body)))
		for _, v := range body {
			if v&ntBit != 0 {
				b = binary.AppendUvarint(b, 2*(v&^ntBit)+1)
			} else {
				b = binary.AppendUvarint(b, 2*v)
			}
		}
	}
	return b
}

// A seqGrammar is a grammar file read back: rule r's body is
// body[start[r]:start[r+1]], each symbol 2t for terminal t or 2r+1 for
// rule r.
type seqGrammar struct {
	packages map[uint32]string
	alphabet []wppSymbol
	start    []int
	body     []uint64
}

// readGrammar decodes a grammar file. Every count is checked against the
// bytes left, so that a malformed file is an error and allocates no more
// than its size justifies.
func readGrammar(b []byte) (*seqGrammar, error) {
	pos := 0
	uv := func() (uint64, error) {
		v, n := binary.Uvarint(b[pos:])
		if n <= 0 {
			return 0, fmt.Errorf("offset %d: truncated or overlong number", pos)
		}
		pos += n
		return v, nil
	}
	count := func(what string, minBytes int) (int, error) {
		v, err := uv()
		if err != nil {
			return 0, err
		}
		if v > uint64(len(b)-pos)/uint64(minBytes) {
			return 0, fmt.Errorf("offset %d: %d %s in %d bytes", pos, v, what, len(b)-pos)
		}
		return int(v), nil
	}
	g := &seqGrammar{packages: make(map[uint32]string)}
	np, err := count("packages", 17)
	if err != nil {
		return nil, err
	}
	for range np {
		n, err := uv()
		if err != nil {
			return nil, err
		}
		if n == 0 || n > 1<<32-1 || len(b)-pos < 16 {
			return nil, fmt.Errorf("offset %d: bad package %d", pos, n)
		}
		if _, dup := g.packages[uint32(n)]; dup {
			return nil, fmt.Errorf("offset %d: package %d twice", pos, n)
		}
		g.packages[uint32(n)] = hex.EncodeToString(b[pos : pos+16])
		pos += 16
	}
	na, err := count("terminals", 1)
	if err != nil {
		return nil, err
	}
	g.alphabet = make([]wppSymbol, 0, na)
	for range na {
		x, n := binary.Uvarint(b[pos:])
		if n > 0 && x == wppMarkerCode {
			pos += n
			id, err := uv()
			if err != nil {
				return nil, err
			}
			g.alphabet = append(g.alphabet, wppSymbol{Marker: true, Goroutine: id})
			continue
		}
		e, n, err := profile.DecodeWPPEvent(b[pos:])
		if err != nil {
			return nil, fmt.Errorf("offset %d: %v", pos, err)
		}
		pos += n
		g.alphabet = append(g.alphabet, wppSymbol{Event: e})
	}
	nr, err := count("rules", 1)
	if err != nil {
		return nil, err
	}
	if nr == 0 {
		return nil, errors.New("no start rule")
	}
	g.start = make([]int, 1, nr+1)
	for r := range nr {
		l, err := count("symbols", 1)
		if err != nil {
			return nil, err
		}
		for range l {
			v, err := uv()
			if err != nil {
				return nil, err
			}
			if v&1 == 0 && v/2 >= uint64(na) || v&1 == 1 && (v/2 <= uint64(r) || v/2 >= uint64(nr)) {
				return nil, fmt.Errorf("offset %d: rule %d: symbol %d", pos, r, v)
			}
			g.body = append(g.body, v)
		}
		g.start = append(g.start, len(g.body))
	}
	if pos != len(b) {
		return nil, fmt.Errorf("%d bytes left over", len(b)-pos)
	}
	return g, nil
}

// Trace multisets, as the three extractions give them: a trace's paths
// as uvarints (traceKey) → the number of calls that took it.
type traceCounts map[string]uint64

func traceKey(paths []uint64) string {
	var b []byte
	for _, p := range paths {
		b = binary.AppendUvarint(b, p)
	}
	return string(b)
}

// A callTracker follows one goroutine's calls and collects the traces of
// the calls of one function: the paths each completed, in order.
type callTracker struct {
	depth int64
	// open are the calls of the function being run, innermost last, with
	// their depths (the outermost call is 1) and their paths so far.
	open []openCall
	out  traceCounts
	free [][]byte
}

type openCall struct {
	depth int64
	key   []byte
}

func (c *callTracker) enter(isF bool) {
	c.depth++
	if isF {
		var k []byte
		if n := len(c.free); n > 0 {
			k, c.free = c.free[n-1][:0], c.free[:n-1]
		}
		c.open = append(c.open, openCall{c.depth, k})
	}
}

func (c *callTracker) path(up uint32, id uint64) error {
	target := c.depth - int64(up)
	if target < 1 {
		return fmt.Errorf("a path %d calls up with %d open", up, c.depth)
	}
	for i := len(c.open) - 1; i >= 0 && c.open[i].depth >= target; i-- {
		if c.open[i].depth == target {
			c.open[i].key = binary.AppendUvarint(c.open[i].key, id)
			break
		}
	}
	return nil
}

func (c *callTracker) ret() error {
	if c.depth == 0 {
		return errors.New("a return outside any call")
	}
	if n := len(c.open); n > 0 && c.open[n-1].depth == c.depth {
		c.close()
	}
	c.depth--
	return nil
}

// close ends the innermost open call of the function.
func (c *callTracker) close() {
	n := len(c.open) - 1
	c.out[string(c.open[n].key)]++
	c.free = append(c.free, c.open[n].key)
	c.open = c.open[:n]
}

// endGoroutine ends a goroutine's stream: calls still open were running
// when the recording ended, and count with the paths they had completed,
// as TWPP counts them.
func (c *callTracker) endGoroutine() {
	for len(c.open) > 0 {
		c.close()
	}
	c.depth = 0
}

// event follows one event; isF says an enter event calls the function.
func (c *callTracker) event(e profile.WPPEvent, isF bool) error {
	switch e.Kind {
	case profile.WPPEnter:
		c.enter(isF)
	case profile.WPPPath:
		return c.path(e.Up, e.Path)
	case profile.WPPReturn:
		return c.ret()
	}
	return nil
}

// rawTraces scans WPP files for the traces of function k.
func rawTraces(files []string, k wpp.FuncKey) (traceCounts, error) {
	c := &callTracker{out: make(traceCounts)}
	for _, name := range files {
		f, err := profile.OpenWPP(name)
		if err != nil {
			return nil, err
		}
		pkgs := make(map[uint32]bool)
		for n, h := range f.Packages {
			if h == k.Hash {
				pkgs[n] = true
			}
		}
		for _, g := range f.Goroutines() {
			err := f.Events(g, func(e profile.WPPEvent) error {
				return c.event(e, e.Kind == profile.WPPEnter && e.Func == k.Index && pkgs[e.Pkg])
			})
			c.endGoroutine()
			if err != nil {
				f.Close()
				return nil, err
			}
		}
		f.Close()
	}
	return c.out, nil
}

// twppTraces asks the TWPP file for the traces of function k.
func twppTraces(file string, k wpp.FuncKey) (*wpp.Traces, error) {
	f, err := wpp.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fn, err := f.ReadFunc(k)
	if err != nil {
		return nil, err
	}
	return wpp.FuncTraces(fn, "", nil)
}

func twppCounts(ts *wpp.Traces) traceCounts {
	out := make(traceCounts)
	for _, t := range ts.Traces {
		out[traceKey(t.Paths)] += t.Calls
	}
	return out
}

// The kinds of a terminal, for one query.
const (
	termOther = iota // spawn, start, stop: no call, no path
	termEnter
	termEnterF // a call of the function asked for
	termPath
	termReturn
	termMarker
)

// A ruleSummary is what a rule's expansion does to the call stack it
// starts on (the stack's top is depth 0, the call below -1, ...).
type ruleSummary struct {
	// reach is how many of the calls open when the expansion starts it
	// returns from or completes paths of (up events).
	reach int64
	// delta is the change in depth from its start to its end.
	delta int64
	// enters says the expansion calls the function; marker that it holds
	// a goroutine marker (only the start rule can: markers are unique).
	enters, marker bool
}

// walkStats count what grammar walks did with the rules they met, for
// tests.
type walkStats struct {
	expanded, skipped, memoized, memoHits int
}

// grammarTraces walks grammar g for the traces of function k, adding them
// to out, and counting in stats if not nil.
func grammarTraces(g *seqGrammar, k wpp.FuncKey, out traceCounts, stats *walkStats) error {
	if stats == nil {
		stats = new(walkStats)
	}
	kinds := make([]uint8, len(g.alphabet))
	for t, sym := range g.alphabet {
		switch e := sym.Event; {
		case sym.Marker:
			kinds[t] = termMarker
		case e.Kind == profile.WPPEnter && e.Func == k.Index && g.packages[e.Pkg] == k.Hash:
			kinds[t] = termEnterF
		case e.Kind == profile.WPPEnter:
			kinds[t] = termEnter
		case e.Kind == profile.WPPPath:
			kinds[t] = termPath
		case e.Kind == profile.WPPReturn:
			kinds[t] = termReturn
		}
	}
	nr := len(g.start) - 1
	sum := make([]ruleSummary, nr)
	for r := nr - 1; r >= 0; r-- {
		var s ruleSummary
		cur := int64(0) // depth relative to the start: the top call then is 0
		for _, v := range g.body[g.start[r]:g.start[r+1]] {
			if v&1 == 1 {
				c := &sum[v/2]
				if c.reach > 0 {
					s.reach = max(s.reach, c.reach-cur)
				}
				cur += c.delta
				s.enters = s.enters || c.enters
				s.marker = s.marker || c.marker
				continue
			}
			switch kinds[v/2] {
			case termEnter:
				cur++
			case termEnterF:
				cur++
				s.enters = true
			case termPath:
				s.reach = max(s.reach, int64(g.alphabet[v/2].Event.Up)-cur+1)
			case termReturn:
				s.reach = max(s.reach, 1-cur)
				cur--
			case termMarker:
				s.marker = true
			}
		}
		s.delta = cur
		sum[r] = s
	}

	// Walk from the start rule. A rule that reaches nothing below its
	// start and leaves the depth as it was gives the same traces at every
	// use: memo holds them, computed at its first.
	c := &callTracker{out: out}
	memo := make([]traceCounts, nr)
	type frame struct {
		rule int
		at   int
		// outer is the tracker's out before a rule whose traces are being
		// memoized.
		outer traceCounts
	}
	stack := []frame{{rule: 0, at: g.start[0]}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.at == g.start[top.rule+1] {
			if top.outer != nil {
				memo[top.rule] = c.out
				for key, n := range c.out {
					top.outer[key] += n
				}
				c.out = top.outer
			}
			stack = stack[:len(stack)-1]
			continue
		}
		v := g.body[top.at]
		top.at++
		if v&1 == 0 {
			var err error
			switch kinds[v/2] {
			case termEnter:
				c.enter(false)
			case termEnterF:
				c.enter(true)
			case termPath:
				e := g.alphabet[v/2].Event
				err = c.path(e.Up, e.Path)
			case termReturn:
				err = c.ret()
			case termMarker:
				c.endGoroutine()
			}
			if err != nil {
				return err
			}
			continue
		}
		r := int(v / 2)
		s := &sum[r]
		if s.reach > c.depth {
			return fmt.Errorf("rule %d returns from %d calls with %d open", r, s.reach, c.depth)
		}
		if !s.enters && !s.marker && (len(c.open) == 0 || c.open[len(c.open)-1].depth <= c.depth-s.reach) {
			c.depth += s.delta // it touches no call of the function
			stats.skipped++
			continue
		}
		if s.reach == 0 && s.delta == 0 && !s.marker {
			if m := memo[r]; m != nil {
				for key, n := range m {
					c.out[key] += n
				}
				stats.memoHits++
				continue
			}
			stack = append(stack, frame{rule: r, at: g.start[r], outer: c.out})
			c.out = make(traceCounts)
			stats.memoized++
			continue
		}
		stack = append(stack, frame{rule: r, at: g.start[r]})
		stats.expanded++
	}
	c.endGoroutine()
	return nil
}

// sequiturTraces reads grammar files and walks each for the traces of
// function k; it returns them with the time the reading took.
func sequiturTraces(files []string, k wpp.FuncKey, stats *walkStats) (traceCounts, time.Duration, error) {
	start := time.Now()
	var gs []*seqGrammar
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, 0, err
		}
		g, err := readGrammar(data)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %v", name, err)
		}
		gs = append(gs, g)
	}
	read := time.Since(start)
	out := make(traceCounts)
	for i, g := range gs {
		if err := grammarTraces(g, k, out, stats); err != nil {
			return nil, 0, fmt.Errorf("%s: %v", files[i], err)
		}
	}
	return out, read, nil
}

// sameTraces reports how two extractions' traces differ, or nil.
func sameTraces(a, b traceCounts) error {
	for key, n := range a {
		if b[key] != n {
			return fmt.Errorf("a trace of %d paths taken by %d calls, not %d", len(pathsOfKey(key)), n, b[key])
		}
	}
	for key, n := range b {
		if _, ok := a[key]; !ok {
			return fmt.Errorf("a trace of %d paths taken by %d calls, not 0", len(pathsOfKey(key)), n)
		}
	}
	return nil
}

func pathsOfKey(key string) []uint64 {
	var paths []uint64
	b := []byte(key)
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		paths = append(paths, v)
		b = b[n:]
	}
	return paths
}

// wppWorkload is one workload's recording measured.
type wppWorkload struct {
	Workload   string
	Processes  int
	Goroutines int
	Events     uint64
	// RawFileBytes is the size of the .wpp files; RawBytes that of the
	// events in them (the chunks' payloads, without the units allocated
	// and not used).
	RawFileBytes, RawBytes int64
	LimitReached           bool
	TWPPBytes              int64
	// TWPPTraceBytes and TWPPCallBytes are the TWPP's function sections
	// (the traces) and its calls section (the call graph, processes and
	// goroutines), as stored; the header is the rest.
	TWPPTraceBytes, TWPPCallBytes int64
	SequiturBytes                 int64
	SequiturRules                 int
	SequiturSymbols               int
	// Build times, seconds: wpp.CompactDir, and Sequitur with the writing
	// of its grammar files.
	CompactSeconds, SequiturSeconds float64
	// CommandSeconds and CommandPeakMB are `pathcover wpp compact` of
	// the recording as a user runs it: a process of its own, timed, with
	// its peak memory (timedCommand). The targets are the command's,
	// where a run has them: it is what a user waits for, and its peak
	// memory is goal 3's other bound.
	CommandSeconds, CommandPeakMB float64
	// HotSeconds is the time of `pathcover wpp hot`'s work with its
	// defaults: the TWPP read whole, then its 10 heaviest sequences of
	// at most 4 paths (TWPP.Hot).
	HotSeconds float64
	// Funcs is how many functions ran; Timed how many of them the
	// extraction times average over.
	Funcs, Timed int
	// Mean extraction times, milliseconds per function.
	RawMs, TWPPMs, SequiturReadMs, SequiturProcessMs float64
}

// wppResults is what a -wpp run measured; -json writes it.
type wppResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Workloads []*wppWorkload
	// Long is the long run of -long, if asked for.
	Long     *longRun `json:",omitempty"`
	Warnings []string
}

// measureWPP records and measures each workload's tests.
func (h *harness) measureWPP(r *wppResults, selected []workload, maxFuncs int) error {
	h.log("work directory %s", h.work)
	if err := h.buildPPPExec(); err != nil {
		return err
	}
	r.Workloads = measureEach(h, selected, &r.Warnings, func(w workload) (*wppWorkload, error) { return h.measureWPPWorkload(w, maxFuncs) })
	if len(r.Workloads) == 0 {
		return errors.New("no workload could be measured")
	}
	return nil
}

func (h *harness) measureWPPWorkload(w workload, maxFuncs int) (*wppWorkload, error) {
	t, err := h.prepare(w)
	if err != nil {
		return nil, err
	}
	h.log("build %s wpp", t.name)
	if t.bins["wpp"], _, err = h.build(t, "wpp", nil); err != nil {
		return nil, err
	}
	base := filepath.Join(h.work, "wpp", strings.ReplaceAll(t.name, "/", "_"))
	dir, gdir := filepath.Join(base, "profile"), filepath.Join(base, "grammars")
	for _, d := range []string{dir, gdir} {
		if err := os.RemoveAll(d); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(gdir, 0o755); err != nil {
		return nil, err
	}
	h.log("%s: tests, recording", t.name)
	out, err := h.command(t.runDir, []string{"PATHCOVERDIR=" + dir}, t.bins["wpp"], "-test.run=.", "-test.bench=^$", "-test.short", "-test.timeout=10m")
	if err != nil {
		h.log("%s: tests: %v", t.name, firstLine(string(out)))
	}
	raws, err := profile.Need(dir, profile.KindWPP, "the tests recorded none")
	if err != nil {
		return nil, err
	}
	m := &wppWorkload{Workload: t.name, Processes: len(raws)}

	h.log("%s: compacting", t.name)
	start := time.Now()
	twpp, stats, err := wpp.CompactDir(dir, "")
	if err != nil {
		return nil, err
	}
	m.CompactSeconds = time.Since(start).Seconds()
	m.Goroutines = stats.Goroutines
	h.log("%s: pathcover wpp compact", t.name)
	cmdOut := filepath.Join(base, "command.twpp")
	step, _ := h.timedCommand("wpp compact", h.pathcover, "wpp", "compact", "-dir", dir, "-o", cmdOut)
	os.Remove(cmdOut)
	if step.Error != "" {
		return nil, fmt.Errorf("pathcover wpp compact: %s", step.Error)
	}
	m.CommandSeconds, m.CommandPeakMB = step.Seconds, step.PeakMB
	if m.TWPPBytes, err = fileSize(twpp); err != nil {
		return nil, err
	}

	h.log("%s: Sequitur", t.name)
	start = time.Now()
	var grammars []string
	for i, name := range raws {
		size, err := fileSize(name)
		if err != nil {
			return nil, err
		}
		m.RawFileBytes += size
		f, err := profile.OpenWPP(name)
		if err != nil {
			return nil, err
		}
		m.LimitReached = m.LimitReached || f.Header.LimitReached
		s, err := sequiturOfWPP(f)
		f.Close()
		if err != nil {
			return nil, err
		}
		m.Events += s.events
		m.RawBytes += s.bytes
		m.SequiturRules += len(s.grammar.rules)
		m.SequiturSymbols += s.grammar.symbols()
		data := s.encode()
		m.SequiturBytes += int64(len(data))
		g := filepath.Join(gdir, fmt.Sprintf("%d.grammar", i))
		if err := os.WriteFile(g, data, 0o644); err != nil {
			return nil, err
		}
		grammars = append(grammars, g)
	}
	m.SequiturSeconds = time.Since(start).Seconds()

	h.log("%s: hot paths", t.name)
	start = time.Now()
	if err := hotOf(twpp); err != nil {
		return nil, err
	}
	m.HotSeconds = time.Since(start).Seconds()

	tf, err := wpp.Open(twpp)
	if err != nil {
		return nil, err
	}
	funcs := tf.Funcs()
	_, m.TWPPTraceBytes, m.TWPPCallBytes = tf.Sizes()
	tf.Close()
	m.Funcs = len(funcs)
	slices.SortFunc(funcs, func(a, b wpp.FuncKey) int {
		return strings.Compare(a.String(), b.String())
	})
	if maxFuncs > 0 && len(funcs) > maxFuncs {
		// Evenly spaced over the sorted list.
		picked := make([]wpp.FuncKey, maxFuncs)
		for i := range picked {
			picked[i] = funcs[i*len(funcs)/maxFuncs]
		}
		funcs = picked
	}
	h.log("%s: extracting the traces of %d functions", t.name, len(funcs))
	var rawD, twppD, readD, procD time.Duration
	for _, k := range funcs {
		start := time.Now()
		raw, err := rawTraces(raws, k)
		if err != nil {
			return nil, err
		}
		rawD += time.Since(start)

		start = time.Now()
		ts, err := twppTraces(twpp, k)
		if err != nil {
			return nil, err
		}
		twppD += time.Since(start)

		start = time.Now()
		seq, read, err := sequiturTraces(grammars, k, nil)
		if err != nil {
			return nil, err
		}
		procD += time.Since(start) - read
		readD += read

		if err := sameTraces(raw, twppCounts(ts)); err != nil {
			return nil, fmt.Errorf("function %s: the raw stream and the TWPP differ: %v", k, err)
		}
		if err := sameTraces(raw, seq); err != nil {
			return nil, fmt.Errorf("function %s: the raw stream and the Sequitur grammar differ: %v", k, err)
		}
	}
	m.Timed = len(funcs)
	if n := float64(len(funcs)); n > 0 {
		ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 / n }
		m.RawMs, m.TWPPMs, m.SequiturReadMs, m.SequiturProcessMs = ms(rawD), ms(twppD), ms(readD), ms(procD)
	}
	return m, nil
}

// hotOf does what `pathcover wpp hot` does with its defaults.
func hotOf(twpp string) error {
	f, err := wpp.Open(twpp)
	if err != nil {
		return err
	}
	defer f.Close()
	t, err := f.ReadAll()
	if err != nil {
		return err
	}
	_, err = t.Hot(10, 4, nil)
	return err
}

func fileSize(name string) (int64, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// Markdown renders the results as tables, with the TWPP paper's figures.
func (r *wppResults) Markdown() string {
	var b strings.Builder
	cmd := "go run ./bench -wpp"
	for _, f := range r.Selection {
		cmd += " " + f
	}
	if r.Long != nil {
		fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s.\n", cmd, r.Date, r.Machine, r.GoVersion)
		r.Long.markdown(&b)
		return b.String()
	}
	fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s: each workload's tests (`-test.short`) run once from a `pppexec -pkgs=PKG -wpp` build.\n\n", cmd, r.Date, r.Machine, r.GoVersion)
	b.WriteString("| workload | events | raw WPP | .wpp files | TWPP | TWPP traces + calls | raw / TWPP | Sequitur | TWPP / Sequitur | compaction time, TWPP | raw WPP compacted a second | `wpp compact`: time, peak memory | Sequitur | wpp hot |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var factors, seqRatios, rawSpeedups, seqSlowdowns []float64
	for _, w := range r.Workloads {
		limit := ""
		if w.LimitReached {
			limit = " (size limit reached)"
		}
		f := float64(w.RawBytes) / float64(w.TWPPBytes)
		s := float64(w.TWPPBytes) / float64(w.SequiturBytes)
		factors, seqRatios = append(factors, f), append(seqRatios, s)
		parts := "" // not in the JSON of older runs
		if w.TWPPTraceBytes+w.TWPPCallBytes > 0 {
			parts = byteSize(w.TWPPTraceBytes) + " + " + byteSize(w.TWPPCallBytes)
		}
		speed, hot := "–", "–" // not in the JSON of older runs
		if w.CompactSeconds > 0 {
			speed = byteSize(int64(float64(w.RawBytes)/w.CompactSeconds)) + "/s"
		}
		if w.HotSeconds > 0 {
			hot = fmt.Sprintf("%.2f s", w.HotSeconds)
		}
		command := "–"
		if w.CommandSeconds > 0 {
			command = fmt.Sprintf("%.2f s, %.0f MB", w.CommandSeconds, w.CommandPeakMB)
		}
		fmt.Fprintf(&b, "| %s%s | %s | %s | %s | %s | %s | %.1f× | %s | %.2f× | %.1f s | %s | %s | %.1f s | %s |\n", w.Workload, limit, count(w.Events),
			byteSize(w.RawBytes), byteSize(w.RawFileBytes), byteSize(w.TWPPBytes), parts, f, byteSize(w.SequiturBytes), s, w.CompactSeconds, speed, command, w.SequiturSeconds, hot)
	}
	fmt.Fprintf(&b, "\nraw WPP is the bytes of the events (the chunks' payloads), .wpp files the files with their unused space; TWPP is profile.twpp (wpp.CompactDir), its traces the functions' sections and its calls the call graph's section, as stored; the compaction time is wpp.CompactDir's in the harness's process, and `wpp compact` the command's, a process of its own, with its peak memory (the kernel's maximum resident set); Sequitur the grammar files of bench/wpp.go. Median over workloads: raw / TWPP %.1f× (the paper: 7 to 64×), TWPP / Sequitur %.2f× (the paper: Sequitur 3.92× smaller on average; the aim: at most 2×).\n\n",
		median(factors), median(seqRatios))
	b.WriteString(r.targets())

	b.WriteString("| workload | functions timed | raw scan | TWPP | Sequitur, read + process = total | raw / TWPP | Sequitur / TWPP |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, w := range r.Workloads {
		if w.Timed == 0 {
			continue
		}
		seq := w.SequiturReadMs + w.SequiturProcessMs
		rs, ss := w.RawMs/w.TWPPMs, seq/w.TWPPMs
		rawSpeedups, seqSlowdowns = append(rawSpeedups, rs), append(seqSlowdowns, ss)
		timed := fmt.Sprint(w.Timed)
		if w.Timed < w.Funcs {
			timed = fmt.Sprintf("%d of %d", w.Timed, w.Funcs)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s + %s = %s | %.0f× | %.0f× |\n", w.Workload, timed,
			millis(w.RawMs), millis(w.TWPPMs), millis(w.SequiturReadMs), millis(w.SequiturProcessMs), millis(seq), rs, ss)
	}
	fmt.Fprintf(&b, "\nMean time to extract all the traces of one function, reading the files each time (warm page cache). Median over workloads: TWPP %.0f× faster than the raw scan (the paper: over 1000×), Sequitur %.0f× slower than TWPP (the paper: 89 to 553×). Each function's traces and counts agree across the three.\n",
		median(rawSpeedups), median(seqSlowdowns))
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "\nNot measured: %s\n", w)
	}
	return b.String()
}

// count writes a count with a metric prefix.
func count(n uint64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f G", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f k", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// targets is the table of the whole-program-path targets (issue 45's
// goal 3): compaction at the speed of the disk, at its slowest and at
// the median over workloads of a megabyte or more (below, fixed costs
// decide), and wpp hot under a second on every workload. Empty for
// runs older than the fields.
func (r *wppResults) targets() string {
	var speeds []float64
	slowest, slowestName := -1.0, ""
	hot, hotName := 0.0, ""
	peak, peakName := 0.0, ""
	for _, w := range r.Workloads {
		if w.CompactSeconds <= 0 || w.HotSeconds <= 0 {
			return ""
		}
		seconds := w.CompactSeconds
		if w.CommandSeconds > 0 {
			seconds = w.CommandSeconds
		}
		if w.RawBytes >= 1<<20 {
			v := float64(w.RawBytes) / seconds
			speeds = append(speeds, v)
			if slowest < 0 || v < slowest {
				slowest, slowestName = v, w.Workload
			}
		}
		if w.HotSeconds > hot {
			hot, hotName = w.HotSeconds, w.Workload
		}
		if w.CommandPeakMB > peak {
			peak, peakName = w.CommandPeakMB, w.Workload
		}
	}
	if len(speeds) == 0 {
		return ""
	}
	met := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	var b strings.Builder
	b.WriteString("| target | goal | measured | met |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| wpp compact, raw WPP a second, median over workloads of 1 MB or more | ≥ 50 MB/s | %s/s | %s |\n", byteSize(int64(median(speeds))), met(median(speeds) >= 50<<20))
	fmt.Fprintf(&b, "| wpp compact, raw WPP a second, slowest such workload | ≥ 50 MB/s | %s/s (%s) | %s |\n", byteSize(int64(slowest)), slowestName, met(slowest >= 50<<20))
	fmt.Fprintf(&b, "| wpp hot (defaults, the TWPP read whole), slowest workload | < 1 s | %.2f s (%s) | %s |\n", hot, hotName, met(hot < 1))
	if peak > 0 {
		fmt.Fprintf(&b, "| wpp compact, peak memory, largest | ≤ 1 GB | %.0f MB (%s) | %s |\n", peak, peakName, met(peak <= 1024))
	}
	b.WriteString("\n")
	return b.String()
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func millis(ms float64) string {
	if ms < 1 {
		return fmt.Sprintf("%.3f ms", ms)
	}
	return fmt.Sprintf("%.1f ms", ms)
}

// wppBenchLimit is PATHCOVERWPPMAX for the benchmarks of the wpp mode: a
// benchmark run records some hundreds of megabytes (strconv's, 170 MB at
// -benchtime=200ms), and one that stopped recording at the limit would be
// timed as partly not recording.
const wppBenchLimit = "8G"

// wppRecordedAll checks that a run of the wpp mode recorded, and did not
// stop at the size limit: otherwise its times are not those of recording.
func wppRecordedAll(dir string) error {
	names, err := profile.Need(dir, profile.KindWPP, "the benchmarks recorded none")
	if err != nil {
		return err
	}
	for _, name := range names {
		f, err := profile.OpenWPP(name)
		if err != nil {
			return err
		}
		limit := f.Header.LimitReached
		f.Close()
		if limit {
			return fmt.Errorf("wpp: the recording reached PATHCOVERWPPMAX=%s and stopped, so the benchmarks were not all timed recording", wppBenchLimit)
		}
	}
	return nil
}

// runWPP is the -wpp run: it measures the selected workloads and writes
// the outputs.
func (h *harness) runWPP(selected []workload, set map[string]bool, run string, maxFuncs, long int, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r := &wppResults{
		Date:      time.Now().Format("2006-01-02"),
		Machine:   machine(),
		GoVersion: goVersion(),
	}
	if set["quick"] {
		r.Selection = append(r.Selection, "-quick")
	}
	if set["run"] {
		r.Selection = append(r.Selection, "-run="+strconv.Quote(run))
	}
	if set["wppfuncs"] {
		r.Selection = append(r.Selection, "-wppfuncs="+strconv.Itoa(maxFuncs))
	}
	if long > 0 {
		r.Selection = []string{fmt.Sprintf("-long %d", long)}
		h.log("work directory %s", h.work)
		if err := h.buildPPPExec(); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		var err error
		if r.Long, err = h.measureLong("wpp", long); err != nil {
			fmt.Fprintf(stderr, "bench: the long run: %v\n", err)
			return 1
		}
		return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
	}
	if err := h.measureWPP(r, selected, maxFuncs); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

// renderWPP writes the outputs of a -wpp run saved by -json.
func renderWPP(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r, ok := readResults[wppResults](file, "-wpp", stderr)
	if !ok {
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}
