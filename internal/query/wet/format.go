package wet

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pathcover/pathcover/internal/atomicfile"
	"github.com/pathcover/pathcover/internal/query/wet/bidi"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/wire"
	"github.com/pathcover/pathcover/profile"
)

// A WET file, what `pathcover wet build` writes (profile.wet by default).
// Every number is a uvarint (encoding/binary); a string is its length and
// its bytes; a stream is a bidi stream's encoding (internal/query/wet/bidi/encode.go).
//
//	file      = magic "pcovwet5" section(stats) section(funcs) section(nodes)
//	            section(goroutines) section(groups) section(accesses)
//	            section(processes)
//	section   = length sum content                 (sum: 4 bytes, little-endian)
//	stats     = recordBytes tier1Words tier2Bytes valueBytes paths
//	            statements valueRecords accesses siteValueBytes
//	            groupedValueBytes
//	funcs     = n { hash index package name }^n         (hash, package, name: strings)
//	nodes     = n { func path }^n
//	goroutines= n { process id parent spawn start end stopped trace }^n
//	groups    = n { func when patterned [pattern] members }^n
//	members   = n { site nWords word^nWords }^n
//	word      = 0 stream | 1 value | 2 index delta
//	accesses  = n { func stmt access when field^5 }^n
//	when      = 0 times | 1 n k node^k skips        (times: a stream; skips: 0 stream | 1 value)
//	field     = 0 stream | 1 value | 2 index delta (seq addr size src flags)
//	processes = n { name flags limit errno tests }^n (the WPP files, and how each
//	                                                 recording ended: wpp.ProcessEnd)
//	tests     = n { goroutine name parent ended }^n (the tests that ran, as the WPP
//	                                                 file's test chunks say:
//	                                                 profile.WPPTest; version 4,
//	                                                 "pcovwet4", has none and is read too)
//
// A section's sum is the CRC-32C (profile.Checksum) of its content, which
// the reader checks for every section before it decodes any: a corrupt
// file is an error naming the section, never another answer.
//
// A word or field "2 index delta" has the values of the index-th word or
// field of the file that is not a constant (from 0, in the file's order),
// each plus delta (mod 2^64): the same values labelling two things are
// written once (share.go).
//
// A node's timestamps (Node.Times) are not in the file: the traces hold
// them, goroutine g's k-th path symbol being the execution of timestamp
// g.start+k, and the reader makes each node's label from them. A label's
// timestamps (when: a value group's, an access label's) are a stream, or
// the executions of its statement (Execs): n entries at the timestamps of
// k nodes, merged, indexed by the skips; a constant skip is never 0.
//
// A value group (ValueGroup) with patterned 1 has a pattern stream, and
// its members' word streams hold its distinct tuples; with patterned 0,
// every value. The value sites (WET.Values) are the groups' members, in
// order. The reader checks every index against the tables before it (a
// node's function, a trace's nodes and functions, a pattern's tuples),
// that a label's streams have one entry per execution, that no site is in
// two groups, and each stream as bidi.Parse does; a file that it accepts
// answers every query without an error.

const magic = "pcovwet5"

// magicNoTests is the version before the processes listed their tests.
const magicNoTests = "pcovwet4"

// sectionNames name the file's sections, in order, in errors.
var sectionNames = [...]string{"stats", "functions", "nodes", "goroutines", "value groups", "access labels", "processes"}

// verifySums is false only in FuzzParse's second pass, which fuzzes the
// decoders behind the checksums.
var verifySums = true

// Write writes w in the WET format.
func (w *WET) Write(out io.Writer) error {
	bw := bufio.NewWriter(out)
	var b []byte
	uv := func(v uint64) { b = binary.AppendUvarint(b, v) }
	str := func(s string) { uv(uint64(len(s))); b = append(b, s...) }
	stream := func(s *bidi.Stream) error {
		var err error
		b, err = s.AppendBinary(b)
		return err
	}
	refs := w.sharedStreams()
	nshared := 0
	// shared writes a word's or field's stream, or its reference.
	shared := func(s *bidi.Stream) error {
		r := refs[nshared]
		nshared++
		if r != nil {
			uv(2)
			uv(uint64(r.index))
			uv(r.delta)
			return nil
		}
		uv(0)
		return stream(s)
	}
	when := func(times *bidi.Stream, e *Execs) error {
		if e == nil {
			uv(0)
			return stream(times)
		}
		uv(1)
		uv(uint64(e.N))
		uv(uint64(len(e.Nodes)))
		for _, n := range e.Nodes {
			uv(uint64(n))
		}
		if e.Skips == nil {
			uv(1)
			uv(e.SkipConstant)
			return nil
		}
		uv(0)
		return stream(e.Skips)
	}
	// endSection writes the section that b holds, framed.
	endSection := func() error {
		var head []byte
		head = binary.AppendUvarint(head, uint64(len(b)))
		head = binary.LittleEndian.AppendUint32(head, profile.Checksum(b))
		bw.Write(head)
		_, err := bw.Write(b)
		b = b[:0]
		return err
	}
	bw.WriteString(magic)
	st := w.Stats
	for _, v := range []int64{st.RecordBytes, st.Tier1Words, st.Tier2Bytes, st.ValueBytes, st.Paths, st.Statements, st.ValueRecords, st.Accesses, st.SiteValueBytes, st.GroupedValueBytes} {
		uv(uint64(v))
	}
	if err := endSection(); err != nil {
		return err
	}
	uv(uint64(len(w.Funcs)))
	for _, f := range w.Funcs {
		str(f.Hash)
		uv(uint64(f.Index))
		str(f.Package)
		str(f.Name)
	}
	if err := endSection(); err != nil {
		return err
	}
	uv(uint64(len(w.Nodes)))
	for _, n := range w.Nodes {
		uv(uint64(n.Func))
		uv(n.Path)
	}
	if err := endSection(); err != nil {
		return err
	}
	uv(uint64(len(w.Goroutines)))
	for _, g := range w.Goroutines {
		for _, v := range []uint64{uint64(g.Process), g.ID, g.Parent, g.Spawn, g.Start, g.End} {
			uv(v)
		}
		stopped := uint64(0)
		if g.Stopped {
			stopped = 1
		}
		uv(stopped)
		if err := stream(g.Trace); err != nil {
			return err
		}
	}
	if err := endSection(); err != nil {
		return err
	}
	uv(uint64(len(w.ValueGroups)))
	for _, g := range w.ValueGroups {
		uv(uint64(g.Func))
		if err := when(g.Times, g.Execs); err != nil {
			return err
		}
		if g.Pattern != nil {
			uv(1)
			if err := stream(g.Pattern); err != nil {
				return err
			}
		} else {
			uv(0)
		}
		uv(uint64(len(g.Sites)))
		for m, site := range g.Sites {
			uv(uint64(site))
			uv(uint64(len(g.Words[m])))
			for k, s := range g.Words[m] {
				if s == nil {
					uv(1)
					uv(g.Constant[m][k])
					continue
				}
				if err := shared(s); err != nil {
					return err
				}
			}
		}
	}
	if err := endSection(); err != nil {
		return err
	}
	uv(uint64(len(w.Accesses)))
	for _, a := range w.Accesses {
		uv(uint64(a.Func))
		uv(uint64(a.Stmt))
		uv(uint64(a.Access))
		if err := when(a.Times, a.Execs); err != nil {
			return err
		}
		for k, f := range a.fields() {
			if *f == nil {
				uv(1)
				uv(a.Constant[k])
				continue
			}
			if err := shared(*f); err != nil {
				return err
			}
		}
	}
	if err := endSection(); err != nil {
		return err
	}
	uv(uint64(len(w.Processes)))
	for _, p := range w.Processes {
		str(p.File)
		uv(p.End.Flags())
		uv(p.End.Limit)
		uv(uint64(p.End.WriteErrno))
		uv(uint64(len(p.Tests)))
		for _, t := range p.Tests {
			uv(t.Goroutine)
			str(t.Name)
			str(t.Parent)
			ended := uint64(0)
			if t.Ended {
				ended = 1
			}
			uv(ended)
		}
	}
	if err := endSection(); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteFile writes w to the file name whole or not at all, never through
// a link at name (atomicfile): another user who can write a shared
// profile directory could have planted profile.wet as a link to any of
// the user's files.
func (w *WET) WriteFile(name string) error {
	return atomicfile.Write(name, 0o644, w.Write)
}

// MaxFileSize is the largest WET file read: a WET is a small part of the
// recording it was built from (34 M statement executions took 258 MB of
// recording), and a file past 16 GiB would not fit in memory to be sliced.
const MaxFileSize = 16 << 30

// ReadFile reads a WET file.
func ReadFile(name string) (*WET, error) {
	f, info, err := profile.OpenFile(name, "WET file", MaxFileSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := profile.ReadWhole(f, "WET file", info.Size())
	if err != nil {
		return nil, err
	}
	w, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return w, nil
}

// Parse reads a WET from its encoding.
func Parse(data []byte) (*WET, error) {
	withTests := len(data) >= len(magic) && string(data[:len(magic)]) == magic
	if !withTests && (len(data) < len(magic) || string(data[:len(magic)]) != magicNoTests) {
		if len(data) >= len(magic) && string(data[:len(magic)-1]) == magic[:len(magic)-1] {
			return nil, fmt.Errorf("a WET file of version %q, not %q: written by another version of pathcover", data[len(magic)-1:len(magic)], magic[len(magic)-1:])
		}
		return nil, errors.New("not a WET file")
	}
	// The sections, each checked before any is decoded.
	var sections [len(sectionNames)]struct{ start, end int }
	pos := len(magic)
	for i, name := range sectionNames {
		n, k := binary.Uvarint(data[pos:])
		if k <= 0 || n > uint64(len(data)-pos-k) || uint64(len(data)-pos-k)-n < 4 {
			return nil, fmt.Errorf("byte %d: section %s: its length is cut short or past the end of the file", pos, name)
		}
		start := pos + k + 4
		end := start + int(n)
		if verifySums {
			what := fmt.Sprintf("section %s (bytes %d to %d)", name, start, end)
			if err := profile.VerifyChecksum(what, data[start:end], binary.LittleEndian.Uint32(data[pos+k:])); err != nil {
				return nil, err
			}
		}
		sections[i].start, sections[i].end = start, end
		pos = end
	}
	if pos != len(data) {
		return nil, fmt.Errorf("%d bytes after the WET", len(data)-pos)
	}
	r := &reader{size: len(data)}
	// section starts decoding section i; endSection checks that the
	// section before was read to its end.
	section := func(i int) {
		if i > 0 && r.Err == nil && r.Pos != len(r.B) {
			r.Fail("section %s: %d bytes left over", sectionNames[i-1], len(r.B)-r.Pos)
		}
		r.B, r.Pos = data[:sections[i].end], sections[i].start
	}
	w := &WET{}
	var stats [10]int64
	section(0)
	for i := range stats {
		stats[i] = int64(r.Uvarint("stats"))
	}
	w.Stats = Stats{stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6], stats[7], stats[8], stats[9]}
	section(1)
	nf := r.Count("functions", 2)
	for range nf {
		f := Func{Hash: r.str("hash")}
		f.Index = uint32(r.Small("function index", 1<<32))
		f.Package, f.Name = r.str("package"), r.str("name")
		w.Funcs = append(w.Funcs, f)
	}
	section(2)
	nn := r.Count("nodes", 2)
	for range nn {
		n := Node{Func: int(r.Small("node's function", uint64(len(w.Funcs))))}
		n.Path = r.Uvarint("path")
		w.Nodes = append(w.Nodes, n) // Times: check makes them from the traces
	}
	section(3)
	ng := r.Count("goroutines", 8)
	for range ng {
		g := Goroutine{Process: int(r.Small("process", 1<<31))}
		g.ID, g.Parent, g.Spawn, g.Start, g.End = r.Uvarint("id"), r.Uvarint("parent"), r.Uvarint("spawn"), r.Uvarint("start"), r.Uvarint("end")
		g.Stopped = r.Small("stopped", 2) == 1
		g.Trace = r.stream("trace")
		w.Goroutines = append(w.Goroutines, g)
	}
	section(4)
	ngr := r.Count("value groups", 4)
	for gi := range ngr {
		g := ValueGroup{Func: int(r.Small("group's function", uint64(len(w.Funcs))))}
		g.Times, g.Execs = r.when("value timestamps", len(w.Nodes))
		if r.Small("patterned", 2) == 1 {
			g.Pattern = r.stream("pattern")
		}
		nm := r.Count("group members", 2)
		for m := range nm {
			site := uint32(r.Small("site", 1<<32))
			g.Sites = append(g.Sites, site)
			var words []*bidi.Stream
			var consts []uint64
			nw := r.Small("words", 8)
			if nw == 0 {
				r.Fail("a value site of no word")
			}
			for range nw {
				s, c := r.word("value words")
				words, consts = append(words, s), append(consts, c)
			}
			g.Words, g.Constant = append(g.Words, words), append(g.Constant, consts)
			w.Values = append(w.Values, ValueLabel{Func: g.Func, Site: site, Group: gi, Member: m})
		}
		w.ValueGroups = append(w.ValueGroups, g)
	}
	section(5)
	na := r.Count("access labels", 9)
	for range na {
		a := AccessLabel{Func: int(r.Small("access's function", uint64(len(w.Funcs)))), Stmt: uint32(r.Small("statement", 1<<32)), Access: profile.WPPAccess(r.Small("access kind", 8))}
		a.Times, a.Execs = r.when("access timestamps", len(w.Nodes))
		for k, what := range []string{"access numbers", "addresses", "sizes", "sources", "flags"} {
			*a.fields()[k], a.Constant[k] = r.word(what)
		}
		w.Accesses = append(w.Accesses, a)
	}
	section(6)
	np := r.Count("processes", 4)
	for range np {
		p := Process{File: r.str("process's file")}
		flags, limit, errno := r.Uvarint("flags"), r.Uvarint("limit"), r.Uvarint("errno")
		if r.Err != nil {
			break
		}
		end, err := wpp.DecodeEnd(flags, limit, errno)
		if err != nil {
			r.Fail("process %q: %v", p.File, err)
			break
		}
		p.End = end
		if withTests {
			nt := r.Count("tests", 4)
			for range nt {
				t := profile.WPPTest{Goroutine: r.Uvarint("test's goroutine"), Name: r.str("test's name"), Parent: r.str("test's parent")}
				t.Ended = r.Small("test's end", 2) == 1
				p.Tests = append(p.Tests, t)
			}
			if r.Err != nil {
				break
			}
		}
		w.Processes = append(w.Processes, p)
	}
	if r.Err == nil && r.Pos != len(r.B) {
		r.Fail("section %s: %d bytes left over", sectionNames[len(sectionNames)-1], len(r.B)-r.Pos)
	}
	if r.Err != nil {
		return nil, r.Err
	}
	return w, w.check()
}

// check checks what Parse cannot see field by field: that traces name
// nodes and functions that exist, and labels have an entry per execution;
// and it makes the nodes' labels from the traces.
func (w *WET) check() error {
	times, err := w.checkTraces()
	if err != nil {
		return err
	}
	if n := len(w.Goroutines); n > 0 && w.Goroutines[n-1].Process >= len(w.Processes) {
		return fmt.Errorf("goroutines of process %d, but %d processes", w.Goroutines[n-1].Process, len(w.Processes))
	}
	for n := range w.Nodes {
		w.Nodes[n].Times = bidi.Compress(times[n], nodeTimesOptions)
	}
	sites := make(map[[2]int]bool)
	for i, g := range w.ValueGroups {
		if err := w.checkExecs(g.Func, g.Execs); err != nil {
			return fmt.Errorf("value group %d: %v", i, err)
		}
		n := g.count()
		tuples := g.tuples() // the length of every word stream; a constant's
		for m, words := range g.Words {
			if sites[[2]int{g.Func, int(g.Sites[m])}] {
				return fmt.Errorf("value group %d: site %d of function %d is in another group too", i, g.Sites[m], g.Func)
			}
			sites[[2]int{g.Func, int(g.Sites[m])}] = true
			for _, s := range words {
				if s != nil && s.Len() != tuples {
					return fmt.Errorf("value group %d: word streams of %d and %d entries", i, tuples, s.Len())
				}
			}
		}
		if g.Pattern == nil {
			if tuples >= 0 && tuples != n {
				return fmt.Errorf("value group %d: %d values, %d words", i, n, tuples)
			}
			continue
		}
		if g.Pattern.Len() != n {
			return fmt.Errorf("value group %d: %d values, a pattern of %d", i, n, g.Pattern.Len())
		}
		for _, t := range g.Pattern.Values() {
			if tuples < 0 && t != 0 || tuples >= 0 && t >= uint64(tuples) {
				return fmt.Errorf("value group %d: tuple %d of %d", i, t, max(tuples, 0))
			}
		}
	}
	for i := range w.Accesses {
		a := &w.Accesses[i]
		if err := w.checkExecs(a.Func, a.Execs); err != nil {
			return fmt.Errorf("access label %d: %v", i, err)
		}
		for _, f := range a.fields() {
			if *f != nil && (*f).Len() != a.count() {
				return fmt.Errorf("access label %d: streams of %d and %d", i, a.count(), (*f).Len())
			}
		}
	}
	return nil
}

// nodeTimesOptions choose the method of the nodes' labels that the reader
// makes: on a smaller sample than Build's, since they are not written and
// every read of the file makes them.
var nodeTimesOptions = &bidi.Options{WarmUp: 512, Finalists: 1}

// checkExecs checks timestamps given as executions (nil: none) of a
// label of function fn: that its nodes are fn's and its skips index
// their executions.
func (w *WET) checkExecs(fn int, e *Execs) error {
	if e == nil {
		return nil
	}
	if e.Skips != nil && e.Skips.Len() != e.N {
		return fmt.Errorf("%d entries, %d skips", e.N, e.Skips.Len())
	}
	if e.Skips == nil && e.SkipConstant == 0 {
		return errors.New("a constant skip of 0")
	}
	execs := 0
	for _, n := range e.Nodes {
		if w.Nodes[n].Func != fn {
			return fmt.Errorf("a label of function %d: node %d of function %d", fn, n, w.Nodes[n].Func)
		}
		execs += w.Nodes[n].Times.Len()
	}
	// A constant skip moves by at least one execution each time: its
	// entries are no more than the executions.
	if e.Skips == nil && e.N > execs {
		return fmt.Errorf("%d entries at %d executions", e.N, execs)
	}
	return e.check(execs)
}

// checkTraces checks the goroutines' traces, and returns each node's
// timestamps, which they say.
func (w *WET) checkTraces() ([][]uint64, error) {
	times := make([][]uint64, len(w.Nodes))
	for i, g := range w.Goroutines {
		if g.End < g.Start {
			return nil, fmt.Errorf("goroutine %d ends before it starts", i)
		}
		// Goroutines come process by process, their timestamps one after
		// the other from 0, as Build numbers them (a reader finds a
		// timestamp's goroutine by binary search).
		prev := Goroutine{Process: 0}
		if i > 0 {
			prev = w.Goroutines[i-1]
		}
		if g.Process != prev.Process && g.Process != prev.Process+1 || g.Start != prev.End {
			return nil, fmt.Errorf("goroutine %d: process %d, timestamps from %d, after process %d's up to %d", i, g.Process, g.Start, prev.Process, prev.End)
		}
		t := g.Start
		up := false // the last symbol was an up: a path must follow
		for _, sym := range g.Trace.Values() {
			if up && sym&7 != SymPath {
				return nil, fmt.Errorf("goroutine %d: an up not followed by a path", i)
			}
			up = false
			switch sym & 7 {
			case SymPath:
				if sym>>3 >= uint64(len(w.Nodes)) {
					return nil, fmt.Errorf("goroutine %d: a path of node %d of %d", i, sym>>3, len(w.Nodes))
				}
				if t == g.End {
					return nil, fmt.Errorf("goroutine %d: more paths than its timestamps [%d, %d)", i, g.Start, g.End)
				}
				times[sym>>3] = append(times[sym>>3], t)
				t++
			case SymEnter:
				if sym>>3 >= uint64(len(w.Funcs)) {
					return nil, fmt.Errorf("goroutine %d: a call of function %d of %d", i, sym>>3, len(w.Funcs))
				}
			case SymUp:
				if k := sym >> 3; k == 0 || k >= 1<<32 {
					return nil, fmt.Errorf("goroutine %d: a path %d calls up", i, k)
				}
				up = true
			case SymReturn, SymSpawn, SymStop:
			default:
				return nil, fmt.Errorf("goroutine %d: symbol of kind %d", i, sym&7)
			}
		}
		if up {
			return nil, fmt.Errorf("goroutine %d: an up not followed by a path", i)
		}
		if t != g.End {
			return nil, fmt.Errorf("goroutine %d: %d paths for timestamps [%d, %d)", i, t-g.Start, g.Start, g.End)
		}
	}
	return times, nil
}

type reader struct {
	wire.Decoder     // of the file up to the end of the section being read
	size         int // of the file
	// shared are the words' and fields' streams so far, for references,
	// and the bytes of each one's encoding (of the stream a reference
	// repeats); sharedBytes is what the references repeat.
	shared      []*bidi.Stream
	sharedSize  []int
	sharedBytes int
}

// word reads a value word or an access field: a stream, a constant (the
// stream nil), or a reference to an earlier one (share.go).
func (r *reader) word(what string) (*bidi.Stream, uint64) {
	switch r.Small(what+": a stream, a constant or a reference", 3) {
	case 1:
		return nil, r.Uvarint(what + ": the constant")
	case 2:
		k := int(r.Small(what+": the stream referred to", uint64(len(r.shared))))
		delta := r.Uvarint(what + ": the difference")
		if r.Err != nil {
			return &bidi.Stream{}, 0
		}
		r.sharedBytes += r.sharedSize[k]
		if r.sharedBytes > maxSharing*r.size {
			r.Fail("references repeat %d bytes of streams in a file of %d", r.sharedBytes, r.size)
			return &bidi.Stream{}, 0
		}
		s := resolve(r.shared[k], delta)
		r.shared, r.sharedSize = append(r.shared, s), append(r.sharedSize, r.sharedSize[k])
		return s, 0
	}
	at := r.Pos
	s := r.stream(what)
	r.shared, r.sharedSize = append(r.shared, s), append(r.sharedSize, r.Pos-at)
	return s, 0
}

func (r *reader) str(what string) string {
	n := r.Uvarint(what)
	if r.Err == nil && n > uint64(r.Left()) {
		r.Fail("%s of %d bytes past the end", what, n)
	}
	return string(r.Bytes(int(n)))
}

// when reads a label's timestamps: a stream, or executions of nodes of
// nodes.
func (r *reader) when(what string, nodes int) (*bidi.Stream, *Execs) {
	if r.Small(what+": a stream or executions", 2) == 0 {
		return r.stream(what), nil
	}
	e := &Execs{N: int(r.Small(what+": entries", 1<<40))}
	nn := r.Count(what+": nodes", 1)
	for range nn {
		n := int(r.Small(what+": node", uint64(nodes)))
		if len(e.Nodes) > 0 && n <= e.Nodes[len(e.Nodes)-1] {
			r.Fail("%s: nodes out of order (%d after %d)", what, n, e.Nodes[len(e.Nodes)-1])
		}
		e.Nodes = append(e.Nodes, n)
	}
	if r.Small(what+": skips: constant or not", 2) == 1 {
		e.SkipConstant = r.Uvarint(what + ": skips: the constant")
	} else {
		e.Skips = r.stream(what + ": skips")
	}
	return nil, e
}

func (r *reader) stream(what string) *bidi.Stream {
	if r.Err != nil {
		return &bidi.Stream{}
	}
	s, n, err := bidi.Parse(r.B[r.Pos:])
	if err != nil {
		r.Fail("%s: %v", what, err)
		return &bidi.Stream{}
	}
	r.Pos += n
	return s
}
