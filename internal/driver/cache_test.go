package driver_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pathcover/pathcover/internal/driver"
	"github.com/pathcover/pathcover/rt"
)

// These tests play another local user who plants a runtime archive where
// pppexec keeps its compiled runtime, and an unlucky user whose cached
// archive changed: pppexec must never link what it did not build itself.

// otherUID is the user the tests make own what "another user" planted.
const otherUID = 54321

// plantedMsg is what the planted runtime prints when a program starts.
const plantedMsg = "planted runtime ran"

// cacheModule writes a module whose package p is instrumented, and whose
// program prints the sign of each number in $SIGNS. It imports syscall
// alone, which rt imports too, so that a build under a new configuration
// compiles few standard packages again.
func cacheModule(t *testing.T) string {
	t.Helper()
	return writeModule(t, map[string]string{
		"p/p.go": strings.Replace(smallPkg, "package m", "package p", 1),
		"main.go": `package main

import (
	"syscall"

	"example.com/m/p"
)

func main() {
	s, _ := syscall.Getenv("SIGNS")
	n, neg, in := 0, false, false
	for i := 0; i <= len(s); i++ {
		switch {
		case i < len(s) && s[i] == '-':
			neg, in = true, true
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			n, in = n*10+int(s[i]-'0'), true
		case in:
			if neg {
				n = -n
			}
			println(p.Sign(n))
			n, neg, in = 0, false, false
		}
	}
}
`,
	})
}

// touchP changes package p's source, so that the next build compiles it
// again (and so reads the runtime from the cache) instead of reusing it.
func touchP(t *testing.T, mod string, n int) {
	t.Helper()
	src := strings.Replace(smallPkg, "package m", "package p", 1) + fmt.Sprintf("\nconst version = %d\n", n)
	if err := os.WriteFile(filepath.Join(mod, "p", "p.go"), []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
}

// goEnv returns go env NAME as this process sees it.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// noHomeEnv is the environment of a CI image without a home: HOME,
// XDG_CACHE_HOME and PATHCOVERCACHE unset, GOCACHE and GOPATH given (the go
// command needs them then), TMPDIR as given.
func noHomeEnv(t *testing.T, tmpdir string) []string {
	return []string{"HOME=", "XDG_CACHE_HOME=", "PATHCOVERCACHE=", "TMPDIR=" + tmpdir,
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOPATH=" + goEnv(t, "GOPATH"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE")}
}

// buildAndRun builds the module with pppexec in env, runs the program on
// the numbers -3 0 3 (or signs, if given), and returns the build's output,
// the program's, and the profile directory it wrote into.
func buildAndRun(t *testing.T, bin, mod string, env []string, flags string, signs ...string) (buildOut, progOut, prof string) {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "m")
	buildOut, code := run(t, mod, env, "go", "build", "-toolexec="+bin+" "+flags, "-o", exe, ".")
	if code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, buildOut)
	}
	prof = t.TempDir()
	if len(signs) == 0 {
		signs = []string{"-3", "0", "3"}
	}
	progOut, code = run(t, mod, append(env, "PATHCOVERDIR="+prof, "SIGNS="+strings.Join(signs, " ")), exe)
	if code != 0 {
		t.Fatalf("program: exit %d\n%s", code, progOut)
	}
	return buildOut, progOut, prof
}

// runtimeEntries returns the directories of compiled runtimes in a cache.
func runtimeEntries(t *testing.T, cache string) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(cache, "rt-*"))
	var entries []string
	for _, d := range dirs {
		if fileExists(filepath.Join(d, "rt.a")) {
			entries = append(entries, d)
		}
	}
	return entries
}

func fileExists(name string) bool {
	_, err := os.Lstat(name)
	return err == nil
}

// plant replaces the runtime archive of each entry of a cache with one that
// prints plantedMsg when the program starts, compiled against the same
// standard packages (from the entry's deps.json), so that it links. With
// forge, if the entry has a file of SHA-256 sums, it is rewritten to match,
// as an attacker would.
func plant(t *testing.T, cache string, forge bool) {
	t.Helper()
	entries := runtimeEntries(t, cache)
	if len(entries) == 0 {
		t.Fatalf("no compiled runtime in %s to plant over", cache)
	}
	src := t.TempDir()
	var files []string
	names, _ := fs.ReadDir(rt.Source, ".")
	for _, e := range names {
		name := e.Name()
		if strings.HasSuffix(name, "_test.go") || name == "source.go" {
			continue
		}
		data, _ := fs.ReadFile(rt.Source, name)
		if err := os.WriteFile(filepath.Join(src, name), data, 0o666); err != nil {
			t.Fatal(err)
		}
		if ok, err := build.Default.MatchFile(src, name); err == nil && ok {
			files = append(files, filepath.Join(src, name))
		}
	}
	evil := filepath.Join(src, "zz_planted.go")
	os.WriteFile(evil, []byte("package rt\n\nfunc init() { println(\""+plantedMsg+"\") }\n"), 0o666)
	files = append(files, evil)
	for _, entry := range entries {
		var deps map[string]string
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(entry, "deps.json"))), &deps); err != nil {
			t.Fatal(err)
		}
		var cfg strings.Builder
		for p, a := range deps {
			fmt.Fprintf(&cfg, "packagefile %s=%s\n", p, a)
		}
		cfgFile := filepath.Join(src, "importcfg")
		os.WriteFile(cfgFile, []byte(cfg.String()), 0o666)
		archive := filepath.Join(src, "planted.a")
		args := append([]string{"tool", "compile", "-o", archive, "-p", driver.RuntimePath, "-importcfg", cfgFile,
			"-pack", "-complete", "-trimpath", src + "=>" + driver.RuntimePath}, files...)
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("compiling the planted runtime: %v\n%s", err, out)
		}
		data, err := os.ReadFile(archive)
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(entry, "rt.a")
		os.Chmod(target, 0o600)
		if err := os.WriteFile(target, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if forge {
			forgeSums(t, entry)
		}
	}
}

// forgeSums rewrites an entry's SHA256SUMS, if it has one, to match its
// files.
func forgeSums(t *testing.T, entry string) {
	t.Helper()
	sums := filepath.Join(entry, "SHA256SUMS")
	if !fileExists(sums) {
		return
	}
	var b strings.Builder
	for _, name := range []string{"rt.a", "deps.json"} {
		data, err := os.ReadFile(filepath.Join(entry, name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h[:]), name)
	}
	os.Chmod(sums, 0o600)
	if err := os.WriteFile(sums, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// chownAll makes uid the owner of everything under dir.
func chownAll(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, uid)
	})
	if err != nil {
		t.Skipf("cannot give files to another user: %v", err)
	}
}

// chmodAll sets the mode of dir's directories and files.
func chmodAll(t *testing.T, dir string, dirMode, fileMode fs.FileMode) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(path, dirMode)
		}
		return os.Chmod(path, fileMode)
	})
}

// instrumented reports whether the program wrote a profile.
func instrumented(t *testing.T, prof string) bool {
	t.Helper()
	metas, _ := filepath.Glob(filepath.Join(prof, "*.meta"))
	return len(metas) > 0
}

// TestRuntimeCacheShared: with no home (HOME, XDG_CACHE_HOME and
// PATHCOVERCACHE unset), pppexec used to keep its runtime in
// $TMPDIR/pathcover, whoever owned it, and linked whatever rt.a another
// user had planted there. It must not link a planted archive, whether the
// shared directory is found by default or named by PATHCOVERCACHE, and a
// directory it cannot trust makes one message naming PATHCOVERCACHE and a
// plain build (the build never gets worse).
func TestRuntimeCacheShared(t *testing.T) {
	bin := pppexec(t)
	mod := cacheModule(t)
	tmpdir := t.TempDir()
	shared := filepath.Join(tmpdir, "pathcover")
	env := noHomeEnv(t, tmpdir)

	// The attacker's runtime, in the shared directory, under the key
	// pppexec computes (got by letting pppexec fill it first).
	if out, _, _ := buildAndRun(t, bin, mod, append(env, "PATHCOVERCACHE="+shared), ""); strings.Contains(out, "PATHCOVERCACHE") {
		t.Fatalf("a private cache directory was refused:\n%s", out)
	}
	plant(t, shared, true)
	chownAll(t, shared, otherUID)
	chmodAll(t, shared, 0o777, 0o666)

	t.Run("default", func(t *testing.T) {
		touchP(t, mod, 1)
		out, prog, prof := buildAndRun(t, bin, mod, env, "")
		if strings.Contains(prog, plantedMsg) {
			t.Fatalf("the program runs the planted runtime:\n%s", prog)
		}
		if !instrumented(t, prof) {
			t.Errorf("the program was not instrumented; build output:\n%s", out)
		}
	})
	t.Run("refused", func(t *testing.T) {
		env := append(env, "PATHCOVERCACHE="+shared)
		touchP(t, mod, 2)
		out, prog, prof := buildAndRun(t, bin, mod, env, "")
		if strings.Contains(prog, plantedMsg) {
			t.Fatalf("the program runs the planted runtime:\n%s", prog)
		}
		if instrumented(t, prof) {
			t.Errorf("a build with an untrusted cache directory was instrumented")
		}
		if n := strings.Count(out, "set PATHCOVERCACHE"); n != 1 || !strings.Contains(out, fmt.Sprintf("owned by uid %d", otherUID)) {
			t.Errorf("the build should say once that %s is another user's, naming PATHCOVERCACHE; it said:\n%s", shared, out)
		}
		if prog != "-1\n0\n1\n" {
			t.Errorf("program output %q", prog)
		}
		// -strict makes it an error (package p alone, which imports
		// nothing: the rest would be compiled for nothing).
		if out, code := run(t, mod, env, "go", "build", "-toolexec="+bin+" -strict", "./p"); code == 0 || !strings.Contains(out, "PATHCOVERCACHE") {
			t.Errorf("go build -strict: exit %d; want a failure naming PATHCOVERCACHE:\n%s", code, out)
		}
	})
}

// TestRuntimeCacheTampered: in a cache directory of the user's own, a
// runtime archive that changed since pppexec wrote it is not linked; the
// runtime is built again. The same for an entry another user made.
func TestRuntimeCacheTampered(t *testing.T) {
	bin := pppexec(t)
	mod := cacheModule(t)
	cache := filepath.Join(t.TempDir(), "cache")
	env := []string{"PATHCOVERCACHE=" + cache}
	buildAndRun(t, bin, mod, env, "")
	for i, c := range []struct {
		name  string
		forge bool // rewrite the sums to match
		uid   int
	}{
		{"changed archive", false, os.Geteuid()},
		{"other user's entry", true, otherUID},
	} {
		t.Run(c.name, func(t *testing.T) {
			plant(t, cache, c.forge)
			for _, e := range runtimeEntries(t, cache) {
				chownAll(t, e, c.uid)
			}
			touchP(t, mod, 10+i)
			out, prog, prof := buildAndRun(t, bin, mod, env, "")
			if strings.Contains(prog, plantedMsg) {
				t.Fatalf("the program runs the planted runtime:\n%s", prog)
			}
			if !instrumented(t, prof) {
				t.Errorf("the runtime was not built again; build output:\n%s", out)
			}
		})
	}
}

// TestCompileCacheSameBytes: after a build in one configuration, a build in
// another (which misses the go command's cache for every package, the
// standard library too) compiles none of the packages it does not
// instrument, and the archives it gets from pppexec's compile cache are the
// bytes that the compiler writes for the same build without the cache (go
// list -a, in an empty go cache). That holds whatever the two configurations record
// (counts, flight rings, shards, whole program paths), since every build
// patches the runtime alike: the runtime compiled with its recorder field
// comes from the cache too.
func TestCompileCacheSameBytes(t *testing.T) {
	t.Parallel()
	bin := pppexec(t)
	mainGo := map[string]string{"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(len(os.Args) - 1) }\n"}
	mod := writeModule(t, mainGo)
	cache := t.TempDir()
	driver.NeedFreeSpace(t, cache)
	exportsIn := func(mod, gocache, config string, extra ...string) map[string]string {
		t.Helper()
		env := append([]string{"GOCACHE=" + gocache, "PATHCOVERCACHE=" + cache, "GOFLAGS="}, extra...)
		out, code := run(t, mod, env, "go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", "-toolexec="+bin+" "+config, ".")
		if code != 0 {
			t.Fatalf("go list -export: exit %d\n%s", code, out)
		}
		m := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if path, file, ok := strings.Cut(line, " "); ok && file != "" {
				m[path] = file
			}
		}
		return m
	}
	exports := func(gocache, config string, extra ...string) map[string]string {
		t.Helper()
		return exportsIn(mod, gocache, config, extra...)
	}
	entries := func() int {
		idx, _ := filepath.Glob(filepath.Join(cache, "compile", "*", "*-id"))
		return len(idx)
	}
	goCache := t.TempDir()
	exports(goCache, "-wpp -o "+t.TempDir())
	stored := entries()
	if stored < 10 {
		t.Fatalf("a cold build stored %d compiles in the cache", stored)
	}
	// Every other configuration, whatever it records, compiles only the
	// instrumented package: the runtime is patched alike in all of them
	// (goroutine.go), so the standard library is the same objects. (These
	// two and -wpp were the three ways the runtime was compiled before.)
	for _, config := range []string{"", "-flight=8"} {
		before := entries()
		exports(goCache, config+" -dir "+t.TempDir())
		if added := entries() - before; added > 2 {
			t.Errorf("a build with %q after one with -wpp stored %d more compiles; want only the instrumented package's (at most 2)", config, added)
		}
	}
	// The go command runs the compiler in its own working directory: a
	// build of another module, in another directory, gets the standard
	// library from the cache too, the bytes that the compiler writes there.
	mod2 := writeModule(t, mainGo)
	stored = entries()
	second := "-wpp -o " + t.TempDir()
	cached := exportsIn(mod2, goCache, second)
	if added := entries() - stored; added > 2 {
		t.Errorf("a build of another module in another configuration stored %d more compiles; want only the instrumented package's (at most 2)", added)
	}
	// What the compiler writes, from go list -a, which rebuilds every
	// package: pppexec leaves its cache alone then. A hit marks an entry
	// used (its index's time) when the mark is older than an hour: with
	// -a none is, without it they all are.
	indexes, _ := filepath.Glob(filepath.Join(cache, "compile", "*", "*-id"))
	old := time.Now().Add(-2 * time.Hour)
	used := func() int {
		n := 0
		for _, name := range indexes {
			if info, err := os.Stat(name); err == nil && info.ModTime().After(old.Add(time.Minute)) {
				n++
			}
		}
		return n
	}
	for _, name := range indexes {
		os.Chtimes(name, old, old)
	}
	compiled := exportsIn(mod2, t.TempDir(), second, "GOFLAGS=-a")
	if n := used(); n != 0 {
		t.Errorf("with -a, %d of %d cache entries were used", n, len(indexes))
	}
	if len(cached) != len(compiled) || cached["runtime"] == "" {
		t.Fatalf("%d packages with the cache, %d without; runtime %q", len(cached), len(compiled), cached["runtime"])
	}
	same := 0
	for path, file := range cached {
		a, b := readFile(t, file), readFile(t, compiled[path])
		if a != b {
			t.Errorf("%s: the cache's archive (%d bytes) is not the compiler's (%d bytes)", path, len(a), len(b))
			continue
		}
		same++
	}
	t.Logf("%d archives the same, %d compiles and assembler runs stored", same, stored)
	exports(t.TempDir(), second)
	if n := used(); n < len(indexes)/2 {
		t.Errorf("a build in a new go cache used %d of %d cache entries", n, len(indexes))
	}
}

// TestVetCacheFacts: go vet in a new configuration of pppexec takes the
// facts of the packages the main one imports from pppexec's cache, and
// they are the facts vet computes: printf's, that dep.Logf formats, find
// the bad call in main as plain go vet does.
func TestVetCacheFacts(t *testing.T) {
	t.Parallel()
	bin := pppexec(t)
	mod := writeModule(t, map[string]string{
		"dep/dep.go": "package dep\n\nimport \"fmt\"\n\nfunc Logf(format string, args ...any) { fmt.Printf(format, args...) }\n",
		"main.go":    "package main\n\nimport \"example.com/m/dep\"\n\nfunc main() { dep.Logf(\"%d\\n\", \"not a number\") }\n",
	})
	cache := t.TempDir()
	driver.NeedFreeSpace(t, cache)
	env := []string{"GOCACHE=" + t.TempDir(), "PATHCOVERCACHE=" + cache, "GOFLAGS="}
	want := "Logf format %d has arg \"not a number\" of wrong type string"
	// Plain go vet, the oracle, in the go command's own cache: its
	// compiles are the ones the test binaries' builds did already.
	plain, code := run(t, mod, []string{"GOFLAGS="}, "go", "vet", ".")
	if code == 0 || !strings.Contains(plain, want) {
		t.Fatalf("plain go vet: exit %d, want a diagnostic %q:\n%s", code, want, plain)
	}
	entries := func() int {
		idx, _ := filepath.Glob(filepath.Join(cache, "compile", "*", "*-id"))
		return len(idx)
	}
	vetRuns := func() int {
		facts, _ := filepath.Glob(filepath.Join(cache, "compile", "*", "*-x"))
		return len(facts)
	}
	// -pkgs=example.com/m: dep is not instrumented, so its vet is cached
	// (main's is not: it reports, so it fails).
	for i, dir := range []string{t.TempDir(), t.TempDir()} {
		before := entries()
		out, code := run(t, mod, env, "go", "vet", "-toolexec="+bin+" -pkgs=example.com/m -o "+dir, ".")
		if code == 0 || !strings.Contains(out, want) {
			t.Errorf("go vet under pppexec, configuration %d: exit %d, want the diagnostic:\n%s", i+1, code, out)
		}
		if i == 0 && vetRuns() < 10 {
			t.Fatalf("the first configuration stored %d vet runs", vetRuns())
		}
		if added := entries() - before; i == 1 && added != 0 {
			t.Errorf("the second configuration stored %d more entries; its compiles and vet runs should all be in the cache", added)
		}
	}
}
