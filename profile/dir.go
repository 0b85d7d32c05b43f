package profile

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pathcover/pathcover/numbering"
)

// A Profile is what one or more profile directories or text profiles say:
// the metadata of each package, by hash, and the path counts of its
// functions.
type Profile struct {
	Metas map[string]*Meta
	// Raw holds each metadata's JSON, whose hash names it.
	Raw map[string][]byte
	// Counts[hash][func][id] is how many times path id of function func
	// (an index in the metadata's Funcs) ran.
	Counts map[string]map[int]map[uint64]uint64
	// Lost[hash][func] counts paths that found a function's hash table full.
	Lost map[string]map[int]uint64
	// Errors[hash][func][id] bounds how much the count of path id, of a
	// function counted in a hot path table, may exceed its true count.
	// Functions counted exactly have none.
	Errors map[string]map[int]map[uint64]uint64
	// Processes is the number of counter files read.
	Processes int
	// MetaTimes are the modification times of the metadata files read
	// from directories (a text profile has none): when a program of that
	// build first ran there.
	MetaTimes map[string]time.Time
	// Tests says which tests ran each path, for processes whose tests
	// were attributed (pppexec -tests; see tests.go); nil if none were.
	Tests *Attribution
}

// Counts add up with saturation (numbering.SatAdd): a count that would
// pass math.MaxUint64 stays there, and reports show it as "at least".

// New returns an empty profile.
func New() *Profile {
	return &Profile{
		Metas:     make(map[string]*Meta),
		Raw:       make(map[string][]byte),
		Counts:    make(map[string]map[int]map[uint64]uint64),
		Lost:      make(map[string]map[int]uint64),
		Errors:    make(map[string]map[int]map[uint64]uint64),
		MetaTimes: make(map[string]time.Time),
	}
}

// ErrNoMeta is wrapped by the problem of a counter segment whose metadata
// the profile lacks: its package's functions are missing from the
// profile, not merely some of their counts.
var ErrNoMeta = errors.New("no metadata")

// IsMetaProblem reports whether a problem of ReadDir or Load leaves
// functions out of the profile: a metadata file that cannot be read, or
// counts without their metadata. Other problems (a truncated counter file)
// only lose counts.
func IsMetaProblem(err error) bool {
	var fe *FileError
	return errors.Is(err, ErrNoMeta) || (errors.As(err, &fe) && strings.HasSuffix(fe.Name, ".meta"))
}

// A MissingMetaError names the packages whose functions a recording ran
// (a -wpp or -wet recording, a TWPP, a WET) and whose metadata the profile
// lacks: those functions can be neither named nor decoded, so an answer
// about them, or about a function found by name or file, may be wrong.
type MissingMetaError struct {
	Packages []MissingPackage // by hash
}

// A MissingPackage is a package of a MissingMetaError.
type MissingPackage struct {
	Hash string
	// Package is the package's path where the recording says it (a WET
	// built while the metadata was there); empty if it does not.
	Package string
	// Why is the problem that rejected its metadata file, or ErrNoMeta.
	Why error
}

func (e *MissingMetaError) Error() string {
	s := make([]string, len(e.Packages))
	for i, m := range e.Packages {
		s[i] = m.Why.Error() // it names the hash's file
		if m.Package != "" {
			s[i] = m.Package + ": " + s[i]
		}
	}
	n := "1 package"
	if len(s) != 1 {
		n = fmt.Sprintf("%d packages", len(s))
	}
	return "the recording ran functions of " + n + " whose metadata the profile lacks: " + strings.Join(s, "; ")
}

func (e *MissingMetaError) Unwrap() error { return ErrNoMeta }

// MissingMetas returns a *MissingMetaError naming the packages of a
// recording, given as metadata hashes with their package paths ("" where
// the recording does not say), whose metadata p lacks, each with why: the
// problem of problems (ReadDir's or Load's) that rejected <hash>.meta, or
// that there is none. It returns nil if p has them all.
func (p *Profile) MissingMetas(packages map[string]string, problems []error) error {
	var missing []MissingPackage
	for _, hash := range slices.Sorted(maps.Keys(packages)) {
		if p.Metas[hash] != nil {
			continue
		}
		m := MissingPackage{Hash: hash, Package: packages[hash], Why: fmt.Errorf("%w file %s.meta", ErrNoMeta, hash)}
		for _, pr := range problems {
			var fe *FileError
			if errors.As(pr, &fe) && filepath.Base(fe.Name) == hash+".meta" {
				m.Why = pr
				break
			}
		}
		missing = append(missing, m)
	}
	if len(missing) == 0 {
		return nil
	}
	return &MissingMetaError{missing}
}

// problems are a file's problems, said in one line.
type problems []error

func (ps problems) Error() string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Error()
	}
	return strings.Join(s, "; ")
}

func (ps problems) Unwrap() []error { return ps }

// A FileError is a file of a profile that could not be read, or only in
// part. Its Error is one line naming the file.
type FileError struct {
	Name string
	Err  error
}

func (e *FileError) Error() string { return e.Name + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// ReadDir adds the profile in directory dir to p: its metadata files, then
// its counter files, each segment's words decoded with the metadata of its
// hash and added up. Files that are not part of a profile are ignored; each
// metadata or counter file that cannot be read, wholly or in part, gives a
// *FileError and the rest is still read. Only an unreadable directory is an
// error that stops it.
func (p *Profile) ReadDir(dir string) (problems []error, err error) {
	l, err := List(dir)
	if err != nil {
		return nil, err
	}
	return p.ReadListing(l), nil
}

// ReadListing is ReadDir of a directory already listed; its problems
// include the listing's of metadata, counter and tests files.
func (p *Profile) ReadListing(l *Listing) (problems []error) {
	for _, k := range []FileKind{KindMeta, KindCounts, KindTests} {
		for _, e := range l.ProblemsOf(k) {
			problems = append(problems, e)
		}
	}
	for _, name := range l.Files(KindMeta) {
		if err := p.readMeta(name); err != nil {
			problems = append(problems, &FileError{name, err})
		}
	}
	// A tests file attributes its counter file's counts, so it is read
	// with that file; counter files are read one at a time and let go,
	// so that memory is bounded by the program, not by the number of
	// processes. The tests files are read once first, for the counter
	// file each names: they are small, and hold only their own process's
	// events.
	testsOf := make(map[string][]string) // counter file's base name → tests files
	for _, name := range l.Files(KindTests) {
		tf, err := ReadTests(name)
		if tf == nil {
			problems = append(problems, &FileError{name, err})
			continue
		}
		testsOf[tf.Counts] = append(testsOf[tf.Counts], name)
	}
	for _, name := range l.Files(KindCounts) {
		f, err := p.readCounts(name)
		if err != nil {
			problems = append(problems, &FileError{name, err})
		}
		base := filepath.Base(name)
		for _, tests := range testsOf[base] {
			if err := p.readTests(tests, f); err != nil {
				problems = append(problems, &FileError{tests, err})
			}
		}
		delete(testsOf, base)
	}
	for _, counts := range slices.Sorted(maps.Keys(testsOf)) {
		for _, tests := range testsOf[counts] {
			if err := p.readTests(tests, nil); err != nil {
				problems = append(problems, &FileError{tests, err})
			}
		}
	}
	return problems
}

// readTests attributes the counts of cf, the counter file that tests file
// name names (nil if it is not in the profile, or cannot be read), to
// tests. A file cut short attributes what it holds.
func (p *Profile) readTests(name string, cf *CountFile) error {
	tf, err := ReadTests(name)
	if tf == nil {
		return err
	}
	if cf == nil {
		return errors.Join(err, fmt.Errorf("its counter file %q is not in the profile, or cannot be read", tf.Counts))
	}
	return errors.Join(err, p.AddTests(tf, cf))
}

func (p *Profile) readMeta(name string) error {
	f, info, err := OpenFile(name, "metadata file", MaxMetaSize)
	if err != nil {
		return err
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, MaxMetaSize+1))
	if err != nil {
		return err
	}
	if len(content) > MaxMetaSize {
		return fmt.Errorf("larger than %d MiB", MaxMetaSize>>20)
	}
	hash := strings.TrimSuffix(filepath.Base(name), ".meta")
	if err := p.AddMeta(hash, content); err != nil {
		return err
	}
	if t := p.MetaTimes[hash]; info.ModTime().After(t) {
		p.MetaTimes[hash] = info.ModTime()
	}
	return nil
}

// MaxMetaSize is the largest metadata file read: that of a package of
// 10,000 functions is a few MiB.
const MaxMetaSize = 256 << 20

// AddMeta adds a package's metadata, given as a metadata file's content
// (its JSON, compressed or not), named by the hash of its JSON.
func (p *Profile) AddMeta(hash string, content []byte) error {
	content, err := MetaJSON(content)
	if err != nil {
		return err
	}
	if Hash(content) != hash {
		return errors.New("content does not match the hash in its name (corrupt, or not pathcover's)")
	}
	if _, ok := p.Metas[hash]; ok {
		return nil // the same bytes
	}
	m, err := ParseMeta(content)
	if err != nil {
		return err
	}
	p.Metas[hash] = m
	p.Raw[hash] = content
	return nil
}

// readCounts adds a counter file. A truncated file adds its whole segments
// and reports the truncation.
func (p *Profile) readCounts(name string) (*CountFile, error) {
	f, err := ReadCounts(name)
	if f == nil {
		return nil, err
	}
	return f, p.AddCounts(f, err)
}

// AddCounts adds the counts of one process, as ReadCounts read them with
// err (a truncation, or nil), decoded with the metadata already in p. A
// segment that cannot be decoded is left out, and the error says why.
func (p *Profile) AddCounts(f *CountFile, err error) error {
	p.Processes = satInc(p.Processes, 1)
	var problems problems
	for _, s := range f.Segments {
		m := p.Metas[s.Hash]
		if m == nil {
			problems = append(problems, fmt.Errorf("%w %s.meta for a segment (a profile from another build?)", ErrNoMeta, s.Hash))
			continue
		}
		if s.Residual {
			if err := p.addResidual(s, m); err != nil {
				problems = append(problems, err)
			}
			continue
		}
		if s.Len != uint64(m.Words) {
			problems = append(problems, fmt.Errorf("segment of %s has %d words, its metadata %d", m.Package, s.Len, m.Words))
			continue
		}
		for i := range m.Funcs {
			counts, lost := m.Funcs[i].PathCounts(s.Words)
			for id, c := range counts {
				p.Add(s.Hash, i, id, c)
			}
			if lost > 0 {
				p.addLost(s.Hash, i, lost)
			}
			for id, e := range m.Funcs[i].PathErrors(s.Words) {
				p.addError(s.Hash, i, id, e)
			}
		}
	}
	if err != nil {
		problems = append(problems, err)
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// addResidual adds a residual table's counts.
func (p *Profile) addResidual(s Segment, m *Meta) error {
	if s.Func >= len(m.Funcs) {
		return fmt.Errorf("residual table of function %d of %s, which has %d", s.Func, m.Package, len(m.Funcs))
	}
	f := &m.Funcs[s.Func]
	var err error
	s.Pairs(func(key, n uint64) {
		if err == nil && key-1 >= f.Paths {
			err = fmt.Errorf("residual table of %s holds path %d of %d", f.Name, key-1, f.Paths)
		}
	})
	if err != nil {
		return err
	}
	s.Pairs(func(key, n uint64) { p.Add(s.Hash, s.Func, key-1, n) })
	if s.Lost > 0 {
		p.addLost(s.Hash, s.Func, s.Lost)
	}
	return nil
}

// Add adds count runs of path id of function fn of the package with
// metadata hash. A count of 0 adds nothing: the path did not run.
func (p *Profile) Add(hash string, fn int, id, count uint64) {
	if count == 0 {
		return
	}
	byFunc := p.Counts[hash]
	if byFunc == nil {
		byFunc = make(map[int]map[uint64]uint64)
		p.Counts[hash] = byFunc
	}
	byID := byFunc[fn]
	if byID == nil {
		byID = make(map[uint64]uint64)
		byFunc[fn] = byID
	}
	byID[id] = numbering.SatAdd(byID[id], count)
}

// addError adds e to the error bound of path id's count. Counts add up,
// and so do their bounds.
func (p *Profile) addError(hash string, fn int, id, e uint64) {
	if p.Errors[hash] == nil {
		p.Errors[hash] = make(map[int]map[uint64]uint64)
	}
	if p.Errors[hash][fn] == nil {
		p.Errors[hash][fn] = make(map[uint64]uint64)
	}
	p.Errors[hash][fn][id] = numbering.SatAdd(p.Errors[hash][fn][id], e)
}

func (p *Profile) addLost(hash string, fn int, n uint64) {
	if p.Lost[hash] == nil {
		p.Lost[hash] = make(map[int]uint64)
	}
	p.Lost[hash][fn] = numbering.SatAdd(p.Lost[hash][fn], n)
}

// satInc adds process counts without wrapping round.
func satInc(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// Merge adds the metadata and counts of q to p.
func (p *Profile) Merge(q *Profile) error {
	for hash, raw := range q.Raw {
		if err := p.AddMeta(hash, raw); err != nil {
			return err
		}
	}
	for hash, byFunc := range q.Counts {
		for fn, byID := range byFunc {
			for id, c := range byID {
				p.Add(hash, fn, id, c)
			}
		}
	}
	for hash, byFunc := range q.Errors {
		for fn, byID := range byFunc {
			for id, e := range byID {
				p.addError(hash, fn, id, e)
			}
		}
	}
	for hash, byFunc := range q.Lost {
		for fn, n := range byFunc {
			p.addLost(hash, fn, n)
		}
	}
	if q.Tests != nil {
		if p.Tests == nil {
			p.Tests = &Attribution{}
		}
		p.Tests.merge(q.Tests)
	}
	p.Processes = satInc(p.Processes, q.Processes)
	for hash, t := range q.MetaTimes {
		if t.After(p.MetaTimes[hash]) {
			p.MetaTimes[hash] = t
		}
	}
	return nil
}

// MaxTextSize is the largest text profile read (go test -coverprofile's
// format, which a profile of a million counters writes in some 100 MiB).
const MaxTextSize = 4 << 30

// Load reads profiles: each source is a profile directory or a text
// profile. Problems with single files are returned as such; an error stops
// it only for a source that cannot be read at all.
func Load(sources ...string) (*Profile, []error, error) {
	p := New()
	var problems []error
	for _, src := range sources {
		info, err := os.Stat(src)
		if err != nil {
			return nil, problems, err
		}
		if info.IsDir() {
			probs, err := p.ReadDir(src)
			problems = append(problems, probs...)
			if err != nil {
				return nil, problems, err
			}
			continue
		}
		f, _, err := OpenFile(src, "text profile", MaxTextSize)
		if err != nil {
			return nil, problems, err
		}
		err = p.ReadText(f)
		f.Close()
		if err != nil {
			return nil, problems, fmt.Errorf("%s: %w", src, err)
		}
	}
	return p, problems, nil
}
