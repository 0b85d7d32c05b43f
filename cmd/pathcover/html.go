package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/internal/atomicfile"
	"github.com/pathcover/pathcover/internal/query/wpp"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/internal/source"
	"github.com/pathcover/pathcover/profile"
)

var cmdHTML = &Command{
	UsageLine: "pathcover html [-dir D] -o FILE [-n n] [packages]",
	Short:     "write one HTML page of the coverage, the source and the paths",
	Long: `
Writes one HTML page, which needs no network and no other file: an index of
packages and functions, worst covered first, and for each function its
source and its control-flow graph. Choosing a path (hottest of those that
ran, those that never ran, or the residual paths of a PPP build's profile)
highlights the lines, the branches and the edges it takes. When the profile
directory holds whole program paths compacted by pathcover wpp compact
(profile.twpp), each function also lists its distinct traces, with the calls
that took each; choosing one highlights all its paths. When they hold
flight files (pppexec -flight), the overview begins with each failure: the
paths each goroutine took last, most recent first, the one that failed
first, each linked to its function; a directory of flight files alone,
without counts, makes a page of them.
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := profileFlag(fs)
		out := fs.String("o", "", "write the page to `file` (- for standard output)")
		paths := countFlag(fs, 100, "list at most `n` paths of each kind per function", "paths")
		return func(cmd *Command, patterns []string) int {
			if *out == "" {
				fmt.Fprintf(os.Stderr, "%s: give -o FILE (or -o - for standard output)\n", cmd.LongName())
				return exitUsage
			}
			flights, err := pageFlights(dir.dirs)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
				return exitNoData
			}
			r, _, code := openReportCounts(cmd.LongName(), dir.dirs, patterns, len(flights) == 0)
			if code != 0 {
				return code
			}
			wd, _ := os.Getwd()
			opt := report.HTMLOptions{Paths: *paths, Sources: source.New(wd), Flights: flights}
			traces, err := pageTraces(dir.dirs)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
				return exitFail
			}
			opt.Traces = traces
			var page bytes.Buffer
			if err := r.WriteHTML(&page, opt); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			if *out == "-" {
				os.Stdout.Write(page.Bytes())
				return 0
			}
			// Built in memory first: a profile that fails to render leaves
			// any old page alone.
			if err := atomicfile.WriteFile(*out, page.Bytes(), 0o644); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			return 0
		}
	},
}

// pageFlights returns the flight files of the profile directories,
// decoded, oldest first, for the page.
func pageFlights(dirs []string) ([]*report.FlightReport, error) {
	var out []*report.FlightReport
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue // a text profile
		}
		files, err := flightFiles(d)
		if err != nil || len(files) == 0 {
			continue
		}
		p := profile.New()
		if _, err := p.ReadDir(d); err != nil {
			return nil, err
		}
		for _, f := range files {
			fl, err := profile.ReadFlight(f.name)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f.name, err)
			}
			r, err := report.Flight(f.name, fl, p.Metas, 0)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// pageTraces returns the traces of the whole program paths compacted in
// the profile directories (their profile.twpp files), for the page; nil if
// none has one.
func pageTraces(dirs []string) (func(hash string, index int) []report.HTMLTrace, error) {
	var all []*wpp.TWPP
	var testsOf []func(wpp.FuncKey, int) []string
	for _, d := range dirs {
		name := profile.DerivedPath(d, profile.KindTWPP)
		if _, err := os.Stat(name); err != nil {
			continue
		}
		f, err := wpp.Open(name)
		if err != nil {
			return nil, err
		}
		t, err := f.ReadAll()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		// The tests that took each trace; a suite of more tests than
		// are told apart gets none (the page says nothing of them).
		tests, err := t.TraceTests()
		if err != nil {
			tests = nil
		}
		all = append(all, t)
		testsOf = append(testsOf, tests)
	}
	if len(all) == 0 {
		return nil, nil
	}
	return func(hash string, index int) []report.HTMLTrace {
		var out []report.HTMLTrace
		for i, t := range all {
			k := wpp.FuncKey{Hash: hash, Index: uint32(index)}
			if f := t.Func(k); f != nil {
				for j, tr := range f.Traces {
					ht := report.HTMLTrace{Paths: tr.Paths, Calls: tr.Calls}
					if testsOf[i] != nil {
						ht.Tests = testsOf[i](k, j)
					}
					out = append(out, ht)
				}
			}
		}
		return out
	}, nil
}
