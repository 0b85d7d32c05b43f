package instrument

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/profile"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestGolden")

// goldenDir holds the inputs of TestGolden, packages example.com/p and
// example.com/q (which calls p), and the instrumented code of each mode.
const goldenDir = "testdata/golden"

// A goldenPkg is an input package of TestGolden.
type goldenPkg struct {
	path, dir string
}

var goldenP, goldenQ = goldenPkg{"example.com/p", "p"}, goldenPkg{"example.com/q", "q"}

// goldenW has go statements, function literals and a range-over-func loop,
// for the wpp mode.
var goldenW = goldenPkg{"example.com/w", "w"}

// goldenD reads and writes memory, for the deps mode; goldenV gives its
// variables values, for the wet mode.
var goldenD, goldenV = goldenPkg{"example.com/d", "d"}, goldenPkg{"example.com/v", "v"}

// TestGolden instruments small packages in every mode and compares the
// code with the golden files (go test -run TestGolden -update rewrites
// them): the exact Go that each kind of counter, PPP, tracing and the
// clones of an interprocedural build, in the package and in another, are
// written as. Each instrumented package must also type-check.
func TestGolden(t *testing.T) {
	sites := goldenSites(t)
	for _, mode := range []struct {
		name string
		cfg  Config
	}{
		{"plain", Config{}},
		{"atomic", Config{Spec: buildspec.Spec{Atomic: true}}},
		// Counters per P: each count through its view's shard function;
		// loops take their shard's view once, at the top.
		{"shard", Config{Spec: buildspec.Spec{Shard: buildspec.ShardPerP}}},
		// Per P in a PPP build: the PPP arrays are sharded too, hash tables
		// are not.
		{"ppp-shard", Config{Interesting: goldenInteresting, Spec: buildspec.Spec{Shard: buildspec.ShardPerP, PPPAlways: true, PPPSlots: 2, PPPLarge: buildspec.PPPHashTable}}},
		{"hash", Config{Spec: buildspec.Spec{MaxArrayPaths: 4, HashSlots: 8}}},
		// Hot path tables instead of hash tables, plain and atomic.
		{"hot", Config{Spec: buildspec.Spec{MaxArrayPaths: 4, HotEntries: 8}}},
		{"hot-atomic", Config{Spec: buildspec.Spec{MaxArrayPaths: 4, HotEntries: 8, Atomic: true}}},
		// The flight recorder: each function's ring, each path's entry,
		// and no counters; with the oracle's witnesses and returns.
		{"flight", Config{Spec: buildspec.Spec{Flight: 8, Trace: true}}},
		{"trace", Config{Spec: buildspec.Spec{Trace: true}}},
		// Every counter kind of a PPP build: Ball-Larus arrays (Sign's
		// paths are all interesting), PPP arrays, a hash table of the
		// interesting paths (Many's PPP numbering passes 2 slots), and none
		// (Never ran no path).
		{"ppp", Config{Interesting: goldenInteresting, Spec: buildspec.Spec{PPPAlways: true, PPPSlots: 2, PPPLarge: buildspec.PPPHashTable}}},
		// Supergraphs: Classify's call of Sign (a clone in p), and q's calls
		// of p's functions (exported clones in p, called from q).
		{"ippp", Config{Sites: sites}},
		// In a PPP build, a supergraph with untested segments counts in a
		// Ball-Larus array up to MaxArrayPaths segments; with PPPAlways,
		// in a PPP array, whose misses go to the residual tables.
		{"ippp-ppp", Config{Sites: sites, Interesting: goldenInteresting}},
		{"ippp-pppalways", Config{Sites: sites, Interesting: goldenInteresting, Spec: buildspec.Spec{PPPAlways: true}}},
		// Shared clones: Sum's two sites in Twice share one, and Sign's in
		// Classify and Twice another, each site passing its table of
		// increments; with PPP registers too.
		{"ippp-shared", Config{Sites: sites, Spec: buildspec.Spec{ShareBlocks: 1}}},
		{"ippp-shared-ppp", Config{Sites: sites, Interesting: goldenInteresting, Spec: buildspec.Spec{PPPAlways: true, ShareBlocks: 1}}},
		// Whole program paths: each function's frame, its paths' events,
		// and go statements wrapped (package w).
		{"wpp", Config{Spec: buildspec.Spec{WPP: true}}},
		// Dynamic slicing: the memory accesses of package d recorded,
		// and which returns ride on a path's record.
		{"deps", Config{Spec: buildspec.Spec{WPP: true, Deps: true}}},
		// Whole execution traces: the values of package v's variables.
		{"wet", Config{Spec: buildspec.Spec{WPP: true, Deps: true, Values: true}}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			var ar txtar.Archive
			pOut, pTypes := goldenInstrument(t, goldenP, mode.cfg, nil)
			qOut, _ := goldenInstrument(t, goldenQ, mode.cfg, pTypes)
			for _, o := range []struct {
				pkg goldenPkg
				out *goldenOutput
			}{{goldenP, pOut}, {goldenQ, qOut}} {
				ar.Files = append(ar.Files, o.out.files(o.pkg)...)
			}
			if mode.cfg.WPP {
				wOut, _ := goldenInstrument(t, goldenW, mode.cfg, nil)
				ar.Files = append(ar.Files, wOut.files(goldenW)...)
			}
			if mode.cfg.Deps && !mode.cfg.Values {
				dOut, _ := goldenInstrument(t, goldenD, mode.cfg, nil)
				ar.Files = append(ar.Files, dOut.files(goldenD)...)
			}
			if mode.cfg.Values {
				vOut, _ := goldenInstrument(t, goldenV, mode.cfg, nil)
				ar.Files = append(ar.Files, vOut.files(goldenV)...)
			}
			got := txtar.Format(&ar)
			name := filepath.Join(goldenDir, mode.name+".txtar")
			if *update {
				if err := os.WriteFile(name, got, 0o666); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(name)
			if err != nil {
				t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("instrumented code differs from %s (go test -run TestGolden -update rewrites it):\n%s", name, firstDiff(want, got))
			}
		})
	}
}

// goldenInteresting makes paths 0 and 2 of each function interesting, all
// of Sign's, none of Never's, and Sum's 0 and 3: 3 is the likely path of one
// of its loop's rounds, counted at a fixed address (likelySlotStmt), where
// the other round's likely path, 4, is not interesting.
func goldenInteresting(pkg, name string, f *profile.Func) ([]uint64, bool) {
	switch name {
	case "Sum":
		return []uint64{0, 3}, false
	case "Sign":
		var all []uint64
		for id := range f.Paths {
			all = append(all, id)
		}
		return all, false
	case "Never":
		return nil, false
	}
	var ids []uint64
	for _, id := range []uint64{0, 2} {
		if id < f.Paths {
			ids = append(ids, id)
		}
	}
	return ids, false
}

// goldenSites is the profile of a plain build of p and q in which every
// path ran, for the interprocedural modes.
func goldenSites(t *testing.T) *profile.PathsRun {
	t.Helper()
	p := profile.New()
	pOut, pTypes := goldenInstrument(t, goldenP, Config{}, nil)
	qOut, _ := goldenInstrument(t, goldenQ, Config{}, pTypes)
	for _, out := range []*Output{pOut.Output, qOut.Output} {
		if err := p.AddMeta(out.Hash, out.Meta); err != nil {
			t.Fatal(err)
		}
		m := p.Metas[out.Hash]
		for fn, f := range m.Funcs {
			for id := range f.Paths {
				p.Add(out.Hash, fn, id, 1)
			}
		}
	}
	p.Processes = 1
	return p.PathsRun()
}

// A goldenOutput is an instrumented package with the input it came from.
type goldenOutput struct {
	*Output
	in *Input
}

// files returns the package's instrumented files and its generated file,
// named under the package's directory.
func (o *goldenOutput) files(pkg goldenPkg) []txtar.File {
	var files []txtar.File
	for i, src := range o.Files {
		if src == nil {
			src = o.in.Src[i]
		}
		files = append(files, txtar.File{Name: pkg.dir + "/" + filepath.Base(o.in.Names[i]), Data: src})
	}
	return append(files, txtar.File{Name: pkg.dir + "/pathcover_generated.go", Data: o.Generated})
}

// goldenInstrument instruments package pkg, type-checked against dep for
// example.com/p, and type-checks the result (against fake rt and dep). It
// returns the instrumented package's types, for a package that imports
// it. Files are named /golden/<dir>/<file>, the same on every machine.
func goldenInstrument(t *testing.T, pkg goldenPkg, cfg Config, dep *types.Package) (*goldenOutput, *types.Package) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(goldenDir, pkg.dir, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no files in %s", pkg.dir)
	}
	in := &Input{Fset: token.NewFileSet()}
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		abs := "/golden/" + pkg.dir + "/" + filepath.Base(name)
		f, err := parser.ParseFile(in.Fset, abs, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		in.Files, in.Names, in.Src = append(in.Files, f), append(in.Names, abs), append(in.Src, src)
	}
	in.Info = &types.Info{
		Types: make(map[ast.Expr]types.TypeAndValue), Defs: make(map[*ast.Ident]types.Object),
		Uses: make(map[*ast.Ident]types.Object), Instances: make(map[*ast.Ident]types.Instance),
		Selections: make(map[*ast.SelectorExpr]*types.Selection),
	}
	imp := goldenImporter{std: importer.Default(), p: dep}
	if _, err := (&types.Config{Importer: imp}).Check(pkg.path, in.Fset, in.Files, in.Info); err != nil {
		t.Fatal(err)
	}
	cfg.Package, cfg.RuntimePath = pkg.path, "pathcover.invalid/rt"
	out, err := Package(in, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Skipped) > 0 {
		t.Fatalf("%s: skipped %v", pkg.path, out.Skipped)
	}
	// The instrumented package type-checks.
	fset := token.NewFileSet()
	rtFile, _ := parser.ParseFile(fset, "rt.go", fakeRuntime, 0)
	// rt's own go statement helpers, which the generated file calls.
	goFile, err := parser.ParseFile(fset, "../../rt/wppgo.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	rtPkg, err := (&types.Config{}).Check("pathcover.invalid/rt", fset, []*ast.File{rtFile, goFile}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := &goldenOutput{out, in}
	var files []*ast.File
	for _, f := range o.files(pkg) {
		af, err := parser.ParseFile(fset, f.Name, f.Data, 0)
		if err != nil {
			t.Fatalf("%s does not parse: %v\n%s", f.Name, err, f.Data)
		}
		files = append(files, af)
	}
	imp.rt = rtPkg
	typ, err := (&types.Config{Importer: imp}).Check(pkg.path, fset, files, nil)
	if err != nil {
		t.Fatalf("instrumented %s does not type-check: %v", pkg.path, err)
	}
	return o, typ
}

// goldenImporter imports the standard library, fake rt and, for q, p.
type goldenImporter struct {
	std   types.Importer
	rt, p *types.Package
}

func (g goldenImporter) Import(path string) (*types.Package, error) {
	switch {
	case path == "pathcover.invalid/rt" && g.rt != nil:
		return g.rt, nil
	case path == goldenP.path && g.p != nil:
		return g.p, nil
	}
	return g.std.Import(path)
}

// firstDiff describes the first line where got differs from want.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, wl, gl)
		}
	}
	return ""
}
