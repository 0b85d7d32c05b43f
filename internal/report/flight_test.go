package report

import (
	"strings"
	"testing"
)

// TestFlightTextRepeats: a run of the same path (a loop's rounds) is one
// line, numbered by its first entry, with how many; the same path apart
// is not merged.
func TestFlightTextRepeats(t *testing.T) {
	loop := FlightPath{Package: "example.com/m", Func: "loop", ID: 3, Steps: []Step{{File: "/nowhere/m.go", Line: 20, Kind: "true", Cond: "i < n"}}}
	other := FlightPath{Package: "example.com/m", Func: "other", ID: 3, Steps: []Step{{File: "/nowhere/m.go", Line: 30, Kind: "return"}}}
	r := &FlightReport{File: "/nowhere/f.flight", State: "unrecovered panic", Entries: 8, Goroutines: []FlightGoroutine{{
		Goroutine: 7, Written: 8,
		Paths: []FlightPath{loop, loop, loop, other, loop, other, other, loop},
	}}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"   1  m.loop path 3 ×3  /nowhere/m.go:20 i < n is true\n",
		"   4  m.other path 3  /nowhere/m.go:30 return\n",
		"   5  m.loop path 3  /nowhere/m.go:20 i < n is true\n",
		"   6  m.other path 3 ×2  /nowhere/m.go:30 return\n",
		"   8  m.loop path 3  /nowhere/m.go:20 i < n is true\n",
	}
	got := b.String()
	at := 0
	for _, w := range want {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("flight text lacks %q after offset %d:\n%s", w, at, got)
		}
		at += i + len(w)
	}
	if n := strings.Count(got, " path 3"); n != len(want) {
		t.Errorf("%d path lines, want %d:\n%s", n, len(want), got)
	}
}
