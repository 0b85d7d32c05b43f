package driver

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeAssembler writes to -o its source files and every .h file of its -I
// directories, and counts its runs in $COUNT: what it wrote changes with
// every file the cache must key on.
const fakeAssembler = `#!/bin/sh
if [ "$1" = "-V=full" ]; then echo "asm version fake"; exit 0; fi
echo run >> "$COUNT"
files=
incs=
while [ $# -gt 0 ]; do
	case "$1" in
	-o) o=$2; shift;;
	-I) incs="$incs $2"; shift;;
	-p|-trimpath|-D) shift;;
	-*) ;;
	*) files="$files $1";;
	esac
	shift
done
{ cat $files; for d in $incs; do cat "$d"/*.h 2>/dev/null; done; } > "$o"
exit 0
`

// TestAsmCache: an assembler run with the same sources and included files
// in another work directory hits; a change to a file that a source
// includes, directly or through another header, in its own directory or
// an -I directory, misses; a header that nothing includes changes
// nothing; an include that cannot be found is never cached.
func TestAsmCache(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for the fake assembler")
	}
	dir := t.TempDir()
	needFreeSpace(t, dir)
	asm := filepath.Join(dir, "asm")
	count := filepath.Join(dir, "count")
	write(t, asm, fakeAssembler, 0o755)
	t.Setenv("COUNT", count)
	t.Setenv(cacheEnv, filepath.Join(dir, "cache"))
	t.Setenv(compileCacheEnv, "")
	pkg, inc := filepath.Join(dir, "pkg"), filepath.Join(dir, "include")
	for _, d := range []string{pkg, inc} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(pkg, "a.s"), "#include \"textflag.h\"\n#include \"local.h\"\nTEXT a\n", 0o644)
	write(t, filepath.Join(pkg, "local.h"), "#include \"deep.h\"\n", 0o644)
	write(t, filepath.Join(inc, "textflag.h"), "#define NOSPLIT 4\n", 0o644)
	write(t, filepath.Join(inc, "deep.h"), "#define DEEP 1\n", 0o644)
	write(t, filepath.Join(inc, "unused.h"), "#define UNUSED 1\n", 0o644)
	t.Chdir(pkg)
	x := &Exec{Config: &Config{}}
	runs := func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "run")
	}
	assemble := func(sources ...string) string {
		t.Helper()
		obj := filepath.Join(t.TempDir(), "b007")
		if err := os.Mkdir(obj, 0o777); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(obj, "a.o")
		args := append([]string{asm, "-p", "p", "-trimpath", obj + "=>", "-I", obj + "/", "-I", inc, "-o", out}, sources...)
		var stderr bytes.Buffer
		if code := x.runCached(args, &stderr, asmKey); code != 0 {
			t.Fatalf("asm: exit %d: %s", code, stderr.String())
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	for _, c := range []struct {
		what   string
		change func()
		runs   int
		wrote  string
	}{
		{"the first run", func() {}, 1, "NOSPLIT 4"},
		{"the same inputs in another work directory", func() {}, 1, "NOSPLIT 4"},
		{"a header that nothing includes", func() { write(t, filepath.Join(inc, "unused.h"), "#define UNUSED 2\n", 0o644) }, 1, "UNUSED 1"},
		{"an included header of an -I directory", func() { write(t, filepath.Join(inc, "textflag.h"), "#define NOSPLIT 5\n", 0o644) }, 2, "NOSPLIT 5"},
		{"a header included by a header", func() { write(t, filepath.Join(inc, "deep.h"), "#define DEEP 2\n", 0o644) }, 3, "DEEP 2"},
		{"the source", func() {
			write(t, filepath.Join(pkg, "a.s"), "#include \"textflag.h\"\n#include \"local.h\"\nTEXT b\n", 0o644)
		}, 4, "TEXT b"},
	} {
		c.change()
		got := assemble("./a.s")
		if runs() != c.runs {
			t.Errorf("after %s: %d runs, want %d", c.what, runs(), c.runs)
		}
		if !strings.Contains(got, c.wrote) {
			t.Errorf("after %s: wrote %q, want it to hold %q", c.what, got, c.wrote)
		}
	}
	// (The fake writes every header of the -I directories: a hit after
	// unused.h changed restores the object that the run before wrote.)

	write(t, filepath.Join(pkg, "b.s"), "#include \"missing.h\"\n", 0o644)
	before := runs()
	assemble("./b.s")
	assemble("./b.s")
	if runs() != before+2 {
		t.Errorf("with an include that cannot be found, %d runs of 2", runs()-before)
	}
}
