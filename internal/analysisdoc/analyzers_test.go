package analysisdoc_test

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/pathcover/pathcover/analyzer/pathcover"
	"github.com/pathcover/pathcover/analyzer/pathnumber"
	"github.com/pathcover/pathcover/internal/analysisdoc"
)

// TestAnalyzers: each analyzer's Doc is its doc.go's "Analyzer NAME"
// section, as go doc shows it, summary first.
func TestAnalyzers(t *testing.T) {
	for _, tc := range []struct {
		a       *analysis.Analyzer
		doc     string // its package's doc.go
		summary string
	}{
		{pathcover.Analyzer, "../../analyzer/pathcover/doc.go", "report functions with too many acyclic paths"},
		{pathnumber.Analyzer, "../../analyzer/pathnumber/doc.go", "number the acyclic paths of every function"},
	} {
		src, err := os.ReadFile(tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		want, err := analysisdoc.Extract(string(src), tc.a.Name)
		if err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		if first, _, _ := strings.Cut(tc.a.Doc, "\n"); tc.a.Doc != want || first != tc.summary {
			t.Errorf("%s's Doc is not its doc.go's section:\n%s", tc.a.Name, tc.a.Doc)
		}
	}
}
