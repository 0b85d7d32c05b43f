package driver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/atomicfile"
)

// The compile cache: pppexec's own outputs of compiles that it runs as the
// go command gave them (packages it does not instrument, in a build of any
// configuration) or that it changed in the same way whatever the
// configuration (the runtime with its recorder field), kept so that a
// build with a new configuration does not compile them again; and, keyed
// the same way, the vet runs (vetcache.go) and assembler runs (asmcache.go)
// that the go command runs beside them.
//
// Why it is needed: the go command keys every action on the compiler's
// -V=full line, which pppexec extends with a hash of its configuration
// (exec.go: version), so that instrumented objects of one configuration are
// never reused by another. The ID is the tool's, not a package's, so a new
// profile (-interesting, -ippp) or flag misses the go command's cache for
// the whole standard library too, although those packages compile to the
// same bytes. pppexec's cache is keyed by what the compiler reads instead:
//
//   - the compiler (its -V=full line, path, size and modification time),
//     and the working directory only where an argument names a file
//     relative to it: the go command runs every compile in its own working
//     directory, and gives the compiler absolute file names, and its own
//     cache leaves that directory out of every action ID (cmd/go's
//     buildActionID) because the compiler writes nothing that depends on
//     it; a key with it would miss for every module a user tests, the
//     standard library's compiles too;
//   - the environment that the compiler reads: every GO* variable but those
//     that only the go command reads or that only tune the compiler's own
//     process (outputEnvIgnored);
//   - every argument, with the go command's work directory ($WORK/bNNN,
//     which differs in every run) written as $WORK/b, and, for each argument
//     (or flag value) that names a regular file, its content's hash: the Go
//     files, -symabis, -pgoprofile;
//   - for -importcfg, each dependency by its import path and content ID
//     (the second half of the build ID that the go command wrote into its
//     archive: a hash of the archive without its build ID, so the same for
//     the same export data and code whatever the configuration), and for
//     -embedcfg, every embedded file's content;
//   - not -o and -asmhdr, the outputs, and not -buildid, which the go
//     command derives from pppexec's ID.
//
// What is kept is the archive (-o) and the assembly header (-asmhdr), with
// the build ID they were compiled with. A compile that hits gets them with
// that ID replaced by its own -buildid wherever it occurs, which is what
// the go command itself does to every object it builds (it rewrites the
// same bytes into action ID/content ID): a hit gives the bytes that the
// compiler would have written (TestCompileCacheSameBytes compares them).
//
// A compile is not cached, and runs as it would have, when anything it
// reads or writes is not in that list: a flag that writes files
// (-json, -cpuprofile, ...), a -d other than checkptr, an argument naming a
// directory, or an argument in $WORK that is not a file (an output the
// cache would not restore); when GOSSAFUNC is set; when it fails or prints
// anything (the go command replays what a compile printed; a hit prints
// nothing). $PATHCOVERCOMPILECACHE=off turns the cache off (a size bounds
// it: cachetrim.go), and so does the go command's -a (go build -a
// rebuilds everything, and so does pppexec then), where pppexec can read
// the go command's arguments (from /proc: Linux; elsewhere, set
// PATHCOVERCOMPILECACHE=off with -a).
//
// The entries live in the runtime cache's directory (cachedir.go: the
// user's alone), under compile/XX/KEY-{a,h,id}: pppexec links what it finds
// there into programs, so entries are read as the runtimes are, refusing
// files that are not the user's alone, and each holds the SHA-256 of its
// outputs, checked on every hit, so a torn or damaged entry is compiled
// again, never used. The -id file is written last: an entry without one
// does not exist. Entries unused for trimAge are removed, and the cache is
// held to its size (cachetrim.go).

const (
	compileCacheEnv     = "PATHCOVERCOMPILECACHE"
	compileCacheVersion = "pathcover compile cache 2"
	trimAge             = 5 * 24 * time.Hour
	trimInterval        = 24 * time.Hour
	touchInterval       = time.Hour
)

// outputEnvIgnored are GO* variables that do not change what the compiler
// writes: those that only the go command reads, and those that only tune
// the runtime of the compiler's own process (how many threads it runs,
// when it collects garbage, what it prints if it crashes). A build that
// changes them can still reuse its compiles: tests run go test with
// GOMAXPROCS set for the test binary, which its compiles inherit.
var outputEnvIgnored = map[string]bool{
	"GOFLAGS": true, "GOCACHE": true, "GOMODCACHE": true, "GOPATH": true, "GOPROXY": true,
	"GOSUMDB": true, "GONOSUMDB": true, "GONOPROXY": true, "GOPRIVATE": true, "GOINSECURE": true,
	"GOTOOLCHAIN": true, "GOENV": true, "GOWORK": true, "GOMOD": true, "GOTELEMETRY": true,
	"GOTELEMETRYDIR": true, "GOCACHEPROG": true, "GOVCS": true, "GOAUTH": true,
	"GOBIN": true, "GO111MODULE": true, "GOTMPDIR": true, "GONOSUMCHECK": true,
	"GOCOVERDIR": true, // read by programs built with -cover, not by their compiles
	"GOMAXPROCS": true, "GOGC": true, "GOMEMLIMIT": true, "GOTRACEBACK": true,
}

// writingFlags are compiler flags that make it write files besides its
// outputs, or that read files by a name the key would not hash.
var writingFlags = []string{"json", "cpuprofile", "memprofile", "traceprofile", "blockprofile",
	"mutexprofile", "bench", "linkobj", "coveragecfg", "I", "L", "S", "m", "W", "live", "w"}

// A toolKey is what a cacheable tool command reads, hashed, and what it
// writes.
type toolKey struct {
	sum string // hex SHA-256
	// outputs are the files it writes, by the kind that names them in an
	// entry: "a" and "h" for a compile's -o and -asmhdr, "x" and "s" for
	// vet's facts and diagnostics (vetcache.go).
	outputs map[string]string
	// optional are the kinds of output that the command may not write
	// (vet's diagnostics, when it has none); every other one an entry
	// must have.
	optional map[string]bool
	// buildID is the compile's -buildid, which a hit rewrites ("" for vet).
	buildID string
}

// A keyFunc returns the key of a tool command, given the tool's -V=full
// line, or false if the command cannot be cached.
type keyFunc func(args []string, version string) (toolKey, bool)

// runCached runs a tool command (args: the tool and its arguments) that
// pppexec does not change, or changes the same way in every
// configuration, from the compile cache if it can, and returns its exit
// code.
func (x *Exec) runCached(args []string, stderr io.Writer, keyOf keyFunc) int {
	limit, err := compileCacheLimit()
	if err != nil {
		fmt.Fprintf(stderr, "pppexec: %v\n", err)
		return 2
	}
	if limit == 0 || forcedRebuild() {
		return run(args, stderr)
	}
	cache, err := x.cacheDir()
	if err != nil {
		return run(args, stderr)
	}
	line, err := x.toolVersion(args[0])
	if err != nil {
		return run(args, stderr)
	}
	key, ok := keyOf(args, line)
	if !ok {
		return run(args, stderr)
	}
	dir := filepath.Join(cache, "compile", key.sum[:2])
	if restore(dir, key) == nil {
		return 0
	}
	var out bytes.Buffer
	code := runCombined(args, &out)
	if code != 0 || out.Len() > 0 {
		io.Copy(stderr, &out)
		return code
	}
	store(cache, dir, key, limit) // a cache that cannot be written only costs time
	return 0
}

// toolHash starts the hash of a tool command that writes into the go
// command's action directory objdir: the tool, the working directory if
// withDir, and the environment. It returns false if the tool cannot be
// found.
func toolHash(tool, version string, withDir bool) (hash.Hash, bool) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", compileCacheVersion, version)
	info, err := os.Stat(tool)
	if err != nil {
		return nil, false
	}
	fmt.Fprintf(h, "tool %s %d %d\n", tool, info.Size(), info.ModTime().UnixNano())
	if withDir {
		wd, err := os.Getwd()
		if err != nil {
			return nil, false
		}
		fmt.Fprintf(h, "dir %s\n", wd)
	}
	env := os.Environ()
	slices.Sort(env)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GO") && !outputEnvIgnored[name] || name == "TOOLEXEC_IMPORTPATH" {
			fmt.Fprintf(h, "env %s\n", kv)
		}
	}
	return h, os.Getenv("GOSSAFUNC") == ""
}

// workNormalizer returns a function that writes the go command's work
// directory as $WORK, and objdir, its action directory, as $WORK/b: they
// differ in every run. It returns false if objdir is not an action
// directory.
func workNormalizer(objdir string) (normalize func(string) string, work string, ok bool) {
	if !filepath.IsAbs(objdir) || !actionDir.MatchString(filepath.Base(objdir)) {
		return nil, "", false
	}
	work = filepath.Dir(objdir)
	sep := string(filepath.Separator)
	return func(s string) string {
		s = strings.ReplaceAll(s, objdir+sep, "$WORK/b/")
		s = strings.ReplaceAll(s, objdir+"=>", "$WORK/b=>") // -trimpath
		return strings.ReplaceAll(s, work+sep, "$WORK/")
	}, work, true
}

// compileKey returns the key of a compile command, or false if it cannot
// be cached.
func compileKey(args []string, version string) (toolKey, bool) {
	t := &toolArgs{args: args[1:]}
	k := toolKey{outputs: map[string]string{}}
	out, _ := t.flag("o")
	k.outputs["a"] = out
	if asmhdr, ok := t.flag("asmhdr"); ok {
		k.outputs["h"] = asmhdr
	}
	k.buildID, _ = t.flag("buildid")
	if k.buildID == "" {
		return k, false
	}
	normalize, work, ok := workNormalizer(filepath.Dir(out))
	if !ok {
		return k, false
	}
	h, ok := toolHash(args[0], version, relativeFiles(t.args))
	if !ok {
		return k, false
	}
	for i := 0; i < len(t.args); i++ {
		a := t.args[i]
		name, value, hasValue := flagParts(a)
		if name != "" && !hasValue && i+1 < len(t.args) && takesValue(name) {
			i++
			value, hasValue = t.args[i], true
		}
		switch {
		case name == "o" || name == "asmhdr" || name == "buildid":
			fmt.Fprintf(h, "flag %s\n", name) // outputs, and the ID they are given
			continue
		case slices.Contains(writingFlags, name):
			return k, false
		case name == "d" && !onlyCheckptr(value):
			return k, false
		case name == "importcfg":
			fmt.Fprintf(h, "importcfg\n")
			if !hashImportcfg(h, value) {
				return k, false
			}
			continue
		case name == "embedcfg":
			fmt.Fprintf(h, "embedcfg\n")
			if !hashEmbedcfg(h, value) {
				return k, false
			}
			continue
		}
		fmt.Fprintf(h, "arg %s\n", normalize(a))
		if hasValue {
			fmt.Fprintf(h, "value %s\n", normalize(value))
		}
		if name == "trimpath" {
			continue // rewrites of paths, not paths
		}
		for _, s := range []string{a, value} {
			if !hashIfFile(h, s, work) {
				return k, false
			}
		}
	}
	k.sum = hex.EncodeToString(h.Sum(nil))
	return k, true
}

// relativeFiles reports whether an argument, or a flag's value, names a
// file or directory by a path relative to the working directory, which
// then is part of what the command reads.
func relativeFiles(args []string) bool {
	for _, a := range args {
		_, value, hasValue := flagParts(a)
		for _, s := range []string{a, value} {
			if s == "" || s == a && hasValue || filepath.IsAbs(s) {
				continue
			}
			if _, err := os.Stat(s); err == nil {
				return true
			}
		}
	}
	return false
}

// actionDir is the name of a go command's action directory in $WORK.
var actionDir = regexp.MustCompile(`^b[0-9]+$`)

// flagParts splits -name=value or -name; name is "" for an argument that
// is not a flag.
func flagParts(a string) (name, value string, hasValue bool) {
	if !strings.HasPrefix(a, "-") || a == "-" {
		return "", "", false
	}
	name, value, hasValue = strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name, value, hasValue
}

// takesValue reports whether a compiler flag given as -name takes the next
// argument as its value (the go command writes these so).
func takesValue(name string) bool {
	switch name {
	case "o", "p", "trimpath", "buildid", "importcfg", "embedcfg", "asmhdr", "symabis",
		"goversion", "lang", "D", "installsuffix", "pgoprofile", "coveragecfg", "linkobj", "json", "d":
		return true
	}
	return false
}

// onlyCheckptr reports whether a -d value asks only for checkptr, which
// changes code but writes nothing.
func onlyCheckptr(v string) bool {
	for _, d := range strings.Split(v, ",") {
		if d != "checkptr" && !strings.HasPrefix(d, "checkptr=") {
			return false
		}
	}
	return true
}

// hashIfFile adds the content of s to h if s names a regular file (a
// relative name, from the working directory, which the key then covers:
// relativeFiles); it returns false if s is an absolute name of something
// else that exists (a directory), or is in $WORK and does not exist (an
// output that the cache would not restore).
func hashIfFile(h hash.Hash, s, work string) bool {
	if s == "" {
		return true
	}
	info, err := os.Stat(s)
	if !filepath.IsAbs(s) {
		if err != nil || !info.Mode().IsRegular() {
			return true // a word, not a file: hashed as one
		}
		return hashFile(h, s)
	}
	if err != nil {
		return !strings.HasPrefix(s, work+string(filepath.Separator))
	}
	if !info.Mode().IsRegular() {
		return false
	}
	return hashFile(h, s)
}

func hashFile(h hash.Hash, name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	fh := sha256.New()
	if _, err := io.Copy(fh, f); err != nil {
		return false
	}
	fmt.Fprintf(h, "content %x\n", fh.Sum(nil))
	return true
}

// hashImportcfg adds an importcfg's lines to h, each dependency's archive
// by its content ID.
func hashImportcfg(h hash.Hash, name string) bool {
	cfg, err := readImportcfg(name)
	if err != nil {
		return false
	}
	for _, line := range cfg.lines {
		verb, args, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch verb {
		case "", "#":
			continue
		case "packagefile", "packageshlib":
			path, file, _ := strings.Cut(args, "=")
			id, ok := contentID(file)
			if !ok {
				return false
			}
			fmt.Fprintf(h, "%s %s %s\n", verb, path, id)
		default:
			if strings.HasPrefix(verb, "#") {
				continue
			}
			fmt.Fprintf(h, "%s\n", line)
		}
	}
	return true
}

// contentID returns the content half of the build ID in an archive's
// header (`build id "ACTION/CONTENT"`), or, for a file without one, the
// hash of its content.
func contentID(name string) (string, bool) {
	f, err := os.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head := make([]byte, 1024)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if _, after, ok := bytes.Cut(head, []byte("\nbuild id \"")); ok {
		if id, _, ok := bytes.Cut(after, []byte("\"")); ok {
			if i := bytes.LastIndexByte(id, '/'); i >= 0 && i+1 < len(id) {
				return string(id[i+1:]), true
			}
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", false
	}
	fh := sha256.New()
	if _, err := io.Copy(fh, f); err != nil {
		return "", false
	}
	return hex.EncodeToString(fh.Sum(nil)), true
}

// hashEmbedcfg adds an embed configuration and the files it embeds to h.
func hashEmbedcfg(h hash.Hash, name string) bool {
	data, err := os.ReadFile(name)
	if err != nil {
		return false
	}
	var cfg struct {
		Patterns map[string][]string
		Files    map[string]string
	}
	if json.Unmarshal(data, &cfg) != nil {
		return false
	}
	fmt.Fprintf(h, "content %x\n", sha256.Sum256(data))
	for _, f := range sortedKeys(cfg.Files) {
		fmt.Fprintf(h, "embed %s\n", f)
		if !hashFile(h, cfg.Files[f]) {
			return false
		}
	}
	return true
}

// An entry's files: its outputs, by kind, and the index that says what
// they are (written last).
func entryFile(dir string, k toolKey, kind string) string {
	return filepath.Join(dir, k.sum+"-"+kind)
}

// The index of an entry:
//
//	pathcover compile cache 2
//	buildid ACTION/ACTION      (a compile's: the -buildid of its outputs; - for vet and asm)
//	a SHA256                   (each output's, by kind: a compile's archive,
//	h SHA256                    its assembly header if it made one, vet's
//	                            facts, its diagnostics if it wrote them, the
//	                            assembler's object or symbol ABIs)
type entryIndex struct {
	buildID string
	sums    map[string]string // kind → hex SHA-256
}

// outputKinds are the kinds of output an entry can hold.
var outputKinds = []string{"a", "h", "x", "s", "o"}

func (e *entryIndex) encode() []byte {
	var b strings.Builder
	id := e.buildID
	if id == "" {
		id = "-"
	}
	fmt.Fprintf(&b, "%s\nbuildid %s\n", compileCacheVersion, id)
	for _, kind := range sortedKeys(e.sums) {
		fmt.Fprintf(&b, "%s %s\n", kind, e.sums[kind])
	}
	return []byte(b.String())
}

func parseIndex(data []byte) (*entryIndex, error) {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 3 || lines[0] != compileCacheVersion {
		return nil, errors.New("not an index of this version")
	}
	e := &entryIndex{sums: map[string]string{}}
	for _, l := range lines[1:] {
		kind, v, ok := strings.Cut(l, " ")
		if !ok {
			return nil, fmt.Errorf("bad line %q", l)
		}
		switch {
		case kind == "buildid" && v != "-":
			e.buildID = v
		case kind == "buildid":
		case slices.Contains(outputKinds, kind) && isHexSum(v):
			e.sums[kind] = v
		default:
			return nil, fmt.Errorf("bad line %q", l)
		}
	}
	if len(e.sums) == 0 {
		return nil, errors.New("an index without outputs")
	}
	return e, nil
}

// isHexSum reports whether s is a SHA-256 sum as an index holds it: 64
// lowercase hexadecimal digits, as hex.EncodeToString writes them.
func isHexSum(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// restore writes a cached entry's outputs where the command would have,
// with a compile's build ID, or says why it cannot.
func restore(dir string, k toolKey) error {
	indexName := entryFile(dir, k, "id")
	data, err := readPrivate(indexName)
	if err != nil {
		return err
	}
	idx, err := parseIndex(data)
	if err != nil {
		return err
	}
	if len(idx.buildID) != len(k.buildID) || (k.buildID != "") != (idx.buildID != "") {
		return errors.New("build IDs of different lengths")
	}
	for kind := range k.outputs {
		if idx.sums[kind] == "" && !k.optional[kind] {
			return fmt.Errorf("the entry lacks an output (%s) that the command writes", kind)
		}
	}
	contents := map[string][]byte{}
	for kind := range idx.sums {
		if k.outputs[kind] == "" {
			return fmt.Errorf("the entry has an output (%s) that the command does not", kind)
		}
		data, err := readPrivate(entryFile(dir, k, kind))
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != idx.sums[kind] {
			return fmt.Errorf("%s does not have its recorded SHA-256", entryFile(dir, k, kind))
		}
		if k.buildID != "" {
			data = bytes.ReplaceAll(data, []byte(idx.buildID), []byte(k.buildID))
		}
		contents[kind] = data
	}
	for kind, data := range contents {
		if err := os.WriteFile(k.outputs[kind], data, 0o666); err != nil {
			return err
		}
	}
	markUsed(indexName)
	return nil
}

// store keeps a command's outputs in the compile cache, in its shard dir,
// and holds the shard to its share of the cache's limit (cachetrim.go):
// each file is written under a temporary name and renamed into place, the
// index last. An output that the command did not write (vet's diagnostics
// when it has none) is not in the entry, and a hit does not write it
// either. Outputs larger than the shard's share, or than what the file
// system can spare, are not kept.
func store(cache, dir string, k toolKey, limit int64) {
	root := filepath.Join(cache, "compile")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	if checkPrivate(root, true) != nil || checkPrivate(dir, true) != nil {
		return
	}
	contents := map[string][]byte{}
	var size int64
	for kind, out := range k.outputs {
		data, err := os.ReadFile(out)
		if errors.Is(err, os.ErrNotExist) && k.optional[kind] {
			continue
		}
		if err != nil {
			return
		}
		contents[kind] = data
		size += int64(len(data))
	}
	share := limit / compileCacheShards
	if free, ok := freeSpace(dir); size > share || ok && free-size < minFreeSpace {
		return
	}
	idx := &entryIndex{buildID: k.buildID, sums: map[string]string{}}
	for kind, data := range contents {
		sum := sha256.Sum256(data)
		idx.sums[kind] = hex.EncodeToString(sum[:])
		if atomicfile.WriteFile(entryFile(dir, k, kind), data, 0o600) != nil {
			return
		}
	}
	if atomicfile.WriteFile(entryFile(dir, k, "id"), idx.encode(), 0o600) != nil {
		return
	}
	boundShard(dir, share, k.sum)
	trimCache(cache)
}
