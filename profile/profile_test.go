package profile

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/numbering"
)

// diamondMeta is the metadata of a package with one function: two ifs in a
// row (4 paths, array counters) and a second function counted in a hash
// table.
func diamondMeta(t testing.TB) (*Meta, []byte) {
	t.Helper()
	g := numbering.Graph{}
	entry, exit := g.AddBlock(), g.AddBlock()
	a, b := g.AddBlock(), g.AddBlock()
	g.Entry, g.Exit = entry, exit
	g.AddEdge(entry, a, true)
	g.AddEdge(entry, b, true)
	g.AddEdge(a, b, true)
	g.AddEdge(b, exit, true)
	g.AddEdge(a, exit, true)
	m := &Meta{Format: MetaFormat, Package: "example.com/p", Mode: "bl", Files: []string{"p.go"}}
	for i, kind := range []CounterKind{CounterArray, CounterHash} {
		f := Func{Name: []string{"F", "G"}[i], Line: 3, EndLine: 9, Entry: 0, Exit: 1}
		for range g.NumBlocks {
			f.Blocks = append(f.Blocks, Block{Kind: "body", Line: 4, Col: 2, EndLine: 4, EndCol: 9})
		}
		f.Blocks[a].Calls = []StaticCall{{Line: 4, Col: 3, Package: "example.com/q", Func: "(*T).M"}}
		for _, e := range g.Edges {
			f.Edges = append(f.Edges, Edge{Src: int32(e.Src), Dst: int32(e.Dst), Probe: e.Probe, Kind: "flow", Line: 4, Col: 2})
		}
		n, err := numbering.Number(&g, nil)
		if err != nil {
			t.Fatal(err)
		}
		f.Paths, f.Total = n.NumPaths(), n.Total().String()
		size := int(n.NumPaths())
		if kind == CounterHash {
			size = 2*5 + 1
		}
		f.Counters = Counters{Offset: m.Words, Kind: kind, Size: size}
		m.Words += size
		m.Funcs = append(m.Funcs, f)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return m, raw
}

func TestMetaNumbering(t *testing.T) {
	m, raw := diamondMeta(t)
	got, err := ParseMeta(raw)
	if err != nil {
		t.Fatal(err)
	}
	n, err := got.Funcs[0].Numbering()
	if err != nil || n.NumPaths() != 3 {
		t.Fatalf("Numbering: %v, %v", n, err)
	}
	// A changed graph is caught by the path count.
	m.Funcs[0].Paths = 4
	m.Funcs[0].Counters.Size = 4
	m.Funcs[1].Counters.Offset++
	m.Words++
	raw, _ = json.Marshal(m)
	bad, err := ParseMeta(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Funcs[0].Numbering(); err == nil || !strings.Contains(err.Error(), "another pathcover version") {
		t.Errorf("Numbering of a mismatched function: %v", err)
	}
}

// TestMetaBadCall checks that a call with no callee is refused.
func TestMetaBadCall(t *testing.T) {
	m, raw := diamondMeta(t)
	if got, err := ParseMeta(raw); err != nil || len(got.Funcs[0].Blocks[2].Calls) != 1 {
		t.Fatalf("ParseMeta: %v; calls lost", err)
	}
	m.Funcs[0].Blocks[2].Calls[0].Func = ""
	raw, _ = json.Marshal(m)
	if _, err := ParseMeta(raw); err == nil || !strings.Contains(err.Error(), "block 2: call") {
		t.Errorf("ParseMeta of a call with no callee: %v", err)
	}
}

// superMeta is diamondMeta with a supergraph: F with G inlined at the call
// in F's block 2, as pppexec -ippp describes it.
func superMeta(t testing.TB) (*Meta, []byte) {
	t.Helper()
	m, _ := diamondMeta(t)
	f, g := &m.Funcs[0], &m.Funcs[1]
	sg, err := numbering.Inline(f.Graph(), nil, []numbering.CallSite{{Block: 2, Callee: g.Graph()}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := numbering.Number(&sg.Graph, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := Func{
		Name: f.Name + SuperSuffix, Line: f.Line, EndLine: f.EndLine, Entry: int32(sg.Graph.Entry), Exit: int32(sg.Graph.Exit),
		Paths: n.NumPaths(), Total: n.Total().String(),
		Counters: Counters{Offset: m.Words, Kind: "array", Size: int(n.NumPaths())},
		Super:    &Super{Caller: 0, Sites: []SuperSite{{Parent: -1, Block: 2, Call: 0, Callee: 1, Func: "G", File: "p.go"}}},
	}
	for _, o := range sg.Blocks {
		s.Blocks = append(s.Blocks, Block{Kind: "body", Line: 4, Col: 2, EndLine: 4, EndCol: 9})
		s.Super.Blocks = append(s.Super.Blocks, Origin{Site: o.Site, Index: int32(o.Block), After: o.After})
	}
	for i, o := range sg.Edges {
		e := sg.Graph.Edges[i]
		s.Edges = append(s.Edges, Edge{Src: int32(e.Src), Dst: int32(e.Dst), Probe: e.Probe, Kind: "flow", Line: 4, Col: 2})
		s.Super.Edges = append(s.Super.Edges, Origin{Site: o.Site, Index: int32(o.Edge)})
	}
	m.Words += s.Counters.Size
	m.Funcs = append(m.Funcs, s)
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return m, raw
}

// TestMetaSuper checks that a supergraph's metadata reads and numbers, and
// that origins outside its caller and callees are refused.
func TestMetaSuper(t *testing.T) {
	_, raw := superMeta(t)
	m, err := ParseMeta(raw)
	if err != nil {
		t.Fatal(err)
	}
	n, err := m.Funcs[2].Numbering()
	if err != nil {
		t.Fatal(err)
	}
	// F has 3 paths, G 3; G is inlined on the 2 of F's paths through
	// block 2.
	if n.NumPaths() != 1+2*3 {
		t.Errorf("supergraph has %d paths, want 7", n.NumPaths())
	}
	for _, bad := range []struct {
		name   string
		mutate func(s *Super)
		want   string
	}{
		{"caller", func(s *Super) { s.Caller = 2 }, "caller 2"},
		{"callee", func(s *Super) { s.Sites[0].Callee = 7 }, "callee 7"},
		{"call", func(s *Super) { s.Sites[0].Call = 1 }, "no call 1"},
		{"parent", func(s *Super) { s.Sites[0].Parent = 0 }, "parent site 0"},
		{"file", func(s *Super) { s.Sites[0].File = "" }, "in file"},
		{"block", func(s *Super) { s.Blocks[5].Index = 40 }, "block origin"},
		{"site", func(s *Super) { s.Edges[0].Site = 3 }, "origin"},
		{"edge", func(s *Super) { s.Edges[len(s.Edges)-1].Index = -4 }, "edge origin"},
		{"count", func(s *Super) { s.Edges = s.Edges[1:] }, "edge origins"},
	} {
		m, _ := superMeta(t)
		bad.mutate(m.Funcs[2].Super)
		raw, _ := json.Marshal(m)
		if _, err := ParseMeta(raw); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: ParseMeta: %v, want an error with %q", bad.name, err, bad.want)
		}
	}
}

// residual is a residual table of function fn with lost runs lost and
// words dense.
func residual(hash string, fn int, lost uint64, dense ...uint64) Segment {
	s := NewSegment(hash, dense)
	s.Residual, s.Func, s.Lost = true, fn, lost
	return s
}

func TestCountsRoundTrip(t *testing.T) {
	big := make([]uint64, 700) // more than a page
	big[699] = 9
	f := &CountFile{PID: 42, Segments: []Segment{
		NewSegment(strings.Repeat("ab", 16), []uint64{1, 2, 3}),
		NewSegment(strings.Repeat("cd", 16), big),
		{Hash: strings.Repeat("ef", 16)},
		residual(strings.Repeat("ab", 16), 1, 2, 3, 4, 0, 0),
	}}
	var buf bytes.Buffer
	if err := WriteCounts(&buf, f); err != nil {
		t.Fatal(err)
	}
	got, err := ParseCounts(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got.PID != 42 || len(got.Segments) != 4 || !slices.Equal(got.Segments[1].Words, []Word{{699, 9}}) || got.Segments[1].Len != 700 || got.Segments[0].Hash != f.Segments[0].Hash {
		t.Fatalf("round trip: %+v", got)
	}
	if r := got.Segments[3]; !r.Residual || r.Func != 1 || r.Lost != 2 || r.Len != 4 || !slices.Equal(r.Words, []Word{{0, 3}, {1, 4}}) || got.Segments[0].Residual {
		t.Fatalf("residual table after a round trip: %+v", r)
	}
	// Cut anywhere, the file gives its whole segments and an error.
	data := buf.Bytes()
	for cut := 0; cut < len(data); cut += 7 {
		got, err := ParseCounts(data[:cut])
		if err == nil && cut < len(data) && len(got.Segments) == 4 {
			continue // cut in the last segment's padding
		}
		if got == nil {
			if cut >= 4096+64 {
				t.Fatalf("cut at %d: %v, nothing salvaged", cut, err)
			}
			continue
		}
		if !errors.Is(err, ErrTruncated) && err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
}

// profileDir writes a profile directory: the metadata and two processes.
func profileDir(t *testing.T) (string, string) {
	t.Helper()
	_, raw := diamondMeta(t)
	hash := Hash(raw)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o666); err != nil {
		t.Fatal(err)
	}
	words := make([]uint64, 14)
	words[0], words[2] = 5, 1 // F: path 0 five times, path 2 once
	words[3], words[4] = 2, 7 // G: path 1 seven times (key id+1 = 2)
	words[13] = 3             // G: three lost
	for i, pid := range []uint64{100, 101} {
		var buf bytes.Buffer
		if err := WriteCounts(&buf, &CountFile{PID: pid, Segments: []Segment{NewSegment(hash, words)}}); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, "pathcover."+[]string{"100", "101"}[i]+".0.counts")
		if err := os.WriteFile(name, buf.Bytes(), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dir, hash
}

func TestReadDir(t *testing.T) {
	dir, hash := profileDir(t)
	p := New()
	problems, err := p.ReadDir(dir)
	if err != nil || len(problems) != 0 {
		t.Fatalf("ReadDir: %v %v", problems, err)
	}
	want := map[int]map[uint64]uint64{0: {0: 10, 2: 2}, 1: {1: 14}}
	if p.Processes != 2 || !maps.EqualFunc(p.Counts[hash], want, maps.Equal) || p.Lost[hash][1] != 6 {
		t.Fatalf("counts %v, lost %v, processes %d", p.Counts[hash], p.Lost[hash], p.Processes)
	}
}

// TestReadDirBadFiles: each bad file gives one line naming it, and the rest
// of the profile is still read.
func TestReadDirBadFiles(t *testing.T) {
	dir, hash := profileDir(t)
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	good, _ := os.ReadFile(filepath.Join(dir, "pathcover.100.0.counts"))
	write("pathcover.200.0.counts", good[:4096+64+8])                           // truncated inside the segment
	write("pathcover.201.0.counts", []byte("hello, world, not counts at all!")) // foreign
	write(strings.Repeat("0", 32)+".meta", []byte(`{"Format":"pathcover-meta-1"}`))
	var other bytes.Buffer
	WriteCounts(&other, &CountFile{Segments: []Segment{NewSegment(strings.Repeat("9", 32), []uint64{1})}})
	write("pathcover.202.0.counts", other.Bytes()) // from another build
	write("notes.txt", []byte("ignored"))
	p := New()
	problems, err := p.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 4 {
		t.Fatalf("%d problems: %v", len(problems), problems)
	}
	for _, pr := range problems {
		var fe *FileError
		if !errors.As(pr, &fe) || strings.Contains(pr.Error(), "\n") || !strings.Contains(pr.Error(), dir) {
			t.Errorf("problem %q is not one line naming its file", pr)
		}
		t.Log(pr)
	}
	if p.Counts[hash][0][0] != 10 {
		t.Errorf("the good files were not all read: %v", p.Counts[hash])
	}
}

func TestTextRoundTrip(t *testing.T) {
	dir, _ := profileDir(t)
	p := New()
	if _, err := p.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	if err := p.WriteText(&first); err != nil {
		t.Fatal(err)
	}
	q := New()
	if err := q.ReadText(bytes.NewReader(first.Bytes())); err != nil {
		t.Fatal(err)
	}
	var second bytes.Buffer
	if err := q.WriteText(&second); err != nil {
		t.Fatal(err)
	}
	if first.String() != second.String() {
		t.Fatalf("round trip changed the profile:\n%s\n---\n%s", first.String(), second.String())
	}
	for hash, byFunc := range p.Counts {
		if !maps.EqualFunc(byFunc, q.Counts[hash], maps.Equal) {
			t.Errorf("counts of %s differ", hash)
		}
	}
	// Merging a profile into itself doubles it.
	if err := q.Merge(p); err != nil {
		t.Fatal(err)
	}
	for hash, byFunc := range p.Counts {
		for fn, byID := range byFunc {
			for id, c := range byID {
				if q.Counts[hash][fn][id] != 2*c {
					t.Errorf("merged count of %s/%d/%d = %d, want %d", hash, fn, id, q.Counts[hash][fn][id], 2*c)
				}
			}
		}
	}
	t.Logf("text profile:\n%s", first.String())
}

func TestReadTextErrors(t *testing.T) {
	_, raw := diamondMeta(t)
	hash := Hash(raw)
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "empty file"},
		{"header", "pathcover-profile 2\n", "not a pathcover text profile"},
		{"kind", textHeader + "\nfrobnicate 1\n", "line 2: unknown line kind"},
		{"meta hash", textHeader + "\nmeta " + strings.Repeat("0", 32) + " " + string(raw) + "\n", "line 2: content does not match"},
		{"no meta", textHeader + "\npaths " + hash + " 0 1 1\n", "line 2: no meta line"},
		{"path range", textHeader + "\nmeta " + hash + " " + string(raw) + "\npaths " + hash + " 0 3 1\n", "line 3: path 3 of F, which has 3 paths"},
		{"func range", textHeader + "\nmeta " + hash + " " + string(raw) + "\npaths " + hash + " 2 0 1\n", "line 3: bad function index"},
		{"count", textHeader + "\nmeta " + hash + " " + string(raw) + "\npaths " + hash + " 0 0 -1\n", "line 3: bad number"},
	} {
		err := New().ReadText(strings.NewReader(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}

// pppMeta is diamondMeta as a PPP build makes it: F counts its interesting
// paths 0 and 2 in a PPP array of 2 slots, G has none.
func pppMeta(t testing.TB) (*Meta, []byte) {
	m, _ := diamondMeta(t)
	m.Mode = "ppp"
	m.Funcs[0].Interesting, m.Funcs[0].PPPSize = []uint64{0, 2}, 2
	m.Funcs[0].Counters = Counters{Offset: 0, Kind: "ppp", Size: 4}
	m.Funcs[1].Counters = Counters{Offset: 4, Kind: "none"}
	m.Words = 4
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return m, raw
}

// TestReadPPP: the counts of a PPP build's array and residual tables add up
// to one count per path, and the residual paths are those not interesting.
func TestReadPPP(t *testing.T) {
	m, raw := pppMeta(t)
	hash := Hash(raw)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o666); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err := WriteCounts(&buf, &CountFile{PID: 1, Segments: []Segment{
		NewSegment(hash, []uint64{3, 5, 1, 4}), // path 2 five times, path 0 four
		residual(hash, 0, 0, 2, 6, 0, 0),       // path 1 six times
		residual(hash, 1, 1, 1, 1, 3, 2),       // G: paths 0 and 2, one run lost
		residual(hash, 0, 0, 2, 1),             // path 1 again, in a second table
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pathcover.1.0.counts"), buf.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	p := New()
	if problems, err := p.ReadDir(dir); err != nil || len(problems) > 0 {
		t.Fatalf("ReadDir: %v %v", problems, err)
	}
	want := map[int]map[uint64]uint64{0: {0: 4, 1: 7, 2: 5}, 1: {0: 1, 2: 2}}
	if !maps.EqualFunc(p.Counts[hash], want, maps.Equal) || p.Lost[hash][1] != 1 {
		t.Fatalf("counts %v, lost %v", p.Counts[hash], p.Lost[hash])
	}
	if f := &m.Funcs[0]; !f.IsInteresting(2) || f.IsInteresting(1) {
		t.Errorf("IsInteresting wrong for %v", f.Interesting)
	}
	// A residual table of a function the metadata does not have.
	buf.Reset()
	WriteCounts(&buf, &CountFile{Segments: []Segment{residual(hash, 5, 0, 1, 1)}})
	os.WriteFile(filepath.Join(dir, "pathcover.1.0.counts"), buf.Bytes(), 0o666)
	if problems, _ := New().ReadDir(dir); len(problems) != 1 || !strings.Contains(problems[0].Error(), "function 5") {
		t.Errorf("bad residual table: %v", problems)
	}
}

// smallCounts is a counter file with 512-byte pages, the smallest a reader
// accepts: the fuzzer works far faster on small inputs.
func smallCounts(words ...uint64) []byte {
	data := make([]byte, 512+512)
	copy(data, fileMagic)
	binary.LittleEndian.PutUint64(data[8:], 512)
	binary.LittleEndian.PutUint64(data[16:], 7)
	binary.LittleEndian.PutUint64(data[24:], byteOrderMark)
	seg := data[512:]
	copy(seg, segmentMagic)
	copy(seg[8:], strings.Repeat("\xab", 16))
	binary.LittleEndian.PutUint64(seg[24:], uint64(len(words)))
	for i, w := range words {
		binary.LittleEndian.PutUint64(seg[segmentHeader+8*i:], w)
	}
	return data
}

// staticCounts is a counter file of 512-byte pages with one segment as
// rt.RegisterStatic makes them, drawn by hand from the format's comment:
// a page of header, then the words at offset at in the next page, followed
// by a segment of the usual kind.
func staticCounts(at int, words ...uint64) []byte {
	data := make([]byte, 512)
	copy(data, fileMagic)
	binary.LittleEndian.PutUint64(data[8:], 512)
	binary.LittleEndian.PutUint64(data[16:], 7)
	binary.LittleEndian.PutUint64(data[24:], byteOrderMark)
	size := 512 + (at+8*len(words)+511)/512*512
	seg := make([]byte, size)
	copy(seg, segmentMagic)
	copy(seg[8:], strings.Repeat("\xcd", 16))
	binary.LittleEndian.PutUint64(seg[24:], uint64(len(words)))
	binary.LittleEndian.PutUint64(seg[32:], uint64(512+at))
	for i, w := range words {
		binary.LittleEndian.PutUint64(seg[512+at+8*i:], w)
	}
	return append(append(data, seg...), smallCounts(4)[512:]...)
}

// TestStaticSegment reads segments whose words start past a page of
// header, at any offset in their page, and stops at bad offsets.
func TestStaticSegment(t *testing.T) {
	for _, at := range []int{0, 8, 448, 504} {
		words := make([]uint64, 70) // over a page from at = 448
		words[0], words[69] = 3, 5
		cf, err := ParseCounts(staticCounts(at, words...))
		if err != nil {
			t.Fatalf("at %d: %v", at, err)
		}
		if len(cf.Segments) != 2 || cf.Segments[0].Hash != strings.Repeat("cd", 16) || cf.Segments[0].Len != 70 ||
			!slices.Equal(cf.Segments[0].Words, []Word{{0, 3}, {69, 5}}) || !slices.Equal(cf.Segments[1].Words, []Word{{0, 4}}) {
			t.Fatalf("at %d: %+v", at, cf.Segments)
		}
	}
	for _, start := range []uint64{8, 64, 511, 1020, 1024, 1 << 40} {
		data := staticCounts(0, 1)
		binary.LittleEndian.PutUint64(data[512+32:], start)
		if _, err := ParseCounts(data); err == nil || errors.Is(err, ErrTruncated) {
			t.Errorf("counters at %d: %v; want a bad header", start, err)
		}
	}
	// Cut in the header's page: truncated, not bad.
	if cf, err := ParseCounts(staticCounts(8, 1)[:512+300]); !errors.Is(err, ErrTruncated) || len(cf.Segments) != 0 {
		t.Errorf("cut segment: %v, %+v", err, cf)
	}
}

func FuzzParseCounts(f *testing.F) {
	f.Add(smallCounts(1, 2))
	f.Add(staticCounts(16, 1, 0, 2))
	f.Add(smallCounts(5, 0, 9)[:512+40])
	f.Add([]byte(fileMagic + "garbage"))
	res := smallCounts(2, 1, 0, 0)
	copy(res[512:], residualMagic)
	binary.LittleEndian.PutUint64(res[512+32:], 1)
	f.Add(res)
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := ParseCounts(data)
		if cf == nil {
			return
		}
		if err != nil && !errors.Is(err, ErrTruncated) {
			t.Fatalf("partial result with a non-truncation error: %v", err)
		}
		var out bytes.Buffer
		if err := WriteCounts(&out, cf); err != nil {
			t.Fatal(err)
		}
		again, err := ParseCounts(out.Bytes())
		if err != nil || len(again.Segments) != len(cf.Segments) {
			t.Fatalf("rewritten file: %v, %d segments of %d", err, len(again.Segments), len(cf.Segments))
		}
	})
}

func FuzzParseMeta(f *testing.F) {
	_, raw := diamondMeta(f)
	f.Add(raw)
	f.Add([]byte(`{"Format":"pathcover-meta-1","Mode":"bl"}`))
	_, ppp := pppMeta(f)
	f.Add(ppp)
	_, super := superMeta(f)
	f.Add(super)
	f.Add(depsMeta(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMeta(data)
		if err != nil {
			return
		}
		// A valid meta's dependence information indexes only what it has.
		for _, fn := range m.Funcs {
			if d := fn.Deps; d != nil {
				for _, list := range d.Blocks {
					for _, s := range list {
						st := d.Stmts[s]
						for _, v := range slices.Concat(st.Defs, st.Uses) {
							_ = d.Vars[v]
						}
						for _, c := range st.Calls {
							for _, a := range c.ArgCalls {
								for _, k := range a {
									_ = st.Calls[k]
								}
							}
						}
					}
				}
			}
		}
		// A valid meta's counters can be read from words of its size, and
		// its functions number or give an error, never a panic.
		for i := range m.Funcs {
			m.Funcs[i].PathCounts(nil)
			if n, err := m.Funcs[i].Numbering(); err == nil {
				n.Place(nil)
			}
		}
	})
}

// depsMeta is diamondMeta with statements for slicing (-deps).
func depsMeta(t testing.TB) []byte {
	m, _ := diamondMeta(t)
	m.Funcs[0].Deps = &Deps{
		Vars:    []DepVar{{Name: "x", Line: 3, Col: 8}, {Name: "y", Line: 4, Col: 2}},
		Params:  []int32{0},
		Results: []int32{1},
		Stmts: []DepStmt{
			{Line: 3, Col: 1, EndLine: 3, EndCol: 20, Defs: []int32{0}},
			{Line: 4, Col: 2, EndLine: 4, EndCol: 9, Defs: []int32{1}, Uses: []int32{0},
				Calls: []DepCall{{Line: 4, Col: 7, Package: "example.com/q", Func: "g", Args: [][]int32{{0}}}, {Line: 4, Col: 5, Method: "M", ArgCalls: [][]int32{{0}}}}},
			{Line: 5, Col: 2, EndLine: 5, EndCol: 10, Defs: []int32{1}, Uses: []int32{1}, Return: true, Memory: []string{"*p"}},
		},
		Blocks: [][]int32{nil, nil, {1}, {2}},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseMeta(raw); err != nil {
		t.Fatal(err)
	}
	return raw
}

func FuzzReadText(f *testing.F) {
	_, raw := diamondMeta(f)
	hash := Hash(raw)
	f.Add(textHeader + "\nprocesses 2\nmeta " + hash + " " + string(raw) + "\npaths " + hash + " 0 1 5\nlost " + hash + " 1 2\n")
	f.Add(textHeader + "\npaths x 0 1 5\n")
	f.Fuzz(func(t *testing.T, text string) {
		p := New()
		if err := p.ReadText(strings.NewReader(text)); err != nil {
			return
		}
		var out bytes.Buffer
		if err := p.WriteText(&out); err != nil {
			t.Fatal(err)
		}
		q := New()
		if err := q.ReadText(&out); err != nil {
			t.Fatalf("a profile that read back badly: %v", err)
		}
	})
}

func FuzzParseTrace(f *testing.F) {
	h := strings.Repeat("ab", 16)
	f.Add("call " + h + " 0 1\nedge 1 3\nedge 1 5\ncall " + h + " 2 2\nedge 2 0\n")
	f.Add("edge 9 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		calls, err := ParseTrace(strings.NewReader(text))
		if err != nil {
			return
		}
		for _, c := range calls {
			if len(c.Hash) != 32 || c.Func < 0 {
				t.Fatalf("accepted a bad call %+v", c)
			}
		}
	})
}

// TestDepsChecked: statements that name variables, statements or calls a
// function does not have are refused.
func TestDepsChecked(t *testing.T) {
	raw := depsMeta(t)
	for _, bad := range []struct{ from, to string }{
		{`"Uses":[0]`, `"Uses":[7]`},
		{`"Blocks":[null,null,[1],[2]]`, `"Blocks":[null,null,[1],[9]]`},
		{`"Blocks":[null,null,[1],[2]]`, `"Blocks":[null,[1],[2]]`},
		{`"ArgCalls":[[0]]`, `"ArgCalls":[[4]]`},
		{`"Name":"y"`, `"Name":"y\u202e"`},
	} {
		s := string(raw)
		if !strings.Contains(s, bad.from) {
			t.Fatalf("%s not in %s", bad.from, s)
		}
		if _, err := ParseMeta([]byte(strings.Replace(s, bad.from, bad.to, 1))); err == nil {
			t.Errorf("%s accepted", bad.to)
		}
	}
}

// TestCompressMeta checks the compressed form of metadata files: the same
// JSON always compresses to the same bytes, which MetaJSON gives back, and
// a profile reads a compressed file as it reads the JSON.
func TestCompressMeta(t *testing.T) {
	_, raw := diamondMeta(t)
	gz := CompressMeta(raw)
	if !bytes.Equal(gz, CompressMeta(raw)) {
		t.Fatal("CompressMeta gave two results for the same JSON")
	}
	if len(gz) >= len(raw) {
		t.Errorf("compressed %d bytes of JSON into %d", len(raw), len(gz))
	}
	back, err := MetaJSON(gz)
	if err != nil || !bytes.Equal(back, raw) {
		t.Fatalf("MetaJSON(CompressMeta(json)) = %q, %v", back, err)
	}
	if plain, err := MetaJSON(raw); err != nil || !bytes.Equal(plain, raw) {
		t.Fatalf("MetaJSON(json) = %q, %v", plain, err)
	}
	hash := Hash(raw)
	for _, content := range [][]byte{gz, raw} {
		p := New()
		if err := p.AddMeta(hash, content); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p.Raw[hash], raw) {
			t.Errorf("Raw holds %q, want the JSON", p.Raw[hash])
		}
	}
	if err := New().AddMeta(Hash(gz), gz); err == nil {
		t.Error("metadata named by the hash of its compressed bytes was accepted")
	}
	if _, err := MetaJSON(gz[:len(gz)/2]); err == nil {
		t.Error("truncated compressed metadata was accepted")
	}
}

// TestCompressedMetaLimit checks that compressed metadata that would grow
// past MaxMetaSize is refused, not read into memory whole.
func TestCompressedMetaLimit(t *testing.T) {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	zeros := make([]byte, 1<<20)
	for range MaxMetaSize>>20 + 1 {
		w.Write(zeros)
	}
	w.Close()
	if _, err := MetaJSON(b.Bytes()); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("MetaJSON of %d bytes that decompress to more than %d: %v", b.Len(), MaxMetaSize, err)
	}
}

// TestMetaBomb: metadata that inflates far past what pathcover's
// compression saves, or whose JSON is all empty objects (which parsed to
// a hundred times their bytes: a 255 KB file of them took 6 GB), is
// refused before it is parsed, by the reader of a profile's directory
// too, with the file's name and the reason.
func TestMetaBomb(t *testing.T) {
	json := []byte(`{"Format":1,"Package":"p","Funcs":[` + strings.Repeat("{},", 4<<20) + `{}]}`)
	bomb := CompressMeta(json)
	if _, err := MetaJSON(bomb); err == nil || !strings.Contains(err.Error(), "64 times") {
		t.Errorf("%d bytes inflating to %d: %v; want refused by the ratio", len(bomb), len(json), err)
	}
	if _, err := MetaJSON(json); err == nil || !strings.Contains(err.Error(), "objects and arrays") {
		t.Errorf("%d bytes of empty objects: %v; want refused by their density", len(json), err)
	}
	dir := t.TempDir()
	name := filepath.Join(dir, Hash(json)+".meta")
	if err := os.WriteFile(name, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems, err := Load(dir)
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0].Error(), filepath.Base(name)) || !strings.Contains(problems[0].Error(), "inflate") {
		t.Errorf("Load: %v, problems %v; want the file refused by name", err, problems)
	}
	// pathcover's own metadata passes, compressed or not.
	_, raw := diamondMeta(t)
	for _, c := range [][]byte{raw, CompressMeta(raw)} {
		if _, err := MetaJSON(c); err != nil {
			t.Errorf("pathcover's metadata: %v", err)
		}
	}
}

// FuzzMetaJSON feeds arbitrary content to the reader of metadata files:
// it gives JSON or an error, never a panic, and what it gives parses or
// is refused.
func FuzzMetaJSON(f *testing.F) {
	_, raw := diamondMeta(f)
	f.Add(CompressMeta(raw))
	f.Add(raw)
	f.Add([]byte{0x1f, 0x8b})
	f.Add(CompressMeta([]byte("{")))
	_, super := superMeta(f)
	f.Add(CompressMeta(super))
	f.Fuzz(func(t *testing.T, data []byte) {
		json, err := MetaJSON(data)
		if err != nil {
			return
		}
		if len(json) > MaxMetaSize {
			t.Fatalf("%d bytes of JSON", len(json))
		}
		if m, err := ParseMeta(json); err == nil {
			for i := range m.Funcs {
				m.Funcs[i].PathCounts(nil)
			}
		}
	})
}
