package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
)

// TestRelativeDir: PATHCOVERDIR=prof go test ./... writes one profile
// into prof of the directory go test ran in, as the user meant, not a prof
// into each package's directory, which go test runs each test binary in:
// rt takes a relative directory from the go command's working directory.
func TestRelativeDir(t *testing.T) {
	t.Parallel()
	bin := pppexec(t)
	mod := t.TempDir()
	test := "package %s\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F(1) }\n"
	code := "package %s\n\nfunc F(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
	files := map[string]string{"go.mod": "module example.com/rel\n\ngo 1.25\n"}
	for _, p := range []string{"a", "b"} {
		files[p+"/"+p+".go"] = fmt.Sprintf(code, p)
		files[p+"/"+p+"_test.go"] = fmt.Sprintf(test, p)
	}
	cmdtest.WriteFiles(t, mod, files)
	if out, code := run(t, mod, []string{"PATHCOVERDIR=prof"}, "go", "test", "-count=1", "-toolexec="+bin, "./..."); code != 0 {
		t.Fatalf("go test: exit %d\n%s", code, out)
	}
	for _, p := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(mod, p, "prof")); err == nil {
			t.Errorf("package %s has a prof directory of its own", p)
		}
	}
	counts, _ := filepath.Glob(filepath.Join(mod, "prof", "*.counts"))
	if len(counts) != 2 {
		t.Fatalf("%d counter files in the module's prof; want the two test binaries'", len(counts))
	}
	p := cmdtest.LoadProfile(t, filepath.Join(mod, "prof"))
	pkgs := map[string]bool{}
	for _, m := range p.Metas {
		path, _, _ := strings.Cut(m.Package, " ") // "p [p.test]"
		pkgs[path] = true
	}
	if !pkgs["example.com/rel/a"] || !pkgs["example.com/rel/b"] {
		t.Errorf("the profile holds packages %v; want a and b", pkgs)
	}
}
