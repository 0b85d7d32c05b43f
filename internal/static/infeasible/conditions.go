package infeasible

// What each edge of a function's graph says of its values.

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pathcover/pathcover/internal/funcgraph"
)

// conditions turns the source's conditions into formulas over terms.
type conditions struct {
	t    *terms
	info *types.Info
	// switches gives each case clause's switch statement.
	switches map[*ast.CaseClause]ast.Stmt
	boolType types.Type
}

func newConditions(t *terms, info *types.Info, body *ast.BlockStmt) *conditions {
	c := &conditions{t: t, info: info, switches: make(map[*ast.CaseClause]ast.Stmt), boolType: types.Typ[types.Bool]}
	ast.Inspect(body, func(n ast.Node) bool {
		var list *ast.BlockStmt
		switch s := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SwitchStmt:
			list = s.Body
		case *ast.TypeSwitchStmt:
			list = s.Body
		default:
			return true
		}
		for _, cc := range list.List {
			c.switches[cc.(*ast.CaseClause)] = n.(ast.Stmt)
		}
		return true
	})
	return c
}

// value returns the term of expression e: a constant's, nil's, or the
// value the SSA builder recorded for it.
func (c *conditions) value(e ast.Expr, vw view) (term, bool) {
	e = ast.Unparen(e)
	tv := c.info.Types[e]
	if tv.Value != nil {
		return c.t.constant(tv.Value, tv.Type), true
	}
	if tv.IsNil() {
		return c.t.constant(nil, tv.Type), true
	}
	v, ok := c.t.exprs[e]
	if !ok {
		return 0, false
	}
	return c.t.of(v, vw), true
}

// unknown is a fact that says nothing: e's value, a term of its own. It
// can be negated (the other outcome of the same branch), unlike truth.
func (c *conditions) unknown(e ast.Node) *formula {
	u := c.t.intern(termInfo{key: fmt.Sprintf("u%d", e.Pos()), typ: c.boolType, text: "(" + types.ExprString(asExpr(e)) + ")"})
	return atomFormula(atom{kind: cmpAtom, op: token.EQL, x: u, y: c.t.constant(constant.MakeBool(true), c.boolType)})
}

func asExpr(n ast.Node) ast.Expr {
	if e, ok := n.(ast.Expr); ok {
		return e
	}
	return &ast.BadExpr{}
}

// cond returns the formula that boolean expression e is true.
func (c *conditions) cond(e ast.Expr, vw view) *formula {
	e = ast.Unparen(e)
	if tv := c.info.Types[e]; tv.Value != nil && tv.Value.Kind() == constant.Bool {
		if constant.BoolVal(tv.Value) {
			return truth
		}
		return falsehood
	}
	switch e := e.(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return c.cond(e.X, vw).not()
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND:
			return and(c.cond(e.X, vw), c.cond(e.Y, vw))
		case token.LOR:
			return or(c.cond(e.X, vw), c.cond(e.Y, vw))
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			x, okx := c.value(e.X, vw)
			y, oky := c.value(e.Y, vw)
			if okx && oky {
				if a, ok := c.compare(e.Op, x, y, c.info.TypeOf(e.X), c.info.TypeOf(e.Y)); ok {
					return atomFormula(a)
				}
			}
		}
	}
	if v, ok := c.value(e, vw); ok {
		return atomFormula(atom{kind: cmpAtom, op: token.EQL, x: v, y: c.t.constant(constant.MakeBool(true), c.boolType)})
	}
	return c.unknown(e)
}

// compare returns the atom x op y, for operands of types tx and ty, if the
// solver can reason about it: equality of integers, booleans, strings,
// pointers and channels, and of anything with nil; order of integers.
// Floats are not (NaN is not equal to itself), nor interfaces and
// aggregates, which may hold floats.
func (c *conditions) compare(op token.Token, x, y term, tx, ty types.Type) (atom, bool) {
	a := atom{kind: cmpAtom, op: op, x: x, y: y}
	if c.t.info[y].isNil || c.t.info[x].isNil {
		if c.t.info[x].isNil {
			a.x, a.y = y, x
		}
		return a, op == token.EQL || op == token.NEQ
	}
	for _, typ := range []types.Type{tx, ty} {
		if typ == nil {
			return a, false
		}
		switch u := typ.Underlying().(type) {
		case *types.Basic:
			switch {
			case u.Info()&types.IsInteger != 0:
			case u.Info()&(types.IsBoolean|types.IsString) != 0 || u.Kind() == types.UnsafePointer:
				if op != token.EQL && op != token.NEQ {
					return a, false
				}
			default:
				return a, false
			}
		case *types.Pointer, *types.Chan:
			if op != token.EQL && op != token.NEQ {
				return a, false
			}
		default:
			return a, false
		}
	}
	return a, true
}

// clause returns the formula that case clause cc matches (the outcomes
// before it having failed, which the path's earlier edges say).
func (c *conditions) clause(cc *ast.CaseClause, vw view) *formula {
	var alts []*formula
	switch s := c.switches[cc].(type) {
	case *ast.SwitchStmt:
		if s.Tag == nil {
			for _, e := range cc.List {
				alts = append(alts, c.cond(e, vw))
			}
			break
		}
		tag, ok := c.value(s.Tag, vw)
		for _, e := range cc.List {
			v, okv := c.value(e, vw)
			if ok && okv {
				if a, ok := c.compare(token.EQL, tag, v, c.info.TypeOf(s.Tag), c.info.TypeOf(e)); ok {
					alts = append(alts, atomFormula(a))
					continue
				}
			}
			alts = append(alts, c.unknown(e))
		}
	case *ast.TypeSwitchStmt:
		x, ok := c.value(typeSwitchOperand(s), vw)
		for _, e := range cc.List {
			tv := c.info.Types[e]
			switch {
			case !ok:
				alts = append(alts, c.unknown(e))
			case tv.IsNil():
				alts = append(alts, atomFormula(atom{kind: cmpAtom, op: token.EQL, x: x, y: c.t.constant(nil, tv.Type)}))
			case tv.Type == nil || hasTypeParam(tv.Type):
				alts = append(alts, c.unknown(e))
			case types.IsInterface(tv.Type):
				alts = append(alts, atomFormula(atom{kind: implements, x: x, typ: tv.Type}))
			default:
				alts = append(alts, atomFormula(atom{kind: isType, x: x, typ: tv.Type}))
			}
		}
	default:
		return c.unknown(cc)
	}
	return or(alts...)
}

func typeSwitchOperand(s *ast.TypeSwitchStmt) ast.Expr {
	var e ast.Expr
	switch a := s.Assign.(type) {
	case *ast.ExprStmt:
		e = a.X
	case *ast.AssignStmt:
		e = a.Rhs[0]
	}
	if ta, ok := ast.Unparen(e).(*ast.TypeAssertExpr); ok {
		return ta.X
	}
	return e
}

// hasTypeParam reports whether t mentions a type parameter: a type atom
// about it would depend on the instantiation.
func hasTypeParam(t types.Type) bool {
	seen := make(map[types.Type]bool)
	var has func(t types.Type) bool
	tuple := func(tu *types.Tuple) bool {
		for i := range tu.Len() {
			if has(tu.At(i).Type()) {
				return true
			}
		}
		return false
	}
	has = func(t types.Type) bool {
		if t == nil || seen[t] {
			return false
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.TypeParam:
			return true
		case *types.Named:
			for i := range t.TypeArgs().Len() {
				if has(t.TypeArgs().At(i)) {
					return true
				}
			}
		case *types.Alias:
			return has(types.Unalias(t))
		case *types.Pointer:
			return has(t.Elem())
		case *types.Slice:
			return has(t.Elem())
		case *types.Array:
			return has(t.Elem())
		case *types.Chan:
			return has(t.Elem())
		case *types.Map:
			return has(t.Key()) || has(t.Elem())
		case *types.Signature:
			return tuple(t.Params()) || tuple(t.Results())
		case *types.Struct:
			for i := range t.NumFields() {
				if has(t.Field(i).Type()) {
					return true
				}
			}
		case *types.Interface:
			for i := range t.NumMethods() {
				if has(t.Method(i).Type()) {
					return true
				}
			}
			for i := range t.NumEmbeddeds() {
				if has(t.EmbeddedType(i)) {
					return true
				}
			}
		}
		return false
	}
	return has(t)
}

// lenTerm returns the term of len(x) for a range over x's value v: a
// slice's, string's, array's or pointer to array's length.
func (c *conditions) lenTerm(x ast.Expr, vw view) (term, bool) {
	typ := c.info.TypeOf(x)
	intType := types.Typ[types.Int]
	switch u := typ.Underlying().(type) {
	case *types.Array:
		return c.t.constant(constant.MakeInt64(u.Len()), intType), true
	case *types.Pointer:
		if a, ok := u.Elem().Underlying().(*types.Array); ok {
			return c.t.constant(constant.MakeInt64(a.Len()), intType), true
		}
		return 0, false
	case *types.Slice:
	case *types.Basic:
		if u.Info()&types.IsString == 0 {
			return 0, false
		}
	default:
		return 0, false
	}
	if tv := c.info.Types[x]; tv.Value != nil && tv.Value.Kind() == constant.String {
		return c.t.constant(constant.MakeInt64(int64(len(constant.StringVal(tv.Value)))), intType), true
	}
	v, ok := c.t.exprs[ast.Unparen(x)]
	if !ok {
		return 0, false
	}
	if m, ok := v.(*ssa.MakeSlice); ok {
		return c.t.of(m.Len, vw), true
	}
	xt := c.t.of(v, vw)
	id := c.t.derived("len", intType, "len("+c.t.info[xt].text+")", xt)
	c.t.info[id].nonNeg = true
	return id, true
}

// rangeFirst returns what a range loop's first test says: on its first
// round, the loop over s.X has a next element (next) or none.
func (c *conditions) rangeFirst(s *ast.RangeStmt, next bool, vw view) *formula {
	zero := c.t.constant(constant.MakeInt64(0), types.Typ[types.Int])
	if typ := c.info.TypeOf(s.X); typ != nil {
		if b, ok := typ.Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
			n, ok := c.value(s.X, vw)
			if !ok {
				return truth
			}
			if next {
				return atomFormula(atom{kind: cmpAtom, op: token.GTR, x: n, y: zero})
			}
			return atomFormula(atom{kind: cmpAtom, op: token.LEQ, x: n, y: zero})
		}
	}
	n, ok := c.lenTerm(s.X, vw)
	if !ok {
		return truth
	}
	if next {
		return atomFormula(atom{kind: cmpAtom, op: token.GTR, x: n, y: zero})
	}
	return atomFormula(atom{kind: cmpAtom, op: token.EQL, x: n, y: zero})
}

// Conditions returns, for each edge of f, the source of the condition its
// outcome is of: an if's or for's condition, a case clause's list, the
// range expression; "" for an edge that is not a branch outcome.
func Conditions(f *funcgraph.Func) []string {
	conds := make([]string, len(f.Edges))
	for i, e := range f.Edges {
		switch s := e.Node.(type) {
		case *ast.IfStmt:
			if e.Kind == funcgraph.EdgeTrue || e.Kind == funcgraph.EdgeFalse {
				conds[i] = types.ExprString(s.Cond)
			}
		case *ast.ForStmt:
			if (e.Kind == funcgraph.EdgeTrue || e.Kind == funcgraph.EdgeFalse) && s.Cond != nil {
				conds[i] = types.ExprString(s.Cond)
			}
		case *ast.RangeStmt:
			if e.Kind == funcgraph.EdgeRangeNext || e.Kind == funcgraph.EdgeRangeDone {
				conds[i] = "range " + types.ExprString(s.X)
			}
		case *ast.CaseClause:
			if e.Kind == funcgraph.EdgeCase || e.Kind == funcgraph.EdgeNextCase {
				conds[i] = "case " + exprList(s.List)
			}
		case *ast.SwitchStmt:
			if e.Kind == funcgraph.EdgeNoMatch {
				conds[i] = "switch"
				if s.Tag != nil {
					conds[i] += " " + types.ExprString(s.Tag)
				}
			}
		case *ast.TypeSwitchStmt:
			if e.Kind == funcgraph.EdgeNoMatch {
				conds[i] = "switch " + types.ExprString(typeSwitchOperand(s)) + ".(type)"
			}
		}
	}
	return conds
}

func exprList(list []ast.Expr) string {
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = types.ExprString(e)
	}
	return strings.Join(parts, ", ")
}
