package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/pkgpattern"
	"github.com/pathcover/pathcover/internal/source"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A Coverage is a fraction: Covered of Total. Sums saturate at
// math.MaxUint64 (four functions of 2^62 paths pass it): Saturated says
// that Total, and maybe Covered, stopped there, so that the true fraction
// is smaller than Percent, and Covered at least what it says.
type Coverage struct {
	Covered   uint64
	Total     uint64
	Saturated bool
	// Bound says that Total is an upper bound: of the paths not proved
	// infeasible, when there were too many contradictions to count the
	// paths that avoid them exactly. The true fraction is at least Percent.
	Bound bool
}

// Percent returns the coverage in percent, 100 for nothing to cover (which
// reports show as such, not as a percentage).
func (c Coverage) Percent() float64 {
	if c.Total == 0 {
		return 100
	}
	return 100 * float64(c.Covered) / float64(c.Total)
}

func (c *Coverage) add(d Coverage) {
	covered, total := numbering.SatAdd(c.Covered, d.Covered), numbering.SatAdd(c.Total, d.Total)
	c.Saturated = c.Saturated || d.Saturated || total == math.MaxUint64 || covered == math.MaxUint64
	c.Bound = c.Bound || d.Bound
	c.Covered, c.Total = covered, total
}

// MarshalJSON adds the percentage, for something to cover.
func (c Coverage) MarshalJSON() ([]byte, error) {
	var percent *float64
	if c.Total > 0 {
		p := c.Percent()
		percent = &p
	}
	return json.Marshal(struct {
		Covered, Total uint64
		Percent        *float64 `json:",omitempty"`
		Saturated      bool     `json:",omitempty"`
		Bound          bool     `json:",omitempty"`
	}{c.Covered, c.Total, percent, c.Saturated, c.Bound})
}

// A Report is the path coverage of the packages in a profile.
type Report struct {
	Packages []*Package
	Paths    Coverage // over all functions
	// Feasible is over the paths not proved infeasible (Func.Feasible).
	Feasible   Coverage
	Statements Coverage // as go test -cover counts them
	// Segments are over all supergraphs of an interprocedural build: the
	// interprocedural path segments that ran, out of all.
	Segments  Coverage `json:",omitzero"`
	Processes int      // counter files read
}

// A Package is one package, its test variants merged.
type Package struct {
	Path       string
	Funcs      []*Func // worst covered first
	Paths      Coverage
	Feasible   Coverage
	Statements Coverage
	// Supergraphs are, in an interprocedural build, the callers with the
	// callees of their call sites inlined (profile.Super), worst covered
	// first; their paths are interprocedural path segments. They are not
	// in Funcs, Paths or the report's Paths.
	Supergraphs []*Func  `json:",omitempty"`
	Segments    Coverage `json:",omitzero"`
	// TestFuncs are the functions of the package's _test.go files, which
	// a -deps or -wet build instruments (a slice often starts in a
	// test) and go test -cover does not count: they are not in Funcs,
	// nor in any coverage of the package or the report, so that the
	// same tests give the same figures with each build; paths, tests
	// and affected still find them.
	TestFuncs []*Func `json:",omitempty"`
}

// A Func is one function's path coverage: numbered paths run, out of all.
type Func struct {
	Package string
	Name    string
	File    string
	Line    int
	EndLine int
	Paths   Coverage
	// Feasible is the coverage of the paths not proved infeasible: those
	// that ran, of all but the Infeasible ones. It is Paths when the
	// function was not analysed.
	Feasible   Coverage
	Infeasible Infeasibility
	// Acyclic is the exact number of acyclic paths, which is Paths.Total
	// unless the function has so many that it was cut to number them.
	Acyclic string
	// Lost counts runs that found the function's hash table full.
	Lost uint64
	// Estimated says the function was counted in a hot path table
	// (pppexec -hot): its counts are estimates, each within [count -
	// error, count] of the truth (Path.Error), and paths the table
	// replaced are missing from it, so its coverage is a lower bound.
	Estimated bool `json:",omitempty"`
	// OtherBuilds counts the other versions of the function (another
	// graph: the source changed between runs into one profile) that the
	// profile holds and the report leaves out, counts and statements.
	OtherBuilds int `json:",omitempty"`

	counts    map[uint64]uint64
	errors    map[uint64]uint64 // of an Estimated function's counts
	meta      *profile.Func     // a PPP build's if any, for its interesting paths
	ppp       bool
	numbering *numbering.Numbering
	pkgMeta   *profile.Meta // for a supergraph, its callers' and callees' files
	sum       string        // profile.Meta.Sums of its file, if recorded
	builds    []build       // the metadata functions it is, counts added up
	proof     *proof        // what every build proved, if each was analysed
	// tests[id][group] counts the runs of path id by each group of tests
	// (groups), if the profile attributes them (tests.go).
	tests        map[uint64]map[int]uint64
	groups       []profile.TestGroup
	unattributed bool
}

// Options say what Build reports.
type Options struct {
	// Packages are the packages reported; nil means all.
	Packages *pkgpattern.Set
	// Sources, if set, reads the source files, to tell which of several
	// builds of a function in one profile is the source's current one.
	Sources *source.Files
}

// Build builds the report of the packages of p that opt selects (all, if
// opt is nil). A function that cannot be numbered again from its metadata
// is left out with an error.
//
// A function is known by its package, file and name (and, for func _,
// which may be declared more than once, its place among them). The
// metadata of
// several builds (a package and its test variant, a plain and a PPP build)
// describe it alike and their counts add up; but when the source changed
// between two runs into one profile, it has several versions, another
// graph each, whose path ids mean different paths. Then one version is
// reported, the first of: the one compiled from the source as it is now
// (by its Sums), the one whose metadata file is newest, the one whose
// metadata hash sorts last; the others are left out, and an error says so.
//
// With opt.Sources, the builds compiled from the source as it is now also
// say where a function is (it may have moved with its graph unchanged), and
// which functions are gone: one that a build of its file compiled from
// today's source lacks is left out, and an error names it. An error also
// names the functions reported from builds whose source is not today's,
// in a file that several builds in the profile describe.
func Build(p *profile.Profile, opt *Options) (*Report, []error) {
	if opt == nil {
		opt = &Options{}
	}
	r := &Report{Processes: p.Processes}
	var errs []error
	// nth tells apart functions of one name in one file: func _() may be
	// declared more than once.
	type funcKey struct {
		pkg, file, name string
		nth             int
	}
	versions := make(map[funcKey][]*version)
	// fileBuilds[package, file] are the source sums of the builds that
	// describe the file; today[file] is its source's sum now, "" if
	// unknown.
	fileBuilds := make(map[[2]string]map[string]bool)
	today := make(map[string]string)
	for _, hash := range sortedKeys(p.Metas) {
		m := p.Metas[hash]
		path := profile.PackagePath(m.Package)
		if !opt.Packages.Match(m.Package) {
			continue
		}
		for fi, file := range m.Files {
			k := [2]string{path, file}
			if fileBuilds[k] == nil {
				fileBuilds[k] = make(map[string]bool)
			}
			if len(m.Sums) > 0 && m.Sums[fi] != "" { // none for a //line file
				fileBuilds[k][m.Sums[fi]] = true
			}
			if _, ok := today[file]; !ok {
				today[file] = ""
				if opt.Sources != nil {
					if data, err := opt.Sources.ReadFile(file); err == nil {
						today[file] = profile.Hash(data)
					}
				}
			}
		}
		seen := make(map[funcKey]int)
		for i := range m.Funcs {
			mf := &m.Funcs[i]
			key := funcKey{pkg: path, file: m.Files[mf.File], name: mf.Name}
			key.nth = seen[key]
			seen[funcKey{pkg: path, file: key.file, name: key.name}]++
			n, err := mf.Numbering()
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", m.Package, err))
				continue
			}
			shape := mf.Shape()
			vs := versions[key]
			j := slices.IndexFunc(vs, func(v *version) bool { return v.shape == shape })
			if j < 0 {
				vs = append(vs, &version{shape: shape})
				versions[key], j = vs, len(vs)-1
			}
			vs[j].add(hash, m, i, n, p)
		}
	}
	pkgs := make(map[string]*Package)
	type unitKey struct {
		file                   string
		line, col, eline, ecol int
	}
	units := make(map[string]map[unitKey]Coverage) // package → unit → stmts ran/all
	stale := make(map[string][]string)             // package → functions with versions left out
	gone := make(map[string][]string)              // package → functions not in today's source
	notToday := make(map[string][]string)          // package → functions reported from builds of another source
	for _, key := range slices.SortedFunc(maps.Keys(versions), func(a, b funcKey) int {
		return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.file, b.file), cmp.Compare(a.name, b.name), cmp.Compare(a.nth, b.nth))
	}) {
		vs := versions[key]
		v := chooseVersion(vs, p, opt.Sources)
		if now := today[key.file]; now != "" {
			if b := slices.IndexFunc(v.builds, func(b build) bool { return b.sum == now }); b >= 0 {
				v.fn.Line, v.fn.EndLine, v.fn.sum = v.builds[b].line, v.builds[b].endLine, now
			} else if fileBuilds[[2]string{key.pkg, key.file}][now] {
				// A build of today's source of the file lacks it.
				gone[key.pkg] = append(gone[key.pkg], key.name)
				continue
			} else if len(fileBuilds[[2]string{key.pkg, key.file}]) > 1 {
				notToday[key.pkg] = append(notToday[key.pkg], key.name)
			}
		}
		pkg := pkgs[key.pkg]
		if pkg == nil {
			pkg = &Package{Path: key.pkg}
			pkgs[key.pkg] = pkg
			units[key.pkg] = make(map[unitKey]Coverage)
		}
		f := v.fn
		f.Package, f.OtherBuilds = key.pkg, len(vs)-1
		f.builds = v.builds
		if len(vs) > 1 {
			stale[key.pkg] = append(stale[key.pkg], key.name)
		}
		switch {
		case f.meta.Super != nil:
			pkg.Supergraphs = append(pkg.Supergraphs, f)
		case strings.HasSuffix(key.file, "_test.go"):
			pkg.TestFuncs = append(pkg.TestFuncs, f)
			continue // no statements of go test -cover's either
		default:
			pkg.Funcs = append(pkg.Funcs, f)
		}
		fu, err := f.Units()
		if err != nil {
			errs = append(errs, err)
		}
		for _, u := range fu {
			k := unitKey{f.File, u.Line, u.Col, u.EndLine, u.EndCol}
			c := units[key.pkg][k]
			c.Total = uint64(u.Stmts)
			if u.Count > 0 {
				c.Covered = uint64(u.Stmts)
			}
			units[key.pkg][k] = c
		}
	}
	for _, path := range sortedKeys(pkgs) {
		pkg := pkgs[path]
		if names := stale[path]; len(names) > 0 {
			errs = append(errs, fmt.Errorf("%s: the profile holds several builds whose source differs: %d functions changed between them (%s); each is reported as in one build, the others left out", path, len(names), listNames(names, 8)))
		}
		if names := gone[path]; len(names) > 0 {
			errs = append(errs, fmt.Errorf("%s: %d functions of older builds are not in the build of today's source (deleted or renamed since), and are left out: %s", path, len(names), listNames(names, 8)))
		}
		if names := notToday[path]; len(names) > 0 {
			errs = append(errs, fmt.Errorf("%s: no build in the profile was compiled from today's source of the files of %d functions, reported as the chosen build has them: %s", path, len(names), listNames(names, 8)))
		}
		for _, f := range pkg.Funcs {
			f.Paths = Coverage{Covered: uint64(len(f.counts)), Total: f.numbering.NumPaths()}
			if err := f.prove(); err != nil {
				errs = append(errs, err)
			}
			pkg.Paths.add(f.Paths)
			pkg.Feasible.add(f.Feasible)
		}
		for _, f := range pkg.Supergraphs {
			f.Paths = Coverage{Covered: uint64(len(f.counts)), Total: f.numbering.NumPaths()}
			f.Feasible = f.Paths // not analysed
			pkg.Segments.add(f.Paths)
		}
		for _, f := range pkg.TestFuncs {
			f.Paths = Coverage{Covered: uint64(len(f.counts)), Total: f.numbering.NumPaths()}
			if err := f.prove(); err != nil {
				errs = append(errs, err)
			}
		}
		for _, c := range units[path] {
			pkg.Statements.add(c)
		}
		sortWorstFirst(pkg.Funcs)
		sortWorstFirst(pkg.Supergraphs)
		r.Packages = append(r.Packages, pkg)
		r.Paths.add(pkg.Paths)
		r.Feasible.add(pkg.Feasible)
		r.Segments.add(pkg.Segments)
		r.Statements.add(pkg.Statements)
	}
	return r, errs
}

// listNames joins up to n names, saying how many more there are.
func listNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// A version is one graph of a function, described alike by the metadata
// of one or more builds, whose counts add up.
type version struct {
	shape  string
	fn     *Func
	builds []build
	newest time.Time // of its metadata files
	last   string    // its metadata hash that sorts last
}

// A build is one metadata's description of a version: function index of
// the metadata with that hash, and the function's path counts there.
type build struct {
	hash   string
	meta   *profile.Meta
	index  int
	counts map[uint64]uint64
	// sum is the build's source sum of the function's file (Meta.Sums),
	// "" if not recorded; line and endLine place the function there.
	sum           string
	line, endLine int
}

func (v *version) add(hash string, m *profile.Meta, i int, n *numbering.Numbering, p *profile.Profile) {
	mf := &m.Funcs[i]
	t := p.MetaTimes[hash]
	newer := v.fn == nil || t.After(v.newest)
	if v.fn == nil {
		v.fn = &Func{Name: mf.Name, File: m.Files[mf.File], Acyclic: mf.Total, counts: make(map[uint64]uint64), numbering: n}
	}
	f := v.fn
	var sum string
	if len(m.Sums) > 0 {
		sum = m.Sums[mf.File]
	}
	if newer {
		// The newest build places the function in the source: lines may
		// have moved with the graph unchanged.
		f.Line, f.EndLine, f.sum = mf.Line, mf.EndLine, sum
		if !f.ppp {
			f.meta, f.pkgMeta = mf, m
		}
	} else if f.sum == "" {
		f.sum = sum
	}
	if m.Mode == profile.ModePPP && !f.ppp {
		f.meta, f.ppp, f.pkgMeta = mf, true, m
	}
	for id, c := range p.Counts[hash][i] {
		f.counts[id] = numbering.SatAdd(f.counts[id], c)
	}
	f.Lost = numbering.SatAdd(f.Lost, p.Lost[hash][i])
	if mf.Counters.Kind == profile.CounterHot {
		f.Estimated = true
		if f.errors == nil {
			f.errors = make(map[uint64]uint64)
		}
		for id, e := range p.Errors[hash][i] {
			f.errors[id] = numbering.SatAdd(f.errors[id], e)
		}
	}
	f.addTests(p.Tests, hash, i)
	v.builds = append(v.builds, build{hash, m, i, p.Counts[hash][i], sum, mf.Line, mf.EndLine})
	if t.After(v.newest) {
		v.newest = t
	}
	v.last = max(v.last, hash)
}

// chooseVersion picks the version of a function to report (see Build).
func chooseVersion(vs []*version, p *profile.Profile, src *source.Files) *version {
	if len(vs) == 1 {
		return vs[0]
	}
	if src != nil {
		var current []*version
		for _, v := range vs {
			if data, err := src.ReadFile(v.fn.File); err == nil && v.fn.sum != "" && v.fn.sum == profile.Hash(data) {
				current = append(current, v)
			}
		}
		if len(current) == 1 {
			return current[0]
		}
	}
	return slices.MaxFunc(vs, func(a, b *version) int {
		return cmp.Or(a.newest.Compare(b.newest), cmp.Compare(a.last, b.last))
	})
}

func sortWorstFirst(funcs []*Func) {
	slices.SortStableFunc(funcs, func(a, b *Func) int {
		if c := cmp.Compare(a.Feasible.Percent(), b.Feasible.Percent()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Feasible.Total, a.Feasible.Total); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Name, b.Name))
	})
}

// Lookup returns the functions that name denotes: pkg.F, or F in any
// package; F is spelled as in stack traces (T.M, (*T).M, F.func1), and a
// supergraph as its caller with profile.SuperSuffix (F@ippp).
func (r *Report) Lookup(name string) []*Func {
	var found []*Func
	for _, pkg := range r.Packages {
		for _, f := range slices.Concat(pkg.Funcs, pkg.Supergraphs, pkg.TestFuncs) {
			if f.Name == name || pkg.Path+"."+f.Name == name {
				found = append(found, f)
			}
		}
	}
	return found
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
