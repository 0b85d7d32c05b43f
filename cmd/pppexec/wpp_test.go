package main_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/oracle"
	"github.com/pathcover/pathcover/profile"
)

// A callTree is a call with its paths and the calls it made, in order.
type callTree struct {
	fn       string // hash/index
	paths    []uint64
	children []*callTree
}

func (c *callTree) String() string {
	var b strings.Builder
	var walk func(c *callTree, depth int)
	walk = func(c *callTree, depth int) {
		fmt.Fprintf(&b, "%s%s %v\n", strings.Repeat("  ", depth), c.fn, c.paths)
		for _, k := range c.children {
			walk(k, depth+1)
		}
	}
	walk(c, 0)
	return b.String()
}

// TestOracleWPP builds the oracle program with pppexec -trace -wpp
// -wppmax=64M -atomic and runs it with its goroutines: each goroutine's whole program
// path must equal what the path oracle regenerates independently. The
// oracle knows goroutines from runtime.Stack (not from the accessor that
// pppexec adds to the runtime), paths from the witnesses of every edge
// (not from the Ball-Larus registers), and nesting from each call's return
// record. It also checks every goroutine's creator, that each spawn a
// goroutine names is in its creator's stream, and that the paths in the
// WPP add up to the counters.
func TestOracleWPP(t *testing.T) {
	t.Parallel()
	bin := pppexec(t)
	mod := cmdtest.OracleModule(t, "../..")
	exe := filepath.Join(t.TempDir(), "oracle")
	toolexec := bin + " -trace -wpp -wppmax=64M -atomic -pkgs=example.com/oracle/constructs"
	if out, code := run(t, mod, nil, "go", "build", "-toolexec="+toolexec, "-o", exe, "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	prof := t.TempDir()
	out, code := run(t, mod, []string{"ORACLE_CONCURRENT=1", "PATHCOVERDIR=" + prof}, exe)
	if code != 1 || !strings.Contains(out, "no error") {
		t.Fatalf("the program should end with log.Fatalf: exit %d\n%s", code, out)
	}
	p := cmdtest.LoadProfile(t, prof)

	// The oracle's calls, per goroutine.
	traces, _ := filepath.Glob(filepath.Join(prof, "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("%d trace files", len(traces))
	}
	calls, err := profile.ReadTrace(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	ids, _, err := oracle.CallPaths(p, calls)
	if err != nil {
		t.Fatal(err)
	}
	want := make(map[uint64][]*callTree) // goroutine → roots
	parents := make(map[uint64]uint64)
	type event struct {
		line int
		call int
		ret  bool
	}
	byG := make(map[uint64][]event)
	for i, c := range calls {
		if c.Goroutine == 0 {
			t.Fatalf("call record without a goroutine: %+v", c)
		}
		parents[c.Goroutine] = c.Parent
		byG[c.Goroutine] = append(byG[c.Goroutine], event{c.Line, i, false})
		if c.Return != 0 {
			byG[c.Goroutine] = append(byG[c.Goroutine], event{c.Return, i, true})
		}
	}
	for g, evs := range byG {
		slices.SortFunc(evs, func(a, b event) int { return a.line - b.line })
		var stack []*callTree
		for _, e := range evs {
			c := calls[e.call]
			if e.ret {
				if len(stack) == 0 || stack[len(stack)-1].fn != fmt.Sprintf("%s/%d", c.Hash, c.Func) {
					t.Fatalf("goroutine %d: a return out of order", g)
				}
				stack = stack[:len(stack)-1]
				continue
			}
			n := &callTree{fn: fmt.Sprintf("%s/%d", c.Hash, c.Func), paths: ids[e.call]}
			if len(stack) == 0 {
				want[g] = append(want[g], n)
			} else {
				top := stack[len(stack)-1]
				top.children = append(top.children, n)
			}
			stack = append(stack, n)
		}
	}

	// The whole program paths.
	wpps, _ := filepath.Glob(filepath.Join(prof, "*.wpp"))
	if len(wpps) != 1 {
		t.Fatalf("%d WPP files", len(wpps))
	}
	w, err := profile.OpenWPP(wpps[0])
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Header.Limit != 64<<20 || w.Header.LimitReached {
		t.Errorf("header %+v: want the limit of -wppmax=64M, not reached", w.Header)
	}
	got := make(map[uint64][]*callTree)
	starts := make(map[uint64]profile.WPPEvent)
	spawns := make(map[uint64]uint64) // spawn → goroutine
	counts := make(map[string]uint64) // hash/func/id → runs
	for _, g := range w.Goroutines() {
		var stack []*callTree
		err := w.Events(g, func(e profile.WPPEvent) error {
			switch e.Kind {
			case profile.WPPStart:
				starts[g] = e
			case profile.WPPEnter:
				n := &callTree{fn: fmt.Sprintf("%s/%d", w.Packages[e.Pkg], e.Func)}
				if len(stack) == 0 {
					got[g] = append(got[g], n)
				} else {
					top := stack[len(stack)-1]
					top.children = append(top.children, n)
				}
				stack = append(stack, n)
			case profile.WPPPath:
				c := stack[len(stack)-1-int(e.Up)]
				c.paths = append(c.paths, e.Path)
				counts[fmt.Sprintf("%s/%d", c.fn, e.Path)]++
			case profile.WPPReturn:
				stack = stack[:len(stack)-1]
			case profile.WPPSpawn:
				spawns[e.Spawn] = g
			case profile.WPPStop:
				return fmt.Errorf("recording stopped")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("goroutine %d: %v", g, err)
		}
	}
	if len(want) < 3 {
		t.Fatalf("the oracle saw %d goroutines: the program should start several", len(want))
	}
	for g, roots := range want {
		if !reflect.DeepEqual(got[g], roots) {
			var gs, ws strings.Builder
			for _, r := range got[g] {
				gs.WriteString(r.String())
			}
			for _, r := range roots {
				ws.WriteString(r.String())
			}
			t.Errorf("goroutine %d: the WPP's calls differ from the oracle's:\n%.3000s\nwant\n%.3000s", g, gs.String(), ws.String())
		}
		if s, ok := starts[g]; !ok || s.Parent != parents[g] {
			t.Errorf("goroutine %d: created by goroutine %d, the oracle says %d", g, s.Parent, parents[g])
		}
	}
	for g, roots := range got {
		if len(roots) > 0 && want[g] == nil {
			t.Errorf("goroutine %d recorded calls the oracle did not see", g)
		}
	}
	linked := 0
	for g, s := range starts {
		if s.Spawn == 0 {
			continue
		}
		linked++
		if spawns[s.Spawn] != s.Parent {
			t.Errorf("goroutine %d names spawn %d of goroutine %d, which goroutine %d recorded", g, s.Spawn, s.Parent, spawns[s.Spawn])
		}
	}
	if linked == 0 {
		t.Error("no goroutine names the go statement that started it")
	}
	// The paths add up to the counters.
	fromCounters := make(map[string]uint64)
	for hash, fns := range p.Counts {
		for fn, c := range fns {
			for id, n := range c {
				fromCounters[fmt.Sprintf("%s/%d/%d", hash, fn, id)] = n
			}
		}
	}
	if !reflect.DeepEqual(counts, fromCounters) {
		t.Errorf("paths in the WPP %v\ndiffer from the counters %v", counts, fromCounters)
	}
}
