package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// countIncrements runs the benchmarks once more from the bl binary, writing
// counts, and sums over the package's functions the register operations
// that its placement and a naive one execute on those runs.
func (h *harness) countIncrements(t *target, benchtime string) (*incrementCounts, error) {
	dir := filepath.Join(h.work, "increments", strings.ReplaceAll(t.name, "/", "_"))
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if _, err := h.command(t.runDir, []string{"PATHCOVERDIR=" + dir}, t.bins["bl"],
		"-test.run=^$", "-test.bench="+t.Bench, "-test.benchtime="+benchtime, "-test.cpu="+strconv.Itoa(max(h.cpu, 1)), "-test.timeout=30m"); err != nil {
		return nil, err
	}
	p, problems, err := profile.Load(dir)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, problems[0]
	}
	return increments(t.name, p, t.Pkg)
}

// increments computes, for the functions of package pkg in profile p, the
// dynamic cost of the placement (numbered again from the metadata, as
// pppexec placed it: static weights) and of naive Ball-Larus
// instrumentation, with the edge frequencies the path counts give.
func increments(workload string, p *profile.Profile, pkg string) (*incrementCounts, error) {
	in := &incrementCounts{Workload: workload}
	for hash, m := range p.Metas {
		if profile.PackagePath(m.Package) != pkg {
			continue
		}
		for fn := range m.Funcs {
			mf := &m.Funcs[fn]
			paths := p.Counts[hash][fn]
			if len(paths) == 0 {
				continue
			}
			pl, err := mf.Placement()
			if err != nil {
				return nil, err
			}
			c, err := pl.CountsFromPaths(paths)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", mf.Name, err)
			}
			freq := make(numbering.Weights, len(c.Edges))
			for i, x := range c.Edges {
				freq[i] = float64(x)
			}
			naive, opt := pl.Cost(freq)
			in.Naive += naive.Increments
			in.Optimized += opt.Increments
			in.NaiveOps += naive.Increments + naive.Inits + naive.Updates
			in.OptimizedOps += opt.Increments + opt.Inits + opt.Updates
			in.Funcs++
		}
	}
	if in.Funcs == 0 {
		return nil, fmt.Errorf("no function of %s ran", pkg)
	}
	return in, nil
}
