package main

import (
	"bytes"
	"flag"
	"go/format"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/buildspec"
)

var fixDocs = flag.Bool("fixdocs", false, "rewrite doc.go from the command table")

// TestDocsUpToDate checks that doc.go is what the command table makes of
// it, as cmd/go's test of alldocs.go does; with -fixdocs (go generate) it
// rewrites doc.go.
func TestDocsUpToDate(t *testing.T) {
	// The defaults that -h shows for -dir and -github come from the
	// environment; the documentation's must not.
	t.Setenv("PATHCOVERDIR", "")
	t.Setenv("GITHUB_ACTIONS", "")
	doc, err := format.Source(docFile())
	if err != nil {
		t.Fatalf("the documentation made from the commands is not Go: %v\n%s", err, docFile())
	}
	old, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(old, doc) {
		return
	}
	if *fixDocs {
		if err := os.WriteFile("doc.go", doc, 0o666); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote doc.go")
		return
	}
	oldLines, newLines := strings.Split(string(old), "\n"), strings.Split(string(doc), "\n")
	for i := range max(len(oldLines), len(newLines)) {
		if i >= len(oldLines) || i >= len(newLines) || oldLines[i] != newLines[i] {
			t.Errorf("doc.go is stale from line %d on: run go generate in cmd/pathcover.\nhave: %q\nwant: %q",
				i+1, line(oldLines, i), line(newLines, i))
			break
		}
	}
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end of file)"
}

// TestCommandTable checks each command against its usage line: its name,
// and the flags, which must be those it declares.
func TestCommandTable(t *testing.T) {
	t.Setenv("PATHCOVERDIR", "")
	seen := map[string]bool{}
	usageFlag := regexp.MustCompile(`\[?-([a-z]+)`)
	for _, c := range allCommands() {
		name := c.LongName()
		if seen[name] {
			t.Errorf("two commands named %s", name)
		}
		seen[name] = true
		if c.parent == nil && lookup(c.Name()) != c || c.parent != nil && c.parent.sub(c.Name()) != c {
			t.Errorf("lookup(%q) is not the command", name)
		}
		if !strings.HasPrefix(c.UsageLine, name) {
			t.Errorf("%s: usage line %q", name, c.UsageLine)
		}
		if c.Short == "" || strings.HasSuffix(c.Short, ".") || c.Long == "" {
			t.Errorf("%s: short %q, long %q", name, c.Short, c.Long)
		}
		if name == "pathcover pppexec" {
			continue // driver.Main's flags
		}
		fs, _ := c.flagSet()
		var declared []string
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.HasPrefix(f.Usage, "deprecated:") { // an old spelling, said as such
				declared = append(declared, f.Name)
			}
		})
		var inUsage []string
		for _, m := range usageFlag.FindAllStringSubmatch(c.UsageLine, -1) {
			inUsage = append(inUsage, m[1])
		}
		if strings.Contains(c.UsageLine, "[build flags]") {
			// buildspec's flags, pppexec's: their help lists them.
			var spec buildspec.Spec
			build := flag.NewFlagSet("", flag.ContinueOnError)
			spec.AddFlags(build)
			build.VisitAll(func(f *flag.Flag) { inUsage = append(inUsage, f.Name) })
		}
		slices.Sort(inUsage)
		if !slices.Equal(declared, inUsage) {
			t.Errorf("%s declares flags %q; its usage line %q names %q", name, declared, c.UsageLine, inUsage)
		}
		var help bytes.Buffer
		c.help(&help)
		if !strings.HasPrefix(help.String(), "usage: "+c.UsageLine+"\n\n") {
			t.Errorf("%s: help begins %q", name, help.String())
		}
		for _, f := range declared {
			if !strings.Contains(help.String(), "  -"+f) {
				t.Errorf("%s: help does not describe -%s:\n%s", name, f, help.String())
			}
		}
	}
	// Each command's usage line is in doc.go and in 'pathcover help'.
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var list bytes.Buffer
	usage(&list)
	for _, c := range allCommands() {
		if !strings.Contains(string(doc), "//\t"+c.UsageLine+"\n") {
			t.Errorf("doc.go lacks the usage line %q", c.UsageLine)
		}
		list := list.Bytes()
		if c.parent != nil { // its command's help lists it
			var help bytes.Buffer
			c.parent.help(&help)
			list = help.Bytes()
		}
		if !regexp.MustCompile(`\n\t` + c.Name() + ` +` + regexp.QuoteMeta(c.Short) + `\n`).Match(list) {
			t.Errorf("%s is not listed:\n%s", c.LongName(), list)
		}
	}
}
