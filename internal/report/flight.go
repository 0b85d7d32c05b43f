package report

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pathcover/pathcover/profile"
)

// A FlightReport is what a flight file (pppexec -flight) says, decoded:
// for each goroutine, the paths it took last, most recent first, the
// goroutine that failed first.
type FlightReport struct {
	File      string
	State     string
	Failed    bool   // the process failed (not a snapshot, not killed)
	Goroutine uint64 `json:",omitempty"` // the goroutine the state names
	PID       uint64
	Made      time.Time
	Entries   int  // each ring's size
	Full      bool `json:",omitempty"` // some goroutines had no ring
	// Message is the panic's or the fatal error's message, Signal the
	// signal that ended the process or caused its panic, by name
	// (SIGSEGV), as the runtime gave them (profile.Flight).
	Message string `json:",omitempty"`
	Signal  string `json:",omitempty"`
	// Goroutines are the rings shown: those that recorded a path, and
	// the goroutine the state names.
	Goroutines []FlightGoroutine
	// Quiet counts the goroutines left out that had a ring but recorded
	// no path: every goroutine gets one when it is made, and many never
	// run instrumented code (the runtime's own, those of uninstrumented
	// packages).
	Quiet int `json:",omitempty"`
	// Steps says whether the text shows each path's steps.
	Steps bool `json:"-"`

	state profile.FlightState
}

// A FlightGoroutine is one goroutine's ring.
type FlightGoroutine struct {
	Goroutine uint64
	// Named says the state names this goroutine: it panicked, threw,
	// called os.Exit, or took the snapshot.
	Named   bool `json:",omitempty"`
	Written uint64
	Paths   []FlightPath // most recent first
}

// A FlightPath is one path a goroutine took.
type FlightPath struct {
	Package string
	Func    string
	// Symbol is the function as the runtime names it (main.F in a
	// command's main package; profile.Meta.SymbolPrefix).
	Symbol string `json:"-"`
	File   string
	Line   int
	ID     uint64
	Steps  []Step
}

// Flight decodes flight file fl, read from file, with the metadata of its
// packages in metas: every goroutine's ring, or only goroutine's if it is
// not 0 (an error if it has no ring).
func Flight(file string, fl *profile.Flight, metas map[string]*profile.Meta, goroutine uint64) (*FlightReport, error) {
	r := &FlightReport{
		File:    file,
		state:   fl.State,
		State:   fl.State.String(),
		Failed:  fl.State.Failed(),
		PID:     fl.PID,
		Made:    time.Unix(0, fl.Made).UTC(),
		Entries: fl.Entries,
		Full:    fl.Full,
		Message: fl.Message,
	}
	if fl.Signal != 0 {
		r.Signal = signalName(fl.Signal)
	}
	if fl.State != profile.FlightRunning {
		r.Goroutine = fl.Goid
	}
	rings := fl.Rings
	if goroutine != 0 {
		ring := fl.Ring(goroutine)
		if ring == nil {
			return nil, fmt.Errorf("%s holds no ring of goroutine %d", file, goroutine)
		}
		rings = []profile.FlightRing{*ring}
	}
	type key struct {
		hash string
		fn   int
		id   uint64
	}
	decoded := make(map[key]FlightPath)
	for _, ring := range rings {
		g := FlightGoroutine{Goroutine: ring.Goid, Named: r.Goroutine != 0 && ring.Goid == r.Goroutine, Written: ring.Written}
		if ring.Written == 0 && !g.Named && goroutine == 0 {
			r.Quiet++
			continue
		}
		for i := len(ring.Paths) - 1; i >= 0; i-- {
			p := ring.Paths[i]
			k := key{p.Hash, p.Func, p.ID}
			fp, ok := decoded[k]
			if !ok {
				m := metas[p.Hash]
				if m == nil {
					return nil, fmt.Errorf("%s: the profile lacks metadata %s.meta, which decodes its paths", file, p.Hash)
				}
				steps, err := DecodeSteps(m, p.Func, p.ID)
				if err != nil {
					return nil, fmt.Errorf("%s: goroutine %d: %v", file, ring.Goid, err)
				}
				mf := &m.Funcs[p.Func]
				fp = FlightPath{Package: m.Package, Func: mf.Name, Symbol: m.SymbolPrefix() + "." + mf.Name, File: m.Files[mf.File], Line: mf.Line, ID: p.ID, Steps: steps}
				decoded[k] = fp
			}
			g.Paths = append(g.Paths, fp)
		}
		r.Goroutines = append(r.Goroutines, g)
	}
	// The goroutine the state names first, then by id.
	slices.SortStableFunc(r.Goroutines, func(a, b FlightGoroutine) int {
		if a.Named != b.Named {
			if a.Named {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Goroutine, b.Goroutine)
	})
	return r, nil
}

// WriteJSON writes the report as JSON.
func (r *FlightReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// WriteText writes the report: a line on the process, then each
// goroutine's paths, most recent first, each with the lines it ran (with
// Steps, every step and its branch).
//
//	unrecovered panic in goroutine 21
//	  pathcover.4765.1795722154841958.flight (process 4765, 2026-11-26 19:42:57 UTC); rings of 8 paths
//
//	goroutine 21, which panicked: 27 paths, the last 8, most recent first
//	   1  main.classify path 1  main.go:10 start, 11 x < 0 is false, 13 x > 0 is true,
//	                            14 return
//	   2  main.loop path 3 ×7  main.go:20 i < n is true, 20 loop goes round (path ends)
//
// (a run of the same path, a loop's rounds, is one line, its first
// entry's number and ×N; the steps wrap to 100 columns, under the first).
func (r *FlightReport) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	cwd, _ := os.Getwd()
	what := r.State
	if r.Goroutine != 0 {
		what += fmt.Sprintf(" in goroutine %d", r.Goroutine)
	}
	if r.Signal != "" {
		what += " (" + r.Signal + ")"
	}
	// What ended the process first; then, on a line of its own (a
	// profile directory's path can be long), where it was written.
	fmt.Fprintf(ew, "%s\n  %s (process %d, %s); rings of %d paths\n", what, relative(cwd, r.File), r.PID, r.Made.Format("2006-01-02 15:04:05 MST"), r.Entries)
	if r.Message != "" {
		fmt.Fprintf(ew, "%s: %s\n", r.messageKind(), quoteControl(r.Message))
	}
	if r.Full {
		fmt.Fprintf(ew, "some goroutines had no ring: the rings reached the limit (pppexec -flightmax, $PATHCOVERFLIGHTMAX)\n")
	}
	if r.Quiet > 0 {
		fmt.Fprintf(ew, "%d more goroutines recorded no path\n", r.Quiet)
	}
	for _, g := range r.Goroutines {
		fmt.Fprintf(ew, "\ngoroutine %d", g.Goroutine)
		if g.Named {
			fmt.Fprintf(ew, ", which %s", r.verb())
		}
		switch {
		case len(g.Paths) == 0:
			fmt.Fprintf(ew, ": no path recorded\n")
			continue
		case uint64(len(g.Paths)) < g.Written:
			fmt.Fprintf(ew, ": %d paths, the last %d, most recent first\n", g.Written, len(g.Paths))
		default:
			fmt.Fprintf(ew, ": %d paths, most recent first\n", len(g.Paths))
		}
		for i := 0; i < len(g.Paths); {
			p := g.Paths[i]
			// A loop's rounds that took the same path are one line.
			run := 1
			for i+run < len(g.Paths) && g.Paths[i+run].ID == p.ID && g.Paths[i+run].Func == p.Func && g.Paths[i+run].Package == p.Package {
				run++
			}
			name := p.Func
			if p.Package != "" {
				name = lastElem(p.Package) + "." + p.Func
			}
			times := ""
			if run > 1 {
				times = fmt.Sprintf(" ×%d", run)
			}
			if r.Steps {
				fmt.Fprintf(ew, "%4d  %s path %d%s\n", i+1, name, p.ID, times)
				writeSteps(ew, cwd, p.Steps)
			} else {
				// The steps wrapped to the report's width, under the first.
				head := fmt.Sprintf("%4d  %s path %d%s  ", i+1, name, p.ID, times)
				items := stepItems(p.Steps, func(file string) string { return relative(cwd, file) })
				fmt.Fprintf(ew, "%s\n", wrapItems(head, items, min(utf8.RuneCountInString(head), 32), textWidth))
			}
			i += run
		}
	}
	return ew.err
}

// messageKind says what the message is, as the runtime heads it.
func (r *FlightReport) messageKind() string {
	if r.state == profile.FlightPanic {
		return "panic"
	}
	return "fatal error"
}

// quoteControl writes a message's control characters but newlines as Go
// escapes them: the program's text must not drive the terminal.
func quoteControl(msg string) string {
	var b strings.Builder
	for _, r := range msg {
		if r != '\n' && unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// signalNames are the signals whose numbers POSIX systems share.
var signalNames = map[uint64]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM"}

// signalName names signal sig: by its POSIX name if it has one all share,
// else by its number and this system's description of it.
func signalName(sig uint64) string {
	if name, ok := signalNames[sig]; ok {
		return name
	}
	return fmt.Sprintf("signal %d (%s)", sig, syscall.Signal(sig))
}

// verb says what the goroutine the state names did.
func (r *FlightReport) verb() string {
	switch r.state {
	case profile.FlightPanic:
		return "panicked"
	case profile.FlightFatal:
		return "was running when the runtime threw"
	case profile.FlightFailedExit:
		return "called os.Exit"
	case profile.FlightSnapshot:
		return "took the snapshot"
	case profile.FlightSignal:
		return "was running when the signal came"
	}
	return "ended the process"
}

// stepLines writes a path's steps on one line: the file once, named by
// name, then each step's line and what it took there.
//
//	main.go:10 start, 11 false, 13 true, 14 return
func stepLines(steps []Step, name func(file string) string) string {
	return strings.Join(stepItems(steps, name), ", ")
}

// stepItems are stepLines's items, each a step.
func stepItems(steps []Step, name func(file string) string) []string {
	var items []string
	file := ""
	for _, s := range steps {
		if s.Kind == "flow" || s.Kind == "loop" {
			continue
		}
		item := ""
		if s.File != file {
			file = s.File
			item = name(file) + ":"
		}
		items = append(items, item+fmt.Sprintf("%d %s", s.Line, s.Describe()))
	}
	return items
}

// textWidth is the width the text reports fit, as a terminal's.
const textWidth = 100

// wrapItems joins items with ", " after head, in lines of at most width
// columns (an item too long for a line of its own passes it), the lines
// after the first indented by indent spaces.
func wrapItems(head string, items []string, indent, width int) string {
	var b strings.Builder
	b.WriteString(head)
	col := utf8.RuneCountInString(head)
	for i, it := range items {
		n := utf8.RuneCountInString(it)
		if i > 0 {
			if col+2+n > width && col > indent {
				b.WriteString(",\n")
				b.WriteString(strings.Repeat(" ", indent))
				col = indent
			} else {
				b.WriteString(", ")
				col += 2
			}
		}
		b.WriteString(it)
		col += n
	}
	return b.String()
}

// lastElem is the last element of an import path.
func lastElem(pkg string) string { return path.Base(profile.PackagePath(pkg)) }
