package source

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

func TestNames(t *testing.T) {
	n := NamesUnder("/usr/local/go", "/home/u/go/pkg/mod",
		[2]string{"example.com/app", "/src/app"},
		[2]string{"example.com/tools", "/src/tools"},
		[2]string{"example.com/app/inner", "/src/app/inner"})
	for _, c := range []struct{ file, want string }{
		{"/src/app/parse.go", "parse.go"},
		{"/src/app/cmd/x/main.go", "cmd/x/main.go"},
		{"/src/tools/lint/lint.go", "example.com/tools/lint/lint.go"},
		// The innermost module's directory wins.
		{"/src/app/inner/a.go", "example.com/app/inner/a.go"},
		{"/usr/local/go/src/strconv/atoi.go", "std/strconv/atoi.go"},
		{"/home/u/go/pkg/mod/github.com/google/btree@v1.1.3/btree.go", "github.com/google/btree@v1.1.3/btree.go"},
		{"/home/u/go/pkg/mod/github.com/!burnt!sushi/toml@v1.4.0/internal/tz.go", "github.com/BurntSushi/toml@v1.4.0/internal/tz.go"},
		// Another machine's module cache.
		{"/root/go/pkg/mod/golang.org/x/text@v0.3.0/width/width.go", "golang.org/x/text@v0.3.0/width/width.go"},
		// The download cache is no module's directory.
		{"/home/u/go/pkg/mod/cache/download/x@v1/a.go", "/home/u/go/pkg/mod/cache/download/x@v1/a.go"},
		{"/elsewhere/a.go", "/elsewhere/a.go"},
		{"relative/a.go", "relative/a.go"},
		// A directory's name that only starts like a module's.
		{"/src/application/a.go", "/src/application/a.go"},
	} {
		if got := n.File(c.file); got != c.want {
			t.Errorf("File(%s) = %s, want %s", c.file, got, c.want)
		}
	}
}

// TestNamesOfPackage: a file under no root is named by its package.
func TestNamesOfPackage(t *testing.T) {
	n := NamesUnder("/usr/local/go", "/home/u/go/pkg/mod", [2]string{"example.com/app", "/src/app"})
	for _, c := range []struct{ file, pkg, want string }{
		{"/elsewhere/fixed/version.go", "example.com/version", "example.com/version/version.go"},
		{"/elsewhere/app/cmd/x/main.go", "example.com/app/cmd/x", "cmd/x/main.go"},
		{"/src/app/parse.go", "example.com/other", "parse.go"}, // under a root: the root's name
		{"/elsewhere/gram.y", "example.com/app", "/elsewhere/gram.y"},
	} {
		if got := n.FileOf(c.file, c.pkg); got != c.want {
			t.Errorf("FileOf(%s, %s) = %s, want %s", c.file, c.pkg, got, c.want)
		}
	}
}

// TestNamesRecorded: what File names, Recorded turns back into a suffix of
// the recorded name.
func TestNamesRecorded(t *testing.T) {
	n := NamesUnder("/usr/local/go", "/home/u/go/pkg/mod", [2]string{"example.com/app", "/src/app"})
	for _, file := range []string{
		"/src/app/parse.go",
		"/usr/local/go/src/strconv/atoi.go",
		"/home/u/go/pkg/mod/github.com/!burnt!sushi/toml@v1.4.0/decode.go",
		"/home/u/go/pkg/mod/example.com/m@v1.0.0-!r!c1/a.go",
	} {
		name := n.File(file)
		if !strings.HasSuffix(file, "/"+Recorded(name)) {
			t.Errorf("File(%s) = %s, and Recorded of it %s is not a suffix", file, name, Recorded(name))
		}
	}
}

// TestNamesInModule asks the go command from this package's directory:
// this module's files are named from its root.
func TestNamesInModule(t *testing.T) {
	abs, err := filepath.Abs("names.go")
	if err != nil {
		t.Fatal(err)
	}
	if got := NamesIn(".").File(abs); got != "internal/source/names.go" {
		t.Errorf("File(%s) = %s, want internal/source/names.go", abs, got)
	}
}

func TestFuncName(t *testing.T) {
	for _, c := range []struct{ pkg, name, want string }{
		{"github.com/pathcover/pathcover/example/expr", "Parse", "expr.Parse"},
		{"github.com/pathcover/pathcover/example/expr", "github.com/pathcover/pathcover/example/expr.(*parser).next", "expr.(*parser).next"},
		{"strconv", "Atoi", "strconv.Atoi"},
		{"main", "main", "main.main"},
		{"", "f", "f"},
	} {
		if got := FuncName(c.pkg, c.name); got != c.want {
			t.Errorf("FuncName(%q, %q) = %q, want %q", c.pkg, c.name, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	src := "package a\n\nfunc f(s string) int {\n\tif  s[0] >= '0' &&\n\t\ts[0] <= '9' {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	s := Under(dir)
	for _, c := range []struct {
		line, col, endLine, endCol int
		sum                        string
		want                       string
	}{
		{6, 3, 6, 11, "", "return 1"},
		{4, 2, 7, 3, "", "if s[0] >= '0' && …"},
		{4, 6, 4, 17, "", "s[0] >= '0'"},
		{8, 2, 8, 10, hashForTest(src), "return 0"},
		{8, 2, 8, 10, "0123", ""}, // edited since
		{99, 1, 99, 2, "", ""},
		{3, 80, 3, 81, "", ""},
	} {
		got, ok := s.Text(file, c.sum, c.line, c.col, c.endLine, c.endCol)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Text(%d:%d-%d:%d) = %q, %v, want %q", c.line, c.col, c.endLine, c.endCol, got, ok, c.want)
		}
	}
	if got := Clip("abcdef", 4); got != "abc…" {
		t.Errorf("Clip = %q", got)
	}
	if got := Clip("äbc", 3); got != "äbc" {
		t.Errorf("Clip = %q", got)
	}
}

func hashForTest(src string) string { return profile.Hash([]byte(src)) }
