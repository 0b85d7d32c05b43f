package gitdiff

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Changes are the changed lines of each file, by absolute name. A file with
// All set is new (untracked, or added since the revision): every line of it
// changed.
type Changes map[string]*File

// A File is one file's changes: all its lines, or the ranges of lines
// that hunks changed. Ranges, not lines: a hunk header's count sizes
// nothing.
type File struct {
	All    bool
	Ranges []Range
	// Old are the ranges of lines of the revision's version of the file
	// that changed: lines deleted or replaced, and, for a hunk that only
	// adds lines, the two lines around the insertion. A profile made at
	// the revision places its code by these lines. A file deleted since
	// has only Old ranges; one added, none.
	Old []Range
}

// A Range is the lines from First to Last.
type Range struct{ First, Last int }

// Overlaps reports whether any line from first to last of file changed.
func (c Changes) Overlaps(file string, first, last int) bool {
	f := c[file]
	if f == nil {
		return false
	}
	if f.All {
		return true
	}
	for _, r := range f.Ranges {
		if r.First <= last && first <= r.Last {
			return true
		}
	}
	return false
}

// OverlapsOld reports whether any line from first to last of the
// revision's version of file changed.
func (c Changes) OverlapsOld(file string, first, last int) bool {
	f := c[file]
	if f == nil {
		return false
	}
	for _, r := range f.Old {
		if r.First <= last && first <= r.Last {
			return true
		}
	}
	return false
}

// Root returns the root of the work tree that holds dir.
func Root(dir string) (string, error) {
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(top)), nil
}

// Since returns the changes of the Go files of the work tree that holds dir
// against revision rev: the committed and uncommitted changes, and the
// untracked files.
func Since(dir, rev string) (Changes, error) {
	root, err := Root(dir)
	if err != nil {
		return nil, err
	}
	if _, err := git(dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("%q is not a revision of the repository at %s", rev, root)
	}
	diff, err := git(root, "diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-renames", rev, "--", "*.go")
	if err != nil {
		return nil, err
	}
	c, err := Parse(root, diff)
	if err != nil {
		return nil, err
	}
	untracked, err := git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", "*.go")
	if err != nil {
		return nil, err
	}
	for _, name := range strings.Split(string(untracked), "\x00") {
		if name != "" {
			c[filepath.Join(root, filepath.FromSlash(name))] = &File{All: true}
		}
	}
	return c, nil
}

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Parse reads the output of git diff --unified=0 --no-renames, whose paths
// are relative to root. A hunk that only deletes lines marks the lines on
// both sides of the deletion as changed, so that a function losing lines
// counts as changed.
func Parse(root string, diff []byte) (Changes, error) {
	c := make(Changes)
	var cur *File
	oldName := ""
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "--- "):
			oldName = strings.TrimPrefix(line, "--- ")
			if oldName != "/dev/null" {
				oldName = strings.TrimPrefix(unquote(oldName), "a/")
			}
		case strings.HasPrefix(line, "+++ "):
			name := strings.TrimPrefix(line, "+++ ")
			if name == "/dev/null" {
				name = oldName // a deleted file: only its old lines changed
			} else {
				name = strings.TrimPrefix(unquote(name), "b/")
			}
			if name == "/dev/null" {
				cur = nil
				continue
			}
			cur = &File{}
			c[filepath.Join(root, filepath.FromSlash(name))] = cur
		case strings.HasPrefix(line, "@@ ") && cur != nil:
			fields := strings.Fields(line)
			if len(fields) < 3 {
				return nil, fmt.Errorf("bad hunk header %q", line)
			}
			start, count, err := hunkRange(line, fields[2], '+')
			if err != nil {
				return nil, err
			}
			switch {
			case start == 0 && count == 0: // a deleted or emptied file
			case count == 0:
				cur.Ranges = append(cur.Ranges, Range{start, start + 1})
			default:
				cur.Ranges = append(cur.Ranges, Range{start, start + count - 1})
			}
			start, count, err = hunkRange(line, fields[1], '-')
			if err != nil {
				return nil, err
			}
			switch {
			case start == 0 && count == 0: // an added file
			case count == 0:
				cur.Old = append(cur.Old, Range{start, start + 1})
			default:
				cur.Old = append(cur.Old, Range{start, start + count - 1})
			}
		}
	}
	return c, sc.Err()
}

// hunkRange reads one side of a hunk header "@@ -a,b +c,d @@": field is
// "-a,b" (side '-') or "+c,d" (side '+').
func hunkRange(header, field string, side byte) (start, count int, err error) {
	if len(field) < 2 || field[0] != side {
		return 0, 0, fmt.Errorf("bad hunk header %q", header)
	}
	s, n, found := strings.Cut(field[1:], ",")
	if start, err = strconv.Atoi(s); err != nil {
		return 0, 0, fmt.Errorf("bad hunk header %q", header)
	}
	count = 1
	if found {
		if count, err = strconv.Atoi(n); err != nil {
			return 0, 0, fmt.Errorf("bad hunk header %q", header)
		}
	}
	if start < 0 || count < 0 || start > math.MaxInt32 || count > math.MaxInt32 {
		return 0, 0, fmt.Errorf("bad hunk header %q", header)
	}
	return start, count, nil
}

// unquote undoes git's quoting of unusual file names.
func unquote(name string) string {
	if strings.HasPrefix(name, `"`) {
		if s, err := strconv.Unquote(name); err == nil {
			return s
		}
	}
	return name
}
