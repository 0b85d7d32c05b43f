package driver

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestingCalls: every call of testingCalls lands in this Go's
// testing.go, no line moves, and the result parses; a testing.go without
// a needed place is refused, one without another is compiled with the
// place named.
func TestTestingCalls(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	name := filepath.Join(strings.TrimSpace(string(goroot)), "src", "testing", "testing.go")
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	out, missed, err := addTestingCalls(name, src)
	if err != nil || len(missed) > 0 {
		t.Fatalf("this Go's testing.go: %v; missed %v", err, missed)
	}
	directive, rest, _ := strings.Cut(string(out), "\n")
	if directive != "//line "+name+":1:1" || strings.Count(rest, "\n") != strings.Count(string(src), "\n") {
		t.Error("the lines moved")
	}
	if _, err := parser.ParseFile(token.NewFileSet(), name, rest, parser.SkipObjectResolution); err != nil {
		t.Fatalf("testing.go as patched: %v", err)
	}
	for _, c := range testingCalls {
		var subject string
		switch c.fn {
		case "M.Run":
			subject = "m"
		default:
			subject = "t"
		}
		call := strings.Trim(strings.Replace(c.text, "%s", subject, 1), "; ")
		if strings.Contains(call, "Resume") {
			continue // twice: counted below
		}
		if n := strings.Count(rest, call); n != 1 {
			t.Errorf("%s is in the patched file %d times", call, n)
		}
	}
	if strings.Count(rest, "pathcoverTestResume(t)") != 2 {
		t.Error("the two resumes are not both placed")
	}

	// Without the end: refused. Without the wait: placed elsewhere, named.
	noEnd := strings.Replace(string(src), "t.signal <- signal", "t.signal <- (signal)", 1)
	if _, _, err := addTestingCalls(name, []byte(noEnd)); err == nil || !strings.Contains(err.Error(), "pathcoverTestEnd") {
		t.Errorf("a testing.go where the end cannot be placed: %v", err)
	}
	noWait := strings.Replace(string(src), "close(t.barrier)", "close((t.barrier))", 1)
	if _, missed, err := addTestingCalls(name, []byte(noWait)); err != nil || len(missed) != 1 || !strings.Contains(missed[0], "close(t.barrier)") {
		t.Errorf("a testing.go where the wait cannot be placed: %v, missed %v", err, missed)
	}
}
