package wpp

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pathcover/pathcover/profile"
)

// CompactDir compacts every WPP file of profile directory dir into out
// (default dir/profile.twpp) and returns its name and sizes. A WPP file
// that cannot be read is an error: a TWPP that left a process out would
// answer queries wrongly.
func CompactDir(dir, out string) (string, Stats, error) {
	names, err := profile.Need(dir, profile.KindWPP, "record them with pathcover test -wpp or pppexec -wpp")
	if err != nil {
		return "", Stats{}, err
	}
	var sources []Source
	for _, name := range names {
		f, err := profile.OpenWPP(name)
		if err != nil {
			return "", Stats{}, err
		}
		defer f.Close()
		sources = append(sources, FileSource{f})
	}
	t, err := Compact(sources)
	if err != nil {
		return "", Stats{}, err
	}
	if out == "" {
		out = profile.DerivedPath(dir, profile.KindTWPP)
	}
	return out, t.Stats(), t.WriteFile(out)
}

// Expand calls fn with every event of every goroutine of process p, in
// the order each goroutine recorded them: the WPP again, exactly.
func (t *TWPP) Expand(p *Process, fn func(g *Goroutine, e profile.WPPEvent) error) error {
	for _, g := range p.Goroutines {
		if err := t.ExpandGoroutine(p, g, func(e profile.WPPEvent) error { return fn(g, e) }); err != nil {
			return err
		}
	}
	return nil
}

// ExpandGoroutine calls fn with each event of goroutine g of process p,
// naming packages by the numbers p's WPP file gave them.
func (t *TWPP) ExpandGoroutine(p *Process, g *Goroutine, fn func(profile.WPPEvent) error) error {
	pkgs := t.PackageNumbers(p)
	if err := fn(profile.WPPEvent{Kind: profile.WPPStart, Parent: g.Parent, Spawn: g.Spawn}); err != nil {
		return err
	}
	var cursors []*cursor
	for _, r := range g.Roots {
		if err := t.expand(int(r), &cursors, pkgs, fn); err != nil {
			return err
		}
	}
	if g.Stopped {
		return fn(profile.WPPEvent{Kind: profile.WPPStop})
	}
	return nil
}

// A cursor is a call being expanded: the paths of its trace emitted so far.
type cursor struct {
	paths []uint64
	next  int
}

func (t *TWPP) expand(ni int, stack *[]*cursor, pkgs map[string]uint32, fn func(profile.WPPEvent) error) error {
	n := t.Nodes[ni]
	f := t.Funcs[n.Func]
	pkg, ok := pkgs[f.Key.Hash]
	if !ok {
		return fmt.Errorf("function %s of a package the process does not name", f.Key)
	}
	if err := fn(profile.WPPEvent{Kind: profile.WPPEnter, Pkg: pkg, Func: f.Key.Index}); err != nil {
		return err
	}
	c := &cursor{paths: f.Traces[n.Trace].Paths}
	*stack = append(*stack, c)
	defer func() { *stack = (*stack)[:len(*stack)-1] }()
	own := func(upTo int) error {
		for ; c.next < upTo && c.next < len(c.paths); c.next++ {
			if err := fn(profile.WPPEvent{Kind: profile.WPPPath, Path: c.paths[c.next]}); err != nil {
				return err
			}
		}
		return nil
	}
	for _, it := range n.Items {
		if err := own(min(int(it.At), len(c.paths))); err != nil {
			return err
		}
		switch it.Kind {
		case ItemCall:
			if err := t.expand(int(it.Node), stack, pkgs, fn); err != nil {
				return err
			}
		case ItemSpawn:
			if err := fn(profile.WPPEvent{Kind: profile.WPPSpawn, Spawn: it.Spawn()}); err != nil {
				return err
			}
		case ItemUp:
			s := *stack
			if int(it.Up) >= len(s) {
				return fmt.Errorf("a path %d calls up, below the goroutine's first call", it.Up)
			}
			owner := s[len(s)-1-int(it.Up)]
			if owner.next >= len(owner.paths) {
				return fmt.Errorf("a path %d calls up, past the end of that call's trace", it.Up)
			}
			if err := fn(profile.WPPEvent{Kind: profile.WPPPath, Up: it.Up, Path: owner.paths[owner.next]}); err != nil {
				return err
			}
			owner.next++
		}
	}
	if err := own(len(c.paths)); err != nil {
		return err
	}
	if n.Open {
		return nil
	}
	return fn(profile.WPPEvent{Kind: profile.WPPReturn})
}

// PackageNumbers maps the metadata hashes of process p's packages to the
// numbers its WPP file gave them.
func (t *TWPP) PackageNumbers(p *Process) map[string]uint32 {
	m := make(map[string]uint32, len(p.Packages))
	for n, h := range p.Packages {
		m[h] = n
	}
	return m
}

// A CallID is a call's number: the calls of a TWPP are numbered from 0 in
// the order of processes, goroutines, and, in each goroutine, its calls in
// the order they were made (pre-order of the call tree).
type CallID uint64

// A CallInfo is one call: its function, trace, the calls and spawns it
// made in order, and the calls it was made from, innermost first.
type CallInfo struct {
	ID        CallID
	Func      FuncKey
	Name      string `json:",omitempty"`
	Paths     []uint64
	Open      bool `json:",omitempty"`
	Process   string
	Goroutine uint64
	// Items are the calls (with their ids) and spawns the call made, each
	// with the number of its paths completed before it.
	Items []CallItem
	// Callers are the calls that led to this one, innermost first; then,
	// if the goroutine was started by a recorded spawn, SpawnedBy says
	// which goroutine, and which spawn.
	Callers   []CallRef
	SpawnedBy *Spawner `json:",omitempty"`
}

// A CallItem is something a call did between its paths.
type CallItem struct {
	At    uint64
	Call  *CallRef `json:",omitempty"`
	Spawn uint64   `json:",omitempty"`
	Up    uint32   `json:",omitempty"`
}

// A CallRef names a call.
type CallRef struct {
	ID   CallID
	Func FuncKey
	Name string `json:",omitempty"`
}

// A Spawner is the goroutine and spawn that started a goroutine.
type Spawner struct {
	Goroutine uint64
	Spawn     uint64
}

// Names gives functions their names, for output; it may be nil.
type Names func(FuncKey) string

// Call returns call id.
func (t *TWPP) Call(id CallID, names Names) (*CallInfo, error) {
	name := func(k FuncKey) string {
		if names == nil {
			return ""
		}
		return names(k)
	}
	base := uint64(0)
	for _, p := range t.Processes {
		for _, g := range p.Goroutines {
			for _, r := range g.Roots {
				calls := t.Nodes[r].Calls
				if uint64(id) >= base+calls {
					base += calls
					continue
				}
				// Descend from the root to the call.
				var chain []CallRef
				ni, at := r, base
				for {
					n := t.Nodes[ni]
					f := t.Funcs[n.Func]
					if uint64(id) == at {
						info := &CallInfo{ID: id, Func: f.Key, Name: name(f.Key), Paths: f.Traces[n.Trace].Paths, Open: n.Open, Process: p.File, Goroutine: g.ID}
						next := at + 1
						for _, it := range n.Items {
							ci := CallItem{At: uint64(it.At)}
							switch it.Kind {
							case ItemSpawn:
								ci.Spawn = it.Spawn()
							case ItemUp:
								ci.Up = it.Up
							case ItemCall:
								k := t.Funcs[t.Nodes[it.Node].Func].Key
								ci.Call = &CallRef{CallID(next), k, name(k)}
								next += t.Nodes[it.Node].Calls
							}
							info.Items = append(info.Items, ci)
						}
						slices.Reverse(chain)
						info.Callers = chain
						if g.Spawn != 0 {
							info.SpawnedBy = &Spawner{g.Parent, g.Spawn}
						}
						return info, nil
					}
					chain = append(chain, CallRef{CallID(at), f.Key, name(f.Key)})
					next := at + 1
					found := false
					for _, it := range n.Items {
						if it.Kind != ItemCall {
							continue
						}
						c := t.Nodes[it.Node].Calls
						if uint64(id) < next+c {
							ni, at, found = it.Node, next, true
							break
						}
						next += c
					}
					if !found {
						return nil, fmt.Errorf("call %d: the call tree is inconsistent", id)
					}
				}
			}
		}
	}
	return nil, fmt.Errorf("no call %d: the profile has %d calls", id, base)
}

// TraceInfo is one distinct trace of a function.
type TraceInfo struct {
	Calls uint64
	// FirstCall is the first call that took the trace (TWPP.AddFirstCalls),
	// which wpp call shows; nil if not looked for.
	FirstCall *CallID `json:",omitempty"`
	Paths     []uint64
	// Steps are, with lines, each path decoded (see Decoder).
	Steps [][]string `json:",omitempty"`
}

// Traces are a function's distinct traces, most calls first.
type Traces struct {
	Func   FuncKey
	Name   string
	Calls  uint64
	Traces []TraceInfo
}

// Decoder turns a function's path into lines of source, for output; nil
// leaves paths as ids.
type Decoder func(k FuncKey, path uint64) ([]string, error)

// FuncTraces returns the traces of f, decoded with dec if not nil.
func FuncTraces(f *Func, name string, dec Decoder) (*Traces, error) {
	out := &Traces{Func: f.Key, Name: name}
	for _, tr := range f.sortedTraces() {
		ti := TraceInfo{Calls: tr.Calls, Paths: tr.Paths}
		out.Calls = satAdd(out.Calls, tr.Calls)
		if dec != nil {
			for _, p := range tr.Paths {
				steps, err := dec(f.Key, p)
				if err != nil {
					return nil, err
				}
				ti.Steps = append(ti.Steps, steps)
			}
		}
		out.Traces = append(out.Traces, ti)
	}
	return out, nil
}

// WriteText writes the traces, one a paragraph.
func (ts *Traces) WriteText(w io.Writer) error {
	name := ts.Name
	if name == "" {
		name = ts.Func.String()
	}
	fmt.Fprintf(w, "%s: %d calls, %d distinct traces\n", ShortName(name), ts.Calls, len(ts.Traces))
	for i, tr := range ts.Traces {
		first := ""
		if tr.FirstCall != nil {
			first = fmt.Sprintf(" (the first: call %d)", *tr.FirstCall)
		}
		fmt.Fprintf(w, "\ntrace %d: %d calls%s, %d paths: %s\n", i+1, tr.Calls, first, len(tr.Paths), profile.PathRuns(tr.Paths))
		for j, steps := range tr.Steps {
			fmt.Fprintf(w, "  path %d:\n", tr.Paths[j])
			for _, s := range steps {
				fmt.Fprintf(w, "    %s\n", s)
			}
		}
	}
	return nil
}

// WriteJSON writes the traces as JSON.
func (ts *Traces) WriteJSON(w io.Writer) error { return writeJSON(w, ts) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteText writes the call.
func (c *CallInfo) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "call %d: %s, goroutine %d of %s\n", c.ID, refName(c.Func, c.Name), c.Goroutine, c.Process)
	if c.Open {
		fmt.Fprintf(w, "  (still running when the recording ended)\n")
	}
	fmt.Fprintf(w, "paths: %s\n", profile.PathRuns(c.Paths))
	for _, it := range c.Items {
		switch {
		case it.Call != nil:
			fmt.Fprintf(w, "  after %d paths: call %d %s\n", it.At, it.Call.ID, refName(it.Call.Func, it.Call.Name))
		case it.Up > 0:
			fmt.Fprintf(w, "  after %d paths: a path of the call %d up\n", it.At, it.Up)
		default:
			fmt.Fprintf(w, "  after %d paths: go statement (spawn %d)\n", it.At, it.Spawn)
		}
	}
	for _, r := range c.Callers {
		fmt.Fprintf(w, "called from call %d %s\n", r.ID, refName(r.Func, r.Name))
	}
	if c.SpawnedBy != nil {
		fmt.Fprintf(w, "in a goroutine started by goroutine %d (spawn %d)\n", c.SpawnedBy.Goroutine, c.SpawnedBy.Spawn)
	}
	return nil
}

// WriteJSON writes the call as JSON.
func (c *CallInfo) WriteJSON(w io.Writer) error { return writeJSON(w, c) }

func refName(k FuncKey, name string) string {
	if name != "" {
		return ShortName(name)
	}
	return k.String()
}

// ShortName is a function's name as the text outputs write it: the name
// Names gives (its package's import path, a dot, its name) with the path
// cut to its last element (compress/flate.(*compressor).deflate is
// flate.(*compressor).deflate), as source.FuncName does; the JSON keeps
// the whole name.
func ShortName(name string) string {
	// The package's path ends at the last slash before the name proper,
	// whose receiver or type arguments may hold slashes of their own.
	head := name
	if i := strings.IndexAny(head, "(["); i >= 0 {
		head = head[:i]
	}
	return name[strings.LastIndex(head, "/")+1:]
}

// Stats are the sizes of a TWPP's parts, for `pathcover wpp compact`.
type Stats struct {
	Processes, Goroutines, Funcs, Traces, Nodes int
	Calls, Paths                                uint64
	// Cut says which recordings cover only part of their run, and why
	// (TWPP.Cut).
	Cut []string
}

// Stats counts the TWPP's parts.
func (t *TWPP) Stats() Stats {
	s := Stats{Processes: len(t.Processes), Funcs: len(t.Funcs), Nodes: len(t.Nodes), Cut: t.Cut()}
	for _, f := range t.Funcs {
		s.Traces += len(f.Traces)
		for _, tr := range f.Traces {
			s.Paths = satAdd(s.Paths, satMul(tr.Calls, uint64(len(tr.Paths))))
		}
	}
	for _, p := range t.Processes {
		s.Goroutines += len(p.Goroutines)
		for _, g := range p.Goroutines {
			for _, r := range g.Roots {
				s.Calls = satAdd(s.Calls, t.Nodes[r].Calls)
			}
		}
	}
	return s
}

func satMul(a, b uint64) uint64 {
	if a != 0 && (a*b)/a != b {
		return ^uint64(0)
	}
	return a * b
}
