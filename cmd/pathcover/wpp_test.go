package main_test

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/profile"
)

// wppModule has goroutines started by go statements and recursion.
var wppModule = map[string]string{
	"w.go": `package m

func Collatz(n int) (steps int) {
	for n != 1 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	return steps
}

func Fan(ns []int) int {
	c := make(chan int)
	for _, n := range ns {
		go func(n int) { c <- Collatz(n) }(n)
	}
	sum := 0
	for range ns {
		sum += <-c
	}
	return sum
}

func Depth(n int) int {
	if n == 0 {
		return 0
	}
	return 1 + Depth(n-1)
}

// Sum's loop calls abs each round: its own paths are not consecutive
// in the goroutine's.
func Sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += abs(x)
	}
	return s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
`,
	"w_test.go": `package m

import "testing"

func TestFan(t *testing.T) {
	if Fan([]int{3, 6, 7, 27}) == 0 {
		t.Fatal("no steps")
	}
	if Depth(5) != 5 {
		t.Fatal("depth")
	}
}

// TestSum shares Collatz(6)'s trace with TestFan, not Collatz(5)'s.
func TestSum(t *testing.T) {
	if Sum([]int{1, -2, 3, -4, 5, -6, 7, -8, 9}) != 45 {
		t.Fatal("sum")
	}
	if Collatz(5)+Collatz(6) == 0 {
		t.Fatal("no steps")
	}
}
`,
}

// TestWPPCommands records the whole program paths of a module's tests with
// pathcover test -wpp and checks the queries against the raw recording:
// expand gives every event back exactly, and traces and call say what a
// walk of the raw events says.
func TestWPPCommands(t *testing.T) {
	t.Parallel()
	dir := module(t, wppModule)
	prof := t.TempDir()
	out, code := run(t, dir, bin, "test", "-wpp", "-dir", prof, "./...")
	if code != 0 || !strings.Contains(out, "whole program paths in "+filepath.Join(prof, "profile.twpp")) {
		t.Fatalf("pathcover test -wpp: exit %d\n%s", code, out)
	}

	// The raw events, per file and goroutine.
	names, _ := filepath.Glob(filepath.Join(prof, "*.wpp"))
	if len(names) != 1 {
		t.Fatalf("%d WPP files", len(names))
	}
	raw, err := profile.OpenWPP(names[0])
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	type gev struct {
		G uint64
		E profile.WPPEvent
	}
	var want []gev
	for _, g := range raw.Goroutines() {
		raw.Events(g, func(e profile.WPPEvent) error {
			want = append(want, gev{g, e})
			return nil
		})
	}

	// expand -json: every event again, in order.
	out, code = run(t, dir, bin, "wpp", "expand", "-json", "-dir", prof)
	if code != 0 {
		t.Fatalf("wpp expand: exit %d\n%s", code, out)
	}
	var got []gev
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var line struct {
			Goroutine uint64
			profile.WPPEvent
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		got = append(got, gev{line.Goroutine, line.WPPEvent})
	}
	if !reflect.DeepEqual(got, want) || len(want) < 50 {
		t.Fatalf("wpp expand gave %d events, the recording has %d", len(got), len(want))
	}

	// traces: Collatz's distinct traces and their calls, from the raw
	// events with a stack of calls.
	collatz := func() map[string]uint64 {
		m := make(map[string]uint64)
		for _, g := range raw.Goroutines() {
			type call struct {
				fn    uint32
				paths []string
			}
			var stack []*call
			raw.Events(g, func(e profile.WPPEvent) error {
				switch e.Kind {
				case profile.WPPEnter:
					stack = append(stack, &call{fn: e.Func})
				case profile.WPPPath:
					c := stack[len(stack)-1-int(e.Up)]
					c.paths = append(c.paths, fmt.Sprint(e.Path))
				case profile.WPPReturn:
					if c := stack[len(stack)-1]; c.fn == 0 { // Collatz is the package's first function
						m[strings.Join(c.paths, " ")]++
					}
					stack = stack[:len(stack)-1]
				}
				return nil
			})
		}
		return m
	}()
	// And which top-level tests took each: a test's goroutine, or one
	// started from it, directly or not.
	collatzTests := func() map[string][]string {
		testOf := make(map[uint64]string)
		for _, tt := range raw.Tests {
			top, _, _ := strings.Cut(tt.Name, "/")
			testOf[tt.Goroutine] = top
		}
		parent := make(map[uint64]uint64)
		for _, g := range raw.Goroutines() {
			raw.Events(g, func(e profile.WPPEvent) error {
				if e.Kind == profile.WPPStart {
					parent[g] = e.Parent
				}
				return nil
			})
		}
		top := func(g uint64) string {
			for ; g != 0; g = parent[g] {
				if name, ok := testOf[g]; ok {
					return name
				}
			}
			return ""
		}
		m := make(map[string][]string)
		for _, g := range raw.Goroutines() {
			var stack [][]string
			var fns []uint32
			raw.Events(g, func(e profile.WPPEvent) error {
				switch e.Kind {
				case profile.WPPEnter:
					stack, fns = append(stack, nil), append(fns, e.Func)
				case profile.WPPPath:
					d := len(stack) - 1 - int(e.Up)
					stack[d] = append(stack[d], fmt.Sprint(e.Path))
				case profile.WPPReturn:
					if fns[len(fns)-1] == 0 {
						if name := top(g); name != "" {
							k := strings.Join(stack[len(stack)-1], " ")
							if !slices.Contains(m[k], name) {
								m[k] = append(m[k], name)
								slices.Sort(m[k])
							}
						}
					}
					stack, fns = stack[:len(stack)-1], fns[:len(fns)-1]
				}
				return nil
			})
		}
		return m
	}()
	out, code = run(t, dir, bin, "wpp", "traces", "-json", "-lines", "-dir", prof, "Collatz")
	if code != 0 {
		t.Fatalf("wpp traces: exit %d\n%s", code, out)
	}
	var ts wpp.Traces
	if err := json.Unmarshal([]byte(out), &ts); err != nil {
		t.Fatal(err)
	}
	gotTraces := make(map[string]uint64)
	for _, tr := range ts.Traces {
		var ps []string
		for _, p := range tr.Paths {
			ps = append(ps, fmt.Sprint(p))
		}
		gotTraces[strings.Join(ps, " ")] = tr.Calls
		if len(tr.Steps) != len(tr.Paths) || len(tr.Steps[0]) == 0 || !strings.Contains(tr.Steps[0][0], "w.go:3:1") {
			t.Errorf("trace %v decoded as %v", tr.Paths, tr.Steps)
		}
	}
	calls := uint64(0)
	for _, n := range collatz {
		calls += n
	}
	if !reflect.DeepEqual(gotTraces, collatz) || ts.Calls != calls || calls != 6 || !strings.HasSuffix(ts.Name, ".Collatz") {
		t.Errorf("wpp traces Collatz: %s %d calls %v, want 6 calls (TestFan's 4, TestSum's 2) %v", ts.Name, ts.Calls, gotTraces, collatz)
	}

	// The HTML page lists each function's traces: Collatz's are those of
	// the recording.
	page := filepath.Join(t.TempDir(), "page.html")
	if out, code := run(t, dir, bin, "html", "-dir", prof, "-o", page); code != 0 {
		t.Fatalf("pathcover html: exit %d\n%s", code, out)
	}
	raw2, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(raw2)
	js, err := report.PageData(raw2)
	if err != nil {
		t.Fatal(err)
	}
	var pd struct {
		Funcs map[string]struct {
			Paths map[string][]struct {
				Count    uint64
				Paths    []uint64
				PathList string
				Tests    []string
			}
		}
	}
	if err := json.Unmarshal(js, &pd); err != nil || !strings.Contains(html, `data-kind="traces"`) {
		t.Fatalf("the page's data: %v", err)
	}
	data := pd.Funcs
	found := false
	tests := make(map[string][]string)
	for _, f := range data {
		m := make(map[string]uint64)
		for _, tr := range f.Paths["traces"] {
			var ps []string
			for _, p := range tr.Paths {
				ps = append(ps, fmt.Sprint(p))
			}
			// The tab writes a trace as the CLI does, a run of one
			// path as id×n.
			var expanded []string
			prev := ""
			for _, run := range strings.Fields(tr.PathList) {
				id, n, _ := strings.Cut(run, "×")
				if id == prev {
					t.Errorf("the page's trace %q lists a run of path %s apart", tr.PathList, id)
				}
				prev = id
				times := 1
				if n != "" {
					times, _ = strconv.Atoi(n)
				}
				for range times {
					expanded = append(expanded, id)
				}
			}
			if !slices.Equal(expanded, ps) {
				t.Errorf("the page's trace %q, its paths %v", tr.PathList, ps)
			}
			m[strings.Join(ps, " ")] += tr.Count
			tests[strings.Join(ps, " ")] = tr.Tests
		}
		if reflect.DeepEqual(m, collatz) {
			found = true
			if !reflect.DeepEqual(tests, collatzTests) {
				t.Errorf("the page's tests of Collatz's traces %v, the recording's %v", tests, collatzTests)
			}
		}
		clear(tests)
	}
	if !found {
		t.Errorf("no function of the page lists Collatz's traces %v", collatz)
	}
	shared := 0
	for _, ts := range collatzTests {
		if len(ts) > 1 {
			shared++
		}
	}
	if shared == 0 || len(collatzTests) < 3 {
		t.Errorf("Collatz's traces' tests %v: want some of one test and some of both", collatzTests)
	}

	// call 0: the first call of the first goroutine, with its callees.
	out, code = run(t, dir, bin, "wpp", "call", "-json", "-dir", prof, "0")
	if code != 0 {
		t.Fatalf("wpp call: exit %d\n%s", code, out)
	}
	var c wpp.CallInfo
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	first := want[1].E // after the start event
	if first.Kind != profile.WPPEnter || c.Func.Index != first.Func || c.Goroutine != want[0].G {
		t.Errorf("call 0 is %+v, the recording's first call %+v", c, first)
	}

	// -calls gives each trace its first call, which wpp call shows as a
	// call of Collatz that took the trace's paths, and which -trace N
	// finds again.
	out, code = run(t, dir, bin, "wpp", "traces", "-json", "-calls", "-dir", prof, "Collatz")
	var withCalls wpp.Traces
	if err := json.Unmarshal([]byte(out), &withCalls); code != 0 || err != nil || len(withCalls.Traces) == 0 {
		t.Fatalf("wpp traces -calls: exit %d, %v\n%s", code, err, out)
	}
	for n, tr := range withCalls.Traces {
		if tr.FirstCall == nil {
			t.Fatalf("trace %d has no first call", n+1)
		}
		var byID, byTrace wpp.CallInfo
		out, code := run(t, dir, bin, "wpp", "call", "-json", "-dir", prof, fmt.Sprint(*tr.FirstCall))
		if err := json.Unmarshal([]byte(out), &byID); code != 0 || err != nil || !strings.HasSuffix(byID.Name, ".Collatz") || !slices.Equal(byID.Paths, tr.Paths) {
			t.Errorf("trace %d's first call %d: exit %d, %v: %+v, want a call of Collatz with paths %v", n+1, *tr.FirstCall, code, err, byID, tr.Paths)
		}
		out, code = run(t, dir, bin, "wpp", "call", "-json", "-dir", prof, "-trace", fmt.Sprint(n+1), "Collatz")
		if err := json.Unmarshal([]byte(out), &byTrace); code != 0 || err != nil || byTrace.ID != *tr.FirstCall {
			t.Errorf("wpp call -trace %d Collatz: exit %d, %v: call %d, want %d", n+1, code, err, byTrace.ID, *tr.FirstCall)
		}
		// No earlier call of Collatz took the trace.
		for id := range uint64(*tr.FirstCall) {
			var c wpp.CallInfo
			out, _ := run(t, dir, bin, "wpp", "call", "-json", "-dir", prof, fmt.Sprint(id))
			if json.Unmarshal([]byte(out), &c) == nil && strings.HasSuffix(c.Name, ".Collatz") && slices.Equal(c.Paths, tr.Paths) {
				t.Errorf("call %d took trace %d before its first call %d", id, n+1, *tr.FirstCall)
			}
		}
	}

	// expand numbers each call on its enter event as wpp call does.
	out, code = run(t, dir, bin, "wpp", "expand", "-json", "-dir", prof)
	if code != 0 {
		t.Fatalf("wpp expand -json: exit %d\n%s", code, out)
	}
	enters := 0
	for line := range strings.Lines(out) {
		var e struct {
			Call *uint64
			Kind profile.WPPEventKind
			Func uint32
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("wpp expand -json: %v: %s", err, line)
		}
		if (e.Kind == profile.WPPEnter) != (e.Call != nil) || e.Call != nil && *e.Call != uint64(enters) {
			t.Fatalf("wpp expand -json: call id %v on the %d-th enter: %s", e.Call, enters, line)
		}
		if e.Call == nil {
			continue
		}
		if enters < 12 {
			var c wpp.CallInfo
			out, _ := run(t, dir, bin, "wpp", "call", "-json", "-dir", prof, fmt.Sprint(*e.Call))
			if err := json.Unmarshal([]byte(out), &c); err != nil || c.Func.Index != e.Func {
				t.Errorf("expand's call %d enters function %d, wpp call says %+v (%v)", *e.Call, e.Func, c.Func, err)
			}
		}
		enters++
	}

	// hot -calls: each sequence's first run, found again from the raw
	// events by a search of every goroutine's paths, with a stack of
	// calls numbered as wpp call numbers them.
	out, code = run(t, dir, bin, "wpp", "hot", "-calls", "-json", "-n", "20", "-len", "6", "-dir", prof)
	var hot wpp.HotPaths
	if err := json.Unmarshal([]byte(out), &hot); code != 0 || err != nil || len(hot) == 0 {
		t.Fatalf("wpp hot -calls -json: exit %d, %v\n%s", code, err, out)
	}
	type pathRun struct {
		call uint64
		fn   uint32
		path uint64
	}
	var runs [][]pathRun // per goroutine, in the order they ran
	var id uint64
	for _, g := range raw.Goroutines() {
		var stack []pathRun
		var rs []pathRun
		raw.Events(g, func(e profile.WPPEvent) error {
			switch e.Kind {
			case profile.WPPEnter:
				stack = append(stack, pathRun{call: id, fn: e.Func})
				id++
			case profile.WPPReturn:
				stack = stack[:len(stack)-1]
			case profile.WPPPath:
				c := stack[len(stack)-1-int(e.Up)]
				rs = append(rs, pathRun{c.call, c.fn, e.Path})
			}
			return nil
		})
		runs = append(runs, rs)
	}
	// A sequence's first run is the first path at which it ends: in one
	// call, the call's own paths so far end with it; across calls, the
	// goroutine's paths so far end with it, in more calls than one.
	endsWith := func(rs []pathRun, steps []wpp.HotStep) (uint64, bool, bool) {
		if len(rs) < len(steps) {
			return 0, false, false
		}
		rs = rs[len(rs)-len(steps):]
		for j, st := range steps {
			if rs[j].fn != st.Func.Index || rs[j].path != st.Path {
				return 0, false, false
			}
		}
		return rs[0].call, slices.ContainsFunc(rs, func(r pathRun) bool { return r.call != rs[0].call }), true
	}
	kinds := map[bool]int{}
	interleaved := 0 // sequences in one call whose paths had others' between
	for i, h := range hot {
		kinds[h.Interprocedural]++
		if h.Steps[0].Func.Hash != hot[0].Steps[0].Func.Hash {
			t.Fatalf("hot sequences of two packages: the search matches functions by index")
		}
		want, found := uint64(0), false
	search:
		for _, rs := range runs {
			for end := 1; end <= len(rs); end++ {
				var upTo []pathRun
				if h.Interprocedural {
					upTo = rs[:end]
				} else {
					for _, r := range rs[:end] {
						if r.call == rs[end-1].call {
							upTo = append(upTo, r)
						}
					}
				}
				if first, calls, ok := endsWith(upTo, h.Steps); ok && calls == h.Interprocedural {
					want, found = first, true
					if !h.Interprocedural && !slices.Equal(upTo[len(upTo)-len(h.Steps):], rs[end-len(h.Steps):end]) {
						interleaved++
					}
					break search
				}
			}
		}
		if !found || h.FirstCall == nil || uint64(*h.FirstCall) != want {
			t.Errorf("hot sequence %d (%+v): first call %v, the search finds %d (%v)", i+1, h.Steps, h.FirstCall, want, found)
		}
	}
	if interleaved == 0 {
		t.Errorf("no hot sequence in one call had other calls' paths between its own: Sum's loop should")
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Errorf("hot sequences across calls and within one: %v, want both", kinds)
	}
	if out, _ := run(t, dir, bin, "wpp", "hot", "-calls", "-n", "1", "-len", "6", "-dir", prof); !strings.Contains(out, fmt.Sprintf("(the first: call %d)", *hot[0].FirstCall)) {
		t.Errorf("wpp hot -calls does not name the first call %d:\n%s", *hot[0].FirstCall, out)
	}

	// The test binary reached its end (the runtime's exit hooks): the
	// recording is whole, and no query says otherwise.
	if cut := raw.Header.Cut(); cut != nil {
		t.Errorf("the recording of a test binary that exited: %q", cut)
	}
	for _, args := range [][]string{{"traces", "Collatz"}, {"hot"}, {"call", "0"}, {"expand"}} {
		out, code := run(t, dir, bin, append([]string{"wpp", args[0], "-dir", prof}, args[1:]...)...)
		if code != 0 || strings.Contains(out, "partial") {
			t.Errorf("wpp %s on a whole recording: exit %d\n%s", args[0], code, out)
		}
	}
	// The same recording stopped by a full disk: every query says its
	// answer covers only part of the run, and why.
	cutDir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(prof, "*"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil || strings.HasSuffix(name, ".twpp") {
			continue
		}
		if name == names[0] {
			binary.LittleEndian.PutUint32(b[24:], profile.WPPWriteFailed|profile.WPPEnded)
			binary.LittleEndian.PutUint32(b[28:], 28) // ENOSPC
		}
		os.WriteFile(filepath.Join(cutDir, filepath.Base(name)), b, 0o644)
	}
	const because = "recording stopped when the file could not grow: " // and the error
	for _, args := range [][]string{{"compact"}, {"traces", "Collatz"}, {"hot"}, {"call", "0"}, {"expand"}} {
		out, code := run(t, dir, bin, append([]string{"wpp", args[0], "-dir", cutDir}, args[1:]...)...)
		if code != 0 || !strings.HasPrefix(out, "partial: "+filepath.Base(names[0])+": "+because) || !strings.Contains(out, "covers only part of the run") {
			t.Errorf("wpp %s on a recording cut short: exit %d\n%s", args[0], code, out)
		}
		if args[0] == "compact" {
			continue
		}
		out, code = run(t, dir, bin, append([]string{"wpp", args[0], "-json", "-dir", cutDir}, args[1:]...)...)
		var partial struct{ Partial []string }
		line, _, _ := strings.Cut(out, "\n")
		if err := json.Unmarshal([]byte(line), &partial); code != 0 || err != nil || len(partial.Partial) != 1 || !strings.Contains(partial.Partial[0], because) {
			t.Errorf("wpp %s -json on a recording cut short: exit %d, %v\n%s", args[0], code, err, out)
		}
	}

	// Errors: exit 2 for usage, 3 for no data.
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"wpp"}, 2, "usage: pathcover wpp"},
		{[]string{"wpp", "nosuch"}, 2, "no subcommand nosuch"},
		{[]string{"wpp", "traces", "-dir", prof, "NoSuchFunc"}, 3, "no function NoSuchFunc ran"},
		{[]string{"wpp", "call", "-dir", prof, "1000000"}, 3, "no call 1000000"},
		{[]string{"wpp", "call", "-dir", prof, "x"}, 2, "not a call number"},
		{[]string{"wpp", "compact", "-dir", t.TempDir()}, 3, "holds no recording of whole program paths"},
		{[]string{"wpp", "hot", "-dir", t.TempDir()}, 3, "pathcover wpp compact makes it"},
	} {
		out, code := run(t, dir, bin, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.msg) {
			t.Errorf("pathcover %s: exit %d, want %d with %q\n%s", strings.Join(tc.args, " "), code, tc.code, tc.msg, out)
		}
	}
}
