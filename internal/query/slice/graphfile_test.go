package slice

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

// graphDir writes a valid random recording of fuzzMeta's package into a
// new directory, with its metadata, and returns the directory.
func graphDir(t testing.TB, seed uint64, n uint16) string {
	hash, raw := fuzzMeta(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	fuzzRecording(t, dir, hash, seed, n, true)
	return dir
}

// graphBytes builds OPT of dir and returns its graph file's bytes, with
// the directory's profile and inputs.
func graphBytes(t testing.TB, dir string) ([]byte, *profile.Profile, []inputFile) {
	o, err := LoadCompact(dir)
	if err != nil {
		t.Fatal(err)
	}
	in, err := graphInputs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := o.writeGraph(&buf, in); err != nil {
		t.Fatal(err)
	}
	p := profile.New()
	if _, err := p.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), p, in
}

// TestGraphFile: OpenCompact builds OPT and keeps it in the directory's
// graph file, then reads it from there; the graph read has every node of
// the graph built, and its slices; written again, it is the same bytes.
func TestGraphFile(t *testing.T) {
	for seed := range uint64(30) {
		dir := graphDir(t, seed, uint16(100+40*seed))
		built, gf, err := OpenCompact(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !gf.Wrote || gf.Read || gf.Bytes == 0 || gf.Outdated || gf.ReadErr != nil {
			t.Fatalf("seed %d: first OpenCompact: %+v, want it built and written", seed, gf)
		}
		t.Logf("seed %d: %d nodes, %d calls, %d labels, file %d bytes", seed, built.Nodes(), built.Calls(), built.Labelled(), gf.Bytes)
		read, gf, err := OpenCompact(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !gf.Read || gf.Wrote {
			t.Fatalf("seed %d: second OpenCompact: %+v, want it read", seed, gf)
		}
		if read.Nodes() != built.Nodes() || read.Calls() != built.Calls() || read.Bytes() != built.Bytes() || read.Labelled() != built.Labelled() {
			t.Fatalf("seed %d: read %d nodes, %d calls, %d bytes, %d labels; built %d, %d, %d, %d", seed,
				read.Nodes(), read.Calls(), read.Bytes(), read.Labelled(), built.Nodes(), built.Calls(), built.Bytes(), built.Labelled())
		}
		if strings.Join(read.Problems, "\n") != strings.Join(built.Problems, "\n") {
			t.Errorf("seed %d: problems read %q, built %q", seed, read.Problems, built.Problems)
		}
		for n := range int32(built.Nodes()) {
			want, err := built.Node(n)
			if err != nil {
				t.Fatal(err)
			}
			got, err := read.Node(n)
			if err != nil {
				t.Fatalf("seed %d: node %d read: %v", seed, n, err)
			}
			if d, w := fuzzNode(read.Funcs(), got), fuzzNode(built.Funcs(), want); d != w {
				t.Fatalf("seed %d: node %d read: %s, built %s", seed, n, d, w)
			}
		}
		for line := 1; line <= 3; line++ {
			c := Criterion{File: "p.go", Line: line}
			want, werr := built.Slice(c)
			got, err := read.Slice(c)
			if (err == nil) != (werr == nil) || err == nil && !sameSlice(t, want, got) {
				t.Fatalf("seed %d: slice of line %d read: %v, %v; built: %v, %v", seed, line, got, err, want, werr)
			}
		}
		in, err := graphInputs(dir)
		if err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := read.writeGraph(&again, in); err != nil {
			t.Fatal(err)
		}
		if file, err := os.ReadFile(gf.Path); err != nil || !bytes.Equal(file, again.Bytes()) {
			t.Fatalf("seed %d: the graph read, written again, is not its file's bytes (%v)", seed, err)
		}
	}
}

// TestGraphFileStale: a graph file built from other recordings, or that
// cannot be read, is built again; one that cannot be written is noted,
// and the slice goes on.
func TestGraphFileStale(t *testing.T) {
	a, b := graphDir(t, 1, 300), graphDir(t, 2, 300)
	if _, _, err := OpenCompact(a); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(profile.DerivedPath(a, profile.KindDDG))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(profile.DerivedPath(b, profile.KindDDG), file, 0o644); err != nil {
		t.Fatal(err)
	}
	o, gf, err := OpenCompact(b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := LoadCompact(b)
	if err != nil {
		t.Fatal(err)
	}
	if gf.Read || !gf.Wrote || !gf.Outdated || o.Nodes() != want.Nodes() {
		t.Errorf("a graph file of another recording: %+v, %d nodes; want it built again (%d nodes) and written", gf, o.Nodes(), want.Nodes())
	}

	// Corrupt: built again, and the file replaced.
	name := profile.DerivedPath(b, profile.KindDDG)
	file, _ = os.ReadFile(name)
	file[len(file)-1] ^= 1
	os.WriteFile(name, file, 0o644)
	if _, gf, err = OpenCompact(b); err != nil || gf.Read || !gf.Wrote || gf.ReadErr == nil || !strings.Contains(gf.ReadErr.Error(), "corrupt") {
		t.Errorf("a corrupt graph file: %+v, %v; want it built again and written", gf, err)
	}

	// Not a file: it can be neither read nor replaced.
	c := graphDir(t, 3, 300)
	if err := os.Mkdir(profile.DerivedPath(c, profile.KindDDG), 0o755); err != nil {
		t.Fatal(err)
	}
	o, gf, err = OpenCompact(c)
	if err != nil || o == nil || gf.Read || gf.Wrote || gf.WriteErr == nil || gf.ReadErr == nil || !strings.Contains(gf.ReadErr.Error(), "not a regular file") {
		t.Errorf("a directory named as the graph file: %+v, %v; want the graph built, and the file neither read nor written", gf, err)
	}
}

// TestGraphFileBitFlips: a graph file with any bit flipped is refused.
func TestGraphFileBitFlips(t *testing.T) {
	dir := graphDir(t, 4, 120)
	data, p, in := graphBytes(t, dir)
	if _, err := readGraph(data, dir, p, in); err != nil {
		t.Fatal(err)
	}
	for i := range 8 * len(data) {
		flipped := bytes.Clone(data)
		flipped[i/8] ^= 1 << (i % 8)
		if _, err := readGraph(flipped, dir, p, in); err == nil {
			t.Fatalf("bit %d of %d flipped: read without an error", i, 8*len(data))
		}
	}
}

// FuzzReadGraph: a graph file of any bytes behind valid checksums (the
// sums are not checked in this test) is refused, or read into a graph
// whose every node and slice answers without a panic.
func FuzzReadGraph(f *testing.F) {
	dir := graphDir(f, 5, 400)
	data, p, in := graphBytes(f, dir)
	f.Add(data)
	small, _, _ := graphBytes(f, graphDir(f, 6, 60))
	f.Add(small)
	f.Fuzz(func(t *testing.T, data []byte) {
		verifyGraphSums = false
		defer func() { verifyGraphSums = true }()
		o, err := readGraph(data, dir, p, in)
		if err != nil {
			return
		}
		for n := range int32(o.Nodes()) {
			o.nodeAt(n)
		}
		for line := 1; line <= 3; line++ {
			if s, err := o.Slice(Criterion{File: "p.go", Line: line}); err == nil {
				s.Walk(func(int, Step) error { return nil })
			}
		}
	})
}
