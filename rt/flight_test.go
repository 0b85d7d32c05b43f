//go:build unix

package rt_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/pathcover/pathcover/profile"
	"github.com/pathcover/pathcover/rt"
)

// The flight helper records paths through rt as generated code does, on
// many goroutines, and keeps its own account of them, which the tests
// compare with what profile reads from the file. Goroutines are told apart
// by runtime.Stack's ids (stackGoroutine), not by pppexec's accessor.
func init() {
	helpers["flight"] = flightHelper
}

// The helper's two packages: their metadata (any bytes do; rt writes them
// as they are) and their functions.
var flightPackages = []struct {
	meta  string
	funcs int
}{{`{"helper":"a"}`, 5}, {`{"helper":"b"}`, 3}}

const flightEntries = 64

// flightHelper registers the packages, runs $RT_FLIGHT_GOROUTINES
// goroutines that each record a random sequence of paths (some with ids
// of 2^40 or more, through PutLong), all at once or, with
// $RT_FLIGHT_REUSE, one after another on three g's; prints its account as
// JSON (goroutine → paths, oldest first); then ends as $RT_FLIGHT_END says.
func flightHelper() {
	var bases []uint64
	for _, p := range flightPackages {
		bases = append(bases, rt.FlightRegister(profile.Hash([]byte(p.meta)), p.meta, p.funcs, flightEntries, 0, ""))
	}
	n, _ := strconv.Atoi(os.Getenv("RT_FLIGHT_GOROUTINES"))
	reuse := os.Getenv("RT_FLIGHT_REUSE") != ""
	if reuse {
		// Goroutines share three g's, as the runtime reuses them.
		rt.SetTestGoroutine(func() (uintptr, uint64, uint64) {
			g, goid, parent := stackGoroutine()
			return g % 3, goid, parent
		})
		defer rt.SetTestGoroutine(stackGoroutine)
	}
	var mu sync.Mutex
	account := make(map[uint64][]profile.FlightPath)
	record := func(seed uint64) {
		r := rand.New(rand.NewPCG(seed, 1))
		_, goid, _ := stackGoroutine()
		ring := rt.Ring()
		var paths []profile.FlightPath
		for range r.IntN(300) {
			pkg := r.IntN(len(flightPackages))
			fn := r.IntN(flightPackages[pkg].funcs)
			code := bases[pkg] + uint64(fn)<<40
			id := r.Uint64N(50)
			switch r.IntN(10) {
			case 0:
				id = rt.FlightLongID + r.Uint64N(1<<50)
				ring.PutLong(code, id)
			case 1:
				ring.PutLong(code, id)
			default:
				ring.Put(code + id)
			}
			paths = append(paths, profile.FlightPath{Hash: profile.Hash([]byte(flightPackages[pkg].meta)), Func: fn, ID: id})
		}
		mu.Lock()
		account[goid] = paths
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			record(uint64(i))
		}()
		if reuse {
			wg.Wait()
		}
	}
	wg.Wait()
	out, _ := json.Marshal(account)
	fmt.Println(string(out))
	_, goid, _ := stackGoroutine()
	switch os.Getenv("RT_FLIGHT_END") {
	case "snapshot":
		name, err := rt.WriteFlight()
		if err != nil {
			fmt.Println("error", err)
		}
		fmt.Println(name)
		rt.FlightExitHook(goid, false)
	case "fail":
		rt.FlightExitHook(goid, true)
		os.Exit(1)
	case "panic":
		msg := flightPanicMessage
		rt.FlightFatalHook(goid, 1, unsafe.Pointer(unsafe.StringData(msg)), len(msg), 11)
		os.Exit(2)
	default:
		rt.FlightExitHook(goid, false)
	}
}

// runFlightHelper runs the helper and returns its account, what it
// printed after it, its standard error and the profile directory.
func runFlightHelper(t *testing.T, env ...string) (account map[uint64][]profile.FlightPath, rest []string, stderr, dir string) {
	t.Helper()
	dir = t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"RT_HELPER=flight", "PATHCOVERDIR=" + dir}, env...)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, _ := cmd.Output()
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<26)
	if !sc.Scan() {
		t.Fatalf("helper printed nothing: %s", errb.String())
	}
	if err := json.Unmarshal(sc.Bytes(), &account); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		rest = append(rest, sc.Text())
	}
	return account, rest, errb.String(), dir
}

// checkRings checks that each ring of fl holds the last paths of its
// goroutine's account, in order; at least one ring must be a helper
// goroutine's.
func checkRings(t *testing.T, fl *profile.Flight, account map[uint64][]profile.FlightPath) {
	t.Helper()
	checked := 0
	defer func() {
		if checked == 0 {
			t.Error("no ring of the helper's goroutines")
		}
	}()
	for _, ring := range fl.Rings {
		want, ok := account[ring.Goid]
		if !ok {
			continue // the helper's main goroutine, which records nothing
		}
		entries := 0 // a long id takes two
		for _, p := range want {
			entries++
			if p.ID >= rt.FlightLongID {
				entries++
			}
		}
		if ring.Written != uint64(entries) {
			t.Errorf("goroutine %d: %d entries written, the account has %d", ring.Goid, ring.Written, entries)
		}
		// The ring holds the paths whose entries are among its last 64:
		// a long id cut in two at the oldest end is left out.
		kept, used := 0, 0
		for i := len(want) - 1; i >= 0; i-- {
			k := 1
			if want[i].ID >= rt.FlightLongID {
				k = 2
			}
			if used+k > flightEntries {
				break
			}
			used += k
			kept++
		}
		checked++
		if last := want[len(want)-kept:]; !slices.Equal(ring.Paths, last) {
			t.Errorf("goroutine %d: the ring's %d paths are not the account's last %d", ring.Goid, len(ring.Paths), len(last))
		}
	}
}

// TestFlightSnapshot: a snapshot holds every goroutine's last paths and
// names the goroutine that took it; the clean exit after it removes the
// live file but not the snapshot.
func TestFlightSnapshot(t *testing.T) {
	account, rest, stderr, dir := runFlightHelper(t, "RT_FLIGHT_GOROUTINES=32", "RT_FLIGHT_END=snapshot")
	if stderr != "" || len(rest) != 1 || strings.HasPrefix(rest[0], "error") {
		t.Fatalf("helper: %q, stderr %q", rest, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.flight"))
	if len(files) != 1 || files[0] != rest[0] {
		t.Fatalf("flight files %v, snapshot %s", files, rest[0])
	}
	fl, err := profile.ReadFlight(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if fl.State != profile.FlightSnapshot || fl.Goid == 0 || fl.Entries != flightEntries || len(fl.Packages) != 2 {
		t.Errorf("snapshot: state %v, goroutine %d, %d entries, %d packages", fl.State, fl.Goid, fl.Entries, len(fl.Packages))
	}
	if len(fl.Rings) < 32 {
		t.Errorf("%d rings for 32 goroutines", len(fl.Rings))
	}
	checkRings(t, fl, account)
	for _, p := range flightPackages {
		if _, err := os.Stat(filepath.Join(dir, profile.Hash([]byte(p.meta))+".meta")); err != nil {
			t.Error(err)
		}
	}
}

// flightPanicMessage is the message the helper's panic gives the hook.
const flightPanicMessage = "runtime error: index out of range [5] with length 3 — and a line\nmore"

// TestFlightEnds: a failed exit or a fatal hook leaves the live file,
// which says so and names the goroutine; a clean exit leaves none.
func TestFlightEnds(t *testing.T) {
	for _, tc := range []struct {
		end   string
		state profile.FlightState
	}{{"fail", profile.FlightFailedExit}, {"panic", profile.FlightPanic}, {"clean", profile.FlightRunning}} {
		t.Run(tc.end, func(t *testing.T) {
			account, _, _, dir := runFlightHelper(t, "RT_FLIGHT_GOROUTINES=8", "RT_FLIGHT_END="+tc.end)
			files, _ := filepath.Glob(filepath.Join(dir, "*.flight"))
			if tc.end == "clean" {
				if len(files) != 0 {
					t.Fatalf("a clean exit left %v", files)
				}
				return
			}
			if len(files) != 1 {
				t.Fatalf("flight files %v", files)
			}
			fl, err := profile.ReadFlight(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if fl.State != tc.state || fl.Goid == 0 || len(fl.Rings) < 8 {
				t.Errorf("state %v, goroutine %d, %d rings; want %v and the 8 goroutines' rings", fl.State, fl.Goid, len(fl.Rings), tc.state)
			}
			// The panic's message and signal, as the hook was given them;
			// an exit has none.
			if want, sig := flightPanicMessage, uint64(11); tc.end != "panic" {
				if fl.Message != "" || fl.Signal != 0 {
					t.Errorf("an exit's message %q, signal %d", fl.Message, fl.Signal)
				}
			} else if fl.Message != want || fl.Signal != sig {
				t.Errorf("message %q, signal %d; want %q, %d", fl.Message, fl.Signal, want, sig)
			}
			checkRings(t, fl, account)
		})
	}
}

// TestFlightReuse: goroutines that run one after another on the same g
// pass its ring on; the file holds the last goroutine's of each g.
func TestFlightReuse(t *testing.T) {
	account, _, _, dir := runFlightHelper(t, "RT_FLIGHT_GOROUTINES=12", "RT_FLIGHT_REUSE=1", "RT_FLIGHT_END=fail")
	files, _ := filepath.Glob(filepath.Join(dir, "*.flight"))
	if len(files) != 1 {
		t.Fatalf("flight files %v", files)
	}
	fl, err := profile.ReadFlight(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// Three g's (and the main goroutine's, which may share one).
	if len(fl.Rings) > 4 || len(fl.Rings) < 3 {
		t.Errorf("%d rings for 3 g's", len(fl.Rings))
	}
	checkRings(t, fl, account)
}

// TestFlightLimit: past $PATHCOVERFLIGHTMAX, goroutines get no ring and
// the header says so; no block lies past the limit, and the rings that
// were made are whole. 5000 bytes hold the header, the packages and one
// ring, less than the first extent that the file is grown by.
func TestFlightLimit(t *testing.T) {
	for _, limit := range []int{64 << 10, 5000} {
		t.Run(strconv.Itoa(limit), func(t *testing.T) {
			account, _, stderr, dir := runFlightHelper(t, "RT_FLIGHT_GOROUTINES=200", "RT_FLIGHT_END=fail", "PATHCOVERFLIGHTMAX="+strconv.Itoa(limit))
			files, _ := filepath.Glob(filepath.Join(dir, "*.flight"))
			if len(files) != 1 {
				t.Fatalf("flight files %v (stderr %q)", files, stderr)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > limit && strings.Trim(string(b[limit:]), "\x00") != "" {
				t.Fatalf("a file of %d bytes has blocks past its limit of %d", len(b), limit)
			}
			fl, err := profile.ParseFlight(b)
			if err != nil {
				t.Fatal(err)
			}
			if !fl.Full || len(fl.Rings) >= 200 || len(fl.Rings) == 0 {
				t.Errorf("full %v, %d rings for 200 goroutines", fl.Full, len(fl.Rings))
			}
			checkRings(t, fl, account)
		})
	}
}

// TestFlightOff: without a profile directory nothing is written, rings
// record into nowhere, and WriteFlight says why it cannot.
func TestFlightOff(t *testing.T) {
	if os.Getenv("PATHCOVERDIR") != "" {
		t.Skip("PATHCOVERDIR is set")
	}
	r := rt.Ring()
	for i := range 100 {
		r.Put(uint64(i))
	}
	if _, err := rt.WriteFlight(); err == nil || !strings.Contains(err.Error(), "records no flight") {
		t.Errorf("WriteFlight: %v", err)
	}
}

// TestFlightInlined checks that the compiler inlines Put, which a
// -flight build calls once per path. (Ring, once per call, is inlined
// only against the runtime that pppexec patches, where it is one call of
// runtime.PathcoverFlightRing: cmd/pppexec's tests build with it.)
func TestFlightInlined(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rt")
	}
	out, err := exec.Command("go", "build", "-tags", "pathcover_rt,pathcover_stockruntime", "-gcflags=-m", "-o", os.DevNull, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, fn := range []string{"(*FlightRing).Put"} {
		if !strings.Contains(string(out), ": can inline "+fn+"\n") {
			t.Errorf("the compiler does not inline %s", fn)
		}
	}
}

// BenchmarkFlightPut measures one path recorded in a goroutine's ring.
func BenchmarkFlightPut(b *testing.B) {
	r := rt.Ring()
	for i := 0; b.Loop(); i++ {
		r.Put(1<<40 + uint64(i&63))
	}
}
