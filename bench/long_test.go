package main

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestMain lets the test binary be timedCommand's helper, as bench is.
func TestMain(m *testing.M) {
	if os.Getenv(peakHelperEnv) == "1" {
		os.Exit(peakHelper(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// TestTimedCommandPeak: a small command run from a large process is
// measured at its own size, not the process's (which a command started
// directly by this one would report), and its output and failure come
// back.
func TestTimedCommandPeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak memory is read as Linux reports it")
	}
	ballast := make([]byte, 400<<20)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	h := &harness{env: os.Environ()}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip(err)
	}
	step, out := h.timedCommand("go env", goBin, "env", "GOROOT")
	runtime.KeepAlive(ballast)
	if step.Error != "" || strings.TrimSpace(out) == "" {
		t.Fatalf("go env GOROOT: %q, %q", step.Error, out)
	}
	if step.PeakMB <= 0 || step.PeakMB > 200 {
		t.Fatalf("go env's peak is %.1f MB, from a process of 400 MB: want its own, under 200 MB", step.PeakMB)
	}
	step, _ = h.timedCommand("go nothing", goBin, "no-such-go-command")
	if step.Error == "" {
		t.Fatal("a failing command's step has no error")
	}
}

// TestLongMarkdown renders long runs' tables: a -wet run's (as saved
// before runs said how they were recorded: Record empty) and a -deps
// run's, cut at its cap, without tiers, one slice refused.
func TestLongMarkdown(t *testing.T) {
	r := &wetResults{Date: "2026-01-02", Machine: "m", GoVersion: "go1.x", Selection: []string{"-long 1000"}, Long: &longRun{
		Lines: 1000, Statements: 207000, RecordingBytes: 1_500_000, Tier1Bytes: 6_000_000, Tier2Bytes: 110_000, Criterion: longCriterion,
		Build:  longStep{Name: "wet build", Seconds: 1.5, PeakMB: 50},
		Slices: []longStep{{Name: "slice -graph opt", Seconds: 2, PeakMB: 80}, {Name: "slice -graph wet", Error: "killed"}},
	}}
	if !r.measured() {
		t.Error("a long run alone is not a -wet run's results (-from refuses it)")
	}
	md := r.Markdown()
	for _, want := range []string{
		"Measured by `go run ./bench -wet -long 1000` on 2026-01-02",
		"| `calc -wet`, lines | statement executions |",
		"| 1.0 k | 207.0 k | 1.5 MB | 6.0 MB | 0.1 MB | `wet build` | 1.5 s | 50 MB |",
		"| | | | | | `slice -graph opt` | 2.0 s | 80 MB |",
		"| | | | | | `slice -graph wet` | failed | – |",
		"`slice -graph wet` failed: killed",
		"`PATHCOVERWPPMAX` raised to 4 GiB",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the -wet table lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "`fp`") || !strings.Contains(md, "the compact graph (`-graph opt`, which keeps it in `profile.ddg`) and from the WET (`wet`);") {
		t.Errorf("the -wet run's text does not name the graphs it ran, and only them:\n%s", md)
	}

	s := &sliceResults{Date: "2026-01-02", Machine: "m", GoVersion: "go1.x", Selection: []string{"-long 5000"}, Long: &longRun{
		Record: "deps", Lines: 5000, Nodes: 1_234_000, RecordingBytes: 2_000_000, Cut: true, Criterion: longCriterion,
		GraphFileBytes: 1_500_000,
		Slices:         []longStep{{Name: "slice -graph opt", Seconds: 3, PeakMB: 90}, {Name: "slice -graph opt again", Seconds: 0.5, PeakMB: 40}, {Name: "slice -graph lp", Seconds: 4, PeakMB: 70}, {Name: "slice -graph fp", Seconds: 0.5, PeakMB: 30, Error: "too many statement executions"}},
		// Four of the criteria within the budget: 1, 2, 3 and 10 s.
		Many: &manySlices{BuildSeconds: 12.5, Criteria: 4, Seconds: []float64{3, 1, 10, 2}, MeanSteps: 1500},
	}}
	if !s.measured() {
		t.Error("a long run alone is not a -slice run's results (-from refuses it)")
	}
	md = s.Markdown()
	for _, want := range []string{
		"Measured by `go run ./bench -slice -long 5000` on 2026-01-02",
		"| `calc -deps`, lines | statement executions |",
		"| 5.0 k | 1.2 M | 2.0 MB (cut at its cap) | – | – | `slice -graph opt` | 3.0 s | 90 MB |",
		"| | | | | | `slice -graph opt again` | 0.5 s | 40 MB |",
		"| | | | | | `slice -graph lp` | 4.0 s | 70 MB |",
		"| | | | | | `slice -graph fp` | failed | 30 MB |",
		"`slice -graph fp` failed: too many statement executions",
		"the default cap on the recording, 1 GiB",
		"counts each call's entry as one.",
		"the compact graph (`-graph opt`, which keeps it in `profile.ddg`), the compact graph again (read from `profile.ddg`, 1.5 MB), on demand (`lp`) and the full graph (`fp`, which refuses",
		"by one process that built the compact graph once (12.5 s) (4 of them within 10 minutes): median 2.50 s, mean 4.00 s, slowest 10.00 s; 1500 statement executions in a slice on average.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the -deps table lacks %q:\n%s", want, md)
		}
	}

	w := &wppResults{Date: "2026-01-02", Machine: "m", GoVersion: "go1.x", Selection: []string{"-long 7000"}, Long: &longRun{
		Record: "wpp", Lines: 7000, RecordingBytes: 50_000_000, Cut: true, TWPPBytes: 20_000, Calls: 1_000_000, Paths: 3_000_000,
		Build:  longStep{Name: "wpp compact", Seconds: 2, PeakMB: 60},
		Slices: []longStep{{Name: "wpp hot", Seconds: 0.25, PeakMB: 30}},
	}}
	if !w.measured() {
		t.Error("a long run alone is not a -wpp run's results (-from refuses it)")
	}
	md = w.Markdown()
	for _, want := range []string{
		"Measured by `go run ./bench -wpp -long 7000` on 2026-01-02",
		"| `calc -wpp`, lines | paths | calls | recording | TWPP |",
		"| 7.0 k | 3.0 M | 1.0 M | 50.0 MB (cut at its cap) | 19.5 kB | `wpp compact` | 2.00 s | 60 MB |",
		"| | | | | | `wpp hot` | 0.25 s | 30 MB |",
		"(25.0 MB of .wpp files a second)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the -wpp table lacks %q:\n%s", want, md)
		}
	}
}
