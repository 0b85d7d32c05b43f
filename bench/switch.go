package main

// The mode-switch part of the harness (-switch): what a user's first
// `pathcover test` of a module costs from empty caches, and what each
// switch to another mode costs after it, as a user tries them one after
// the other (the README's workflows). Each round starts from a new
// GOCACHE and a new PATHCOVERCACHE, and runs the steps of switchSteps in
// order, each into a profile directory of its own, timing each whole
// command.
//
// With -base REV, pathcover is also built from that git revision (git
// archive into the work directory), and every round runs both builds,
// one after the other, in an order that alternates between rounds: the
// two columns of the table are then before and after the changes since
// REV, measured on the same machine in the same run. Both run the
// working tree's example module.

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// A switchStep is one command of a mode-switch round: a pathcover test
// with its mode's flags, or (flight, which pathcover test does not run)
// go test with pathcover pppexec as the toolexec wrapper.
type switchStep struct {
	Name string
	// args are pathcover test's flags; DIR is the step's own profile
	// directory, FIRST the first step's.
	args []string
	// goTest, if set, runs go test -toolexec="PATHCOVER pppexec goTest..."
	// instead.
	goTest []string
}

// switchSteps are a round's commands, in order: the first from empty
// caches, then a switch to each other mode, then the first again (warm).
var switchSteps = []switchStep{
	{Name: "first: pathcover test", args: []string{"-dir", "DIR"}},
	{Name: "-wpp", args: []string{"-wpp", "-dir", "DIR"}},
	{Name: "-deps", args: []string{"-deps", "-dir", "DIR"}},
	{Name: "-wet", args: []string{"-wet", "-dir", "DIR"}},
	{Name: "-shard", args: []string{"-shard", "-dir", "DIR"}},
	{Name: "-tests=false", args: []string{"-tests=false", "-dir", "DIR"}},
	{Name: "-ippp FIRST", args: []string{"-ippp", "FIRST", "-dir", "DIR"}},
	{Name: "go test -toolexec='pathcover pppexec -flight=16'", goTest: []string{"-flight=16"}},
	{Name: "pathcover test again", args: []string{"-dir", "DIR"}},
}

// switchPackages are the packages every step tests.
const switchPackages = "./example/..."

// switchResults is what a -switch run measured; -json writes it.
type switchResults struct {
	Date      string
	Machine   string
	GoVersion string
	Selection []string
	Rounds    int
	Base      string // the revision of the before column, "" for none
	Head      string // the working tree's revision
	// Seconds are each step's times, one per round, by build ("base",
	// "head") and then step name.
	Seconds  map[string]map[string][]float64
	Steps    []string
	Warnings []string
}

func (r *switchResults) measured() bool { return len(r.Seconds["head"]) > 0 }

func (h *harness) runSwitch(set map[string]bool, base string, rounds int, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r := &switchResults{Date: time.Now().Format("2006-01-02"), Machine: machine(), GoVersion: goVersion(), Rounds: rounds,
		Base: base, Seconds: map[string]map[string][]float64{}}
	r.Selection = []string{"-switch"}
	if base != "" {
		r.Selection = append(r.Selection, "-base="+base)
	}
	if set["rounds"] {
		r.Selection = append(r.Selection, fmt.Sprintf("-rounds=%d", rounds))
	}
	for _, s := range switchSteps {
		r.Steps = append(r.Steps, s.Name)
	}
	if out, err := h.command(h.root, nil, "git", "rev-parse", "--short", "HEAD"); err == nil {
		r.Head = strings.TrimSpace(string(out))
	}
	bins := map[string]string{}
	var err error
	if bins["head"], err = h.buildPathcover(h.root, "head"); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	if base != "" {
		if bins["base"], err = h.buildBase(base); err != nil {
			fmt.Fprintf(stderr, "bench: -base %s: %v\n", base, err)
			return 1
		}
	}
	for round := range rounds {
		order := []string{"head", "base"}
		if round%2 == 0 {
			order = []string{"base", "head"}
		}
		for _, build := range order {
			if bins[build] == "" {
				continue
			}
			secs, err := h.switchRound(bins[build], fmt.Sprintf("%s-%d", build, round))
			if err != nil {
				fmt.Fprintf(stderr, "bench: %s, round %d: %v\n", build, round+1, err)
				return 1
			}
			if r.Seconds[build] == nil {
				r.Seconds[build] = map[string][]float64{}
			}
			for name, s := range secs {
				r.Seconds[build][name] = append(r.Seconds[build][name], s)
			}
		}
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}

// buildPathcover builds cmd/pathcover from the source tree src into the
// work directory, as name.
func (h *harness) buildPathcover(src, name string) (string, error) {
	bin := filepath.Join(h.work, "bin", name, "pathcover")
	if _, err := h.command(src, nil, "go", "build", "-o", bin, "./cmd/pathcover"); err != nil {
		return "", err
	}
	return bin, nil
}

// buildBase builds cmd/pathcover from git revision rev of the repository,
// written out with git archive (the repository itself is left alone).
func (h *harness) buildBase(rev string) (string, error) {
	src := filepath.Join(h.work, "base-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	archive := exec.Command("git", "archive", "--format=tar", rev)
	archive.Dir = h.root
	tar := exec.Command("tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return "", err
	}
	tar.Stdin = pipe
	var archiveErr strings.Builder
	archive.Stderr = &archiveErr
	if err := tar.Start(); err != nil {
		return "", err
	}
	if err := archive.Run(); err != nil {
		tar.Wait()
		return "", fmt.Errorf("git archive %s: %v: %s", rev, err, strings.TrimSpace(archiveErr.String()))
	}
	if err := tar.Wait(); err != nil {
		return "", fmt.Errorf("tar: %v", err)
	}
	return h.buildPathcover(src, "base")
}

// switchRound runs the steps once with pathcover bin, from empty caches,
// and returns each step's seconds.
func (h *harness) switchRound(bin, name string) (map[string]float64, error) {
	dir := filepath.Join(h.work, "switch", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	env := []string{"GOCACHE=" + filepath.Join(dir, "gocache"), "PATHCOVERCACHE=" + filepath.Join(dir, "pathcover"), "TMPDIR=" + dir}
	secs := map[string]float64{}
	first := ""
	for i, s := range switchSteps {
		prof := filepath.Join(dir, fmt.Sprintf("profile%d", i))
		if first == "" {
			first = prof
		}
		var args []string
		name, cmdArgs := bin, []string{"test"}
		if s.goTest != nil {
			if err := os.MkdirAll(prof, 0o755); err != nil {
				return nil, err
			}
			name = "go"
			cmdArgs = []string{"test", "-count=1", "-toolexec=" + bin + " pppexec " + strings.Join(s.goTest, " ")}
			env := append(env[:len(env):len(env)], "PATHCOVERDIR="+prof)
			h.log("%s: %s", name, s.Name)
			start := time.Now()
			if _, err := h.command(h.root, env, name, append(cmdArgs, switchPackages)...); err != nil {
				return nil, fmt.Errorf("%s: %v", s.Name, err)
			}
			secs[s.Name] = time.Since(start).Seconds()
			continue
		}
		for _, a := range s.args {
			a = strings.ReplaceAll(a, "FIRST", first)
			args = append(args, strings.ReplaceAll(a, "DIR", prof))
		}
		h.log("%s: %s", name, s.Name)
		start := time.Now()
		if _, err := h.command(h.root, env, name, append(append(cmdArgs, args...), switchPackages)...); err != nil {
			return nil, fmt.Errorf("%s: %v", s.Name, err)
		}
		secs[s.Name] = time.Since(start).Seconds()
	}
	return secs, nil
}

// Markdown renders the results: each step's seconds per round, for each
// build, and the medians' ratio.
func (r *switchResults) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured by `go run ./bench %s` on %s, %s, %s: the commands below, in order, on `%s` from the repository root, each round from a new GOCACHE and PATHCOVERCACHE, %d rounds",
		strings.Join(r.Selection, " "), r.Date, r.Machine, r.GoVersion, switchPackages, r.Rounds)
	if r.Base != "" {
		fmt.Fprintf(&b, ", pathcover built at %s (before) and at %s (after) in alternate order", r.Base, r.Head)
	}
	b.WriteString(".\n\n")
	secs := func(xs []float64) string {
		var s []string
		for _, x := range xs {
			s = append(s, fmt.Sprintf("%.1f", x))
		}
		if len(s) == 0 {
			return "–"
		}
		return strings.Join(s, ", ")
	}
	if r.Base != "" {
		fmt.Fprintf(&b, "| step | before (%s), s | after (%s), s | after / before, medians |\n|---|---:|---:|---:|\n", r.Base, r.Head)
	} else {
		fmt.Fprintf(&b, "| step | seconds (%s) |\n|---|---:|\n", r.Head)
	}
	var sums [2]float64
	for _, step := range r.Steps {
		head := r.Seconds["head"][step]
		if r.Base == "" {
			fmt.Fprintf(&b, "| %s | %s |\n", step, secs(head))
			continue
		}
		base := r.Seconds["base"][step]
		mb, mh := median(base), median(head)
		sums[0] += mb
		sums[1] += mh
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", step, secs(base), secs(head), ratio(mh/mb))
	}
	if r.Base != "" {
		fmt.Fprintf(&b, "| all steps, medians | %.1f | %.1f | %s |\n", sums[0], sums[1], ratio(sums[1]/sums[0]))
	}
	b.WriteString("\nEach step is one command, timed whole: building the test binaries, running the tests, and writing the report. The first step compiles the standard library under pppexec; each later step is a switch to that mode from the steps before it, with the caches they left.\n")
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "\nWarning: %s\n", w)
	}
	return b.String()
}

// renderSwitch writes the outputs of a -switch run saved by -json.
func renderSwitch(file string, stdout, stderr io.Writer, jsonOut, mdOut, readme, section string) int {
	r, ok := readResults[switchResults](file, "-switch", stderr)
	if !ok {
		return 1
	}
	return writeResults(r, stdout, stderr, jsonOut, mdOut, readme, section)
}
