package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/internal/oracle/nesting"
	"github.com/pathcover/pathcover/profile"
)

// load parses and type-checks the package in dir.
func load(t *testing.T, dir string) *Input {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no files in %s", dir)
	}
	in := &Input{Fset: token.NewFileSet()}
	for _, name := range names {
		abs, _ := filepath.Abs(name)
		src, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(in.Fset, abs, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		in.Files = append(in.Files, f)
		in.Names = append(in.Names, abs)
		in.Src = append(in.Src, src)
	}
	in.Info = &types.Info{
		Types: make(map[ast.Expr]types.TypeAndValue), Defs: make(map[*ast.Ident]types.Object),
		Uses: make(map[*ast.Ident]types.Object), Instances: make(map[*ast.Ident]types.Instance),
	}
	conf := types.Config{Importer: importer.Default()}
	if _, err := conf.Check(in.Files[0].Name.Name, in.Fset, in.Files, in.Info); err != nil {
		t.Fatal(err)
	}
	return in
}

// fakeRuntime stands for rt when type-checking instrumented code.
const fakeRuntime = `package rt
type Residuals struct{}
func (*Residuals) Count(fn int, bl uint64) {}
func (*Residuals) CountPlain(fn int, bl uint64) {}
func (*Residuals) Share(heads []ResidualHead) bool { return true }
type ResidualHead struct{}
func (*ResidualHead) Slot(bl uint64) *uint64 { return nil }
func Register(hash, meta string, words int, init []uint64, funcs int, dir string) ([]uint64, *Residuals) { return make([]uint64, words), nil }
const StaticPad = 8192
func RegisterStatic(hash, meta string, words int, init []uint64, funcs int, dir string, w []uint64) ([]uint64, *Residuals) { return w[StaticPad:StaticPad+words], nil }
func RegisterShards(hash, meta string, words int, init []uint64, funcs int, dir string) ([]uint64, *Residuals, uintptr, uintptr) { return make([]uint64, words), nil, 0, 0 }
func ShardOffset(mask, stride uintptr) uintptr { return 0 }
func CountKnown(table []uint64, bl uint64) bool { return false }
func Add(c *uint64) {}
func CountHashed(table []uint64, id uint64) {}
func CountHot(table []uint64, id uint64) {}
func CountHotAtomic(table []uint64, id uint64) {}
type FlightRing struct{}
func (*FlightRing) Put(v uint64) {}
func (*FlightRing) PutLong(code, id uint64) {}
func Ring() *FlightRing { return nil }
func FlightRegister(hash, meta string, funcs, entries int, limit int64, dir string) uint64 { return 0 }
func TraceEnter(hash string, fn int) uint64 { return 0 }
func TraceEdge(inv uint64, e int) {}
func TraceReturn(inv uint64) {}
type WPPFrame struct{}
func (WPPFrame) Path(id uint64) {}
func (WPPFrame) TryPath(id uint64) bool { return true }
func (WPPFrame) PathReturn(id uint64) {}
func (WPPFrame) TryPathReturn(id uint64) bool { return true }
func (WPPFrame) Return() {}
func (WPPFrame) TryReturn() bool { return true }
func (WPPFrame) Spawn() uint64 { return 0 }
type WPPCode uint64
func (WPPCode) TryEnter() (WPPFrame, bool) { return WPPFrame{}, true }
func (WPPCode) Enter() WPPFrame { return WPPFrame{} }
func WPPRegister(hash string, limit int64, funcs int) []WPPCode { return make([]WPPCode, funcs) }
func Access[T any](f WPPFrame, op uint64, p *T) *T { return p }
type MapEntry[K comparable] struct{}
func (e MapEntry[K]) Key(k K) K { return k }
func MapOf[M ~map[K]V, K comparable, V any](f WPPFrame, op uint64, m M) MapEntry[K] { return MapEntry[K]{} }
func Send[E any](f WPPFrame, op uint64, c chan<- E) chan<- E { return c }
func Recv[E any](f WPPFrame, op uint64, c <-chan E) <-chan E { return c }
func Chan[C any](f WPPFrame, op uint64, c C) {}
func Copy[E any](f WPPFrame, op uint64, dst, src []E) int { return 0 }
func CopyString(f WPPFrame, op uint64, dst []byte, src string) int { return 0 }
func Append[S ~[]E, E any](f WPPFrame, op uint64, old, s S) S { return s }
func Made[S ~[]E, E any](f WPPFrame, op uint64, s S) S { return s }
func Elems[S ~[]E, E any](f WPPFrame, op uint64, s S) S { return s }
func ValueInt[T ~int | ~int8 | ~int16 | ~int32 | ~int64](f WPPFrame, op uint64, v T) bool { return true }
func ValueUint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](f WPPFrame, op uint64, v T) bool { return true }
func ValueFloat[T ~float32 | ~float64](f WPPFrame, op uint64, v T) bool { return true }
func ValueComplex[T ~complex64 | ~complex128](f WPPFrame, op uint64, v T) bool { return true }
func ValueBool[T ~bool](f WPPFrame, op uint64, v T) bool { return true }
func ValueString[T ~string](f WPPFrame, op uint64, v T) bool { return true }
func ValueSlice[S ~[]E, E any](f WPPFrame, op uint64, v S) bool { return true }
func ValueText[T ~string](f WPPFrame, op uint64, v T) bool  { return true }
func ValueBytes[S ~[]E, E ~byte](f WPPFrame, op uint64, v S) bool { return true }
func ValueWord[T any](f WPPFrame, op uint64, v T) bool { return true }
func ValueIface[T any](f WPPFrame, op uint64, v T) bool { return true }
func wppStart(s uint64) {}
`

type fakeImporter struct {
	std types.Importer
	rt  *types.Package
}

func (f fakeImporter) Import(path string) (*types.Package, error) {
	if path == "pathcover.invalid/rt" {
		return f.rt, nil
	}
	return f.std.Import(path)
}

// TestRewrite instruments the constructs package (in array, hash and atomic
// modes) and checks that the result type-checks and that every token of
// the original keeps its position.
func TestRewrite(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{Spec: buildspec.Spec{Atomic: true}},
		{Spec: buildspec.Spec{MaxArrayPaths: 2, HashSlots: 8}},
		{Spec: buildspec.Spec{Trace: true}},
		{Interesting: someInteresting},
		{Interesting: someInteresting, Spec: buildspec.Spec{PPPAlways: true}},
		{Interesting: someInteresting, Spec: buildspec.Spec{PPPAlways: true, Atomic: true, PPPSlots: 2}},
		{Interesting: someInteresting, Spec: buildspec.Spec{PPPAlways: true, PPPSlots: 2, PPPLarge: buildspec.PPPHashTable}},
	} {
		in := load(t, "../../testdata/src/constructs")
		out := checkRewrite(t, in, cfg)
		if len(out.Skipped) > 0 || out.Funcs < 39 {
			t.Fatalf("%d functions instrumented, skipped %v", out.Funcs, out.Skipped)
		}
		meta, err := profile.ParseMeta(out.Meta)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[profile.CounterKind]int{}
		for _, f := range meta.Funcs {
			kinds[f.Counters.Kind]++
		}
		want := []profile.CounterKind{profile.CounterArray}
		switch {
		case cfg.Interesting != nil && cfg.PPPLarge == buildspec.PPPHashTable:
			want = []profile.CounterKind{profile.CounterArray, profile.CounterNone, profile.CounterPPP, profile.CounterPPPHash}
		case cfg.Interesting != nil && cfg.PPPAlways:
			want = []profile.CounterKind{profile.CounterArray, profile.CounterNone, profile.CounterPPP}
		case cfg.Interesting != nil:
			want = []profile.CounterKind{profile.CounterArray, profile.CounterNone}
		}
		for _, k := range want {
			if kinds[k] == 0 {
				t.Errorf("%+v: no function with %s counters: %v", cfg, k, kinds)
			}
		}
	}
}

// TestRewriteNesting instruments the oracle's program of nested constructs
// (package internal/oracle/nesting) and checks it as TestRewrite does.
func TestRewriteNesting(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "generated.go"), nesting.Program(), 0o666); err != nil {
		t.Fatal(err)
	}
	out := checkRewrite(t, load(t, dir), Config{Spec: buildspec.Spec{Trace: true}})
	if want := len(nesting.Funcs()); out.Funcs < want || len(out.Skipped) > 0 {
		t.Errorf("%d functions instrumented, want at least %d; skipped %v", out.Funcs, want, out.Skipped)
	}
}

// TestRewriteLineDirectives instruments a generated file with line
// directives in every form (see testdata/linedirectives) and checks it as
// TestRewrite does: the rewritten file must compile, and every token keep
// its line, its column or the lack of one, and its file name as written.
func TestRewriteLineDirectives(t *testing.T) {
	for _, cfg := range []Config{{}, {Spec: buildspec.Spec{Trace: true}}} {
		out := checkRewrite(t, load(t, "../../testdata/linedirectives/lines"), cfg)
		if out.Funcs < 8 || len(out.Skipped) > 0 {
			t.Errorf("%d functions instrumented; skipped %v", out.Funcs, out.Skipped)
		}
	}
}

// checkRewrite instruments in with cfg and checks that the result
// type-checks and that every token of the original keeps its position.
func checkRewrite(t *testing.T, in *Input, cfg Config) *Output {
	t.Helper()
	cfg.Package, cfg.RuntimePath = "constructs", "pathcover.invalid/rt"
	out, err := Package(in, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	rtFile, _ := parser.ParseFile(fset, "rt.go", fakeRuntime, 0)
	rtPkg, err := (&types.Config{}).Check("pathcover.invalid/rt", fset, []*ast.File{rtFile}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for i, src := range out.Files {
		if src == nil {
			src = in.Src[i]
		}
		f, err := parser.ParseFile(fset, in.Names[i]+".rewritten", src, parser.ParseComments)
		if err != nil {
			t.Fatalf("%+v: rewritten %s does not parse: %v\n%s", cfg, in.Names[i], err, src)
		}
		files = append(files, f)
		checkPositions(t, in.Names[i], in.Src[i], src)
	}
	gen, err := parser.ParseFile(fset, "pathcover_generated.go", out.Generated, 0)
	if err != nil {
		t.Fatalf("generated file: %v\n%s", err, out.Generated)
	}
	files = append(files, gen)
	conf := types.Config{Importer: fakeImporter{importer.Default(), rtPkg}}
	if _, err := conf.Check(in.Files[0].Name.Name, fset, files, nil); err != nil {
		t.Fatalf("%+v: instrumented package does not type-check: %v", cfg, err)
	}
	return out
}

// someInteresting makes every third path of a function interesting, and
// all paths of every fifth function (by name length), for a PPP build that
// has all kinds of counters.
func someInteresting(pkg, name string, f *profile.Func) ([]uint64, bool) {
	var ids []uint64
	for id := uint64(0); id < min(f.Paths, 1000); id++ {
		if id%3 == 0 || len(name)%5 == 0 {
			ids = append(ids, id)
		}
	}
	return ids, len(name)%7 == 0
}

// checkPositions scans the original and the rewritten file and checks that
// each token of the original appears in the rewritten one, in order, at the
// same file, line and column once line directives are applied, and with the
// same file name as written in the directive in force (go/token makes
// relative names absolute; the compiler keeps them as they are).
func checkPositions(t *testing.T, name string, orig, rewritten []byte) {
	t.Helper()
	type tok struct {
		pos  token.Position
		text string
		raw  string // the file name as written
	}
	scan := func(src []byte) []tok {
		fset := token.NewFileSet()
		file := fset.AddFile(name, -1, len(src))
		var s scanner.Scanner
		s.Init(file, src, nil, 0)
		dirs := lineDirectives(src)
		raw := name
		var toks []tok
		for {
			pos, kind, lit := s.Scan()
			if kind == token.EOF {
				return toks
			}
			if kind == token.SEMICOLON && lit == "\n" {
				continue
			}
			text := lit
			if text == "" {
				text = kind.String()
			}
			p := fset.Position(pos)
			for len(dirs) > 0 && dirs[0].offset <= p.Offset {
				raw, dirs = dirs[0].name, dirs[1:]
			}
			p.Offset = 0 // bytes move; lines and columns must not
			toks = append(toks, tok{p, text, raw})
		}
	}
	want, got := scan(orig), scan(rewritten)
	i := 0
	for _, w := range want {
		for i < len(got) && (got[i].text != w.text || got[i].pos != w.pos) {
			i++ // inserted tokens
		}
		if i == len(got) {
			t.Fatalf("%s: token %q at %v lost its position", filepath.Base(name), w.text, w.pos)
		}
		if got[i].raw != w.raw {
			t.Fatalf("%s: token %q at %v is in file %q as written, want %q", filepath.Base(name), w.text, w.pos, got[i].raw, w.raw)
		}
		i++
	}
	if !strings.HasPrefix(string(rewritten), "//line "+name+":1:1\n") {
		t.Errorf("%s: rewritten file does not start with a line directive", name)
	}
}
