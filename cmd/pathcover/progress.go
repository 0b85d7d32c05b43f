package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/pathcover/pathcover/internal/driver"
)

// A progress shows how far a go test run under pathcover test is, on one
// status line of a terminal: the test binaries built and the packages
// tested, each of how many packages have tests. go test's own output
// passes through it line by line, unchanged, with the status line cleared
// before each and drawn again after. Test binaries built are counted from
// the lines that pppexec appends to a file at each link (driver's
// ProgressEnv), packages tested from go test's "ok" and "FAIL" lines.
type progress struct {
	out   *os.File // the terminal
	total int      // packages with tests; 0 if go list could not say
	file  string   // the links' file

	mu             sync.Mutex
	built, tested  int
	shown, stopped bool
}

// newProgress returns a progress for a go test run with args on out, or
// nil if out is not a terminal: a log or a pipe gets go test's output
// alone.
func newProgress(out *os.File, args []string) *progress {
	if !isTerminal(out) {
		return nil
	}
	dir, err := os.MkdirTemp("", "pathcover-progress-")
	if err != nil {
		return nil
	}
	file := dir + string(os.PathSeparator) + "links"
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil
	}
	return &progress{out: out, total: testedPackages(args), file: file}
}

// start runs cmd with its output passing through p, and the progress
// file in its environment; wait waits for the output to end, then clears
// the status line and removes the file.
func (p *progress) start(cmd *exec.Cmd) (wait func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.Env = append(cmd.Env, driver.ProgressEnv+"="+p.file)
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	done := make(chan struct{})
	go func() {
		p.copy(r)
		close(done)
	}()
	stop := make(chan struct{})
	go p.poll(stop)
	return func() {
		<-done
		close(stop)
		p.mu.Lock()
		p.clear()
		p.stopped = true
		p.mu.Unlock()
		os.RemoveAll(p.file[:strings.LastIndexByte(p.file, os.PathSeparator)])
	}, nil
}

// copy passes go test's output through, counting the packages tested.
func (p *progress) copy(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			p.mu.Lock()
			p.clear()
			io.WriteString(p.out, line)
			if strings.HasPrefix(line, "ok  \t") || strings.HasPrefix(line, "FAIL\t") {
				p.tested++
			}
			p.draw()
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// poll counts the test binaries linked, every tenth of a second.
func (p *progress) poll(stop chan struct{}) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		data, _ := os.ReadFile(p.file)
		p.mu.Lock()
		if n := strings.Count(string(data), "\n"); n != p.built {
			p.built = n
			p.clear()
			p.draw()
		}
		p.mu.Unlock()
	}
}

// draw writes the status line; the caller holds mu.
func (p *progress) draw() {
	if p.stopped {
		return
	}
	built := max(p.built, p.tested) // a binary from the build cache is not linked again
	if p.total > 0 {
		fmt.Fprintf(p.out, "pathcover: %d of %d test binaries built, %d of %d packages tested", min(built, p.total), p.total, min(p.tested, p.total), p.total)
	} else {
		fmt.Fprintf(p.out, "pathcover: %d test binaries built, %d packages tested", built, p.tested)
	}
	p.shown = true
}

// clear erases the status line; the caller holds mu.
func (p *progress) clear() {
	if p.shown {
		io.WriteString(p.out, "\r\x1b[K")
		p.shown = false
	}
}

// testedPackages returns how many packages with tests go test args name,
// by go list with the same build flags; 0 if it cannot tell.
func testedPackages(args []string) int {
	pkgs, build := splitGoTestArgs(args)
	listArgs := append([]string{"list", "-e", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}"}, build...)
	out, err := exec.Command("go", append(listArgs, pkgs...)...).Output()
	if err != nil {
		return 0
	}
	return len(strings.Fields(string(out)))
}

// goTestBoolFlags are the go test flags, build and test, that take no
// value; every other flag does, unless given as -flag=value.
var goTestBoolFlags = map[string]bool{
	"a": true, "n": true, "race": true, "msan": true, "asan": true, "cover": true, "v": true,
	"work": true, "x": true, "linkshared": true, "modcacherw": true, "trimpath": true,
	"c": true, "json": true, "benchmem": true, "failfast": true, "fullpath": true, "short": true,
	"i": true, "buildvcs": true,
}

// goListFlags are the build flags that change which packages go list
// finds.
var goListFlags = map[string]bool{"C": true, "tags": true, "mod": true, "modfile": true, "overlay": true}

// splitGoTestArgs returns the packages that go test args name (none for
// the current directory's) and the build flags among args that go list
// needs to find the same ones. Flags may come before and after packages;
// -args ends them.
func splitGoTestArgs(args []string) (pkgs, build []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-args" || a == "--args" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pkgs = append(pkgs, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		flag := []string{a}
		if !hasValue && !goTestBoolFlags[name] && i+1 < len(args) {
			i++
			flag = append(flag, args[i])
		}
		if goListFlags[name] {
			build = append(build, flag...)
		}
	}
	return pkgs, build
}
