package source

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/mod/module"
)

// Names says where a source file is the way a Go developer reads it,
// whichever machine and directory the profile was recorded in:
//
//	the module's own file          example/expr/parse.go
//	another main module's          example.com/tools/cmd/x/main.go (a workspace)
//	the standard library's         std/strconv/atoi.go
//	a dependency's                 github.com/google/btree@v1.1.3/btree.go
//	one under the directory        sub/file.go (relative, as before)
//	any other                      as recorded (absolute)
//
// A module's own file is named relative to its module's directory, not to
// the current one: a name means the same from any package of the module,
// and slice and the other queries take it back (they match a suffix of the
// recorded name; std/ stands for GOROOT/src/). A dependency's name is its
// module path and version as go.mod spells them (the module cache escapes
// capitals: !burnt!sushi is BurntSushi), and is recognised in a module
// cache of another machine too (the .../pkg/mod/ of its name).
//
// The roots come from the go command, as Files' do, and only the file
// names are compared with them: naming reads no file that a profile names.
type Names struct {
	dir  string
	once sync.Once
	// goroot is GOROOT/src/ and modcache GOMODCACHE/, each as the go
	// command gives it and with symbolic links resolved; mods are the main
	// modules.
	goroot, modcache []string
	mods             []mainModule
	cwd              string
}

type mainModule struct {
	path string
	dirs []string // as given and resolved, each ending in a separator
	own  bool     // it holds the directory names are given from
}

var (
	namesMu sync.Mutex
	namesIn = map[string]*Names{}
)

// NamesIn returns the names of files as seen from directory dir (its
// module and GOROOT as the go command run there reports them). The roots
// are asked for once per directory and process, when a first name is.
func NamesIn(dir string) *Names {
	namesMu.Lock()
	defer namesMu.Unlock()
	n, ok := namesIn[dir]
	if !ok {
		n = &Names{dir: dir}
		namesIn[dir] = n
	}
	return n
}

// NamesUnder returns names given the roots instead of asking the go
// command, for tests: GOROOT, GOMODCACHE and the main modules' paths and
// directories, the first main module holding the current directory.
func NamesUnder(goroot, modcache string, mods ...[2]string) *Names {
	n := &Names{}
	n.once.Do(func() {
		n.setRoots(goroot, modcache, mods)
		if len(n.mods) > 0 {
			n.mods[0].own = true
		}
	})
	return n
}

func (n *Names) roots() {
	n.once.Do(func() {
		env := exec.Command("go", "env", "GOROOT", "GOMODCACHE")
		env.Dir = n.dir
		out, err := env.Output()
		if err != nil {
			return // every name stays as recorded, or relative
		}
		goroot, modcache, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		var mods [][2]string
		list := exec.Command("go", "list", "-m", "-f", "{{.Path}}\t{{.Dir}}")
		list.Dir = n.dir
		if out, err := list.Output(); err == nil {
			for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
				if p, d, ok := strings.Cut(line, "\t"); ok && d != "" {
					mods = append(mods, [2]string{p, d})
				}
			}
		}
		n.setRoots(strings.TrimSpace(goroot), strings.TrimSpace(modcache), mods)
		if abs, err := filepath.Abs(n.dir); err == nil {
			n.cwd = abs
			for i := range n.mods {
				for _, d := range n.mods[i].dirs {
					n.mods[i].own = n.mods[i].own || strings.HasPrefix(abs+string(filepath.Separator), d)
				}
			}
		}
	})
}

func (n *Names) setRoots(goroot, modcache string, mods [][2]string) {
	if goroot != "" {
		n.goroot = bothForms(filepath.Join(goroot, "src"))
	}
	if modcache != "" {
		n.modcache = bothForms(modcache)
	}
	for _, m := range mods {
		n.mods = append(n.mods, mainModule{path: m[0], dirs: bothForms(m[1])})
	}
}

// bothForms returns dir as given and with its links resolved, each ending
// in a separator: metadata names files as the compiler was given them.
func bothForms(dir string) []string {
	sep := string(filepath.Separator)
	forms := []string{strings.TrimSuffix(dir, sep) + sep}
	if r, err := realDir(dir); err == nil && r != forms[0] {
		forms = append(forms, r)
	}
	return forms
}

// under returns file's name below one of dirs, if it is below one.
func under(file string, dirs []string) (string, bool) {
	for _, d := range dirs {
		if rel, ok := strings.CutPrefix(file, d); ok && rel != "" {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// File returns file's name as a developer reads it (see Names).
func (n *Names) File(file string) string { return n.FileOf(file, "") }

// FileOf is File of a file of package pkg (an import path, "" if not
// known): a file under none of the roots (a module elsewhere on this
// machine, or on the machine that recorded) is named by its package's
// path and its own name, from the module's root if the package is in the
// module of the directory names are given from: the same package in a
// second checkout (a fixed version beside the buggy one) gets the same
// names. A file whose directory is not its package's (a //line
// directive's) can be named wrongly so; the name is for reading.
func (n *Names) FileOf(file, pkg string) string {
	if !filepath.IsAbs(file) {
		return file
	}
	n.roots()
	// The longest prefix wins: a module can be inside another's
	// directory, and GOROOT inside a module's (developing Go itself).
	best, bestLen := "", -1
	consider := func(name string, prefixLen int) {
		if prefixLen > bestLen {
			best, bestLen = name, prefixLen
		}
	}
	for _, m := range n.mods {
		if rel, ok := under(file, m.dirs); ok {
			name := rel
			if !m.own {
				name = m.path + "/" + rel
			}
			consider(name, len(file)-len(rel))
		}
	}
	if rel, ok := under(file, n.goroot); ok {
		consider("std/"+rel, len(file)-len(rel))
	}
	if rel, ok := under(file, n.modcache); ok {
		if name, ok := cacheName(rel); ok {
			consider(name, len(file)-len(rel))
		}
	}
	if bestLen >= 0 {
		return best
	}
	// A module cache of another machine.
	if _, rel, ok := strings.Cut(filepath.ToSlash(file), "/pkg/mod/"); ok {
		if name, ok := cacheName(rel); ok {
			return name
		}
	}
	if n.cwd != "" {
		if rel, err := filepath.Rel(n.cwd, file); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	if pkg != "" && strings.HasSuffix(file, ".go") {
		name := pkg + "/" + filepath.Base(file)
		for _, m := range n.mods {
			if rel, ok := strings.CutPrefix(name, m.path+"/"); ok && m.own {
				return rel
			}
		}
		return name
	}
	return file
}

// cacheName names a file of the module cache by its module's path and
// version, unescaped: rel is its name below GOMODCACHE, the module's
// directory ending in its first element with an @.
func cacheName(rel string) (string, bool) {
	elems := strings.Split(rel, "/")
	for i, e := range elems {
		at := strings.LastIndex(e, "@")
		if at < 0 {
			continue
		}
		if i == len(elems)-1 || elems[0] == "cache" {
			return "", false // not a file of a module's directory
		}
		path, err := module.UnescapePath(strings.Join(append(elems[:i:i], e[:at]), "/"))
		if err != nil {
			return "", false
		}
		version, err := module.UnescapeVersion(e[at+1:])
		if err != nil {
			return "", false
		}
		return path + "@" + version + "/" + strings.Join(elems[i+1:], "/"), true
	}
	return "", false
}

// Recorded returns the suffix of recorded file names that name, as File
// gives it, stands for: the name itself, or for std/ the name below
// GOROOT/src/ (a file name matches a name if it ends in it after a slash).
// A dependency's name is its module cache directory's, capitals escaped.
func Recorded(name string) string {
	name = filepath.ToSlash(name)
	if rel, ok := strings.CutPrefix(name, "std/"); ok {
		return "src/" + rel
	}
	if at := strings.Index(name, "@"); at >= 0 {
		if slash := strings.Index(name[at:], "/"); slash >= 0 {
			mod, err1 := module.EscapePath(name[:at])
			ver, err2 := module.EscapeVersion(name[at+1 : at+slash])
			if err1 == nil && err2 == nil {
				return mod + "@" + ver + name[at+slash:]
			}
		}
	}
	return name
}

// FuncName returns the short name of function name of the package whose
// import path is pkg, as a developer reads it beside its file: the last
// element of the package's path and the name as go/types spells it
// (expr.Parse, expr.(*parser).next, btree.(*BTreeG[T]).Get). A name given
// with its package's path before it loses the path.
func FuncName(pkg, name string) string {
	name = strings.TrimPrefix(name, pkg+".")
	elem := pkg[strings.LastIndex(pkg, "/")+1:]
	if elem == "" {
		return name
	}
	return elem + "." + name
}
