package pathnumber

import (
	"os"
	"strings"
	"testing"
)

// TestDoc: the analyzer's Doc is doc.go's "Analyzer pathnumber" section, as go
// doc shows it, summary first.
func TestDoc(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "// pathnumber: number the acyclic paths of every function") {
		t.Fatalf("doc.go has no summary line")
	}
	summary, _, _ := strings.Cut(Analyzer.Doc, "\n")
	if summary != "number the acyclic paths of every function" || !strings.Contains(strings.Join(strings.Fields(Analyzer.Doc), " "), "chords of a maximum spanning tree") {
		t.Errorf("Analyzer.Doc is not doc.go's section:\n%s", Analyzer.Doc)
	}
}
