package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/query/slice"
	"github.com/pathcover/pathcover/profile"
)

// sliceModule has a test that fails: Sum multiplies by the sign where it
// should have taken it.
var sliceModule = map[string]string{
	"s.go": `package s

func Sign(x int) int {
	if x < 0 {
		return -1
	}
	return 1
}

func Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += Sign(x) * x
	}
	return total
} // </pre><script>alert(1)</script> & "quotes"
`,
	"s_test.go": `package s

import "testing"

func TestSum(t *testing.T) {
	got := Sum([]int{-2, 3})
	if got != 1 {
		t.Fatalf("Sum = %d", got)
	}
}

func TestOther(t *testing.T) {
	t.Run("four", func(t *testing.T) {
		if Sum([]int{4}) != 4 {
			t.Fatal("Sum of 4")
		}
	})
}
`,
}

// TestSliceCommand runs the documented workflow: pathcover test -deps on a
// test, then pathcover slice on its assertion's line, as text, -why and
// -json; and the errors a user can meet.
func TestSliceCommand(t *testing.T) {
	t.Parallel()
	dir := module(t, sliceModule)
	prof := t.TempDir()
	out, code := run(t, dir, bin, "test", "-deps", "-dir", prof, "-run", "TestSum", "./...")
	// The test fails (as the workflow expects): go test's exit status.
	if code != 1 || !strings.Contains(out, "Sum = 5") || !strings.Contains(out, "pathcover slice -dir "+prof) {
		t.Fatalf("pathcover test -deps: exit %d\n%s", code, out)
	}
	// The recording knows its test: TestSum ran on a goroutine it
	// recorded, and ended (failed) before the process did.
	wpps, err := profile.Need(prof, profile.KindWPP, "")
	if err != nil || len(wpps) != 1 {
		t.Fatalf("recordings %v (%v)", wpps, err)
	}
	f, err := profile.OpenWPP(wpps[0])
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if len(f.Tests) != 1 || f.Tests[0].Name != "TestSum" || !f.Tests[0].Ended || !slices.Contains(f.Goroutines(), f.Tests[0].Goroutine) {
		t.Errorf("the recording's tests %+v, want TestSum, ended, on a goroutine it recorded %v", f.Tests, f.Goroutines())
	}
	out, code = run(t, dir, bin, "slice", "-dir", prof, "s_test.go:7", "got")
	if code != 0 {
		t.Fatalf("slice: exit %d\n%s", code, out)
	}
	// The first slice keeps the compact graph beside the recording; the
	// next read it, and say nothing of it.
	if ddg := profile.DerivedPath(prof, profile.KindDDG); !strings.Contains(out, "kept it in "+ddg) || !exists(ddg) {
		t.Errorf("the first slice did not keep the compact graph in %s:\n%s", ddg, out)
	}
	if again, code := run(t, dir, bin, "slice", "-dir", prof, "s_test.go:7", "got"); code != 0 || strings.Contains(again, "compact graph") || !strings.Contains(again, "[total] total += Sign(x) * x") {
		t.Errorf("the second slice: exit %d\n%s", code, again)
	}
	// got comes from Sum's total: its loop, Sign's returns, the call.
	if out, code = run(t, dir, bin, "slice", "-dir", prof, "-list", "s_test.go:7", "got"); code != 0 {
		t.Fatalf("slice -list: exit %d\n%s", code, out)
	}
	for _, want := range []string{"s_test.go:5:", "s_test.go:6:", "s.go:10:", "s.go:11:", "s.go:12:", "s.go:13:", "s.go:15:", "s.go:3:", "s.go:4:", "s.go:5:", "s.go:7:"} {
		if !strings.Contains(out, want) {
			t.Errorf("slice lacks %s:\n%s", want, out)
		}
	}
	for _, not := range []string{"s_test.go:8:", "stops at"} {
		if strings.Contains(out, not) {
			t.Errorf("slice holds %s:\n%s", not, out)
		}
	}

	out, code = run(t, dir, bin, "slice", "-dir", prof, "-why", "s_test.go:7", "got")
	if code != 0 || !strings.Contains(out, "[got, for 0]") || !strings.Contains(out, "[result, for ") {
		t.Errorf("slice -why: exit %d\n%s", code, out)
	}
	// Each graph gives the same slice, steps and all; -maxnodes limits
	// only the full graph.
	for _, graph := range []string{"opt", "fp", "lp"} {
		got, code := run(t, dir, bin, "slice", "-dir", prof, "-graph", graph, "-maxnodes", "1000", "-why", "s_test.go:7", "got")
		if code != 0 || got != out {
			t.Errorf("slice -graph %s -why: exit %d\n%s\nthe default's:\n%s", graph, code, got, out)
		}
	}
	if got, code := run(t, dir, bin, "slice", "-dir", prof, "-maxnodes", "5", "-why", "s_test.go:7", "got"); code != 0 || got != out {
		t.Errorf("slice -maxnodes 5 (the compact graph): exit %d\n%s", code, got)
	}

	page := filepath.Join(t.TempDir(), "slice.html")
	if out, code := run(t, dir, bin, "slice", "-dir", prof, "-html", page, "s_test.go:7", "got"); code != 0 {
		t.Fatalf("slice -html: exit %d\n%s", code, out)
	}
	html := cmdtest.ReadFile(t, page)
	for _, want := range []string{`class="crit"><span class="ln">7</span>`, `class="in"><span class="ln">13</span>`, "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;quotes&#34;",
		// The chain, as the text writes it.
		"<b>in m.Sum (s.go)</b>", "[total] total &#43;= Sign(x) * x</td><td>×2</td>"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(html, "<script>") {
		t.Error("the page holds a script tag from the source")
	}
	if strings.Contains(html, dir) || !strings.Contains(html, "<h2>s.go</h2>") {
		t.Error("the page names the module's files by this machine's directory, not from the module's root")
	}

	out, code = run(t, dir, bin, "slice", "-dir", prof, "-json", "s.go:13", "total")
	var s struct {
		Criterion     int
		Instances     int
		RunExecutions int
		Stmts         []struct {
			File, Func string
			Line       int
		}
		Steps []struct{ Via string }
	}
	if err := json.Unmarshal([]byte(out), &s); code != 0 || err != nil {
		t.Fatalf("slice -json: exit %d, %v\n%s", code, err, out)
	}
	if s.Instances != 2 || len(s.Stmts) == 0 || len(s.Steps) == 0 {
		t.Errorf("slice -json: %d instances (want 2, one a loop round), %d statements, %d steps", s.Instances, len(s.Stmts), len(s.Steps))
	}
	// The run's size, which the text says too: the criterion is one of
	// its nodes, and the slice a part of them.
	if s.RunExecutions <= s.Criterion || s.RunExecutions < len(s.Steps) {
		t.Errorf("slice -json: a run of %d statement executions, criterion node %d, %d steps", s.RunExecutions, s.Criterion, len(s.Steps))
	}
	if text, _ := run(t, dir, bin, "slice", "-dir", prof, "s.go:13", "total"); !strings.Contains(text, fmt.Sprintf(" statement executions of the run's %d\n", s.RunExecutions)) {
		t.Errorf("slice: the text does not give the run's %d statement executions:\n%s", s.RunExecutions, text)
	}
	out, code = run(t, dir, bin, "slice", "-dir", prof, "-instance", "1", "-json", "s.go:13", "total")
	var first struct {
		Instance, Instances int
		Stmts               []struct{ Line int }
	}
	if err := json.Unmarshal([]byte(out), &first); code != 0 || err != nil || len(first.Stmts) >= len(s.Stmts) || first.Instance != 1 || first.Instances != 2 {
		t.Errorf("slice -instance 1: exit %d, %v: execution %d of %d, %d statements, the last round's %d", code, err, first.Instance, first.Instances, len(first.Stmts), len(s.Stmts))
	}
	if out, code := run(t, dir, bin, "slice", "-dir", prof, "-instance", "1", "s.go:13", "total"); code != 0 || !strings.Contains(out, "slice of execution 1 of 2:") {
		t.Errorf("slice -instance 1: exit %d\n%s", code, out)
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"slice", "-dir", prof, "s.go"}, 2, "not FILE:LINE"},
		{[]string{"slice", "-dir", prof, "s.go:0"}, 2, "not FILE:LINE"},
		{[]string{"slice", "-dir", prof, "s.go:2"}, exitNoData, "no statement at s.go:2 ran"},
		{[]string{"slice", "-dir", prof, "-instance", "3", "s.go:13"}, exitNoData, "ran 2 times"},
		{[]string{"slice", "-dir", t.TempDir(), "s.go:13"}, exitNoData, "holds no recording"},
		{[]string{"slice", "-dir", prof, "-graph", "fp", "-maxnodes", "5", "s.go:13"}, exitNoData, "too many statement executions"},
		{[]string{"slice", "-dir", prof, "-graph", "full", "s.go:13"}, 2, "-graph"},
		{[]string{"slice", "-dir", prof, "-graph", "lp", "-instance", "3", "s.go:13"}, exitNoData, "ran 2 times"},
	} {
		out, code := run(t, dir, bin, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.msg) {
			t.Errorf("pathcover %s: exit %d, want %d with %q:\n%s", strings.Join(tc.args, " "), code, tc.code, tc.msg, out)
		}
	}

	// A recording of both tests: a slice of one of them (-test) counts
	// its executions alone, and is the slice of that test recorded alone.
	suite := t.TempDir()
	if out, code := run(t, dir, bin, "test", "-deps", "-dir", suite, "./..."); code != 1 {
		t.Fatalf("pathcover test -deps ./...: exit %d\n%s", code, out)
	}
	instances := func(args ...string) int {
		t.Helper()
		out, code := run(t, dir, bin, append([]string{"slice", "-dir", suite, "-json"}, args...)...)
		var s struct{ Instances int }
		if err := json.Unmarshal([]byte(out), &s); code != 0 || err != nil {
			t.Fatalf("slice %s: exit %d, %v\n%s", args, code, err, out)
		}
		return s.Instances
	}
	for _, tc := range []struct {
		test string
		want int
	}{{"", 3}, {"TestSum", 2}, {"TestOther", 1}, {"TestOther/four", 1}} {
		args := []string{"s.go:13", "total"}
		if tc.test != "" {
			args = append([]string{"-test", tc.test}, args...)
		}
		if n := instances(args...); n != tc.want {
			t.Errorf("slice -test %q s.go:13: %d executions, want %d", tc.test, n, tc.want)
		}
	}
	// The whole program paths of one test: Sign ran twice in TestSum
	// (-2, 3) and once in TestOther/four.
	if out, code := run(t, dir, bin, "wpp", "compact", "-dir", suite); code != 0 {
		t.Fatalf("wpp compact: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		test  string
		calls uint64
	}{{"", 3}, {"TestSum", 2}, {"TestOther", 1}, {"TestOther/four", 1}} {
		args := []string{"wpp", "traces", "-dir", suite, "-json"}
		if tc.test != "" {
			args = append(args, "-test", tc.test)
		}
		out, code := run(t, dir, bin, append(args, "Sign")...)
		var ts struct{ Calls uint64 }
		if err := json.Unmarshal([]byte(out), &ts); code != 0 || err != nil || ts.Calls != tc.calls {
			t.Errorf("wpp traces -test %q Sign: exit %d, %d calls, want %d (%v)\n%s", tc.test, code, ts.Calls, tc.calls, err, out)
		}
	}
	if out, code := run(t, dir, bin, "wpp", "traces", "-dir", suite, "-test", "TestNope", "Sign"); code != exitNoData || !strings.Contains(out, "its tests are TestOther, TestSum") {
		t.Errorf("wpp traces -test TestNope: exit %d\n%s", code, out)
	}
	for _, graph := range []string{"opt", "fp", "lp"} {
		out, code := run(t, dir, bin, "slice", "-dir", prof, "-graph", graph, "-json", "s.go:13", "total")
		sum, code2 := run(t, dir, bin, "slice", "-dir", suite, "-graph", graph, "-test", "TestSum", "-json", "s.go:13", "total")
		var a, b struct{ Stmts []slice.Stmt }
		if code != 0 || code2 != 0 || json.Unmarshal([]byte(out), &a) != nil || json.Unmarshal([]byte(sum), &b) != nil || !reflect.DeepEqual(a.Stmts, b.Stmts) || len(a.Stmts) == 0 {
			t.Errorf("-graph %s: the slice of TestSum in the suite's recording\n%s\nTestSum's alone\n%s", graph, sum, out)
		}
	}
	if out, code := run(t, dir, bin, "slice", "-dir", suite, "-test", "TestNope", "s.go:13"); code != exitNoData || !strings.Contains(out, "ran TestOther, TestSum") {
		t.Errorf("slice -test TestNope: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "slice", "-dir", suite, "-test", "TestOther", "s_test.go:7"); code != exitNoData || !strings.Contains(out, "no statement at s_test.go:7 ran in test TestOther") {
		t.Errorf("slice -test TestOther of TestSum's line: exit %d\n%s", code, out)
	}

	// A profile of a build without -deps.
	plain := t.TempDir()
	if out, code := run(t, dir, bin, "test", "-wpp", "-dir", plain, "./..."); code != 1 {
		t.Fatalf("pathcover test -wpp: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "slice", "-dir", plain, "s.go:13"); code != exitNoData || !strings.Contains(out, "not recorded by a -deps build") {
		t.Errorf("slice of a -wpp profile: exit %d\n%s", code, out)
	}
}

// valuesModule's test fails; Squares prints each total it makes, which
// is what slice -why must show at the loop's statement.
var valuesModule = map[string]string{
	"s.go": `package s

import "fmt"

func Squares(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x * x
		fmt.Println("x", x, "total", total)
	}
	return total
}
`,
	"s_test.go": `package s

import "testing"

func TestSquares(t *testing.T) {
	got := Squares([]int{2, 3, 4, -5})
	if got != 0 {
		t.Fatalf("Squares = %d", got)
	}
}

func TestOne(t *testing.T) {
	t.Run("six", func(t *testing.T) {
		if Squares([]int{6}) != 36 {
			t.Fatal("six")
		}
	})
}
`,
}

// TestWETOfOneTest queries the WET of a recording of two tests for one
// of them (-test): the totals wet values gives at the loop's line are
// those the test's own calls printed.
func TestWETOfOneTest(t *testing.T) {
	t.Parallel()
	dir := module(t, valuesModule)
	prof := t.TempDir()
	out, code := run(t, dir, bin, "test", "-wet", "-dir", prof, "./...")
	if code != 1 {
		t.Fatalf("pathcover test -wet: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "wet", "build", "-dir", prof); code != 0 {
		t.Fatalf("wet build: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		test   string
		totals []string // printed by the program: x 2 total 4, ...
	}{{"", []string{"4", "13", "29", "54", "36"}}, {"TestSquares", []string{"4", "13", "29", "54"}}, {"TestOne", []string{"36"}}, {"TestOne/six", []string{"36"}}} {
		args := []string{"wet", "values", "-dir", prof, "-json"}
		if tc.test != "" {
			args = append(args, "-test", tc.test)
		}
		out, code := run(t, dir, bin, append(args, "Squares", "total")...)
		var vals []struct {
			Value string
			Line  int
		}
		if err := json.Unmarshal([]byte(out), &vals); code != 0 || err != nil {
			t.Fatalf("wet values -test %q: exit %d, %v\n%s", tc.test, code, err, out)
		}
		var got []string
		for _, v := range vals {
			if v.Line == 8 {
				got = append(got, v.Value)
			}
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.totals))
		if !slices.Equal(got, want) {
			t.Errorf("wet values -test %q Squares total at line 8: %q, want %q", tc.test, got, want)
		}
	}
	// The goroutine that ran TestOne/six called Squares.
	out, code = run(t, dir, bin, "wet", "trace", "-dir", prof, "-test", "TestOne/six", "-json")
	if code != 0 || !strings.Contains(out, "Squares") || strings.Contains(out, "TestSquares") {
		t.Errorf("wet trace -test TestOne/six: exit %d\n%s", code, out)
	}
	// Its name, as the text prints it, is the program's number for it
	// and the -g that gives it again.
	var traced struct{ Goroutine uint64 }
	json.Unmarshal([]byte(out), &traced)
	out, _ = run(t, dir, bin, "wet", "trace", "-dir", prof, "-test", "TestOne/six", "-n", "1")
	m := regexp.MustCompile(`goroutine (\d+) of process \d+ \(-g (\d+)\)`).FindStringSubmatch(out)
	if m == nil || m[1] != fmt.Sprint(traced.Goroutine) {
		t.Errorf("wet trace -test TestOne/six names goroutine %d (JSON) as\n%s", traced.Goroutine, out)
	} else if again, _ := run(t, dir, bin, "wet", "trace", "-dir", prof, "-g", m[2], "-n", "1"); !strings.Contains(again, m[0]) {
		t.Errorf("wet trace -g %s does not name %q:\n%s", m[2], m[0], again)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"wet", "values", "-dir", prof, "-test", "TestNope", "Squares", "total"}, exitNoData, "its tests are TestOne, TestSquares"},
		{[]string{"wet", "addrs", "-dir", prof, "-test", "TestNope", "s.go:8"}, exitNoData, "no test TestNope"},
		{[]string{"wet", "trace", "-dir", prof, "-g", "0", "-test", "TestOne"}, 2, "give one"},
	} {
		if out, code := run(t, dir, bin, tc.args...); code != tc.code || !strings.Contains(out, tc.msg) {
			t.Errorf("pathcover %s: exit %d, want %d with %q\n%s", strings.Join(tc.args, " "), code, tc.code, tc.msg, out)
		}
	}
	// TestOne's input changed, in place (so that the paths' files are
	// the same): wet diff -test finds TestSquares the same and TestOne
	// diverging in a value.
	edited := strings.Replace(valuesModule["s_test.go"], "Squares([]int{6}) != 36", "Squares([]int{7}) != 49", 1)
	if err := os.WriteFile(filepath.Join(dir, "s_test.go"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	prof2 := t.TempDir()
	if out, code := run(t, dir, bin, "test", "-wet", "-dir", prof2, "./..."); code != 1 {
		t.Fatalf("pathcover test -wet of the edited module: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "wet", "build", "-dir", prof2); code != 0 {
		t.Fatalf("wet build: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "wet", "diff", "-test", "TestSquares", prof, prof2); code != 0 || !strings.Contains(out, "the runs do the same") {
		t.Errorf("wet diff -test TestSquares: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "wet", "diff", "-test", "TestOne", prof, prof2); code != 1 || !regexp.MustCompile(`diverge of test TestOne in A's goroutine \d+ of process \d+ \(-g \d+\) and B's goroutine \d+ of process \d+ \(-g \d+\)`).MatchString(out) {
		t.Errorf("wet diff -test TestOne: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, bin, "wet", "diff", "-test", "TestOne", "-json", prof, prof2)
	var d struct {
		A, B struct{ Value *struct{ Var string } }
	}
	if err := json.Unmarshal([]byte(out), &d); code != 1 || err != nil || d.A.Value == nil || d.B.Value == nil || d.A.Value.Var != d.B.Value.Var {
		t.Errorf("wet diff -test TestOne: exit %d, %v: want a value that differs\n%s", code, err, out)
	}
	if out, code := run(t, dir, bin, "wet", "diff", "-test", "TestNope", prof, prof2); code != exitNoData || !strings.Contains(out, "no test TestNope") {
		t.Errorf("wet diff -test TestNope: exit %d\n%s", code, out)
	}
}

// TestSliceValues checks the values a -wet recording gives a slice's
// steps against what the program printed of them itself.
func TestSliceValues(t *testing.T) {
	t.Parallel()
	dir := module(t, valuesModule)
	prof := t.TempDir()
	out, code := run(t, dir, bin, "test", "-wet", "-dir", prof, "-run", "TestSquares", "./...")
	printed := regexp.MustCompile(`(?m)^x (-?\d+) total (-?\d+)$`).FindAllStringSubmatch(out, -1)
	sum := regexp.MustCompile(`Squares = (-?\d+)`).FindStringSubmatch(out)
	if code != 1 || len(printed) != 4 || sum == nil || !strings.Contains(out, "pathcover slice -dir "+prof+" -why") {
		t.Fatalf("pathcover test -wet: exit %d\n%s", code, out)
	}
	var xs, totals []string
	for _, m := range printed {
		xs, totals = append(xs, m[1]), append(totals, m[2])
	}

	out, code = run(t, dir, bin, "slice", "-dir", prof, "-json", "s_test.go:7", "got")
	var s struct {
		Steps []struct {
			Stmt struct {
				File string
				Line int
			}
			Values []struct {
				Var, Text string
				After     bool
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &s); code != 0 || err != nil {
		t.Fatalf("slice -json: exit %d, %v\n%s", code, err, out)
	}
	// Each round's x and total, after the statements that made them; got,
	// made by the call's statement.
	var made, ranged, gotMade []string
	for _, st := range s.Steps {
		for _, v := range st.Values {
			switch {
			case filepath.Base(st.Stmt.File) == "s.go" && st.Stmt.Line == 8 && v.Var == "total" && v.After:
				made = append(made, v.Text)
			case filepath.Base(st.Stmt.File) == "s_test.go" && st.Stmt.Line == 6 && v.Var == "got" && v.After:
				gotMade = append(gotMade, v.Text)
			case filepath.Base(st.Stmt.File) == "s.go" && st.Stmt.Line == 7 && v.Var == "x" && v.After:
				ranged = append(ranged, v.Text)
			}
		}
	}
	for _, l := range [][]string{made, totals, ranged, xs} {
		slices.Sort(l)
	}
	if !slices.Equal(made, totals) || !slices.Equal(ranged, xs) {
		t.Errorf("the slice shows totals %q at s.go:8 and x %q at s.go:7, the program printed %q and %q\n%s", made, ranged, totals, xs, out)
	}
	if !slices.Equal(gotMade, []string{sum[1]}) {
		t.Errorf("got made %q, the test printed %s", gotMade, sum[1])
	}
	// -why shows them on the steps' lines; a -deps recording has none.
	out, code = run(t, dir, bin, "slice", "-dir", prof, "-why", "s_test.go:7", "got")
	if code != 0 || !strings.Contains(out, "  total="+printed[3][2]+"\n") {
		t.Errorf("slice -why: exit %d, no total=%s\n%s", code, printed[3][2], out)
	}
	// The chain, by default: each statement once, under the one that
	// needed it, with its source, its executions and its first values;
	// -list: the statements in source order.
	chain, code := run(t, dir, bin, "slice", "-dir", prof, "s_test.go:7", "got")
	want := []string{
		"in m.TestSquares (s_test.go)\n", "     7  if got != 0 {\n", "    [got] got := Squares([]int{2, 3, 4, -5})  got=" + sum[1] + "\n",
		"in m.Squares (s.go)\n", "      [result] return total\n", "        [total] total += x * x  ×4 total=" + printed[3][2] + "\n",
	}
	if code != 0 || !containsInOrder(chain, want) {
		t.Errorf("slice: exit %d, want %q in order\n%s", code, want, chain)
	}
	for line := range strings.Lines(chain) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 100 { // slicetext.go's lineWidth
			t.Errorf("slice: a line of %d columns: %q", n, line)
		}
	}
	if out, code := run(t, dir, bin, "slice", "-dir", prof, "-list", "s_test.go:7", "got"); code != 0 || !strings.Contains(out, "s.go:8:3 m.Squares ×4  total += x * x\n") {
		t.Errorf("slice -list: exit %d\n%s", code, out)
	}
	// The WET gives the same slice and values, the recording gone.
	names, _ := filepath.Glob(filepath.Join(prof, "*.wpp"))
	for _, name := range names {
		if err := os.Remove(name); err != nil {
			t.Fatal(err)
		}
	}
	if len(names) == 0 {
		t.Fatal("no recording")
	}
	if got, code := run(t, dir, bin, "slice", "-dir", prof, "-graph", "wet", "-why", "s_test.go:7", "got"); code != 0 || got != out {
		t.Errorf("slice -graph wet -why: exit %d\n%s\nfrom the recording:\n%s", code, got, out)
	}
	if out, code := run(t, dir, bin, "slice", "-dir", prof, "s_test.go:7", "got"); code != exitNoData || !strings.Contains(out, "holds no recording") {
		t.Errorf("slice without the recording: exit %d\n%s", code, out)
	}
	prof2 := t.TempDir()
	run(t, dir, bin, "test", "-deps", "-dir", prof2, "-run", "TestSquares", "./...")
	if out, code := run(t, dir, bin, "slice", "-dir", prof2, "-why", "s_test.go:7", "got"); code != 0 || strings.Contains(out, "total=") {
		t.Errorf("slice -why of a -deps recording: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "slice", "-dir", prof2, "-graph", "wet", "s_test.go:7", "got"); code != exitNoData || !strings.Contains(out, "pathcover wet build makes it") {
		t.Errorf("slice -graph wet of a -deps recording: exit %d\n%s", code, out)
	}
}

// exists reports whether a file is there.
func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// TestTestFilesNotCounted: a -deps build instruments the tests' own
// functions too, but the report's figures leave them out as go test
// -cover does, so that the same tests give the same coverage whatever the
// build; the report says what it left out, and paths still finds them.
func TestTestFilesNotCounted(t *testing.T) {
	t.Parallel()
	dir := module(t, sliceModule)
	type totals struct {
		Paths, Statements struct{ Covered, Total uint64 }
		Packages          []struct{ Funcs, TestFuncs []struct{ Name string } }
	}
	reports := make(map[string]totals)
	for _, mode := range []string{"plain", "-deps"} {
		prof := t.TempDir()
		args := []string{"test", "-dir", prof, "-run", "TestSum", "./..."}
		if mode == "-deps" {
			args = []string{"test", "-deps", "-dir", prof, "-run", "TestSum", "./..."}
		}
		if out, code := run(t, dir, bin, args...); code != 1 {
			t.Fatalf("pathcover %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		out, code := run(t, dir, bin, "report", "-dir", prof, "-json")
		var r totals
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil || len(r.Packages) != 1 {
			t.Fatalf("report -json of %s: exit %d, %v\n%s", mode, code, err, out)
		}
		reports[mode] = r
		text, _ := run(t, dir, bin, "report", "-dir", prof)
		if says := strings.Contains(text, "not counted: 3 functions of _test.go files"); says != (mode == "-deps") {
			t.Errorf("report of %s says what it left out: %v\n%s", mode, says, text)
		}
	}
	plain, deps := reports["plain"], reports["-deps"]
	if plain.Paths != deps.Paths || plain.Statements != deps.Statements || len(plain.Packages[0].Funcs) != len(deps.Packages[0].Funcs) || plain.Statements.Total == 0 {
		t.Errorf("the same tests: plain build %+v, -deps build %+v", plain, deps)
	}
	if n := len(deps.Packages[0].TestFuncs); n != 3 || len(plain.Packages[0].TestFuncs) != 0 {
		t.Errorf("-deps's test functions %+v, plain's %+v", deps.Packages[0].TestFuncs, plain.Packages[0].TestFuncs)
	}
}
