package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pathcover/pathcover/profile"
)

// The PGO modes build the workload as plain does, with go test -c -pgo=F,
// F made from one run of the same benchmarks that the rounds time: a CPU
// profile of the plain binary (pgocpu), as Go's PGO guide says to make
// one, or a Ball-Larus profile of the bl binary exported by pathcover
// export -format pgo (pgopaths), exact call counts. Both runs take
// pgoBenchtime a benchmark, long enough for a CPU profile at 100 Hz to
// sample each benchmark some hundred times.

const pgoBenchtime = "2s"

// cpuProfile runs the plain binary's benchmarks with a CPU profile and
// returns the profile's file.
func (h *harness) cpuProfile(t *target) (string, error) {
	file := filepath.Join(h.work, "pgo", strings.ReplaceAll(t.name, "/", "_")+".cpu.pprof")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	_, err := h.command(t.runDir, nil, t.bins["plain"], "-test.run=^$", "-test.bench="+t.Bench,
		"-test.benchtime="+pgoBenchtime, "-test.cpu=1", "-test.cpuprofile="+file, "-test.timeout=30m")
	return file, err
}

// pathsProfile runs the bl binary's benchmarks, writing their path
// profile, and exports it for PGO.
func (h *harness) pathsProfile(t *target) (string, error) {
	base := filepath.Join(h.work, "pgo", strings.ReplaceAll(t.name, "/", "_"))
	dir, file := base+".paths", base+".paths.pgo"
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if _, err := h.command(t.runDir, []string{"PATHCOVERDIR=" + dir}, t.bins["bl"], "-test.run=^$", "-test.bench="+t.Bench,
		"-test.benchtime="+pgoBenchtime, "-test.cpu=1", "-test.timeout=30m"); err != nil {
		return "", err
	}
	if _, err := profile.Need(dir, profile.KindCounts, "the benchmarks under bl wrote none"); err != nil {
		return "", err
	}
	_, err := h.command(t.runDir, nil, h.pathcover, "export", "-dir", dir, "-format", "pgo", "-o", file)
	return file, err
}
