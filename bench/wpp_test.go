package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/profile"
)

var testHashes = []string{"0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"}

// randomRecording makes the goroutines of one process's recording, shaped
// like a real one: calls of a few functions of two packages, nested, each
// completing a few paths (some of them paths of a call further down the
// stack: range-over-func bodies), starting goroutines; blocks of calls
// repeated, as loops repeat them, so that Sequitur finds rules across
// calls; and each goroutine's stream cut at a random point, with calls
// still open, sometimes ended by a stop.
func randomRecording(r *rand.Rand) map[uint64][]profile.WPPEvent {
	spawns := uint64(0)
	var call func(depth int) []profile.WPPEvent
	call = func(depth int) []profile.WPPEvent {
		ev := []profile.WPPEvent{{Kind: profile.WPPEnter, Pkg: uint32(1 + r.IntN(2)), Func: uint32(r.IntN(3))}}
		for range r.IntN(5) {
			switch x := r.IntN(10); {
			case x < 5:
				ev = append(ev, profile.WPPEvent{Kind: profile.WPPPath, Path: r.Uint64N(3)})
			case x < 7 && depth < 4:
				ev = append(ev, call(depth+1)...)
			case x < 8 && depth > 0:
				ev = append(ev, profile.WPPEvent{Kind: profile.WPPPath, Up: uint32(1 + r.IntN(depth)), Path: r.Uint64N(3)})
			case x < 9:
				spawns++
				ev = append(ev, profile.WPPEvent{Kind: profile.WPPSpawn, Spawn: spawns})
			}
		}
		return append(ev, profile.WPPEvent{Kind: profile.WPPReturn})
	}
	gs := make(map[uint64][]profile.WPPEvent)
	for g := range uint64(1 + r.IntN(3)) {
		var blocks [][]profile.WPPEvent
		for range 1 + r.IntN(3) {
			blocks = append(blocks, call(0))
		}
		ev := []profile.WPPEvent{{Kind: profile.WPPStart, Parent: g, Spawn: r.Uint64N(2)}}
		for range r.IntN(30) {
			ev = append(ev, blocks[r.IntN(len(blocks))]...)
		}
		if r.IntN(3) == 0 {
			ev = ev[:1+r.IntN(len(ev))]
			if r.IntN(2) == 0 {
				ev = append(ev, profile.WPPEvent{Kind: profile.WPPStop})
			}
		}
		gs[10+g] = ev
	}
	return gs
}

// oracleTraces are the traces of each function, from the events as
// generated: a stack of calls, each with its paths.
func oracleTraces(gs map[uint64][]profile.WPPEvent) map[wpp.FuncKey]traceCounts {
	out := make(map[wpp.FuncKey]traceCounts)
	type call struct {
		k     wpp.FuncKey
		paths []uint64
	}
	done := func(c call) {
		if out[c.k] == nil {
			out[c.k] = make(traceCounts)
		}
		out[c.k][traceKey(c.paths)]++
	}
	for _, ev := range gs {
		var stack []call
		for _, e := range ev {
			switch e.Kind {
			case profile.WPPEnter:
				stack = append(stack, call{k: wpp.FuncKey{Hash: testHashes[e.Pkg-1], Index: e.Func}})
			case profile.WPPPath:
				c := &stack[len(stack)-1-int(e.Up)]
				c.paths = append(c.paths, e.Path)
			case profile.WPPReturn:
				done(stack[len(stack)-1])
				stack = stack[:len(stack)-1]
			}
		}
		for len(stack) > 0 {
			done(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
	}
	return out
}

// checkExtractions records random processes into WPP files, and checks
// that Sequitur's grammar of each expands to its events, and that the
// raw scan, the TWPP and the grammars give every function the oracle's
// traces.
func checkExtractions(t *testing.T, seed uint64, walks *walkStats) {
	r := rand.New(rand.NewPCG(seed, 5))
	dir := t.TempDir()
	var raws, grammars []string
	all := make(map[uint64][]profile.WPPEvent) // goroutine ids are unique in a profile here
	for p := range 1 + r.IntN(2) {
		gs := randomRecording(r)
		for g, ev := range gs {
			all[uint64(p)<<32|g] = ev
		}
		var buf bytes.Buffer
		h := profile.WPPHeader{Start: time.Unix(1, 0), PID: uint64(p)}
		if err := profile.WriteWPP(&buf, h, testHashes, gs); err != nil {
			t.Fatal(err)
		}
		raw := filepath.Join(dir, fmt.Sprintf("pathcover.%d.1.wpp", p))
		if err := os.WriteFile(raw, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		raws = append(raws, raw)

		f, err := profile.OpenWPP(raw)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sequiturOfWPP(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var want []wppSymbol
		for _, g := range slices.Sorted(maps.Keys(gs)) {
			want = append(want, wppSymbol{Marker: true, Goroutine: g})
			for _, e := range gs[g] {
				want = append(want, wppSymbol{Event: e})
			}
		}
		data := s.encode()
		g, err := readGrammar(data)
		if err != nil {
			t.Fatalf("seed %d: reading the grammar back: %v", seed, err)
		}
		if got := g.expand(); !slices.Equal(got, want) {
			t.Fatalf("seed %d: the grammar file expands to\n%v\nnot\n%v", seed, got, want)
		}
		name := filepath.Join(dir, fmt.Sprintf("%d.grammar", p))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		grammars = append(grammars, name)
	}
	twpp, _, err := wpp.CompactDir(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	tf, err := wpp.Open(twpp)
	if err != nil {
		t.Fatal(err)
	}
	funcs := tf.Funcs()
	tf.Close()
	want := oracleTraces(all)
	if !slices.Equal(slices.SortedFunc(maps.Keys(want), cmpFuncKey), slices.SortedFunc(slices.Values(funcs), cmpFuncKey)) {
		t.Fatalf("seed %d: the TWPP has functions %v, the recording %v", seed, funcs, slices.Collect(maps.Keys(want)))
	}
	for k, w := range want {
		raw, err := rawTraces(raws, k)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := twppTraces(twpp, k)
		if err != nil {
			t.Fatal(err)
		}
		seq, _, err := sequiturTraces(grammars, k, walks)
		if err != nil {
			t.Fatal(err)
		}
		for what, got := range map[string]traceCounts{"raw scan": raw, "TWPP": twppCounts(ts), "Sequitur": seq} {
			if err := sameTraces(w, got); err != nil {
				t.Fatalf("seed %d, function %s: %s: %v", seed, k, what, err)
			}
		}
	}
}

func cmpFuncKey(a, b wpp.FuncKey) int { return strings.Compare(a.String(), b.String()) }

// expand returns every terminal the grammar generates, in order.
func (g *seqGrammar) expand() []wppSymbol {
	var out []wppSymbol
	var walk func(r int)
	walk = func(r int) {
		for _, v := range g.body[g.start[r]:g.start[r+1]] {
			if v&1 == 1 {
				walk(int(v / 2))
			} else {
				out = append(out, g.alphabet[v/2])
			}
		}
	}
	walk(0)
	return out
}

// TestWPPExtraction checks the three extractions against the oracle on
// random recordings, and that the walk of the grammars took each of its
// shortcuts (passing over a rule, and a memoized rule's traces) many
// times, so that they are tested.
func TestWPPExtraction(t *testing.T) {
	var walks walkStats
	for seed := range uint64(150) {
		checkExtractions(t, seed, &walks)
	}
	t.Logf("rules walked %d, passed over %d, memoized %d, memo used %d", walks.expanded, walks.skipped, walks.memoized, walks.memoHits)
	if walks.skipped < 100 || walks.memoHits < 100 {
		t.Errorf("the grammar walks passed over %d rules and used memoized traces %d times: the random recordings do not test the shortcuts", walks.skipped, walks.memoHits)
	}
}

func FuzzWPPExtraction(f *testing.F) {
	for _, seed := range []uint64{0, 1, 2, 99} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkExtractions(t, seed, nil)
	})
}

// FuzzReadGrammar feeds the grammar reader anything: it may refuse,
// never panic; what it accepts refers only to terminals and later rules.
func FuzzReadGrammar(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 5))
	var buf bytes.Buffer
	if err := profile.WriteWPP(&buf, profile.WPPHeader{}, testHashes, randomRecording(r)); err != nil {
		f.Fatal(err)
	}
	w, err := profile.ParseWPP(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		f.Fatal(err)
	}
	s, err := sequiturOfWPP(w)
	if err != nil {
		f.Fatal(err)
	}
	data := s.encode()
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte{0, 1, wppMarkerCode, 7, 1, 2, 0})
	f.Add([]byte{0, 0, 2, 1, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := readGrammar(b)
		if err != nil {
			return
		}
		for r := range len(g.start) - 1 {
			for _, v := range g.body[g.start[r]:g.start[r+1]] {
				if v&1 == 1 && (int(v/2) <= r || int(v/2) >= len(g.start)-1) || v&1 == 0 && int(v/2) >= len(g.alphabet) {
					t.Fatalf("rule %d: symbol %d", r, v)
				}
			}
		}
	})
}

// TestReadGrammarErrors: truncations and bad symbols are errors.
func TestReadGrammarErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 5))
	var buf bytes.Buffer
	if err := profile.WriteWPP(&buf, profile.WPPHeader{}, testHashes, randomRecording(r)); err != nil {
		t.Fatal(err)
	}
	w, err := profile.ParseWPP(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sequiturOfWPP(w)
	if err != nil {
		t.Fatal(err)
	}
	data := s.encode()
	if _, err := readGrammar(data); err != nil {
		t.Fatal(err)
	}
	for n := range len(data) {
		if _, err := readGrammar(data[:n]); err == nil {
			t.Errorf("the first %d of %d bytes read as a grammar", n, len(data))
		}
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{[]byte{0, 0, 0}, "no start rule"},
		{[]byte{0, 0, 1, 1, 2}, "symbol 2"},       // terminal 1 of none
		{[]byte{0, 0, 1, 1, 1}, "symbol 1"},       // rule 0 in rule 0
		{[]byte{0, 0, 2, 1, 3, 1, 1}, "symbol 1"}, // rule 1 refers to rule 0
		{[]byte{0, 0, 1, 0, 9}, "left over"},
		{[]byte{0, 0, 200, 1}, "rules in"},
	} {
		if _, err := readGrammar(c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.data, err, c.want)
		}
	}
}

// TestWPPHarness runs -wpp on the example and checks what it reports.
func TestWPPHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	work := t.TempDir()
	jsonFile := filepath.Join(work, "wpp.json")
	readme := filepath.Join(work, "performance.md")
	if err := os.WriteFile(readme, []byte("x\n<!-- bench-wpp:begin -->\n<!-- bench-wpp:end -->\ny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := benchMain([]string{"-wpp", "-run", "example/expr$", "-work", work, "-json", jsonFile, "-readme", readme}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var r wppResults
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) > 0 || len(r.Workloads) != 1 {
		t.Fatalf("warnings %q, %d workloads", r.Warnings, len(r.Workloads))
	}
	w := r.Workloads[0]
	if w.Events == 0 || w.RawBytes <= 0 || w.RawFileBytes < w.RawBytes || w.TWPPBytes <= 0 || w.SequiturBytes <= 0 ||
		w.Funcs == 0 || w.Timed != w.Funcs || w.TWPPMs <= 0 || w.RawMs <= 0 || w.SequiturReadMs <= 0 {
		t.Errorf("%+v", w)
	}
	// The parts of the TWPP are within it, and it has both.
	if w.TWPPTraceBytes <= 0 || w.TWPPCallBytes <= 0 || w.TWPPTraceBytes+w.TWPPCallBytes >= w.TWPPBytes {
		t.Errorf("TWPP of %d bytes: traces %d, calls %d", w.TWPPBytes, w.TWPPTraceBytes, w.TWPPCallBytes)
	}
	// The raw bytes are the events' encodings: the payload of the
	// recording's chunks.
	raws, _ := filepath.Glob(filepath.Join(work, "wpp", "github.com_pathcover_pathcover_example_expr", "profile", "*.wpp"))
	var events uint64
	for _, name := range raws {
		f, err := profile.OpenWPP(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range f.Goroutines() {
			f.Events(g, func(profile.WPPEvent) error { events++; return nil })
		}
		f.Close()
	}
	if events != w.Events {
		t.Errorf("the harness counts %d events, the files hold %d", w.Events, events)
	}
	got, _ := os.ReadFile(readme)
	for _, want := range []string{"Measured by `go run ./bench -wpp -run=\"example/expr$\"`", "| github.com/pathcover/pathcover/example/expr |", "\ny\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the page lacks %q:\n%s", want, got)
		}
	}

	// -from renders the saved run again; what is not a -wpp run is refused.
	stdout.Reset()
	if code := benchMain([]string{"-wpp", "-from", jsonFile}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "| github.com/pathcover/pathcover/example/expr |") {
		t.Errorf("-wpp -from: exit %d, %s", code, stdout.String())
	}
	empty := filepath.Join(work, "empty.json")
	os.WriteFile(empty, []byte("{}"), 0o644)
	if code := benchMain([]string{"-wpp", "-from", empty}, io.Discard, io.Discard); code != 1 {
		t.Errorf("-wpp -from {}: exit %d, want 1", code)
	}
}

// BenchmarkGrammarTraces times the walk of a grammar for one function's
// traces, against the raw scan of the same recording.
func BenchmarkGrammarTraces(b *testing.B) {
	r := rand.New(rand.NewPCG(4, 5))
	gs := randomRecording(r)
	for len(gs[10]) < 1<<16 {
		gs[10] = append(gs[10], randomRecording(r)[10][1:]...)
	}
	var buf bytes.Buffer
	if err := profile.WriteWPP(&buf, profile.WPPHeader{}, testHashes, gs); err != nil {
		b.Fatal(err)
	}
	raw := filepath.Join(b.TempDir(), "p.wpp")
	if err := os.WriteFile(raw, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	w, err := profile.OpenWPP(raw)
	if err != nil {
		b.Fatal(err)
	}
	s, err := sequiturOfWPP(w)
	w.Close()
	if err != nil {
		b.Fatal(err)
	}
	g, err := readGrammar(s.encode())
	if err != nil {
		b.Fatal(err)
	}
	k := wpp.FuncKey{Hash: testHashes[0], Index: 1}
	b.Run("grammar", func(b *testing.B) {
		for b.Loop() {
			if err := grammarTraces(g, k, make(traceCounts), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			if _, err := rawTraces([]string{raw}, k); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestWETHarness runs bench -wet on the example: its WET is measured, its
// sizes add up and the page's section is written.
func TestWETHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	work := t.TempDir()
	jsonFile := filepath.Join(work, "wet.json")
	readme := filepath.Join(work, "performance.md")
	if err := os.WriteFile(readme, []byte("x\n<!-- bench-wet:begin -->\n<!-- bench-wet:end -->\ny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := benchMain([]string{"-wet", "-run", "example/expr$", "-work", work, "-json", jsonFile, "-readme", readme}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var r wetResults
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) > 0 || len(r.Workloads) != 1 {
		t.Fatalf("warnings %q, %d workloads", r.Warnings, len(r.Workloads))
	}
	w := r.Workloads[0]
	if w.Statements <= w.Paths || w.Paths == 0 || w.ValueRecords == 0 || w.Tier2Bytes <= w.ValueBytes || w.TraceWords < w.Paths || w.TraceFwdMBs <= 0 ||
		w.GroupedValueBytes < w.ValueBytes || w.SiteValueBytes < w.GroupedValueBytes ||
		w.SliceCriteria == 0 || w.SliceMismatches != 0 || w.WETLoadSeconds <= 0 || w.OPTSliceMs <= 0 {
		t.Errorf("%+v", w)
	}
	md, _ := os.ReadFile(readme)
	if !strings.Contains(string(md), "| github.com/pathcover/pathcover/example/expr |") {
		t.Errorf("the page's section:\n%s", md)
	}
}

// TestSliceHarness runs -slice on the example: every criterion sliced by
// the three graphs, none differing, and the page's section written.
func TestSliceHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	work := t.TempDir()
	jsonFile := filepath.Join(work, "slice.json")
	readme := filepath.Join(work, "performance.md")
	if err := os.WriteFile(readme, []byte("x\n<!-- bench-slice:begin -->\n<!-- bench-slice:end -->\ny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := benchMain([]string{"-slice", "-run", "example/expr$", "-work", work, "-json", jsonFile, "-readme", readme}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var r sliceResults
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) > 0 || len(r.Workloads) != 1 {
		t.Fatalf("warnings %q, %d workloads", r.Warnings, len(r.Workloads))
	}
	w := r.Workloads[0]
	if w.Criteria != sliceCriteria || w.SlicesCompared != sliceCriteria || w.LPCriteria != sliceCriteria || w.FPMismatches != 0 || w.LPMismatches != 0 ||
		w.OPTSliceMs <= 0 || w.FPSliceMs <= 0 || w.SliceNodes < w.SliceStmts || w.SliceStmts < 1 || w.Labelled == 0 || w.Labelled >= w.Dependences {
		t.Errorf("%+v", w)
	}
	md, _ := os.ReadFile(readme)
	if !strings.Contains(string(md), "| github.com/pathcover/pathcover/example/expr |") {
		t.Errorf("the page's section:\n%s", md)
	}
}
