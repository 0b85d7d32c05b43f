package profile

// A metadata file, <hash>.meta, describes one instrumented package, as
// pppexec numbered it: for each function its graph, enough to number it
// again exactly as it was (numbering is deterministic), the places of its
// blocks and edges in the source for reports, and where its counters lie in
// the package's segment. It is JSON (the Meta type below), compressed
// with gzip (RFC 1952, CompressMeta) as pppexec embeds it in the binaries it
// builds, which write it as it is; a file of plain JSON is read too (older
// builds, pathcover's own copies). hash is the first 16 bytes of the
// SHA-256 of the JSON, in hex: a counter segment names the metadata it was
// laid out by, so counts can never be decoded with the graph of another
// build.
//
//	<hash>.meta: gzip(JSON of Meta)   or   JSON of Meta
//
// Compression matters for interprocedural builds, whose supergraphs
// describe each callee's blocks and edges again for every site: go/parser's
// metadata is 2.2 MB of JSON and 0.23 MB compressed, and every instrumented
// binary carries it.

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode"

	"github.com/pathcover/pathcover/internal/inflate"
	"github.com/pathcover/pathcover/numbering"
)

// MetaFormat names the metadata format in Meta.Format.
const MetaFormat = "pathcover-meta-1"

// Meta describes one instrumented package.
type Meta struct {
	Format  string
	Package string // the import path, as TOOLEXEC_IMPORTPATH gives it
	// Symbols is, where it is not the import path, what the compiler
	// names the package's symbols by (its -p flag): "main" for a
	// command's main package, whose functions the runtime, pprof and PGO
	// name main.F. Metadata written before it was kept has none.
	Symbols string `json:",omitempty"`
	// Mode is how the build counts (see Mode).
	Mode   Mode
	Atomic bool // counters were incremented atomically
	// Records is what the build recorded, which says what a profile of it
	// can answer (internal/buildspec.Spec.Records); 0 in metadata written
	// before it was kept.
	Records Records `json:",omitempty"`
	// Files are the files that positions name: the package's source
	// files, and files that //line directives before its functions name
	// (as go/token's adjusted positions, and go test, name them), in
	// which those functions' lines are.
	Files []string
	// Sums are, for each of Files, Hash of its content when it was
	// compiled ("" if pppexec could not tell, or compiled no such file:
	// one that only //line directives name), so that a report can tell
	// whether the source it shows is still the one that was profiled.
	// Metadata written before sums were recorded has none.
	Sums  []string `json:",omitempty"`
	Words int      // the package's counter words
	Funcs []Func
}

// SymbolPrefix is what the runtime, pprof and PGO name the package's
// functions by: Symbols, or else its import path (without a test
// variant's suffix).
func (m *Meta) SymbolPrefix() string {
	if m.Symbols != "" {
		return m.Symbols
	}
	return PackagePath(m.Package)
}

// A Mode is how a build counts paths; the metadata spells it as the
// constant's value.
type Mode string

const (
	// ModeBallLarus counts each function's paths by Ball-Larus id.
	ModeBallLarus Mode = "bl"
	// ModePPP is a PPP build: functions count their interesting paths and
	// record every other path in a residual table (see counts.go).
	ModePPP Mode = "ppp"
)

// A CounterKind is how a function's counters are laid out in its
// package's words (see Counters); the metadata spells it as the
// constant's value.
type CounterKind string

const (
	// CounterArray: Size = Paths words, word i counting path i (in a PPP
	// build too, for a function whose Ball-Larus array is no larger than a
	// PPP array would be: its residual paths are counted in it).
	CounterArray CounterKind = "array"
	// CounterHash: Size = 2C+1 words, C slots of (id+1, count), then the
	// number of paths that found the table full (Ball-Larus builds).
	CounterHash CounterKind = "hash"
	// CounterPPP: Size = 2S words, S slots of (Ball-Larus id + 1, count),
	// slot i for the interesting path with PPP id i, or (0, 0) for an id no
	// interesting path has. S is PPPSize, or less if pppexec truncated the
	// array: interesting paths with ids past it are recorded as residual.
	CounterPPP CounterKind = "ppp"
	// CounterPPPHash: Size = 2C words, C slots of (id+1, count) whose keys
	// are the interesting paths, for numberings too sparse for an array.
	CounterPPPHash CounterKind = "ppphash"
	// CounterNone: Size 0, for a function with no interesting paths.
	CounterNone CounterKind = "none"
	// CounterHot: Size = 12S words, S sets (a power of two) of HotWays
	// ways of (id+1, count, error), path id in set HotSet(id, S): a hot
	// path table (pppexec -hot, rt/hot.go), whose
	// counts are estimates: a path's true count is within [count - error,
	// count]; paths it replaced are not in it.
	CounterHot CounterKind = "hot"
)

// HotWays is the ways of each set of a hot path table (rt.HotWays).
const HotWays = 4

// HotSet is the set of path id in a hot path table of sets sets, a power
// of two: package rt uses the same function, and pppexec's code the same
// expression.
func HotSet(id, sets uint64) uint64 { return (id * HotMultiplier) >> 40 & (sets - 1) }

// HotMultiplier is HotSet's: 2^64 over the golden ratio (Fibonacci hashing).
const HotMultiplier = 0x9E3779B97F4A7C15

// An EdgeKind is what taking an edge means: the branch outcome of a
// function's edge, as package funcgraph spells its kinds (true, false,
// case, return, ...), or, in a supergraph, the call or return of a site.
type EdgeKind string

const (
	EdgeCall       EdgeKind = "call"       // into a site's callee
	EdgeCallReturn EdgeKind = "callreturn" // back from it
)

// Func describes one function.
type Func struct {
	Name      string
	File      int // index in Meta.Files
	Line      int
	EndLine   int
	Blocks    []Block
	Edges     []Edge
	Entry     int32
	Exit      int32
	Preferred []int32
	// Keep are the edges the numbering's cuts to fit in 63 bits spared
	// (numbering.Options.Keep), for a supergraph whose paths were cut.
	Keep     []int32 `json:",omitempty"`
	MaxPaths uint64  // the numbering's option; 0 for its default
	Paths    uint64  // N, the numbered paths, to check the numbering again
	Total    string  // the exact number of acyclic paths, in decimal
	Counters Counters
	// Interesting are, in a PPP build, the Ball-Larus ids of the function's
	// interesting paths (those its tests ran), sorted; every other path is
	// residual. PPPSize is the size of their PPP numbering, which Counters
	// may truncate (see Counters).
	Interesting []uint64 `json:",omitempty"`
	PPPSize     uint64   `json:",omitempty"`
	// Stale says that, in a PPP build, the interesting profile had another
	// version of the function, whose paths say nothing of this one's: all
	// its paths count as residual.
	Stale bool `json:",omitempty"`
	// Units are the function's statements as go test -cover counts them.
	Units []Unit
	// Recovers says that the function can stop a panic and return
	// normally (a deferred function of it calls recover), so that a clone
	// of it could return to its caller in the middle of a path: an
	// interprocedural build does not follow calls into it.
	Recovers bool `json:",omitempty"`
	// Super is set for a supergraph of an interprocedural build: not a
	// function of the source but a caller with some callees inlined, whose
	// paths are interprocedural path segments (see Super).
	Super *Super `json:",omitempty"`
	// Deps are, in a -deps build, the function's statements with the
	// variables they define and use, for slicing (deps.go).
	Deps *Deps `json:",omitempty"`
	// Infeasible is what pppexec proved of the function's paths (package
	// internal/static/infeasible); nil if it did not analyse the function
	// (metadata written before, a supergraph, or an analysis that failed).
	Infeasible *Infeasible `json:",omitempty"`
}

// Infeasible lists sets of a function's edges that no run takes together:
// every path through all the edges of one of Contradictions is infeasible.
// An empty list says that the analysis ran and proved nothing. There are
// at most MaxContradictions.
type Infeasible struct {
	Contradictions []Contradiction
}

// MaxContradictions bounds a function's contradictions, which the
// analysis stops at and the reader refuses more of: counting the paths
// that avoid them all costs time in their number.
const MaxContradictions = 1 << 14

// A Contradiction is a set of edges (indexes in Func.Edges) that no run
// takes together, with why: what each of its branch edges says of the
// function's values, in the order a path takes them, separated by "; ".
// With Again (one block, a range loop's head), it holds of the paths that
// start where that loop goes round again (a round ran), and Edges may be
// empty.
type Contradiction struct {
	Edges []int32
	Again []int32 `json:",omitempty"`
	Why   string
}

// InfeasibleSets returns the contradictions' edge sets, checked against the
// function's edges (and their Again blocks against its blocks; the caller
// adds each one's start edge, which only the numbering knows).
func (f *Func) InfeasibleSets() ([][]numbering.EdgeID, error) {
	if f.Infeasible == nil {
		return nil, nil
	}
	sets := make([][]numbering.EdgeID, len(f.Infeasible.Contradictions))
	for i, c := range f.Infeasible.Contradictions {
		if len(c.Again) > 1 || len(c.Edges)+len(c.Again) == 0 || len(c.Edges) > 63 {
			return nil, fmt.Errorf("function %s: contradiction %d has %d edges and %d loop heads", f.Name, i, len(c.Edges), len(c.Again))
		}
		for _, b := range c.Again {
			if b < 0 || int(b) >= len(f.Blocks) {
				return nil, fmt.Errorf("function %s: contradiction %d names block %d of %d", f.Name, i, b, len(f.Blocks))
			}
		}
		for _, e := range c.Edges {
			if e < 0 || int(e) >= len(f.Edges) {
				return nil, fmt.Errorf("function %s: contradiction %d names edge %d of %d", f.Name, i, e, len(f.Edges))
			}
			sets[i] = append(sets[i], numbering.EdgeID(e))
		}
	}
	return sets, nil
}

// SuperSuffix ends the Name of a supergraph: its caller's name, then this.
const SuperSuffix = "@ippp"

// A Super says how a supergraph was made (numbering.Inline): the graph of
// the function Caller (an index in Meta.Funcs) with the callee of each of
// Sites inlined, in order. The supergraph's Func has the supergraph's own
// Blocks and Edges, numbered and counted as any function's; Blocks and
// Edges here give the origin of each of them, so that a report can show a
// segment as caller path, callee path, caller path. Block spans are copied
// from the origin, whose File may differ from the caller's.
type Super struct {
	Caller int
	Sites  []SuperSite
	Blocks []Origin
	Edges  []Origin
}

// A SuperSite is an inlined call: the Call-th static call (Block.Calls) of
// block Block of the caller (Parent -1) or of the callee of site Parent,
// which comes before it (segments deeper than one call), whose callee is
// Meta.Funcs[Callee], or, with Callee -1, function Func of package Package,
// described by another metadata. Func and File name the callee and its
// file, for reports.
type SuperSite struct {
	Parent  int
	Block   int32
	Call    int
	Callee  int
	Package string `json:",omitempty"`
	Func    string
	File    string
}

// An Origin places a supergraph block or edge: Site is -1 for the caller or
// the index of the site whose callee holds it, Index the block or edge
// there. The call and return edges of a site have Index -2 and -3
// (numbering.CallEdge, numbering.ReturnEdge). After is, for a part of a
// caller block split by calls, how many of its calls come before it.
type Origin struct {
	Site  int
	Index int32
	After int `json:",omitempty"`
}

// A Unit is a run of statements that go test -cover counts together: they
// ran if Block ran. Its span is that of cover's block (a block that ends in
// a statement holding others ends at the opening brace of its body), so a
// coverprofile can name it as go test -coverprofile does.
type Unit struct {
	Block   int32
	Stmts   int
	Line    int
	Col     int
	EndLine int
	EndCol  int
}

// A Block is a basic block's span in the source (zero for an empty block).
type Block struct {
	Kind    string
	Line    int
	Col     int
	EndLine int
	EndCol  int
	// Calls are the block's static calls, in the order they run (see
	// funcgraph.StaticCalls): where interprocedural profiling can follow
	// a path into its callee. Metadata written before calls were recorded
	// has none.
	Calls []StaticCall `json:",omitempty"`
}

// A StaticCall is a static call: where it is, and its callee, named by package
// path (without a test variant's suffix) and by name as Func.Name spells it.
type StaticCall struct {
	Line    int
	Col     int
	Package string
	Func    string
	// Site says that an interprocedural build can make the call a site,
	// calling a clone of the callee: the callee is not generic, the call
	// names it by an identifier or a selector, and the caller's path has
	// not ended before the call runs (funcgraph.StaticCall.Site: a call in
	// a return statement is a site when the statement's results can be
	// held in variables until the path is counted).
	Site bool `json:",omitempty"`
}

// An Edge is an edge of the graph with what it means.
type Edge struct {
	Src, Dst int32
	Probe    bool
	Kind     EdgeKind
	Line     int // of the statement or clause that takes it
	Col      int
	// Cond is, for a branch outcome, the source of the condition it is an
	// outcome of (internal/static/infeasible.Conditions): an if's or for's
	// condition, "case " and a clause's list, "range " and the range
	// expression, "switch" and its tag for no case matching.
	Cond string `json:",omitempty"`
}

// Counters says where a function's counters lie in its package's words.
type Counters struct {
	Offset int
	Kind   CounterKind
	Size   int
}

// CompressMeta returns metadata's JSON compressed as a metadata file holds
// it: gzip without a name or a time, so the same JSON always gives the same
// bytes.
func CompressMeta(json []byte) []byte {
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		panic(err) // the level is valid
	}
	w.Write(json) // a bytes.Buffer does not fail
	w.Close()
	return b.Bytes()
}

// MetaJSON returns the JSON of a metadata file's content: decompressed if
// it is gzip, within metaInflate, or the content itself; either way JSON
// no denser in objects and arrays than metadata is (checkDensity).
func MetaJSON(content []byte) ([]byte, error) {
	if !bytes.HasPrefix(content, []byte{0x1f, 0x8b}) {
		return content, checkDensity(content)
	}
	json, err := inflate.Gzip(content, metaInflate)
	if err != nil {
		return nil, fmt.Errorf("compressed metadata: %v", err)
	}
	return json, checkDensity(json)
}

// metaInflate bounds compressed metadata: pathcover's compresses about 8
// times (a -deps package's 91 KB of JSON in 11 KB), so one that inflates
// past 64 times its size is not pathcover's; a 255 KB stream of a
// repeated "{}," that did inflated to 256 MiB, and parsed to 6 GB.
var metaInflate = inflate.Limits{Max: MaxMetaSize, Ratio: 64, Floor: 1 << 20}

// minBytesPerValue is the fewest bytes of metadata's JSON per object or
// array in it: pathcover's has one in every 41 bytes, and each of them
// parses to tens or hundreds of bytes of memory (a Func is some 300).
// JSON with one in every few bytes ("[{},{},{}...") would parse to a
// hundred times its size: it is refused before it is parsed.
const minBytesPerValue = 8

// checkDensity refuses JSON with more objects and arrays than
// minBytesPerValue allows. It counts brackets inside strings too, which
// only errs towards refusing.
func checkDensity(json []byte) error {
	n := bytes.Count(json, []byte{'{'}) + bytes.Count(json, []byte{'['})
	if n > 16 && n > len(json)/minBytesPerValue {
		return fmt.Errorf("not pathcover metadata: %d objects and arrays in %d bytes of JSON", n, len(json))
	}
	return nil
}

// Hash returns the hash that names metadata with this JSON.
func Hash(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:16])
}

// ParseMeta parses and checks the content of a metadata file.
func ParseMeta(content []byte) (*Meta, error) {
	var m Meta
	if err := json.Unmarshal(content, &m); err != nil {
		return nil, fmt.Errorf("not pathcover metadata: %v", err)
	}
	if m.Format != MetaFormat {
		return nil, fmt.Errorf("metadata format %q, want %q", m.Format, MetaFormat)
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return &m, nil
}

func (m *Meta) check() error {
	if m.Mode != ModeBallLarus && m.Mode != ModePPP {
		return fmt.Errorf("unknown counter mode %q", m.Mode)
	}
	if m.Words < 0 {
		return errors.New("negative counter words")
	}
	if err := m.checkText(); err != nil {
		return err
	}
	if len(m.Sums) != 0 && len(m.Sums) != len(m.Files) {
		return fmt.Errorf("%d source sums for %d files", len(m.Sums), len(m.Files))
	}
	// pppexec lays the functions' counters out one after another.
	var words uint64
	for _, f := range m.Funcs {
		words = numbering.SatAdd(words, uint64(max(f.Counters.Size, 0)))
	}
	if words != uint64(m.Words) {
		return fmt.Errorf("%d counter words, but the functions' counters take %d", m.Words, words)
	}
	for i := range m.Funcs {
		f := &m.Funcs[i]
		if f.File < 0 || f.File >= len(m.Files) {
			return fmt.Errorf("function %s: file %d of %d", f.Name, f.File, len(m.Files))
		}
		c := f.Counters
		switch c.Kind {
		case CounterArray:
			if uint64(c.Size) != f.Paths {
				return fmt.Errorf("function %s: %d counters for %d paths", f.Name, c.Size, f.Paths)
			}
		case CounterHash:
			if c.Size < 3 || c.Size%2 == 0 {
				return fmt.Errorf("function %s: hash table of %d words", f.Name, c.Size)
			}
		case CounterHot:
			if sets := c.Size / (3 * HotWays); c.Size%(3*HotWays) != 0 || sets == 0 || sets&(sets-1) != 0 {
				return fmt.Errorf("function %s: hot path table of %d words", f.Name, c.Size)
			}
		case CounterPPP, CounterPPPHash, CounterNone:
			if m.Mode != ModePPP {
				return fmt.Errorf("function %s: %s counters in a %s build", f.Name, c.Kind, m.Mode)
			}
			if c.Size%2 != 0 || (c.Kind == CounterNone) != (c.Size == 0) || (c.Kind == CounterPPP && uint64(c.Size/2) > f.PPPSize) {
				return fmt.Errorf("function %s: %s counters of %d words", f.Name, c.Kind, c.Size)
			}
		default:
			return fmt.Errorf("function %s: unknown counter kind %q", f.Name, c.Kind)
		}
		if c.Offset < 0 || c.Size < 0 || c.Offset > m.Words-c.Size {
			return fmt.Errorf("function %s: counters [%d, %d+%d) outside the package's %d words", f.Name, c.Offset, c.Offset, c.Size, m.Words)
		}
		for b, blk := range f.Blocks {
			for _, c := range blk.Calls {
				if c.Line <= 0 || c.Package == "" || c.Func == "" {
					return fmt.Errorf("function %s: block %d: call %+v", f.Name, b, c)
				}
			}
		}
		for _, u := range f.Units {
			if u.Block < 0 || int(u.Block) >= len(f.Blocks) || u.Stmts < 0 {
				return fmt.Errorf("function %s: statement unit in block %d of %d", f.Name, u.Block, len(f.Blocks))
			}
		}
		if f.Entry < 0 || int(f.Entry) >= len(f.Blocks) || f.Exit < 0 || int(f.Exit) >= len(f.Blocks) {
			return fmt.Errorf("function %s: entry %d or exit %d not among its %d blocks", f.Name, f.Entry, f.Exit, len(f.Blocks))
		}
		for i, id := range f.Interesting {
			if id >= f.Paths || (i > 0 && id <= f.Interesting[i-1]) {
				return fmt.Errorf("function %s: interesting paths %v not sorted ids below %d", f.Name, f.Interesting, f.Paths)
			}
		}
		if err := f.checkTotal(); err != nil {
			return fmt.Errorf("function %s: %v", f.Name, err)
		}
		if f.Super != nil {
			if err := m.checkSuper(f); err != nil {
				return fmt.Errorf("supergraph %s: %v", f.Name, err)
			}
		}
		if f.Deps != nil {
			if err := f.Deps.check(len(f.Blocks)); err != nil {
				return fmt.Errorf("function %s: dependences: %v", f.Name, err)
			}
		}
		if f.Infeasible != nil {
			if len(f.Infeasible.Contradictions) > MaxContradictions {
				return fmt.Errorf("function %s: %d contradictions, more than %d", f.Name, len(f.Infeasible.Contradictions), MaxContradictions)
			}
			if _, err := f.InfeasibleSets(); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkTotal checks the exact path count. A path is a set of edges of the
// graph made acyclic, which has at most 2E edges for E edges (each cut edge
// becomes two), so there are at most 2^(2E) paths, of at most
// 2E·log10(2)+1 digits: that bound is checked before the number is parsed,
// whose cost grows faster than its length.
func (f *Func) checkTotal() error {
	if len(f.Total) > len(f.Edges)*604/1000+2 {
		return fmt.Errorf("path count of %d digits for %d edges", len(f.Total), len(f.Edges))
	}
	total, ok := new(big.Int).SetString(f.Total, 10)
	if !ok || total.Sign() < 0 {
		return fmt.Errorf("path count %q", f.Total)
	}
	return nil
}

// checkText refuses metadata whose names could do harm where reports print
// them: no Go identifier, import path or file that pathcover profiles holds a
// control character (a newline would forge a line of gate's output that CI
// reads as a command, an escape sequence would drive the terminal) or a
// character that reorders text when shown.
func (m *Meta) checkText() error {
	var bad string
	check := func(what, s string) {
		if bad == "" && strings.IndexFunc(s, unsafeRune) >= 0 {
			bad = fmt.Sprintf("%s %q holds a control character", what, s)
		}
	}
	check("package", m.Package)
	for _, f := range m.Files {
		check("file", f)
	}
	for _, s := range m.Sums {
		if _, err := hex.DecodeString(s); err != nil || (len(s) != 32 && s != "") {
			return fmt.Errorf("source sum %q", s)
		}
	}
	for i := range m.Funcs {
		f := &m.Funcs[i]
		check("function", f.Name)
		for _, b := range f.Blocks {
			check("block kind", b.Kind)
			for _, c := range b.Calls {
				check("callee package", c.Package)
				check("callee", c.Func)
			}
		}
		for _, e := range f.Edges {
			check("edge kind", string(e.Kind))
			check("condition", e.Cond)
		}
		if f.Infeasible != nil {
			for _, c := range f.Infeasible.Contradictions {
				check("contradiction", c.Why)
			}
		}
		if f.Deps != nil {
			for _, v := range f.Deps.Vars {
				check("variable", v.Name)
			}
			for _, s := range f.Deps.Stmts {
				for _, mem := range s.Memory {
					check("memory read", mem)
				}
				for _, c := range s.Calls {
					check("callee package", c.Package)
					check("callee", c.Func)
					check("method", c.Method)
				}
			}
		}
		if f.Super != nil {
			for _, site := range f.Super.Sites {
				check("callee package", site.Package)
				check("callee", site.Func)
				check("file", site.File)
			}
		}
	}
	if bad != "" {
		return errors.New(bad)
	}
	return nil
}

// unsafeRune reports whether r is a control character (C0, DEL, C1) or a
// bidirectional formatting character.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200E || r == 0x200F || r == 0x061C
}

// checkSuper checks that a supergraph's origins lie in its caller and
// callees.
func (m *Meta) checkSuper(f *Func) error {
	s := f.Super
	plain := func(i int) *Func {
		if i < 0 || i >= len(m.Funcs) || m.Funcs[i].Super != nil {
			return nil
		}
		return &m.Funcs[i]
	}
	caller := plain(s.Caller)
	if caller == nil {
		return fmt.Errorf("caller %d is not a function of the package", s.Caller)
	}
	origin := make([]*Func, len(s.Sites)) // nil for another package's
	for i, site := range s.Sites {
		if site.Func == "" || site.File == "" {
			return fmt.Errorf("site %d: callee %q in file %q", i, site.Func, site.File)
		}
		if site.Callee == -1 && site.Package != "" {
			// In another package: its origins are checked for sign only.
		} else if origin[i] = plain(site.Callee); origin[i] == nil {
			return fmt.Errorf("site %d: callee %d is not a function of the package", i, site.Callee)
		}
		if site.Parent < -1 || site.Parent >= i {
			return fmt.Errorf("site %d: parent site %d", i, site.Parent)
		}
		in := caller // the function that makes the call, if described here
		if site.Parent >= 0 {
			in = origin[site.Parent]
		}
		if in != nil && (site.Block < 0 || int(site.Block) >= len(in.Blocks) || site.Call < 0 || site.Call >= len(in.Blocks[site.Block].Calls)) {
			return fmt.Errorf("site %d: no call %d in block %d of %s", i, site.Call, site.Block, in.Name)
		}
	}
	of := func(o Origin) (*Func, error) {
		if o.Site < -1 || o.Site >= len(s.Sites) || o.After < 0 {
			return nil, fmt.Errorf("origin %+v", o)
		}
		if o.Site == -1 {
			return caller, nil
		}
		return origin[o.Site], nil
	}
	if len(s.Blocks) != len(f.Blocks) || len(s.Edges) != len(f.Edges) {
		return fmt.Errorf("%d block and %d edge origins for %d blocks and %d edges", len(s.Blocks), len(s.Edges), len(f.Blocks), len(f.Edges))
	}
	for _, o := range s.Blocks {
		g, err := of(o)
		if err != nil {
			return err
		}
		if o.Index < 0 || (g != nil && int(o.Index) >= len(g.Blocks)) {
			return fmt.Errorf("block origin %+v outside its function", o)
		}
	}
	for _, o := range s.Edges {
		g, err := of(o)
		if err != nil {
			return err
		}
		call := o.Site >= 0 && (o.Index == int32(numbering.CallEdge) || o.Index == int32(numbering.ReturnEdge))
		if !call && (o.Index < 0 || (g != nil && int(o.Index) >= len(g.Edges))) {
			return fmt.Errorf("edge origin %+v outside its function", o)
		}
	}
	return nil
}

// GraphFunc returns the description of a function whose graph is g with
// preferred cuts preferred: its graph alone, the part of the metadata that
// another package needs to inline the function (the analyzers' facts), and
// that Graph and PreferredCuts read back. pppexec fills in the rest.
func GraphFunc(g *numbering.Graph, preferred []numbering.EdgeID) Func {
	f := Func{Blocks: make([]Block, g.NumBlocks), Entry: int32(g.Entry), Exit: int32(g.Exit)}
	for _, e := range g.Edges {
		f.Edges = append(f.Edges, Edge{Src: int32(e.Src), Dst: int32(e.Dst), Probe: e.Probe})
	}
	for _, id := range preferred {
		f.Preferred = append(f.Preferred, int32(id))
	}
	return f
}

// Graph returns the function's graph for the numbering package.
func (f *Func) Graph() *numbering.Graph {
	g := &numbering.Graph{NumBlocks: len(f.Blocks), Entry: numbering.BlockID(f.Entry), Exit: numbering.BlockID(f.Exit)}
	for _, e := range f.Edges {
		g.AddEdge(numbering.BlockID(e.Src), numbering.BlockID(e.Dst), e.Probe)
	}
	return g
}

// PreferredCuts returns the function's preferred cuts as the numbering's
// edge ids.
func (f *Func) PreferredCuts() []numbering.EdgeID {
	ids := make([]numbering.EdgeID, len(f.Preferred))
	for i, id := range f.Preferred {
		ids[i] = numbering.EdgeID(id)
	}
	return ids
}

// Numbering numbers the function again, as pppexec did, and checks that the
// number of paths is the same.
func (f *Func) Numbering() (*numbering.Numbering, error) {
	opts := &numbering.Options{MaxPaths: f.MaxPaths, Preferred: f.PreferredCuts()}
	for _, id := range f.Keep {
		opts.Keep = append(opts.Keep, numbering.EdgeID(id))
	}
	n, err := numbering.Number(f.Graph(), opts)
	if err != nil {
		return nil, fmt.Errorf("function %s: %w", f.Name, err)
	}
	if n.NumPaths() != f.Paths {
		return nil, fmt.Errorf("function %s: numbered %d paths, metadata says %d (another pathcover version?)", f.Name, n.NumPaths(), f.Paths)
	}
	return n, nil
}

// Placement numbers the function again and places its counters as pppexec
// placed them: on the chords of the spanning tree under the static weights
// (numbering.Numbering.Place with none given).
func (f *Func) Placement() (*numbering.Placement, error) {
	n, err := f.Numbering()
	if err != nil {
		return nil, err
	}
	p, err := n.Place(nil)
	if err != nil {
		return nil, fmt.Errorf("function %s: %w", f.Name, err)
	}
	return p, nil
}

// PathCounts reads a function's path counts out of its package's segment
// (Segment.Words, the words that are not zero): a count per Ball-Larus id,
// and the paths lost to a full hash table.
func (f *Func) PathCounts(words []Word) (counts map[uint64]uint64, lost uint64) {
	c := f.Counters
	lo := uint64(c.Offset)
	w := wordRange(words, lo, lo+uint64(c.Size))
	counts = make(map[uint64]uint64)
	switch c.Kind {
	case CounterArray:
		for _, x := range w {
			counts[x.Index-lo] = x.Value
		}
	case CounterHash, CounterPPPHash, CounterPPP:
		slots := w
		if c.Kind == CounterHash {
			// The last word counts the paths that found the table full.
			last := lo + uint64(c.Size) - 1
			if n := len(w); n > 0 && w[n-1].Index == last {
				lost, slots = w[n-1].Value, w[:n-1]
			}
		}
		pairs(slots, lo, func(key, n uint64) {
			if n != 0 && key-1 < f.Paths {
				counts[key-1] = numbering.SatAdd(counts[key-1], n)
			}
		})
	case CounterHot:
		f.hotEntries(w, lo, func(id, n, _ uint64) { counts[id] = numbering.SatAdd(counts[id], n) })
	}
	return counts, lost
}

// PathErrors reads the error bounds of a function's counts out of its
// package's segment: for a hot path table (CounterHot), each path's count
// may exceed its true count by at most its error; nil for other kinds,
// whose counts are exact.
func (f *Func) PathErrors(words []Word) map[uint64]uint64 {
	c := f.Counters
	if c.Kind != CounterHot {
		return nil
	}
	lo := uint64(c.Offset)
	errs := make(map[uint64]uint64)
	f.hotEntries(wordRange(words, lo, lo+uint64(c.Size)), lo, func(id, _, e uint64) {
		if e > 0 {
			errs[id] = numbering.SatAdd(errs[id], e)
		}
	})
	return errs
}

// hotEntries calls fn for each way of a hot path table that holds a path
// of the function with a count: its id, count and error. w are the
// table's words that are not zero, from offset lo.
func (f *Func) hotEntries(w []Word, lo uint64, fn func(id, count, err uint64)) {
	at := make(map[uint64]uint64, len(w))
	for _, x := range w {
		at[x.Index-lo] = x.Value
	}
	for way := uint64(0); way+3 <= uint64(f.Counters.Size); way += 3 {
		key, n := at[way], at[way+1]
		if key != 0 && n != 0 && key-1 < f.Paths {
			fn(key-1, n, at[way+2])
		}
	}
}

// IsInteresting reports whether path id is one of the function's
// interesting paths in a PPP build.
func (f *Func) IsInteresting(id uint64) bool {
	_, ok := slices.BinarySearch(f.Interesting, id)
	return ok
}

// HashHome is the slot where the probes for path id start in a hash table
// of n slots (CounterHash and CounterPPPHash, residual tables): package rt
// uses the same function, and pppexec lays out PPP hash tables with it, so
// the two must agree (rt's FuzzHome). The top 32 bits of a
// Fibonacci hash of id, scaled to [0, n) by a multiply and a shift rather
// than a division; for the tables of more than 2^32 slots that no build
// makes, by the remainder.
func HashHome(id, n uint64) uint64 {
	h := (id * HotMultiplier) >> 32
	if n > 1<<32 {
		return h % n
	}
	return h * n >> 32
}
