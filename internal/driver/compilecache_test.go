package driver

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeCompiler is a compiler for the compile cache's tests: it writes to
// -o a header with its -buildid, then the ID again and its Go files (as the
// real compiler writes the ID into the archive's header and its object's),
// to -asmhdr a line, counts its runs in $COUNT, and prints $SAY if set.
const fakeCompiler = `#!/bin/sh
if [ "$1" = "-V=full" ]; then echo "compile version fake"; exit 0; fi
echo run >> "$COUNT"
files=
while [ $# -gt 0 ]; do
	case "$1" in
	-o) o=$2; shift;;
	-buildid) id=$2; shift;;
	-asmhdr) h=$2; shift;;
	-trimpath|-p|-importcfg|-D|-cpuprofile|-I) shift;;
	-*) ;;
	*) files="$files $1";;
	esac
	shift
done
{ printf 'go object fake\nbuild id "%s"\n\nobject %s\n' "$id" "$id"; cat $files; } > "$o"
if [ -n "$h" ]; then echo "#define fake 1" > "$h"; fi
if [ -n "$SAY" ]; then echo "$SAY"; fi
exit 0
`

// compileFixture is a compile of one package in a go command's work
// directory, with one dependency.
type compileFixture struct {
	t        *testing.T
	compiler string
	count    string
	src      string // the package's Go file
	dep      string // the dependency's archive
	x        *Exec
}

func newCompileFixture(t *testing.T) *compileFixture {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for the fake compiler")
	}
	dir := t.TempDir()
	f := &compileFixture{t: t, compiler: filepath.Join(dir, "compile"), count: filepath.Join(dir, "count"),
		src: filepath.Join(dir, "p.go"), dep: filepath.Join(dir, "dep.a"), x: &Exec{Config: &Config{}}}
	needFreeSpace(t, dir)
	write(t, f.compiler, fakeCompiler, 0o755)
	write(t, f.src, "package p\n", 0o644)
	write(t, f.dep, "!<arch>\ngo object fake\nbuild id \"depaction/depcontent\"\n\ncode\n", 0o644)
	t.Setenv("COUNT", f.count)
	t.Setenv(cacheEnv, filepath.Join(dir, "cache"))
	t.Setenv(compileCacheEnv, "")
	t.Setenv("GOSSAFUNC", "")
	return f
}

func write(t *testing.T, name, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

// compile runs the fixture's compile through the cache in a new work
// directory, with build ID id (20 characters, as the go command's), and
// returns what it wrote to -o and printed.
func (f *compileFixture) compile(id string, extra ...string) (archive, printed string) {
	f.t.Helper()
	args := f.args(id, extra...)
	var out bytes.Buffer
	if code := f.x.runCached(args, &out, compileKey); code != 0 {
		f.t.Fatalf("compile: exit %d: %s", code, out.String())
	}
	o := args[2]
	data, err := os.ReadFile(o)
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data), out.String()
}

// args is the compile command in a new work directory, as the go command
// writes it.
func (f *compileFixture) args(id string, extra ...string) []string {
	work := f.t.TempDir()
	obj := filepath.Join(work, "b012")
	if err := os.Mkdir(obj, 0o777); err != nil {
		f.t.Fatal(err)
	}
	cfg := filepath.Join(obj, "importcfg")
	write(f.t, cfg, "# import config\npackagefile dep="+f.dep+"\n", 0o644)
	args := []string{f.compiler, "-o", filepath.Join(obj, "_pkg_.a"), "-trimpath", obj + "=>", "-p", "p",
		"-buildid", id + "/" + id, "-importcfg", cfg, "-pack", "-asmhdr", filepath.Join(obj, "go_asm.h")}
	return append(append(args, extra...), f.src)
}

// runs returns how many times the compiler ran.
func (f *compileFixture) runs() int {
	data, _ := os.ReadFile(f.count)
	return strings.Count(string(data), "run")
}

// direct returns what the compiler itself writes for the compile with
// build ID id: the oracle for what the cache restores.
func (f *compileFixture) direct(id string, extra ...string) string {
	f.t.Helper()
	args := f.args(id, extra...)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "COUNT="+filepath.Join(f.t.TempDir(), "count"))
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("%v: %s", err, out)
	}
	data, err := os.ReadFile(args[2])
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data)
}

const (
	id1 = "AAAAAAAAAAAAAAAAAAAA"
	id2 = "BBBBBBBBBBBBBBBBBBBB"
	id3 = "CCCCCCCCCCCCCCCCCCCC"
)

// TestCompileCacheReuses: a compile with the same inputs in another work
// directory, with another build ID, does not run the compiler, and gets
// the bytes the compiler would have written.
func TestCompileCacheReuses(t *testing.T) {
	f := newCompileFixture(t)
	first, _ := f.compile(id1)
	if f.runs() != 1 || !strings.Contains(first, id1) {
		t.Fatalf("first compile: %d runs, wrote %q", f.runs(), first)
	}
	second, _ := f.compile(id2)
	if f.runs() != 1 {
		t.Errorf("the same compile again ran the compiler (%d runs)", f.runs())
	}
	if want := f.direct(id2); second != want {
		t.Errorf("restored:\n%q\nthe compiler writes:\n%q", second, want)
	}
	// The dependency rebuilt with another action ID but the same content:
	// still a hit.
	write(t, f.dep, "!<arch>\ngo object fake\nbuild id \"otheraction/depcontent\"\n\ncode\n", 0o644)
	f.compile(id3)
	if f.runs() != 1 {
		t.Errorf("a dependency with the same content ID ran the compiler (%d runs)", f.runs())
	}
	// A go-command-only variable changes nothing, nor does one that only
	// tunes the compiler's process.
	for _, kv := range [][2]string{{"GOFLAGS", "-toolexec=something-else"}, {"GOMAXPROCS", "4"}, {"GOGC", "50"}, {"GOTRACEBACK", "crash"}} {
		t.Setenv(kv[0], kv[1])
		f.compile(id3)
		if f.runs() != 1 {
			t.Errorf("another %s ran the compiler (%d runs)", kv[0], f.runs())
		}
	}
}

// TestCompileCacheMisses: each input the compiler reads changes the key.
func TestCompileCacheMisses(t *testing.T) {
	f := newCompileFixture(t)
	f.compile(id1)
	changes := []struct {
		what   string
		change func()
	}{
		{"the source", func() { write(t, f.src, "package p // changed\n", 0o644) }},
		{"the dependency's content", func() {
			write(t, f.dep, "!<arch>\ngo object fake\nbuild id \"depaction/newcontent\"\n\ncode\n", 0o644)
		}},
		{"GOARCH", func() { t.Setenv("GOARCH", "arm64") }},
		{"GOEXPERIMENT", func() { t.Setenv("GOEXPERIMENT", "nocoverageredesign") }},
		{"the import path", func() { t.Setenv("TOOLEXEC_IMPORTPATH", "p [p.test]") }},
	}
	for _, c := range changes {
		before := f.runs()
		c.change()
		got, _ := f.compile(id2)
		if f.runs() != before+1 {
			t.Errorf("after changing %s, the compiler did not run", c.what)
		}
		if want := f.direct(id2); got != want {
			t.Errorf("after changing %s: wrote %q, want %q", c.what, got, want)
		}
		f.compile(id3)
		if f.runs() != before+1 {
			t.Errorf("after changing %s, the second compile missed", c.what)
		}
	}
	before := f.runs()
	f.compile(id1, "-N")
	if f.runs() != before+1 {
		t.Errorf("another flag did not run the compiler")
	}
}

// TestCompileCacheWorkingDirectory: the go command runs every compile in
// its own working directory, with absolute file names, so a compile from
// another directory hits; a compile that names a file relative to the
// working directory reads that directory's file, and misses when it
// differs.
func TestCompileCacheWorkingDirectory(t *testing.T) {
	f := newCompileFixture(t)
	a, b := t.TempDir(), t.TempDir()
	t.Chdir(a)
	f.compile(id1)
	t.Chdir(b)
	f.compile(id2)
	if f.runs() != 1 {
		t.Errorf("a compile of absolute names from another directory ran the compiler (%d runs)", f.runs())
	}

	write(t, filepath.Join(a, "q.go"), "package p // a's\n", 0o644)
	write(t, filepath.Join(b, "q.go"), "package p // b's\n", 0o644)
	for _, c := range []struct {
		dir, want string
		runs      int
	}{
		{a, "a's", 2},
		{b, "b's", 3},
		{a, "a's", 3}, // a hit
	} {
		t.Chdir(c.dir)
		got, _ := f.compile(id3, "q.go")
		if f.runs() != c.runs || !strings.Contains(got, c.want) {
			t.Errorf("q.go from %s: %d runs, want %d; wrote %q, want %s", c.dir, f.runs(), c.runs, got, c.want)
		}
	}
	write(t, filepath.Join(a, "q.go"), "package p // a's, changed\n", 0o644)
	t.Chdir(a)
	if got, _ := f.compile(id1, "q.go"); f.runs() != 4 || !strings.Contains(got, "changed") {
		t.Errorf("after q.go changed: %d runs, wrote %q", f.runs(), got)
	}
}

// TestCompileCacheRefuses: compiles that write more than the cache keeps,
// print something, or read what it does not hash always run.
func TestCompileCacheRefuses(t *testing.T) {
	f := newCompileFixture(t)
	dir := t.TempDir()
	for _, extra := range [][]string{
		{"-json=0,file://" + dir},
		{"-cpuprofile", filepath.Join(dir, "cpu")},
		{"-d=ssa/check/on"},
		{"-D", dir}, // a directory
	} {
		before := f.runs()
		f.compile(id1, extra...)
		f.compile(id2, extra...)
		if f.runs() != before+2 {
			t.Errorf("with %q the compiler ran %d times for two compiles, want 2", extra, f.runs()-before)
		}
	}
	before := f.runs()
	f.compile(id1, "-d=checkptr")
	f.compile(id2, "-d=checkptr")
	if f.runs() != before+1 {
		t.Errorf("with -d=checkptr the compiler ran %d times for two compiles, want 1", f.runs()-before)
	}

	// What a compile prints is the go command's to replay: never cached.
	t.Setenv("SAY", "a warning")
	before = f.runs()
	for _, id := range []string{id1, id2} {
		if _, printed := f.compile(id); !strings.Contains(printed, "a warning") {
			t.Errorf("the compiler's output was not passed on: %q", printed)
		}
	}
	if f.runs() != before+2 {
		t.Errorf("a compile that prints was cached")
	}
	t.Setenv("SAY", "")

	// Off.
	t.Setenv(compileCacheEnv, "off")
	before = f.runs()
	f.compile(id1)
	f.compile(id2)
	if f.runs() != before+2 {
		t.Errorf("with %s=off the cache was used", compileCacheEnv)
	}
}

// TestCompileCacheDamaged: an entry whose files are damaged, or that
// another user could have written, is compiled again, not used.
func TestCompileCacheDamaged(t *testing.T) {
	f := newCompileFixture(t)
	f.compile(id1)
	entries, _ := filepath.Glob(filepath.Join(os.Getenv(cacheEnv), "compile", "*", "*-a"))
	if len(entries) != 1 {
		t.Fatalf("%d archives in the cache, want 1", len(entries))
	}
	archive := entries[0]
	data, _ := os.ReadFile(archive)

	damage := []struct {
		what string
		do   func()
	}{
		{"a changed byte", func() {
			d := bytes.Clone(data)
			d[len(d)-2] ^= 1
			write(t, archive, string(d), 0o600)
		}},
		{"writable by others", func() {
			write(t, archive, string(data), 0o600)
			os.Chmod(archive, 0o666)
		}},
		{"a symbolic link", func() {
			other := filepath.Join(t.TempDir(), "a")
			write(t, other, string(data), 0o600)
			os.Remove(archive)
			os.Symlink(other, archive)
		}},
		{"no index", func() { os.Remove(strings.TrimSuffix(archive, "-a") + "-id") }},
		{"no assembly header, though the compile writes one", func() {
			index := strings.TrimSuffix(archive, "-a") + "-id"
			data, _ := os.ReadFile(index)
			var kept []string
			for _, l := range strings.Split(string(data), "\n") {
				if !strings.HasPrefix(l, "h ") {
					kept = append(kept, l)
				}
			}
			write(t, index, strings.Join(kept, "\n"), 0o600)
			os.Remove(strings.TrimSuffix(archive, "-a") + "-h")
		}},
	}
	for _, d := range damage {
		d.do()
		before := f.runs()
		got, _ := f.compile(id2)
		if f.runs() != before+1 {
			t.Errorf("%s: the entry was used", d.what)
		}
		if want := f.direct(id2); got != want {
			t.Errorf("%s: wrote %q, want %q", d.what, got, want)
		}
		// The compile stored a good entry again.
		os.Remove(archive)
		f.compile(id1)
		data, _ = os.ReadFile(archive)
	}
}

// TestCompileCacheTrim: entries unused for trimAge go, used ones stay.
func TestCompileCacheTrim(t *testing.T) {
	f := newCompileFixture(t)
	f.compile(id1)
	write(t, f.src, "package p // another\n", 0o644)
	f.compile(id1)
	root := filepath.Join(os.Getenv(cacheEnv), "compile")
	indexes, _ := filepath.Glob(filepath.Join(root, "*", "*-id"))
	if len(indexes) != 2 {
		t.Fatalf("%d entries, want 2", len(indexes))
	}
	old := time.Now().Add(-trimAge - time.Hour)
	os.Chtimes(indexes[0], old, old)
	os.Chtimes(filepath.Join(os.Getenv(cacheEnv), "trimmed"), old, old)
	orphan := filepath.Join(filepath.Dir(indexes[0]), strings.Repeat("0", 64)+"-a")
	write(t, orphan, "torn", 0o600)
	os.Chtimes(orphan, old, old)

	write(t, f.src, "package p // a third\n", 0o644)
	f.compile(id1) // stores, and trims
	for name, want := range map[string]bool{indexes[0]: false, strings.TrimSuffix(indexes[0], "-id") + "-a": false, orphan: false, indexes[1]: true} {
		if _, err := os.Stat(name); (err == nil) != want {
			t.Errorf("%s: exists %v after the trim, want %v", filepath.Base(name), err == nil, want)
		}
	}
}

// TestVetKey: vet's key covers the files and facts it reads, not where
// the go command put them, and a vet.cfg it does not know is not cached.
func TestVetKey(t *testing.T) {
	dir := t.TempDir()
	vet := filepath.Join(dir, "vet")
	write(t, vet, "#!/bin/sh\n", 0o755)
	src := filepath.Join(dir, "p.go")
	write(t, src, "package p\n", 0o644)
	dep := filepath.Join(dir, "dep.a")
	write(t, dep, "!<arch>\ngo object fake\nbuild id \"a/c\"\n", 0o644)
	facts := filepath.Join(dir, "dep.vetx")
	write(t, facts, "facts", 0o644)
	key := func(edit func(cfg map[string]any)) (string, bool) {
		t.Helper()
		obj := filepath.Join(t.TempDir(), "b007")
		os.Mkdir(obj, 0o777)
		cfg := map[string]any{
			"ID": "p", "Compiler": "gc", "Dir": dir, "ImportPath": "p", "GoFiles": []string{src},
			"ImportMap": map[string]string{"dep": "dep"}, "PackageFile": map[string]string{"dep": dep},
			"PackageVetx": map[string]string{"dep": facts}, "VetxOnly": true,
			"VetxOutput": filepath.Join(obj, "vet.out"), "Stdout": filepath.Join(obj, "vet.stdout"), "GoVersion": "go1.25",
		}
		if edit != nil {
			edit(cfg)
		}
		data, _ := json.Marshal(cfg)
		name := filepath.Join(obj, "vet.cfg")
		write(t, name, string(data), 0o644)
		k, ok := vetKey([]string{vet, "-unsafeptr=false", name}, "vet version fake")
		return k.sum, ok
	}
	base, ok := key(nil)
	if !ok {
		t.Fatal("a go command's vet.cfg was not cacheable")
	}
	if again, _ := key(nil); again != base {
		t.Errorf("the same vet in another work directory has another key")
	}
	for what, change := range map[string]func(){
		"the source":             func() { write(t, src, "package p // changed\n", 0o644) },
		"the dependency's facts": func() { write(t, facts, "other facts", 0o644) },
		"the dependency's content ID": func() {
			write(t, dep, "!<arch>\ngo object fake\nbuild id \"a/d\"\n", 0o644)
		},
	} {
		change()
		k, _ := key(nil)
		if k == base {
			t.Errorf("changing %s did not change the key", what)
		}
		base = k
	}
	if k, _ := key(func(cfg map[string]any) { cfg["VetxOnly"] = false }); k == base {
		t.Errorf("VetxOnly is not in the key")
	}
	for what, edit := range map[string]func(map[string]any){
		"an unknown field": func(cfg map[string]any) { cfg["NewInput"] = "/some/file" },
		"FixArchive":       func(cfg map[string]any) { cfg["FixArchive"] = filepath.Join(dir, "fix.zip") },
		"a missing file":   func(cfg map[string]any) { cfg["GoFiles"] = []string{filepath.Join(dir, "gone.go")} },
	} {
		if _, ok := key(edit); ok {
			t.Errorf("with %s, vet was cacheable", what)
		}
	}
}

// FuzzParseIndex reads anything as a compile cache entry's index: an index
// accepted holds outputs of known kinds, each with a sum of 64 lowercase
// hex digits, and is read back the same from what encode writes of it.
func FuzzParseIndex(f *testing.F) {
	sum := strings.Repeat("0123456789abcdef", 4)
	f.Add([]byte(compileCacheVersion + "\nbuildid AAAA/BBBB\na " + sum + "\nh " + sum + "\n"))
	f.Add([]byte(compileCacheVersion + "\nbuildid -\nx " + sum + "\n"))
	f.Add([]byte(compileCacheVersion + "\nbuildid -\na " + strings.ToUpper(sum) + "\n"))
	f.Add([]byte(compileCacheVersion + "\nbuildid -\nz " + sum + "\n"))
	f.Add([]byte("pathcover compile cache 0\nbuildid -\na " + sum + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := parseIndex(data)
		if err != nil {
			return
		}
		if len(idx.sums) == 0 {
			t.Fatal("an index without outputs accepted")
		}
		for kind, s := range idx.sums {
			if !slices.Contains(outputKinds, kind) || !isHexSum(s) {
				t.Fatalf("accepted output %q with sum %q", kind, s)
			}
		}
		again, err := parseIndex(idx.encode())
		if err != nil {
			t.Fatalf("what encode wrote of an accepted index is refused: %v", err)
		}
		if again.buildID != idx.buildID || !maps.Equal(again.sums, idx.sums) {
			t.Fatalf("read back %+v, want %+v", again, idx)
		}
	})
}
