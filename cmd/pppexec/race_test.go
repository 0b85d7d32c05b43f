package main_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
)

// raceModule is a package whose functions the test's goroutines all run at
// once, down every path and path 0 too: Sum has a loop (its counts go
// through a local view of its counters, which its first line checks),
// Classify has 16 paths (more than -arraylimit=4: a hash or hot path
// table), Sign none to speak of.
var raceModule = map[string]string{
	"go.mod": "module example.com/race\n\ngo 1.25\n",
	"r.go": `package r

func Sum(xs []int) int {
	s := 0
	for _, x := range xs {
		if x > 0 {
			s += x
		}
	}
	return s
}

func Classify(a, b, c, d int) int {
	n := 0
	if a > 0 {
		n++
	}
	if b > 0 {
		n += 2
	}
	if c > 0 {
		n += 4
	}
	if d > 0 {
		n += 8
	}
	return n
}

func Sign(x int) int {
	if x < 0 {
		return -1
	}
	return 1
}
`,
	"r_test.go": `package r

import (
	"fmt"
	"sync"
	"testing"
)

// TestParallel: 4 parallel subtests of 8 goroutines each make 250 calls
// of each function, down each of its paths in turn.
func TestParallel(t *testing.T) {
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for j := range 250 {
						Sum([]int{j % 3, -1}[:j%3])
						Classify(j&1, j&2, j&4, j&8)
						Sign(j%2 - 1)
					}
				})
			}
			wg.Wait()
		})
	}
}
`,
}

// TestRaceModes runs a package's parallel tests with go test -race under
// pppexec in every mode that -race allows: the race detector must find
// nothing in the code that pppexec adds (in an atomic build no generated
// code may read or write a word that another goroutine adds to
// atomically: not the bounds hint at the top of a function, not a hash or
// hot table's or a PPP slot's check), and every count must be there: the
// program's own arithmetic (8,000 calls of each function) is the oracle.
func TestRaceModes(t *testing.T) {
	t.Parallel()
	bin := pppexec(t)
	mod := t.TempDir()
	cmdtest.WriteFiles(t, mod, raceModule)
	const calls = 4 * 8 * 250
	test := func(t *testing.T, flags string, counts bool) string {
		t.Helper()
		prof := t.TempDir()
		toolexec := bin + " -pkgs=example.com/race " + flags
		out, code := run(t, mod, []string{"PATHCOVERDIR=" + prof}, "go", "test", "-race", "-count=1", "-toolexec="+toolexec, ".")
		if code != 0 || strings.Contains(out, "DATA RACE") {
			t.Fatalf("go test -race -toolexec=%q: exit %d\n%s", toolexec, code, out)
		}
		if !counts {
			return prof
		}
		p := cmdtest.LoadProfile(t, prof)
		total := map[string]uint64{}
		for hash, m := range p.Metas {
			if !m.Atomic {
				t.Errorf("%s: counters are not atomic under -race", m.Package)
			}
			for fn := range m.Funcs {
				for _, n := range p.Counts[hash][fn] {
					total[m.Funcs[fn].Name] += n
				}
			}
		}
		// A call of Sum runs a path for each round of its loop and one
		// to its return.
		want := map[string]uint64{"Sum": calls, "Classify": calls, "Sign": calls}
		for j := range calls / 32 {
			want["Sum"] += 32 * uint64(j%3)
		}
		for f, n := range want {
			if total[f] != n {
				t.Errorf("%s: %d paths counted; want %d", f, total[f], n)
			}
		}
		return prof
	}
	// The plain build's profile is the PPP and interprocedural builds'.
	// Each mode below writes code of its own; a mode whose code another
	// covers shares its build (-wet records what -deps and -wpp do, and
	// values; -arraylimit=4 counts Sum and Sign in arrays, Classify in a
	// hot path table, or, sharded, in a hash table: atomic builds count in
	// either through a call into rt, sharded or not).
	tested := test(t, "", true)
	for _, m := range []struct {
		flags  string
		counts bool // every path counted exactly
	}{
		{"-arraylimit=4 -hot=8", false},                  // hot path tables: estimates
		{"-arraylimit=4 -shard=p -tests", true},          // a copy of the counters per P; tests' attribution
		{"-interesting=" + tested + " -pppalways", true}, // PPP arrays
		{"-ippp=" + tested, true},                        // interprocedural segments
		{"-flight=8", false},                             // rings, no counts
		{"-wet", true},                                   // whole program paths, dependences, values
	} {
		name := strings.ReplaceAll(m.flags, tested, "PROFILE")
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) { test(t, m.flags, m.counts) })
	}
}
