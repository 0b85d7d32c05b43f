package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/internal/query/wet"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/internal/source"
	"github.com/pathcover/pathcover/profile"
)

var cmdWET = &Command{
	UsageLine: "pathcover wet <command> [flags] [args]",
	Short:     "build and query whole execution traces (pppexec -wet)",
	Long: `
A whole execution trace (WET) is what a program built with pppexec -wet
records, made into one structure: each goroutine's calls and Ball-Larus
paths with their timestamps, the values that functions gave their
variables, and the memory each statement touched, each a compressed stream
that can be walked both ways from any point.

The queries read D/profile.wet, made by build (pathcover test -wet builds
it at the end); -f names another file.
`,
	Sub: []*Command{
		{
			UsageLine: "pathcover wet build [-dir D] [-o FILE]",
			Short:     "build the WET of the profile's recordings",
			Long: `
Build builds the whole execution trace of the profile's recordings into
D/profile.wet, unless -o names another file, and says how large it is.
It reads the recordings once and holds what the program has (its
functions, paths and labels), not what the run did: each label's entries
go to a temporary file (in TMPDIR, removed at once) as they are read, a
few bytes each, and are compressed from there, so a run of hundreds of
millions of statements builds in a few hundred megabytes of memory.
`,
			Flags: wetBuild,
		},
		{
			UsageLine: "pathcover wet trace [-dir D] [-f FILE] [-g index | -test TestX] [-t T] [-n n] [-back] [-lines] [-json]",
			Short:     "a goroutine's control flow, forwards or backwards from a timestamp",
			Long: `
Trace shows goroutine index's control flow (0 is the first recorded; with
-test, the goroutine that ran test TestX), from the path of timestamp T
(default its first, or with -back its last), n events forwards, or
backwards with -back; -lines decodes paths.
`,
			Flags: wetTrace,
		},
		{
			UsageLine: "pathcover wet values [-dir D] [-f FILE] [-test TestX] [-json] [PKG.]FUNC VAR",
			Short:     "the values a variable took, in order",
			Long: `
Values lists the values VAR took in FUNC, in order, each with the
timestamp of the path it was given in; with -test, those taken in test
TestX's goroutines alone (its subtests', and those it started).
`,
			Flags: wetValues,
		},
		{
			UsageLine: "pathcover wet addrs [-dir D] [-f FILE] [-test TestX] [-json] FILE:LINE",
			Short:     "the memory accesses of a line's statements, in order",
			Long: `
Addrs lists the memory accesses of the statements at FILE:LINE, in order;
with -test, those made in test TestX's goroutines alone.
`,
			Flags: wetAddrs,
		},
		{
			UsageLine: "pathcover wet writer [-dir D] [-f FILE] [-instance n] [-test TestX] [-json] FILE:LINE",
			Short:     "the access that last wrote what a line's access read",
			Long: `
Writer gives, for the last (or n-th, from 1) access at FILE:LINE (with
-test, of those made in test TestX's goroutines), the access that last
wrote the first byte it touched, before it, wherever it was made.
`,
			Flags: wetWriter,
		},
		{
			UsageLine: "pathcover wet diff [-test TestX] [-json] DIR_A DIR_B",
			Short:     "where two runs first differ, goroutine by goroutine",
			Long: `
Diff says where two runs (of one program, or of two versions of it: a
passing and a failing input, two commits) first differ, goroutine by
goroutine: in control flow (paths compared by the branches they take in
the source) or in a value (numbers, booleans, lengths, nil or not); exit
status 1 if they do. With -test, the goroutines of test TestX in each run
are compared (its own, then those it started, in the order they were made),
whatever ran before them.
`,
			Flags: wetDiff,
		},
	},
}

func wetBuild(fs *flag.FlagSet) Run {
	dir := wppDir(fs)
	out := fs.String("o", "", "write the WET to `file` (default DIR/profile.wet)")
	return func(cmd *Command, args []string) int {
		if len(args) != 0 || *dir == "" {
			fs.Usage()
			return exitUsage
		}
		w, err := wet.BuildDir(*dir, nil)
		var missing *profile.MissingMetaError
		if err != nil && !errors.As(err, &missing) {
			fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
			return exitNoData
		}
		name := *out
		if name == "" {
			name = profile.DerivedPath(*dir, profile.KindWET)
		}
		if err := w.WriteFile(name); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
			return exitFail
		}
		st := w.Stats
		writeCut(os.Stdout, w.Cut())
		fmt.Printf("%s: %d goroutines, %d path executions, %d statement executions, %d values, %d memory accesses\n",
			name, len(w.Goroutines), st.Paths, st.Statements, st.ValueRecords, st.Accesses)
		perStmt := func(b int64) string {
			if st.Statements == 0 {
				return "-"
			}
			return strconv.FormatFloat(float64(b)/float64(st.Statements), 'f', 2, 64)
		}
		fmt.Printf("recording %d bytes (%s a statement), labels %d bytes (%s), compressed %d bytes (%s; values %d)\n",
			st.RecordBytes, perStmt(st.RecordBytes), 8*st.Tier1Words, perStmt(8*st.Tier1Words), st.Tier2Bytes, perStmt(st.Tier2Bytes), st.ValueBytes)
		if missing != nil {
			fmt.Fprintf(os.Stderr, "%s: %s: the WET lacks their functions' names and statements\n", cmd.LongName(), printable(missing.Error()))
			return exitNoData
		}
		return 0
	}
}

// wetProfile is what the queries read: the WET and the metadata that
// decodes its functions.
type wetProfile struct {
	w     *wet.WET
	metas map[string]*profile.Meta
	// missing names the packages whose functions ran and whose metadata
	// is missing (a *profile.MissingMetaError), or is nil.
	missing error
}

// readWET reads the WET file, saying what makes it if there is none.
func readWET(file string) (*wet.WET, error) {
	w, err := wet.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		err = fmt.Errorf("%v (pathcover wet build makes it from a -wet recording)", err)
	}
	return w, err
}

func openWET(cmd *Command, dir, file string) (*wetProfile, int) {
	if file == "" {
		if dir == "" {
			fmt.Fprintf(os.Stderr, "%s: no profile: give -dir or set PATHCOVERDIR\n", cmd.LongName())
			return nil, exitUsage
		}
		file = profile.DerivedPath(dir, profile.KindWET)
	}
	w, err := readWET(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
		return nil, exitNoData
	}
	if dir == "" {
		dir = filepath.Dir(file)
	}
	metas, missing := recordingMetas(cmd, dir, w.Packages())
	return &wetProfile{w: w, metas: metas, missing: missing}, 0
}

// recordingMetas reads the metadata of profile directory dir for a
// recording that ran functions of packages (metadata hashes, with their
// paths where the recording knows them), and says on standard error which
// of those packages it lacks, and why: their functions cannot be named or
// decoded. It returns the metadata, and the error that names what it
// lacks, or nil.
func recordingMetas(cmd *Command, dir string, packages map[string]string) (map[string]*profile.Meta, error) {
	p, problems, err := profile.Load(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
		p = profile.New()
	}
	missing := p.MissingMetas(packages, problems)
	if missing != nil {
		fmt.Fprintf(os.Stderr, "%s: %s: an answer about them, or about a function or line found by name, may be wrong or miss events (exit status %d)\n", cmd.LongName(), printable(missing.Error()), exitNoData)
	}
	return p.Metas, missing
}

// whereKnown qualifies "no function ran": only where the metadata is
// there to name the functions that ran.
func whereKnown(missing error) string {
	if missing != nil {
		return ", in the packages whose metadata could be read"
	}
	return ""
}

// incomplete returns the exit status of a query that would return code,
// given what the metadata lacks (recordingMetas): exitNoData if it lacks
// any package the recording ran, since the answer may then be wrong.
func incomplete(code int, missing error) int {
	if code == 0 && missing != nil {
		return exitNoData
	}
	return code
}

func (wp *wetProfile) meta(fn int) *profile.Func {
	f := wp.w.Funcs[fn]
	m := wp.metas[f.Hash]
	if m == nil || int(f.Index) >= len(m.Funcs) {
		return nil
	}
	return &m.Funcs[f.Index]
}

func (wp *wetProfile) name(fn int) string {
	f := wp.w.Funcs[fn]
	if f.Name == "" {
		return fmt.Sprintf("%s/%d", f.Hash, f.Index)
	}
	return f.Package + "." + f.Name
}

// shortName names function fn of w as the text outputs do
// (source.FuncName: expr.Parse).
func shortName(w *wet.WET, fn int) string {
	if fn < 0 || fn >= len(w.Funcs) {
		return "?"
	}
	f := w.Funcs[fn]
	if f.Name == "" {
		return fmt.Sprintf("%s/%d", f.Hash, f.Index)
	}
	return printable(source.FuncName(f.Package, f.Name))
}

// A wetEvent is an event of a trace, as trace prints it.
type wetEvent struct {
	Kind  string
	T     *uint64  `json:",omitempty"`
	Func  string   `json:",omitempty"`
	Path  *uint64  `json:",omitempty"`
	Up    uint64   `json:",omitempty"`
	Spawn uint64   `json:",omitempty"`
	Steps []string `json:",omitempty"`
	short string   // Func, as the text shows it
}

var symNames = [...]string{wet.SymPath: "path", wet.SymEnter: "enter", wet.SymReturn: "return", wet.SymSpawn: "spawn", wet.SymUp: "up", wet.SymStop: "stop"}

func wetTrace(fs *flag.FlagSet) Run {
	dir := wppDir(fs)
	file := fs.String("f", "", "read the WET `file` (default DIR/profile.wet)")
	g := fs.Int("g", 0, "the goroutine: its `index` among those recorded")
	test := fs.String("test", "", "the goroutine that ran test `TestX` (instead of -g)")
	from := fs.Int64("t", -1, "start at the path of timestamp `T`")
	n := fs.Int("n", 50, "print `n` events")
	back := fs.Bool("back", false, "walk backwards")
	lines := fs.Bool("lines", false, "decode each path to its branches in the source")
	asJSON := jsonFlag(fs)
	return func(cmd *Command, args []string) int {
		if len(args) != 0 || *n < 0 {
			fs.Usage()
			return exitUsage
		}
		wp, code := openWET(cmd, *dir, *file)
		if code != 0 {
			return code
		}
		if !*asJSON {
			writeCut(os.Stdout, wp.w.Cut())
		}
		if *test != "" {
			if flagSet(fs, "g") {
				fmt.Fprintf(os.Stderr, "%s: -g and -test both name the goroutine: give one\n", cmd.LongName())
				return exitUsage
			}
			gi, err := wp.w.TestGoroutine(*test)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
				return exitNoData
			}
			*g = gi
		}
		c, err := wp.w.Cursor(*g)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
			return exitNoData
		}
		gr := wp.w.Goroutines[*g]
		switch {
		case *from >= 0:
			if err := c.SeekTime(uint64(*from)); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitNoData
			}
			if *back {
				c.Next() // the path of timestamp T is printed first
			}
		case *back:
			for {
				if _, ok := c.Next(); !ok {
					break
				}
			}
		}
		var out []wetEvent
		for range *n {
			var e wet.Event
			var ok bool
			if *back {
				e, ok = c.Prev()
			} else {
				e, ok = c.Next()
			}
			if !ok {
				break
			}
			we := wetEvent{Kind: symNames[e.Kind], Up: e.Up, Spawn: e.Spawn}
			switch e.Kind {
			case wet.SymEnter:
				we.Func, we.short = wp.name(e.Func), shortName(wp.w, e.Func)
			case wet.SymPath:
				t, p := e.T, e.Path
				we.T, we.Path, we.Func, we.short = &t, &p, wp.name(e.Func), shortName(wp.w, e.Func)
				if *lines {
					f := wp.w.Funcs[e.Func]
					if m := wp.metas[f.Hash]; m != nil {
						we.Steps, _ = decodeSteps(m, int(f.Index), e.Path)
					}
				}
			}
			out = append(out, we)
		}
		if *asJSON {
			return incomplete(writeJSON(cmd, map[string]any{"Goroutine": gr.ID, "Process": gr.Process, "Events": out}, wp.w.Cut()), wp.missing)
		}
		fmt.Printf("%s (timestamps %d to %d):\n", goroutineName(wp.w, *g), gr.Start, gr.End)
		for _, e := range out {
			switch e.Kind {
			case "path":
				fmt.Printf("  t=%d path %d of %s\n", *e.T, *e.Path, e.short)
				for _, s := range e.Steps {
					fmt.Printf("      %s\n", s)
				}
			case "enter":
				fmt.Printf("  enter %s\n", e.short)
			case "spawn":
				fmt.Printf("  spawn %d\n", e.Spawn)
			case "up":
				fmt.Printf("  (the next path is of the call %d below)\n", e.Up)
			default:
				fmt.Printf("  %s\n", e.Kind)
			}
		}
		return incomplete(0, wp.missing)
	}
}

// goroutineName names the WET's goroutine of index i as the program
// numbered it, and as wet trace's -g does.
func goroutineName(w *wet.WET, i int) string {
	if i < 0 || i >= len(w.Goroutines) {
		return fmt.Sprintf("goroutine -g %d", i)
	}
	gr := &w.Goroutines[i]
	return fmt.Sprintf("goroutine %d of process %d (-g %d)", gr.ID, gr.Process, i)
}

// writeJSON writes v, indented; from recordings that cover only part of
// their run (cut), as {"Partial": cut, "Answer": v}, as partialOutput
// does.
func writeJSON(cmd *Command, v any, cut []string) int {
	if len(cut) > 0 {
		v = struct {
			Partial []string
			Answer  any
		}{cut, v}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
		return exitFail
	}
	return 0
}

// A wetValue is a value as values prints it.
type wetValue struct {
	T     uint64
	Value string
	Words []uint64
	Line  int // of the statement where it was recorded
	order int // the statement's place on the path of T
}

// stmtOrder returns, for function fn, a function that gives the place of
// a statement on the path executed at timestamp t (-1 if not known), to
// order the values recorded in one path execution.
func (wp *wetProfile) stmtOrder(fn int, mf *profile.Func) func(t uint64, stmt int32) int {
	pathAt := make(map[uint64]uint64)
	for _, n := range wp.w.Nodes {
		if n.Func == fn {
			for _, t := range n.Times.Values() {
				pathAt[t] = n.Path
			}
		}
	}
	num, err := mf.Numbering()
	places := make(map[uint64]map[int32]int)
	return func(t uint64, stmt int32) int {
		id, ok := pathAt[t]
		if !ok || err != nil {
			return -1
		}
		p, ok := places[id]
		if !ok {
			p = map[int32]int{0: 0} // the entry first
			if edges, err := num.Decode(id); err == nil {
				for _, b := range num.Blocks(edges) {
					for _, st := range mf.Deps.Blocks[b] {
						p[st] = len(p)
					}
				}
			}
			places[id] = p
		}
		if i, ok := p[stmt]; ok {
			return i
		}
		return -1
	}
}

func wetValues(fs *flag.FlagSet) Run {
	dir := wppDir(fs)
	file := fs.String("f", "", "read the WET `file` (default DIR/profile.wet)")
	test := wetTestFlag(fs)
	asJSON := jsonFlag(fs)
	return func(cmd *Command, args []string) int {
		if len(args) != 2 {
			fs.Usage()
			return exitUsage
		}
		wp, code := openWET(cmd, *dir, *file)
		if code != 0 {
			return code
		}
		inTest, code := wp.inTest(cmd, *test)
		if code != 0 {
			return code
		}
		if !*asJSON {
			writeCut(os.Stdout, wp.w.Cut())
		}
		var out []wetValue
		funcs := 0
		for fn, f := range wp.w.Funcs {
			if f.Name != args[0] && f.Package+"."+f.Name != args[0] {
				continue
			}
			funcs++
			mf := wp.meta(fn)
			if mf == nil || mf.Deps == nil {
				continue
			}
			order := wp.stmtOrder(fn, mf)
			for i := range wp.w.Values {
				l := &wp.w.Values[i]
				if l.Func != fn || int(l.Site) >= len(mf.Deps.Values) {
					continue
				}
				site := mf.Deps.Values[l.Site]
				v := mf.Deps.Vars[site.Var]
				if v.Name != args[1] {
					continue
				}
				for _, x := range wp.w.ValuesOf(l) {
					if len(x.Words) < v.Kind.Words() || !inTest(x.T) {
						continue // cut short by a kill, or another test's
					}
					o := 2*order(x.T, site.Stmt) + 1
					if !site.After {
						o-- // recorded before the statement runs
					}
					out = append(out, wetValue{T: x.T, Value: v.Kind.Format(x.Words), Words: x.Words, Line: mf.Deps.Stmts[site.Stmt].Line, order: o})
				}
			}
		}
		if funcs == 0 {
			fmt.Fprintf(os.Stderr, "%s: no function %s ran in the trace%s\n", cmd.LongName(), printable(args[0]), whereKnown(wp.missing))
			return exitNoData
		}
		slices.SortStableFunc(out, func(a, b wetValue) int { return cmp.Or(cmp.Compare(a.T, b.T), cmp.Compare(a.order, b.order)) })
		if *asJSON {
			return incomplete(writeJSON(cmd, out, wp.w.Cut()), wp.missing)
		}
		if len(out) == 0 {
			fmt.Fprintf(os.Stderr, "%s: no value of %s was recorded in %s\n", cmd.LongName(), printable(args[1]), printable(args[0]))
			return exitNoData
		}
		for _, v := range out {
			fmt.Printf("t=%d line %d: %s = %s\n", v.T, v.Line, args[1], v.Value)
		}
		return incomplete(0, wp.missing)
	}
}

// A wetAccess is an access as addrs prints it.
type wetAccess struct {
	T, Seq     uint64
	Func       string
	Line, Col  int
	Kind       string
	Addr, Size uint64
	// Key is a map access's key: its number among the keys of the map at
	// Addr, from 1 (wet.AccessLabel); Size is 0.
	Key   uint64 `json:",omitempty"`
	Stack bool   // Addr is a distance below the goroutine's stack top
	kind  profile.WPPAccess
}

// accessOf describes access a of label l.
func (wp *wetProfile) accessOf(l *wet.AccessLabel, a wet.Access) wetAccess {
	w := wetAccess{T: a.T, Seq: a.Seq, Func: wp.name(l.Func), Kind: accessNames[a.Kind&7], Addr: a.Addr, Size: a.Size, Stack: a.Flags&profile.WPPStackAddr != 0, kind: a.Kind}
	if isMap(a.Kind) {
		w.Key, w.Size = a.Size, 0
	}
	if mf := wp.meta(l.Func); mf != nil && mf.Deps != nil && int(l.Stmt) < len(mf.Deps.Stmts) {
		w.Line, w.Col = mf.Deps.Stmts[l.Stmt].Line, mf.Deps.Stmts[l.Stmt].Col
	}
	return w
}

// accessesAt returns the accesses of the statements at line of file
// name, in the process's order of accesses.
func (wp *wetProfile) accessesAt(name string, line int) []wetAccess {
	var out []wetAccess
	for i := range wp.w.Accesses {
		l := &wp.w.Accesses[i]
		mf := wp.meta(l.Func)
		if mf == nil || mf.Deps == nil || int(l.Stmt) >= len(mf.Deps.Stmts) {
			continue
		}
		st := mf.Deps.Stmts[l.Stmt]
		m := wp.metas[wp.w.Funcs[l.Func].Hash]
		if st.Line != line || mf.File >= len(m.Files) || !sameFile(m.Files[mf.File], name) {
			continue
		}
		for _, a := range wp.w.AccessesOf(l) {
			out = append(out, wp.accessOf(l, a))
		}
	}
	slices.SortStableFunc(out, func(a, b wetAccess) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// fileLine reads a FILE:LINE argument.
func fileLine(arg string) (string, int, bool) {
	name, lineText, ok := strings.Cut(arg, ":")
	line, err := strconv.Atoi(lineText)
	return name, line, ok && err == nil && line > 0
}

// accessesAtArg opens the WET and returns the accesses at arg, FILE:LINE,
// or an exit status.
func accessesAtArg(cmd *Command, dir, file, test, arg string) (*wetProfile, []wetAccess, int) {
	name, line, ok := fileLine(arg)
	if !ok {
		fmt.Fprintf(os.Stderr, "%s: %s is not FILE:LINE\n", cmd.LongName(), printable(arg))
		return nil, nil, exitUsage
	}
	wp, code := openWET(cmd, dir, file)
	if code != 0 {
		return nil, nil, code
	}
	inTest, code := wp.inTest(cmd, test)
	if code != 0 {
		return nil, nil, code
	}
	at := wp.accessesAt(name, line)
	return wp, slices.DeleteFunc(at, func(a wetAccess) bool { return !inTest(a.T) }), 0
}

// wetTestFlag registers -test, which the queries of a WET answer for one
// test with.
func wetTestFlag(fs *flag.FlagSet) *string {
	return fs.String("test", "", "answer for test `TestX` alone: its subtests and the goroutines they started too (record with pathcover test)")
}

// inTest returns whether a timestamp's path ran in test's goroutines
// (always, if test is empty), or an exit status.
func (wp *wetProfile) inTest(cmd *Command, test string) (func(t uint64) bool, int) {
	if test == "" {
		return func(uint64) bool { return true }, 0
	}
	in, err := wp.w.TestGoroutines(test)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
		return nil, exitNoData
	}
	return func(t uint64) bool {
		g, ok := wp.w.Goroutine(t)
		return ok && in[g]
	}, 0
}

func isMap(k profile.WPPAccess) bool { return k == profile.WPPMapRead || k == profile.WPPMapWrite }

// String describes the access as addrs and writer print it, after its
// position.
func (a wetAccess) String() string {
	where := fmt.Sprintf("%#x", a.Addr)
	if a.Stack {
		where = fmt.Sprintf("%d bytes below the stack's top", a.Addr)
	}
	if isMap(a.kind) {
		return fmt.Sprintf("%s of key %d of the map at %s", a.Kind, a.Key, where)
	}
	return fmt.Sprintf("%s of %d bytes at %s", a.Kind, a.Size, where)
}

func wetWriter(fs *flag.FlagSet) Run {
	dir := wppDir(fs)
	file := fs.String("f", "", "read the WET `file` (default DIR/profile.wet)")
	instance := fs.Int("instance", 0, "the `n`-th access at the line, from 1 (default the last)")
	test := wetTestFlag(fs)
	asJSON := jsonFlag(fs)
	return func(cmd *Command, args []string) int {
		if len(args) != 1 || *instance < 0 {
			fs.Usage()
			return exitUsage
		}
		wp, at, code := accessesAtArg(cmd, *dir, *file, *test, args[0])
		if code != 0 {
			return code
		}
		if !*asJSON {
			writeCut(os.Stdout, wp.w.Cut())
		}
		if len(at) == 0 || *instance > len(at) {
			fmt.Fprintf(os.Stderr, "%s: %d accesses at %s\n", cmd.LongName(), len(at), printable(args[0]))
			return exitNoData
		}
		a := at[len(at)-1]
		if *instance > 0 {
			a = at[*instance-1]
		}
		g, _ := wp.w.Goroutine(a.T)
		var res struct {
			Access wetAccess
			Writer *wetAccess `json:",omitempty"`
		}
		res.Access = a
		p := wp.w.Goroutines[g].Process
		w, found := wp.w.LastWriter(p, a.Addr, a.Stack, g, a.Seq)
		if isMap(a.kind) {
			w, found = wp.w.LastMapWrite(p, a.Addr, a.Key, a.Stack, g, a.Seq)
		}
		if found {
			wa := wp.accessOf(w.Label, w.Access)
			res.Writer = &wa
		}
		if *asJSON {
			return incomplete(writeJSON(cmd, res, wp.w.Cut()), wp.missing)
		}
		fmt.Printf("t=%d #%d %s:%d:%d %s\n", a.T, a.Seq, a.Func, a.Line, a.Col, a)
		switch {
		case res.Writer == nil && isMap(a.kind):
			fmt.Printf("  no write of its key recorded before it (made by code that is not instrumented, or none)\n")
		case res.Writer == nil:
			fmt.Printf("  no access recorded before it wrote its first byte (written by code that is not instrumented, or never)\n")
		default:
			w := res.Writer
			fmt.Printf("  last written by t=%d #%d %s:%d:%d (%s)\n", w.T, w.Seq, w.Func, w.Line, w.Col, w)
		}
		return incomplete(0, wp.missing)
	}
}

var accessNames = [...]string{"load", "store", "update", "copy", "map read", "map write", "send", "receive"}

func wetAddrs(fs *flag.FlagSet) Run {
	dir := wppDir(fs)
	file := fs.String("f", "", "read the WET `file` (default DIR/profile.wet)")
	test := wetTestFlag(fs)
	asJSON := jsonFlag(fs)
	return func(cmd *Command, args []string) int {
		if len(args) != 1 {
			fs.Usage()
			return exitUsage
		}
		wp, out, code := accessesAtArg(cmd, *dir, *file, *test, args[0])
		if code != 0 {
			return code
		}
		if !*asJSON {
			writeCut(os.Stdout, wp.w.Cut())
		}
		if *asJSON {
			return incomplete(writeJSON(cmd, out, wp.w.Cut()), wp.missing)
		}
		if len(out) == 0 {
			fmt.Fprintf(os.Stderr, "%s: no memory access recorded at %s\n", cmd.LongName(), printable(args[0]))
			return exitNoData
		}
		for _, a := range out {
			fmt.Printf("t=%d #%d %s:%d:%d %s\n", a.T, a.Seq, a.Func, a.Line, a.Col, a)
		}
		return incomplete(0, wp.missing)
	}
}

// sameFile reports whether name, as given on the command line, names the
// file at path: the same path, or its last elements.
func sameFile(path, name string) bool {
	path, name = filepath.ToSlash(path), filepath.ToSlash(name)
	return path == name || strings.HasSuffix(path, "/"+strings.TrimPrefix(name, "./"))
}

func wetDiff(fs *flag.FlagSet) Run {
	test := fs.String("test", "", "compare the goroutines of test `TestX` in each run (its own, then those it started, in the order they were made)")
	asJSON := jsonFlag(fs)
	return func(cmd *Command, args []string) int {
		if len(args) != 2 {
			fs.Usage()
			return exitUsage
		}
		var runs [2]*wet.Run
		var missing error
		var cut []string
		for i, dir := range args {
			wp, code := openWET(cmd, dir, "")
			if code != 0 {
				return code
			}
			runs[i] = &wet.Run{W: wp.w, Metas: wp.metas, Steps: decodeSteps, Shape: report.DecodeShape}
			missing = cmp.Or(missing, wp.missing)
			for _, why := range wp.w.Cut() {
				cut = append(cut, filepath.Join(dir, why))
			}
		}
		if !*asJSON {
			writeCut(os.Stdout, cut)
		}
		// Paths are compared by the branches their metadata says they
		// take: without it, runs may seem to differ, or to do the same.
		differ := exitFail
		if missing != nil {
			differ = exitNoData
		}
		var d *wet.Divergence
		var err error
		if *test == "" {
			d, err = wet.Diff(runs[0], runs[1])
		} else {
			var gs [2][]int
			for i, r := range runs {
				in, err := r.W.TestGoroutines(*test)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %s: %s\n", cmd.LongName(), args[i], printable(err.Error()))
					return exitNoData
				}
				// In the order the goroutines were made (their ids):
				// the order they are recorded in is the order they
				// first wrote, which a loaded machine changes.
				gs[i] = slices.SortedFunc(maps.Keys(in), func(x, y int) int {
					gx, gy := &r.W.Goroutines[x], &r.W.Goroutines[y]
					return cmp.Or(cmp.Compare(gx.Process, gy.Process), cmp.Compare(gx.ID, gy.ID))
				})
			}
			d, err = wet.DiffIn(runs[0], runs[1], gs[0], gs[1])
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
			return exitFail
		}
		if *asJSON {
			if c := writeJSON(cmd, d, cut); c != 0 || d == nil {
				return incomplete(c, missing)
			}
			return differ
		}
		if d == nil {
			fmt.Println("the runs do the same: the same control flow, and the same values")
			return incomplete(0, missing)
		}
		gB, of := d.Goroutine, ""
		if *test != "" {
			gB, of = d.GoroutineB, " of test "+*test
		}
		fmt.Printf("the runs diverge%s in A's %s and B's %s, after %d events in step:\n", of, goroutineName(runs[0].W, d.Goroutine), goroutineName(runs[1].W, gB), d.Matched)
		for i, s := range []wet.Side{d.A, d.B} {
			fmt.Printf("  %s (%s):", "AB"[i:i+1], args[i])
			fn := "?"
			if s.Event != nil {
				fn = shortName(runs[i].W, s.Event.Func)
			}
			switch {
			case s.End:
				fmt.Printf(" the trace ends\n")
				continue
			case s.Value != nil:
				v := s.Value
				fmt.Printf(" at t=%d in %s (%s:%d): %s = %s\n", v.T, fn, funcFile(runs[i], s.Event.Func), v.Line, printable(v.Var), printable(v.Kind.Format(v.Words)))
				continue
			case d.A.Value != nil || d.B.Value != nil:
				fmt.Printf(" no such value in %s\n", fn)
				continue
			}
			e := s.Event
			switch e.Kind {
			case wet.SymPath:
				fmt.Printf(" t=%d path %d of %s\n", e.T, e.Path, fn)
				for _, st := range s.Steps {
					fmt.Printf("      %s\n", st)
				}
			case wet.SymEnter:
				fmt.Printf(" enter %s\n", fn)
			default:
				fmt.Printf(" %s\n", symNames[e.Kind])
			}
		}
		return differ
	}
}

// funcFile names the file of function fn of run r, as source.Names does.
func funcFile(r *wet.Run, fn int) string {
	if fn < 0 || fn >= len(r.W.Funcs) {
		return "?"
	}
	f := r.W.Funcs[fn]
	m := r.Metas[f.Hash]
	if m == nil || int(f.Index) >= len(m.Funcs) || m.Funcs[f.Index].File < 0 || m.Funcs[f.Index].File >= len(m.Files) {
		return "?"
	}
	return printable(source.NamesIn(".").FileOf(m.Files[m.Funcs[f.Index].File], profile.PackagePath(m.Package)))
}

// decodeSteps decodes a path to its steps in the source, as text: its
// branches, returns and loops' rounds, not the edges that only fall
// through.
func decodeSteps(m *profile.Meta, fn int, path uint64) ([]string, error) {
	steps, err := report.DecodeSteps(m, fn, path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range steps {
		if s.Kind == "flow" || s.Kind == "loop" {
			continue
		}
		out = append(out, report.StepText(s, source.NamesIn(".")))
	}
	return out, nil
}

// flagSet reports whether the command line set flag name of fs.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
