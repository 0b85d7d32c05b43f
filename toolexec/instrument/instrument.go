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
	// Interesting, when set, makes a PPP build (see ppp.go): it returns the
	// Ball-Larus ids of a function's interesting paths, given its package's
	// import path, its name and its metadata without counters, and whether
	// the profile it comes from has only another version of the function.
	Interesting func(pkg, name string, f *profile.Func) (ids []uint64, stale bool)
	// PPPSlots is the largest PPP array of a function (0 for
	// DefaultPPPSlots); PPPLarge says what a function whose PPP numbering
	// needs more gets.
	PPPSlots uint64
	PPPLarge LargePPP
	// PPPAlways gives a PPP array to every function with interesting and
	// other paths, even where a Ball-Larus array would be no larger.
	PPPAlways bool
	// PPPSmall is the number of paths up to which a function of a PPP
	// build counts in a Ball-Larus array even if its PPP array would be
	// smaller (see ppp.go).
	PPPSmall uint64
	// Sites, when set, makes an interprocedural build (see ippp.go): the
	// paths of the profile that chooses the call sites. Depth is how many
	// calls deep segments go (0 for 1).
	Sites *profile.PathsRun
	Depth int
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
	// Sums are, for each of Names, the hash of that file's content
	// (profile.Meta.Sums), or "" if it is not known; nil for none. The
	// caller says, since a file compiled from a rewrite (cgo's, cover's)
	// has its original's name but not its content.
	Sums []string
	Info *types.Info
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
	arrayView  = "_pathcoverA" // + function index: *[N]uint64 of an array
	slotView   = "_pathcoverS" // + function index: *[S][2]uint64 of a PPP array
	residuals  = "_pathcoverP"
	register   = "_pathcoverR"
	pppReg     = "_pathcoverQ"
	pppID      = "_pathcoverq"
	residFunc  = "_pathcoverResidual"
	knownFunc  = "_pathcoverKnown"
	addFunc    = "_pathcoverAdd"
	hashFunc   = "_pathcoverHashed"
	invocation = "_pathcoverI"
	enterFunc  = "_pathcoverEnter"
	traceFunc  = "_pathcoverTrace"
)

// Package instruments a package.
func Package(in *Input, cfg *Config) (*Output, error) {
	setDefaults(cfg)
	if len(in.Files) == 0 {
		return nil, fmt.Errorf("no files")
	}
	graphs, err := funcgraph.BuildFiles(in.Files, &funcgraph.Config{Info: in.Info, NoReturn: in.NoReturn})
	if err != nil {
		return nil, err
	}
	mode := profile.ModeBallLarus
	if cfg.Interesting != nil {
		mode = profile.ModePPP
	}
	b := &pkgBuilder{
		in: in, cfg: cfg,
		meta:   &profile.Meta{Format: profile.MetaFormat, Package: cfg.Package, Mode: mode, Atomic: cfg.Atomic, Files: in.Names, Sums: in.Sums},
		out:    &Output{Files: make([][]byte, len(in.Files))},
		byObj:  make(map[*types.Func]*numbered),
		byName: make(map[string]*numbered),
	}
	// Number every function, then make the supergraphs, whose metadata
	// follows the functions', then write the code.
	b.number(graphs)
	if cfg.Sites != nil {
		b.addSupergraphs()
	}
	if err := b.rewrite(); err != nil {
		return nil, err
	}
	out, meta, init := b.out, b.meta, b.init
	raw, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	out.Meta = raw
	out.Hash = profile.Hash(raw)
	out.Generated = append(generated(in.Files[0].Name.Name, out.Hash, raw, meta, init, cfg), b.extra...)
	return out, nil
}

func setDefaults(cfg *Config) {
	if cfg.MaxArrayPaths == 0 {
		cfg.MaxArrayPaths = DefaultMaxArrayPaths
	}
	if cfg.HashSlots == 0 {
		cfg.HashSlots = DefaultHashSlots
	}
	if cfg.PPPSlots == 0 {
		cfg.PPPSlots = DefaultPPPSlots
	}
	if cfg.PPPLarge == "" {
		cfg.PPPLarge = PPPTruncate
	}
	if cfg.Depth < 1 {
		cfg.Depth = 1
	}
}

// A pkgBuilder instruments one package.
type pkgBuilder struct {
	in     *Input
	cfg    *Config
	meta   *profile.Meta
	init   []uint64 // pairs (word, value) that Register stores
	out    *Output
	funcs  []*numbered
	byObj  map[*types.Func]*numbered
	byName map[string]*numbered // declared functions, by funcgraph.ObjectName
	// foreign are the supergraphs of callers in other packages whose
	// clones of this package's functions this compile makes.
	foreign []*super
	extra   []byte // more code for the generated file
}

// number numbers and describes the functions of graphs and lays out their
// counters.
func (b *pkgBuilder) number(graphs []*funcgraph.Func) {
	in := b.in
	fileIndex := make(map[*token.File]int)
	coverFiles := make([]bool, len(in.Files))
	for i, f := range in.Files {
		fileIndex[in.Fset.File(f.Pos())] = i
		coverFiles[i] = coverOutput(f)
	}
	positions := newPositioner(in.Fset, in.Files, in.Src, coverFiles)
	decls := make(map[types.Object]*ast.FuncDecl)
	for _, f := range in.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				decls[in.Info.Defs[fd.Name]] = fd
			}
		}
	}
	for _, g := range graphs {
		fn := pathnumber.Number(g)
		if fn.Err != nil {
			b.out.Skipped = append(b.out.Skipped, Skip{g.Name, fn.Err})
			continue
		}
		u := &numbered{fn: fn, file: fileIndex[in.Fset.File(g.Node.Pos())], meta: len(b.meta.Funcs)}
		if decl, ok := g.Node.(*ast.FuncDecl); ok {
			u.obj, _ = in.Info.Defs[decl.Name].(*types.Func)
			if u.obj != nil {
				b.byObj[u.obj] = u
				b.byName[funcgraph.ObjectName(u.obj)] = u
			}
		}
		mf := describe(positions, in.Info, decls, fn, u.file, coverFiles[u.file])
		u.ct = &counting{fn: len(b.meta.Funcs)}
		b.layout(&mf, u.ct, fn.Placement)
		b.funcs = append(b.funcs, u)
		b.out.Funcs++
	}
}

// layout gives a function or supergraph its counters and adds its metadata.
func (b *pkgBuilder) layout(mf *profile.Func, ct *counting, p *numbering.Placement) {
	if b.cfg.Interesting != nil {
		b.init = layoutPPP(ct, b.cfg.Package, mf, p, b.meta.Words, b.cfg, b.init)
	} else {
		ct.c = layout(p.Numbering, b.meta.Words, b.cfg)
	}
	mf.Counters = ct.c
	b.meta.Words += mf.Counters.Size
	b.meta.Funcs = append(b.meta.Funcs, *mf)
}

// addSupergraphs makes the supergraph of each function with call sites,
// and finds the supergraphs of other packages that call clones of this
// one's functions (see ippp.go).
func (b *pkgBuilder) addSupergraphs() {
	for _, u := range b.funcs {
		s, err := b.callerSuper(u)
		if err == nil && s != nil {
			s.ct = &counting{fn: len(b.meta.Funcs), reg: superReg + "[0]", preg: superReg + "[1]"}
			if s.frame {
				s.ct.reg, s.ct.preg = superReg+".R[0]", superReg+".R[1]"
			}
			mf := s.meta(b.meta.Funcs, b.in.Names)
			b.layout(&mf, s.ct, s.p)
			u.super = s
		}
		if err != nil {
			b.out.Skipped = append(b.out.Skipped, Skip{u.fn.Name + profile.SuperSuffix, err})
		}
	}
	b.foreign = b.calleeSupers()
}

// rewrite writes the code of every function into its file, and the clones
// of callees after their files.
func (b *pkgBuilder) rewrite() error {
	in := b.in
	edits := make([]*editor, len(in.Files))
	clones := make([][]byte, len(in.Files))
	addClones := func(s *super) error {
		for i, site := range s.sites {
			if site.callee == nil {
				continue // in another package
			}
			src, err := s.clone(i, in, b.funcs, b.cfg)
			if err != nil {
				return err
			}
			clones[site.callee.file] = append(clones[site.callee.file], src...)
		}
		return nil
	}
	for _, u := range b.funcs {
		if edits[u.file] == nil {
			edits[u.file] = newEditor(in.Fset, in.Files[u.file], in.Src[u.file])
		}
		if err := u.emit(edits[u.file], b.cfg, true); err != nil {
			return err
		}
		if s := u.super; s != nil {
			if err := addClones(s); err != nil {
				return err
			}
			if s.frame {
				b.extra = append(b.extra, s.sink(b.cfg)...)
			}
		}
	}
	for _, s := range b.foreign {
		if err := addClones(s); err != nil {
			return err
		}
	}
	for i, e := range edits {
		if e == nil && clones[i] != nil {
			e = newEditor(in.Fset, in.Files[i], in.Src[i])
		}
		if e != nil {
			b.out.Files[i] = append(e.apply(), clones[i]...)
		}
	}
	return nil
}

// layout gives a function its counters: an array indexed by path id, or a
// hash table when it has too many paths.
func layout(n *numbering.Numbering, offset int, cfg *Config) profile.Counters {
	if n.NumPaths() <= cfg.MaxArrayPaths {
		return profile.Counters{Offset: offset, Kind: profile.CounterArray, Size: int(n.NumPaths())}
	}
	return profile.Counters{Offset: offset, Kind: profile.CounterHash, Size: 2*cfg.HashSlots + 1}
}

// describe makes a function's metadata.
func describe(positions *positioner, info *types.Info, decls map[types.Object]*ast.FuncDecl, fn *pathnumber.Func, file int, coverBuild bool) profile.Func {
	pos := positions.Position
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
	mf.Units = coverUnits(positions, fn.Func, coverBuild)
	mf.Recovers = recovers(fn.Body, info, decls)
	calls := fn.StaticCalls(info)
	for i, b := range fn.Blocks {
		mb := profile.Block{Kind: b.Kind.String()}
		if len(b.Nodes) > 0 {
			start, end := pos(b.Nodes[0].Pos()), pos(b.Nodes[len(b.Nodes)-1].End())
			mb.Line, mb.Col, mb.EndLine, mb.EndCol = start.Line, start.Column, end.Line, end.Column
		}
		for _, c := range calls[i] {
			p := pos(c.Call.Pos())
			mb.Calls = append(mb.Calls, profile.StaticCall{
				Line: p.Line, Col: p.Column,
				Package: profile.PackagePath(c.Callee.Pkg().Path()), Func: funcgraph.ObjectName(c.Callee),
				Site: c.Site,
			})
		}
		mf.Blocks = append(mf.Blocks, mb)
	}
	for i, e := range fn.Edges {
		ge := fn.Graph.Edges[i]
		p := pos(e.Node.Pos())
		mf.Edges = append(mf.Edges, profile.Edge{
			Src: int32(ge.Src), Dst: int32(ge.Dst), Probe: ge.Probe,
			Kind: profile.EdgeKind(e.Kind.String()), Line: p.Line, Col: p.Column,
		})
	}
	return mf
}

// generated is the extra file: the package's counters, registered with rt
// by a variable initializer (which runs before any function of the package
// can), and the helpers the instrumented code calls.
func generated(pkg, hash string, raw []byte, meta *profile.Meta, init []uint64, cfg *Config) []byte {
	funcs := len(meta.Funcs)
	initList := "nil"
	if len(init) > 0 {
		b := []byte("[]uint64{")
		for i, v := range init {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendUint(b, v, 10)
		}
		initList = string(append(b, '}'))
	}
	if cfg.Interesting == nil {
		funcs = 0 // no residual paths
	}
	src := fmt.Appendf(nil, `// Code generated by pppexec. DO NOT EDIT.

package %s

import (
	_pathcoverRT %q
	_pathcoverUnsafe "unsafe"
)

var _ _pathcoverUnsafe.Pointer

var %s, %s = _pathcoverRT.Register(%q, %s, %d, %s, %d, %q)

func %s(c *uint64) { _pathcoverRT.Add(c) }

func %s(table []uint64, id uint64) { _pathcoverRT.CountHashed(table, id) }
`, pkg, cfg.RuntimePath, counters, residuals, hash, strconv.Quote(string(raw)), meta.Words, initList, funcs, cfg.DefaultDir, addFunc, hashFunc)
	src = appendViews(src, meta)
	if cfg.Interesting != nil {
		src = fmt.Appendf(src, `
func %s(fn int, id uint64) { %s.Count(fn, id) }

func %s(table []uint64, fn int, id uint64) {
	if !_pathcoverRT.CountKnown(table, id) {
		%s.Count(fn, id)
	}
}
`, residFunc, residuals, knownFunc, residuals)
	}
	if cfg.Trace {
		src = fmt.Appendf(src, `
func %s(fn int) uint64 { return _pathcoverRT.TraceEnter(%q, fn) }

func %s(inv uint64, edge int) { _pathcoverRT.TraceEdge(inv, edge) }
`, enterFunc, hash, traceFunc)
	}
	return src
}

// appendViews declares, for each function with an array or a PPP array, a
// pointer to it as a Go array of its own length. Indexing through it needs
// no load of the counters' length, no bounds check for a constant index or
// a PPP id already checked against the slot count, and only one for a
// Ball-Larus id, against a constant. The conversion goes through
// unsafe.Pointer because converting a slice to an array pointer needs Go
// 1.17, and a module may declare an older language version; slicing first
// keeps the bounds check of the slice.
func appendViews(src []byte, meta *profile.Meta) []byte {
	for i, f := range meta.Funcs {
		c := f.Counters
		switch c.Kind {
		case profile.CounterArray:
			src = fmt.Appendf(src, "\nvar %s%d = (*[%d]uint64)(_pathcoverUnsafe.Pointer(&%s[%d:%d][0]))\n", arrayView, i, c.Size, counters, c.Offset, c.Offset+c.Size)
		case profile.CounterPPP:
			src = fmt.Appendf(src, "\nvar %s%d = (*[%d][2]uint64)(_pathcoverUnsafe.Pointer(&%s[%d:%d][0]))\n", slotView, i, c.Size/2, counters, c.Offset, c.Offset+c.Size)
		}
	}
	return src
}

// instrumentFunc adds a function's code to its file's edits.
func instrumentFunc(e *editor, fn *pathnumber.Func, ct *counting, cfg *Config) {
	p := fn.Placement
	topo := make(map[numbering.BlockID]int)
	for i, v := range p.Topo() {
		topo[v] = i
	}
	usesRegister := false
	// add inserts an edge's code at its site, as one insertion: a
	// synthesized else or default can only be made once.
	add := func(site funcgraph.Site, src numbering.BlockID, trace string, ops []numbering.Op) {
		for _, op := range ops {
			usesRegister = usesRegister || op.Kind != numbering.OpCountConst
		}
		if trace != "" || len(ops) > 0 {
			e.insert(site, topo[src], trace+opsCode(ops, ct, cfg))
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
		decl := "var " + register + " uint64; _ = " + register + "; "
		if ct.ppp != nil {
			decl += "var " + pppReg + " uint64; _ = " + pppReg + "; "
		}
		e.insertAt(fn.Body.Lbrace+1, phaseDecl, 0, decl)
	}
	if cfg.Trace {
		e.insertAt(fn.Body.Lbrace+1, phaseDecl, 0, fmt.Sprintf("%s := %s(%d); _ = %s; ", invocation, enterFunc, ct.fn, invocation))
	}
}

// opsCode writes ops as Go statements, each ended by a semicolon.
func opsCode(ops []numbering.Op, ct *counting, cfg *Config) string {
	s := ""
	for _, op := range ops {
		if c := opCode(op, ct, cfg); c != "" {
			s += c + "; "
		}
	}
	return s
}

// opCode writes one op as Go.
func opCode(op numbering.Op, ct *counting, cfg *Config) string {
	c := ct.c
	reg, preg := ct.registers()
	switch op.Kind {
	case numbering.OpAdd:
		s := addCode(reg, op.Inc)
		if ct.ppp != nil {
			if p := addCode(preg, ct.ppp.Inc(op.Edge)); p != "" {
				s = join(s, p)
			}
		}
		return s
	case numbering.OpSet:
		s := reg + " = " + strconv.FormatUint(op.Inc, 10)
		if ct.ppp != nil {
			s += "; " + preg + " = " + strconv.FormatUint(ct.ppp.Inc(op.Edge), 10)
		}
		return s
	}
	id := pathID(reg, op) // the path id: an expression, or a constant
	if ct.sink != "" {
		pid := "0"
		if ct.ppp != nil {
			pid = pathID(preg, numbering.Op{Kind: op.Kind, Inc: ct.ppp.Inc(op.Edge)})
		}
		return fmt.Sprintf("%s(%s, %s)", ct.sink, id, pid)
	}
	if c.Kind == profile.CounterPPP {
		return pppCount(op, ct, cfg)
	}
	return countCode(ct, cfg, id, "")
}

// countCode is the code that counts path id (an expression or a constant)
// in ct's counters; ppp is its PPP id, for PPP arrays.
func countCode(ct *counting, cfg *Config, id, ppp string) string {
	c := ct.c
	switch c.Kind {
	case profile.CounterPPP:
		return slotCount(ct, cfg, id, ppp)
	case profile.CounterPPPHash:
		return fmt.Sprintf("%s(%s[%d:%d], %d, %s)", knownFunc, counters, c.Offset, c.Offset+c.Size, ct.fn, id)
	case profile.CounterNone:
		return fmt.Sprintf("%s(%d, %s)", residFunc, ct.fn, id)
	}
	if c.Kind == profile.CounterHash {
		return fmt.Sprintf("%s(%s[%d:%d], %s)", hashFunc, counters, c.Offset, c.Offset+c.Size, id)
	}
	return increment(fmt.Sprintf("%s%d[%s]", arrayView, ct.fn, id), cfg)
}

// increment is the code that adds one to counter, an addressable uint64.
func increment(counter string, cfg *Config) string {
	if cfg.Atomic {
		return fmt.Sprintf("%s(&%s)", addFunc, counter)
	}
	return counter + "++"
}

// addCode is reg += inc, with inc as a signed number; empty for 0.
func addCode(reg string, inc uint64) string {
	switch {
	case inc == 0:
		return ""
	case int64(inc) < 0:
		return reg + " -= " + strconv.FormatUint(-inc, 10)
	}
	return reg + " += " + strconv.FormatUint(inc, 10)
}

func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// pathID is the path id that count op counts, in register reg: an
// expression, or a constant for OpCountConst.
func pathID(reg string, op numbering.Op) string {
	if op.Kind == numbering.OpCountConst {
		return strconv.FormatUint(op.Inc, 10)
	}
	if op.Inc == 0 {
		return reg
	}
	if int64(op.Inc) < 0 {
		return "(" + reg + "-" + strconv.FormatUint(-op.Inc, 10) + ")"
	}
	return "(" + reg + "+" + strconv.FormatUint(op.Inc, 10) + ")"
}
