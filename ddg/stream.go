package ddg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pathcover/pathcover/ddg/control"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// The compact form of a goroutine's recording, which the compact graph
// (OPT) keeps and the demand-driven slicer (LP) rebuilds as it needs it:
// its calls in the order they were entered (preorder), each with its
// function, its parent, the end of its subtree, and its Ball-Larus paths,
// uvarints in an arena; and, once replayed, the nodes of its subtree and
// its return node. The nodes are numbered as Load numbers them.

// A funcTable is the functions of a run, by their order of first call.
type funcTable struct {
	p       *profile.Profile
	funcs   []*Func
	index   map[funcKey]int32
	anyDeps bool
	// pkgs are the import paths of the packages with metadata: a call of
	// one of them is a call of instrumented code.
	pkgs map[string]bool
}

func newFuncTable(p *profile.Profile) *funcTable {
	t := &funcTable{p: p, index: make(map[funcKey]int32), pkgs: make(map[string]bool)}
	for _, m := range p.Metas {
		t.pkgs[profile.PackagePath(m.Package)] = true
	}
	return t
}

// fn returns the index of a function, adding it (as builder.fn).
func (t *funcTable) fn(k funcKey) (int32, error) {
	if i, ok := t.index[k]; ok {
		return i, nil
	}
	m := t.p.Metas[k.hash]
	if m == nil {
		return 0, fmt.Errorf("a call of a function of metadata %s, which the directory lacks", k.hash)
	}
	if int(k.index) >= len(m.Funcs) {
		return 0, fmt.Errorf("a call of function %d of %s, which has %d", k.index, m.Package, len(m.Funcs))
	}
	mf := &m.Funcs[k.index]
	f := &Func{Package: profile.PackagePath(m.Package), Meta: m, Func: mf, Deps: mf.Deps, blocks: make(map[uint64][]numbering.BlockID)}
	if f.Deps != nil {
		t.anyDeps = true
		n, err := mf.Numbering()
		if err != nil {
			return 0, err
		}
		f.n = n
		cd, err := control.ControlDeps(mf.Graph())
		if err != nil {
			return 0, fmt.Errorf("function %s: %v", mf.Name, err)
		}
		f.control = cd
	}
	i := int32(len(t.funcs))
	t.funcs = append(t.funcs, f)
	t.index[k] = i
	return i, nil
}

// matches reports whether a call of function fn can be the call of site
// dc (as matcher.matches).
func (t *funcTable) matches(fn int32, dc *profile.DepCall) bool {
	f := t.funcs[fn]
	switch {
	case dc.Func != "":
		return dc.Func == f.Func.Name && dc.Package == f.Package
	case dc.Method != "":
		return strings.HasSuffix(f.Func.Name, "."+dc.Method)
	}
	return true
}

// instrumented reports whether a site's callee is known to be in an
// instrumented package.
func (t *funcTable) instrumented(dc *profile.DepCall) bool {
	return dc.Func != "" && t.pkgs[dc.Package]
}

// A ccall is a call of a goroutine's compact form.
type ccall struct {
	fn     int32
	parent int32 // -1 for a root
	next   int32 // the index after its subtree
	paths  uint32
	// first and end are the nodes of its subtree, ret its return node or
	// -1 (set by the replay).
	first, end, ret int32
}

// callBytes is what a ccall takes.
const callBytes = 7 * 4

// A gor is a goroutine's compact form.
type gor struct {
	file  int    // index of its recording
	id    uint64 // the runtime's goroutine id
	spawn uint64 // the spawn that started it, 0 if none
	calls []ccall
	arena []byte
	// first and end are its nodes; start is the node of the go statement
	// that started it, or -1.
	first, end int32
	start      int32
}

// pathIDs appends the path ids of call c to buf.
func (g *gor) pathIDs(c int32, buf []uint64) []uint64 {
	b := g.arena[g.calls[c].paths:]
	n, k := binary.Uvarint(b)
	b = b[k:]
	for range n {
		id, k := binary.Uvarint(b)
		b = b[k:]
		buf = append(buf, id)
	}
	return buf
}

// children calls fn with each child of call c, in order.
func (g *gor) children(c int32, fn func(int32)) {
	for ch := c + 1; ch < g.calls[c].next; ch = g.calls[ch].next {
		fn(ch)
	}
}

// A rawAccess is a memory event of a call as the stream reading keeps it
// for the replay to place.
type rawAccess struct {
	seq, addr, size, src uint64
	stmt                 uint32
	kind                 profile.WPPAccess
	flags                uint8
	path                 int32 // the paths its call had recorded before it
	next                 int32 // the next access of the same call, or -1
}

// A gorMem is what the replay that numbers a goroutine needs beside its
// compact form: its memory accesses, by call, and its spawns.
type gorMem struct {
	acc        []rawAccess
	head, tail []int32
	spawns     map[int32][]uint64
}

// readGor reads the events of goroutine gid of f into its compact form;
// with mem, it keeps its memory accesses and spawns too. It fails as
// builder.calls does.
func readGor(t *funcTable, f *profile.WPPFile, file int, gid uint64, mem bool) (*gor, *gorMem, error) {
	g := &gor{file: file, id: gid, start: -1}
	var m *gorMem
	if mem {
		m = &gorMem{spawns: make(map[int32][]uint64)}
	}
	var stack []int32
	var bufs [][]uint64
	var seq uint64
	flush := func() error {
		top := len(stack) - 1
		c := stack[top]
		if len(g.arena) > math.MaxUint32 {
			return errors.New("more paths than the compact form holds")
		}
		g.calls[c].paths = uint32(len(g.arena))
		g.arena = binary.AppendUvarint(g.arena, uint64(len(bufs[top])))
		for _, id := range bufs[top] {
			g.arena = binary.AppendUvarint(g.arena, id)
		}
		g.calls[c].next = int32(len(g.calls))
		stack = stack[:top]
		bufs[top] = bufs[top][:0]
		bufs = bufs[:top]
		return nil
	}
	err := f.Events(gid, func(e profile.WPPEvent) error {
		switch e.Kind {
		case profile.WPPMemory:
			seq += e.Seq
			if len(stack) > 0 && mem {
				top := stack[len(stack)-1]
				i := int32(len(m.acc))
				m.acc = append(m.acc, rawAccess{seq: seq, addr: e.Addr, size: e.Size, src: e.Src, stmt: e.Stmt, kind: e.Access, flags: e.Flags, path: int32(len(bufs[len(bufs)-1])), next: -1})
				if m.tail[top] >= 0 {
					m.acc[m.tail[top]].next = i
				} else {
					m.head[top] = i
				}
				m.tail[top] = i
			}
		case profile.WPPEnter:
			hash, ok := f.Packages[e.Pkg]
			if !ok {
				return fmt.Errorf("a call of package %d, which the file does not name", e.Pkg)
			}
			fi, err := t.fn(funcKey{hash, e.Func})
			if err != nil {
				return err
			}
			if len(g.calls) >= math.MaxInt32-1 {
				return errors.New("more calls than the compact form holds")
			}
			parent := int32(-1)
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			stack = append(stack, int32(len(g.calls)))
			g.calls = append(g.calls, ccall{fn: fi, parent: parent, next: -1, first: -1, end: -1, ret: -1})
			if len(bufs) < cap(bufs) {
				bufs = bufs[:len(bufs)+1]
			} else {
				bufs = append(bufs, nil)
			}
			if mem {
				m.head = append(m.head, -1)
				m.tail = append(m.tail, -1)
			}
		case profile.WPPPath:
			if int(e.Up) >= len(stack) {
				return fmt.Errorf("a path %d calls below the %d open", e.Up, len(stack))
			}
			k := len(stack) - 1 - int(e.Up)
			bufs[k] = append(bufs[k], e.Path)
		case profile.WPPSpawn:
			if len(stack) > 0 && mem {
				top := stack[len(stack)-1]
				m.spawns[top] = append(m.spawns[top], e.Spawn)
			}
		case profile.WPPStart:
			g.spawn = e.Spawn
		case profile.WPPReturn:
			if len(stack) == 0 {
				return errors.New("a return outside any call")
			}
			return flush()
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for len(stack) > 0 {
		if err := flush(); err != nil {
			return nil, nil, err
		}
	}
	g.arena = g.arena[:len(g.arena):len(g.arena)]
	g.calls = g.calls[:len(g.calls):len(g.calls)]
	return g, m, nil
}
