package defuse_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/internal/static/defuse"
	"github.com/pathcover/pathcover/profile"
)

// src holds functions whose lines say, in a trailing //= comment, what
// their statements define, use, call and access, merged over the line's
// statements: d: defined variables, u: used ones, c: callees, a: recorded
// accesses (kind:expression), m: reads not recorded. Worked out by hand
// from the package doc's rules.
const src = `package p

type T struct{ x, y int; next *T }

var g int

func callee(a int) int { return a } //= d:a,result u:a

func locals(n int, p *T) (r int) { //= d:n,p,r
	s := n + 1 //= d:s u:n
	t := T{x: s} //= d:t u:s
	t.y = 2 //= d:t u:t
	p.x = t.x //= u:p,t a:store:p.x
	s += p.next.y //= d:s u:p,s a:load:p.next a:load:p.next.y
	r = callee(s) + g //= d:r c:callee(s) a:load:g
	return //= d:r u:r
}

func memory(xs []int, m map[string]int) int { //= d:xs,m
	ys := xs[1:] //= d:ys u:xs
	ys[0] = len(xs) //= u:xs,ys a:store:ys[0]
	copy(ys, xs) //= u:xs,ys a:copy:copy(ys, xs)
	xs = append(xs, 1) //= d:xs u:xs a:store:append(xs, 1)
	m["k"]++ //= u:m a:mapwrite:m["k"] a:mapread:m["k"]
	delete(m, "j") //= u:m a:mapwrite:delete(m, "j")
	q := &T{} //= d:q a:store:&T{}
	return m["k"] + q.x //= d:result u:m,q a:mapread:m["k"] a:load:q.x
}

func captured() func() int { //=
	v := 1 //= a:store:v
	v++ //= a:update:v
	return func() int { return v } //= d:result
}

func chans(c chan int, d chan int) int { //= d:c,d
	c <- 1 //= u:c a:send:c
	select { //=
	case x := <-d: //= d:x u:d a:recv:d
		return x //= d:result u:x
	}
}

type C struct{ Slash int }

func regress(data []int) []*C { //= d:data
	var err error //= a:store:err
	f := func() error { return err } //= d:f
	x, err := 1, f() //= d:x u:f a:store:err
	_ = x //= u:x
	p := &[]int{1} //= d:p a:store:&[]int{…}
	copy(*p, data) //= u:data,p a:copy:copy(*p, data) a:load:*p
	return []*C{{Slash: 1}} //= d:result a:store:[]*C{…}
}

func kinds(x any) int { //= d:x
	switch v := x.(type) { //= d:switch tag u:x
	case int: //= d:v u:switch tag
		return v //= d:result u:v
	}
	return 0 //= d:result
}
`

func TestStatements(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{
		Types: make(map[ast.Expr]types.TypeAndValue), Defs: make(map[*ast.Ident]types.Object),
		Uses: make(map[*ast.Ident]types.Object), Selections: make(map[*ast.SelectorExpr]*types.Selection),
		Implicits: make(map[ast.Node]types.Object), Instances: make(map[*ast.Ident]types.Instance),
	}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	funcs, err := funcgraph.BuildFiles([]*ast.File{f}, &funcgraph.Config{Info: info})
	if err != nil {
		t.Fatal(err)
	}
	literals := make(map[*ast.FuncLit]string)
	for _, fn := range funcs {
		if l, ok := fn.Node.(*ast.FuncLit); ok {
			literals[l] = fn.Name
		}
	}
	got := make(map[int]map[string]bool)
	note := func(line int, s string) {
		if got[line] == nil {
			got[line] = make(map[string]bool)
		}
		if s != "" {
			got[line][s] = true
		}
	}
	for _, fn := range funcs {
		if _, lit := fn.Node.(*ast.FuncLit); lit {
			continue // its own: the lines here are its parent's
		}
		d, accesses := defuse.Analyze(fn, &defuse.Config{Info: info, Position: fset.Position, Package: "p", Literals: literals, Record: true})
		names := func(ids []int32) []string {
			var s []string
			for _, v := range ids {
				s = append(s, d.Vars[v].Name)
			}
			return s
		}
		for i, st := range d.Stmts {
			if i > 0 && !slices.ContainsFunc(d.Blocks, func(b []int32) bool { return slices.Contains(b, int32(i)) }) {
				t.Errorf("%s: statement %d is in no block", fn.Name, i)
			}
			note(st.Line, "")
			for _, v := range names(st.Defs) {
				note(st.Line, "d:"+v)
			}
			for _, v := range names(st.Uses) {
				note(st.Line, "u:"+v)
			}
			for _, c := range st.Calls {
				if c.Package == "p" {
					note(st.Line, fmt.Sprintf("c:%s(%s)", c.Func, strings.Join(names(slices.Concat(c.Args...)), ",")))
				}
			}
			for _, m := range st.Memory {
				note(st.Line, "m:"+m)
			}
		}
		kinds := map[profile.WPPAccess]string{profile.WPPLoad: "load", profile.WPPStore: "store", profile.WPPUpdate: "update",
			profile.WPPCopy: "copy", profile.WPPMapRead: "mapread", profile.WPPMapWrite: "mapwrite", profile.WPPSend: "send", profile.WPPRecv: "recv"}
		for _, a := range accesses {
			line := fset.Position(a.Expr.Pos()).Line
			note(line, "a:"+kinds[a.Kind]+":"+types.ExprString(a.Expr))
		}
	}
	for i, l := range strings.Split(src, "\n") {
		line := i + 1
		_, spec, ok := strings.Cut(l, "//=")
		if !ok {
			if len(got[line]) > 0 {
				t.Errorf("line %d (%s): %v, want nothing", line, strings.TrimSpace(l), slices.Sorted(maps.Keys(got[line])))
			}
			continue
		}
		want := make(map[string]bool)
		// Fields start with a kind and a colon; a field may hold spaces.
		var fields []string
		for _, w := range strings.Fields(spec) {
			if len(w) > 1 && w[1] == ':' && strings.ContainsRune("ducam", rune(w[0])) || len(fields) == 0 {
				fields = append(fields, w)
			} else {
				fields[len(fields)-1] += " " + w
			}
		}
		for _, f := range fields {
			kind, items, _ := strings.Cut(f, ":")
			if kind == "a" || kind == "m" {
				want[f] = true
				continue
			}
			for _, it := range strings.Split(items, ",") {
				want[kind+":"+it] = true
			}
		}
		if !maps.Equal(got[line], want) {
			t.Errorf("line %d (%s):\n got  %v\n want %v", line, strings.TrimSpace(strings.Split(l, "//=")[0]), slices.Sorted(maps.Keys(got[line])), slices.Sorted(maps.Keys(want)))
		}
	}
}
