package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// runBenchmarks runs a test binary's benchmarks once and returns ns/op by
// benchmark name (without the -GOMAXPROCS suffix). Instrumented binaries
// write their counts into a fresh directory, as in real use, which is
// removed afterwards.
//
// Benchmarks run with -test.cpu=1. A RunParallel benchmark on more than one
// P has its goroutines update the same counters from several cores, -cover's
// as much as ours, and then times how the cores fight over those cache
// lines, not what a path costs: in one run on 2 cores, fastjson's ObjectGet
// took up to 38× its plain time under -covermode=count and up to 23× under
// Ball-Larus.
// That contention is real for parallel programs, but it is a property of
// shared counters, and it would swamp every other figure here: -parallel
// runs measure it apart, on the workloads' RunParallel benchmarks
// (workload.Parallel) at -test.cpu=2.
func (h *harness) runBenchmarks(t *target, mode, benchtime string) (map[string]float64, error) {
	counts, err := os.MkdirTemp(h.work, "counts-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(counts)
	env := []string{"PATHCOVERDIR=" + counts}
	if recording(mode) {
		env = append(env, "PATHCOVERWPPMAX="+wppBenchLimit)
	}
	out, err := h.command(t.runDir, env, t.bins[mode],
		"-test.run=^$", "-test.bench="+t.Bench, "-test.benchtime="+benchtime, "-test.cpu="+strconv.Itoa(max(h.cpu, 1)), "-test.timeout=30m")
	if err != nil {
		return nil, err
	}
	if recording(mode) {
		if err := wppRecordedAll(counts); err != nil {
			return nil, err
		}
	}
	res := parseBenchmarks(out)
	if len(res) == 0 {
		return nil, fmt.Errorf("%s %s: no benchmark matched %q", t.name, mode, t.Bench)
	}
	return res, nil
}

var gomaxprocsSuffix = regexp.MustCompile(`-\d+$`)

// parseBenchmarks reads the lines of go test's benchmark output:
//
//	BenchmarkName-8   	 1000	      1234 ns/op	...
func parseBenchmarks(out []byte) map[string]float64 {
	res := make(map[string]float64)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
			continue
		}
		for i := 2; i+1 < len(f); i += 2 {
			if f[i+1] == "ns/op" {
				if x, err := strconv.ParseFloat(f[i], 64); err == nil && x > 0 {
					res[gomaxprocsSuffix.ReplaceAllString(f[0], "")] = x
				}
			}
		}
	}
	return res
}
