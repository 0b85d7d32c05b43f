package report

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

// TestOutputsEmpty: an empty list is an empty JSON array, not null.
func TestOutputsEmpty(t *testing.T) {
	for _, out := range []Output{CallSites(nil), SupergraphSizes(nil)} {
		var b bytes.Buffer
		if err := out.WriteJSON(&b); err != nil || b.String() != "[]\n" {
			t.Errorf("%T: %q, %v", out, b.String(), err)
		}
	}
}

// TestSegmentReportJSON: as JSON, a report's interprocedural part is the
// whole report, which holds the supergraphs.
func TestSegmentReportJSON(t *testing.T) {
	p := profile.New()
	p.Metas["e"] = metaOf("example.com/empty", "e.go")
	p.Processes = 1
	r, _ := Build(p, nil)
	var whole, part bytes.Buffer
	if err := r.WriteJSON(&whole); err != nil {
		t.Fatal(err)
	}
	if err := (SegmentReport{r}).WriteJSON(&part); err != nil {
		t.Fatal(err)
	}
	if whole.String() != part.String() {
		t.Errorf("SegmentReport's JSON:\n%s\nthe report's:\n%s", part.String(), whole.String())
	}
}

type failingWriter struct{}

var errFull = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errFull }

// TestOutputsWriteErrors: the text writers say when they could not write.
func TestOutputsWriteErrors(t *testing.T) {
	f := &Func{Package: "example.com/m", Name: "F", File: "m.go", Line: 3}
	paths := Paths{f, []Path{{ID: 0, Count: 2, Steps: []Step{{File: "m.go", Line: 3, Col: 1, Kind: "start"}}}}}
	sites := CallSites{{Caller: "example.com/m.F", Callee: "example.com/m.G", File: "m.go", Line: 4, Col: 2}}
	sizes := SupergraphSizes{{Caller: "example.com/m.F", File: "m.go", Line: 3, Paths: "2", SuperPaths: "4"}}
	for _, out := range []Output{paths, sites, sizes} {
		if err := out.WriteText(failingWriter{}); !errors.Is(err, errFull) {
			t.Errorf("%T.WriteText: %v, want %v", out, err, errFull)
		}
		var b bytes.Buffer
		if err := out.WriteText(&b); err != nil || b.Len() == 0 {
			t.Errorf("%T.WriteText: %v\n%s", out, err, b.String())
		}
	}
}
