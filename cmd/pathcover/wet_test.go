package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/profile"
)

// profileMeta parses a metadata file's content.
func profileMeta(t *testing.T, content []byte) *profile.Meta {
	t.Helper()
	data, err := profile.MetaJSON(content)
	if err != nil {
		t.Fatal(err)
	}
	m, err := profile.ParseMeta(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWETCommands builds testdata/values with pathcover pppexec -wet,
// runs it, and queries its whole execution trace: the values of a
// variable against the program's own log of them, the trace both ways, a
// statement's memory accesses, and the errors.
func TestWETCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := cmdtest.ReadFile(t, "../../testdata/values/main.go")
	cmdtest.WriteFiles(t, dir, map[string]string{
		"go.mod":       "module example.com/values\n\ngo 1.25\n",
		"main.go":      src,
		"iter.go":      cmdtest.ReadFile(t, "../../testdata/values/iter.go"),
		"logv/logv.go": cmdtest.ReadFile(t, "../../testdata/values/logv/logv.go"),
	})
	exe := filepath.Join(t.TempDir(), "values")
	if out, code := run(t, dir, "go", "build", "-toolexec="+wetToolexec(), "-o", exe, "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	prof := t.TempDir()
	logged, code := cmdtest.Run(t, dir, []string{"PATHCOVERDIR=" + prof}, exe)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, logged)
	}
	out, code := run(t, dir, bin, "wet", "build", "-dir", prof)
	if code != 0 || !strings.Contains(out, "statement executions") {
		t.Fatalf("wet build: exit %d\n%s", code, out)
	}

	// values: loops's acc, in order, as the program logged them (words of
	// signed integers): twice in one path execution in some rounds.
	var want []string
	for _, line := range strings.Split(logged, "\n") {
		if w, ok := strings.CutPrefix(line, "acc "); ok {
			u, _ := strconv.ParseUint(w, 10, 64)
			want = append(want, strconv.FormatInt(int64(u), 10))
		}
	}
	out, code = run(t, dir, bin, "wet", "values", "-json", "-dir", prof, "loops", "acc")
	var vals []struct{ Value string }
	if code != 0 || json.Unmarshal([]byte(out), &vals) != nil {
		t.Fatalf("wet values: exit %d\n%s", code, out)
	}
	var got []string
	for _, v := range vals {
		got = append(got, v.Value)
	}
	if len(got) < 5 || !slices.Equal(got, want) {
		t.Errorf("wet values loops acc: %v, logged %v", got, want)
	}

	// trace: the first 30 events forwards, then back from the 30th.
	type events struct{ Events []map[string]any }
	var fwd, back events
	out, code = run(t, dir, bin, "wet", "trace", "-json", "-n", "30", "-dir", prof)
	if code != 0 || json.Unmarshal([]byte(out), &fwd) != nil || len(fwd.Events) != 30 || fwd.Events[0]["Kind"] != "enter" {
		t.Fatalf("wet trace: exit %d\n%s", code, out)
	}
	var last float64 = -1
	for _, e := range fwd.Events {
		if e["Kind"] == "path" {
			last = e["T"].(float64)
		}
	}
	out, code = run(t, dir, bin, "wet", "trace", "-json", "-back", "-t", fmt.Sprint(last), "-n", "5", "-dir", prof)
	if code != 0 || json.Unmarshal([]byte(out), &back) != nil || len(back.Events) != 5 || back.Events[0]["T"] != last {
		t.Fatalf("wet trace -back -t %v: exit %d\n%s", last, code, out)
	}

	// addrs: `one := 1` stores a variable whose address is taken.
	line := slices.IndexFunc(strings.Split(src, "\n"), func(l string) bool { return strings.Contains(l, "one := 1") }) + 1
	out, code = run(t, dir, bin, "wet", "addrs", "-dir", prof, "main.go:"+strconv.Itoa(line))
	if code != 0 || !strings.Contains(out, "store of 8 bytes") {
		t.Errorf("wet addrs main.go:%d: exit %d\n%s", line, code, out)
	}

	// writer: stores's return reads out[0], which its loop's first round
	// wrote, after a branch.
	lines := strings.Split(src, "\n")
	ret := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "return out[0]") }) + 1
	store := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "out[i] = v") }) + 1
	out, code = run(t, dir, bin, "wet", "writer", "-json", "-dir", prof, "main.go:"+strconv.Itoa(ret))
	var wr struct {
		Access struct{ T uint64 }
		Writer struct {
			Line int
			T    uint64
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &wr) != nil || wr.Writer.Line != store {
		t.Fatalf("wet writer main.go:%d: exit %d\n%s", ret, code, out)
	}
	out, code = run(t, dir, bin, "wet", "addrs", "-json", "-dir", prof, "main.go:"+strconv.Itoa(store))
	var stores []struct{ T uint64 }
	if code != 0 || json.Unmarshal([]byte(out), &stores) != nil || len(stores) != 2 || wr.Writer.T != stores[0].T {
		t.Errorf("the writer of out[0] is at t=%d; the stores of out[i]: exit %d\n%s", wr.Writer.T, code, out)
	}

	// A map's keys: keys sets "a" and "b", "a" again, then "b" again,
	// and reads "a": key 1 of the map, whose writer is its second set, not
	// the last write to the map.
	at := func(text string) int { return slices.Index(lines, text) + 1 }
	read, setA, setB := at("\tv := m[\"a\"]"), at("\tm[\"a\"] = 3"), at("\tm[\"b\"] = 4")
	out, code = run(t, dir, bin, "wet", "addrs", "-dir", prof, "main.go:"+strconv.Itoa(setB))
	if code != 0 || !strings.Contains(out, "map write of key 2 of the map at ") {
		t.Errorf("wet addrs main.go:%d (m[\"b\"] = 4): exit %d\n%s", setB, code, out)
	}
	out, code = run(t, dir, bin, "wet", "writer", "-dir", prof, "main.go:"+strconv.Itoa(read))
	_, writer, _ := strings.Cut(out, "last written by ")
	if code != 0 || !strings.Contains(out, "map read of key 1 of the map at ") || !strings.Contains(writer, fmt.Sprintf(":%d:", setA)) || !strings.Contains(writer, "map write of key 1") {
		t.Errorf("wet writer main.go:%d (v := m[\"a\"]), want the write at line %d: exit %d\n%s", read, setA, code, out)
	}
	out, code = run(t, dir, bin, "wet", "writer", "-json", "-dir", prof, "main.go:"+strconv.Itoa(read))
	var mw struct {
		Access struct{ Key, Addr uint64 }
		Writer struct {
			Line      int
			Key, Addr uint64
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &mw) != nil || mw.Writer.Line != setA || mw.Access.Key != 1 || mw.Writer.Key != 1 || mw.Writer.Addr != mw.Access.Addr {
		t.Errorf("wet writer -json main.go:%d: want key 1, written at line %d: exit %d\n%s", read, setA, code, out)
	}

	// Errors.
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"wet", "values", "-dir", prof, "nosuch", "x"}, exitNoData},
		{[]string{"wet", "trace", "-dir", prof, "-g", "99"}, exitNoData},
		{[]string{"wet", "nosuch"}, 2},
		{[]string{"wet", "addrs", "-dir", prof, "main.go"}, 2},
		{[]string{"wet", "trace", "-dir", t.TempDir()}, exitNoData},
	} {
		if out, code := run(t, dir, bin, c.args...); code != c.code {
			t.Errorf("pathcover %s: exit %d, want %d\n%s", strings.Join(c.args, " "), code, c.code, out)
		}
	}
	// logv's metadata rejected: build and the queries name it, by hash,
	// with the reason, and exit non-zero, where they said nothing and
	// that logv's functions never ran.
	metas, _ := filepath.Glob(filepath.Join(prof, "*.meta"))
	var logvMeta string
	for _, m := range metas {
		if data, _ := os.ReadFile(m); profileMeta(t, data).Package == "example.com/values/logv" {
			logvMeta = m
		}
	}
	if logvMeta == "" {
		t.Fatalf("no metadata of logv among %v", metas)
	}
	hash := strings.TrimSuffix(filepath.Base(logvMeta), ".meta")
	if err := os.WriteFile(logvMeta, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	wpp := t.TempDir() // the TWPP of the same recordings, for wpp traces
	recs, _ := filepath.Glob(filepath.Join(prof, "*"))
	for _, r := range recs {
		if data, err := os.ReadFile(r); err == nil && filepath.Base(r) != "profile.wet" {
			os.WriteFile(filepath.Join(wpp, filepath.Base(r)), data, 0o644)
		}
	}
	if out, code := run(t, dir, bin, "wpp", "compact", "-dir", wpp); code != 0 {
		t.Fatalf("wpp compact: exit %d\n%s", code, out)
	}
	for _, c := range [][]string{
		{"wet", "build", "-dir", prof},
		{"wet", "values", "-dir", prof, "loops", "acc"}, // found, but another package may hold a loops
		{"wet", "values", "-dir", prof, "add", "name"},  // logv's
		{"wet", "addrs", "-dir", prof, "main.go:" + strconv.Itoa(store)},
		{"wet", "trace", "-dir", prof, "-n", "5"},
		{"wpp", "traces", "-dir", wpp, "add"},
		{"wpp", "traces", "-dir", wpp, "loops"},
	} {
		out, code := run(t, dir, bin, c...)
		if code != exitNoData || !strings.Contains(out, hash+".meta: ") || !strings.Contains(out, "metadata the profile lacks") {
			t.Errorf("pathcover %s, logv's metadata damaged: exit %d, want %d and the package named\n%s", strings.Join(c, " "), code, exitNoData, out)
		}
	}
	// slice refuses a recording that calls into a package without
	// metadata (package slice), naming its hash.
	for _, graph := range []string{"opt", "wet"} {
		out, code := run(t, dir, bin, "slice", "-dir", prof, "-graph", graph, "main.go:"+strconv.Itoa(store))
		if code != exitNoData || !strings.Contains(out, hash) {
			t.Errorf("pathcover slice -graph %s, logv's metadata damaged: exit %d, want %d and the package named\n%s", graph, code, exitNoData, out)
		}
	}
	os.WriteFile(filepath.Join(prof, "profile.wet"), []byte("pcovwet1 damaged"), 0o666)
	if out, code := run(t, dir, bin, "wet", "trace", "-dir", prof); code != exitNoData || !strings.Contains(out, "profile.wet") {
		t.Errorf("a damaged WET: exit %d\n%s", code, out)
	}
}

// TestWETDiff runs a program with three arguments and compares the runs:
// the same control flow and values, a value that differs, and a branch
// that differs.
func TestWETDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmdtest.WriteFiles(t, dir, map[string]string{
		"go.mod": "module example.com/d\n\ngo 1.25\n",
		"main.go": `package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args[1]) > 2 {
		fmt.Println("long")
		return
	}
	k := len(os.Args[1]) * 3
	fmt.Println(k)
}
`,
	})
	exe := filepath.Join(t.TempDir(), "d")
	if out, code := run(t, dir, "go", "build", "-toolexec="+wetToolexec(), "-o", exe, "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	profs := make(map[string]string)
	for _, arg := range []string{"a", "b", "bb", "ccc"} {
		prof := t.TempDir()
		if out, code := cmdtest.Run(t, dir, []string{"PATHCOVERDIR=" + prof}, exe, arg); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", arg, code, out)
		}
		if out, code := run(t, dir, bin, "wet", "build", "-dir", prof); code != 0 {
			t.Fatalf("wet build: exit %d\n%s", code, out)
		}
		profs[arg] = prof
	}
	if out, code := run(t, dir, bin, "wet", "diff", profs["a"], profs["b"]); code != 0 || !strings.Contains(out, "the same") {
		t.Errorf("wet diff a b: exit %d\n%s", code, out)
	}
	out, code := run(t, dir, bin, "wet", "diff", profs["a"], profs["bb"])
	if code != 1 || !strings.Contains(out, "k = 3") || !strings.Contains(out, "k = 6") {
		t.Errorf("wet diff a bb: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, bin, "wet", "diff", "-json", profs["a"], profs["ccc"])
	var d struct {
		Matched int
		A, B    struct {
			Func  string
			Steps []string
		}
	}
	if code != 1 || json.Unmarshal([]byte(out), &d) != nil || d.A.Func != "example.com/d.main" || slices.Equal(d.A.Steps, d.B.Steps) || len(d.A.Steps) == 0 {
		t.Errorf("wet diff a ccc: exit %d\n%s", code, out)
	}
}

// wetToolexec is the -toolexec of the WET tests' builds: one for all, so
// that they share the standard library, which each pppexec configuration
// compiles once.
func wetToolexec() string { return bin + " pppexec -wet -pkgs=example.com/..." }

// TestWETDiffEdits compares runs of versions of a program: edits that
// leave its behaviour alone (a literal spelled anew, lines inserted above
// and within the function, a local renamed) read as the same run, exit 0;
// a planted bug diverges at the branch it changes, both sides' conditions
// in their source.
func TestWETDiffEdits(t *testing.T) {
	t.Parallel()
	const base = `package main

import (
	"fmt"
	"os"
)

func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

func main() {
	fmt.Println(digits(os.Args[1]))
}
`
	versions := map[string]string{
		"base":     base,
		"literal":  strings.Replace(base, "<= '9'", "<= 0x39", 1),
		"inserted": strings.Replace(strings.Replace(base, "func digits", "// digits counts the digits of s.\n\nfunc digits", 1), "\tn := 0\n", "\t// none yet\n\tn := 0\n\n", 1),
		"renamed":  strings.ReplaceAll(base, "n++", "count++"),
		"bug":      strings.Replace(base, "<= '9'", "< '9'", 1),
	}
	versions["renamed"] = strings.Replace(strings.Replace(versions["renamed"], "n := 0", "count := 0", 1), "return n", "return count", 1)
	profs := make(map[string]string)
	for name, src := range versions {
		dir := t.TempDir()
		cmdtest.WriteFiles(t, dir, map[string]string{"go.mod": "module example.com/d\n\ngo 1.25\n", "main.go": src})
		exe := filepath.Join(t.TempDir(), "d")
		if out, code := run(t, dir, "go", "build", "-toolexec="+wetToolexec(), "-o", exe, "."); code != 0 {
			t.Fatalf("go build %s: exit %d\n%s", name, code, out)
		}
		prof := t.TempDir()
		if out, code := cmdtest.Run(t, dir, []string{"PATHCOVERDIR=" + prof}, exe, "a9b3"); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", name, code, out)
		}
		if out, code := run(t, dir, bin, "wet", "build", "-dir", prof); code != 0 {
			t.Fatalf("wet build %s: exit %d\n%s", name, code, out)
		}
		profs[name] = prof
	}
	for _, name := range []string{"literal", "inserted", "renamed"} {
		if out, code := run(t, t.TempDir(), bin, "wet", "diff", profs["base"], profs[name]); code != 0 || !strings.Contains(out, "the runs do the same") {
			t.Errorf("wet diff of base and %s: exit %d, want 0 and the same\n%s", name, code, out)
		}
	}
	// The bug: '9' is no digit for it, the second round's condition is
	// false where it was true.
	out, code := run(t, t.TempDir(), bin, "wet", "diff", profs["base"], profs["bug"])
	want := []string{"the runs diverge", "A (", "s[i] >= '0' && s[i] <= '9' is true", "B (", "s[i] >= '0' && s[i] < '9' is false"}
	if code != 1 || !containsInOrder(out, want) {
		t.Errorf("wet diff of base and bug: exit %d, want 1 and %q in order\n%s", code, want, out)
	}
}
