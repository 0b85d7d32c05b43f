package pkgpattern

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// A Set is the package patterns of a command line, resolved as the go
// command resolves them, for choosing among the packages of a profile:
//
//   - "all" matches every package;
//   - "std" and "cmd" match the standard library's packages and commands;
//   - a directory pattern (".", "./x", "../y/...", "/abs/dir/...") names the
//     packages in those directories, as go list lists them from the
//     current directory: in the module or workspace there, without nested
//     modules, vendor or testdata directories;
//   - any other pattern is an import path in which ... stands for any
//     string ([Match]).
//
// A package's test variants ("p [p.test]", and the external test package
// "p_test") belong to p.
type Set struct {
	patterns []resolved
}

type resolved struct {
	text  string
	all   bool
	paths map[string]bool // a pattern that go list expanded
}

// Resolve resolves patterns in directory dir. No patterns means all
// packages. It runs go list for the patterns that only the go command can
// expand (directory patterns, std and cmd); an error says which pattern
// could not be resolved and why.
func Resolve(dir string, patterns []string) (*Set, error) {
	s := &Set{}
	for _, p := range patterns {
		r := resolved{text: p}
		switch {
		case p == "all":
			r.all = true
		case p == "std" || p == "cmd" || IsDirPattern(p):
			paths, err := goList(dir, p)
			if err != nil {
				return nil, err
			}
			r.paths = paths
		case p == "":
			return nil, errors.New("empty package pattern")
		}
		s.patterns = append(s.patterns, r)
	}
	return s, nil
}

// ImportPaths returns the Set of import path patterns (with ..., and
// "all"), which need no go command to resolve.
func ImportPaths(patterns ...string) *Set {
	s := &Set{}
	for _, p := range patterns {
		s.patterns = append(s.patterns, resolved{text: p, all: p == "all"})
	}
	return s
}

// IsDirPattern reports whether pattern names directories rather than
// import paths, as the go command tells them apart.
func IsDirPattern(pattern string) bool {
	return pattern == "." || pattern == ".." || strings.HasPrefix(pattern, "./") ||
		strings.HasPrefix(pattern, "../") || filepath.IsAbs(pattern)
}

// goList lists the import paths that pattern denotes, in dir. go list -e
// names a directory it found no package in by the pattern itself, with an
// error that says why; that error is returned if nothing else is found.
func goList(dir, pattern string) (map[string]bool, error) {
	cmd := exec.Command("go", "list", "-e", "-find", "-f", "{{.ImportPath}}\t{{if .Error}}{{.Error}}{{end}}", "--", pattern)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("package pattern %s: go list: %s", pattern, msg)
	}
	paths := make(map[string]bool)
	var why string
	for _, line := range strings.Split(string(out), "\n") {
		path, problem, _ := strings.Cut(line, "\t")
		switch {
		case path == "":
		case IsDirPattern(path):
			why = cmp.Or(why, strings.TrimSpace(problem))
		default:
			paths[path] = true
		}
	}
	if len(paths) == 0 && why != "" {
		return nil, fmt.Errorf("package pattern %s: %s", pattern, strings.TrimPrefix(why, "pattern "+pattern+": "))
	}
	return paths, nil
}

// Match reports whether the package with import path path (as
// TOOLEXEC_IMPORTPATH spells it, test variants included) matches one of
// the patterns, or whether there are none.
func (s *Set) Match(path string) bool {
	if s == nil || len(s.patterns) == 0 {
		return true
	}
	for i := range s.patterns {
		if s.patterns[i].match(path) {
			return true
		}
	}
	return false
}

// Unmatched returns the patterns that match none of paths, in the order
// given.
func (s *Set) Unmatched(paths []string) []string {
	if s == nil {
		return nil
	}
	var none []string
	for i := range s.patterns {
		p := &s.patterns[i]
		found := false
		for _, path := range paths {
			if p.match(path) {
				found = true
				break
			}
		}
		if !found {
			none = append(none, p.text)
		}
	}
	return none
}

func (p *resolved) match(path string) bool {
	path, _, _ = strings.Cut(path, " ")
	switch {
	case p.all:
		return true
	case p.paths != nil:
		return p.paths[path] || p.paths[strings.TrimSuffix(path, "_test")]
	}
	return Match(p.text, path) || Match(p.text, strings.TrimSuffix(path, "_test"))
}
