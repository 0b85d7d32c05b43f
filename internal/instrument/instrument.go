package instrument

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/profile"
)

// Config says how to instrument one package.
type Config struct {
	// Spec is what the build instruments and records; its PPPProfile
	// and IPPPProfile are not read here: Interesting and Sites below are
	// those profiles, loaded.
	buildspec.Spec
	// Package is the import path recorded in the metadata; pppexec passes
	// TOOLEXEC_IMPORTPATH, which tells test variants apart.
	Package string
	// Symbols is the compile's -p flag, what the package's symbols are
	// named by, recorded in the metadata (profile.Meta.Symbols) where it
	// is not Package's path: "main" for a command's main package.
	Symbols string
	// RuntimePath is the import path under which rt is compiled.
	RuntimePath string
	// DefaultDir is where counts go when $PATHCOVERDIR is not set; empty
	// for nowhere.
	DefaultDir string
	// Interesting, when set, makes a PPP build (see layout.go): it returns
	// the Ball-Larus ids of a function's interesting paths, given its
	// package's import path, its name and its metadata without counters,
	// and whether the profile it comes from has only another version of the
	// function.
	Interesting func(pkg, name string, f *profile.Func) (ids []uint64, stale bool)
	// Sites, when set, makes an interprocedural build (see supergraph.go):
	// the paths of the profile that chooses the call sites.
	Sites *profile.PathsRun
}

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
	// Package and AllFiles are the type-checked package and every file it
	// was checked from (tests and generated files too): from them, its
	// SSA form proves paths infeasible (feasibility.go). Without them, no
	// function is analysed.
	Package  *types.Package
	AllFiles []*ast.File
	// NoReturn reports functions that never return, as the analyzer's
	// ctrlflow facts do; it may be nil.
	NoReturn func(*types.Func) bool
	// Lang is the package's language version (the compile's -lang, as
	// go1.21), empty if not known.
	Lang string
	// FileLang, when it is newer than Lang, is the language version every
	// rewritten file and the generated file are compiled at instead: each
	// is given a //go:build line that says it (see fileVersion).
	FileLang string
}

// lang is the language version that the code pppexec writes is compiled
// at.
func (in *Input) lang() string {
	if in.Lang != "" && in.FileLang != "" && version.Compare(in.FileLang, in.Lang) > 0 {
		return in.FileLang
	}
	return in.Lang
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
	Funcs     int // functions instrumented
	// Clones are the clones an interprocedural build made: one per site
	// that has its own, and one per shared clone; SharedSites is the
	// number of sites that share the SharedClones among them.
	Clones, SharedClones, SharedSites int
	Skipped                           []Skip // functions left as they were
}

// A Skip is a function left uninstrumented, or a supergraph not made, and
// why.
type Skip struct {
	Func   string
	Reason error
}

// Package instruments a package, in stages:
//
//  1. number its functions and describe them in the metadata
//     (functions.go), each with its counters laid out (layout.go) and the
//     paths proved infeasible (feasibility.go);
//  2. in an interprocedural build, make the supergraphs of its callers and
//     of other packages' callers of its functions (supergraph.go);
//  3. write each function's code into its file (codegen.go) through an
//     editor of the file (edit.go), and the clones of callees that the
//     supergraphs' sites call (clone.go);
//  4. write the generated file, which registers the counters with rt
//     (generated.go), and the metadata.
func Package(in *Input, cfg *Config) (*Output, error) {
	cfg.SetDefaults()
	spec := cfg.spec()
	if err := spec.Check(); err != nil { // what pppexec's flags refuse
		return nil, err
	}
	if len(in.Files) == 0 {
		return nil, errors.New("no files")
	}
	graphs, err := funcgraph.BuildFiles(in.Files, &funcgraph.Config{Info: in.Info, NoReturn: in.NoReturn})
	if err != nil {
		return nil, err
	}
	mode := profile.ModeBallLarus
	if cfg.Interesting != nil {
		mode = profile.ModePPP
	}
	b := &builder{
		in: in, cfg: cfg,
		meta:     &profile.Meta{Format: profile.MetaFormat, Package: cfg.Package, Symbols: symbols(cfg), Mode: mode, Atomic: cfg.Atomic, Records: spec.Records(), Files: in.Names, Sums: in.Sums},
		out:      &Output{Files: make([][]byte, len(in.Files))},
		byObj:    make(map[*types.Func]*function),
		byName:   make(map[string]*function),
		goShapes: make(map[goShape]bool),
	}
	b.number(graphs)
	b.analyzeFeasibility()
	if cfg.Sites != nil {
		b.addSupergraphs()
		b.shared = b.shareClones()
	}
	if err := b.rewrite(); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(b.meta)
	if err != nil {
		return nil, err
	}
	out := b.out
	out.Meta, out.Hash = raw, profile.Hash(raw)
	// The binary carries the metadata file compressed, and rt writes it
	// as it is (profile.CompressMeta).
	out.Generated = generatedFile(in.Files[0].Name.Name, out.Hash, profile.CompressMeta(raw), b.meta, b.init, cfg)
	if in.lang() != in.Lang {
		out.Generated = append([]byte(fileVersion(in.lang())), out.Generated...)
	}
	if cfg.WPP {
		out.Generated = append(out.Generated, wppDecls(out.Hash, cfg.WPPLimit, len(b.meta.Funcs), b.goShapes)...)
	}
	if cfg.Deps && memoryAllowed(in.lang()) {
		out.Generated = append(out.Generated, depsDecls...)
		if cfg.Values {
			out.Generated = append(out.Generated, valueDecls...)
		}
	}
	for _, s := range b.superDecls {
		out.Generated = append(out.Generated, s...)
	}
	return out, nil
}

// spec is the build's Spec with the PPP and IPPP profiles as the package
// is given them: loaded, not named.
func (cfg *Config) spec() buildspec.Spec {
	spec := cfg.Spec
	spec.PPPProfile, spec.IPPPProfile = "", ""
	if cfg.Interesting != nil {
		spec.PPPProfile = "(loaded)"
	}
	if cfg.Sites != nil {
		spec.IPPPProfile = "(loaded)"
	}
	return spec
}

// A builder instruments one package.
type builder struct {
	in   *Input
	cfg  *Config
	meta *profile.Meta
	init []uint64 // pairs (word, value) that Register stores
	out  *Output
	// funcs are the package's functions that were numbered, in the
	// metadata's order.
	funcs  []*function
	byObj  map[*types.Func]*function
	byName map[string]*function // declared functions, by funcgraph.ObjectName
	// foreign are the supergraphs of callers in other packages whose
	// clones of this package's functions this compile makes.
	foreign []*super
	// superDecls are the sink functions of supergraphs and the tables of
	// the sites that share clones, for the generated file.
	superDecls [][]byte
	// shared are the clones that sites share (shared.go).
	shared []*sharedClone
	// goShapes are the shapes of the go statements rewritten in a -wpp
	// build, whose helpers the generated file defines.
	goShapes map[goShape]bool
	// positions gives positions as the metadata has them.
	positions *positioner
}

// rewrite writes the code of every function into its file, with its
// supergraph's code if it is a caller, and the clones of callees after
// their files.
func (b *builder) rewrite() error {
	in := b.in
	edits := make([]*editor, len(in.Files))
	clones := make([][]byte, len(in.Files))
	addClones := func(s *super) error {
		for i, site := range s.sites {
			if site.callee == nil || site.table != "" {
				continue // in another package, or shared
			}
			src, err := s.clone(i, in, b.funcs, &b.cfg.Spec)
			if err != nil {
				return err
			}
			b.out.Clones++
			clones[site.callee.file] = append(clones[site.callee.file], src...)
		}
		return nil
	}
	for _, u := range b.funcs {
		if edits[u.file] == nil {
			edits[u.file] = newEditor(in.Fset, in.Files[u.file], in.Src[u.file])
		}
		if b.cfg.WPP {
			u.returns = u.pathReturns(in.Info)
		}
		if b.cfg.Flight > 0 && !b.cfg.Atomic {
			u.ct.flight = planFlightPositions(u, in.Info)
		}
		if err := u.emit(edits[u.file], &b.cfg.Spec, true); err != nil {
			return err
		}
		if b.cfg.WPP {
			u.emitWPP(edits[u.file], in.Info, in.lang(), b.goShapes)
		}
		if b.cfg.Deps && memoryAllowed(in.lang()) {
			u.emitMemory(edits[u.file], in.Info, in.Src[u.file])
			if b.cfg.Values {
				u.recordValues(edits[u.file], in.Info, b.meta.Funcs[u.meta].Deps, b.positions.Position)
			}
		}
		if s := u.super; s != nil {
			if err := addClones(s); err != nil {
				return err
			}
			if s.frame {
				b.superDecls = append(b.superDecls, sinkDecl(s.ct, &b.cfg.Spec, s.sharedArray()))
			}
		}
	}
	for _, s := range b.foreign {
		if err := addClones(s); err != nil {
			return err
		}
	}
	for _, sc := range b.shared {
		src, err := sc.source(in, b.funcs, &b.cfg.Spec)
		if err != nil {
			return err
		}
		clones[sc.callee.file] = append(clones[sc.callee.file], src...)
		b.superDecls = append(b.superDecls, sc.tableDecls())
		b.out.Clones++
		b.out.SharedClones++
		b.out.SharedSites += len(sc.contexts)
	}
	for i, e := range edits {
		if e == nil && clones[i] != nil {
			e = newEditor(in.Fset, in.Files[i], in.Src[i])
		}
		if e != nil {
			// A file whose //go:build line raises it further already
			// compiles at a version the helpers need, and would be
			// lowered by one more line.
			if in.lang() != in.Lang && version.Compare(in.Files[i].GoVersion, in.lang()) < 0 {
				e.insertAt(in.Files[i].Package, phaseDecl, 0, fileVersion(in.lang()))
			}
			b.out.Files[i] = append(e.apply(), clones[i]...)
		}
	}
	return nil
}

// symbols is the metadata's Symbols: the compile's -p where it is not the
// package's import path.
func symbols(cfg *Config) string {
	if cfg.Symbols == "" || cfg.Symbols == profile.PackagePath(cfg.Package) {
		return ""
	}
	return cfg.Symbols
}
