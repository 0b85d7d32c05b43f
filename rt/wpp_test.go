//go:build unix

package rt_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pathcover/pathcover/profile"
	"github.com/pathcover/pathcover/rt"
)

// The WPP helpers record events through rt as generated code does, and
// keep their own account of what they recorded, which the tests compare
// with what profile reads from the file. Goroutines are told apart here
// by the goroutine ids runtime.Stack prints: an independent way, since the
// accessor pppexec adds to the runtime is not in this test binary.
func init() {
	helpers["wpp"] = wppHelper
	rt.SetTestGoroutine(stackGoroutine)
}

// stackGoroutine returns the calling goroutine's id (as its g too) and its
// creator's, from runtime.Stack.
func stackGoroutine() (uintptr, uint64, uint64) {
	var buf [4096]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	id, _ := strconv.ParseUint(strings.Fields(strings.TrimPrefix(s, "goroutine "))[0], 10, 64)
	var parent uint64
	if i := strings.LastIndex(s, " in goroutine "); i >= 0 {
		parent, _ = strconv.ParseUint(strings.Fields(s[i+len(" in goroutine "):])[0], 10, 64)
	}
	return uintptr(id), id, parent
}

// A wppLog is a helper goroutine's own account of its events.
type wppLog struct {
	mu  sync.Mutex
	evs map[uint64][]profile.WPPEvent
}

func (l *wppLog) add(e profile.WPPEvent) {
	_, g, _ := stackGoroutine()
	l.mu.Lock()
	l.evs[g] = append(l.evs[g], e)
	l.mu.Unlock()
}

// call runs a random call tree under function fn: paths, nested calls,
// spawns of goroutines (which it waits for), panics recovered a few calls
// up. It records each event in log as it asks rt to.
func call(r *rand.Rand, log *wppLog, pkg uint32, fn uint32, depth int) {
	f := codes[fn].Enter()
	log.add(profile.WPPEvent{Kind: profile.WPPEnter, Pkg: pkg, Func: fn})
	returned := false // by PathReturn: the deferred Return records nothing
	defer func() {
		f.Return()
		if !returned {
			log.add(profile.WPPEvent{Kind: profile.WPPReturn})
		}
	}()
	if depth > 0 && r.IntN(8) == 0 {
		// A panic from a callee, recovered here: the callee's frames
		// return as it unwinds.
		func() {
			defer func() { recover() }()
			panicking(log, pkg, depth)
		}()
	}
	for range r.IntN(6) {
		switch k := r.IntN(10); {
		case k < 6:
			id := randomPath(r)
			f.Path(id)
			log.add(profile.WPPEvent{Kind: profile.WPPPath, Path: id})
		case k < 8 && depth < 6:
			call(r, log, pkg, uint32(r.IntN(10)), depth+1)
		case k == 8 && depth < 4:
			var wg sync.WaitGroup
			wg.Add(1)
			seed := r.Uint64()
			log.add(profile.WPPEvent{Kind: profile.WPPSpawn}) // its id is rt's
			go rt.WPPGo1_0(f, func(seed uint64) {
				defer wg.Done()
				call(rand.New(rand.NewPCG(seed, 2)), log, pkg, 20, 0)
			})(seed)
			wg.Wait()
		default:
			// A path of the caller while a callee runs, as a
			// range-over-func loop body's.
			inner := codes[30].Enter()
			log.add(profile.WPPEvent{Kind: profile.WPPEnter, Pkg: pkg, Func: 30})
			f.Path(7)
			log.add(profile.WPPEvent{Kind: profile.WPPPath, Up: 1, Path: 7})
			inner.Return()
			log.add(profile.WPPEvent{Kind: profile.WPPReturn})
		}
	}
	if r.IntN(2) == 0 {
		// The last path and the return in one record, as at a return
		// statement that calls nothing.
		id := randomPath(r)
		f.PathReturn(id)
		log.add(profile.WPPEvent{Kind: profile.WPPPath, Path: id})
		log.add(profile.WPPEvent{Kind: profile.WPPReturn})
		returned = true
	}
}

// randomPath returns a path id of each size that rt writes its own way:
// one byte, one store of up to 7 bytes, a longer uvarint, a long path.
func randomPath(r *rand.Rand) uint64 {
	switch r.IntN(8) {
	case 0:
		return r.Uint64N(1 << 47)
	case 1:
		return 1<<47 + r.Uint64N(1<<50)
	case 2:
		return 1<<62 + r.Uint64N(40)
	}
	return r.Uint64N(40)
}

func panicking(log *wppLog, pkg uint32, n int) {
	f := codes[40].Enter()
	log.add(profile.WPPEvent{Kind: profile.WPPEnter, Pkg: pkg, Func: 40})
	defer func() {
		f.Return()
		log.add(profile.WPPEvent{Kind: profile.WPPReturn})
	}()
	if n == 0 {
		panic("down")
	}
	panicking(log, pkg, n-1)
}

// codes are the helper's second package's functions' codes (WPPRegister).
var codes []rt.WPPCode

// wppHelper registers two packages, runs RT_WPP_GOROUTINES goroutines
// of random call trees at once, and prints its account as JSON. With
// RT_WPP_KILL it prints "ready" after its events and waits to be killed.
func wppHelper() {
	if s := os.Getenv("RT_WPP_ENOSPC"); s != "" {
		// The disk is full from offset s on.
		full, _ := strconv.ParseInt(s, 10, 64)
		rt.SetWPPWriteFault(func(off int64) error {
			if off >= full {
				return syscall.ENOSPC
			}
			return nil
		})
	}
	rt.WPPRegister(strings.Repeat("ab", 16), 0, 10)
	codes = rt.WPPRegister(strings.Repeat("cd", 16), 0, 64)
	const pkg = 2
	log := &wppLog{evs: make(map[uint64][]profile.WPPEvent)}
	n, _ := strconv.Atoi(os.Getenv("RT_WPP_GOROUTINES"))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 1))
			calls := 1 + r.IntN(20)
			if os.Getenv("RT_WPP_MANY") != "" {
				calls = 200 // longer streams than their first chunks
			}
			for range calls {
				call(r, log, pkg, uint32(r.IntN(10)), 0)
			}
		}()
	}
	wg.Wait()
	if os.Getenv("RT_WPP_AFTER") != "" {
		// Records once recording has stopped, by the main goroutine (no
		// recorder yet) and by one it starts: how many the inlined ways
		// could not take, and how much the file grew.
		before, slow := wppFileSize(), 0
		records := func() {
			for range 10000 {
				f, ok := codes[1].TryEnter()
				if !ok {
					slow++
					f = codes[1].Enter()
				}
				if !f.TryPath(3) {
					slow++
					f.Path(3)
				}
				if !f.TryPathReturn(2) {
					slow++
					f.PathReturn(2)
				}
				if !f.TryReturn() {
					slow++
					f.Return()
				}
			}
		}
		records()
		done := make(chan bool)
		go func() { records(); done <- true }()
		<-done
		fmt.Fprintf(os.Stderr, "after the stop: %d of 80000 records slow; the file grew %d bytes from %d\n", slow, wppFileSize()-before, before)
	}
	json.NewEncoder(os.Stdout).Encode(log.evs)
	if os.Getenv("RT_WPP_KILL") != "" {
		// Calls left open, then killed.
		f := codes[50].Enter()
		f.Path(3)
		fmt.Println("ready")
		select {}
	}
	// What the runtime's exit hooks do in a program that pppexec builds.
	rt.WPPExitHook(0, false)
}

// wppFileSize returns the size of the helper's WPP file, -1 if it has none.
func wppFileSize() int64 {
	names, _ := filepath.Glob(filepath.Join(os.Getenv("PATHCOVERDIR"), "*.wpp"))
	if len(names) != 1 {
		return -1
	}
	st, err := os.Stat(names[0])
	if err != nil {
		return -1
	}
	return st.Size()
}

// runWPPHelper runs the helper and reads its account and the file.
func runWPPHelper(t *testing.T, env ...string) (want map[uint64][]profile.WPPEvent, file *profile.WPPFile, stderr string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"RT_HELPER=wpp", "PATHCOVERDIR=" + dir}, env...)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<28)
	if !sc.Scan() {
		t.Fatalf("helper printed nothing: %s", errb.String())
	}
	if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	if slices := os.Getenv("x"); slices != "" {
		t.Log(slices)
	}
	for _, e := range env {
		if strings.HasPrefix(e, "RT_WPP_KILL=") {
			if !sc.Scan() || sc.Text() != "ready" {
				t.Fatalf("helper not ready: %s", errb.String())
			}
			cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	cmd.Wait()
	names, _ := filepath.Glob(filepath.Join(dir, "*.wpp"))
	if len(names) != 1 {
		t.Fatalf("%d WPP files: %v; stderr: %s", len(names), names, errb.String())
	}
	file, err = profile.OpenWPP(names[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	return want, file, errb.String()
}

// recorded reads every goroutine's events, leaving out what the helper's
// account cannot know: spawn ids, and the start events (checked apart).
func recorded(t *testing.T, file *profile.WPPFile) (map[uint64][]profile.WPPEvent, map[uint64]profile.WPPEvent) {
	t.Helper()
	got := make(map[uint64][]profile.WPPEvent)
	starts := make(map[uint64]profile.WPPEvent)
	for _, g := range file.Goroutines() {
		err := file.Events(g, func(e profile.WPPEvent) error {
			switch e.Kind {
			case profile.WPPStart:
				if _, dup := starts[g]; dup || len(got[g]) > 0 {
					t.Errorf("goroutine %d: start event not first, or twice", g)
				}
				starts[g] = e
				return nil
			case profile.WPPSpawn:
				e.Spawn = 0
			}
			got[g] = append(got[g], e)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return got, starts
}

// TestWPPGoroutines checks each goroutine's stream against the helper's
// own account, with 16 goroutines recording at once, spawning goroutines
// of their own, panicking through frames and recording paths of callers.
func TestWPPGoroutines(t *testing.T) {
	want, file, stderr := runWPPHelper(t, "RT_WPP_GOROUTINES=16")
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	if cut := file.Header.Cut(); cut != nil || !file.Header.Ended {
		t.Errorf("a whole recording: header %+v, Cut() = %q", file.Header, cut)
	}
	got, starts := recorded(t, file)
	if len(want) < 16 {
		t.Fatalf("the helper recorded %d goroutines", len(want))
	}
	for g, evs := range want {
		if !reflect.DeepEqual(got[g], evs) {
			t.Errorf("goroutine %d: %d events recorded, %d in the helper's account; first difference at %d", g, len(got[g]), len(evs), firstDifference(got[g], evs))
		}
	}
	for g := range got {
		if _, ok := want[g]; !ok {
			t.Errorf("goroutine %d recorded events the helper did not", g)
		}
	}
	// Every spawned goroutine names a spawn recorded by its parent.
	spawns := make(map[uint64]uint64) // spawn id → goroutine
	for _, g := range file.Goroutines() {
		file.Events(g, func(e profile.WPPEvent) error {
			if e.Kind == profile.WPPSpawn {
				spawns[e.Spawn] = g
			}
			return nil
		})
	}
	children := 0
	for g, s := range starts {
		if s.Spawn == 0 {
			continue
		}
		children++
		if spawns[s.Spawn] != s.Parent {
			t.Errorf("goroutine %d: started by spawn %d of goroutine %d, which goroutine %d recorded", g, s.Spawn, s.Parent, spawns[s.Spawn])
		}
	}
	if children == 0 {
		t.Error("no goroutine was started by a recorded spawn")
	}
}

func firstDifference(a, b []profile.WPPEvent) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestWPPKilled kills the helper with calls open: everything it recorded
// before is in the file.
func TestWPPKilled(t *testing.T) {
	want, file, _ := runWPPHelper(t, "RT_WPP_GOROUTINES=4", "RT_WPP_KILL=1")
	if cut := file.Header.Cut(); file.Header.Ended || len(cut) != 1 || !strings.Contains(cut[0], "wrote no end") {
		t.Errorf("a killed process's recording: header %+v, Cut() = %q", file.Header, cut)
	}
	got, _ := recorded(t, file)
	for g, evs := range want {
		if !reflect.DeepEqual(got[g], evs) {
			t.Errorf("goroutine %d: first difference at %d of %d", g, firstDifference(got[g], evs), len(evs))
		}
	}
	// The main goroutine's open call and its path, written just before
	// the kill.
	_, main, _ := stackGoroutine()
	_ = main
	found := false
	for g, evs := range got {
		if _, ok := want[g]; ok {
			continue
		}
		found = reflect.DeepEqual(evs, []profile.WPPEvent{{Kind: profile.WPPEnter, Pkg: 2, Func: 50}, {Kind: profile.WPPPath, Path: 3}})
	}
	if !found {
		t.Error("the open call before the kill is not in the file")
	}
}

// TestWPPLimit runs the helper with a limit of 64 KiB: recording stops with
// one message, the header says so, what each goroutine recorded is a
// prefix of its account, and the streams cut short end with a stop event.
func TestWPPLimit(t *testing.T) {
	want, file, stderr := runWPPHelper(t, "RT_WPP_GOROUTINES=16", "RT_WPP_MANY=1", "PATHCOVERWPPMAX=64K", "RT_WPP_AFTER=1")
	if strings.Count(stderr, "reached its limit of 65536 bytes (PATHCOVERWPPMAX); recording stopped") != 1 {
		t.Errorf("stderr: %q", stderr)
	}
	// Once stopped, a goroutine's records go on inlined, into a scratch
	// chunk of its recorder (discard), not to the file: a few hundred
	// wraps of the scratch chunk, of 80,000 records, take the slow way.
	var slow, grew, size int
	at := strings.Index(stderr, "after the stop: ")
	if at < 0 {
		t.Fatalf("the helper did not count its records after the stop:\n%s", stderr)
	}
	if _, err := fmt.Sscanf(stderr[at:], "after the stop: %d of 80000 records slow; the file grew %d bytes from %d", &slow, &grew, &size); err != nil {
		t.Fatalf("helper: %v\n%s", err, stderr)
	}
	if size <= 0 {
		t.Fatalf("the helper found no WPP file to measure after the stop:\n%s", stderr)
	}
	if slow > 800 || grew != 0 {
		t.Errorf("after the stop, %d of 80000 records took the slow way and the file grew %d bytes; want at most 800 and 0", slow, grew)
	}
	if h := file.Header; !h.LimitReached || h.Limit != 64<<10 || h.WriteFailed || !h.Ended {
		t.Errorf("header %+v", file.Header)
	}
	if cut := file.Header.Cut(); len(cut) != 1 || !strings.Contains(cut[0], "size limit of 65536 bytes") {
		t.Errorf("Cut() = %q, want the size limit", cut)
	}
	if st, err := os.Stat(file.Name); err != nil || st.Size() > 1<<20 {
		t.Errorf("file: %v, %v", st, err)
	}
	checkPrefixes(t, want, file)
}

// TestWPPWriteFailed runs the helper on a disk that is full past the
// file's first extent: recording stops, the header says a write failed
// with ENOSPC (not the size limit), and what each goroutine recorded is a
// prefix of its account, as at the limit.
func TestWPPWriteFailed(t *testing.T) {
	want, file, stderr := runWPPHelper(t, "RT_WPP_GOROUTINES=16", "RT_WPP_MANY=1", fmt.Sprintf("RT_WPP_ENOSPC=%d", 1<<20))
	if strings.Count(stderr, "cannot record whole program paths in") != 1 || !strings.Contains(stderr, syscall.ENOSPC.Error()) {
		t.Errorf("stderr: %q", stderr)
	}
	if h := file.Header; !h.WriteFailed || h.WriteErrno != uint32(syscall.ENOSPC) || h.LimitReached || !h.Ended {
		t.Errorf("header %+v", h)
	}
	if cut := file.Header.Cut(); len(cut) != 1 || !strings.Contains(cut[0], "could not grow: "+syscall.ENOSPC.Error()) {
		t.Errorf("Cut() = %q, want the write's error", cut)
	}
	checkPrefixes(t, want, file)
}

// checkPrefixes checks that what each goroutine recorded, in a recording
// that stopped, is a prefix of the helper's account, and that streams cut
// short end with a stop event where their chunk had room for it.
func checkPrefixes(t *testing.T, want map[uint64][]profile.WPPEvent, file *profile.WPPFile) {
	t.Helper()
	got, _ := recorded(t, file)
	stops, cut := 0, 0
	for g, evs := range got {
		stopped := false
		if n := len(evs); n > 0 && evs[n-1].Kind == profile.WPPStop {
			evs, stopped = evs[:n-1], true
			stops++
		}
		w := want[g]
		if len(evs) > len(w) || !reflect.DeepEqual(evs, w[:len(evs)]) {
			t.Errorf("goroutine %d: recorded events are not a prefix of its account", g)
		}
		if len(evs) < len(w) {
			cut++
		} else if stopped {
			t.Errorf("goroutine %d: a stop event after all its events", g)
		}
	}
	for g := range want {
		if _, ok := got[g]; !ok {
			cut++ // started after the limit: nothing recorded
		}
	}
	// Goroutines go on into the chunk they have, so some record all their
	// events; those cut short end with a stop event where their chunk has
	// a byte left.
	if cut == 0 || stops == 0 {
		t.Errorf("%d goroutines cut short, %d stop events: the limit should cut some", cut, stops)
	}
}

// TestWPPOff: with no profile directory, frames are zero and recording
// costs nothing but the check.
func TestWPPOff(t *testing.T) {
	if os.Getenv("PATHCOVERDIR") != "" {
		t.Skip("PATHCOVERDIR is set")
	}
	f := rt.WPPCode(0).Enter()
	f.Path(3)
	f.Return()
	if f != (rt.WPPFrame{}) {
		t.Errorf("frame %+v, want zero", f)
	}
	_ = time.Now
}

// BenchmarkWPPPath measures one path event of a recording goroutine.
func BenchmarkWPPPath(b *testing.B) {
	dir := b.TempDir()
	os.Setenv("PATHCOVERDIR", dir)
	defer os.Unsetenv("PATHCOVERDIR")
	codes := rt.WPPRegister(strings.Repeat("ef", 16), 0, 2)
	f := codes[1].Enter()
	for i := 0; b.Loop(); i++ {
		f.Path(uint64(i & 63))
	}
}

// TestWPPInlined checks that the compiler inlines the fast paths of the
// records that instrumented code makes most (rt/wpp.go): their cost is
// what a -wpp build adds to every path and return; and that of a residual
// path's count (ResidualHead.Slot).
func TestWPPInlined(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rt")
	}
	out, err := exec.Command("go", "build", "-tags", "pathcover_rt,pathcover_stockruntime", "-gcflags=-m", "-o", os.DevNull, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, fn := range []string{"WPPFrame.TryPath", "WPPFrame.TryPathReturn", "WPPFrame.TryReturn", "putCode", "(*ResidualHead).Slot"} {
		if !strings.Contains(string(out), ": can inline "+fn+"\n") {
			t.Errorf("the compiler does not inline %s:\n%s", fn, out)
		}
	}
	// TryEnter reads the g's field through the patched runtime, whose
	// load costs the inliner 4 more than ring_stock.go's stand-in (7
	// against 3, with Go 1.26): it must leave that room under the budget.
	out, err = exec.Command("go", "build", "-tags", "pathcover_rt,pathcover_stockruntime", "-gcflags=-m=2", "-o", os.DevNull, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`: can inline WPPCode\.TryEnter with cost (\d+) `).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the compiler does not inline WPPCode.TryEnter:\n%s", out)
	}
	if cost, _ := strconv.Atoi(string(m[1])); cost > 80-8 {
		t.Errorf("WPPCode.TryEnter costs the inliner %d, too close to its budget of 80 for the patched runtime's field", cost)
	}
}

// FuzzUvarintCode checks the codes that records are written from (one
// store of up to 7 bytes) against encoding/binary's uvarints.
func FuzzUvarintCode(f *testing.F) {
	for _, x := range []uint64{0, 1, 127, 128, 1<<14 - 1, 1 << 14, 1<<49 - 1} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x uint64) {
		x &= 1<<49 - 1 // the codes' domain: 7 bytes
		code := rt.UvarintCode(x)
		want := binary.AppendUvarint(nil, x)
		n := int(code >> 56)
		got := binary.LittleEndian.AppendUint64(nil, code)[:n]
		if !bytes.Equal(got, want) || code&^(1<<(8*n)-1)&^(0xff<<56) != 0 {
			t.Errorf("uvarintCode(%d) = %#x: bytes % x, want % x", x, code, got, want)
		}
	})
}
