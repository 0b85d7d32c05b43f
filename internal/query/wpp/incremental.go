package wpp

import (
	"runtime"
	"sync"
	"time"

	"github.com/pathcover/pathcover/profile"
)

// An Incremental compacts a profile directory's recordings a process at
// a time, each once its process is done, while other processes still
// record (pathcover test -wpp: each package's tests are a process, and
// compacting them all after the last added the compaction's time to the
// run's), and at the end makes of them the TWPP that CompactDir makes of
// the directory, byte for byte: the processes merged in the order of
// their files (TestIncremental).
type Incremental struct {
	dir string
	// workers compact one recording while the tests run: fewer than
	// the cores, which the tests need.
	workers int

	mu      sync.Mutex
	parts   map[string]*TWPP // the recordings compacted, by file name
	failed  map[string]bool  // done but not compacted: left to Finish, not tried again
	scanned int              // how many Scan compacted
	stop    chan struct{}
	done    chan struct{}
}

// NewIncremental returns an Incremental of the recordings of dir.
func NewIncremental(dir string) *Incremental {
	return &Incremental{dir: dir, workers: max(1, runtime.GOMAXPROCS(0)/2), parts: make(map[string]*TWPP), failed: make(map[string]bool)}
}

// Start compacts, every interval until Stop, the recordings that are
// done (Scan).
func (c *Incremental) Start(interval time.Duration) {
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(c.done)
		for {
			c.Scan()
			select {
			case <-c.stop:
				return
			case <-time.After(interval):
			}
		}
	}()
}

// Stop stops what Start started, once the recording it compacts, if
// any, is compacted.
func (c *Incremental) Stop() {
	if c.stop != nil {
		close(c.stop)
		<-c.done
		c.stop = nil
	}
}

// Scan compacts each recording of the directory that is done
// (profile.WPPHeader.Done) and not compacted yet. A recording that
// cannot be read is left to Finish, which says what is wrong with it.
func (c *Incremental) Scan() {
	l, err := profile.List(c.dir)
	if err != nil {
		return
	}
	for _, name := range l.Files(profile.KindWPP) {
		select {
		case <-c.stop:
			return
		default:
		}
		c.mu.Lock()
		_, seen := c.parts[name]
		seen = seen || c.failed[name]
		c.mu.Unlock()
		if seen {
			continue
		}
		if h, err := profile.ReadWPPHeader(name); err != nil || !h.Done() {
			continue // not yet written, or not yet done: looked at again
		}
		part, err := compactFile(name, c.workers)
		c.mu.Lock()
		if err != nil {
			// A done recording does not change: compacting it again
			// each scan would fail again.
			c.failed[name] = true
		} else {
			c.parts[name] = part
			c.scanned++
		}
		c.mu.Unlock()
	}
}

// Finish compacts the recordings not compacted yet and writes the TWPP of
// them all, as CompactDir does (to out, default dir/profile.twpp). It
// stops what Start started.
func (c *Incremental) Finish(out string) (string, Stats, error) {
	c.Stop()
	names, err := profile.Need(c.dir, profile.KindWPP, "record them with pathcover test -wpp or pppexec -wpp")
	if err != nil {
		return "", Stats{}, err
	}
	t := &TWPP{funcIndex: make(map[FuncKey]int)}
	for _, name := range names {
		c.mu.Lock()
		part := c.parts[name]
		delete(c.parts, name) // merged into t, which takes its nodes
		c.mu.Unlock()
		if part == nil {
			if part, err = compactFile(name, runtime.GOMAXPROCS(0)); err != nil {
				return "", Stats{}, err
			}
		}
		if err := t.mergeProcess(part); err != nil {
			return "", Stats{}, err
		}
	}
	if out == "" {
		out = profile.DerivedPath(c.dir, profile.KindTWPP)
	}
	return out, t.Stats(), t.WriteFile(out)
}

// Scanned is the number of recordings Scan compacted: before Finish,
// while their processes' tests ran or after.
func (c *Incremental) Scanned() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scanned
}

// compactFile compacts WPP file name alone.
func compactFile(name string, workers int) (*TWPP, error) {
	f, err := profile.OpenWPP(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// (Its errors name the file, as CompactDir's do.)
	return compactWith([]Source{FileSource{f}}, workers)
}
