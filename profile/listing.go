package profile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// A profile directory holds the files that profiled processes write (rt
// names them: <hash>.meta, and pathcover.<pid>.<n> with the kind's
// extension) and those that pathcover derives from them (profile.twpp,
// profile.wet, profile.ddg). This file is the one place that knows their
// names: everything else lists a directory with List and takes the files
// of the kind it reads, as cmd/covdata's readers take a coverage
// directory's pods from pods.CollectPods.

// A FileKind is a kind of file of a profile directory.
type FileKind int

const (
	KindMeta   FileKind = iota // <hash>.meta: a package's metadata (dir.go, meta.go)
	KindCounts                 // pathcover.<pid>.<n>.counts: a process's counters (counts.go)
	KindTests                  // pathcover.<pid>.<n>.tests: which tests ran what (tests.go)
	KindWPP                    // pathcover.<pid>.<n>.wpp: a process's whole program paths (wpp.go)
	KindFlight                 // pathcover.<pid>.<n>.flight: a failed process's flight rings, or a snapshot (flight.go)
	KindTWPP                   // profile.twpp: the whole program paths compacted (pathcover wpp compact)
	KindWET                    // profile.wet: the whole execution trace (pathcover wet build)
	KindDDG                    // profile.ddg: the compact dynamic dependence graph (pathcover slice)
	numKinds
)

var kindNames = [numKinds]string{"metadata", "counter", "tests", "whole-program-path", "flight", "TWPP", "WET", "dependence graph"}

func (k FileKind) String() string {
	if k < 0 || k >= numKinds {
		return fmt.Sprintf("FileKind(%d)", int(k))
	}
	return kindNames[k]
}

// The names of the files pathcover derives in a profile directory.
const (
	TWPPFile = "profile.twpp"
	WETFile  = "profile.wet"
	DDGFile  = "profile.ddg"
)

// kindOf returns the kind of the file whose base name is base.
func kindOf(base string) (FileKind, bool) {
	switch base {
	case TWPPFile:
		return KindTWPP, true
	case WETFile:
		return KindWET, true
	case DDGFile:
		return KindDDG, true
	}
	// By extension alone, as the readers always took them: a file named
	// as no process would name it is still read, and its reader says
	// what is wrong with it.
	switch filepath.Ext(base) {
	case ".meta":
		return KindMeta, true
	case ".counts":
		return KindCounts, true
	case ".tests":
		return KindTests, true
	case ".wpp":
		return KindWPP, true
	case ".flight":
		return KindFlight, true
	}
	return 0, false
}

// A Listing is what a profile directory holds: the names of its files of
// each kind, sorted, and the problems of the files that are named as one
// of the kinds but are not regular files (a link could make a reader read
// outside the profile, a FIFO would wait for a writer), which are left
// out. Other files, subdirectories and the temporary files of writers
// (internal/atomicfile) are not the profile's and are passed over.
type Listing struct {
	Dir      string
	files    [numKinds][]string
	Problems []*FileError
}

// List lists profile directory dir. Only a directory that cannot be read
// is an error.
func List(dir string) (*Listing, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	l := &Listing{Dir: dir}
	for _, e := range entries { // os.ReadDir sorts them
		kind, ok := kindOf(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		name := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() {
			l.Problems = append(l.Problems, &FileError{name, fmt.Errorf("not a regular file (%v)", e.Type())})
			continue
		}
		l.files[kind] = append(l.files[kind], name)
	}
	return l, nil
}

// Files returns the names of the directory's files of kind k, sorted.
func (l *Listing) Files(k FileKind) []string { return l.files[k] }

// Has reports whether the directory holds a file of kind k.
func (l *Listing) Has(k FileKind) bool { return len(l.files[k]) > 0 }

// ProblemsOf returns the problems of the files named as kind k.
func (l *Listing) ProblemsOf(k FileKind) []*FileError {
	var ps []*FileError
	for _, p := range l.Problems {
		if kind, _ := kindOf(filepath.Base(p.Name)); kind == k {
			ps = append(ps, p)
		}
	}
	return ps
}

// Err returns the problems of the files named as kind k, joined, or nil:
// the error of a reader that must read every file of its kind, whose
// answer would be wrong without one.
func (l *Listing) Err(k FileKind) error {
	var errs []error
	for _, p := range l.ProblemsOf(k) {
		errs = append(errs, p)
	}
	return errors.Join(errs...)
}

// Need returns the files of kind k, every one, or an error: one that
// names the files of the kind left out, or, where there are none, says
// that dir holds no such file and how a build records them (record).
func (l *Listing) Need(k FileKind, record string) ([]string, error) {
	if err := l.Err(k); err != nil {
		return nil, err
	}
	if !l.Has(k) {
		return nil, &NoFilesError{Dir: l.Dir, Kind: k, Record: record}
	}
	return slices.Clone(l.files[k]), nil
}

// A NoFilesError says that a profile directory holds no file of a kind.
type NoFilesError struct {
	Dir    string
	Kind   FileKind
	Record string // how to record them, such as "pathcover test -wpp"
}

func (e *NoFilesError) Error() string {
	what := map[FileKind]string{
		KindMeta: "metadata (*.meta files)", KindCounts: "counter files", KindTests: "tests files",
		KindWPP: "recording of whole program paths (*.wpp files)", KindFlight: "flight recordings (*.flight files)",
		KindTWPP: TWPPFile, KindWET: WETFile, KindDDG: DDGFile,
	}[e.Kind]
	msg := fmt.Sprintf("%s holds no %s", e.Dir, what)
	if e.Record != "" {
		msg += ": " + e.Record
	}
	return msg
}

// DerivedPath returns where the file of derived kind k (KindTWPP, KindWET,
// KindDDG) of profile directory dir is, or would be written.
func DerivedPath(dir string, k FileKind) string {
	switch k {
	case KindTWPP:
		return filepath.Join(dir, TWPPFile)
	case KindWET:
		return filepath.Join(dir, WETFile)
	case KindDDG:
		return filepath.Join(dir, DDGFile)
	}
	panic(fmt.Sprintf("DerivedPath of %v, a kind that processes write", k))
}

// Need lists profile directory dir and returns its files of kind k, as
// Listing.Need does.
func Need(dir string, k FileKind, record string) ([]string, error) {
	l, err := List(dir)
	if err != nil {
		return nil, err
	}
	return l.Need(k, record)
}
