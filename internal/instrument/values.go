package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/pathcover/pathcover/profile"
)

// A -wet build records, besides what a -deps build does, the values that
// a function gives its symbolic variables (package defuse: locals whose
// every access the syntax shows), for the whole execution trace: a call
// of one of the generated file's helpers (valueDecls; rt/values.go)
// reads the variable and records it, naming its site in the function's
// Deps.Values: the variable, and the statement at whose execution (after
// it, or before it) the record is made. The trace gives a recorded value
// to the definition of the variable that reaches that point, so a value
// can be recorded anywhere after the definition and before the variable
// can be defined again:
//
//   - after a statement of a statement list that defines it (an
//     assignment, a declaration, x++):
//     x := f(); _pathcoverVI(_pathcoverF, 40, x)
//   - for a variable defined by an if's or a for's init statement or a
//     for's post statement, in the condition, which runs after each of
//     them (converted to bool if it is of another boolean type):
//     for i := 0; _pathcoverVI(_pathcoverF, 8, i) && (i < n); i++ {
//     or, in a for with no condition, at the start of the body;
//   - for a variable defined by a switch's init statement, wrapped around
//     its tag, or as the tag of a tagless switch whose cases are of type
//     bool, or else at the start of each clause (so no value is recorded
//     when no case matches and there is no default):
//     switch x := f(); _pathcoverTag(_pathcoverVI(_pathcoverF, 8, x), x+1) {
//   - a range loop's key and value, and a select case's received value,
//     at the start of the body;
//   - the parameters, at the start of the function's body.
//
// Not recorded: variables of struct, array and type parameter types (the
// kinds a value record has are profile.ValueKind's), named results (the
// caller records what it assigns them to), and a type switch's variable.

// Names of the generated file's value helpers.
const (
	valueTag = "_pathcoverTag"
)

// valueHelper is the generated helper that records a value of kind k.
func valueHelper(k profile.ValueKind) string {
	switch k {
	case profile.ValueInt:
		return "_pathcoverVI"
	case profile.ValueUint:
		return "_pathcoverVU"
	case profile.ValueFloat:
		return "_pathcoverVF"
	case profile.ValueComplex:
		return "_pathcoverVC"
	case profile.ValueBool:
		return "_pathcoverVB"
	case profile.ValueString:
		return "_pathcoverVS"
	case profile.ValueText:
		return "_pathcoverVT"
	case profile.ValueSlice:
		return "_pathcoverVSl"
	case profile.ValueBytes:
		return "_pathcoverVBy"
	case profile.ValueWord:
		return "_pathcoverVW"
	case profile.ValueIface:
		return "_pathcoverVIf"
	}
	panic(fmt.Sprintf("value kind %q", k))
}

// valueDecls are the generated file's value helpers, each forwarding to
// rt's.
var valueDecls = []byte(`
func _pathcoverVI[T ~int | ~int8 | ~int16 | ~int32 | ~int64](f _pathcoverRT.WPPFrame, op uint64, v T) bool { return _pathcoverRT.ValueInt(f, op, v) }

func _pathcoverVU[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](f _pathcoverRT.WPPFrame, op uint64, v T) bool { return _pathcoverRT.ValueUint(f, op, v) }

func _pathcoverVF[T ~float32 | ~float64](f _pathcoverRT.WPPFrame, op uint64, v T) bool { return _pathcoverRT.ValueFloat(f, op, v) }

func _pathcoverVC[T ~complex64 | ~complex128](f _pathcoverRT.WPPFrame, op uint64, v T) bool { return _pathcoverRT.ValueComplex(f, op, v) }

func _pathcoverVB[T ~bool](f _pathcoverRT.WPPFrame, op uint64, v T) bool { return _pathcoverRT.ValueBool(f, op, v) }

func _pathcoverVS[T ~string](f _pathcoverRT.WPPFrame, op uint64, v T) bool { return _pathcoverRT.ValueString(f, op, v) }

func _pathcoverVT[T ~string](f _pathcoverRT.WPPFrame, op uint64, v T) bool { return _pathcoverRT.ValueText(f, op, v) }

func _pathcoverVSl[S ~[]E, E any](f _pathcoverRT.WPPFrame, op uint64, v S) bool { return _pathcoverRT.ValueSlice(f, op, v) }

func _pathcoverVBy[S ~[]E, E ~byte](f _pathcoverRT.WPPFrame, op uint64, v S) bool { return _pathcoverRT.ValueBytes(f, op, v) }

func _pathcoverVW[T any](f _pathcoverRT.WPPFrame, op uint64, v T) bool { return _pathcoverRT.ValueWord(f, op, v) }

func _pathcoverVIf[T any](f _pathcoverRT.WPPFrame, op uint64, v T) bool { return _pathcoverRT.ValueIface(f, op, v) }

func _pathcoverTag[T any](_ bool, tag T) T { return tag }
`)

// valueKind is how a variable of type t is recorded.
func valueKind(t types.Type) profile.ValueKind {
	if _, ok := t.(*types.TypeParam); ok {
		return profile.ValueNone
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		info := u.Info()
		switch {
		case info&types.IsInteger != 0 && info&types.IsUnsigned != 0:
			return profile.ValueUint
		case info&types.IsInteger != 0:
			return profile.ValueInt
		case info&types.IsFloat != 0:
			return profile.ValueFloat
		case info&types.IsComplex != 0:
			return profile.ValueComplex
		case info&types.IsBoolean != 0:
			return profile.ValueBool
		case info&types.IsString != 0:
			return profile.ValueText
		case u.Kind() == types.UnsafePointer:
			return profile.ValueWord
		}
	case *types.Pointer, *types.Chan, *types.Map, *types.Signature:
		return profile.ValueWord
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			return profile.ValueBytes
		}
		return profile.ValueSlice
	case *types.Interface:
		return profile.ValueIface
	}
	return profile.ValueNone
}

// A valueRecorder finds where a function's variables' values are recorded
// and writes the code.
type valueRecorder struct {
	u    *function
	e    *editor
	info *types.Info
	deps *profile.Deps
	// index gives a variable's index in Deps.Vars, by its name and
	// position; stmts the statements of Deps.Stmts by their span.
	index map[varKey]int32
	stmts map[spanKey][]int32
	sites map[profile.DepValue]int // index in Deps.Values
	pos   func(token.Pos) token.Position
}

type varKey struct {
	name      string
	line, col int
}

type spanKey struct{ line, col, endLine, endCol int }

// recordValues marks the kinds of u's recorded variables in its metadata
// and adds the code that records their values.
func (u *function) recordValues(e *editor, info *types.Info, deps *profile.Deps, pos func(token.Pos) token.Position) {
	v := &valueRecorder{u: u, e: e, info: info, deps: deps, pos: pos,
		index: make(map[varKey]int32), stmts: make(map[spanKey][]int32), sites: make(map[profile.DepValue]int)}
	for i, dv := range deps.Vars {
		v.index[varKey{dv.Name, dv.Line, dv.Col}] = int32(i)
	}
	for i, st := range deps.Stmts {
		k := spanKey{st.Line, st.Col, st.EndLine, st.EndCol}
		v.stmts[k] = append(v.stmts[k], int32(i))
	}
	v.kinds(deps)
	v.params()
	v.lists(deps)
}

// variable returns the index and kind of the variable that id names, if
// its values are recorded.
func (v *valueRecorder) variable(id *ast.Ident) (int32, profile.ValueKind, bool) {
	if id == nil || id.Name == "_" {
		return 0, "", false
	}
	obj, _ := v.info.Defs[id].(*types.Var)
	if obj == nil {
		obj, _ = v.info.Uses[id].(*types.Var)
	}
	if obj == nil {
		return 0, "", false
	}
	p := v.pos(obj.Pos())
	i, ok := v.index[varKey{obj.Name(), p.Line, p.Column}]
	k := valueKind(obj.Type())
	return i, k, ok && k != profile.ValueNone
}

// kinds sets the kind of every variable of deps whose values are
// recorded: those declared in the function that valueKind knows.
func (v *valueRecorder) kinds(deps *profile.Deps) {
	ast.Inspect(v.u.Node, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && lit != v.u.Node {
			return false
		}
		if id, ok := n.(*ast.Ident); ok {
			if i, k, ok := v.variable(id); ok {
				deps.Vars[i].Kind = k
			}
		}
		return true
	})
}

// stmt returns the index in Deps.Stmts of the statement that node n is,
// or -1: one that defines something if several have n's span (a range
// loop's test and assignment).
func (v *valueRecorder) stmt(n ast.Node) int32 {
	from, to := n.Pos(), n.End()
	switch n := n.(type) {
	case *ast.LabeledStmt:
		return v.stmt(n.Stmt)
	case *ast.RangeStmt:
		from, to = n.For, n.X.End() // its assignment, at the start of the body
	}
	p, q := v.pos(from), v.pos(to)
	found := int32(-1)
	for _, i := range v.stmts[spanKey{p.Line, p.Column, q.Line, q.Column}] {
		if found < 0 || len(v.deps.Stmts[i].Defs) > 0 {
			found = i
		}
	}
	return found
}

// record returns the calls that record the variables that ids name, each
// once, joined by sep, at statement at (nil: the function's entry),
// before it or after it.
func (v *valueRecorder) record(ids []*ast.Ident, sep string, at ast.Node, after bool) string {
	stmt := int32(0)
	if at != nil {
		if stmt = v.stmt(at); stmt < 0 {
			return "" // no statement to say where: nothing recorded
		}
	}
	var calls []string
	seen := make(map[int32]bool)
	for _, id := range ids {
		i, k, ok := v.variable(id)
		if !ok || seen[i] {
			continue
		}
		seen[i] = true
		site := profile.DepValue{Var: i, Stmt: stmt, After: after}
		n, ok := v.sites[site]
		if !ok {
			n = len(v.deps.Values)
			v.deps.Values = append(v.deps.Values, site)
			v.sites[site] = n
		}
		calls = append(calls, fmt.Sprintf("%s(%s, %d, %s)", valueHelper(k), wppFrame, uint64(n)<<3, id.Name))
	}
	return strings.Join(calls, sep)
}

// params records the parameters at the start of the body.
func (v *valueRecorder) params() {
	var ids []*ast.Ident
	var recv *ast.FieldList
	var ft *ast.FuncType
	switch n := v.u.Node.(type) {
	case *ast.FuncDecl:
		recv, ft = n.Recv, n.Type
	case *ast.FuncLit:
		ft = n.Type
	}
	for _, list := range []*ast.FieldList{recv, ft.Params} {
		if list == nil {
			continue
		}
		for _, f := range list.List {
			ids = append(ids, f.Names...)
		}
	}
	if code := v.record(ids, "; ", nil, true); code != "" {
		v.atStart(v.u.Body, code)
	}
}

// atStart puts code at the start of a body or a clause's statements.
func (v *valueRecorder) atStart(n ast.Node, code string) {
	var at token.Pos
	switch n := n.(type) {
	case *ast.BlockStmt:
		at = n.Lbrace + 1
	case *ast.CaseClause:
		at = n.Colon + 1
	case *ast.CommClause:
		at = n.Colon + 1
	}
	v.e.insertAt(at, phaseDecl, 1, "; "+code+"; ")
}

// after puts code after statement s of a list: before the code of the
// edges that leave there (the count of a path that ends there, which may
// record the call's return).
func (v *valueRecorder) after(s ast.Stmt, code string) {
	v.e.insertAt(s.End(), phaseDecl, 0, "; "+code)
}

// defined returns the identifiers that statement s defines or assigns,
// as itself, not through memory or in part.
func defined(s ast.Stmt) []*ast.Ident {
	var ids []*ast.Ident
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			if id, ok := ast.Unparen(l).(*ast.Ident); ok {
				ids = append(ids, id)
			}
		}
	case *ast.IncDecStmt:
		if id, ok := ast.Unparen(s.X).(*ast.Ident); ok {
			ids = append(ids, id)
		}
	case *ast.DeclStmt:
		if gd, ok := s.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, spec := range gd.Specs {
				ids = append(ids, spec.(*ast.ValueSpec).Names...)
			}
		}
	case *ast.LabeledStmt:
		return defined(s.Stmt)
	}
	return ids
}

// plainBool reports whether e is of the predeclared type bool, or an
// untyped boolean.
func (v *valueRecorder) plainBool(e ast.Expr) bool {
	t := v.info.TypeOf(e)
	b, ok := t.(*types.Basic)
	return ok && (b.Kind() == types.Bool || b.Kind() == types.UntypedBool)
}

// inCond wraps an if's or a for's condition so that code, a conjunction of
// value helpers (each true), runs first; a condition of another boolean
// type is converted to bool, which an if and a for take as well.
func (v *valueRecorder) inCond(cond ast.Expr, code string) {
	open := code + " && ("
	if !v.plainBool(cond) {
		open = code + " && bool("
	}
	span := int(cond.End() - cond.Pos())
	v.e.insertAt(cond.Pos(), phaseWrapOpen, -2*span-1, open)
	v.e.insertAt(cond.End(), phaseWrapClose, 2*span+1, ")")
}

// lists walks the body's statements (not those of its function
// literals).
func (v *valueRecorder) lists(deps *profile.Deps) {
	ast.Inspect(v.u.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt:
			v.list(n.List)
		case *ast.CaseClause:
			v.list(n.Body)
		case *ast.CommClause:
			v.list(n.Body)
			if n.Comm != nil {
				if code := v.record(defined(n.Comm), "; ", n.Comm, true); code != "" {
					v.atStart(n, code)
				}
			}
		case *ast.RangeStmt:
			var ids []*ast.Ident
			for _, x := range []ast.Expr{n.Key, n.Value} {
				if id, ok := x.(*ast.Ident); ok {
					ids = append(ids, id)
				}
			}
			if code := v.record(ids, "; ", n, true); code != "" {
				v.atStart(n.Body, code)
			}
		case *ast.IfStmt:
			if n.Init != nil {
				if code := v.record(defined(n.Init), " && ", n.Init, true); code != "" {
					v.inCond(n.Cond, code)
				}
			}
		case *ast.ForStmt:
			ids := defined(n.Init)
			if n.Post != nil {
				ids = append(ids, defined(n.Post)...)
			}
			if n.Cond == nil {
				// The loop leaves only by a jump: the body's first
				// statement follows the init and every post statement.
				if len(n.Body.List) > 0 {
					if code := v.record(ids, "; ", n.Body.List[0], false); code != "" {
						v.atStart(n.Body, code)
					}
				}
			} else if code := v.record(ids, " && ", n.Cond, false); code != "" {
				// The condition follows the init and every post
				// statement: the value is the one whichever ran last
				// gave.
				v.inCond(n.Cond, code)
			}
		case *ast.SwitchStmt:
			if n.Init != nil {
				v.switchInit(n)
			}
		case *ast.TypeSwitchStmt:
			if n.Init != nil {
				if code := v.record(defined(n.Init), "; ", n.Init, true); code != "" {
					for _, c := range n.Body.List {
						v.atStart(c, code)
					}
				}
			}
		}
		return true
	})
}

// list records, after each statement of a list, what it defines.
func (v *valueRecorder) list(stmts []ast.Stmt) {
	for _, s := range stmts {
		if code := v.record(defined(s), "; ", s, true); code != "" {
			v.after(s, code)
		}
	}
}

// switchInit records the variables a switch's init statement defines: in
// its tag (wrapped, or made, for a tagless switch whose cases are plain
// bools), or at the start of each clause.
func (v *valueRecorder) switchInit(s *ast.SwitchStmt) {
	ids := defined(s.Init)
	code := v.record(ids, " && ", s.Init, true)
	if code == "" {
		return
	}
	if s.Tag != nil {
		span := int(s.Tag.End() - s.Tag.Pos())
		v.e.insertAt(s.Tag.Pos(), phaseWrapOpen, -2*span-1, valueTag+"("+code+", ")
		v.e.insertAt(s.Tag.End(), phaseWrapClose, 2*span+1, ")")
		return
	}
	plain := true
	for _, c := range s.Body.List {
		for _, x := range c.(*ast.CaseClause).List {
			plain = plain && v.plainBool(x)
		}
	}
	if plain {
		v.e.insertAt(s.Body.Lbrace, phaseDecl, 0, code+" ")
		return
	}
	for _, c := range s.Body.List {
		v.atStart(c, v.record(ids, "; ", s.Init, true))
	}
}
