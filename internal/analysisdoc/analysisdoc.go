package analysisdoc

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"strings"
)

// Extract returns the documentation of analyzer name from content, the
// source of a Go file with a package comment: the text of the section
// headed "# Analyzer name", without the "name: " that begins it.
func Extract(content, name string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", content, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return "", fmt.Errorf("not a Go file: %v", err)
	}
	if f.Doc == nil {
		return "", errors.New("no package comment")
	}
	heading := "Analyzer " + name
	for _, section := range strings.Split("\n"+f.Doc.Text(), "\n# ") {
		title, body, _ := strings.Cut(section, "\n")
		if strings.TrimSpace(title) != heading {
			continue
		}
		body = strings.TrimSpace(body)
		text, ok := strings.CutPrefix(body, name+":")
		if !ok {
			return "", fmt.Errorf("the %q section does not begin with %q", heading, name+": summary")
		}
		return strings.TrimSpace(text), nil
	}
	return "", fmt.Errorf("no %q section in the package comment", heading)
}

// MustExtract is Extract for a package's own embedded doc.go, which a test
// keeps well-formed: it panics on an error.
func MustExtract(content, name string) string {
	doc, err := Extract(content, name)
	if err != nil {
		panic(fmt.Sprintf("analyzer %s: %v", name, err))
	}
	return doc
}
