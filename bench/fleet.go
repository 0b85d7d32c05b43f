package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The -fleet run measures the readers on a profile directory of many
// processes: a service's fleet, or a sharded CI's merged shards. The
// program is pathcover itself, built with pppexec (its own 40-odd
// packages instrumented, Ball-Larus; then a PPP build whose tested paths
// are those of half the runs), run fleetSeeds times with different
// commands into one profile directory each. Those seed counter files are
// copied, each under a process's name, into directories of -processes
// (and, for PPP, -pppprocesses) files: real files of a real program, with
// the size and layout each process writes; only their counts repeat. Then
// each command reads the directory once, timed, with its peak memory:
//
//	report, gate -min 1, merge -o FILE, export -format lcov and pprof,
//	and for PPP residual, report, merge and export -format pprof
//
// and at a tenth of the processes too, to show what grows with their
// number. The counts are checked: the LCOV exported from the directory
// (lines, functions and branches, in 64 bits) is the seeds' with every
// count multiplied by the copies of each.

const fleetSeeds = 10

// fleetCommands are the commands a seed runs: distinct work, so distinct
// paths. {prof} is a profile of the program's own first run.
var fleetCommands = [fleetSeeds][]string{
	{"report", "-dir", "{prof}"},
	{"report", "-dir", "{prof}", "-json"},
	{"gate", "-dir", "{prof}", "-min", "1"},
	{"export", "-dir", "{prof}", "-format", "lcov"},
	{"export", "-dir", "{prof}", "-format", "cobertura"},
	{"export", "-dir", "{prof}", "-format", "coverprofile"},
	{"stats", "-dir", "{prof}"},
	{"callsites", "-dir", "{prof}"},
	{"help", "slice"},
	{"paths", "-dir", "{prof}", "-untested", "report.Build"},
}

// fleetResults are the times and peak memory of a -fleet run.
type fleetResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Packages  int   // instrumented packages of the program
	FileBytes int64 // one process's counter file, Ball-Larus
	Rows      []fleetRow
	Warnings  []string
}

// A fleetRow is one command on one directory.
type fleetRow struct {
	Build     string // "Ball-Larus" or "PPP"
	Processes int
	Command   string
	Seconds   float64
	PeakMB    float64
}

func (r *fleetResults) measured() bool { return len(r.Rows) > 0 }

// runFleet is the -fleet run.
func (h *harness) runFleet(set map[string]bool, processes, pppProcesses int, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r := &fleetResults{Date: time.Now().Format("2006-01-02"), Machine: machine(), GoVersion: goVersion()}
	if set["processes"] {
		r.Selection = append(r.Selection, "-processes="+strconv.Itoa(processes))
	}
	if set["pppprocesses"] {
		r.Selection = append(r.Selection, "-pppprocesses="+strconv.Itoa(pppProcesses))
	}
	if processes%fleetSeeds != 0 || pppProcesses%fleetSeeds != 0 || processes < 10*fleetSeeds || pppProcesses < 10*fleetSeeds {
		fmt.Fprintf(stderr, "bench: -processes and -pppprocesses must be multiples of %d, at least %d\n", fleetSeeds, 10*fleetSeeds)
		return 2
	}
	if err := h.fleet(r, processes, pppProcesses); err != nil {
		fmt.Fprintf(stderr, "bench: -fleet: %v\n", err)
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

func (h *harness) fleet(r *fleetResults, processes, pppProcesses int) error {
	if err := h.buildPPPExec(); err != nil {
		return err
	}
	work := filepath.Join(h.work, "fleet")
	if err := os.RemoveAll(work); err != nil {
		return err
	}
	bl := filepath.Join(work, "pathcover.bl")
	h.log("build pathcover under pppexec")
	if _, err := h.command(h.root, nil, "go", "build", "-toolexec="+h.pppexec, "-o", bl, "./cmd/pathcover"); err != nil {
		return err
	}
	self := filepath.Join(work, "self")
	if _, err := h.command(h.root, []string{"PATHCOVERDIR=" + self}, bl, "help"); err != nil {
		return err
	}
	seeds := filepath.Join(work, "seeds.bl")
	if err := h.runSeeds(bl, self, seeds, fleetCommands[:]); err != nil {
		return err
	}
	// The PPP build's tested paths are those of half the commands, so
	// that the other half run residual paths, as a field's runs do.
	tested := filepath.Join(work, "tested")
	if err := h.runSeeds(bl, self, tested, fleetCommands[:fleetSeeds/2]); err != nil {
		return err
	}
	ppp := filepath.Join(work, "pathcover.ppp")
	h.log("build pathcover under pppexec -interesting")
	if _, err := h.command(h.root, nil, "go", "build", "-toolexec="+h.pppexec+" -interesting="+tested, "-o", ppp, "./cmd/pathcover"); err != nil {
		return err
	}
	pppSeeds := filepath.Join(work, "seeds.ppp")
	if err := h.runSeeds(ppp, self, pppSeeds, fleetCommands[:]); err != nil {
		return err
	}
	metas, counts, err := seedFiles(seeds)
	if err != nil {
		return err
	}
	r.Packages = len(metas)
	if fi, err := os.Stat(counts[0]); err == nil {
		r.FileBytes = fi.Size()
	}
	for _, run := range []struct {
		build     string
		seeds     string
		n         int
		commands  [][]string
		coverfile bool
	}{
		{"Ball-Larus", seeds, processes / 10, blFleetCommands, true},
		{"Ball-Larus", seeds, processes, blFleetCommands, true},
		{"PPP", pppSeeds, pppProcesses / 10, pppFleetCommands, false},
		{"PPP", pppSeeds, pppProcesses, pppFleetCommands, false},
	} {
		dir := filepath.Join(work, fmt.Sprintf("%s.%d", strings.ToLower(strings.ReplaceAll(run.build, "-", "")), run.n))
		h.log("%s: %d processes", run.build, run.n)
		if err := copyFleet(run.seeds, dir, run.n); err != nil {
			return err
		}
		if run.coverfile {
			if err := h.checkFleet(run.seeds, dir, run.n/fleetSeeds); err != nil {
				return err
			}
		}
		for _, args := range run.commands {
			args = expand(args, dir, filepath.Join(work, "out"))
			start := time.Now()
			cmd := exec.Command(filepath.Join(h.work, "bin", "pathcover"), args...)
			cmd.Dir, cmd.Env = work, h.env
			out, err := cmd.CombinedOutput()
			took := time.Since(start).Seconds()
			name := strings.Join(fleetArgs(args), " ")
			// gate exits 1 when a function is short of the bar: still a
			// whole read of the directory.
			if err != nil && !(args[0] == "gate" && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 1) {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s, %d processes, %s: %v: %s", run.build, run.n, name, err, firstLine(string(out))))
				continue
			}
			r.Rows = append(r.Rows, fleetRow{Build: run.build, Processes: run.n, Command: name, Seconds: took, PeakMB: peakMB(cmd.ProcessState)})
			h.log("%s %d %s: %.1f s, %.0f MB", run.build, run.n, name, took, peakMB(cmd.ProcessState))
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	return nil
}

var (
	blFleetCommands = [][]string{
		{"report", "-dir", "{dir}"},
		{"gate", "-dir", "{dir}", "-min", "1"},
		{"merge", "-o", "{out}.txt", "{dir}"},
		{"export", "-dir", "{dir}", "-format", "lcov", "-o", "{out}.info"},
		{"export", "-dir", "{dir}", "-format", "pprof", "-o", "{out}.pprof"},
	}
	pppFleetCommands = [][]string{
		{"residual", "-dir", "{dir}"},
		{"report", "-dir", "{dir}"},
		{"merge", "-o", "{out}.txt", "{dir}"},
		{"export", "-dir", "{dir}", "-format", "pprof", "-o", "{out}.pprof"},
	}
)

// expand fills in a command's directory and output's base name.
func expand(args []string, dir, out string) []string {
	res := make([]string, len(args))
	for i, a := range args {
		res[i] = strings.NewReplacer("{dir}", dir, "{out}", out, "{prof}", dir).Replace(a)
	}
	return res
}

// fleetArgs is a command as the table shows it: files left out.
func fleetArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-dir", "-o":
			i++
			continue
		}
		if filepath.IsAbs(args[i]) {
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// runSeeds runs commands of the program, each a process writing into dir.
func (h *harness) runSeeds(prog, self, dir string, commands [][]string) error {
	for _, args := range commands {
		args = expand(args, self, filepath.Join(filepath.Dir(dir), "seedout"))
		// A command that fails (gate short of its bar) has still run,
		// and written its counts: the files are counted below.
		h.command(h.root, []string{"PATHCOVERDIR=" + dir}, prog, args...)
	}
	_, counts, err := seedFiles(dir)
	if err == nil && len(counts) != len(commands) {
		err = fmt.Errorf("%s: %d counter files, want one for each of %d runs", dir, len(counts), len(commands))
	}
	return err
}

// seedFiles lists a seed directory's metadata and counter files.
func seedFiles(dir string) (metas, counts []string, err error) {
	if metas, err = filepath.Glob(filepath.Join(dir, "*.meta")); err != nil {
		return nil, nil, err
	}
	counts, err = filepath.Glob(filepath.Join(dir, "*.counts"))
	if err == nil && (len(metas) == 0 || len(counts) == 0) {
		err = fmt.Errorf("%s: no profile", dir)
	}
	return metas, counts, err
}

// copyFleet makes dir a profile of n processes: the seeds' metadata, and
// their counter files copied round-robin, each under a name of its own.
func copyFleet(seeds, dir string, n int) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	metas, counts, err := seedFiles(seeds)
	if err != nil {
		return err
	}
	for _, m := range metas {
		if err := copyFile(m, filepath.Join(dir, filepath.Base(m))); err != nil {
			return err
		}
	}
	for i := range n {
		name := fmt.Sprintf("pathcover.%d.%d.counts", 1000000+i, i)
		if err := copyFile(counts[i%len(counts)], filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// checkFleet requires the LCOV export of dir to be that of the seeds with
// every count times copies: the readers added every process, once. LCOV,
// not go test's coverprofile: Go's counters are 32 bits and the
// coverprofile saturates there (export.WriteCoverProfile), which 10,000
// copies of a loop's block pass.
func (h *harness) checkFleet(seeds, dir string, copies int) error {
	tool := filepath.Join(h.work, "bin", "pathcover")
	read := func(d string) (map[string]uint64, error) {
		out, err := h.command(h.root, nil, tool, "export", "-dir", d, "-format", "lcov")
		if err != nil {
			return nil, err
		}
		counts := make(map[string]uint64) // file and record: its count
		file := ""
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		for sc.Scan() {
			kind, rest, _ := strings.Cut(sc.Text(), ":")
			var key, count string
			switch kind {
			case "SF":
				file = rest
				continue
			case "DA": // line,count
				line, c, _ := strings.Cut(rest, ",")
				key, count = "DA:"+line, c
			case "FNDA": // count,name
				c, name, _ := strings.Cut(rest, ",")
				key, count = "FNDA:"+name, c
			case "BRDA": // line,block,branch,count or -
				at := strings.LastIndex(rest, ",")
				key, count = "BRDA:"+rest[:max(at, 0)], rest[at+1:]
			default:
				continue
			}
			n := uint64(0)
			if count != "-" {
				if n, err = strconv.ParseUint(count, 10, 64); err != nil {
					return nil, fmt.Errorf("LCOV line %q: %v", sc.Text(), err)
				}
			}
			counts[file+" "+key] += n
		}
		return counts, sc.Err()
	}
	want, err := read(seeds)
	if err != nil {
		return err
	}
	got, err := read(dir)
	if err != nil {
		return err
	}
	ran := 0
	for b, n := range want {
		if got[b] != n*uint64(copies) {
			return fmt.Errorf("%d processes: %s counts %d, want %d × %d", copies*fleetSeeds, b, got[b], copies, n)
		}
		if n > 0 {
			ran++
		}
	}
	if len(got) != len(want) || ran == 0 {
		return fmt.Errorf("%d processes: %d blocks, the seeds %d (%d ran)", copies*fleetSeeds, len(got), len(want), ran)
	}
	return nil
}

// renderFleet writes the outputs of a -fleet run saved by -json.
func renderFleet(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r, ok := readResults[fleetResults](file, "-fleet", stderr)
	if !ok {
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

// Markdown renders a row per command and build, the smaller directory's
// figures beside the larger's.
func (r *fleetResults) Markdown() string {
	var b strings.Builder
	cmd := "go run ./bench -fleet"
	for _, f := range r.Selection {
		cmd += " " + f
	}
	fmt.Fprintf(&b, "Measured by `%s` on %s, %s, %s: pathcover's own binary built with pppexec (%d instrumented packages, %.0f KB of counters a process), %d runs of it copied round-robin into each directory; one read each; the Ball-Larus directories' LCOV export checked to be the runs' times the copies.\n\n",
		cmd, r.Date, r.Machine, r.GoVersion, r.Packages, float64(r.FileBytes)/1024, fleetSeeds)
	b.WriteString("| build | command | processes | time (s) | peak memory (MB) | processes | time (s) | peak memory (MB) |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	type key struct{ build, command string }
	var order []key
	rows := make(map[key][]fleetRow)
	for _, row := range r.Rows {
		k := key{row.Build, row.Command}
		if rows[k] == nil {
			order = append(order, k)
		}
		rows[k] = append(rows[k], row)
	}
	for _, k := range order {
		fmt.Fprintf(&b, "| %s | `%s` |", k.build, k.command)
		for _, row := range rows[k] {
			fmt.Fprintf(&b, " %d | %.1f | %.0f |", row.Processes, row.Seconds, row.PeakMB)
		}
		b.WriteString("\n")
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "\nNot measured: %s\n", w)
	}
	return b.String()
}
