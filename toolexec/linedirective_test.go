package toolexec_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLineDirectives builds a package whose generated file has line
// directives in every form (testdata/linedirectives: //line f:L as goyacc
// writes them, //line f:L:C, /*line f:L:C*/, //line :L, //line :L:C; before
// the package clause, between declarations and inside functions; relative
// and absolute names) under pppexec -strict -trace. It must build and count
// what the oracle regenerates from the trace; the program, which prints
// where the compiler says each of its calls of here is, must print what the
// plain build prints; and each of those lines must start a block of its
// function in the metadata.
func TestLineDirectives(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	mod := t.TempDir()
	writeFiles(t, mod, map[string]string{
		"go.mod":         "module example.com/lines\n\ngo 1.25\n",
		"main.go":        readFile(t, "../testdata/linedirectives/main.go"),
		"lines/gen.go":   readFile(t, "../testdata/linedirectives/lines/gen.go"),
		"lines/plain.go": readFile(t, "../testdata/linedirectives/lines/plain.go"),
	})
	plain := filepath.Join(t.TempDir(), "plain")
	if out, code := run(t, mod, nil, "go", "build", "-o", plain, "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	want, code := run(t, mod, nil, plain)
	if code != 0 {
		t.Fatalf("plain build: exit %d\n%s", code, want)
	}
	exe := filepath.Join(t.TempDir(), "lines")
	toolexec := bin + " -strict -trace -pkgs=example.com/lines/lines"
	if out, code := run(t, mod, nil, "go", "build", "-toolexec="+toolexec, "-o", exe, "."); code != 0 {
		t.Fatalf("go build -toolexec: exit %d\n%s", code, out)
	}
	prof := t.TempDir()
	got, code := run(t, mod, []string{"PATHCOVERDIR=" + prof}, exe)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, got)
	}
	if got != want {
		t.Errorf("the instrumented program printed\n%s\nthe plain one\n%s", got, want)
	}
	p := loadProfile(t, prof)
	res := checkOracle(t, prof, p)

	// Each line the plain build's calls of here were on starts a block of
	// the function in the metadata.
	starts := make(map[string]map[int]bool) // function → lines blocks start on
	funcs := 0
	for hash, m := range p.Metas {
		for fn, f := range m.Funcs {
			funcs++
			if len(p.Counts[hash][fn]) == 0 {
				t.Errorf("%s never ran", f.Name)
			}
			name := m.Package + "." + f.Name
			starts[name] = make(map[int]bool)
			for _, b := range f.Blocks {
				starts[name][b.Line] = true
			}
		}
	}
	lines := strings.Split(strings.TrimSpace(want), "\n")[1:]
	for _, l := range lines {
		fn, at, _ := strings.Cut(l, " ")
		i := strings.LastIndexByte(at, ':')
		n, err := strconv.Atoi(at[i+1:])
		if err != nil || starts[fn] == nil {
			t.Fatalf("bad line %q, or no function %s in the metadata", l, fn)
		}
		if !starts[fn][n] {
			t.Errorf("%s: no block of %s starts on line %d in the metadata", at, fn, n)
		}
	}
	if funcs < 9 || len(lines) < 20 {
		t.Errorf("%d functions, %d positions: the test means more", funcs, len(lines))
	}
	t.Logf("%d functions, %d calls agree; %d positions", funcs, res.Calls, len(lines))
}
