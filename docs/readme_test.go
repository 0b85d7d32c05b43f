package docs_test

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	modversion "golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// The commands that the README and the pages of docs/ show in ```sh blocks
// are run by the tests of this file and of docs_test.go, one shell per
// document, from the repository root, as a user would type them: pathcover
// and pppexec are installed into a temporary GOBIN that comes first on PATH,
// TMPDIR is the test's own temporary directory (where mktemp -d and
// pathcover test put what the commands keep, removed with it), and a
// "# exit N" comment at the end of a line gives its expected exit status
// (0 without one). Output samples and configuration use other fences
// (```text, ```yaml), which are not run.

var docsOutputFlag = flag.Bool("docsoutput", false, "log the output of the commands of the README and of docs/")

// installLine is the README's install command. It names a published
// module, so the README's shell does not run it: TestREADMEInstall does,
// against a module proxy made from the working tree.
const installLine = "go install github.com/pathcover/pathcover/cmd/...@latest"

// setupLine must be the first command of the README's Set-up section.
const setupLine = "go run ./cmd/pathcover test ./example/..."

// repoRoot returns the repository's root, above docs.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// shLines returns the command lines of the ```sh blocks of a Markdown
// document, in order, without blank lines.
func shLines(doc string) []string {
	var lines []string
	inFence, sh := false, false
	for _, l := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case !inFence && strings.HasPrefix(trimmed, "```"):
			inFence, sh = true, strings.TrimSpace(strings.TrimPrefix(trimmed, "```")) == "sh"
		case inFence && trimmed == "```":
			inFence = false
		case inFence && sh && trimmed != "":
			lines = append(lines, trimmed)
		}
	}
	return lines
}

// shellEnv is the environment of a document's shell: the test's own, with
// TMPDIR and GOBIN set, GOBIN first on PATH, and no PATHCOVERDIR (the
// documents set it where they need it).
func shellEnv(tmp, gobin string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "PATHCOVERDIR" && name != "TMPDIR" && name != "GOBIN" && name != "PATH" {
			env = append(env, kv)
		}
	}
	return append(env, "TMPDIR="+tmp, "GOBIN="+gobin, "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

var (
	statusLine  = regexp.MustCompile(`@@status (\d+) (\d+)`)
	exitComment = regexp.MustCompile(`#\s*exit (\d+)\s*$`)
)

// runLines runs lines in one bash shell from root with env, so that a
// line's export holds for the next, and checks each line's exit status
// against its "# exit N" comment (0 without one). It returns the combined
// output.
func runLines(t *testing.T, root string, env []string, lines []string) string {
	t.Helper()
	var script strings.Builder
	for i, line := range lines {
		fmt.Fprintf(&script, "%s\necho \"@@status %d $?\"\n", line, i)
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = root
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the commands failed to run: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "panic:") {
		t.Errorf("the commands' output has a panic:\n%s", out)
	}
	seen, failed := 0, false
	for _, m := range statusLine.FindAllStringSubmatch(string(out), -1) {
		i, _ := strconv.Atoi(m[1])
		code, _ := strconv.Atoi(m[2])
		want := 0
		if w := exitComment.FindStringSubmatch(lines[i]); w != nil {
			want, _ = strconv.Atoi(w[1])
		}
		if code != want {
			t.Errorf("%s: exit %d, want %d", lines[i], code, want)
			failed = true
		}
		seen++
	}
	if seen != len(lines) {
		t.Fatalf("%d of %d lines ran:\n%s", seen, len(lines), out)
	}
	if failed || *docsOutputFlag {
		t.Logf("the commands' output:\n%s", out)
	}
	return string(out)
}

// TestREADMECommands runs the commands of the README's ```sh blocks in one
// shell, as a user would, from installing pathcover from the clone to the
// last workflow (the install from the module proxy is TestREADMEInstall's).
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go install, go test and programs under pppexec")
	}
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The set-up command, profiling the example module's tests, stays the
	// first command of the Set-up section.
	_, setup, _ := strings.Cut(string(readme), "\n## Set-up\n")
	_, setup, _ = strings.Cut(setup, "```sh\n")
	if first, _, _ := strings.Cut(setup, "\n"); first != setupLine {
		t.Errorf("the README's first set-up command is %q, want %q", first, setupLine)
	}

	var lines []string
	installs := 0
	for _, l := range shLines(string(readme)) {
		if l == installLine {
			installs++
			continue
		}
		lines = append(lines, l)
	}
	if installs != 1 {
		t.Errorf("the README shows %q %d times, want once", installLine, installs)
	}
	if len(lines) < 10 || lines[0] != "go install ./cmd/pathcover ./cmd/pppexec" {
		t.Fatalf("the README's commands do not begin with the install from the clone: %q", lines)
	}
	tmp, gobin := t.TempDir(), t.TempDir()
	out := runLines(t, root, shellEnv(tmp, gobin), lines)
	for _, want := range []string{
		"example/expr/parse.go", "callNode.eval", // the report
		"never ran", // paths -untested
		"@ippp",     // the interprocedural report
		"TestEval",  // pathcover tests
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the README's commands' output lacks %q:\n%s", want, out)
		}
	}
	// pathcover test without -dir keeps its profile in TMPDIR, as the
	// README says; only the set-up command runs it so.
	if kept, _ := filepath.Glob(filepath.Join(tmp, "pathcover-profile-*")); len(kept) != 1 {
		t.Errorf("the README's commands kept profiles %v in TMPDIR, want 1", kept)
	}
}

// TestREADMEInstall runs the README's install line, go install ...@latest,
// against a module proxy that holds this module, zipped from the working
// tree at a made-up version, into a temporary GOBIN, and checks that the
// commands it installed are that version's and run.
func TestREADMEInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pathcover from a module zip")
	}
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, install, ok := strings.Cut(string(readme), "\n## Install\n")
	install, _, _ = strings.Cut(install, "\n## ")
	if lines := shLines(install); !ok || len(lines) == 0 || lines[0] != installLine {
		t.Fatalf("the README's Install section does not begin with %q: %q", installLine, lines)
	}

	proxy, version := moduleProxy(t, root)
	goproxy, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatal(err)
	}
	goModCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	goflags, err := exec.Command("go", "env", "GOFLAGS").Output()
	if err != nil {
		t.Fatal(err)
	}
	tmp, gobin := t.TempDir(), t.TempDir()
	env := append(shellEnv(tmp, gobin),
		// This module from the proxy made here; its dependencies from the
		// module cache's downloads where they are, else as go would fetch
		// them.
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(strings.TrimSpace(string(goModCache)), "cache", "download"))+","+strings.TrimSpace(string(goproxy)),
		// The made-up version is in no checksum database, and the
		// dependencies were checked against go.sum when go downloaded
		// them into the module cache; without a lookup the test needs
		// no network.
		"GOSUMDB=off",
		"GOPRIVATE=", "GONOPROXY=", "GOWORK=off",
		// A module cache of the tests' own, writable so that they can
		// remove from it, where the dependencies stay from run to run
		// (so that their objects in the build cache, keyed by their
		// directories, do too); the version names the tree's content,
		// so it is never an earlier tree's copy.
		"GOMODCACHE="+installModCache(t),
		"GOFLAGS="+strings.TrimSpace(strings.TrimSpace(string(goflags))+" -modcacherw"),
	)
	runLines(t, t.TempDir(), env, []string{installLine})

	for _, name := range []string{"pathcover", "pppexec"} {
		out, err := exec.Command("go", "version", "-m", filepath.Join(gobin, name)).CombinedOutput()
		if err != nil || !regexp.MustCompile(`\bmod\s+github\.com/pathcover/pathcover\s+`+regexp.QuoteMeta(version)+`\b`).Match(out) {
			t.Errorf("%s is not the proxy's %s: %v\n%s", name, version, err, out)
		}
	}
	cmd := exec.Command(filepath.Join(gobin, "pathcover"), "help")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "pathcover <command>") {
		t.Errorf("pathcover help: %v\n%s", err, out)
	}
}

// installModCache returns the module cache of TestREADMEInstall: in the
// user's cache directory (a temporary one without), with the versions of
// this module that earlier runs left removed.
func installModCache(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		return t.TempDir()
	}
	dir := filepath.Join(base, "pathcover-test", "modcache")
	stale, _ := filepath.Glob(filepath.Join(dir, "github.com", "pathcover", "pathcover@*"))
	downloads, _ := filepath.Glob(filepath.Join(dir, "cache", "download", "github.com", "pathcover", "pathcover", "@v", "*"))
	for _, name := range append(stale, downloads...) {
		if err := os.RemoveAll(name); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// moduleProxy writes a module proxy directory (for GOPROXY=file://DIR) that
// holds the module at root, and returns it and the module's version there,
// made up from a hash of the files: its @v/list, .info, .mod and .zip, the
// zip made from the working tree as go mod would make it from a repository
// (no VCS files, no nested modules).
func moduleProxy(t *testing.T, root string) (dir, version string) {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := moduleFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\n", f.Path())
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(h, r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	version = "v0.0.1-readmetest." + hex.EncodeToString(h.Sum(nil))[:12]
	mv := modversion.Version{Path: modfile.ModulePath(gomod), Version: version}
	escaped, err := modversion.EscapePath(mv.Path)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	vdir := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o777); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"list":            version + "\n",
		version + ".info": fmt.Sprintf(`{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`+"\n", version),
		version + ".mod":  string(gomod),
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(vdir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := zip.Create(f, mv, files); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, version
}

// moduleFiles lists the regular files of the module rooted at root, but
// for version control files (a worktree's .git is a file) and the
// subtrees of nested modules.
func moduleFiles(root string) ([]zip.File, error) {
	var files []zip.File
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch d.Name() {
		case ".git", ".hg", ".svn", ".bzr":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files = append(files, diskFile{rel: filepath.ToSlash(rel), path: path})
		return nil
	})
	return files, err
}

// diskFile is a zip.File read from the disk.
type diskFile struct{ rel, path string }

func (f diskFile) Path() string                 { return f.rel }
func (f diskFile) Lstat() (os.FileInfo, error)  { return os.Lstat(f.path) }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }
