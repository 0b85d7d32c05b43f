package nesting

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

var write = flag.String("write", "", "write the generated package to this file")

// TestProgram checks that the program parses, has a function for each
// nesting, and that each function ends with its outermost construct, which
// ends with the next at the end of the block chosen.
func TestProgram(t *testing.T) {
	src := Program()
	if *write != "" {
		if err := os.WriteFile(*write, src, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "nested.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, k := range Kinds {
		blocks += k.Blocks
	}
	funcs := Funcs()
	if want := len(Kinds) + blocks*len(Kinds) + len(Core)*len(Core)*len(Core); len(funcs) != want {
		t.Errorf("%d functions, want %d", len(funcs), want)
	}
	decls := make(map[string]*ast.FuncDecl)
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			decls[fd.Name.Name] = fd
		}
	}
	for _, fn := range funcs {
		fd := decls[fn.Name]
		if fd == nil {
			t.Errorf("no function %s", fn.Name)
			continue
		}
		if !strings.Contains(string(src), "{"+`"`+fn.Name+`", `+fn.Name+",") {
			t.Errorf("the driver does not call %s", fn.Name)
		}
		// Follow the nesting: each construct is the last statement of
		// its list, and the next one ends the block chosen.
		list := fd.Body.List
		for d, k := range fn.Kinds {
			last := list[len(list)-1]
			lists := blockLists(last)
			if len(lists) != k.Blocks {
				t.Errorf("%s: the %s at depth %d has %d blocks, want %d", fn.Name, k.Name, d, len(lists), k.Blocks)
				break
			}
			if d+1 < len(fn.Kinds) {
				list = lists[fn.Blocks[d]]
			}
		}
	}
}

// blockLists returns the statement lists of the blocks of a construct, in
// source order: an if chain's bodies and else, clauses, a loop's body.
func blockLists(s ast.Stmt) [][]ast.Stmt {
	var lists [][]ast.Stmt
	switch s := s.(type) {
	case *ast.IfStmt:
		lists = append(lists, s.Body.List)
		switch els := s.Else.(type) {
		case *ast.IfStmt:
			lists = append(lists, blockLists(els)...)
		case *ast.BlockStmt:
			lists = append(lists, els.List)
		}
	case *ast.SwitchStmt:
		for _, c := range s.Body.List {
			lists = append(lists, c.(*ast.CaseClause).Body)
		}
	case *ast.TypeSwitchStmt:
		for _, c := range s.Body.List {
			lists = append(lists, c.(*ast.CaseClause).Body)
		}
	case *ast.SelectStmt:
		for _, c := range s.Body.List {
			lists = append(lists, c.(*ast.CommClause).Body)
		}
	case *ast.ForStmt:
		lists = append(lists, s.Body.List)
	case *ast.RangeStmt:
		lists = append(lists, s.Body.List)
	}
	return lists
}
