package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/profile"
)

var cmdWPP = &Command{
	UsageLine: "pathcover wpp <command> [flags] [args]",
	Short:     "compact and query whole program paths (pppexec -wpp)",
	Long: `
Whole program paths are what programs built with pppexec -wpp (or run by
pathcover test -wpp) record: for each goroutine, each call of an
instrumented function, the paths it completed in order, and the goroutines
it started. wpp compacts them into a timestamped whole program path (TWPP,
profile.twpp in the profile directory) and answers questions from it.

The queries read D/profile.twpp, made by compact (pathcover test -wpp
compacts at the end); -f names another TWPP file.
`,
	Sub: []*Command{
		{
			UsageLine: "pathcover wpp compact [-dir D] [-o FILE]",
			Short:     "compact the profile's .wpp files into a TWPP",
			Long: `
Compact compacts the whole program paths that the profile's processes
recorded (its .wpp files) into one timestamped whole program path,
D/profile.twpp unless -o names another file, and says how large it is.
`,
			Flags: wppCompact,
		},
		{
			UsageLine: "pathcover wpp traces [-dir D] [-f FILE] [-test TestX] [-calls] [-lines] [-json] [PKG.]FUNC",
			Short:     "the distinct traces of a function, with how many calls took each",
			Long: `
Traces lists the distinct traces of FUNC (the paths a call completed, in
order), with how many calls took each; -lines decodes each path to its
branches in the source. With -test, only the calls made by test TestX
(its subtests too) and the goroutines it started count: the recording
must know the tests' boundaries, as pathcover test -wpp records them.

-calls gives each trace the id of the first call that took it, which
pathcover wpp call ID shows; pathcover wpp call -trace N FUNC shows trace
N's first call directly. Both read the whole call tree, where traces alone
reads FUNC's part of the file (on the largest profiles, a second and
hundreds of MB against a tenth); with -test the tree is read anyway, and
the first calls are given.
`,
			Flags: wppTraces,
		},
		{
			UsageLine: "pathcover wpp call [-dir D] [-f FILE] [-json] ID | -trace N [PKG.]FUNC",
			Short:     "one call: its paths, the calls and goroutines it made, its callers",
			Long: `
Call shows call ID: its paths, the calls and goroutines it made in order,
and the calls it was made from. Calls are numbered from 0 in the order
they were made, goroutine by goroutine. -trace N FUNC shows the first call
of FUNC that took its trace N, as pathcover wpp traces numbers them.
`,
			Flags: wppCall,
		},
		{
			UsageLine: "pathcover wpp hot [-dir D] [-f FILE] [-n n] [-len m] [-windows] [-calls] [-json]",
			Short:     "the heaviest sequences of consecutive paths",
			Long: `
Hot lists the n heaviest sequences of 2 to m consecutive paths, in one
call or across calls (weight: runs × length), a run of one path as ×k. A
sequence that lies within a heavier one listed is left out: a loop that
repeats path 33 is listed once, as path 33 ×m, not again as its windows
of fewer rounds; -windows lists them all. -calls gives each sequence the
id of the call its first path ran in, at its first run, for wpp call: it
walks the run's paths in order until it has found every sequence listed.
`,
			Flags: wppHot,
		},
		{
			UsageLine: "pathcover wpp expand [-dir D] [-f FILE] [-json]",
			Short:     "every event of every goroutine again, in order",
			Long: `
Expand writes every event of every goroutine again, in the order each
goroutine recorded them: the recording, exactly, from the TWPP.
`,
			Flags: wppExpand,
		},
	},
}

// wppDir is the -dir of the wpp subcommands: one profile directory.
func wppDir(fs *flag.FlagSet) *string {
	return dirFlag(fs, "")
}

func wppCompact(fs *flag.FlagSet) Run {
	dir := wppDir(fs)
	out := fs.String("o", "", "write the TWPP to `file` (default DIR/profile.twpp)")
	return func(cmd *Command, args []string) int {
		if len(args) != 0 || *dir == "" {
			fs.Usage()
			return exitUsage
		}
		// A TWPP holds every distinct call subtree; what compress/flate's
		// suite holds (740 MB live) fits in 1 GB only if the collector
		// keeps the heap near it.
		setSoftMemoryLimit(896 << 20)
		name, st, err := wpp.CompactDir(*dir, *out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
			return exitNoData
		}
		writeCut(os.Stdout, st.Cut)
		fmt.Printf("%s: %d processes, %d goroutines, %d calls of %d functions, %d paths; %d distinct traces, %d distinct call subtrees\n",
			name, st.Processes, st.Goroutines, st.Calls, st.Funcs, st.Paths, st.Traces, st.Nodes)
		return 0
	}
}

// wppProfile is what the queries read: the TWPP file and the metadata
// that names and decodes its functions.
type wppProfile struct {
	file  *wpp.File
	metas map[string]*profile.Meta
	// missing names the packages whose functions ran and whose metadata
	// is missing (a *profile.MissingMetaError), or is nil.
	missing error
}

func openWPP(cmd *Command, dir, file string) (*wppProfile, int) {
	if file == "" {
		if dir == "" {
			fmt.Fprintf(os.Stderr, "%s: no profile: give -dir or set PATHCOVERDIR\n", cmd.LongName())
			return nil, exitUsage
		}
		file = profile.DerivedPath(dir, profile.KindTWPP)
	}
	f, err := wpp.Open(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("%v (pathcover wpp compact makes it)", err)
		}
		fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
		return nil, exitNoData
	}
	if dir == "" {
		dir = filepath.Dir(file)
	}
	packages := make(map[string]string) // the TWPP knows no package's path
	for _, k := range f.Funcs() {
		packages[k.Hash] = ""
	}
	metas, missing := recordingMetas(cmd, dir, packages)
	return &wppProfile{file: f, metas: metas, missing: missing}, 0
}

// name is a function's name, package-qualified, if the metadata has it.
func (wp *wppProfile) name(k wpp.FuncKey) string {
	m := wp.metas[k.Hash]
	if m == nil || int(k.Index) >= len(m.Funcs) {
		return ""
	}
	return profile.PackagePath(m.Package) + "." + m.Funcs[k.Index].Name
}

// lookup finds the functions named name ([PKG.]FUNC) that ran.
func (wp *wppProfile) lookup(name string) []wpp.FuncKey {
	var found []wpp.FuncKey
	for _, k := range wp.file.Funcs() {
		m := wp.metas[k.Hash]
		if m == nil || int(k.Index) >= len(m.Funcs) {
			continue
		}
		if f := m.Funcs[k.Index].Name; f == name || m.Package+"."+f == name || profile.PackagePath(m.Package)+"."+f == name {
			found = append(found, k)
		}
	}
	return found
}

func (wp *wppProfile) decode(k wpp.FuncKey, path uint64) ([]string, error) {
	m := wp.metas[k.Hash]
	if m == nil {
		return nil, fmt.Errorf("no metadata %s in the profile", k.Hash)
	}
	return decodeSteps(m, int(k.Index), path)
}

func wppTraces(fs *flag.FlagSet) Run {
	dir := wppDir(fs)
	file := fs.String("f", "", "read the TWPP `file` (default DIR/profile.twpp)")
	lines := fs.Bool("lines", false, "decode each path to its branches in the source")
	test := fs.String("test", "", "count only the calls of test `TestX`, its subtests and the goroutines they started")
	calls := fs.Bool("calls", false, "give each trace its first call's id, for wpp call (reads the whole call tree)")
	asJSON := jsonFlag(fs)
	return func(cmd *Command, args []string) int {
		if len(args) != 1 {
			fs.Usage()
			return exitUsage
		}
		wp, code := openWPP(cmd, *dir, *file)
		if code != 0 {
			return code
		}
		defer wp.file.Close()
		keys := wp.lookup(args[0])
		if len(keys) == 0 {
			fmt.Fprintf(os.Stderr, "%s: no function %s ran in the recording%s\n", cmd.LongName(), printable(args[0]), whereKnown(wp.missing))
			return exitNoData
		}
		var dec wpp.Decoder
		if *lines {
			dec = wp.decode
		}
		// traces gives the traces of function k: all its calls', or
		// those of the test's goroutines; with the whole call tree read
		// (-calls, -test), each with its first call.
		traces := func(k wpp.FuncKey) (*wpp.Traces, error) {
			f, err := wp.file.ReadFunc(k)
			if err != nil {
				return nil, err
			}
			return wpp.FuncTraces(f, wp.name(k), dec)
		}
		if *calls && *test == "" {
			t, code := wp.readAll(cmd)
			if code != 0 {
				return code
			}
			traces = func(k wpp.FuncKey) (*wpp.Traces, error) {
				ts, err := wpp.FuncTraces(t.Func(k), wp.name(k), dec)
				if err == nil {
					t.AddFirstCalls(ts, nil)
				}
				return ts, err
			}
		}
		if *test != "" {
			t, code := wp.readAll(cmd)
			if code != 0 {
				return code
			}
			in, err := t.TestGoroutines(*test)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
				return exitNoData
			}
			traces = func(k wpp.FuncKey) (*wpp.Traces, error) {
				ts, err := t.TracesIn(k, in, wp.name(k), dec)
				if err == nil && ts != nil {
					t.AddFirstCalls(ts, in)
				}
				return ts, err
			}
		}
		shown := 0
		for _, k := range keys {
			ts, err := traces(k)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
				return exitFail
			}
			if ts == nil {
				continue // no call in the test
			}
			if shown > 0 && !*asJSON {
				fmt.Println()
			}
			shown++
			if code := write(cmd, withCut(ts, wp.file.Cut()), *asJSON); code != 0 {
				return code
			}
		}
		if shown == 0 {
			fmt.Fprintf(os.Stderr, "%s: test %s made no call of %s\n", cmd.LongName(), printable(*test), printable(args[0]))
			return exitNoData
		}
		if !*calls && *test == "" && !*asJSON {
			fmt.Printf("\n(pathcover wpp call -trace N %s shows trace N's first call; -calls gives each trace's)\n", printable(args[0]))
		}
		return incomplete(0, wp.missing)
	}
}

// readAll reads the whole TWPP, for the queries that need more than one
// function.
func (wp *wppProfile) readAll(cmd *Command) (*wpp.TWPP, int) {
	t, err := wp.file.ReadAll()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
		return nil, exitNoData
	}
	return t, 0
}

func wppCall(fs *flag.FlagSet) Run {
	dir := wppDir(fs)
	file := fs.String("f", "", "read the TWPP `file` (default DIR/profile.twpp)")
	trace := fs.Int("trace", 0, "show the first call of FUNC that took its trace `N` (as wpp traces numbers them)")
	asJSON := jsonFlag(fs)
	return func(cmd *Command, args []string) int {
		if len(args) != 1 || *trace < 0 {
			fs.Usage()
			return exitUsage
		}
		var id uint64
		if *trace == 0 {
			var err error
			if id, err = strconv.ParseUint(args[0], 10, 64); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %s is not a call number\n", cmd.LongName(), printable(args[0]))
				return exitUsage
			}
		}
		wp, code := openWPP(cmd, *dir, *file)
		if code != 0 {
			return code
		}
		defer wp.file.Close()
		t, code := wp.readAll(cmd)
		if code != 0 {
			return code
		}
		if *trace > 0 {
			keys := wp.lookup(args[0])
			switch {
			case len(keys) == 0:
				fmt.Fprintf(os.Stderr, "%s: no function %s ran in the recording%s\n", cmd.LongName(), printable(args[0]), whereKnown(wp.missing))
				return exitNoData
			case len(keys) > 1:
				fmt.Fprintf(os.Stderr, "%s: %s names %d functions: name one with its package's path\n", cmd.LongName(), printable(args[0]), len(keys))
				return exitUsage
			}
			ts, err := wpp.FuncTraces(t.Func(keys[0]), wp.name(keys[0]), nil)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			if *trace > len(ts.Traces) {
				fmt.Fprintf(os.Stderr, "%s: %s has %d traces, no trace %d\n", cmd.LongName(), printable(args[0]), len(ts.Traces), *trace)
				return exitNoData
			}
			t.AddFirstCalls(ts, nil)
			id = uint64(*ts.Traces[*trace-1].FirstCall)
		}
		c, err := t.Call(wpp.CallID(id), wp.name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
			return exitNoData
		}
		return incomplete(write(cmd, withCut(c, t.Cut()), *asJSON), wp.missing)
	}
}

func wppHot(fs *flag.FlagSet) Run {
	dir := wppDir(fs)
	file := fs.String("f", "", "read the TWPP `file` (default DIR/profile.twpp)")
	k := countFlag(fs, 10, "list the `n` heaviest sequences", "k")
	maxLen := fs.Int("len", 4, fmt.Sprintf("sequences of at most `m` paths (2 to %d)", wpp.MaxHotLen))
	windows := fs.Bool("windows", false, "list every sequence, also those that lie within a heavier one listed (a loop's shorter windows)")
	calls := fs.Bool("calls", false, "give each sequence the call it first ran in, for wpp call (walks the run until each is found)")
	asJSON := jsonFlag(fs)
	return func(cmd *Command, args []string) int {
		if len(args) != 0 || *k < 1 || *maxLen < 2 || *maxLen > wpp.MaxHotLen {
			fs.Usage()
			return exitUsage
		}
		wp, code := openWPP(cmd, *dir, *file)
		if code != 0 {
			return code
		}
		defer wp.file.Close()
		t, code := wp.readAll(cmd)
		if code != 0 {
			return code
		}
		hot := t.HotMaximal
		if *windows {
			hot = t.Hot
		}
		hp, err := hot(*k, *maxLen, wp.name)
		if err == nil && *calls {
			err = t.AddFirstRuns(hp)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
			return exitFail
		}
		return incomplete(write(cmd, withCut(hp, t.Cut()), *asJSON), wp.missing)
	}
}

func wppExpand(fs *flag.FlagSet) Run {
	dir := wppDir(fs)
	file := fs.String("f", "", "read the TWPP `file` (default DIR/profile.twpp)")
	asJSON := jsonFlag(fs)
	return func(cmd *Command, args []string) int {
		if len(args) != 0 {
			fs.Usage()
			return exitUsage
		}
		wp, code := openWPP(cmd, *dir, *file)
		if code != 0 {
			return code
		}
		defer wp.file.Close()
		t, code := wp.readAll(cmd)
		if code != 0 {
			return code
		}
		out := &expansion{t: t, name: wp.name}
		return incomplete(write(cmd, out, *asJSON), wp.missing)
	}
}

// An expansion writes every event of a TWPP.
type expansion struct {
	t    *wpp.TWPP
	name wpp.Names
}

// WriteText writes one event a line, prefixed by process and goroutine,
// calls indented by depth, after the lines that say which recordings
// cover only part of their run.
func (x *expansion) WriteText(w io.Writer) error {
	if err := writeCut(w, x.t.Cut()); err != nil {
		return err
	}
	// Calls are numbered in the order expand meets them, as wpp call
	// numbers them (wpp.CallID).
	var call uint64
	for _, p := range x.t.Processes {
		src := x.t.Source(p)
		for _, g := range p.Goroutines {
			enter := func(hash string, fn uint32, _ wpp.FuncKey, _ bool) (wpp.FuncKey, error) {
				return wpp.FuncKey{Hash: hash, Index: fn}, nil
			}
			_, err := wpp.Walk(src, g.ID, enter, func(st *wpp.Step[wpp.FuncKey]) error {
				depth := st.Depth // the calls open around the event's line
				var s string
				switch st.Kind {
				case profile.WPPStart:
					s = fmt.Sprintf("start: created by goroutine %d, spawn %d", st.Parent, st.Spawn)
				case profile.WPPEnter:
					s = fmt.Sprintf("call %d %s", call, wpp.ShortName(funcName(st.Call, x.name)))
					call++
					depth--
				case profile.WPPPath:
					s = fmt.Sprintf("path %d", st.Path)
					if st.Up > 0 {
						s += fmt.Sprintf(" of the call %d up", st.Up)
					}
				case profile.WPPReturn:
					s = "return"
				case profile.WPPSpawn:
					s = fmt.Sprintf("go (spawn %d)", st.Spawn)
				case profile.WPPStop:
					s = "recording stopped"
					if cut := p.Cut(); len(cut) > 0 && (p.LimitReached || p.WriteFailed) {
						s += ": " + cut[0]
					}
				}
				_, err := fmt.Fprintf(w, "%s g%d: %s%s\n", p.File, g.ID, strings.Repeat("  ", depth), s)
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteJSON writes one JSON object a line per event, after one that says
// which recordings cover only part of their run, {"Partial": reasons},
// if any do.
func (x *expansion) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	if cut := x.t.Cut(); cut != nil {
		if err := enc.Encode(struct{ Partial []string }{cut}); err != nil {
			return err
		}
	}
	var call uint64
	for _, p := range x.t.Processes {
		for _, g := range p.Goroutines {
			err := x.t.ExpandGoroutine(p, g, func(e profile.WPPEvent) error {
				// A call's id (wpp.CallID), on its enter event.
				var id *uint64
				if e.Kind == profile.WPPEnter {
					n := call
					id, call = &n, call+1
				}
				return enc.Encode(struct {
					Process   string
					Goroutine uint64
					Call      *uint64 `json:",omitempty"`
					profile.WPPEvent
				}{p.File, g.ID, id, e})
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func funcName(k wpp.FuncKey, names wpp.Names) string {
	if n := names(k); n != "" {
		return n
	}
	return k.String()
}
