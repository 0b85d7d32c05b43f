package main_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
)

// The repository's action.yml (a composite GitHub Action) is checked two
// ways: action-validator, from the npm registry, validates it against the
// schema of actions; and runAction runs its shell steps as a runner would
// (the steps that use other actions, the uploads, are left out), on a
// module with a git history, so that its commands, flags and outputs are
// the real ones.

// actionModule is a module whose test runs Classify's negative and zero
// paths; the change the test commits adds a path it does not run.
const actionModule = `package m

func Classify(x int) string {
	if x < 0 {
		return "negative"
	}
	return "zero or more"
}
`

const actionTest = `package m

import "testing"

func TestClassify(t *testing.T) {
	if Classify(-1) != "negative" || Classify(0) != "zero or more" {
		t.Fatal("wrong")
	}
}
`

// TestActionValid validates action.yml with action-validator, and checks
// that it rejects a broken copy (so that a validator that accepts
// anything would fail the test).
func TestActionValid(t *testing.T) {
	t.Parallel()
	modules := npmTool(t, "@action-validator/cli@0.6.0")
	validator := filepath.Join(modules, ".bin", "action-validator")
	action, err := filepath.Abs("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(validator, action).CombinedOutput(); err != nil {
		t.Fatalf("action-validator action.yml: %v\n%s", err, out)
	}
	// The validator tells actions from workflows by the file's name.
	broken := filepath.Join(t.TempDir(), "action.yml")
	src := strings.Replace(cmdtest.ReadFile(t, action), "      shell: bash\n", "      shel: bash\n", 1)
	if err := os.WriteFile(broken, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(validator, broken).CombinedOutput(); err == nil || !strings.Contains(string(out), "shel") {
		t.Errorf("action-validator accepts a step with no shell: %v\n%s", err, out)
	}
}

// TestActionRun runs the action's steps on a module whose last commit adds
// an untested path: with the default bar and the commit before as -since,
// the gate fails naming the function, after the SARIF file (with that
// finding) and the page are written; with no bar it passes; and an
// unchanged module passes the default bar.
func TestActionRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go test under pathcover")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	cmdtest.WriteFiles(t, dir, map[string]string{
		"go.mod":    "module example.com/m\n\ngo 1.25\n",
		"m.go":      actionModule,
		"m_test.go": actionTest,
	})
	git := func(args ...string) string { t.Helper(); return gitIn(t, dir, args...) }
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	base := git("rev-parse", "HEAD")

	// Unchanged since base: nothing to judge, and the gate passes.
	res := runAction(t, dir, map[string]string{"upload-sarif": "false"}, map[string]string{"github.event.pull_request.base.sha": base})
	if res.failed != "" {
		t.Fatalf("an unchanged module failed step %q:\n%s", res.failed, res.log)
	}
	if res.outputs["report.since"] != base {
		t.Errorf("since %q, want the pull request's base %s", res.outputs["report.since"], base)
	}

	// A commit adds a path that no test runs.
	changed := strings.Replace(actionModule, `	return "zero or more"`, `	if x == 0 {
		return "zero"
	}
	return "positive"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "m.go"), []byte(changed), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "m_test.go"), []byte(strings.Replace(actionTest, `"zero or more"`, `"zero"`, 1)), 0o666); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-a", "-m", "change")
	res = runAction(t, dir, nil, map[string]string{"github.event.pull_request.base.sha": base})
	if res.failed != "Gate changed code" || !strings.Contains(res.log, "Classify") {
		t.Fatalf("the gate did not fail on Classify's untested path: failed %q\n%s", res.failed, res.log)
	}
	var sarif struct {
		Version string
		Runs    []struct {
			Results []struct {
				Message struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal([]byte(cmdtest.ReadFile(t, res.outputs["report.sarif"])), &sarif); err != nil {
		t.Fatal(err)
	}
	if sarif.Version != "2.1.0" || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 1 || !strings.Contains(sarif.Runs[0].Results[0].Message.Text, "Classify") {
		t.Errorf("the SARIF file does not hold Classify's finding alone: %+v", sarif)
	}
	if page := cmdtest.ReadFile(t, res.outputs["report.html"]); !strings.Contains(pageText(t, []byte(page)), "Classify") {
		t.Error("the page does not show Classify")
	}
	if _, err := os.Stat(filepath.Join(res.outputs["test.profile"])); err != nil {
		t.Errorf("the profile: %v", err)
	}

	// With no bar there is no gate.
	res = runAction(t, dir, map[string]string{"min": ""}, nil)
	if res.failed != "" || strings.Contains(res.log, "step Gate changed code") {
		t.Errorf("with min empty: failed %q\n%s", res.failed, res.log)
	}
}

// TestActionShards runs the action as a sharded workflow would: two jobs
// of a matrix, each its own runner (process, directories) running some of
// the tests with mode shard, then a merge job that gets their profiles as
// the artifacts would bring them. Each shard alone runs half of
// Classify's paths, so the gate at 100% fails on either shard's profile
// and passes on the merged one, as on one job that runs every test; a
// merge that is missing a shard fails instead of judging.
func TestActionShards(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go test under pathcover")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	cmdtest.WriteFiles(t, dir, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.25\n",
		"m.go":   actionModule,
		"m_test.go": `package m

import "testing"

func TestNegative(t *testing.T) {
	if Classify(-1) != "negative" {
		t.Fail()
	}
}

func TestZero(t *testing.T) {
	if Classify(0) != "zero or more" {
		t.Fail()
	}
}
`,
	})
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "base")
	gate := map[string]string{"min": "100", "upload-sarif": "false", "artifact": ""}
	with := func(extra map[string]string) map[string]string {
		in := maps.Clone(gate)
		maps.Copy(in, extra)
		return in
	}

	whole := runAction(t, dir, gate, nil)
	if whole.failed != "" {
		t.Fatalf("one job of every test failed step %q:\n%s", whole.failed, whole.log)
	}
	var shards []string
	for _, s := range []struct{ name, run string }{{"negative", "TestNegative"}, {"zero", "TestZero"}} {
		res := runAction(t, dir, with(map[string]string{"mode": "shard", "shard": s.name, "test-flags": "-run=^" + s.run + "$"}), nil)
		if res.failed != "" {
			t.Fatalf("shard %s failed step %q:\n%s", s.name, res.failed, res.log)
		}
		if strings.Contains(res.log, "step Gate changed code") || strings.Contains(res.log, "step Write the findings") {
			t.Errorf("shard %s judged its part alone:\n%s", s.name, res.log)
		}
		shards = append(shards, res.outputs["test.profile"])
	}
	merge := func(shards []string, count int) actionResult {
		temp := t.TempDir()
		for i, s := range shards {
			// What upload-artifact and download-artifact do: each shard's
			// directory, under its artifact's name.
			if err := os.CopyFS(filepath.Join(temp, "pathcover-shards", "pathcover-shard-"+strconv.Itoa(i)), os.DirFS(s)); err != nil {
				t.Fatal(err)
			}
		}
		return runActionIn(t, dir, temp, with(map[string]string{"mode": "merge", "shards": strconv.Itoa(count)}), nil)
	}
	if res := merge(shards, 2); res.failed != "" {
		t.Errorf("the merge of both shards failed step %q:\n%s", res.failed, res.log)
	} else if page := cmdtest.ReadFile(t, res.outputs["report.html"]); !strings.Contains(pageText(t, []byte(page)), "Classify") {
		t.Error("the merged page does not show Classify")
	}
	for _, s := range shards {
		if res := merge([]string{s}, 1); res.failed != "Gate changed code" {
			t.Errorf("the gate on one shard's profile: failed step %q, want the gate:\n%s", res.failed, res.log)
		}
	}
	if res := merge(shards[:1], 2); res.failed != "Merge the shards' profiles" || !strings.Contains(res.log, "1 shard profiles arrived, of 2") {
		t.Errorf("a merge missing a shard: failed step %q, want the merge to refuse:\n%s", res.failed, res.log)
	}
	if res := runAction(t, dir, with(map[string]string{"mode": "shard"}), nil); res.failed != "Check the mode" || !strings.Contains(res.log, "needs the input shard") {
		t.Errorf("mode shard without a name: failed step %q\n%s", res.failed, res.log)
	}
}

// actionResult is what runAction saw: the step that failed (its name, ""
// if none), the steps' outputs by "id.name", and a log of every step.
type actionResult struct {
	failed  string
	outputs map[string]string
	log     string
}

// runAction runs the shell steps of action.yml in workspace as GitHub's
// runner would: each with bash -eo pipefail, its env and working
// directory, the inputs (defaults, overridden by inputs), the context
// values given in github (others are empty) and the outputs of earlier
// steps substituted for their expressions, GITHUB_OUTPUT and GITHUB_PATH
// honoured; a step whose if is false is skipped, and the steps after a
// failed one run only if their if says !cancelled() (as GitHub runs
// those whose if has a status function).
func runAction(t *testing.T, workspace string, inputs, github map[string]string) actionResult {
	t.Helper()
	return runActionIn(t, workspace, t.TempDir(), inputs, github)
}

// runActionIn is runAction with the runner's temporary directory given
// (RUNNER_TEMP): where a merge job finds the shards' profiles that the
// download step would have put there.
func runActionIn(t *testing.T, workspace, temp string, inputs, github map[string]string) actionResult {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	action := parseAction(t, cmdtest.ReadFile(t, filepath.Join(root, "action.yml")))
	values := map[string]string{}
	for name, def := range action.inputs {
		values["inputs."+name] = def
	}
	for name, v := range inputs {
		if _, ok := action.inputs[name]; !ok {
			t.Fatalf("action.yml has no input %s", name)
		}
		values["inputs."+name] = v
	}
	for k, v := range github {
		values[k] = v
	}
	path := os.Getenv("PATH")
	res := actionResult{outputs: map[string]string{}}
	var log strings.Builder
	expr := regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	subst := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			return values[expr.FindStringSubmatch(m)[1]]
		})
	}
	for _, step := range action.steps {
		if step.run == "" {
			continue // uses another action: an upload
		}
		if step.cond != "" && !evalActionIf(t, step.cond, values, res.failed != "") {
			continue
		}
		if res.failed != "" && !strings.Contains(step.cond, "!cancelled()") {
			continue
		}
		fmt.Fprintf(&log, "step %s\n", step.name)
		outFile, pathFile := filepath.Join(temp, "output"), filepath.Join(temp, "path")
		os.WriteFile(outFile, nil, 0o644)
		os.WriteFile(pathFile, nil, 0o644)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", subst(step.run))
		cmd.Dir = filepath.Join(workspace, subst(step.dir))
		cmd.Env = append(os.Environ(), "PATH="+path, "RUNNER_TEMP="+temp, "GITHUB_ACTION_PATH="+root,
			"GITHUB_WORKSPACE="+workspace, "GITHUB_OUTPUT="+outFile, "GITHUB_PATH="+pathFile, "GITHUB_ACTIONS=")
		for _, kv := range step.env {
			k, v, _ := strings.Cut(kv, ": ")
			cmd.Env = append(cmd.Env, k+"="+subst(v))
		}
		out, err := cmd.CombinedOutput()
		log.Write(out)
		if err != nil && res.failed == "" {
			res.failed = step.name
			fmt.Fprintf(&log, "step %s: %v\n", step.name, err)
		}
		for _, line := range strings.Split(cmdtest.ReadFile(t, outFile), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok && step.id != "" {
				values["steps."+step.id+".outputs."+k] = v
				res.outputs[step.id+"."+k] = v
			}
		}
		for _, dir := range strings.Fields(cmdtest.ReadFile(t, pathFile)) {
			path = dir + string(os.PathListSeparator) + path
		}
	}
	res.log = log.String()
	return res
}

// evalActionIf evaluates the if expressions that action.yml uses: terms
// joined by &&, each !cancelled() or a context value compared with == or
// != to a quoted string.
func evalActionIf(t *testing.T, cond string, values map[string]string, failed bool) bool {
	t.Helper()
	cond = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(cond), "${{"), "}}")
	term := regexp.MustCompile(`^([\w.-]+) (==|!=) '([^']*)'$`)
	for _, c := range strings.Split(cond, "&&") {
		c = strings.TrimSpace(c)
		if c == "!cancelled()" {
			continue
		}
		m := term.FindStringSubmatch(c)
		if m == nil {
			t.Fatalf("action.yml: an if this test cannot evaluate: %q", c)
		}
		if (values[m[1]] == m[3]) != (m[2] == "==") {
			return false
		}
	}
	return true
}

// A parsedAction is what runAction needs of action.yml: its inputs'
// defaults and its steps.
type parsedAction struct {
	inputs map[string]string
	steps  []actionStep
}

type actionStep struct {
	name, id, cond, dir, run string
	env                      []string // "NAME: value"
}

// parseAction reads action.yml's inputs and steps by their indentation:
// the file is ours, and the validator checks that it is what GitHub reads.
func parseAction(t *testing.T, src string) parsedAction {
	t.Helper()
	a := parsedAction{inputs: map[string]string{}}
	lines := strings.Split(src, "\n")
	section, input := "", ""
	var step *actionStep
	unquote := func(s string) string { return strings.Trim(s, `"`) }
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		indent := len(line) - len(strings.TrimLeft(line, " "))
		text := strings.TrimSpace(line)
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
		case indent == 0:
			section = strings.TrimSuffix(text, ":")
		case section == "inputs" && indent == 2:
			input = strings.TrimSuffix(text, ":")
			a.inputs[input] = ""
		case section == "inputs" && indent == 4 && strings.HasPrefix(text, "default:"):
			a.inputs[input] = unquote(strings.TrimSpace(strings.TrimPrefix(text, "default:")))
		case section == "runs" && indent == 4 && strings.HasPrefix(text, "- "):
			a.steps = append(a.steps, actionStep{dir: "."})
			step = &a.steps[len(a.steps)-1]
			text = strings.TrimPrefix(text, "- ")
			fallthrough
		case section == "runs" && step != nil && indent == 6:
			key, value, _ := strings.Cut(text, ":")
			value = strings.TrimSpace(value)
			switch key {
			case "name":
				step.name = value
			case "id":
				step.id = value
			case "if":
				step.cond = value
			case "working-directory":
				step.dir = value
			case "run":
				for i+1 < len(lines) && (strings.HasPrefix(lines[i+1], "        ") || strings.TrimSpace(lines[i+1]) == "") {
					i++
					step.run += strings.TrimPrefix(lines[i], "        ") + "\n"
				}
			case "env":
				for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "        ") {
					i++
					step.env = append(step.env, strings.TrimSpace(lines[i]))
				}
			}
		}
	}
	if len(a.steps) == 0 || len(a.inputs) == 0 {
		t.Fatal("action.yml: no steps or no inputs read")
	}
	return a
}
