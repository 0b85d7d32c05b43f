package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pathcover/pathcover/internal/atomicfile"
	"github.com/pathcover/pathcover/internal/export"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/profile"
)

var cmdFlight = &Command{
	UsageLine: "pathcover flight [-dir D] [-f FILE] [-goroutine G] [-lines] [-json] [-pprof FILE]",
	Short:     "show the paths that led to a failure (pppexec -flight)",
	Long: `
A program built with pppexec -flight=N keeps, for each goroutine, the last N
paths it took, each recorded where a Ball-Larus build would count it (where
its last branch is decided), in a file of its profile directory that it
removes when it ends cleanly. When it panics, throws, exits with a failure (log.Fatal,
os.Exit(1)), or is killed, the file stays, and says which goroutine failed.
Flight prints each goroutine's paths, most recent first, decoded to the
lines they ran, the goroutine that failed first; goroutines that recorded
no path (the runtime's own, those that ran no instrumented code) are
counted, not listed.

With no -f, it reads the newest flight file of D and says how many others
there are; -goroutine shows one goroutine; -lines shows every step of each
path with its branch; -json writes the same as JSON. A program can also
write its rings on demand with rt.WriteFlight, from a debug endpoint.

-pprof FILE writes every flight file of D (or the one -f names) as one
pprof profile, for go tool pprof and continuous profilers: a sample per
goroutine ring, its paths as the stack (the most recent the leaf), a run
of one path one frame, labelled with the state, the goroutine, the
process, the file, and for the goroutine the state names named=true (and
failing=true, message, signal where the process failed). So
go tool pprof -tagfocus=failing=true -traces FILE lists the paths into
each failure, and a flame graph of many shows the commonest.
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := dirFlag(fs, "")
		file := fs.String("f", "", "the flight `file` to read (default: the newest in the profile directory)")
		goroutine := fs.Uint64("goroutine", 0, "show goroutine `G` only")
		lines := fs.Bool("lines", false, "show every step of each path")
		asJSON := jsonFlag(fs)
		pprofOut := fs.String("pprof", "", "write every flight file as one pprof profile to `file`")
		return func(cmd *Command, args []string) int {
			if len(args) > 0 {
				fmt.Fprintf(os.Stderr, "%s: takes no arguments (give the file with -f)\n", cmd.LongName())
				return exitUsage
			}
			if *pprofOut != "" {
				return flightPprof(cmd.LongName(), *dir, *file, *goroutine, *pprofOut)
			}
			name := *file
			if name == "" {
				if *dir == "" {
					fmt.Fprintf(os.Stderr, "%s: no profile: give -dir or -f, or set PATHCOVERDIR\n", cmd.LongName())
					return exitNoData
				}
				files, err := flightFiles(*dir)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
					return exitNoData
				}
				if len(files) == 0 {
					fmt.Fprintf(os.Stderr, "%s: %s holds no flight file: no program built with pppexec -flight failed there\n", cmd.LongName(), *dir)
					return exitNoData
				}
				name = files[len(files)-1].name
				if len(files) > 1 {
					fmt.Fprintf(os.Stderr, "%s: reading the newest of %d flight files; -f names another\n", cmd.LongName(), len(files))
				}
			}
			fl, err := profile.ReadFlight(name)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %s: %v\n", cmd.LongName(), name, err)
				return exitNoData
			}
			p := profile.New()
			problems, err := p.ReadDir(filepath.Dir(name))
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitNoData
			}
			for _, pr := range problems {
				if profile.IsMetaProblem(pr) {
					fmt.Fprintf(os.Stderr, "%s: skipping %s\n", cmd.LongName(), printable(pr.Error()))
				}
			}
			r, err := report.Flight(name, fl, p.Metas, *goroutine)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %s\n", cmd.LongName(), printable(err.Error()))
				return exitNoData
			}
			r.Steps = *lines
			return write(cmd, r, *asJSON)
		}
	},
}

// flightPprof writes the flight files of dir (or file alone) as one pprof
// profile.
func flightPprof(name, dir, file string, goroutine uint64, out string) int {
	var names []string
	switch {
	case file != "":
		names = []string{file}
		dir = filepath.Dir(file)
	case dir == "":
		fmt.Fprintf(os.Stderr, "%s: no profile: give -dir or -f, or set PATHCOVERDIR\n", name)
		return exitNoData
	default:
		files, err := flightFiles(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return exitNoData
		}
		for _, f := range files {
			names = append(names, f.name)
		}
	}
	if len(names) == 0 {
		fmt.Fprintf(os.Stderr, "%s: %s holds no flight file: no program built with pppexec -flight failed there\n", name, dir)
		return exitNoData
	}
	p := profile.New()
	problems, err := p.ReadDir(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return exitNoData
	}
	for _, pr := range problems {
		if profile.IsMetaProblem(pr) {
			fmt.Fprintf(os.Stderr, "%s: skipping %s\n", name, printable(pr.Error()))
		}
	}
	var reports []*report.FlightReport
	for _, f := range names {
		fl, err := profile.ReadFlight(f)
		if err == nil {
			var r *report.FlightReport
			if r, err = report.Flight(f, fl, p.Metas, goroutine); err == nil {
				reports = append(reports, r)
				continue
			}
		}
		if file != "" {
			fmt.Fprintf(os.Stderr, "%s: %s\n", name, printable(err.Error()))
			return exitNoData
		}
		fmt.Fprintf(os.Stderr, "%s: skipping %s: %s\n", name, f, printable(err.Error()))
	}
	var buf bytes.Buffer
	if err := export.WriteFlightPprof(&buf, reports, &export.Options{Now: time.Now()}); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return exitFail
	}
	if err := atomicfile.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return exitFail
	}
	return 0
}

type flightFile struct {
	name string
	made int64
}

// flightFiles returns the flight files of dir, oldest first. Links and
// other files that are not regular are left out (profile.List): a report
// reads nothing outside the profile.
func flightFiles(dir string) ([]flightFile, error) {
	l, err := profile.List(dir)
	if err != nil {
		return nil, err
	}
	var files []flightFile
	for _, name := range l.Files(profile.KindFlight) {
		fl, err := profile.ReadFlightHeader(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pathcover flight: skipping %s: %v\n", name, err)
			continue
		}
		files = append(files, flightFile{name, fl.Made})
	}
	slices.SortStableFunc(files, func(a, b flightFile) int {
		return strings.Compare(fmt.Sprintf("%020d %s", a.made, a.name), fmt.Sprintf("%020d %s", b.made, b.name))
	})
	return files, nil
}
