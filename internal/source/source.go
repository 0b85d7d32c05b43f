package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pathcover/pathcover/profile"
)

// MaxFileSize is the largest source file read. The largest Go
// files of the standard library and of generated code are a few MiB.
const MaxFileSize = 16 << 20

// Files reads the source files that a profile's metadata names, and only
// those that can belong to profiled packages: Go files under the current
// module (or workspace), GOROOT or the module cache, that are regular files
// of at most MaxFileSize bytes. Metadata is input like any other: a
// crafted file list must not make a report read /etc/shadow into a page.
// Each file is read once.
type Files struct {
	dir   string // where the go command is asked for the roots
	once  sync.Once
	roots []string // real paths, each ending in a separator
	err   error    // why there are no roots

	mu    sync.Mutex
	files map[string]sourceFile
}

type sourceFile struct {
	data  []byte
	err   error
	hash  string   // profile.Hash of data, once asked for
	lines []string // data's lines, once asked for
}

// New returns a reader of the sources under the roots that the go
// command reports from directory dir: its main modules' directories,
// GOROOT and GOMODCACHE.
func New(dir string) *Files {
	return &Files{dir: dir, files: make(map[string]sourceFile)}
}

// Under returns a reader of the sources under the given
// directories only, for tests and for callers that know their roots.
func Under(dirs ...string) *Files {
	s := &Files{files: make(map[string]sourceFile)}
	s.once.Do(func() {
		for _, d := range dirs {
			if r, err := realDir(d); err == nil {
				s.roots = append(s.roots, r)
			}
		}
		if len(s.roots) == 0 {
			s.err = errors.New("no source directories")
		}
	})
	return s
}

// goRoots asks the go command for the directories that profiled packages'
// sources can be in.
func goRoots(dir string) ([]string, error) {
	var dirs []string
	env := exec.Command("go", "env", "GOROOT", "GOMODCACHE")
	env.Dir = dir
	out, err := env.Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %v", err)
	}
	dirs = append(dirs, strings.Split(strings.TrimSpace(string(out)), "\n")...)
	// The main modules; outside any module this fails, and only GOROOT and
	// the module cache remain.
	mods := exec.Command("go", "list", "-m", "-f", "{{.Dir}}")
	mods.Dir = dir
	if out, err := mods.Output(); err == nil {
		dirs = append(dirs, strings.Split(strings.TrimSpace(string(out)), "\n")...)
	}
	var roots []string
	for _, d := range dirs {
		if r, err := realDir(strings.TrimSpace(d)); err == nil {
			roots = append(roots, r)
		}
	}
	if len(roots) == 0 {
		return nil, errors.New("the go command names no source directories")
	}
	return roots, nil
}

// realDir returns dir with its symbolic links resolved and a separator at
// the end, if it is an absolute directory.
func realDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%q is not absolute", dir)
	}
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(r, string(filepath.Separator)) + string(filepath.Separator), nil
}

// ReadFile returns the content of source file name, or why it was not
// read.
func (s *Files) ReadFile(name string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[name]
	if !ok {
		f.data, f.err = s.read(name)
		s.files[name] = f
	}
	return f.data, f.err
}

func (s *Files) read(name string) ([]byte, error) {
	s.once.Do(func() { s.roots, s.err = goRoots(s.dir) })
	if s.err != nil {
		return nil, s.err
	}
	if !filepath.IsAbs(name) || filepath.Clean(name) != name || !strings.HasSuffix(name, ".go") {
		return nil, fmt.Errorf("not read: %q is not the absolute name of a Go file", name)
	}
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return nil, err
	}
	inside := false
	for _, r := range s.roots {
		inside = inside || strings.HasPrefix(real, r)
	}
	if !inside {
		return nil, fmt.Errorf("not read: %s is outside the module, GOROOT and the module cache", name)
	}
	// Stat before opening: opening a FIFO would wait for a writer.
	if info, err := os.Stat(real); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not read: %s is not a regular file", name)
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not read: %s is not a regular file", name)
	}
	// Read at most one byte past the limit, whatever Stat said: the file
	// may grow meanwhile.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("not read: %s is larger than %d MiB", name, MaxFileSize>>20)
	}
	return data, nil
}

// Lines splits source into lines, without their line ends.
func Lines(src []byte) []string {
	return strings.Split(string(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))), "\n")
}

// Text returns the source from line:col to endLine:endCol of file (lines
// and byte columns from 1, as go/token counts them) on one line, as the
// queries show a statement or a condition: runs of spaces and tabs made
// one space, and of a statement of several lines, its first line with
// " …" after it. sum, if not empty, is the profile's hash of the file as
// it was compiled (profile.Meta.Sums): a file edited since shows nothing,
// rather than another statement. ok is false if there is no such text.
func (s *Files) Text(file, sum string, line, col, endLine, endCol int) (text string, ok bool) {
	s.mu.Lock()
	f, read := s.files[file]
	s.mu.Unlock()
	if !read {
		s.ReadFile(file)
		s.mu.Lock()
		f = s.files[file]
		s.mu.Unlock()
	}
	if f.err != nil {
		return "", false
	}
	if sum != "" || f.lines == nil {
		s.mu.Lock()
		f = s.files[file]
		if f.hash == "" {
			f.hash = profile.Hash(f.data)
		}
		if f.lines == nil {
			f.lines = Lines(f.data)
		}
		s.files[file] = f
		s.mu.Unlock()
	}
	if sum != "" && sum != f.hash {
		return "", false
	}
	if line < 1 || line > len(f.lines) {
		return "", false
	}
	src := f.lines[line-1]
	from := max(col-1, 0)
	if from > len(src) {
		return "", false
	}
	to := len(src)
	more := endLine > line
	if endLine == line && endCol > col && endCol-1 <= len(src) {
		to = endCol - 1
	}
	text = strings.Join(strings.Fields(src[from:to]), " ")
	if more {
		text += " …"
	}
	return text, text != ""
}

// Statement returns a statement's or a condition's source as the
// queries show it: Text, but a condition or a case's list with its line's
// keyword before it (a line that begins with if, for, switch, case,
// select, else or default up to the statement, with no block opened
// between), so that "err != nil" reads "if err != nil {" and "tokNum"
// "case tokNum:".
func (s *Files) Statement(file, sum string, line, col, endLine, endCol int) (string, bool) {
	text, ok := s.Text(file, sum, line, col, endLine, endCol)
	if !ok {
		return "", false
	}
	prefix, _ := s.Text(file, sum, line, 1, line, col)
	if prefix == "" || strings.Contains(prefix, "{") && !strings.HasPrefix(prefix, "} else") {
		return text, true
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(prefix, "} "), " ")
	switch strings.TrimSuffix(first, ":") {
	case "if", "for", "switch", "case", "select", "else", "default":
		if whole, ok := s.Text(file, sum, line, 1, line, 0); ok && endLine == line {
			return whole, true
		}
		return prefix + " " + text, true
	}
	return text, true
}

// Clip shortens text to at most width runes, ending it in "…" if it was
// cut; a width below 2 leaves it as it is.
func Clip(text string, width int) string {
	if width < 2 || utf8.RuneCountInString(text) <= width {
		return text
	}
	runes := []rune(text)
	return string(runes[:width-1]) + "…"
}
