package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cdp"
	"github.com/pathcover/pathcover/internal/report"
)

// TestHTMLBrowserModule opens the page of a real module's tests (google/uuid
// v1.6.0, which nobody here wrote) in a browser: it opens on the overview,
// whose function table holds the report's functions, with their paths;
// files are named within the module, never by the machine's directories;
// the filter keeps the functions whose names match; and a function opens
// with its source.
func TestHTMLBrowserModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test and starts a browser")
	}
	chromium, err := cdp.Find()
	if err != nil {
		t.Skipf("no browser (.ci/run installs Debian's chromium): %v", err)
	}
	dir := t.TempDir()
	copyTree(t, download(t, "github.com/google/uuid@v1.6.0"), dir)
	prof := filepath.Join(t.TempDir(), "prof")
	// TestVersion6 fails now and then with or without pathcover (google/uuid
	// issue 199).
	if out, code := run(t, dir, bin, "test", "-dir", prof, "-skip=^TestVersion6$", "."); code != 0 {
		t.Fatalf("pathcover test: exit %d\n%s", code, out)
	}
	page := filepath.Join(t.TempDir(), "uuid.html")
	if out, code := run(t, dir, bin, "html", "-dir", prof, "-o", page); code != 0 {
		t.Fatalf("pathcover html: exit %d\n%s", code, out)
	}
	cmd := exec.Command(bin, "report", "-json", "-dir", prof)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name   string
		Total  int
		Ran    int
		Module string // the file, as the page names it
	}
	var want []row
	for _, pkg := range r.Packages {
		for _, f := range pkg.Funcs {
			want = append(want, row{f.Name, int(f.Feasible.Total), int(f.Feasible.Covered), ""})
		}
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if bytes.Contains(data, []byte(dir)) || bytes.Contains(data, []byte(real)) {
		t.Errorf("the page names the module's directory %s", dir)
	}
	t.Logf("%d functions, page %d bytes", len(want), len(data))

	p, eval := openPage(t, chromium, page)
	var overview bool
	eval(`document.getElementById("overview").classList.contains("shown")`, &overview)
	if !overview {
		t.Error("the page does not open on the overview")
	}
	var got []row
	eval(`Array.from(document.querySelectorAll("#functions tbody tr")).map(tr => ({Name: tr.children[0].textContent, Module: tr.children[1].textContent,
		Total: Number(tr.children[2].textContent), Ran: Number(tr.children[3].textContent)}))`, &got)
	for i := range got {
		if !strings.HasPrefix(got[i].Module, "github.com/google/uuid/") {
			t.Errorf("function %s's file is named %q", got[i].Name, got[i].Module)
		}
		got[i].Module = ""
	}
	byName := func(a, b row) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(got, byName)
	slices.SortFunc(want, byName)
	if !slices.Equal(got, want) {
		t.Errorf("the overview's functions differ from the report's:\npage   %v\nreport %v", got, want)
	}

	var kept []string
	eval(`(() => { const f = document.getElementById("filter"); f.value = "parse"; f.dispatchEvent(new Event("input"));
		return Array.from(document.querySelectorAll("#functions tbody tr:not([hidden]) td:first-child")).map(td => td.textContent); })()`, &kept)
	var wantKept []string
	for _, w := range want {
		if strings.Contains(strings.ToLower(w.Name), "parse") {
			wantKept = append(wantKept, w.Name)
		}
	}
	slices.Sort(kept)
	if len(wantKept) == 0 || !slices.Equal(kept, wantKept) {
		t.Errorf("the filter \"parse\" keeps %v, want %v", kept, wantKept)
	}

	if err := p.Click(`#functions tbody tr:not([hidden]) td:first-child a`); err != nil {
		t.Fatal(err)
	}
	var shown struct {
		Title string
		Lines int
	}
	eval(`({Title: document.querySelector("section.func.shown h2").textContent, Lines: document.querySelectorAll("section.func.shown .ln").length})`, &shown)
	if !strings.HasPrefix(shown.Title, "github.com/google/uuid.") || !slices.Contains(wantKept, strings.TrimPrefix(shown.Title, "github.com/google/uuid.")) || shown.Lines == 0 {
		t.Errorf("after clicking the first function kept, the page shows %+v", shown)
	}
}
