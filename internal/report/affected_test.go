package report

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRunPatterns: the -run patterns affected prints run every affected
// test and subtest, and no other but their parents, on random trees of
// tests whose names hold regexp metacharacters, matched as go test
// matches a pattern: split at its slashes, each element against the
// name's level, a subtest only under a parent that runs.
func TestRunPatterns(t *testing.T) {
	names := []string{"A", "B", "a.b", "x+", "(c)", "d|e", "#00", "T_1"}
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 3))
		// The tree: every test's full name.
		var all []string
		var grow func(prefix string, depth int)
		grow = func(prefix string, depth int) {
			for _, n := range names {
				if r.IntN(3) != 0 {
					continue
				}
				name := n
				if prefix != "" {
					name = prefix + "/" + n
				} else {
					name = "Test" + n
				}
				all = append(all, name)
				if depth < 3 {
					grow(name, depth+1)
				}
			}
		}
		grow("", 1)
		if len(all) == 0 {
			continue
		}
		affected := make(map[string]bool)
		for range 1 + r.IntN(4) {
			affected[all[r.IntN(len(all))]] = true
		}
		hasSubtests := func(name string) bool {
			return slices.ContainsFunc(all, func(n string) bool { return strings.HasPrefix(n, name+"/") })
		}
		patterns := runPatterns(slices.Collect(mapKeys(affected)), hasSubtests)
		ran := make(map[string]bool)
		for _, p := range patterns {
			elems := strings.Split(p, "/")
			res := make([]*regexp.Regexp, len(elems))
			for i, e := range elems {
				res[i] = regexp.MustCompile(e)
			}
			for _, name := range all { // parents before their subtests
				levels := strings.Split(name, "/")
				if parent := strings.Join(levels[:len(levels)-1], "/"); len(levels) > 1 && !ranBy(parent, res) {
					continue
				}
				if ranBy(name, res) {
					ran[name] = true
				}
			}
		}
		for name := range affected {
			if !ran[name] {
				t.Fatalf("seed %d: %q affected, not run by %q", seed, name, patterns)
			}
		}
		for name := range ran {
			if !affected[name] && !slices.ContainsFunc(slices.Collect(mapKeys(affected)), func(a string) bool { return strings.HasPrefix(a, name+"/") }) {
				t.Fatalf("seed %d: %q runs, not affected, by %q (affected %v)", seed, name, patterns, affected)
			}
		}
	}
}

// ranBy says whether go test runs name, its parents running, by a
// pattern of elements res.
func ranBy(name string, res []*regexp.Regexp) bool {
	levels := strings.Split(name, "/")
	for i, l := range levels {
		if i < len(res) && !res[i].MatchString(l) {
			return false
		}
	}
	return true
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func Example_runPatterns() {
	named := []string{"TestParse/empty", "TestParse/nested/deep", "TestParse/nested/wide", "TestLex", "TestEval", "TestLexer/a", "TestScan/a"}
	subtests := map[string]bool{"TestParse": true, "TestParse/empty": true, "TestParse/nested": true, "TestEval": true, "TestLexer": true, "TestScan": true}
	for _, p := range runPatterns(named, func(name string) bool { return subtests[name] }) {
		fmt.Println(p)
	}
	// Output:
	// ^TestLex$
	// ^TestEval$/^$
	// ^(TestLexer|TestScan)$/^a$
	// ^TestParse$/^empty$/^$
	// ^TestParse$/^nested$/^(deep|wide)$
}
