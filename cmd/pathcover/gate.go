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
	"github.com/pathcover/pathcover/profile"
	"github.com/pathcover/pathcover/report"
)

func gateMain(args []string) int {
	fs := flag.NewFlagSet("pathcover gate", flag.ContinueOnError)
	dir := profileFlag(fs)
	min := fs.Float64("min", -1, "the least `percent` of each function's paths that must have run (required)")
	since := fs.String("since", "", "judge only the functions changed since git `revision` (committed, uncommitted or untracked)")
	show := fs.Int("show", 3, "decode the first `n` untested paths of each function that falls short")
	asJSON := fs.Bool("json", false, "write the findings as JSON, in go vet -json's shape")
	github := fs.Bool("github", os.Getenv("GITHUB_ACTIONS") == "true", "also print GitHub Actions annotations (default true in GitHub Actions)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pathcover gate -min percent [-since revision] [-dir D] [-json] [-github] [packages]\n\n"+
			"Fails (exit 1) when a function of the profile has less than -min percent of\n"+
			"its acyclic paths run, and names each such function with its first\n"+
			"untested paths decoded. With -since, only functions whose lines changed\n"+
			"since the revision are judged, so a CI job can hold new code to a bar that\n"+
			"old code does not meet yet. go vet -vettool=$(which pathcover)\n"+
			"-pathcover.profile=D -pathcover.min=N reports the same through vet.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *min < 0 || *min > 100 {
		fmt.Fprintln(os.Stderr, "pathcover gate: -min must be given, from 0 to 100")
		return exitUsage
	}
	r, problems, code := openReport("pathcover gate", dir.dirs, fs.Args())
	if code != 0 {
		return code
	}
	// A counter file cut short only loses counts, which cannot make a
	// function pass; metadata that cannot be read leaves functions out,
	// which could.
	for _, pr := range problems {
		if profile.IsMetaProblem(pr) {
			fmt.Fprintln(os.Stderr, "pathcover gate: cannot judge a profile whose metadata cannot all be read (see above)")
			return exitNoData
		}
	}
	var judge func(*report.Func) bool
	if *since != "" {
		wd, _ := os.Getwd()
		changes, err := gitdiff.Since(wd, *since)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pathcover gate: -since: %v\n", err)
			return exitFail
		}
		judge = func(f *report.Func) bool {
			file := f.File
			if real, err := filepath.EvalSymlinks(file); err == nil {
				file = real
			}
			return changes.Overlaps(file, f.Line, f.EndLine)
		}
	}
	judged := 0
	counting := func(f *report.Func) bool {
		if judge == nil || judge(f) {
			judged++
			return true
		}
		return false
	}
	short, err := r.Gate(*min, *show, counting)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pathcover gate: %v\n", err)
		return exitFail
	}
	if judged == 0 && *since == "" {
		fmt.Fprintln(os.Stderr, "pathcover gate: the packages chosen have no function to judge")
		return exitNoData
	}
	cwd, _ := os.Getwd()
	if *asJSON {
		err = writeGateJSON(os.Stdout, short, cwd)
	} else {
		for _, s := range short {
			fmt.Printf("%s:%d:1: %s\n", relPath(cwd, s.Func.File), s.Func.Line, s.Message())
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pathcover gate: %v\n", err)
		return exitFail
	}
	if *github {
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
	scope := ""
	if *since != "" {
		scope = " (changed since " + *since + ")"
	}
	if len(short) > 0 {
		fmt.Fprintf(os.Stderr, "pathcover gate: %d of %d functions judged%s have less than %g%% of their paths run\n", len(short), judged, scope, *min)
		return exitFail
	}
	if judged == 0 {
		fmt.Fprintf(os.Stderr, "pathcover gate: no function of the profile changed since %s\n", *since)
		return 0
	}
	fmt.Fprintf(os.Stderr, "pathcover gate: all %d functions judged%s have at least %g%% of their paths run\n", judged, scope, *min)
	return 0
}

// writeGateJSON writes the findings as go vet -json does: by package, then
// by analyzer, a list of positions and messages.
func writeGateJSON(w io.Writer, short []report.Shortfall, cwd string) error {
	type diagnostic struct {
		Posn    string `json:"posn"`
		Message string `json:"message"`
	}
	out := make(map[string]map[string][]diagnostic)
	for _, s := range short {
		pkg := out[s.Func.Package]
		if pkg == nil {
			pkg = make(map[string][]diagnostic)
			out[s.Func.Package] = pkg
		}
		pkg["pathcover"] = append(pkg["pathcover"], diagnostic{
			Posn:    fmt.Sprintf("%s:%d:1", relPath(cwd, s.Func.File), s.Func.Line),
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
