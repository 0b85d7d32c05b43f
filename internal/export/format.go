package export

import (
	"fmt"
	"strings"
	"time"
)

// Options say how the coverage formats are written.
type Options struct {
	// Mode is the coverprofile's mode; 0 means ModeCount.
	Mode CoverMode
	// Root is the directory that Cobertura's file names are relative to,
	// its one source.
	Root string
	// Now is Cobertura's timestamp.
	Now time.Time
}

// A Format is one of the formats that this package writes.
type Format int

const (
	CoverProfile Format = iota + 1 // go test -coverprofile's text
	LCOV                           // an LCOV tracefile, lines and branches
	Cobertura                      // Cobertura XML, lines and branches
	SARIF                          // the gate's findings, SARIF 2.1.0
	Pprof                          // executions, paths and lines, for go tool pprof
	PGO                            // static call counts, for go build -pgo
)

// Binary says whether the format is not text: a gzipped protocol buffer.
func (f Format) Binary() bool { return f == Pprof || f == PGO }

// Formats are the formats, in the order that help lists them.
var Formats = []Format{CoverProfile, LCOV, Cobertura, SARIF, Pprof, PGO}

var formatNames = map[Format]string{
	CoverProfile: "coverprofile",
	LCOV:         "lcov",
	Cobertura:    "cobertura",
	SARIF:        "sarif",
	Pprof:        "pprof",
	PGO:          "pgo",
}

// String returns the format's name, as ParseFormat reads it.
func (f Format) String() string {
	if name, ok := formatNames[f]; ok {
		return name
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat returns the format of a name.
func ParseFormat(name string) (Format, error) {
	for _, f := range Formats {
		if f.String() == name {
			return f, nil
		}
	}
	return 0, fmt.Errorf("unknown format %q: want one of %s", name, FormatNames())
}

// FormatNames lists the formats' names, for messages and help.
func FormatNames() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = f.String()
	}
	return strings.Join(names, ", ")
}

// Set parses a format's name, so that a Format is a flag.Value.
func (f *Format) Set(name string) error {
	v, err := ParseFormat(name)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// A CoverMode is the mode line of a -coverprofile file: what its counts
// mean, as go test's -covermode says.
type CoverMode int

const (
	ModeSet    CoverMode = iota + 1 // 1 if the block ran, else 0
	ModeCount                       // how many times it ran
	ModeAtomic                      // the same, counted atomically by go test
)

var modeNames = map[CoverMode]string{ModeSet: "set", ModeCount: "count", ModeAtomic: "atomic"}

// String returns the mode as the mode line spells it.
func (m CoverMode) String() string {
	if name, ok := modeNames[m]; ok {
		return name
	}
	return fmt.Sprintf("CoverMode(%d)", int(m))
}

// Set parses a mode, so that a CoverMode is a flag.Value.
func (m *CoverMode) Set(name string) error {
	for mode, s := range modeNames {
		if s == name {
			*m = mode
			return nil
		}
	}
	return fmt.Errorf("unknown mode %q: want set, count or atomic", name)
}
