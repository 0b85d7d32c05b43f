package instrument

import (
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
)

// TestFlightPositions checks which functions hold the ring's position in a
// local, and which of their records may use it, on functions written for
// each rule.
func TestFlightPositions(t *testing.T) {
	dir := t.TempDir()
	src := `package p

func g() {}

// noLoop: no loop, nothing to gain.
func noLoop(x int) int {
	if x > 0 {
		return 1
	}
	return 0
}

// pure: a loop without calls: every record is fresh.
func pure(s []byte) (n int) {
	for _, c := range s {
		if c < 128 {
			n++
		} else {
			n += 2
		}
	}
	return n
}

// calls: a round that calls g records after the call at the stale position.
func calls(s []byte) (n int) {
	for _, c := range s {
		if c < 128 {
			g()
			n++
		} else {
			n += 2
		}
	}
	return n
}

// notCalls: conversions, built-ins and a function literal not called are
// no calls.
func notCalls(s []byte) (n int) {
	for i := range s {
		f := func() { g() }
		_ = f
		if int64(s[i]) < int64(len(s)) {
			n += min(i, 3)
		} else {
			n++
		}
	}
	return n
}

// iterator: a range-over-func loop's body is a closure: no local.
func iterator(seq func(func(int) bool)) (n int) {
	for x := range seq {
		if x > 0 {
			n++
		}
	}
	return n
}

// generic: a range over a type parameter may be over a function.
func generic[S ~[]int](s S) (n int) {
	for _, x := range s {
		if x > 0 {
			n++
		}
	}
	return n
}

// callBefore: a call before the loop: the loop reloads the position, and
// its rounds find it fresh.
func callBefore(s []byte) (n int) {
	g()
	for _, c := range s {
		if c < 128 {
			n++
		} else {
			n += 2
		}
	}
	return n
}

// headerCalls: the range expression calls, after any code before the
// loop could reload: no record in the loop is fresh.
func headerCalls(s []byte) (n int) {
	for _, c := range bytesOf(s) {
		if c < 128 {
			n++
		} else {
			n += 2
		}
	}
	return n
}

func bytesOf(s []byte) []byte { return s }

// allCalls: every round calls: no record where a round ends can use the
// local.
func allCalls(s []byte) (n int) {
	for range s {
		g()
		n++
	}
	return n
}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in := load(t, dir)
	graphs, err := funcgraph.BuildFiles(in.Files, &funcgraph.Config{Info: in.Info})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		local        bool
		fresh, stale bool // some record of each kind
		reload       bool
	}{
		"noLoop":      {},
		"pure":        {local: true, fresh: true},
		"calls":       {local: true, fresh: true, stale: true},
		"notCalls":    {local: true, fresh: true},
		"iterator":    {},
		"generic":     {},
		"allCalls":    {},
		"callBefore":  {local: true, fresh: true, reload: true},
		"headerCalls": {},
		"bytesOf":     {},
		"g":           {},
	}
	seen := 0
	for _, f := range graphs {
		w, ok := want[f.Name]
		if !ok {
			continue // function literals
		}
		seen++
		u := &function{Numbered: funcgraph.Number(f)}
		if u.Err != nil {
			t.Fatalf("%s: %v", f.Name, u.Err)
		}
		pos := planFlightPositions(u, in.Info)
		if (pos != nil) != w.local {
			t.Errorf("%s: holds the position: %v, want %v", f.Name, pos != nil, w.local)
			continue
		}
		var fresh, stale bool
		if pos != nil {
			for _, f := range pos.fresh {
				fresh, stale = fresh || f, stale || !f
			}
		}
		if fresh != w.fresh || stale != w.stale {
			t.Errorf("%s: fresh records %v, stale %v; want %v, %v", f.Name, fresh, stale, w.fresh, w.stale)
		}
		if reload := pos != nil && len(pos.reload) > 0; reload != w.reload {
			t.Errorf("%s: reloads %v, want %v", f.Name, reload, w.reload)
		}
		if pos != nil {
			checkFlightPositions(t, u, in.Info, pos)
		}
	}
	if seen != len(want) {
		t.Errorf("checked %d functions, want %d", seen, len(want))
	}
}

// TestFlightPositionsStd checks planFlightPositions on every function of a
// few standard packages against checkFlightPositions.
func TestFlightPositionsStd(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks standard packages")
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, "strconv", "regexp", "regexp/syntax", "net/url", "text/template/parse", "go/scanner", "encoding/json", "bufio", "bytes", "strings", "unicode/utf8", "compress/flate", "math/big", "sort")
	if err != nil {
		t.Fatal(err)
	}
	local, records, freshRecords, reloads := 0, 0, 0, 0
	for _, pkg := range pkgs {
		if len(pkg.Errors) > 0 {
			t.Fatalf("%s: %v", pkg.PkgPath, pkg.Errors)
		}
		graphs, err := funcgraph.BuildFiles(pkg.Syntax, &funcgraph.Config{Info: pkg.TypesInfo})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range graphs {
			u := &function{Numbered: funcgraph.Number(f)}
			if u.Err != nil {
				continue
			}
			pos := planFlightPositions(u, pkg.TypesInfo)
			if pos == nil {
				continue
			}
			local++
			records += len(pos.fresh)
			freshRecords += checkFlightPositions(t, u, pkg.TypesInfo, pos)
			reloads += len(pos.reload)
		}
	}
	if local < 60 {
		t.Errorf("only %d functions hold the position (%d records): too few to say anything", local, records)
	}
	if freshRecords < records/4 || reloads == 0 {
		t.Errorf("%d of %d records fresh, %d reloads: too few to say anything", freshRecords, records, reloads)
	}
	t.Logf("%d functions hold the position, %d records checked (%d fresh), %d reloads", local, records, freshRecords, reloads)
}

// checkFlightPositions walks u's graph from its entry in states (block,
// whether the local is fresh there), a search where planFlightPositions
// solves equations, and with where edge code goes modelled more closely:
// before a branch statement that ends its block, and, on the edge into a
// loop, before the loop's init statement or range expression. A record
// the plan calls fresh must be fresh in every state that reaches it; a
// reload must be on an edge that can hold code and records nothing. It
// returns how many records the plan calls fresh.
func checkFlightPositions(t *testing.T, u *function, info *types.Info, pos *flightPositions) int {
	t.Helper()
	g, p := &u.Graph, u.Placement
	type state struct {
		b     numbering.BlockID
		fresh bool
	}
	out := make(map[numbering.BlockID][]numbering.EdgeID)
	for id, e := range g.Edges {
		out[e.Src] = append(out[e.Src], numbering.EdgeID(id))
	}
	calls := func(nodes []ast.Node) bool {
		found := false
		for _, n := range nodes {
			ast.Inspect(n, func(n ast.Node) bool {
				if _, lit := n.(*ast.FuncLit); lit {
					return false
				}
				if call, ok := n.(*ast.CallExpr); ok && !quietCall(call, info) {
					found = true
				}
				return !found
			})
		}
		return found
	}
	reload := make(map[numbering.EdgeID]bool)
	for _, e := range pos.reload {
		reload[e] = true
		if u.Edges[e].Site.Kind == funcgraph.NoSite || countsPath(p.EdgeOps(e)) {
			t.Errorf("%s: reload on edge %d, which has no site or records", u.Name, e)
		}
	}
	staleAt := make(map[numbering.EdgeID]bool)
	seen := map[state]bool{{g.Entry, true}: true}
	for work := []state{{g.Entry, true}}; len(work) > 0; {
		s := work[len(work)-1]
		work = work[:len(work)-1]
		nodes := u.Blocks[s.b].Nodes
		for _, e := range out[s.b] {
			before, later := nodes, []ast.Node(nil)
			dst := u.Blocks[g.Edges[e].Dst]
			switch loop := dst.Stmt.(type) {
			case *ast.ForStmt:
				if dst.Kind == funcgraph.BlockForHead && u.Edges[e].Kind != funcgraph.EdgeLoop && loop.Init != nil {
					before, later = nodes[:len(nodes)-1], nodes[len(nodes)-1:]
				}
			case *ast.RangeStmt:
				if dst.Kind == funcgraph.BlockRangeHead && u.Edges[e].Kind != funcgraph.EdgeLoop {
					before, later = nodes[:len(nodes)-1], nodes[len(nodes)-1:]
				}
			}
			if u.Edges[e].Site.Kind == funcgraph.Before && len(before) > 0 && before[len(before)-1] == u.Edges[e].Site.Stmt() {
				before = before[:len(before)-1] // the code goes before the branch statement
			}
			fresh := s.fresh && !calls(before)
			for _, op := range p.EdgeOps(e) {
				if op.Kind == numbering.OpCount || op.Kind == numbering.OpCountConst {
					staleAt[op.Edge] = staleAt[op.Edge] || !fresh
					fresh = true
				}
			}
			fresh = (fresh || reload[e]) && !calls(later)
			if n := (state{g.Edges[e].Dst, fresh}); !seen[n] {
				seen[n] = true
				work = append(work, n)
			}
		}
	}
	n := 0
	for at, fresh := range pos.fresh {
		if fresh && staleAt[at] {
			t.Errorf("%s: the record at DAG edge %d is called fresh; the search finds it stale", u.Name, at)
		}
		if fresh {
			n++
		}
	}
	return n
}
