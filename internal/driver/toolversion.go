package driver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pathcover/pathcover/internal/atomicfile"
)

// toolVersion returns a tool's -V=full line ("compile version go1.26.8",
// perhaps with experiments), which keys pppexec's answer to -V=full, its
// compile cache and its runtimes.
//
// The go command asks each tool for its line once per build, but runs
// pppexec once per action, and running the tool again for its line in
// every one of them cost a few milliseconds per compile and vet, a large
// part of what pppexec added to a build from empty caches. So the line is
// also kept in the cache directory (versionMemo), keyed by what it depends
// on: the tool's file, by its identity and times, and the GO* environment
// (GOEXPERIMENT changes the line). A memo is read as the cache's runtimes
// are (readPrivate: the user's alone, or not believed) and must be one
// line of text; where there is no cache directory, or the file's identity
// is unknown (identity_other.go), the tool is asked. On a build of uuid's
// tests from empty caches this took pppexec's cost over a plain build from
// 1.19x to 1.06x (medians of 4 interleaved rounds, 2026-11-27).
func (x *Exec) toolVersion(tool string) (string, error) {
	if v, ok := x.versions.Load(tool); ok {
		return v.(string), nil
	}
	memo := x.versionMemo(tool)
	if memo != "" {
		if data, err := readPrivate(memo); err == nil {
			if line, ok := parseVersionMemo(data); ok {
				markUsed(memo)
				x.versions.Store(tool, line)
				return line, nil
			}
		}
	}
	out, err := exec.Command(tool, "-V=full").Output()
	if err != nil {
		return "", fmt.Errorf("%s -V=full: %v", tool, err)
	}
	line := strings.TrimSpace(string(out))
	x.versions.Store(tool, line)
	if _, ok := parseVersionMemo([]byte(line + "\n")); ok && memo != "" {
		writeVersionMemo(memo, line) // one that cannot be written only costs time
	}
	return line, nil
}

// versionMemo returns the file that keeps tool's -V=full line in the cache
// directory, versions/KEY, or "" if there is none. KEY hashes the tool's
// path, its file's identity (device, inode, size, modification and change
// times: a tool rebuilt or replaced in place changes at least its change
// time, which no user can set) and every GO* variable of the environment.
func (x *Exec) versionMemo(tool string) string {
	dir, err := x.cacheDir()
	if err != nil || !filepath.IsAbs(tool) {
		return ""
	}
	info, err := os.Stat(tool)
	if err != nil {
		return ""
	}
	id, ok := fileIdentity(info)
	if !ok {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "pathcover tool version 1\n%s\n%s\n", tool, id)
	env := os.Environ()
	slices.Sort(env)
	for _, kv := range env {
		if strings.HasPrefix(kv, "GO") {
			fmt.Fprintf(h, "env %s\n", kv)
		}
	}
	return filepath.Join(dir, "versions", hex.EncodeToString(h.Sum(nil)))
}

// parseVersionMemo returns the line a memo holds: one line of printable
// text, ended by a newline.
func parseVersionMemo(data []byte) (string, bool) {
	line, ok := bytes.CutSuffix(data, []byte("\n"))
	if !ok || len(line) == 0 || len(line) > 4096 {
		return "", false
	}
	for _, c := range line {
		if c < ' ' || c == 0x7f {
			return "", false
		}
	}
	return string(line), true
}

func writeVersionMemo(memo, line string) {
	dir := filepath.Dir(memo)
	if os.MkdirAll(dir, 0o700) != nil || checkPrivate(dir, true) != nil {
		return
	}
	if atomicfile.WriteFile(memo, []byte(line+"\n"), 0o600) == nil {
		trimCache(filepath.Dir(dir))
	}
}
