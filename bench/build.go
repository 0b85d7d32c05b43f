package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/internal/driver"
	"github.com/pathcover/pathcover/profile"
)

// The modes, plain first: allModes can be chosen (-modes), modes are the
// default, and buildModes are those whose cold builds are timed. ippp is a
// PPP build with supergraphs (pppexec -ippp): intraprocedural PPP plus the
// segments through the call sites its tests' paths run. wpp is a
// Ball-Larus build that records whole program paths (pppexec -wpp); deps
// one that records what slicing needs too (pppexec -deps: memory accesses).
// blshard, blatomicshard and pppshard are bl, blatomic and ppp with a copy
// of the counters per P (pppexec -shard=p). pgocpu and pgopaths are plain
// builds with profile-guided optimization (go test -c -pgo): from a CPU
// profile of the workload's benchmarks, and from pathcover export -format
// pgo of a Ball-Larus profile of the same benchmarks (pgo.go).
var (
	allModes   = []string{"plain", "count", "atomic", "bl", "blatomic", "ppp", "ippp", "wpp", "deps", "wet", "flight", "hash", "hot", "blshard", "blatomicshard", "pppshard", "pgocpu", "pgopaths"}
	modes      = allModes[:6]
	buildModes = []string{"plain", "count", "bl", "ppp"}
)

// A target is a workload made ready: where to build it, where its test
// binary runs (the package's directory, as go test runs it, for its
// testdata), and its binaries by mode.
type target struct {
	workload
	name     string // for tables: the import path
	buildDir string // where go test -c runs
	pkgArg   string // the package argument of go test -c
	runDir   string
	bins     map[string]string
	tested   string // profile of the package's own tests, for ppp
	// segments is the profile of its tests under an interprocedural
	// Ball-Larus build (sites from tested), for ippp.
	segments string
	// pgoCPU and pgoPaths are the PGO profiles of pgocpu and pgopaths.
	pgoCPU, pgoPaths string
}

// A harness holds what all workloads share.
type harness struct {
	root    string // the repository root
	work    string // the work directory
	pppexec string // the pppexec binary built from root
	// pathcover is the pathcover binary built from root, for pgopaths.
	pathcover string
	env       []string
	verbose   bool
	// ppp is the spec the PPP modes start from: the defaults and bench's
	// -pppflags.
	ppp   buildspec.Spec
	modes []string // plain first
	// cpu is the benchmarks' -test.cpu: 1, or more in -parallel runs.
	cpu int
	log func(format string, args ...any)
}

// goEnv is the environment of every go command and test binary: the
// caller's, without GOFLAGS (a -toolexec or -cover there would change
// every mode) and without PATHCOVERDIR.
func goEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") && !strings.HasPrefix(kv, "PATHCOVERDIR=") {
			env = append(env, kv)
		}
	}
	return env
}

// command runs a command in dir with extra environment, returning its
// combined output, and an error that quotes the output's end.
func (h *harness) command(dir string, extraEnv []string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), h.env...), extraEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tail := out
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return out, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail)
	}
	return out, nil
}

// buildPPPExec builds pppexec, and pathcover, from the repository being
// measured.
func (h *harness) buildPPPExec() error {
	h.pppexec = filepath.Join(h.work, "bin", "pppexec")
	h.pathcover = filepath.Join(h.work, "bin", "pathcover")
	_, err := h.command(h.root, nil, "go", "build", "-o", filepath.Join(h.work, "bin")+string(filepath.Separator), "./cmd/pppexec", "./cmd/pathcover")
	return err
}

// prepare finds or fetches a workload's source.
func (h *harness) prepare(w workload) (*target, error) {
	t := &target{workload: w, name: w.Pkg, bins: make(map[string]string)}
	switch w.Module {
	case "", "local":
		t.buildDir, t.pkgArg = h.root, w.Pkg
		out, err := h.command(h.root, nil, "go", "list", "-f", "{{.Dir}}", w.Pkg)
		if err != nil {
			return nil, err
		}
		t.runDir = strings.TrimSpace(string(out))
	default:
		// A copy of the module, as the main module: its go.mod and go.sum
		// then decide its dependencies, as for its own developers.
		out, err := h.command(h.work, nil, "go", "mod", "download", "-json", w.Module)
		if err != nil {
			return nil, fmt.Errorf("fetching %s (offline?): %w", w.Module, err)
		}
		var info struct{ Dir, Error string }
		if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
			return nil, fmt.Errorf("fetching %s: %s", w.Module, info.Error)
		}
		dst := filepath.Join(h.work, "src", strings.NewReplacer("/", "_", "@", "_").Replace(w.Module))
		if err := copyTree(info.Dir, dst); err != nil {
			return nil, err
		}
		t.buildDir, t.pkgArg, t.runDir = dst, ".", dst
	}
	return t, nil
}

// copyTree copies a module's files, writable (the module cache's are not).
func copyTree(src, dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
}

// buildFlags are the go test flags of a mode.
func (h *harness) buildFlags(t *target, mode string) []string {
	spec := buildspec.Default()
	if strings.Contains(mode, "ppp") {
		spec = h.ppp
	}
	spec.Pkgs = []string{t.Pkg}
	switch mode {
	case "count", "atomic":
		return []string{"-covermode=" + mode}
	case "bl":
	case "blatomic":
		spec.Atomic = true
	case "blshard": // counters per P (rt/shards.go)
		spec.Shard = buildspec.ShardPerP
	case "blatomicshard":
		spec.Shard, spec.Atomic = buildspec.ShardPerP, true
	case "ppp", "ppp-buildid": // ppp-buildid (-builds): the profile in pppexec's build ID, as before -profilekey
		spec.PPPProfile = t.tested
	case "pppshard":
		spec.PPPProfile, spec.Shard = t.tested, buildspec.ShardPerP
	case "wpp":
		spec.WPP = true
	case "deps":
		spec.Deps = true
	case "depstests": // -slice's: the recording knows the tests (not timed)
		spec.Deps, spec.Tests = true, true
	case "wet":
		spec.Values = true
	case "flight":
		spec.Flight = flightBenchEntries
	case "hash": // the functions of mode hot in hash tables, as without -hot
		spec.MaxArrayPaths = hotArrayLimit
	case "hot":
		spec.MaxArrayPaths, spec.HotEntries = hotArrayLimit, hotEntries
	case "ipppsites": // not timed: the build whose tests' profile ippp takes
		spec = buildspec.Default()
		spec.Pkgs, spec.IPPPProfile = []string{t.Pkg}, t.tested
	case "ippp":
		spec.IPPPProfile, spec.PPPProfile = t.tested, t.segments
	case "pgocpu":
		return []string{"-pgo=" + t.pgoCPU}
	case "pgopaths":
		return []string{"-pgo=" + t.pgoPaths}
	default:
		return nil
	}
	spec.Imply()
	if mode == "ppp" || mode == "pppshard" || mode == "ippp" {
		return keyedProfiles(&spec, h.pppexec)
	}
	return []string{spec.Toolexec(h.pppexec)}
}

// keyedProfiles returns the go test flags of a build of spec, which reads
// profiles: with -profilekey=gcflags and the -gcflags that give the
// package under test their key, so that a build with a new profile
// compiles that package alone again (see internal/driver/profilekey.go).
// If the profiles' key cannot be made, the flags keep them in the build
// ID, which is always correct.
func keyedProfiles(spec *buildspec.Spec, pppexec string) []string {
	cfg := &driver.Config{Spec: *spec}
	cfg.ProfileKey = buildspec.KeyInGcflags
	keys := cfg.GcflagsKey()
	if len(keys) == 0 {
		return []string{spec.Toolexec(pppexec)}
	}
	return append([]string{cfg.Toolexec(pppexec)}, keys...)
}

// build builds a target's test binary in a mode.
func (h *harness) build(t *target, mode string, extraEnv []string) (string, time.Duration, error) {
	bin := filepath.Join(h.work, "bin", strings.ReplaceAll(t.name, "/", "_")+"."+mode+".test")
	args := append([]string{"test", "-c", "-o", bin}, h.buildFlags(t, mode)...)
	args = append(args, t.pkgArg)
	start := time.Now()
	out, err := h.command(t.buildDir, extraEnv, "go", args...)
	elapsed := time.Since(start)
	if err != nil {
		return "", 0, err
	}
	// pppexec warns, and builds on, when it cannot instrument a package,
	// and leaves alone the packages the runtime it links needs: a plain
	// build would be measured as a free instrumented one.
	if mode != "plain" && bytes.Contains(out, []byte("pppexec:")) {
		return "", 0, fmt.Errorf("%s: %s", mode, bytes.TrimSpace(out))
	}
	if strings.HasPrefix(mode, "bl") || strings.Contains(mode, "ppp") || recording(mode) || mode == "flight" || mode == "hash" || mode == "hot" {
		syms, err := h.command(h.work, nil, "go", "tool", "nm", bin)
		if err != nil {
			return "", 0, err
		}
		sym := "._pathcoverC\n" // the counters
		if mode == "flight" {
			sym = "._pathcoverFB\n" // the code of the package's function 0
		}
		if !bytes.Contains(syms, []byte(" "+t.Pkg+sym)) {
			return "", 0, fmt.Errorf("%s: pppexec did not instrument %s", mode, t.Pkg)
		}
	}
	return bin, elapsed, nil
}

// profileTests runs the package's tests from its binary of mode (bl, or
// ipppsites), writing the profile whose paths a PPP build takes as the
// tested ones into a directory named by kind, which it returns. A failing
// test does not stop it: its paths ran all the same.
func (h *harness) profileTests(t *target, mode, kind string) (string, error) {
	dir := filepath.Join(h.work, kind, strings.ReplaceAll(t.name, "/", "_"))
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	out, err := h.command(t.runDir, []string{"PATHCOVERDIR=" + dir}, t.bins[mode], "-test.run=.", "-test.bench=^$", "-test.short", "-test.timeout=10m")
	if err != nil {
		h.log("%s: tests under %s: %v", t.name, mode, firstLine(string(out)))
	}
	if _, err := profile.Need(dir, profile.KindCounts, "the tests under "+mode+" wrote none"); err != nil {
		return "", err
	}
	return dir, nil
}

// coldBuild times one build of a mode from empty build caches.
func (h *harness) coldBuild(t *target, mode string) (time.Duration, error) {
	cache, err := os.MkdirTemp(h.work, "gocache-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(cache)
	env := []string{"GOCACHE=" + filepath.Join(cache, "go"), "PATHCOVERCACHE=" + filepath.Join(cache, "pathcover")}
	_, d, err := h.build(t, mode, env)
	return d, err
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// flightBenchEntries is the ring size of mode flight: each goroutine's
// last 64 paths.
const flightBenchEntries = 64

// recording reports whether mode records whole program paths (and more):
// its programs write .wpp files.
func recording(mode string) bool {
	return mode == "wpp" || mode == "deps" || mode == "depstests" || mode == "wet"
}
