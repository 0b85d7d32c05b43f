package driver_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/export"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/profile"
)

// TestLineDirectives builds a package whose generated file has line
// directives in every form (testdata/linedirectives: //line f:L as goyacc
// writes them, //line f:L:C, /*line f:L:C*/, //line :L, //line :L:C; before
// the package clause, between declarations and inside functions; relative
// and absolute names) under pppexec -strict -trace. It must build and count
// what the oracle regenerates from the trace; the program, which prints
// where the compiler says each of its calls of here is, must print what the
// plain build prints; each of those lines must start a block of its
// function in the metadata; and the export in the -coverprofile format
// must name the blocks' files and lines as go's own coverage of the same
// run does (the oracle: go build -cover, go tool covdata textfmt, which
// go test -coverprofile runs), with the same counts.
func TestLineDirectives(t *testing.T) {
	t.Parallel() // builds and runs programs: the two cores share the work
	bin := pppexec(t)
	mod := t.TempDir()
	writeFiles(t, mod, map[string]string{
		"go.mod":         "module example.com/lines\n\ngo 1.25\n",
		"main.go":        readFile(t, "../../testdata/linedirectives/main.go"),
		"lines/gen.go":   readFile(t, "../../testdata/linedirectives/lines/gen.go"),
		"lines/plain.go": readFile(t, "../../testdata/linedirectives/lines/plain.go"),
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
	checkCoverProfile(t, mod, p)
	if funcs < 9 || len(lines) < 20 {
		t.Errorf("%d functions, %d positions: the test means more", funcs, len(lines))
	}
	t.Logf("%d functions, %d calls agree; %d positions", funcs, res.Calls, len(lines))
}

// checkCoverProfile builds the program in mod with go's own coverage (of
// package main too: its init makes the program write what it counted),
// runs it, and compares the -coverprofile lines that
// go tool covdata writes of the run with those that the export of p, the
// profile of the same run, writes. go test names a function's file by the
// //line directive before it (go/token's adjusted position), and a
// directive that names no file (//line :7) as "." in the package, where
// the export keeps the file it was in: such blocks are compared by their
// lines only.
func checkCoverProfile(t *testing.T, mod string, p *profile.Profile) {
	t.Helper()
	exe, covdir := filepath.Join(t.TempDir(), "cover"), t.TempDir()
	if out, code := run(t, mod, nil, "go", "build", "-cover", "-covermode=count", "-o", exe, "."); code != 0 {
		t.Fatalf("go build -cover: exit %d\n%s", code, out)
	}
	if out, code := run(t, mod, []string{"GOCOVERDIR=" + covdir}, exe); code != 0 {
		t.Fatalf("the -cover build: exit %d\n%s", code, out)
	}
	goProfile := filepath.Join(t.TempDir(), "cover.out")
	if out, code := run(t, mod, nil, "go", "tool", "covdata", "textfmt", "-i="+covdir, "-o="+goProfile); code != 0 {
		t.Fatalf("go tool covdata textfmt: exit %d\n%s", code, out)
	}
	var want []string // the blocks of package lines, which pppexec instruments
	for _, l := range strings.Split(readFile(t, goProfile), "\n") {
		if strings.HasPrefix(l, "example.com/lines/lines/") {
			want = append(want, l)
		}
	}
	r, errs := report.Build(p, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var b bytes.Buffer
	if err := export.WriteCoverProfile(&b, r, &export.Options{Mode: export.ModeCount}); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(b.String()), "\n")[1:]
	const unnamed = "example.com/lines/lines/.:"
	lines := func(l string) string { return l[strings.LastIndexByte(l, ':')+1:] }
	var unnamedLines []string
	for _, l := range want {
		if strings.HasPrefix(l, unnamed) {
			unnamedLines = append(unnamedLines, lines(l))
		}
	}
	for i, l := range got {
		if !slices.Contains(want, l) && slices.Contains(unnamedLines, lines(l)) {
			got[i] = unnamed + lines(l)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the export says\n%s\ngo's coverage of the same run\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(unnamedLines) == 0 || len(want) < 20 {
		t.Errorf("%d blocks, %d under //line :N: the test means more", len(want), len(unnamedLines))
	}
}
