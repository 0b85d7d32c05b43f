package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/internal/atomicfile"
	"github.com/pathcover/pathcover/internal/query/slice"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/source"
	"github.com/pathcover/pathcover/profile"
)

var cmdSlice = &Command{
	UsageLine: "pathcover slice [-dir D] [-graph opt|fp|lp|wet] [-test TestX] [-instance n] [-why | -list] [-potential=false] [-json] [-html FILE] [-maxnodes n] FILE:LINE[:COL] [VAR]",
	Short:     "which statements of a run made a value: a backward dynamic slice",
	Long: `
Slice gives the statements of a recorded run that the value at FILE:LINE
depends on (a backward dynamic slice): the last execution of the
statement there (-instance n: the n-th), and, if VAR is given, only the
value of VAR it read. The run must be recorded by a -deps build:

	pathcover test -deps -run TestX ./pkg
	pathcover slice pkg/file.go:42 got

-test TestX slices an execution of TestX (or of its subtests) from a
recording of many tests: the last one its goroutines ran (-instance n:
the n-th), counting only theirs. pathcover test records where each test
starts and ends; the slice then goes wherever the dependences lead.

	pathcover test -deps ./pkg
	pathcover slice -test TestX pkg/file.go:42 got

The slice is written as a chain, read from the top: the criterion's
statement, then each statement under the one that first needed it, once,
with its source, how many of its executions the slice holds (×4) and
what carries the dependence (a variable, a call's result or argument, or
control: the branch that decided it ran); a line names the function
where it changes, files are named from the module's root, and each line
fits 100 columns. -list lists the statements in source order instead;
-why lists each step (execution) of the slice once, breadth first from
the criterion, with the step that needs it.
If the run was recorded by a -wet build (pathcover test -wet), each step
shows the values its execution recorded: the variables it defined, as
name=value after it ran, and those it read (strings and byte slices by
their first 24 bytes, s="1.9.0", other slices by their headers). -json
gives them too.

A dynamic slice follows what ran, so a bug that kept a statement from
running is out of its reach: if a wrong condition left n := 0 where it
should have run n = n*10 + d, the slice of n meets n := 0, not the
condition. The slice also follows potential dependences (a relevant
slice): a use of a local depends on the last execution, since the
definition that reached it, of each condition that could have led to
another definition of it had it gone another way; the chain shows it as
[could set n]. -potential=false leaves them out: the dynamic slice
alone, as the papers' slicers give it.

Dependences through locals, parameters and results, and control
dependences, are exact along the run's paths. Reads through memory
(pointers, fields through pointers, slice and map elements, globals,
captured and address-taken variables, channels) follow the accesses the
build recorded; a read it could not record ends the slice, which lists
it. Calls of code that is not instrumented count as depending on all
their arguments.

-graph chooses how the run's dependences are held; the slice is the same
with each. opt (the default) is the compact graph: each call's paths,
and only the dependences through memory, the others inferred from the
paths as the slice needs them; it takes a few bytes a statement
execution. fp is the full graph, every dependence in memory, some 100
bytes a statement execution: -maxnodes (fp only) refuses a larger run.
lp keeps almost nothing and re-reads the recording as the slice needs
it: slow, for runs too large for the others. wet builds the compact
graph from the whole execution trace (DIR/profile.wet, which pathcover
test -wet and pathcover wet build write) and the metadata, without the
recording, which may then be deleted. Building the compact graph sorts
the recording's memory accesses in bounded memory: past a few million,
it writes them to temporary files in $TMPDIR (some 40 bytes an access,
removed as it goes), and says so if the disk is full. The compact graph
is kept in DIR/profile.ddg, which the next slices of the same recording
read instead of building it again (minutes for a whole test suite's);
it is built again when the recording or its metadata change.

-html FILE writes a page that shows the slice on the source (the files of
the module, GOROOT and the module cache only), with its steps.
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := dirFlag(fs, "")
		instance := fs.Int("instance", 0, "slice the `n`-th execution of the statement (default: the last)")
		why := fs.Bool("why", false, "list each step (execution) of the slice with the step that needed it")
		list := fs.Bool("list", false, "list the slice's statements in source order")
		asJSON := fs.Bool("json", false, "write the slice as JSON")
		htmlOut := fs.String("html", "", "also write a page that shows the slice on the source to `file`")
		maxNodes := fs.Int("maxnodes", slice.DefaultMaxNodes, "with -graph fp, refuse a run of more than `n` statement executions (each takes some 100 bytes)")
		test := fs.String("test", "", "slice an execution of test `TestX` (or its subtests) of a recording of many tests")
		potential := fs.Bool("potential", true, "also follow potential dependences: the conditions that, gone another way, could have set a value the slice reads (a relevant slice); -potential=false gives the dynamic slice alone")
		graph := fs.String("graph", "opt", "how to hold the dependences: `opt`, the compact graph; fp, the full one; lp, on demand from the recording; wet, the compact graph from DIR/profile.wet")
		return func(cmd *Command, args []string) int {
			if len(args) < 1 || len(args) > 2 || *dir == "" || *instance < 0 || !slices.Contains([]string{"opt", "fp", "lp", "wet"}, *graph) {
				fs.Usage()
				return exitUsage
			}
			c, err := parseCriterion(args[0])
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitUsage
			}
			if len(args) == 2 {
				c.Var = args[1]
			}
			c.Instance = *instance
			c.Potential = *potential
			if *test != "" {
				if *graph == "wet" {
					fmt.Fprintf(os.Stderr, "%s: -test needs the recording, which knows the tests' goroutines: use -graph opt, fp or lp\n", cmd.LongName())
					return exitUsage
				}
				if c.Scope, err = slice.TestScope(*dir, *test); err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
					return exitNoData
				}
			}
			g, err := openGraph(*graph, *dir, *maxNodes)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitNoData
			}
			defer g.close()
			for _, note := range g.notes {
				if *asJSON && !strings.HasPrefix(note, "warning:") {
					continue // a tool reading the JSON needs no news
				}
				fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(note))
			}
			s, err := g.slice(c)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitNoData
			}
			values := func(nodes []int32) (map[int32][]slice.Value, error) { return stepValues(s, nodes, g.values) }
			if *htmlOut != "" {
				var b bytes.Buffer
				title := fmt.Sprintf("Slice of %s", args[0])
				if c.Var != "" {
					title += " " + c.Var
				}
				if err := s.WriteHTML(&b, title, source.New(".")); err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
					return exitFail
				}
				if err := atomicfile.WriteFile(*htmlOut, b.Bytes(), 0o644); err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
					return exitFail
				}
			}
			if *asJSON {
				vals, err := values(nil)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
					return exitNoData
				}
				out := bufio.NewWriter(os.Stdout)
				err = writeSliceJSON(out, s, g.nodes, vals, g.cut)
				if ferr := out.Flush(); err == nil {
					err = ferr
				}
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
					return exitFail
				}
				return 0
			}
			writeCut(os.Stdout, g.cut)
			out := bufio.NewWriter(os.Stdout)
			err = writeSlice(out, s, g.nodes, values, *why, *list)
			out.Flush()
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			for _, p := range g.problems {
				fmt.Fprintf(os.Stderr, "%s: warning: %s\n", cmd.LongName(), printable(p))
			}
			return 0
		}
	},
}

// A sliceGraph is one of ddg's graphs, as -graph chooses, and where the
// values of its nodes are read from.
type sliceGraph struct {
	slice    func(slice.Criterion) (*slice.Slice, error)
	problems []string
	close    func()
	values   func(nodes []int32) (map[int32][]slice.Value, []string, error)
	cut      []string // which recordings cover only part of their run, and why
	// nodes is how many statement executions the run had.
	nodes int
	// notes say what became of the compact graph's file, for stderr.
	notes []string
}

// recordingCut says which recordings (*.wpp) of dir cover only part of
// their run, and why (wpp.TWPP.Cut); a file that cannot be read is left
// to the slicer, which says so.
func recordingCut(dir string) []string {
	names, _ := profile.Need(dir, profile.KindWPP, "")
	var cut []string
	for _, name := range names {
		f, err := profile.OpenWPP(name)
		if err != nil {
			continue
		}
		cut = append(cut, wpp.CutNotes(filepath.Base(name), wpp.EndOf(f.Header))...)
		f.Close()
	}
	return cut
}

// openGraph opens the recording in dir as graph kind: opt, fp, lp or
// wet (from the WET in dir).
func openGraph(kind, dir string, maxNodes int) (*sliceGraph, error) {
	fromRecording := func(nodes []int32) (map[int32][]slice.Value, []string, error) { return slice.ValuesOf(dir, nodes) }
	switch kind {
	case "fp":
		g, err := slice.Load(dir, maxNodes)
		if err != nil {
			return nil, err
		}
		return &sliceGraph{g.Slice, g.Problems, func() {}, fromRecording, recordingCut(dir), len(g.Nodes), nil}, nil
	case "lp":
		d, err := slice.OpenDemand(dir)
		if err != nil {
			return nil, err
		}
		return &sliceGraph{d.Slice, d.Problems, func() { d.Close() }, fromRecording, recordingCut(dir), d.Nodes(), nil}, nil
	case "wet":
		w, err := readWET(profile.DerivedPath(dir, profile.KindWET))
		if err != nil {
			return nil, err
		}
		o, err := slice.LoadWET(dir, w)
		if err != nil {
			return nil, err
		}
		fromWET := func(nodes []int32) (map[int32][]slice.Value, []string, error) {
			return slice.ValuesOfWET(dir, w, nodes)
		}
		return &sliceGraph{o.Slice, o.Problems, func() {}, fromWET, w.Cut(), o.Nodes(), nil}, nil
	}
	o, gf, err := slice.OpenCompact(dir)
	if err != nil {
		return nil, err
	}
	g := &sliceGraph{o.Slice, o.Problems, func() {}, fromRecording, recordingCut(dir), o.Nodes(), nil}
	switch {
	case gf.Read:
	case gf.Wrote:
		g.notes = append(g.notes, fmt.Sprintf("built the compact graph of the recording and kept it in %s (%s): the next slices of this recording read it", gf.Path, sizeString(gf.Bytes)))
	default:
		g.notes = append(g.notes, fmt.Sprintf("warning: could not keep the compact graph in %s (%v): each slice builds it again", gf.Path, gf.WriteErr))
	}
	if gf.ReadErr != nil {
		g.notes = append([]string{fmt.Sprintf("warning: the compact graph kept before could not be read, built again: %v", gf.ReadErr)}, g.notes...)
	}
	return g, nil
}

// sizeString writes a file's size in bytes as people read it.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// parseCriterion parses FILE:LINE[:COL].
func parseCriterion(arg string) (slice.Criterion, error) {
	var c slice.Criterion
	parts := strings.Split(arg, ":")
	nums := 0
	for nums < 2 && len(parts)-nums > 1 {
		if _, err := strconv.Atoi(parts[len(parts)-1-nums]); err != nil {
			break
		}
		nums++
	}
	if nums == 0 {
		return c, fmt.Errorf("%s is not FILE:LINE or FILE:LINE:COL", printable(arg))
	}
	c.File = strings.Join(parts[:len(parts)-nums], ":")
	c.Line, _ = strconv.Atoi(parts[len(parts)-nums])
	if nums == 2 {
		c.Col, _ = strconv.Atoi(parts[len(parts)-1])
	}
	if c.File == "" || c.Line <= 0 || c.Col < 0 {
		return c, fmt.Errorf("%s is not FILE:LINE or FILE:LINE:COL", printable(arg))
	}
	// A file as the answers name it (std/regexp/regexp.go, a
	// dependency's by module@version), unless it is a file here.
	if _, err := os.Stat(c.File); err != nil {
		c.File = source.Recorded(c.File)
	}
	return c, nil
}

// stepValues returns the values that the executions of nodes (nil: of
// all of s's steps) recorded, if the run was recorded by a -wet build, as
// values reads them.
func stepValues(s *slice.Slice, nodes []int32, values func([]int32) (map[int32][]slice.Value, []string, error)) (map[int32][]slice.Value, error) {
	if !s.HasValues() {
		return nil, nil
	}
	if nodes == nil {
		nodes = make([]int32, 0, s.NumSteps())
		err := s.Walk(func(_ int, st slice.Step) error {
			nodes = append(nodes, st.Node)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	vals, _, err := values(nodes)
	return vals, err
}

// stepPage is how many steps are written at a time.
const stepPage = 4096

// pages calls fn with s's steps, a page at a time, each with its values.
func pages(s *slice.Slice, vals map[int32][]slice.Value, fn func(first int, steps []slice.Step) error) error {
	page := make([]slice.Step, 0, stepPage)
	first := 0
	err := s.Walk(func(i int, st slice.Step) error {
		if len(page) == 0 {
			first = i
		}
		st.Values = vals[st.Node]
		page = append(page, st)
		if len(page) == stepPage {
			err := fn(first, page)
			page = page[:0]
			return err
		}
		return nil
	})
	if err == nil && len(page) > 0 {
		err = fn(first, page)
	}
	return err
}

// writeSliceJSON writes s, of a run of run statement executions, as
// JSON, its steps a page at a time, inside {"Partial": cut, "Answer":
// ...} if the recording covers only part of its run.
func writeSliceJSON(w io.Writer, s *slice.Slice, run int, vals map[int32][]slice.Value, cut []string) error {
	head, err := json.Marshal(struct {
		Criterion     int32
		Instance      int
		Instances     int
		RunExecutions int
		Stmts         []slice.Stmt
		Execs         []int
		Memory        []string
	}{s.Criterion, s.Instance, s.Instances, run, s.Stmts, s.Execs, s.Memory})
	if err != nil {
		return err
	}
	if len(cut) > 0 {
		p, _ := json.Marshal(cut)
		fmt.Fprintf(w, "{\"Partial\":%s,\"Answer\":", p)
	}
	fmt.Fprintf(w, "%s,\"Steps\":[", head[:len(head)-1])
	err = pages(s, vals, func(first int, steps []slice.Step) error {
		for i, st := range steps {
			b, err := json.Marshal(st)
			if err != nil {
				return err
			}
			if first+i > 0 {
				io.WriteString(w, ",")
			}
			fmt.Fprintf(w, "\n%s", b)
		}
		return nil
	})
	if err != nil {
		return err
	}
	io.WriteString(w, "\n]}")
	if len(cut) > 0 {
		io.WriteString(w, "}")
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// writeSlice writes s, of a run of run statement executions, as text
// (slicetext.go): by default its chain, each statement once under the one
// that needed it; with why its steps, one a line, each with the step that
// needed it; with list its statements in source order. values gives the
// values recorded at nodes. It fails only if the steps cannot be walked
// again (the recording changed or went).
func writeSlice(w io.Writer, s *slice.Slice, run int, values func([]int32) (map[int32][]slice.Value, error), why, list bool) error {
	fmt.Fprintf(w, "slice of execution %d of %d: %d statements, %d statement executions of the run's %d\n", max(1, s.Instance), s.Instances, len(s.Stmts), s.NumSteps(), run)
	t := newSliceText()
	switch {
	case list:
		t.writeStmts(w, s)
	case why:
		vals, err := values(nil)
		if err != nil {
			return err
		}
		err = pages(s, vals, func(first int, steps []slice.Step) error {
			for i, st := range steps {
				t.writeStep(w, first+i, st)
			}
			return nil
		})
		if err != nil {
			return err
		}
	default:
		chain, err := s.Chain()
		if err != nil {
			return err
		}
		nodes := make([]int32, len(chain))
		for i, l := range chain {
			nodes[i] = l.First.Node
		}
		vals, err := values(nodes)
		if err != nil {
			return err
		}
		t.writeChain(w, s, chain, vals)
	}
	if len(s.Memory) > 0 {
		fmt.Fprintf(w, "stops at %d reads through memory, not recorded:\n", len(s.Memory))
		for _, m := range s.Memory {
			fmt.Fprintf(w, "\t%s\n", t.memoryText(m))
		}
	}
	return nil
}
