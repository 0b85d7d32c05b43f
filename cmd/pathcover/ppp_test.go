package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/report"
)

// grade has 5 paths; its test runs 2 of them and the "field" program 4.
const grade = `package m

func Grade(score int) string {
	if score < 0 {
		return "invalid"
	}
	if score >= 90 {
		return "A"
	}
	if score >= 50 {
		return "pass"
	}
	if score == 0 {
		return "zero"
	}
	return "fail"
}

func Twice(x int) int {
	return 2 * x
}
`

// TestPPPWorkflow runs the PPP workflow of docs/ppp.md on a small module:
// pathcover test profiles the tests; a PPP build made with that profile runs
// the field program; pathcover residual lists the field paths that the
// tests never ran; and the gate judges the tests' profile, from the CLI
// (plain, JSON, GitHub annotations, -since) and through go vet.
func TestPPPWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	dir := module(t, map[string]string{
		"m.go": grade,
		"m_test.go": `package m

import "testing"

func TestGrade(t *testing.T) {
	if Grade(95) != "A" || Grade(60) != "pass" || Twice(2) != 4 {
		t.Fatal("wrong")
	}
}
`,
		"field/main.go": `package main

import (
	"fmt"

	"example.com/m"
)

func main() {
	for _, s := range []int{95, 60, 61, 10, 0, 0, 0} {
		fmt.Println(m.Grade(s))
	}
}
`,
	})
	tested := filepath.Join(t.TempDir(), "tested")
	if out, code := run(t, dir, bin, "test", "-dir", tested, "./..."); code != 0 {
		t.Fatalf("pathcover test: exit %d\n%s", code, out)
	}
	exe := filepath.Join(t.TempDir(), "field")
	if out, code := run(t, dir, "go", "build", "-toolexec="+bin+" pppexec -interesting="+tested, "-o", exe, "./field"); code != 0 {
		t.Fatalf("PPP build: exit %d\n%s", code, out)
	}
	field := filepath.Join(t.TempDir(), "field")
	if out, code := cmdtest.Run(t, dir, []string{"PATHCOVERDIR=" + field}, exe); code != 0 {
		t.Fatalf("field run: exit %d\n%s", code, out)
	}

	checkResidual(t, dir, tested, field)
	checkGate(t, dir, tested)
	checkGateSince(t, dir, tested)
	checkVetGate(t, dir, tested)
	if out, code := run(t, dir, bin, "stats", "-dir", tested); code != 0 || !strings.Contains(out, "Grade") {
		t.Errorf("pathcover stats: exit %d\n%s", code, out)
	}
}

// checkResidual: the residual paths are the field's paths less the tests'.
func checkResidual(t *testing.T, dir, tested, field string) {
	// The residual paths are the field's paths less the tests', as
	// pathcover paths lists them from each profile.
	ids := func(prof string) []string {
		out, code := run(t, dir, bin, "paths", "-dir", prof, "Grade")
		if code != 0 {
			t.Fatalf("pathcover paths: exit %d\n%s", code, out)
		}
		var ids []string
		for _, m := range regexp.MustCompile(`(?m)^path (\d+),`).FindAllStringSubmatch(out, -1) {
			ids = append(ids, m[1])
		}
		slices.Sort(ids)
		return ids
	}
	testedIDs, fieldIDs := ids(tested), ids(field)
	var want []string
	for _, id := range fieldIDs {
		if !slices.Contains(testedIDs, id) {
			want = append(want, id)
		}
	}
	if len(testedIDs) != 2 || len(fieldIDs) != 4 || len(want) != 2 {
		t.Fatalf("tested paths %v, field paths %v", testedIDs, fieldIDs)
	}
	// The field program's main has no tests: all its paths are residual,
	// which the pattern leaves out.
	out, code := run(t, dir, bin, "residual", "-dir", field, "-json", "example.com/m")
	var res struct {
		Funcs []struct {
			Name     string
			Untested int
			Runs     uint64
			Paths    []struct {
				ID    uint64
				Count uint64
			}
		}
		Summary struct {
			UntestedPaths, PathsRun, FuncsWithUntestedPaths int
			PercentFrequency                                float64
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("pathcover residual -json: exit %d\n%s", code, out)
	}
	if len(res.Funcs) != 1 || res.Funcs[0].Name != "Grade" || res.Funcs[0].Untested != 2 {
		t.Fatalf("residual functions: %+v", res.Funcs)
	}
	var got []string
	for _, p := range res.Funcs[0].Paths {
		got = append(got, strconv.FormatUint(p.ID, 10))
	}
	slices.Sort(got)
	// The field ran "fail" once (10) and "zero" three times (0, 0, 0):
	// 4 residual runs of 7.
	if !slices.Equal(got, want) || res.Funcs[0].Runs != 4 || res.Funcs[0].Paths[0].Count != 3 {
		t.Errorf("residual paths %v (runs %d); want %v", got, res.Funcs[0].Runs, want)
	}
	if s := res.Summary; s.UntestedPaths != 2 || s.PathsRun != 4 || s.FuncsWithUntestedPaths != 1 || s.PercentFrequency < 57.1 || s.PercentFrequency > 57.2 {
		t.Errorf("summary %+v", s)
	}
	out, code = run(t, dir, bin, "residual", "-dir", field, "example.com/m")
	for _, w := range []string{"m.Grade (m.go:3): 2 untested paths ran 4 of its 7 runs", "path " + want[0], "m.go:13:2\tscore == 0 is true", "5 untested edges", "untested paths  % untested"} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("pathcover residual: exit %d, output lacks %q:\n%s", code, w, out)
		}
	}
	if out, code := run(t, dir, bin, "residual", "-dir", tested); code != 1 || !strings.Contains(out, "no PPP build") {
		t.Errorf("residual of a Ball-Larus profile: exit %d\n%s", code, out)
	}

	// The HTML page lists the same residual paths.
	page := filepath.Join(t.TempDir(), "field.html")
	if out, code := run(t, dir, bin, "html", "-dir", field, "-o", page, "example.com/m"); code != 0 {
		t.Fatalf("pathcover html: exit %d\n%s", code, out)
	}
	data, _ := os.ReadFile(page)
	js, err := report.PageData(data)
	var pd struct {
		Funcs map[string]struct {
			Paths map[string][]struct{ ID uint64 }
		}
	}
	if err != nil || json.Unmarshal(js, &pd) != nil || !bytes.Contains(data, []byte(`data-kind="residual"`)) {
		t.Fatalf("the page has no residual paths' data: %v", err)
	}
	var pageIDs []string
	for _, f := range pd.Funcs {
		for _, p := range f.Paths["residual"] {
			pageIDs = append(pageIDs, strconv.FormatUint(p.ID, 10))
		}
	}
	slices.Sort(pageIDs)
	if !slices.Equal(pageIDs, want) {
		t.Errorf("the page's residual paths %v, want %v", pageIDs, want)
	}

}

// checkGate: Grade ran 2 of 5 paths (40%), Twice 1 of 1.
func checkGate(t *testing.T, dir, tested string) {
	out, code := run(t, dir, bin, "gate", "-dir", tested, "-min", "50")
	if code != 1 || !strings.Contains(out, "m.go:3:1: Grade: 3 of 5 paths untested (40.0% ran, below 50%): path ") || strings.Contains(out, "Twice") || !strings.Contains(out, "1 of 2 functions judged have less than 50%") {
		t.Errorf("gate -min 50: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "gate", "-dir", tested, "-min", "40"); code != 0 || !strings.Contains(out, "all 2 functions judged have at least 40%") {
		t.Errorf("gate -min 40: exit %d\n%s", code, out)
	}
	out, code = cmdtest.Run(t, dir, []string{"GITHUB_ACTIONS=true"}, bin, "gate", "-dir", tested, "-min", "50", "-json")
	var findings map[string]map[string][]struct{ Posn, Message string }
	if code != 1 || json.Unmarshal([]byte(out[:strings.Index(out, "::error")]), &findings) != nil ||
		len(findings["example.com/m"]["pathcover"]) != 1 || findings["example.com/m"]["pathcover"][0].Posn != "m.go:3:1" {
		t.Errorf("gate -json: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "::error file=m.go,line=3,endLine=17,title=pathcover gate%3A Grade::Grade: 3 of 5 paths untested") {
		t.Errorf("no GitHub annotation:\n%s", out)
	}
	for _, bad := range [][]string{{"gate", "-dir", tested}, {"gate", "-min", "101", "-dir", tested}} {
		if out, code := run(t, dir, bin, bad...); code != 2 {
			t.Errorf("%v: exit %d\n%s", bad, code, out)
		}
	}

}

// checkGateSince: -since judges only what changed, Twice, which is fully
// covered.
func checkGateSince(t *testing.T, dir, tested string) {
	git := func(args ...string) { t.Helper(); gitIn(t, dir, args...) }
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	src := strings.Replace(grade, "return 2 * x", "return x + x", 1)
	if err := os.WriteFile(filepath.Join(dir, "m.go"), []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, dir, bin, "gate", "-dir", tested, "-min", "50", "-since", "HEAD"); code != 0 || !strings.Contains(out, "all 1 functions judged (changed since HEAD)") {
		t.Errorf("gate -since HEAD: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "gate", "-dir", tested, "-min", "50", "-since", "nosuch"); code != 1 || !strings.Contains(out, "not a revision") {
		t.Errorf("gate -since nosuch: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "m.go"), []byte(grade), 0o666); err != nil {
		t.Fatal(err)
	}

}

// checkVetGate: the same gate through vet; without its own flag, vet does
// not report path counts when it has a profile.
func checkVetGate(t *testing.T, dir, tested string) {
	out, code := run(t, dir, "go", "vet", "-vettool="+bin, "-pathcover.profile="+tested, "-pathcover.min=50", "./...")
	if code == 0 || !strings.Contains(out, "m.go:3:1: Grade: 3 of 5 paths untested (40.0% ran, below 50%)") || strings.Contains(out, "Twice") {
		t.Errorf("go vet -pathcover.profile: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, "go", "vet", "-vettool="+bin, "-pathcover.profile="+tested, "-pathcover.min=40", "./..."); code != 0 {
		t.Errorf("go vet -pathcover.min=40: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, "go", "vet", "-vettool="+bin, "-pathcover.profile="+filepath.Join(dir, "nosuch"), "./..."); code == 0 || !strings.Contains(out, "-pathcover.profile") {
		t.Errorf("go vet with a missing profile: exit %d\n%s", code, out)
	}
	// An empty profile is not a pass.
	if out, code := run(t, dir, "go", "vet", "-vettool="+bin, "-pathcover.profile="+t.TempDir(), "-pathcover.min=50", "./..."); code == 0 || !strings.Contains(out, "holds no profile") {
		t.Errorf("go vet with an empty profile: exit %d\n%s", code, out)
	}
}

// gitIn runs git in dir as a fixed author, failing the test if it fails,
// and returns its output, trimmed.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	env := []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	out, code := cmdtest.Run(t, dir, env, "git", args...)
	if code != 0 {
		t.Fatalf("git %v: exit %d\n%s", args, code, out)
	}
	return strings.TrimSpace(out)
}
