package pathcover

import (
	"os"
	"strings"
	"testing"
)

// TestDoc: the analyzer's Doc is doc.go's "Analyzer pathcover" section, as go
// doc shows it, summary first.
func TestDoc(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "// pathcover: report functions with too many acyclic paths") {
		t.Fatalf("doc.go has no summary line")
	}
	summary, _, _ := strings.Cut(Analyzer.Doc, "\n")
	if summary != "report functions with too many acyclic paths" || !strings.Contains(strings.Join(strings.Fields(Analyzer.Doc), " "), "-pathcover.maxpaths") {
		t.Errorf("Analyzer.Doc is not doc.go's section:\n%s", Analyzer.Doc)
	}
}
