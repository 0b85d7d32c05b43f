package wpp

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/profile"
)

// TestsHeld says which tests a recording holds, for one whose process
// went on past the recording (a suite that reached the size limit):
// Whole are the tests whose end it recorded, Cut those it saw start and
// not end, Missing those the process ran (its tests file says) that
// started once recording had stopped. Each lists names in the order the
// tests started.
type TestsHeld struct {
	File                    string
	Cut                     []string // why the recording covers only part of its run
	Whole, Partial, Missing []string
}

// CutTests returns, for each recording (*.wpp) of dir that covers only
// part of its run, which tests it holds: those its test chunks show
// (pathcover test records them), and those the tests file of the same
// process names but the recording does not.
func CutTests(dir string) ([]TestsHeld, error) {
	names, err := profile.Need(dir, profile.KindWPP, "")
	if err != nil {
		return nil, err
	}
	ran, err := testsByPID(dir)
	if err != nil {
		return nil, err
	}
	var out []TestsHeld
	for _, name := range names {
		f, err := profile.OpenWPP(name)
		if err != nil {
			return nil, err
		}
		h := TestsHeld{File: filepath.Base(name), Cut: f.Header.Cut()}
		tests, pid := f.Tests, f.Header.PID
		f.Close()
		if len(h.Cut) == 0 {
			continue
		}
		seen := make(map[string]bool)
		for _, t := range tests {
			seen[t.Name] = true
			if t.Ended {
				h.Whole = append(h.Whole, t.Name)
			} else {
				h.Partial = append(h.Partial, t.Name)
			}
		}
		for _, t := range ran[pid] {
			if !seen[t] {
				h.Missing = append(h.Missing, t)
				seen[t] = true
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// testsByPID returns the tests each process of dir ran, as its tests file
// names them, in the order they were named, by process id.
func testsByPID(dir string) (map[uint64][]string, error) {
	l, err := profile.List(dir)
	if err != nil {
		return nil, err
	}
	ran := make(map[uint64][]string)
	for _, name := range l.Files(profile.KindTests) {
		tf, err := profile.ReadTests(name)
		if tf == nil {
			return nil, err
		}
		// pathcover.<pid>.<n>.counts; a tests file that names none (cut
		// before its first record) tells no process.
		parts := strings.Split(tf.Counts, ".")
		if len(parts) < 3 {
			continue
		}
		pid, err := strconv.ParseUint(parts[1], 10, 64)
		if err != nil {
			continue
		}
		ids := make([]uint64, 0, len(tf.Tests))
		for id := range tf.Tests {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			ran[pid] = append(ran[pid], tf.Tests[id].Name)
		}
	}
	return ran, nil
}

// String says it in one line: why the recording stopped, and its tests.
func (h TestsHeld) String() string {
	list := func(names []string) string {
		const shown = 5
		if len(names) <= shown {
			return strings.Join(names, ", ")
		}
		return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
	}
	s := fmt.Sprintf("%s: %s: holds %d tests whole", h.File, strings.Join(h.Cut, "; "), len(h.Whole))
	if len(h.Partial) > 0 {
		s += fmt.Sprintf("; cut: %s", list(h.Partial))
	}
	if len(h.Missing) > 0 {
		s += fmt.Sprintf("; missing: %s", list(h.Missing))
	}
	return s
}

// TestGoroutines returns the goroutines of recording f that ran test name,
// or a test under it (name/...): the goroutine that ran each, and every
// goroutine those started, directly or not, as their start records say.
// Subtests run on goroutines their parent test starts, so a test's
// goroutines hold its subtests'. It returns nil if f recorded no such
// test.
func TestGoroutines(f *profile.WPPFile, name string) (map[uint64]bool, error) {
	in := make(map[uint64]bool)
	for _, t := range f.Tests {
		if t.Name == name || strings.HasPrefix(t.Name, name+"/") {
			in[t.Goroutine] = true
		}
	}
	if len(in) == 0 {
		return nil, nil
	}
	// Each goroutine's creator, from its first record.
	children := make(map[uint64][]uint64)
	for _, g := range f.Goroutines() {
		err := f.Events(g, func(e profile.WPPEvent) error {
			if e.Kind == profile.WPPStart && e.Parent != 0 {
				children[e.Parent] = append(children[e.Parent], g)
			}
			return errFirst
		})
		if err != nil && err != errFirst {
			return nil, err
		}
	}
	queue := slices.Collect(maps.Keys(in))
	for len(queue) > 0 {
		g := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, c := range children[g] {
			if !in[c] {
				in[c] = true
				queue = append(queue, c)
			}
		}
	}
	return in, nil
}

// errFirst stops a walk of events at the first.
var errFirst = errors.New("first event")
