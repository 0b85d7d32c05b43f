package instrument

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

// TestHotSetExpr compiles and runs hotSetExpr's Go, which instrumented
// code uses to find a path's set in a hot path table, and requires it to
// give the set that rt and profile give (profile.HotSet), so that the
// inlined hit looks where rt.CountHot puts paths: were it to look
// elsewhere, every count would still be right, only slower, and no
// count-checking test could tell.
func TestHotSetExpr(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	ids := []uint64{0, 1, 2, 3, 7, 1 << 20, 1<<40 + 5, 1<<63 + 12345, ^uint64(0) - 3}
	setsOf := []uint64{1, 2, 64, 1 << 12}
	lit := strings.ReplaceAll(strings.Trim(fmt.Sprint(ids), "[]"), " ", ", ")
	var src, want strings.Builder
	src.WriteString("package main\n\nimport \"fmt\"\n\nfunc main() {\n")
	for _, sets := range setsOf {
		fmt.Fprintf(&src, "\tfor _, r := range []uint64{%s} {\n\t\tfmt.Println(%s)\n\t}\n", lit, hotSetExpr("(r+3)", sets))
		for _, id := range ids {
			fmt.Fprintln(&want, profile.HotSet(id+3, sets))
		}
	}
	src.WriteString("}\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "main.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GO111MODULE=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s\n%s", err, out, src.String())
	}
	if string(out) != want.String() {
		t.Errorf("the sets of hotSetExpr's Go:\n%s\nprofile.HotSet's:\n%s", out, want.String())
	}
}
