package funcgraph

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/pathcover/pathcover/numbering"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden compares the dumps of the tricky cases with testdata/golden,
// which were checked by hand. Run with -update after a deliberate change,
// and check the diff by hand again.
func TestGolden(t *testing.T) {
	fset, byName, funcs := buildDir(t, "testdata/golden")
	if len(funcs) != 5 {
		t.Fatalf("%d functions in testdata/golden", len(funcs))
	}
	for name, f := range byName {
		t.Run(name, func(t *testing.T) {
			n, err := numbering.Number(&f.Graph, &numbering.Options{Preferred: f.Preferred})
			if err != nil {
				t.Fatal(err)
			}
			p, err := n.Place(nil)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			f.Format(&buf, fset, p)
			file := filepath.Join("testdata", "golden", name+".golden")
			if *update {
				if err := os.WriteFile(file, buf.Bytes(), 0o666); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("dump of %s differs from %s:\n%s", name, file, buf.String())
			}
			checkFunc(t, fset, f)
		})
	}
}
