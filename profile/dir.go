package profile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A Profile is what one or more profile directories or text profiles say:
// the metadata of each package, by hash, and the path counts of its
// functions.
type Profile struct {
	Metas map[string]*Meta
	// Raw holds each metadata's bytes, whose hash names it.
	Raw map[string][]byte
	// Counts[hash][func][id] is how many times path id of function func
	// (an index in the metadata's Funcs) ran.
	Counts map[string]map[int]map[uint64]uint64
	// Lost[hash][func] counts paths that found a function's hash table full.
	Lost map[string]map[int]uint64
	// Processes is the number of counter files read.
	Processes int
}

// New returns an empty profile.
func New() *Profile {
	return &Profile{
		Metas:  make(map[string]*Meta),
		Raw:    make(map[string][]byte),
		Counts: make(map[string]map[int]map[uint64]uint64),
		Lost:   make(map[string]map[int]uint64),
	}
}

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
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var counts []string
	for _, e := range entries {
		name := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
		case strings.HasSuffix(e.Name(), ".meta"):
			if err := p.readMeta(name); err != nil {
				problems = append(problems, &FileError{name, err})
			}
		case strings.HasSuffix(e.Name(), ".counts"):
			counts = append(counts, name)
		}
	}
	slices.Sort(counts)
	for _, name := range counts {
		if err := p.readCounts(name); err != nil {
			problems = append(problems, &FileError{name, err})
		}
	}
	return problems, nil
}

func (p *Profile) readMeta(name string) error {
	content, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	return p.AddMeta(strings.TrimSuffix(filepath.Base(name), ".meta"), content)
}

// AddMeta adds a package's metadata, given as the bytes whose hash names it.
func (p *Profile) AddMeta(hash string, content []byte) error {
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
func (p *Profile) readCounts(name string) error {
	f, err := ReadCounts(name)
	if f == nil {
		return err
	}
	p.Processes++
	var problems []string
	for _, s := range f.Segments {
		m := p.Metas[s.Hash]
		if m == nil {
			problems = append(problems, fmt.Sprintf("no metadata %s.meta for a segment (a profile from another build?)", s.Hash))
			continue
		}
		if s.Residual {
			if err := p.addResidual(s, m); err != nil {
				problems = append(problems, err.Error())
			}
			continue
		}
		if len(s.Words) != m.Words {
			problems = append(problems, fmt.Sprintf("segment of %s has %d words, its metadata %d", m.Package, len(s.Words), m.Words))
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
		}
	}
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// addResidual adds a residual table's counts.
func (p *Profile) addResidual(s Segment, m *Meta) error {
	if s.Func >= len(m.Funcs) {
		return fmt.Errorf("residual table of function %d of %s, which has %d", s.Func, m.Package, len(m.Funcs))
	}
	f := &m.Funcs[s.Func]
	for i := 0; i+1 < len(s.Words); i += 2 {
		key, n := s.Words[i], s.Words[i+1]
		if key == 0 || n == 0 {
			continue
		}
		if key-1 >= f.Paths {
			return fmt.Errorf("residual table of %s holds path %d of %d", f.Name, key-1, f.Paths)
		}
		p.Add(s.Hash, s.Func, key-1, n)
	}
	if s.Lost > 0 {
		p.addLost(s.Hash, s.Func, s.Lost)
	}
	return nil
}

// Add adds count runs of path id of function fn of the package with
// metadata hash.
func (p *Profile) Add(hash string, fn int, id, count uint64) {
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
	byID[id] += count
}

func (p *Profile) addLost(hash string, fn int, n uint64) {
	if p.Lost[hash] == nil {
		p.Lost[hash] = make(map[int]uint64)
	}
	p.Lost[hash][fn] += n
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
	for hash, byFunc := range q.Lost {
		for fn, n := range byFunc {
			p.addLost(hash, fn, n)
		}
	}
	p.Processes += q.Processes
	return nil
}

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
		f, err := os.Open(src)
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
