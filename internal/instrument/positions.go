package instrument

import (
	"bytes"
	"cmp"
	"go/ast"
	"go/token"
	"os"
	"slices"
)

// A positioner gives the positions that metadata records: those of the
// user's source. In a -cover build the compiler gets cmd/cover's rewrite of
// a file, whose //line directive keeps line numbers but whose columns move
// where cover inserted code on the line: counter statements and function
// registration hooks (see coverCounter), with their semicolons, and the
// braces it wraps an else if in. Cover only inserts, so a column in the
// user's file is found by walking the rewritten line beside the original
// one, skipping the inserted statements whole and any other character that
// does not match.
type positioner struct {
	fset  *token.FileSet
	cover map[*token.File]*coverFile
	lines map[string][][]byte // original files' lines, by name; nil if unreadable
	src   map[*token.File][]byte
}

type coverFile struct {
	src      []byte
	inserted [][2]int // byte offsets [start, end) of cover's statements, in order
}

// newPositioner makes the positioner of a package's files; coverFiles says
// which of them cmd/cover wrote (see coverOutput).
func newPositioner(fset *token.FileSet, files []*ast.File, src [][]byte, coverFiles []bool) *positioner {
	p := &positioner{fset: fset, cover: make(map[*token.File]*coverFile), lines: make(map[string][][]byte), src: make(map[*token.File][]byte)}
	for i, f := range files {
		p.src[fset.File(f.Pos())] = src[i]
		if !coverFiles[i] {
			continue
		}
		tf := fset.File(f.Pos())
		cf := &coverFile{src: src[i]}
		ast.Inspect(f, func(n ast.Node) bool {
			if st, ok := n.(ast.Stmt); ok && coverCounter(st) {
				cf.inserted = append(cf.inserted, [2]int{tf.Offset(st.Pos()), tf.Offset(st.End())})
				return false
			}
			return true
		})
		p.cover[tf] = cf
	}
	return p
}

// afterElse returns where cmd/cover starts the block of an if's else: right
// after the first "else" past the if's body, as cover finds it in the
// source (findText); the else's own position if the source has none.
func (p *positioner) afterElse(s *ast.IfStmt) token.Pos {
	tf := p.fset.File(s.Body.End())
	src := p.src[tf]
	if tf == nil || src == nil {
		return s.Else.Pos()
	}
	from := tf.Offset(s.Body.End())
	i := bytes.Index(src[from:], []byte("else"))
	if i < 0 {
		return s.Else.Pos()
	}
	return tf.Pos(from + i + len("else"))
}

// Position returns p's position in the user's source.
func (p *positioner) Position(pos token.Pos) token.Position {
	at := p.fset.Position(pos)
	tf := p.fset.File(pos)
	cf := p.cover[tf]
	if cf == nil || !pos.IsValid() {
		return at
	}
	raw := p.fset.PositionFor(pos, false)
	lineStart := raw.Offset - (raw.Column - 1)
	orig := p.line(at.Filename, at.Line)
	col := 0 // bytes of the original line before pos
	for i := lineStart; i < raw.Offset; {
		if end, ok := cf.insertedAt(i); ok {
			i = end
			continue
		}
		if orig != nil && col < len(orig) && cf.src[i] == orig[col] {
			col++
		} else if orig == nil {
			col++ // no original to check against: count all but cover's statements
		}
		i++
	}
	at.Column = col + 1
	return at
}

// insertedAt returns the end of the cover statement that starts at off.
func (cf *coverFile) insertedAt(off int) (int, bool) {
	i, found := slices.BinarySearchFunc(cf.inserted, off, func(s [2]int, off int) int { return cmp.Compare(s[0], off) })
	if !found {
		return 0, false
	}
	return cf.inserted[i][1], true
}

// line returns line n (from 1) of the named file, or nil.
func (p *positioner) line(name string, n int) []byte {
	lines, ok := p.lines[name]
	if !ok {
		if src, err := os.ReadFile(name); err == nil {
			lines = bytes.Split(src, []byte("\n"))
		}
		p.lines[name] = lines
	}
	if n < 1 || n > len(lines) {
		return nil
	}
	return lines[n-1]
}
