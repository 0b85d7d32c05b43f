package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pathcover/pathcover/internal/gitdiff"
	"github.com/pathcover/pathcover/internal/report"
	"github.com/pathcover/pathcover/profile"
)

var cmdGate = &Command{
	UsageLine: "pathcover gate -min percent [-since revision] [-n n] [-all] [-dir D] [-json] [-github] [packages]",
	Short:     "fail when functions have too few of their paths run, for CI",
	Long: `
Fails (exit 1) when a function of the profile has less than -min percent of
its feasible paths run, and names each such function with its first
untested paths, each with the conditions it needs. Feasible paths are
those the build did not prove infeasible (see pathcover paths): a path no
input can take is not asked of the tests; -all judges every acyclic path. With -since, only functions whose lines changed
since the revision are judged, so a CI job can hold new code to a bar that
old code does not meet yet. go vet -vettool=$(which pathcover)
-pathcover.profile=D -pathcover.min=N reports the same through vet, and
-json writes the findings in go vet -json's shape.
`,
	Flags: func(fs *flag.FlagSet) Run {
		g := &gateCommand{
			dir:    profileFlag(fs),
			gate:   gateFlag(fs, ""),
			asJSON: jsonFlag(fs),
			github: fs.Bool("github", os.Getenv("GITHUB_ACTIONS") == "true", "also print GitHub Actions annotations (default true in GitHub Actions)"),
		}
		return g.run
	},
}

type gateCommand struct {
	dir            *profileDirs
	gate           *gateFlags
	asJSON, github *bool
}

// gateFlags are the gate's bar and what it judges, which export -format
// sarif takes too.
type gateFlags struct {
	min   *float64
	since *string
	show  *int
	all   *bool
}

// gateFlag declares -min, -since and -n; for begins their usage, for a
// command that takes them for one use only.
func gateFlag(fs *flag.FlagSet, forUse string) *gateFlags {
	return &gateFlags{
		min:   fs.Float64("min", -1, forUse+"the least `percent` of each function's paths that must have run (required)"),
		since: fs.String("since", "", forUse+"judge only the functions changed since git `revision` (committed, uncommitted or untracked)"),
		show:  countFlag(fs, 3, forUse+"decode the first `n` untested paths of each function that falls short", "show"),
		all:   fs.Bool("all", false, forUse+"judge every acyclic path, not only those not proved infeasible"),
	}
}

// checkMin checks that -min was given, and sensibly.
func (g *gateFlags) checkMin(name string) int {
	if *g.min < 0 || *g.min > 100 {
		fmt.Fprintf(os.Stderr, "%s: -min must be given, from 0 to 100\n", name)
		return exitUsage
	}
	return 0
}

// judge returns the functions of the report that fall short of the gate,
// and how many it judged; a status other than 0 after a message if it
// cannot judge. problems are the files of the profile that were skipped.
func (g *gateFlags) judge(name string, r *report.Report, problems []error) (short []report.Shortfall, judged, code int) {
	// A counter file cut short only loses counts, which cannot make a
	// function pass; metadata that cannot be read leaves functions out,
	// which could.
	for _, pr := range problems {
		if profile.IsMetaProblem(pr) {
			fmt.Fprintf(os.Stderr, "%s: cannot judge a profile whose metadata cannot all be read (see above)\n", name)
			return nil, 0, exitNoData
		}
	}
	var changed func(*report.Func) bool
	if *g.since != "" {
		wd, _ := os.Getwd()
		changes, err := gitdiff.Since(wd, *g.since)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: -since: %v\n", name, err)
			return nil, 0, exitFail
		}
		changed = func(f *report.Func) bool {
			file := f.File
			if real, err := filepath.EvalSymlinks(file); err == nil {
				file = real
			}
			return changes.Overlaps(file, f.Line, f.EndLine)
		}
	}
	counting := func(f *report.Func) bool {
		if changed == nil || changed(f) {
			judged++
			return true
		}
		return false
	}
	over := report.OverFeasible
	if *g.all {
		over = report.OverAll
	}
	short, err := r.Gate(*g.min, *g.show, over, counting)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return nil, 0, exitFail
	}
	if judged == 0 && *g.since == "" {
		fmt.Fprintf(os.Stderr, "%s: the packages chosen have no function to judge\n", name)
		return nil, 0, exitNoData
	}
	return short, judged, 0
}

// scope says which functions were judged, for the closing line.
func (g *gateFlags) scope() string {
	if *g.since == "" {
		return ""
	}
	return " (changed since " + *g.since + ")"
}

func (c *gateCommand) run(cmd *Command, patterns []string) int {
	name := cmd.LongName()
	g := c.gate
	if code := g.checkMin(name); code != 0 {
		return code
	}
	r, problems, code := openReport(name, c.dir.dirs, patterns)
	if code != 0 {
		return code
	}
	short, judged, code := g.judge(name, r, problems)
	if code != 0 {
		return code
	}
	cwd, _ := os.Getwd()
	if code := write(cmd, findings{short, cwd}, *c.asJSON); code != 0 {
		return code
	}
	if *c.github {
		root := cwd
		if ws := os.Getenv("GITHUB_WORKSPACE"); ws != "" {
			root = ws
		}
		for _, s := range short {
			fmt.Printf("::error file=%s,line=%d,endLine=%d,title=%s::%s\n",
				annotationProperty(relPath(root, s.Func.File)), s.Func.Line, max(s.Func.Line, s.Func.EndLine),
				annotationProperty("pathcover gate: "+s.Func.Name), annotationData(s.Message()))
		}
	}
	if len(short) > 0 {
		fmt.Fprintf(os.Stderr, "%s: %d of %d functions judged%s have less than %g%% of their paths run\n", name, len(short), judged, g.scope(), *g.min)
		return exitFail
	}
	if judged == 0 {
		fmt.Fprintf(os.Stderr, "%s: no function of the profile changed since %s\n", name, *g.since)
		return 0
	}
	fmt.Fprintf(os.Stderr, "%s: all %d functions judged%s have at least %g%% of their paths run\n", name, judged, g.scope(), *g.min)
	return 0
}

// findings are the functions that fall short, as gate prints them: as vet
// prints diagnostics, their files relative to cwd.
type findings struct {
	short []report.Shortfall
	cwd   string
}

// WriteText writes a line per function: its position, then the message.
func (fs findings) WriteText(w io.Writer) error {
	for _, s := range fs.short {
		if _, err := fmt.Fprintf(w, "%s:%d:1: %s\n", relPath(fs.cwd, s.Func.File), s.Func.Line, s.Message()); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the findings as go vet -json does: by package, then by
// analyzer, a list of positions and messages.
func (fs findings) WriteJSON(w io.Writer) error {
	type diagnostic struct {
		Posn    string `json:"posn"`
		Message string `json:"message"`
	}
	out := make(map[string]map[string][]diagnostic)
	for _, s := range fs.short {
		pkg := out[s.Func.Package]
		if pkg == nil {
			pkg = make(map[string][]diagnostic)
			out[s.Func.Package] = pkg
		}
		pkg["pathcover"] = append(pkg["pathcover"], diagnostic{
			Posn:    fmt.Sprintf("%s:%d:1", relPath(fs.cwd, s.Func.File), s.Func.Line),
			Message: s.Message(),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "\t")
	return enc.Encode(out)
}

func relPath(base, file string) string {
	if rel, err := filepath.Rel(base, file); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return file
}

// annotationData and annotationProperty escape a workflow command's message
// and property values, as GitHub's toolkit does.
func annotationData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func annotationProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
