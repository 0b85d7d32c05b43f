package export

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/pathcover/pathcover/internal/report"
)

// The formats but SARIF list coverage by source file, each with its
// functions in source order, their statement units and decisions.

// A file is one source file of the report.
type file struct {
	pkg   string // the package's import path
	name  string // as the profile records it: an absolute path, unless the build trimmed it
	funcs []*function
}

// goName is the file's name as cmd/cover writes it: the package's import
// path and the file's base name, or the whole name for a package named by
// files on the command line (cover's "local" packages).
func (f *file) goName() string {
	if f.pkg == "command-line-arguments" {
		return f.name
	}
	return f.pkg + "/" + filepath.Base(f.name)
}

// A function is a reported function with what the formats need of it.
type function struct {
	*report.Func
	calls     uint64
	units     []report.Unit
	decisions []report.Decision
}

// files returns the report's files, sorted by package and name, and their
// functions (not the supergraphs of an interprocedural build, which are no
// functions of the source). A function whose counts cannot be decoded is
// an error: an export has no place to say that its figures lack some.
func files(r *report.Report, opt *Options) ([]*file, error) {
	var out []*file
	for _, pkg := range r.Packages {
		byName := make(map[string]*file)
		for _, f := range pkg.Funcs {
			fn := &function{Func: f}
			var err error
			if fn.calls, err = f.Calls(); err != nil {
				return nil, err
			}
			if fn.units, err = f.Units(); err != nil {
				return nil, err
			}
			if fn.decisions, err = f.Decisions(); err != nil {
				return nil, err
			}
			fl := byName[f.File]
			if fl == nil {
				fl = &file{pkg: pkg.Path, name: f.File}
				byName[f.File] = fl
				out = append(out, fl)
			}
			fl.funcs = append(fl.funcs, fn)
		}
	}
	slices.SortFunc(out, func(a, b *file) int {
		return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.name, b.name))
	})
	for _, fl := range out {
		slices.SortStableFunc(fl.funcs, func(a, b *function) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Name, b.Name))
		})
	}
	return out, nil
}

// A line is one source line's coverage: the runs of the code it starts
// with, and the function that code is in.
type line struct {
	number int
	count  uint64
	fn     *function
	unit   *report.Unit // of fn's units, the one the line counts as
}

// lines gives coverage by line, which LCOV and Cobertura want, from cover's
// units, which span parts of lines and nest: a function literal's units lie
// inside its enclosing function's, and a unit that ends in an if, for,
// switch or block spans the units of their bodies. A line is counted as
// its first code is, as go tool cover -html colours it: by the innermost
// unit that covers the line's first column (what a line continues), or
// else by the unit that starts leftmost on it (the first unit of a
// function declared on that line, say). So an if's line counts the
// condition's runs, the lines of its body the body's, and a line of a
// function literal the literal's. Every line that a unit spans is listed,
// blank lines and comments within a block included, since no unit tells
// where its statements are; Go's coverage converters do the same.
func (f *file) lines() []line {
	best := make(map[int]line)
	bestUnit := make(map[int]*report.Unit)
	for _, fn := range f.funcs {
		for i := range fn.units {
			u := &fn.units[i]
			for n := u.Line; n <= u.EndLine; n++ {
				if n == u.EndLine && u.EndCol <= 1 {
					break // the unit ends before the line begins
				}
				if old := bestUnit[n]; old == nil || firstOnLine(n, u, old) {
					bestUnit[n] = u
					best[n] = line{number: n, count: u.Count, fn: fn, unit: u}
				}
			}
		}
	}
	out := make([]line, 0, len(best))
	for _, l := range best {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b line) int { return cmp.Compare(a.number, b.number) })
	return out
}

// firstOnLine says whether unit u, rather than v, counts for line n (see
// lines): both cover part of it.
func firstOnLine(n int, u, v *report.Unit) bool {
	uc, vc := coversStart(n, u), coversStart(n, v)
	switch {
	case uc != vc:
		return uc
	case uc:
		// Both go on from before the line: the inner one, which starts
		// later, or ends sooner.
		if c := comparePos(u.Line, u.Col, v.Line, v.Col); c != 0 {
			return c > 0
		}
		return comparePos(u.EndLine, u.EndCol, v.EndLine, v.EndCol) < 0
	}
	// Both start on the line: the leftmost, then the inner one.
	if u.Col != v.Col {
		return u.Col < v.Col
	}
	return comparePos(u.EndLine, u.EndCol, v.EndLine, v.EndCol) < 0
}

// coversStart says whether unit u covers the first column of line n.
func coversStart(n int, u *report.Unit) bool {
	return comparePos(u.Line, u.Col, n, 1) <= 0 && comparePos(u.EndLine, u.EndCol, n, 1) > 0
}

func comparePos(line1, col1, line2, col2 int) int {
	return cmp.Or(cmp.Compare(line1, line2), cmp.Compare(col1, col2))
}

// decisions returns the file's decisions in the order of their lines.
func (f *file) decisions() []report.Decision {
	var ds []report.Decision
	for _, fn := range f.funcs {
		ds = append(ds, fn.decisions...)
	}
	slices.SortStableFunc(ds, func(a, b report.Decision) int { return cmp.Compare(a.Line, b.Line) })
	return ds
}

// decisionsByLine returns the file's decisions by the line they are on.
func (f *file) decisionsByLine() map[int][]report.Decision {
	by := make(map[int][]report.Decision)
	for _, d := range f.decisions() {
		by[d.Line] = append(by[d.Line], d)
	}
	return by
}
