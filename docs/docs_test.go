package docs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// docsOutput is what the output of each page's commands must contain: a
// sign that the workflow it shows did what the page says.
var docsOutput = map[string][]string{
	"coverage.md":        {"example/expr/parse.go", "callNode.eval", "never ran", "proved infeasible", "SatAdd"},
	"ppp.md":             {"runs in the field that the tests never made", "Ball-Larus", "tagfocus=residual=true", "%  main.main\n"},
	"interprocedural.md": {"Eval@ippp", "segments run"},
	"explain.md":         {"failing:  true\n", "distinct traces", "slice of execution", "line 50: n =", "which called os.Exit", "\ncalled from call ", "(the first: call "},
	"tests.md":           {"TestEval\t8 runs", "TestErrors", "0 tests run lines changed since HEAD"},
	"exports.md":         {"total:", "Type: executions", "ROUTINE ======================== github.com/pathcover/pathcover/example/expr.lex", " path: Total "},
	"reference.md":       {"pathcover <command>", "usage: pathcover report", "example/cmd/calc/main.go:16 main"},
	// The planted bug: the slice holds its line, the diff names its
	// branch on both sides, the neutral edit reads as the same run.
	"walkthrough.md": {
		"Compare(\"1.9.0\", \"1.8.5\") = -1, want 1",
		"[could set n] if s[i] >= '0' && s[i] < '9' {", `x=0 restA="0"`,
		"version.go:27:3 s[i] >= '0' && s[i] <= '9' is true\n", "version.go:27:3 s[i] >= '0' && s[i] < '9' is false\n",
		"the runs do the same: the same control flow, and the same values",
		"which called os.Exit",
		"s[i] >= '0' && s[i] < '9' is false",
	},
}

// docsNearTop is, for a page, a line of its output that must come within
// the first lines after another: the planted bug near the top of the
// walkthrough's slice, in its first 12 lines (of 29), right under the
// value it left unchanged.
var docsNearTop = map[string]struct {
	after, want string
	within      int
}{
	"walkthrough.md": {"slice of execution", "27              [could set n] if s[i] >= '0' && s[i] < '9' {", 12},
}

// TestDocsCommands runs the commands of each page of docs/ that has ```sh
// blocks, in one shell a page, from the repository root, with pathcover
// and pppexec installed from the working tree as the README says (see
// readme_test.go for the rest of the harness).
func TestDocsCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go install, go test and programs under pppexec")
	}
	root := repoRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", "./cmd/pathcover", "./cmd/pppexec")
	install.Dir = root
	install.Env = shellEnv(t.TempDir(), gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	ran := map[string]bool{}
	for _, page := range pages {
		name := filepath.Base(page)
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := shLines(string(data))
		if len(lines) == 0 {
			continue
		}
		ran[name] = true
		t.Run(name, func(t *testing.T) {
			out := runLines(t, root, shellEnv(t.TempDir(), gobin), lines)
			for _, want := range docsOutput[name] {
				if !strings.Contains(out, want) {
					t.Errorf("the output of %s's commands lacks %q:\n%s", name, want, out)
				}
			}
			if top, ok := docsNearTop[name]; ok {
				_, rest, _ := strings.Cut(out, top.after)
				lines := strings.Split(rest, "\n")
				if at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, top.want) }); at < 0 || at > top.within {
					t.Errorf("the output of %s's commands has %q at line %d after %q, want it within %d:\n%s", name, top.want, at, top.after, top.within, out)
				}
			}
		})
	}
	for name := range docsOutput {
		if !ran[name] {
			t.Errorf("docs/%s has no commands to run", name)
		}
	}
}

// TestDocsLinks checks that every relative link of README.md and of the
// pages of docs/ names a file or directory of the repository, and that its
// #anchor, or a link's within its own page, names a heading of that page
// as GitHub makes anchors of headings.
func TestDocsLinks(t *testing.T) {
	root := repoRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	anchors := map[string][]string{} // file → its headings' anchors
	anchorsOf := func(file string) []string {
		if a, ok := anchors[file]; ok {
			return a
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		anchors[file] = headingAnchors(string(data))
		return anchors[file]
	}
	links := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		for _, link := range markdownLinks(string(data)) {
			if regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`).MatchString(link) {
				continue // http:, https:, mailto:
			}
			links++
			path, anchor, _ := strings.Cut(link, "#")
			target := doc
			if path != "" {
				target = filepath.Join(filepath.Dir(doc), filepath.FromSlash(path))
				if r, err := filepath.Rel(root, target); err != nil || strings.HasPrefix(r, "..") {
					t.Errorf("%s: link %q leaves the repository", rel, link)
					continue
				}
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: %v", rel, link, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s: link %q has an anchor into a file that is not Markdown", rel, link)
				continue
			}
			if !slices.Contains(anchorsOf(target), anchor) {
				t.Errorf("%s: link %q: no heading of %s has the anchor %q (it has %q)", rel, link, filepath.Base(target), anchor, anchorsOf(target))
			}
		}
	}
	if links < 20 {
		t.Errorf("only %d relative links found: is the parser broken?", links)
	}
}

var (
	fence      = regexp.MustCompile("(?ms)^[ \t]*```.*?^[ \t]*```[ \t]*$")
	codeSpan   = regexp.MustCompile("`[^`]*`")
	comment    = regexp.MustCompile(`(?s)<!--.*?-->`)
	inlineLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	heading    = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t#]*$`)
)

// prose returns a Markdown document without its fenced blocks and HTML
// comments.
func prose(doc string) string {
	return comment.ReplaceAllString(fence.ReplaceAllString(doc, ""), "")
}

// markdownLinks returns the targets of the inline links of a Markdown
// document, outside code.
func markdownLinks(doc string) []string {
	var links []string
	for _, m := range inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(prose(doc), ""), -1) {
		links = append(links, m[1])
	}
	return links
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown document: the heading's text lowercased, each space a '-', every
// other character but letters, digits, '-' and '_' removed, and "-1",
// "-2"... after the second and later of equal ones.
func headingAnchors(doc string) []string {
	var anchors []string
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(prose(doc), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a += "-" + strconv.Itoa(n)
		} else {
			seen[a] = 1
		}
		anchors = append(anchors, a)
	}
	return anchors
}
