package pathnumber_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pathcover/pathcover/analyzer/pathnumber"
)

// stdlibSample is the part of the standard library that the analyzer's
// properties are checked on: code nobody here wrote, with every construct.
var stdlibSample = []string{
	"go/...", "encoding/...", "net/http", "regexp/...", "strconv", "text/template/...",
}

// TestStdlibSample runs the analyzer over the sample, tests included, and
// checks every function: it numbers, it places, and the numbering properties
// hold (ids dense and unique, decoding inverts encoding, chord increments sum
// to ids, each path's ops count it once), also for a PPP numbering of a
// random set of its paths.
func TestStdlibSample(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and analyzes a large part of the standard library")
	}
	pkgs, err := pathnumber.Load("", true, stdlibSample...)
	if err != nil {
		t.Fatal(err)
	}
	funcs := 0
	seen := make(map[string]bool) // a package and its test variant share functions
	for _, pkg := range pkgs {
		for _, f := range pkg.Result.Funcs {
			key := pkg.Fset.Position(f.Node.Pos()).String()
			if seen[key] {
				continue
			}
			seen[key] = true
			funcs++
			if f.Err != nil {
				t.Errorf("%s: %s: %v", pkg.Path, f.Name, f.Err)
				continue
			}
			if err := f.Placement.Check(nil, 200); err != nil {
				t.Errorf("%s: %s: %v", pkg.Path, f.Name, err)
				continue
			}
			n := f.Numbering.NumPaths()
			rng := rand.New(rand.NewPCG(n, uint64(funcs)))
			var interesting []uint64
			for range min(n, 30) {
				interesting = append(interesting, rng.Uint64N(n))
			}
			q, err := f.Placement.PPP(interesting)
			if err != nil {
				t.Errorf("%s: %s: PPP: %v", pkg.Path, f.Name, err)
				continue
			}
			if err := f.Placement.Check(q, 200); err != nil {
				t.Errorf("%s: %s: PPP: %v", pkg.Path, f.Name, err)
			}
		}
	}
	if funcs < 5000 {
		t.Errorf("only %d functions in the sample", funcs)
	}
	t.Logf("%d packages, %d functions checked", len(pkgs), funcs)
}
