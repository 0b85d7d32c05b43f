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
func (h *harness) runBenchmarks(t *target, mode, benchtime string) (map[string]float64, error) {
	counts, err := os.MkdirTemp(h.work, "counts-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(counts)
	out, err := h.command(t.runDir, []string{"PATHCOVERDIR=" + counts}, t.bins[mode],
		"-test.run=^$", "-test.bench="+t.Bench, "-test.benchtime="+benchtime, "-test.timeout=30m")
	if err != nil {
		return nil, err
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
