package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/report"
)

// flightProgram runs work on four goroutines; with FAIL=panic the third
// panics after its loop (with FAIL=quit it sends SIGQUIT: flightQuit), with
// FAIL=exit main exits with status 3.
const flightProgram = `package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

func classify(n int) string {
	switch {
	case n%15 == 0:
		return "fizzbuzz"
	case n%3 == 0:
		return "fizz"
	case n%5 == 0:
		return "buzz"
	}
	return fmt.Sprint(n)
}

func work(id, n int) {
	for i := 1; i <= n; i++ {
		if s := classify(i * id); s == "boom" {
			fmt.Println(s)
		}
	}
	if id == 3 && os.Getenv("FAIL") == "panic" {
		var m map[string]int
		m["x"] = 1
	}
	if id == 3 && os.Getenv("FAIL") == "quit" {
		quit()
		time.Sleep(time.Minute)
	}
}

func main() {
	var wg sync.WaitGroup
	for id := 1; id <= 4; id++ {
		wg.Add(1)
		go func() { defer wg.Done(); work(id, 10+id) }()
	}
	wg.Wait()
	if os.Getenv("FAIL") == "exit" {
		os.Exit(3)
	}
}
`

// flightQuit sends SIGQUIT. A signal sent to the process goes to a thread
// the kernel chooses, and the goroutine the flight record names is the one
// that thread ran, none if it was idle; on Linux it goes to the calling
// goroutine's own thread, so that the record names it.
var flightQuit = map[string]string{
	"quit_linux.go": `//go:build linux

package main

import (
	"runtime"
	"syscall"
)

func quit() {
	runtime.LockOSThread()
	syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), syscall.SIGQUIT)
}
`,
	"quit_other.go": `//go:build !linux

package main

import "syscall"

func quit() { syscall.Kill(syscall.Getpid(), syscall.SIGQUIT) }
`,
}

// TestFlightCommand builds flightProgram with pathcover pppexec -flight=8,
// makes it panic, and reads what it left with pathcover flight: the
// goroutine that the runtime says panicked comes first, with its last 8
// paths decoded to lines of work and classify, the most recent the loop's
// last round (the panic came before work's last path was counted); then
// the errors.
func TestFlightCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmdtest.WriteFiles(t, dir, map[string]string{"go.mod": "module example.com/fl\n\ngo 1.25\n", "main.go": flightProgram})
	cmdtest.WriteFiles(t, dir, flightQuit)
	exe := filepath.Join(t.TempDir(), "fl")
	if out, code := run(t, dir, "go", "build", "-toolexec="+bin+" pppexec -flight=8", "-o", exe, "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	prof := t.TempDir()
	out, code := cmdtest.Run(t, dir, []string{"PATHCOVERDIR=" + prof, "FAIL=panic"}, exe)
	out0 := out
	m := regexp.MustCompile(`(?m)^goroutine (\d+) \[running\]`).FindStringSubmatch(out)
	if code != 2 || m == nil {
		t.Fatalf("exit %d, want a panic\n%s", code, out)
	}
	panicked, _ := strconv.ParseUint(m[1], 10, 64)

	out, code = run(t, dir, bin, "flight", "-json", "-dir", prof)
	var r struct {
		State      string
		Message    string
		Failed     bool
		Goroutine  uint64
		Entries    int
		Quiet      int
		Goroutines []struct {
			Goroutine uint64
			Named     bool
			Written   uint64
			Paths     []struct {
				Func  string
				ID    uint64
				Steps []struct {
					Line int
					Kind string
				}
			}
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("flight -json: exit %d\n%s", code, out)
	}
	if r.State != "unrecovered panic" || !r.Failed || r.Goroutine != panicked || r.Entries != 8 {
		t.Fatalf("state %q, goroutine %d (the runtime says %d), %d entries", r.State, r.Goroutine, panicked, r.Entries)
	}
	// The panic's message, as the runtime printed it.
	if msg := regexp.MustCompile(`(?m)^panic: (.*)$`).FindStringSubmatch(out0); msg == nil || r.Message != msg[1] || msg[1] != "assignment to entry in nil map" {
		t.Errorf("flight's message %q, the runtime printed %q", r.Message, msg)
	}
	// Every goroutine gets a ring when it is made; those that recorded
	// nothing (the runtime's own) are counted, not listed.
	for _, g := range r.Goroutines {
		if g.Written == 0 && !g.Named {
			t.Errorf("goroutine %d, which recorded no path, is listed", g.Goroutine)
		}
	}
	text, _ := run(t, dir, bin, "flight", "-dir", prof)
	if (r.Quiet > 0) != strings.Contains(text, "more goroutines recorded no path") || !strings.Contains(text, "\npanic: assignment to entry in nil map\n") {
		t.Errorf("%d quiet goroutines, the text says:\n%s", r.Quiet, text)
	}
	// Every line fits 100 columns, the steps of a path wrapped under its
	// first, but the one that names the file (a directory's path); and a
	// path whose steps do not fit one line was wrapped.
	wrapped := false
	for i, l := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 && !strings.Contains(l, ".flight (process ") {
			t.Errorf("line %d of flight's text has %d columns:\n%s", i+1, n, l)
		}
		wrapped = wrapped || strings.HasPrefix(l, strings.Repeat(" ", 20)) && regexp.MustCompile(`^ +\d+ `).MatchString(l)
	}
	if !wrapped {
		t.Errorf("no path's steps were wrapped:\n%s", text)
	}
	g := r.Goroutines[0]
	if g.Goroutine != panicked || !g.Named || len(g.Paths) != 8 {
		t.Fatalf("first goroutine %d, named %v, %d paths", g.Goroutine, g.Named, len(g.Paths))
	}
	// Goroutine 3 ran main's function literal, whose one path is counted
	// where it begins (its id is known there), then work(3, 13): 13
	// rounds, each a path of classify and one of work's loop.
	if g.Written != 27 {
		t.Errorf("the panicking goroutine wrote %d paths, want 27", g.Written)
	}
	lines := strings.Split(flightProgram, "\n")
	lineOf := func(text string) int {
		for i, l := range lines {
			if strings.Contains(l, text) {
				return i + 1
			}
		}
		t.Fatalf("no line %q", text)
		return 0
	}
	last := g.Paths[0]
	if last.Func != "work" || last.Steps[len(last.Steps)-1].Kind != "round" || last.Steps[len(last.Steps)-1].Line != lineOf("for i := 1; i <= n; i++") {
		t.Errorf("the most recent path: %+v", last)
	}
	for i, p := range g.Paths {
		want := []string{"work", "classify"}[i%2]
		if p.Func != want {
			t.Errorf("path %d is of %s, want %s", i+1, p.Func, want)
		}
	}
	// 3*13 = 39 is a multiple of 3 only: classify's "fizz" case.
	fizz := lineOf(`return "fizz"`)
	if p := g.Paths[1]; p.Steps[len(p.Steps)-1].Line != fizz {
		t.Errorf("classify(39) took %+v, want its return at line %d", p.Steps, fizz)
	}

	// pprof: a sample per ring, its paths the stack, most recent the leaf,
	// as go tool pprof reads them.
	pp := filepath.Join(t.TempDir(), "flight.pprof")
	if out, code := run(t, dir, bin, "flight", "-dir", prof, "-pprof", pp); code != 0 {
		t.Fatalf("flight -pprof: exit %d\n%s", code, out)
	}
	raw := readRawPprof(t, dir, pp)
	if len(raw.samples) != len(r.Goroutines) {
		t.Errorf("%d samples, want one for each of the %d rings shown", len(raw.samples), len(r.Goroutines))
	}
	failing := 0
	for _, s := range raw.samples {
		if s.labels["failing"] != "true" {
			continue
		}
		failing++
		if s.labels["goroutine"] != strconv.FormatUint(panicked, 10) || s.labels["message"] != r.Message || s.labels["state"] != r.State {
			t.Errorf("the failing ring's labels %v, want goroutine %d, message %q, state %q", s.labels, panicked, r.Message, r.State)
		}
		if len(s.stack) != len(g.Paths) {
			t.Fatalf("the failing ring's stack has %d frames, its ring %d paths (no two alike in a row)", len(s.stack), len(g.Paths))
		}
		for i, id := range s.stack {
			if fn := raw.locations[id].fn; fn != "main."+g.Paths[i].Func {
				t.Errorf("frame %d (leaf 0) is %s, the ring's path %d is of %s", i, fn, i+1, g.Paths[i].Func)
			}
		}
	}
	if failing != 1 {
		t.Errorf("%d samples labelled failing, want 1", failing)
	}

	// Text: one goroutine; lines.
	out, code = run(t, dir, bin, "flight", "-dir", prof, "-goroutine", m[1])
	if code != 0 || !strings.Contains(out, "goroutine "+m[1]+", which panicked: 27 paths, the last 8, most recent first") || strings.Count(out, "\ngoroutine ") != 1 {
		t.Errorf("flight -goroutine: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, bin, "flight", "-dir", prof, "-goroutine", m[1], "-lines")
	if code != 0 || !strings.Contains(out, "main.go:"+strconv.Itoa(fizz)+":") {
		t.Errorf("flight -lines: exit %d\n%s", code, out)
	}

	// The page of the flight directory alone: the failure first, each
	// path linked to its function's section, no path of this machine.
	page := filepath.Join(t.TempDir(), "page.html")
	if out, code := run(t, dir, bin, "html", "-dir", prof, "-o", page); code != 0 {
		t.Fatalf("html: exit %d\n%s", code, out)
	}
	html := cmdtest.ReadFile(t, page)
	// The index (a line a function: links, sections) is in the page's
	// compressed data, which the script puts into the page.
	js, err := report.PageData([]byte(html))
	var pd struct {
		Index struct{ Nav, Rows, Sections string }
	}
	if err != nil || json.Unmarshal(js, &pd) != nil || pd.Index.Sections == "" {
		t.Fatalf("the page's data: %v", err)
	}
	heading := regexp.MustCompile(`<h4>goroutine (\d+), which panicked: 27 paths, the last 8, most recent first</h4>`).FindStringSubmatch(html)
	if !strings.Contains(html, "<h2>Failures (flight recorder)</h2>") || heading == nil || heading[1] != m[1] {
		t.Errorf("the page does not show the panic in goroutine %s first", m[1])
	}
	for _, fn := range []string{"work", "classify"} {
		link := regexp.MustCompile(`<a href="#f(\d+)">fl\.` + fn + `</a>`).FindStringSubmatch(html)
		if link == nil || !strings.Contains(pd.Index.Sections, `<section class="func" id="f`+link[1]+`" data-func="`+link[1]+`"><h2>example.com/fl.`+fn+"</h2>") {
			t.Errorf("the page's paths of %s do not link to its section", fn)
		}
	}
	if strings.Contains(html, prof) || strings.Contains(html, dir) || strings.Contains(string(js), prof) || strings.Contains(string(js), dir) {
		t.Error("the page names a directory of this machine")
	}
	if !strings.Contains(html, `<pre class="msg">panic: assignment to entry in nil map</pre>`) {
		t.Error("the page does not show the panic's message")
	}
	// Without counts, no coverage: every path would read as never run.
	if !strings.Contains(html, `id="home">pathcover: 1 flight record</a>`) || strings.Contains(html, "paths ran") || strings.Contains(pd.Index.Nav, "paths ran") ||
		strings.Contains(pd.Index.Nav, `class="bar"`) || pd.Index.Rows != "" || !strings.Contains(pd.Index.Nav, `<span class="name">work</span>`) {
		t.Error("the page of a flight directory alone shows coverage")
	}

	// SIGQUIT: the runtime dumps the goroutines and exits 2; the file
	// says which signal, where SIGKILL leaves no end at all.
	quit := t.TempDir()
	quitOut, code := cmdtest.Run(t, dir, []string{"PATHCOVERDIR=" + quit, "FAIL=quit"}, exe)
	if code != 2 || !strings.Contains(quitOut, "SIGQUIT") {
		t.Fatalf("FAIL=quit: exit %d, want the runtime's SIGQUIT dump\n%s", code, quitOut)
	}
	// On Linux the signal goes to the sending goroutine's thread, and the
	// record names the goroutine the runtime's dump says was running;
	// elsewhere the kernel's choice of thread decides (flightQuit).
	want := regexp.MustCompile(`(?m)^fatal signal (in goroutine \d+ )?\(SIGQUIT\)$`)
	if runtime.GOOS == "linux" {
		running := regexp.MustCompile(`goroutine (\d+) [^\n\[]*\[running`).FindStringSubmatch(quitOut)
		if running == nil {
			t.Fatalf("FAIL=quit: the runtime's dump names no running goroutine:\n%s", quitOut)
		}
		want = regexp.MustCompile(`(?m)^fatal signal in goroutine ` + running[1] + ` \(SIGQUIT\)$`)
	}
	if out, code := run(t, dir, bin, "flight", "-dir", quit); code != 0 || !want.MatchString(out) {
		t.Errorf("flight of a SIGQUIT: exit %d, want %s\n%s", code, want, out)
	}

	// Errors.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-dir", prof, "-goroutine", "99999"}, "holds no ring of goroutine 99999"},
		{[]string{"-dir", t.TempDir()}, "holds no flight file"},
		{[]string{"-f", filepath.Join(prof, "none.flight")}, "no such file"},
	} {
		out, code := run(t, dir, bin, append([]string{"flight"}, tc.args...)...)
		if code == 0 || !strings.Contains(out, tc.want) {
			t.Errorf("flight %q: exit %d, want an error saying %q\n%s", tc.args, code, tc.want, out)
		}
	}
	metas, _ := filepath.Glob(filepath.Join(prof, "*.meta"))
	for _, m := range metas {
		os.Remove(m)
	}
	if out, code := run(t, dir, bin, "flight", "-dir", prof); code == 0 || !strings.Contains(out, "lacks metadata") {
		t.Errorf("flight without metadata: exit %d\n%s", code, out)
	}
}
