package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// writeStatsProfile writes a profile directory of a Ball-Larus build of
// package example.com/m, whose function Tally is three ifs in a row and
// ran its paths 0 (every then branch) and 7 (no then branch).
func writeStatsProfile(t *testing.T) string {
	t.Helper()
	var g numbering.Graph
	c1, c2, c3, exit := g.AddBlock(), g.AddBlock(), g.AddBlock(), g.AddBlock()
	g.Entry, g.Exit = c1, exit
	for _, c := range [][2]numbering.BlockID{{c1, c2}, {c2, c3}, {c3, exit}} {
		then := g.AddBlock()
		g.AddEdge(c[0], then, true)
		g.AddEdge(c[0], c[1], true)
		g.AddEdge(then, c[1], true)
	}
	n, err := numbering.Number(&g, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := profile.Func{Name: "Tally", Line: 3, EndLine: 13, Entry: int32(g.Entry), Exit: int32(g.Exit), Paths: n.NumPaths(), Total: n.Total().String()}
	for range g.NumBlocks {
		f.Blocks = append(f.Blocks, profile.Block{Kind: "body", Line: 4})
	}
	for _, e := range g.Edges {
		f.Edges = append(f.Edges, profile.Edge{Src: int32(e.Src), Dst: int32(e.Dst), Probe: e.Probe, Kind: "flow", Line: 4})
	}
	f.Counters = profile.Counters{Kind: "array", Size: int(f.Paths)}
	m := profile.Meta{Format: profile.MetaFormat, Package: "example.com/m", Mode: "bl", Files: []string{"m.go"}, Words: int(f.Paths), Funcs: []profile.Func{f}}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	hash := profile.Hash(raw)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o666); err != nil {
		t.Fatal(err)
	}
	words := make([]uint64, f.Paths)
	words[0], words[7] = 2, 1
	var buf bytes.Buffer
	if err := profile.WriteCounts(&buf, &profile.CountFile{PID: 1, Segments: []profile.Segment{profile.NewSegment(hash, words)}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pathcover.1.0.counts"), buf.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	return dir
}

// captureStats runs the stats command with args and returns what it wrote to
// standard output and standard error.
func captureStats(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	read := func(f **os.File) func() string {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		old := *f
		*f = w
		done := make(chan string)
		go func() {
			b, _ := io.ReadAll(r)
			r.Close()
			done <- string(b)
		}()
		return func() string {
			w.Close()
			*f = old
			return <-done
		}
	}
	endOut, endErr := read(&os.Stdout), read(&os.Stderr)
	code = cmdStats.Main(args)
	return endOut(), endErr(), code
}

func TestStatsCommand(t *testing.T) {
	dir := writeStatsProfile(t)
	out, errOut, code := captureStats(t, "-dir", dir, "-json")
	if code != 0 || errOut != "" {
		t.Fatalf("pathcover stats -json: exit %d\n%s", code, errOut)
	}
	var r struct {
		Funcs []struct {
			Package, Name     string
			Paths             uint64
			Interesting       int
			PPPSize           uint64
			DeltaPPP, DeltaBL float64
		}
		Summary struct{ Funcs int }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	// Paths 0 and 7 of 8: Ball-Larus δ = (7 − 0 + 1)/2 = 4. They part at
	// the first if and only there, so PPP numbers them 0 and 1: δ = 1.
	if len(r.Funcs) != 1 || r.Summary.Funcs != 1 {
		t.Fatalf("want one function:\n%s", out)
	}
	if f := r.Funcs[0]; f.Package != "example.com/m" || f.Name != "Tally" || f.Paths != 8 || f.Interesting != 2 || f.PPPSize != 2 || f.DeltaPPP != 1 || f.DeltaBL != 4 {
		t.Errorf("Tally: %+v", f)
	}

	out, _, code = captureStats(t, "-dir", dir, "example.com/m")
	if code != 0 || !strings.Contains(out, "functions numbered: 1\n") || !strings.Contains(out, "m.go:3 example.com/m.Tally") {
		t.Errorf("pathcover stats: exit %d\n%s", code, out)
	}
	_, errOut, code = captureStats(t, "-dir", dir, "example.com/other")
	if code != exitNoData || !strings.Contains(errOut, "example.com/other match no package of the profile, which holds example.com/m") {
		t.Errorf("pathcover stats of another package: exit %d\n%s", code, errOut)
	}
}

func TestStatsCommandErrors(t *testing.T) {
	if _, errOut, code := captureStats(t, "-frobnicate"); code != 2 || !strings.Contains(errOut, "usage: pathcover stats") {
		t.Errorf("bad flag: exit %d\n%s", code, errOut)
	}
	t.Setenv("PATHCOVERDIR", "")
	if _, errOut, code := captureStats(t); code != exitNoData || !strings.Contains(errOut, "pathcover stats: no profile") {
		t.Errorf("no profile: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := captureStats(t, "-dir", filepath.Join(t.TempDir(), "nope")); code != exitNoData || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing directory: exit %d\n%s", code, errOut)
	}
}

// TestProfileDirsWithCommas: a profile directory whose name holds a comma
// is read whole, from -dir and from $PATHCOVERDIR; several profiles are
// given by repeating -dir, or, as before, with commas between names that
// are not files themselves.
func TestProfileDirsWithCommas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a,b")
	if err := os.Rename(writeStatsProfile(t), dir); err != nil {
		t.Fatal(err)
	}
	other := writeStatsProfile(t)
	processes := func(args ...string) int {
		t.Helper()
		p, _, code := loadProfile("test", append([]string(nil), args...))
		if code != 0 {
			t.Fatalf("loadProfile(%q): exit %d", args, code)
		}
		return p.Processes
	}
	parse := func(args ...string) []string {
		t.Helper()
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		d := profileFlag(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return d.dirs
	}
	t.Setenv("PATHCOVERDIR", dir)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{dir}},
		{[]string{"-dir", dir}, []string{dir}},
		{[]string{"-dir", dir, "-dir", other}, []string{dir, other}},
		{[]string{"-dir", other + "," + other}, []string{other, other}},
	} {
		got := parse(tc.args...)
		if !slices.Equal(got, tc.want) {
			t.Errorf("-dir from %q = %q, want %q", tc.args, got, tc.want)
			continue
		}
		if n := processes(got...); n != len(tc.want) {
			t.Errorf("%q: %d processes read, want %d", tc.args, n, len(tc.want))
		}
	}
	if out, errOut, code := captureStats(t); code != 0 || !strings.Contains(out, "Tally") {
		t.Errorf("stats with PATHCOVERDIR=%s: exit %d\n%s%s", dir, code, out, errOut)
	}
}
