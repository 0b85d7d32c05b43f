package export

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/pathcover/pathcover/internal/report"
)

// The pprof format is the gzipped protocol buffer of pprof's
// profile.proto (github.com/google/pprof/proto/profile.proto), which
// go tool pprof, continuous profilers and Go's PGO read. A path profile
// becomes a profile with three sample types, executions the default:
//
//	sample_type  executions/count  paths/count  lines/count
//	sample       [F@12]            [5, 0, 0]    test="TestF"
//	sample       [F@13]            [0, 3, 3]    path=2 test="TestF"
//	sample       [F@14]            [0, 0, 3]    path=2 test="TestF"
//	sample       [F@16]            [0, 0, 2]    path=0 test="TestF"
//	sample       [F@13]            [0, 2, 2]    path=0 test="TestF"
//	location     F@13: function F, line 13
//	function     F: name example.com/m/p.F, file /abs/p/f.go, start line 12
//
// Each function has one sample of executions, at the line it is declared
// on: how many times it was entered (report.Func.Calls). Each path that
// ran has one sample at each line it runs, whose lines value is the
// path's count, and the first of them (in source order) carries the count
// as paths too; those samples are labelled path=id, the path's
// Ball-Larus id (numbering.Decode, pathcover paths -id). A line is run by
// a path if the statement unit it counts as (lines, as in LCOV and go
// tool cover -html) is in a block of the path. So, exactly:
//
//   - executions per function (go tool pprof -top) are its calls;
//   - lines per line (-sample_index=lines -list F) are how many times the
//     line ran, LCOV's DA, and per function the sum over its lines;
//   - paths per function (-sample_index=paths -top) are the paths it ran,
//     a loop's every round one, and the labels say which (-tags, and
//     -tagfocus=path=2 for one path's lines).
//
// Where the profile says which tests ran a path (pathcover test), a
// sample is split by test, labelled test="TestF" (tests that ran together
// are joined with " | "); runs outside any recorded test carry no test
// label. In a PPP build's profile, the paths that its tests never ran,
// the residual ones (pathcover residual), are labelled residual="true":
// -tagfocus=residual=true shows what ran in the field and not in the
// tests. Every location has one line and no address, and the one mapping
// says so (has_functions, has_filenames, has_line_numbers): nothing is
// left to symbolize. A count past math.MaxInt64 stays there. File names
// are as the profile records them (absolute, unless the build trimmed
// them), which is where go tool pprof -list looks for the source;
// -source_path and -trim_path move it.

// WritePprof writes the report's function executions, path runs and line
// runs as a gzipped pprof profile.
func WritePprof(w io.Writer, r *report.Report, opt *Options) error {
	fs, err := files(r, opt)
	if err != nil {
		return err
	}
	b := newPprofBuilder([][2]string{{"executions", "count"}, {"paths", "count"}, {"lines", "count"}}, 0)
	b.comment(fmt.Sprintf("pathcover export -format pprof: exact counts from the path profile of %d processes", r.Processes))
	for _, fl := range fs {
		owned := make(map[*function][]line)
		for _, l := range fl.lines() {
			owned[l.fn] = append(owned[l.fn], l)
		}
		for _, fn := range fl.funcs {
			if err := b.addFunc(fl, fn, owned[fn]); err != nil {
				return err
			}
		}
	}
	return b.write(w, opt)
}

// addFunc adds fn's executions and its paths' runs, at lines, fn's lines.
func (b *pprofBuilder) addFunc(fl *file, fn *function, lines []line) error {
	id := b.function(fn.Symbol(), fl.name, fn.Line)
	calls, err := fn.CallsByTest()
	if err != nil {
		return err
	}
	if !fn.Attributed() {
		calls = []report.TestRun{{Count: fn.calls, Unrecorded: true}}
	}
	for _, run := range calls {
		if run.Count > 0 {
			b.sample([]uint64{b.location(id, fn.Line)}, []int64{clampInt64(run.Count), 0, 0}, testLabel(run, nil))
		}
	}
	paths, err := fn.RanPaths()
	if err != nil {
		return err
	}
	var at []int
	for _, p := range paths {
		at = at[:0]
		for _, l := range lines {
			if blk := int(l.unit.Block); blk >= 0 && blk < len(p.Runs) && p.Runs[blk] {
				at = append(at, l.number)
			}
		}
		if len(at) == 0 {
			at = append(at, fn.Line) // a path through no statement: an empty body
		}
		runs := []report.TestRun{{Count: p.Count, Unrecorded: true}}
		if fn.Attributed() {
			runs = fn.Tests(p.ID)
		}
		for _, run := range runs {
			labels := testLabel(run, []pprofLabel{{key: "path", num: int64(p.ID), unit: "id", numeric: true}})
			if p.Residual {
				labels = append(labels, pprofLabel{key: "residual", str: "true"})
			}
			n := clampInt64(run.Count)
			for i, line := range at {
				first := int64(0)
				if i == 0 {
					first = n
				}
				b.sample([]uint64{b.location(id, line)}, []int64{0, first, n}, labels)
			}
		}
	}
	return nil
}

// testLabel adds to labels the test of run, if it is a recorded one.
func testLabel(run report.TestRun, labels []pprofLabel) []pprofLabel {
	if !run.Unrecorded {
		labels = append(labels, pprofLabel{key: "test", str: run.String()})
	}
	return labels
}

// The pgo format is the profile that go build -pgo reads (default.pgo),
// in pprof's encoding, with the one sample type that Go's PGO looks for
// first, samples/count. Go's compiler takes from a CPU profile the
// weighted call graph: each edge a caller, the call's line as an offset
// from the line the caller is declared on, and a callee, weighted by the
// samples whose stacks hold it. A path profile knows the edges exactly:
// every static call on a block that ran is a sample of two frames,
//
//	sample    [callee@10, caller@25]  [runs]
//	function  caller: name example.com/m/p.(*T).Parse, start line 20
//
// weighted by the runs of its block (report.Func.StaticCallRuns), callee
// first as in a CPU profile's stacks. Calls through interfaces and
// function values name no callee statically and are not in it, so PGO's
// devirtualization, which needs a CPU profile's dynamic callees, gets
// nothing from it; its inlining of hot calls gets every static call with
// its exact weight. The callee's start line, which PGO does not use, is
// its line where the profile has the callee, else 0. Functions of
// _test.go files are included: go test -pgo builds them too.

// WritePGO writes the report's static calls as a profile for go build
// -pgo.
func WritePGO(w io.Writer, r *report.Report, opt *Options) error {
	start := make(map[string]int) // function → its line
	var funcs []*report.Func
	for _, pkg := range r.Packages {
		for _, f := range slices.Concat(pkg.Funcs, pkg.TestFuncs) {
			start[f.Symbol()] = f.Line
			funcs = append(funcs, f)
		}
	}
	b := newPprofBuilder([][2]string{{"samples", "count"}}, 0)
	b.comment(fmt.Sprintf("pathcover export -format pgo: exact static call counts from the path profile of %d processes", r.Processes))
	for _, f := range funcs {
		sites, err := f.StaticCallRuns()
		if err != nil {
			return err
		}
		caller := b.function(f.Symbol(), f.File, f.Line)
		for _, s := range sites {
			callee := b.function(s.Callee, "", start[s.Callee])
			b.sample([]uint64{b.location(callee, start[s.Callee]), b.location(caller, s.Line)}, []int64{clampInt64(s.Runs)}, nil)
		}
	}
	return b.write(w, opt)
}

// A pprofBuilder builds a profile: its strings, functions and locations
// are numbered as they are first used.
type pprofBuilder struct {
	prof      protoBuf // the profile's fields but its strings
	strings   []string
	stringIDs map[string]int64
	funcIDs   map[string]uint64 // by name and file
	locIDs    map[[2]uint64]uint64
	types     int // sample types
}

// newPprofBuilder starts a profile of the sample types (type and unit
// each), the one at index def the default.
func newPprofBuilder(types [][2]string, def int) *pprofBuilder {
	b := &pprofBuilder{stringIDs: make(map[string]int64), funcIDs: make(map[string]uint64), locIDs: make(map[[2]uint64]uint64), types: len(types)}
	b.str("") // string_table[0] must be ""
	for _, t := range types {
		var vt protoBuf
		vt.int64Field(1, b.str(t[0]))
		vt.int64Field(2, b.str(t[1]))
		b.prof.bytesField(1, vt) // sample_type
	}
	b.prof.int64Field(14, b.str(types[def][0])) // default_sample_type
	var m protoBuf                              // mapping: one, fully symbolized
	m.uint64Field(1, 1)
	m.int64Field(5, b.str("pathcover"))
	m.boolField(7, true)
	m.boolField(8, true)
	m.boolField(9, true)
	b.prof.bytesField(3, m)
	return b
}

// str returns the index of s in the string table.
func (b *pprofBuilder) str(s string) int64 {
	if id, ok := b.stringIDs[s]; ok {
		return id
	}
	id := int64(len(b.strings))
	b.strings = append(b.strings, s)
	b.stringIDs[s] = id
	return id
}

func (b *pprofBuilder) comment(s string) { b.prof.int64Field(13, b.str(s)) }

// function returns the id of the function of a name in a file.
func (b *pprofBuilder) function(name, file string, start int) uint64 {
	key := name + "\x00" + file
	if id, ok := b.funcIDs[key]; ok {
		return id
	}
	id := uint64(len(b.funcIDs) + 1)
	b.funcIDs[key] = id
	var f protoBuf
	f.uint64Field(1, id)
	f.int64Field(2, b.str(name))
	f.int64Field(3, b.str(name))
	f.int64Field(4, b.str(file))
	f.int64Field(5, int64(start))
	b.prof.bytesField(5, f)
	return id
}

// location returns the id of the location of a line of a function.
func (b *pprofBuilder) location(fn uint64, line int) uint64 {
	key := [2]uint64{fn, uint64(line)}
	if id, ok := b.locIDs[key]; ok {
		return id
	}
	id := uint64(len(b.locIDs) + 1)
	b.locIDs[key] = id
	var l, ln protoBuf
	ln.uint64Field(1, fn)
	ln.int64Field(2, int64(line))
	l.uint64Field(1, id)
	l.uint64Field(2, 1) // mapping
	l.bytesField(4, ln)
	b.prof.bytesField(4, l)
	return id
}

// A pprofLabel is a sample's label: a string, or a number.
type pprofLabel struct {
	key     string
	str     string
	num     int64
	unit    string // of a number: pprof drops a 0 without one
	numeric bool
}

// sample adds a sample of a stack, leaf first, with a value per sample
// type.
func (b *pprofBuilder) sample(stack []uint64, values []int64, labels []pprofLabel) {
	if len(values) != b.types {
		panic(fmt.Sprintf("pprof sample of %d values for %d types", len(values), b.types))
	}
	var s protoBuf
	s.packedField(1, stack)
	vs := make([]uint64, len(values))
	for i, v := range values {
		vs[i] = uint64(v)
	}
	s.packedField(2, vs)
	for _, l := range labels {
		var lb protoBuf
		lb.int64Field(1, b.str(l.key))
		if l.numeric {
			// pprof drops a numeric label of 0 that has no unit.
			lb.int64Field(3, l.num)
			lb.int64Field(4, b.str(l.unit))
		} else {
			lb.int64Field(2, b.str(l.str))
		}
		s.bytesField(3, lb)
	}
	b.prof.bytesField(2, s)
}

// write writes the profile, gzipped, with its strings and time.
func (b *pprofBuilder) write(w io.Writer, opt *Options) error {
	if opt != nil && !opt.Now.IsZero() {
		b.prof.int64Field(9, opt.Now.UnixNano()) // time_nanos
	}
	for _, s := range b.strings {
		b.prof.stringField(6, s)
	}
	bw := bufio.NewWriter(w)
	zw := gzip.NewWriter(bw)
	if _, err := zw.Write(b.prof); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// A flight profile holds flight files (pppexec -flight) as pprof samples,
// so that the rings of a fleet's failures reach the same profilers:
//
//	sample_type  rings/count
//	sample       [work@20, classify@11, work@20, ...]  [1]
//	             state="unrecovered panic" named="true" failing="true" goroutine=21
//	             message="assignment to entry in nil map" process=4765
//
// One sample per goroutine ring shown (report.Flight: those that recorded
// a path, and the goroutine the state names), of value 1: its stack is
// the ring's paths, the most recent as the leaf, each a frame at its
// function and the line the path starts at (the function's, or a loop's
// head for a path that starts a round), a run of the same path (a loop's
// rounds) one frame. So a flame graph of the failing goroutines
// (-tagfocus=failing=true) shows the paths that led to failures, the
// commonest sequences widest, and -tags the failures' states, messages
// and signals. named is the goroutine the state names (it panicked,
// threw, exited or took the snapshot), failing that goroutine of a
// process that failed. A sample is also labelled with its flight file's
// name.

// WriteFlightPprof writes flight reports as a pprof profile.
func WriteFlightPprof(w io.Writer, reports []*report.FlightReport, opt *Options) error {
	b := newPprofBuilder([][2]string{{"rings", "count"}}, 0)
	b.comment(fmt.Sprintf("pathcover flight -pprof: the rings of %d flight files", len(reports)))
	for _, r := range reports {
		for _, g := range r.Goroutines {
			var stack []uint64
			var last *report.FlightPath
			for i := range g.Paths {
				p := &g.Paths[i]
				if last != nil && last.Package == p.Package && last.Func == p.Func && last.ID == p.ID {
					continue
				}
				last = p
				line := p.Line
				if len(p.Steps) > 0 && p.Steps[0].Line > 0 {
					line = p.Steps[0].Line
				}
				fn := b.function(p.Symbol, p.File, p.Line)
				stack = append(stack, b.location(fn, line))
			}
			if len(stack) == 0 {
				continue // the named goroutine, if it recorded nothing
			}
			labels := []pprofLabel{
				{key: "state", str: r.State},
				{key: "goroutine", num: int64(g.Goroutine), unit: "id", numeric: true},
				{key: "process", num: int64(r.PID), unit: "id", numeric: true},
				{key: "file", str: filepath.Base(r.File)},
			}
			if g.Named {
				labels = append(labels, pprofLabel{key: "named", str: "true"})
				if r.Failed {
					labels = append(labels, pprofLabel{key: "failing", str: "true"})
				}
				if r.Message != "" {
					labels = append(labels, pprofLabel{key: "message", str: r.Message})
				}
				if r.Signal != "" {
					labels = append(labels, pprofLabel{key: "signal", str: r.Signal})
				}
			}
			b.sample(stack, []int64{1}, labels)
		}
	}
	return b.write(w, opt)
}
