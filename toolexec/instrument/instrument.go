package instrument

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"

	"github.com/pathcover/pathcover/analyzer/funcgraph"
	"github.com/pathcover/pathcover/analyzer/pathnumber"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// Config says how to instrument.
type Config struct {
	// Package is the import path recorded in the metadata; pppexec passes
	// TOOLEXEC_IMPORTPATH, which tells test variants apart.
	Package string
	// RuntimePath is the import path under which rt is compiled.
	RuntimePath string
	// Atomic makes counter updates atomic, as -race builds need.
	Atomic bool
	// MaxArrayPaths is the largest number of paths counted in an array;
	// functions with more get a hash table of HashSlots slots.
	MaxArrayPaths uint64
	HashSlots     int
	// DefaultDir is where counts go when $PATHCOVERDIR is not set; empty
	// for nowhere.
	DefaultDir string
	// Trace also writes a witness for every edge with a probe site, for the
	// path oracle (see package profile's trace format).
	Trace bool
}

// Defaults of Config.
const (
	DefaultMaxArrayPaths = 1 << 16
	DefaultHashSlots     = 1 << 10
)

// An Input is a type-checked package.
type Input struct {
	Fset  *token.FileSet
	Files []*ast.File
	// Names are the files' absolute names, which positions must show.
	Names []string
	Src   [][]byte
	Info  *types.Info
	// NoReturn reports functions that never return, as the analyzer's
	// ctrlflow facts do; it may be nil.
	NoReturn func(*types.Func) bool
}

// An Output is an instrumented package.
type Output struct {
	// Files holds the rewritten source of each input file, or nil for a file
	// with nothing to instrument.
	Files [][]byte
	// Generated is one more file of the package: the counters and helpers.
	Generated []byte
	Meta      []byte // the metadata, whose hash names it
	Hash      string
	Funcs     int    // functions instrumented
	Skipped   []Skip // functions left as they were
}

// A Skip is a function left uninstrumented, and why.
type Skip struct {
	Func   string
	Reason error
}

const (
	counters   = "_pathcoverC"
	register   = "_pathcoverR"
	addFunc    = "_pathcoverAdd"
	hashFunc   = "_pathcoverHashed"
	invocation = "_pathcoverI"
	enterFunc  = "_pathcoverEnter"
	traceFunc  = "_pathcoverTrace"
)

// Package instruments a package.
func Package(in *Input, cfg *Config) (*Output, error) {
	if cfg.MaxArrayPaths == 0 {
		cfg.MaxArrayPaths = DefaultMaxArrayPaths
	}
	if cfg.HashSlots == 0 {
		cfg.HashSlots = DefaultHashSlots
	}
	if len(in.Files) == 0 {
		return nil, fmt.Errorf("no files")
	}
	graphs, err := funcgraph.BuildFiles(in.Files, &funcgraph.Config{Info: in.Info, NoReturn: in.NoReturn})
	if err != nil {
		return nil, err
	}
	fileIndex := make(map[*token.File]int)
	coverFiles := make([]bool, len(in.Files))
	for i, f := range in.Files {
		fileIndex[in.Fset.File(f.Pos())] = i
		coverFiles[i] = coverOutput(f)
	}
	meta := &profile.Meta{Format: profile.MetaFormat, Package: cfg.Package, Mode: "bl", Atomic: cfg.Atomic, Files: in.Names}
	out := &Output{Files: make([][]byte, len(in.Files))}
	edits := make([]*editor, len(in.Files))
	for _, g := range graphs {
		fn := pathnumber.Number(g)
		if fn.Err != nil {
			out.Skipped = append(out.Skipped, Skip{g.Name, fn.Err})
			continue
		}
		file := fileIndex[in.Fset.File(g.Node.Pos())]
		if edits[file] == nil {
			edits[file] = newEditor(in.Fset, in.Files[file], in.Src[file])
		}
		mf := describe(in.Fset, fn, file, coverFiles[file])
		mf.Counters = layout(fn.Numbering, meta.Words, cfg)
		meta.Words += mf.Counters.Size
		meta.Funcs = append(meta.Funcs, mf)
		instrumentFunc(edits[file], fn, len(meta.Funcs)-1, mf.Counters, cfg)
		out.Funcs++
	}
	for i, e := range edits {
		if e != nil {
			out.Files[i] = e.apply()
		}
	}
	raw, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	out.Meta = raw
	out.Hash = profile.Hash(raw)
	out.Generated = generated(in.Files[0].Name.Name, out.Hash, raw, meta.Words, cfg)
	return out, nil
}

// layout gives a function its counters: an array indexed by path id, or a
// hash table when it has too many paths.
func layout(n *numbering.Numbering, offset int, cfg *Config) profile.Counters {
	if n.NumPaths() <= cfg.MaxArrayPaths {
		return profile.Counters{Offset: offset, Kind: "array", Size: int(n.NumPaths())}
	}
	return profile.Counters{Offset: offset, Kind: "hash", Size: 2*cfg.HashSlots + 1}
}

// describe makes a function's metadata.
func describe(fset *token.FileSet, fn *pathnumber.Func, file int, coverBuild bool) profile.Func {
	pos := func(p token.Pos) token.Position { return fset.Position(p) }
	mf := profile.Func{
		Name:    fn.Name,
		File:    file,
		Line:    pos(fn.Node.Pos()).Line,
		EndLine: pos(fn.Node.End()).Line,
		Entry:   int32(fn.Graph.Entry),
		Exit:    int32(fn.Graph.Exit),
		Paths:   fn.Numbering.NumPaths(),
		Total:   fn.Numbering.Total().String(),
	}
	for _, id := range fn.Preferred {
		mf.Preferred = append(mf.Preferred, int32(id))
	}
	mf.Units = coverUnits(fset, fn.Func, coverBuild)
	for _, b := range fn.Blocks {
		mb := profile.Block{Kind: b.Kind.String()}
		if len(b.Nodes) > 0 {
			start, end := pos(b.Nodes[0].Pos()), pos(b.Nodes[len(b.Nodes)-1].End())
			mb.Line, mb.Col, mb.EndLine, mb.EndCol = start.Line, start.Column, end.Line, end.Column
		}
		mf.Blocks = append(mf.Blocks, mb)
	}
	for i, e := range fn.Edges {
		ge := fn.Graph.Edges[i]
		p := pos(e.Node.Pos())
		mf.Edges = append(mf.Edges, profile.Edge{
			Src: int32(ge.Src), Dst: int32(ge.Dst), Probe: ge.Probe,
			Kind: e.Kind.String(), Line: p.Line, Col: p.Column,
		})
	}
	return mf
}

// generated is the extra file: the package's counters, registered with rt
// by a variable initializer (which runs before any function of the package
// can), and the helpers the instrumented code calls.
func generated(pkg, hash string, meta []byte, words int, cfg *Config) []byte {
	src := fmt.Appendf(nil, `// Code generated by pppexec. DO NOT EDIT.

package %s

import _pathcoverRT %q

var %s = _pathcoverRT.Register(%q, %s, %d, %q)

func %s(c *uint64) { _pathcoverRT.Add(c) }

func %s(table []uint64, id uint64) { _pathcoverRT.CountHashed(table, id) }
`, pkg, cfg.RuntimePath, counters, hash, strconv.Quote(string(meta)), words, cfg.DefaultDir, addFunc, hashFunc)
	if cfg.Trace {
		src = fmt.Appendf(src, `
func %s(fn int) uint64 { return _pathcoverRT.TraceEnter(%q, fn) }

func %s(inv uint64, edge int) { _pathcoverRT.TraceEdge(inv, edge) }
`, enterFunc, hash, traceFunc)
	}
	return src
}

// instrumentFunc adds a function's code to its file's edits. index is its
// place in the package's metadata.
func instrumentFunc(e *editor, fn *pathnumber.Func, index int, c profile.Counters, cfg *Config) {
	p := fn.Placement
	topo := make(map[numbering.BlockID]int)
	for i, v := range p.Topo() {
		topo[v] = i
	}
	code := func(ops []numbering.Op) string {
		s := ""
		for _, op := range ops {
			s += opCode(op, c, cfg) + "; "
		}
		return s
	}
	usesRegister := false
	// add inserts an edge's code at its site, as one insertion: a
	// synthesized else or default can only be made once.
	add := func(site funcgraph.Site, src numbering.BlockID, trace string, ops []numbering.Op) {
		for _, op := range ops {
			usesRegister = usesRegister || op.Kind != numbering.OpCountConst
		}
		if trace != "" || len(ops) > 0 {
			e.insert(site, topo[src], trace+code(ops))
		}
	}
	add(fn.EntrySite(), p.Root(), "", p.EntryOps())
	for id, edge := range fn.Edges {
		ge := fn.Graph.Edges[id]
		if !p.Reachable(ge.Src) {
			continue
		}
		trace := ""
		if cfg.Trace && edge.Site.Kind != funcgraph.NoSite {
			trace = fmt.Sprintf("%s(%s, %d); ", traceFunc, invocation, id)
		}
		add(edge.Site, ge.Src, trace, p.EdgeOps(numbering.EdgeID(id)))
	}
	if usesRegister {
		e.insertAt(fn.Body.Lbrace+1, phaseDecl, 0, "var "+register+" uint64; _ = "+register+"; ")
	}
	if cfg.Trace {
		e.insertAt(fn.Body.Lbrace+1, phaseDecl, 0, fmt.Sprintf("%s := %s(%d); _ = %s; ", invocation, enterFunc, index, invocation))
	}
}

// opCode writes one op as Go.
func opCode(op numbering.Op, c profile.Counters, cfg *Config) string {
	plus := func(x uint64) string { // + x, with x as a signed number
		if int64(x) < 0 {
			return "-" + strconv.FormatUint(-x, 10)
		}
		return "+" + strconv.FormatUint(x, 10)
	}
	switch op.Kind {
	case numbering.OpAdd:
		if int64(op.Inc) < 0 {
			return register + " -= " + strconv.FormatUint(-op.Inc, 10)
		}
		return register + " += " + strconv.FormatUint(op.Inc, 10)
	case numbering.OpSet:
		return register + " = " + strconv.FormatUint(op.Inc, 10)
	}
	var id string // the path id: an expression, or a constant
	if op.Kind == numbering.OpCount {
		id = "(" + register + plus(op.Inc) + ")"
		if op.Inc == 0 {
			id = register
		}
	} else {
		id = strconv.FormatUint(op.Inc, 10)
	}
	if c.Kind == "hash" {
		return fmt.Sprintf("%s(%s[%d:%d], %s)", hashFunc, counters, c.Offset, c.Offset+c.Size, id)
	}
	var index string
	if op.Kind == numbering.OpCountConst {
		index = strconv.FormatUint(uint64(c.Offset)+op.Inc, 10)
	} else {
		index = fmt.Sprintf("%d+%s", c.Offset, id)
	}
	if cfg.Atomic {
		return fmt.Sprintf("%s(&%s[%s])", addFunc, counters, index)
	}
	return fmt.Sprintf("%s[%s]++", counters, index)
}
