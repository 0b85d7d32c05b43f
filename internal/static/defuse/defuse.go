package defuse

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/pathcover/pathcover/internal/funcgraph"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A Config is what Analyze needs besides the function.
type Config struct {
	Info *types.Info
	// Position places a token.Pos in the source as reports show it.
	Position func(token.Pos) token.Position
	// Package is the import path of the function's package, as the
	// metadata spells callees' packages.
	Package string
	// Literals names the package's function literals as funcgraph does
	// (F.func1), so that a call of a literal names its callee.
	Literals map[*ast.FuncLit]string
	// Record says that the build records memory accesses (Analyze returns
	// them); otherwise every read through memory is listed in
	// DepStmt.Memory as not recorded.
	Record bool
}

// Analyze returns fn's statements, variables and calls (see the package
// doc), and, with cfg.Record, the memory accesses to record.
func Analyze(fn *funcgraph.Func, cfg *Config) (*profile.Deps, []Access) {
	a := &analysis{cfg: cfg, fn: fn, d: &profile.Deps{}, ids: make(map[types.Object]int32)}
	a.findSymbolic()
	a.signature()
	a.d.Blocks = make([][]int32, len(fn.Blocks))
	a.prescan()
	a.markSelects()
	for b, blk := range fn.Blocks {
		a.block(numbering.BlockID(b), blk)
	}
	return a.d, a.accesses
}

type analysis struct {
	cfg *Config
	fn  *funcgraph.Func
	d   *profile.Deps
	// ids are the symbolic variables' indexes in d.Vars.
	ids map[types.Object]int32
	// symbolic are the function's symbolic variables (see the package doc).
	symbolic map[*types.Var]bool
	// tags are the synthetic variables of switch tags and range values, by
	// their statement; caseTag gives a case expression's switch.
	tags    map[ast.Stmt]int32
	caseTag map[ast.Expr]ast.Stmt
	// clauses are each type switch's clauses, in order.
	clauses map[ast.Stmt][]*ast.CaseClause
	// seen counts the switch.case blocks of each type switch so far.
	seen map[ast.Stmt]int
	// accesses are the memory accesses to record.
	accesses []Access
	// inSelect gives the select case of a send statement or receive
	// expression that is a case's communication.
	inSelect map[ast.Node]*ast.CommClause
}

// findSymbolic finds the variables declared in fn, outside its literals,
// whose every access the syntax shows.
func (a *analysis) findSymbolic() {
	info := a.cfg.Info
	start, end := a.fn.Node.Pos(), a.fn.Node.End()
	var lits []*ast.FuncLit
	ast.Inspect(a.fn.Body, func(n ast.Node) bool {
		if l, ok := n.(*ast.FuncLit); ok {
			lits = append(lits, l)
			return false
		}
		return true
	})
	inLit := func(p token.Pos) bool {
		for _, l := range lits {
			if l.Pos() <= p && p < l.End() {
				return true
			}
		}
		return false
	}
	own := func(v *types.Var) bool {
		return v != nil && !v.IsField() && v.Pos() >= start && v.Pos() < end && !inLit(v.Pos())
	}
	a.symbolic = make(map[*types.Var]bool)
	for id, obj := range info.Defs {
		if v, ok := obj.(*types.Var); ok && own(v) && id.Pos() >= start && id.Pos() < end {
			a.symbolic[v] = true
		}
	}
	for _, obj := range info.Implicits {
		if v, ok := obj.(*types.Var); ok && own(v) {
			a.symbolic[v] = true
		}
	}
	drop := func(e ast.Expr) {
		if v := a.rootVar(e); v != nil {
			delete(a.symbolic, v)
		}
	}
	// Captured by a literal.
	for _, l := range lits {
		ast.Inspect(l.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if v, ok := info.Uses[id].(*types.Var); ok && own(v) {
					delete(a.symbolic, v)
				}
			}
			return true
		})
	}
	// Addresses taken.
	ast.Inspect(a.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				drop(n.X)
			}
		case *ast.SliceExpr:
			if _, ok := under(info.TypeOf(n.X)).(*types.Array); ok {
				drop(n.X)
			}
		case *ast.SelectorExpr:
			if sel := info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal {
				if _, ptrRecv := sel.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer); ptrRecv {
					if _, isPtr := under(info.TypeOf(n.X)).(*types.Pointer); !isPtr {
						drop(n.X)
					}
				}
			}
		}
		return true
	})
}

func under(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// rootVar returns the local variable whose storage e denotes part of
// (v, v.f, v[i] on an array, parenthesized), or nil.
func (a *analysis) rootVar(e ast.Expr) *types.Var {
	info := a.cfg.Info
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			v, _ := info.Uses[x].(*types.Var)
			if v == nil {
				v, _ = info.Defs[x].(*types.Var)
			}
			return v
		case *ast.SelectorExpr:
			sel := info.Selections[x]
			if sel == nil || sel.Kind() != types.FieldVal || sel.Indirect() {
				return nil
			}
			if _, ok := under(info.TypeOf(x.X)).(*types.Pointer); ok {
				return nil
			}
			e = x.X
		case *ast.IndexExpr:
			if _, ok := under(info.TypeOf(x.X)).(*types.Array); !ok {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}

// variable returns v's index, adding it.
func (a *analysis) variable(obj types.Object, name string, p token.Pos) int32 {
	if id, ok := a.ids[obj]; ok && obj != nil {
		return id
	}
	at := a.cfg.Position(p)
	a.d.Vars = append(a.d.Vars, profile.DepVar{Name: name, Line: at.Line, Col: at.Column})
	id := int32(len(a.d.Vars) - 1)
	if obj != nil {
		a.ids[obj] = id
	}
	return id
}

// local returns the index of v if it is symbolic, else -1.
func (a *analysis) local(v *types.Var) int32 {
	if v == nil || !a.symbolic[v] {
		return -1
	}
	return a.variable(v, v.Name(), v.Pos())
}

// signature adds the parameters, the results and the entry statement.
func (a *analysis) signature() {
	var recv *ast.FieldList
	var ftype *ast.FuncType
	switch n := a.fn.Node.(type) {
	case *ast.FuncDecl:
		recv, ftype = n.Recv, n.Type
	case *ast.FuncLit:
		ftype = n.Type
	}
	fields := func(list *ast.FieldList, what string) []int32 {
		var ids []int32
		if list == nil {
			return nil
		}
		for _, f := range list.List {
			if len(f.Names) == 0 {
				ids = append(ids, a.variable(nil, what, f.Pos()))
				continue
			}
			for _, name := range f.Names {
				v, _ := a.cfg.Info.Defs[name].(*types.Var)
				if id := a.local(v); id >= 0 {
					ids = append(ids, id)
				} else {
					// Blank, or captured: the argument is bound to no
					// symbolic variable, but keeps its place.
					ids = append(ids, a.variable(nil, name.Name, name.Pos()))
				}
			}
		}
		return ids
	}
	a.d.Params = append(fields(recv, "receiver"), fields(ftype.Params, "parameter")...)
	a.d.Results = fields(ftype.Results, "result")
	entry := profile.DepStmt{}
	a.place(&entry, ftype.Pos(), ftype.End())
	entry.Defs = slices.Clone(a.d.Params)
	if ftype.Results != nil && len(ftype.Results.List) > 0 && len(ftype.Results.List[0].Names) > 0 {
		entry.Defs = append(entry.Defs, a.d.Results...)
	}
	a.d.Stmts = append(a.d.Stmts, entry)
}

func (a *analysis) place(s *profile.DepStmt, from, to token.Pos) {
	p, q := a.cfg.Position(from), a.cfg.Position(to)
	s.Line, s.Col, s.EndLine, s.EndCol = p.Line, p.Column, q.Line, q.Column
}

// prescan finds the switches' tags and case expressions and the range
// loops, which get synthetic variables.
func (a *analysis) prescan() {
	a.tags = make(map[ast.Stmt]int32)
	a.caseTag = make(map[ast.Expr]ast.Stmt)
	a.clauses = make(map[ast.Stmt][]*ast.CaseClause)
	a.seen = make(map[ast.Stmt]int)
	ast.Inspect(a.fn.Body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SwitchStmt:
			if s.Tag == nil {
				return true
			}
			a.tags[s] = a.variable(nil, "switch tag", s.Tag.Pos())
			for _, c := range s.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					a.caseTag[e] = s
				}
			}
		case *ast.TypeSwitchStmt:
			a.tags[s] = a.variable(nil, "switch tag", s.Assign.Pos())
			for _, c := range s.Body.List {
				cc := c.(*ast.CaseClause)
				a.clauses[s] = append(a.clauses[s], cc)
				for _, e := range cc.List {
					a.caseTag[e] = s
				}
			}
		case *ast.RangeStmt:
			a.tags[s] = a.variable(nil, "range value", s.X.Pos())
		}
		return true
	})
}

// block adds the statements of block b.
func (a *analysis) block(b numbering.BlockID, blk funcgraph.Block) {
	switch blk.Kind {
	case funcgraph.BlockRangeHead:
		a.add(b, a.rangeTest(blk.Stmt.(*ast.RangeStmt)))
	case funcgraph.BlockRangeBody:
		a.add(b, a.rangeAssign(blk.Stmt.(*ast.RangeStmt)))
	case funcgraph.BlockSwitchCase:
		if ts, ok := blk.Stmt.(*ast.TypeSwitchStmt); ok {
			i := a.seen[ts]
			a.seen[ts]++
			if i < len(a.clauses[ts]) {
				if s, ok := a.typeClause(ts, a.clauses[ts][i]); ok {
					a.add(b, s)
				}
			}
		}
	}
	for _, n := range blk.Nodes {
		a.add(b, a.node(n))
	}
	if len(a.d.Blocks[b]) == 0 && a.decides(b) && blk.Stmt != nil {
		// A decision with nothing evaluated: the slicer still needs a
		// statement to depend on.
		s := profile.DepStmt{}
		a.place(&s, blk.Stmt.Pos(), blk.Stmt.Pos())
		a.add(b, s)
	}
}

func (a *analysis) add(b numbering.BlockID, s profile.DepStmt) {
	a.d.Stmts = append(a.d.Stmts, s)
	a.d.Blocks[b] = append(a.d.Blocks[b], int32(len(a.d.Stmts)-1))
}

// decides reports whether block b has two or more successors.
func (a *analysis) decides(b numbering.BlockID) bool {
	first := numbering.BlockID(-1)
	for _, e := range a.fn.Graph.Edges {
		if e.Src != b {
			continue
		}
		if first >= 0 && e.Dst != first {
			return true
		}
		first = e.Dst
	}
	return false
}

// rangeTest is the head of range loop s: whether there is another round,
// from the range expression's value (and not from the elements, which
// rangeAssign reads, so that a round does not depend on the values of the
// rounds before it).
func (a *analysis) rangeTest(s *ast.RangeStmt) profile.DepStmt {
	st := profile.DepStmt{Uses: []int32{a.tags[s]}}
	a.place(&st, s.For, s.X.End())
	return st
}

// rangeAssign begins the body of range loop s: it defines the key and the
// value from the range expression's value, and reads the element.
func (a *analysis) rangeAssign(s *ast.RangeStmt) profile.DepStmt {
	st := profile.DepStmt{}
	a.place(&st, s.For, s.X.End())
	w := a.walker(&st)
	w.node = s
	st.Uses = append(st.Uses, a.tags[s])
	switch under(a.cfg.Info.TypeOf(s.X)).(type) {
	case *types.Slice:
		if !a.cfg.Record {
			st.Memory = append(st.Memory, "elements of "+types.ExprString(s.X))
		} // else: read where the range expression is (fill)
	case *types.Chan:
		if a.cfg.Record && a.simple(s.X) {
			// Each round receives: recorded at the start of the body.
			a.access(w.stmt, s.X, profile.WPPRecv).After = s
		} else {
			st.Memory = append(st.Memory, "<-"+types.ExprString(s.X))
		}
	case *types.Map:
		if key, ok := s.Key.(*ast.Ident); ok && key.Name != "_" && a.cfg.Record && a.simple(s.X) {
			// Each round reads the entry of its key: recorded at the
			// start of the body, where the key is known.
			acc := a.access(w.stmt, key, profile.WPPMapRead)
			acc.After, acc.Map = s, s.X
		} else {
			st.Memory = append(st.Memory, "elements of "+types.ExprString(s.X))
		}
	case *types.Pointer:
		st.Memory = append(st.Memory, "elements of "+types.ExprString(s.X))
	}
	for _, lhs := range []ast.Expr{s.Key, s.Value} {
		if lhs != nil {
			w.assign(lhs, s.Tok)
		}
	}
	w.finish()
	return st
}

// typeClause is the binding of a type switch clause's variable.
func (a *analysis) typeClause(s *ast.TypeSwitchStmt, cc *ast.CaseClause) (profile.DepStmt, bool) {
	v, _ := a.cfg.Info.Implicits[cc].(*types.Var)
	id := a.local(v)
	if id < 0 {
		return profile.DepStmt{}, false
	}
	st := profile.DepStmt{Defs: []int32{id}, Uses: []int32{a.tags[s]}}
	a.place(&st, cc.Case, cc.Colon)
	return st, true
}

// node is the statement of a block's node n.
func (a *analysis) node(n ast.Node) profile.DepStmt {
	st := profile.DepStmt{}
	a.place(&st, n.Pos(), n.End())
	w := a.walker(&st)
	w.node = n
	a.fill(n, w)
	w.finish()
	return st
}

// fill adds what node n defines, reads and calls to w's statement.
func (a *analysis) fill(n ast.Node, w *walker) {
	st := w.st
	if e, ok := n.(ast.Expr); ok {
		if sw, ok := a.caseTag[e]; ok {
			st.Uses = append(st.Uses, a.tags[sw])
			if _, isType := sw.(*ast.TypeSwitchStmt); isType {
				return // a type
			}
		}
		w.expr(e, &w.top)
		for s, tag := range a.tags {
			if sw, ok := s.(*ast.SwitchStmt); ok && sw.Tag == e {
				st.Defs = append(st.Defs, tag)
			}
			if r, ok := s.(*ast.RangeStmt); ok && r.X == e {
				st.Defs = append(st.Defs, tag)
				if _, slice := under(a.cfg.Info.TypeOf(e)).(*types.Slice); slice && a.cfg.Record {
					// The loop reads every element: recorded as one read
					// of them all, where the range expression is evaluated
					// (an element written by the loop before it is read
					// is the one case this misses).
					a.access(w.stmt, e, profile.WPPLoad).Elems = true
				}
			}
		}
		return
	}
	switch s := n.(type) {
	case *ast.AssignStmt:
		if ts := a.typeSwitchOf(s); ts != nil {
			w.expr(s.Rhs[0].(*ast.TypeAssertExpr).X, &w.top)
			st.Defs = append(st.Defs, a.tags[ts])
			return
		}
		for _, r := range s.Rhs {
			w.expr(r, &w.top)
		}
		for _, l := range s.Lhs {
			w.assign(l, s.Tok)
		}
	case *ast.IncDecStmt:
		w.assign(s.X, token.ADD_ASSIGN)
	case *ast.DeclStmt:
		gd, ok := s.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			return
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for _, v := range vs.Values {
				w.expr(v, &w.top)
			}
			for _, name := range vs.Names {
				w.assign(name, token.DEFINE)
			}
		}
	case *ast.ExprStmt:
		if ts := a.typeSwitchOf(s); ts != nil {
			w.expr(s.X.(*ast.TypeAssertExpr).X, &w.top)
			st.Defs = append(st.Defs, a.tags[ts])
			return
		}
		w.expr(s.X, &w.top)
	case *ast.SendStmt:
		w.expr(s.Chan, &w.top)
		w.expr(s.Value, &w.top)
		if cc := a.inSelect[s]; cc != nil {
			w.selectCase(s.Chan, cc, profile.WPPSend)
		} else if a.cfg.Record {
			a.access(w.stmt, s.Chan, profile.WPPSend)
		}
	case *ast.ReturnStmt:
		st.Return = true
		st.Defs = slices.Clone(a.d.Results)
		if len(s.Results) == 0 {
			st.Uses = append(st.Uses, a.d.Results...)
		}
		for _, r := range s.Results {
			w.expr(r, &w.top)
		}
	case *ast.DeferStmt:
		w.expr(s.Call, &w.top)
		// The deferred call is the last one listed (the outermost, by its
		// closing parenthesis), unless it is a builtin's.
		st.Defer = w.lastCall == s.Call
	case *ast.GoStmt:
		// The call runs in another goroutine: its function and arguments
		// are evaluated here.
		st.Go = true
		w.expr(s.Call.Fun, &w.top)
		for _, arg := range s.Call.Args {
			w.expr(arg, &w.top)
		}
	}
}

// typeSwitchOf returns the type switch whose Assign s is, or nil.
func (a *analysis) typeSwitchOf(s ast.Stmt) ast.Stmt {
	for sw := range a.clauses {
		if sw.(*ast.TypeSwitchStmt).Assign == s {
			return sw
		}
	}
	for sw := range a.tags {
		if ts, ok := sw.(*ast.TypeSwitchStmt); ok && ts.Assign == s {
			return sw
		}
	}
	return nil
}

// A walker collects the uses, memory reads and calls of one statement.
type walker struct {
	a  *analysis
	st *profile.DepStmt
	// top gathers what the statement itself reads (outside call arguments).
	top flow
	// lastCall is the last call added to st.Calls.
	lastCall *ast.CallExpr
	memory   map[string]bool
	// stmt is the statement's index in Deps.Stmts, for its accesses, and
	// node its syntax (nil for a synthetic statement).
	stmt int32
	node ast.Node
}

// A flow is what reaches one place: variables read, calls whose results
// flow in.
type flow struct {
	uses  []int32
	calls []int32
}

// walker returns a walker for st, the next statement to be added.
func (a *analysis) walker(st *profile.DepStmt) *walker {
	return &walker{a: a, st: st, memory: make(map[string]bool), stmt: int32(len(a.d.Stmts))}
}

// finish moves the statement's own reads into it, without repeats.
func (w *walker) finish() {
	w.st.Uses = dedup(append(w.st.Uses, w.top.uses...))
	w.st.Defs = dedup(w.st.Defs)
}

func dedup(ids []int32) []int32 {
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// mem notes a read through memory that is not recorded.
func (w *walker) mem(e ast.Expr, what string) {
	s := what + types.ExprString(e)
	if !w.memory[s] {
		w.memory[s] = true
		w.st.Memory = append(w.st.Memory, s)
	}
}

// load notes a read of e through memory: recorded if it can be.
func (w *walker) load(e ast.Expr) {
	if w.a.cfg.Record && w.a.addressable(e) {
		w.a.access(w.stmt, e, profile.WPPLoad)
		return
	}
	w.mem(e, "")
}

// assign records a write to lhs by an assignment of kind tok.
func (w *walker) assign(lhs ast.Expr, tok token.Token) {
	info := w.a.cfg.Info
	lhs = ast.Unparen(lhs)
	update := tok != token.ASSIGN && tok != token.DEFINE
	if id, ok := lhs.(*ast.Ident); ok {
		if id.Name == "_" {
			return
		}
		obj := info.Defs[id]
		if obj == nil {
			obj = info.Uses[id]
		}
		v, _ := obj.(*types.Var)
		if i := w.a.local(v); i >= 0 {
			w.st.Defs = append(w.st.Defs, i)
			if update {
				w.top.uses = append(w.top.uses, i)
			}
			return
		}
		if v == nil {
			return
		}
		if info.Defs[id] != nil {
			// Declared here and kept in memory (captured, or its address
			// taken): its first write is recorded after the statement.
			if after, ok := w.node.(ast.Stmt); ok && w.a.cfg.Record {
				w.a.access(w.stmt, id, profile.WPPStore).After = after
			}
			return
		}
		if tok == token.DEFINE {
			// Assigned by a := that declares others: the left side cannot
			// hold a call, so the write is recorded after the statement.
			if after, ok := w.node.(ast.Stmt); ok && w.a.cfg.Record {
				w.a.access(w.stmt, id, profile.WPPStore).After = after
			}
			return
		}
		w.store(id, update)
		return
	}
	if v := w.a.rootVar(lhs); v != nil {
		if i := w.a.local(v); i >= 0 {
			// Part of a symbolic variable: it keeps its other parts.
			w.st.Defs = append(w.st.Defs, i)
			w.top.uses = append(w.top.uses, i)
			w.indexes(lhs)
			return
		}
	}
	// A write through memory: what locates it is read.
	switch x := lhs.(type) {
	case *ast.SelectorExpr:
		w.place(x, &w.top)
	case *ast.IndexExpr:
		if _, isMap := under(info.TypeOf(x.X)).(*types.Map); isMap {
			w.expr(x.X, &w.top)
			w.expr(x.Index, &w.top)
			if w.a.cfg.Record && w.a.simple(x.X) {
				kind := profile.WPPMapWrite
				w.a.access(w.stmt, x, kind)
				if update {
					w.a.access(w.stmt, x, profile.WPPMapRead)
				}
			}
			return
		}
		w.place(x, &w.top)
	case *ast.StarExpr:
		w.expr(x.X, &w.top)
	}
	w.store(lhs, update)
}

// store records a write to e, addressable memory (and a read first for an
// update).
func (w *walker) store(e ast.Expr, update bool) {
	if !w.a.cfg.Record || !w.a.addressable(e) {
		if update {
			w.mem(e, "")
		}
		return
	}
	kind := profile.WPPStore
	if update {
		kind = profile.WPPUpdate
	}
	w.a.access(w.stmt, e, kind)
}

// place reads what locates e, a field or an element, without reading e.
func (w *walker) place(e ast.Expr, f *flow) {
	info := w.a.cfg.Info
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		if _, ptr := under(info.TypeOf(x.X)).(*types.Pointer); ptr || (info.Selections[x] != nil && info.Selections[x].Indirect()) {
			w.expr(x.X, f)
		} else {
			w.place(x.X, f)
		}
	case *ast.IndexExpr:
		if _, arr := under(info.TypeOf(x.X)).(*types.Array); arr {
			w.place(x.X, f)
		} else {
			w.expr(x.X, f)
		}
		w.expr(x.Index, f)
	case *ast.StarExpr:
		w.expr(x.X, f)
	case *ast.Ident:
		if v, ok := info.Uses[x].(*types.Var); ok {
			if i := w.a.local(v); i >= 0 {
				f.uses = append(f.uses, i) // part of a symbolic array or struct
			}
		}
	default:
		w.expr(e, f)
	}
}

// indexes reads the indexes of a write to part of a variable.
func (w *walker) indexes(e ast.Expr) {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			w.expr(x.Index, &w.top)
			e = x.X
		default:
			return
		}
	}
}

// expr records what evaluating e reads into f.
func (w *walker) expr(e ast.Expr, f *flow) {
	info := w.a.cfg.Info
	if e == nil {
		return
	}
	if tv, ok := info.Types[e]; ok && (tv.IsType() || tv.Value != nil) {
		return // a type or a constant
	}
	switch x := e.(type) {
	case *ast.Ident:
		switch v := info.Uses[x].(type) {
		case *types.Var:
			if v.IsField() {
				return // a field's name, in a struct literal
			}
			if i := w.a.local(v); i >= 0 {
				f.uses = append(f.uses, i)
			} else {
				w.load(x)
			}
		}
	case *ast.ParenExpr:
		w.expr(x.X, f)
	case *ast.SelectorExpr:
		sel := info.Selections[x]
		if sel == nil {
			// pkg.Name
			if _, ok := info.Uses[x.Sel].(*types.Var); ok {
				w.load(x)
			}
			return
		}
		if sel.Kind() != types.FieldVal {
			w.expr(x.X, f) // a method value
			return
		}
		_, ptr := under(info.TypeOf(x.X)).(*types.Pointer)
		if ptr || sel.Indirect() {
			w.expr(x.X, f)
			w.load(x)
			return
		}
		if v := w.a.rootVar(x); v != nil && w.a.local(v) >= 0 {
			w.expr(x.X, f) // a field of a symbolic variable
			return
		}
		if w.a.addressable(x) {
			// A field of a variable in memory: only the field is read.
			w.place(x, f)
			w.load(x)
			return
		}
		w.expr(x.X, f)
	case *ast.IndexExpr:
		if tv, ok := info.Types[x.X]; ok && tv.Type != nil {
			if _, fn := under(tv.Type).(*types.Signature); fn {
				w.expr(x.X, f) // an instantiation
				return
			}
		}
		switch under(info.TypeOf(x.X)).(type) {
		case *types.Map:
			w.expr(x.X, f)
			w.expr(x.Index, f)
			if w.a.cfg.Record && w.a.simple(x.X) {
				w.a.access(w.stmt, x, profile.WPPMapRead)
			} else {
				w.mem(x, "")
			}
			return
		case *types.Slice, *types.Pointer:
			w.expr(x.X, f)
			w.expr(x.Index, f)
			w.load(x)
			return
		case *types.Array:
			if v := w.a.rootVar(x); v != nil && w.a.local(v) >= 0 {
				break // an element of a symbolic array
			}
			if w.a.addressable(x) {
				w.place(x, f)
				w.load(x)
				return
			}
		}
		// A string's bytes, or an element of an array value, are part of
		// its value.
		w.expr(x.X, f)
		w.expr(x.Index, f)
	case *ast.IndexListExpr:
		w.expr(x.X, f)
	case *ast.SliceExpr:
		w.expr(x.X, f)
		w.expr(x.Low, f)
		w.expr(x.High, f)
		w.expr(x.Max, f)
	case *ast.StarExpr:
		w.expr(x.X, f)
		w.load(x)
	case *ast.UnaryExpr:
		switch x.Op {
		case token.AND:
			// An address: what locates it is read, not what it holds.
			if lit, ok := ast.Unparen(x.X).(*ast.CompositeLit); ok {
				w.elements(lit, f) // the literal itself is not wrapped: &T{} is
				if w.a.cfg.Record {
					w.a.access(w.stmt, x, profile.WPPStore).Alloc = true
				}
			} else {
				w.place(x.X, f)
			}
		case token.ARROW:
			w.expr(x.X, f)
			if cc := w.a.inSelect[x]; cc != nil {
				w.selectCase(x.X, cc, profile.WPPRecv)
			} else if w.a.cfg.Record {
				w.a.access(w.stmt, x.X, profile.WPPRecv)
			} else {
				w.mem(x, "")
			}
		default:
			w.expr(x.X, f)
		}
	case *ast.BinaryExpr:
		w.expr(x.X, f)
		w.expr(x.Y, f)
	case *ast.KeyValueExpr:
		w.expr(x.Key, f)
		w.expr(x.Value, f)
	case *ast.CompositeLit:
		// A literal whose type is elided ({1, 2} inside another) cannot be
		// wrapped; its elements are stored by the outer literal's.
		if _, slice := under(info.TypeOf(x)).(*types.Slice); slice && x.Type != nil && w.a.cfg.Record {
			w.a.access(w.stmt, x, profile.WPPStore).Alloc = true
		}
		w.elements(x, f)
	case *ast.TypeAssertExpr:
		w.expr(x.X, f)
	case *ast.CallExpr:
		w.call(x, f)
	case *ast.FuncLit:
		// Making a closure reads nothing; its body reads what it captures
		// when it runs, through memory.
	}
}

// elements records what the elements of a composite literal read: a
// struct literal's keys are field names, not values.
func (w *walker) elements(x *ast.CompositeLit, f *flow) {
	t := under(w.a.cfg.Info.TypeOf(x))
	if p, ok := t.(*types.Pointer); ok {
		t = under(p.Elem()) // an elided &T{} inside another literal
	}
	_, isStruct := t.(*types.Struct)
	for _, elt := range x.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok && isStruct {
			w.expr(kv.Value, f)
			continue
		}
		w.expr(elt, f)
	}
}

// call records a call: a conversion or a builtin reads its operands into
// f; any other call is added to the statement's calls, after the calls
// in its arguments, and its result flows into f.
func (w *walker) call(x *ast.CallExpr, f *flow) {
	info := w.a.cfg.Info
	if tv, ok := info.Types[x.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		for _, arg := range x.Args {
			w.expr(arg, f)
		}
		if tv.IsBuiltin() {
			w.builtin(x)
		}
		return
	}
	c := profile.DepCall{}
	at := w.a.cfg.Position(x.Lparen)
	c.Line, c.Col = at.Line, at.Column
	var args []ast.Expr
	fun := ast.Unparen(x.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	} else if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	recvAddr := false
	switch fn := fun.(type) {
	case *ast.FuncLit:
		c.Package, c.Func = w.a.cfg.Package, w.a.cfg.Literals[fn]
	case *ast.SelectorExpr:
		if sel := info.Selections[fn]; sel != nil && sel.Kind() == types.MethodVal {
			args = append(args, fn.X) // the receiver
			recvAddr = pointerMethodOfValue(info, sel, fn.X)
			if types.IsInterface(sel.Recv()) {
				c.Method = fn.Sel.Name
			}
		} else if sel == nil {
			if _, isVar := info.Uses[fn.Sel].(*types.Var); isVar {
				w.expr(fn, &w.top) // a package-level function variable
			}
		} else {
			w.expr(fn, &w.top) // a field holding a function
		}
	default:
		w.expr(fun, &w.top) // a function value
	}
	if c.Method == "" && c.Func == "" {
		if callee := typeutil.StaticCallee(info, x); callee != nil && callee.Pkg() != nil {
			c.Package = profile.PackagePath(callee.Pkg().Path())
			if callee.Pkg().Path() == "main" {
				// The compiler names a command's package "main"; no other
				// package can import it, so it is this one.
				c.Package = w.a.cfg.Package
			}
			c.Func = funcgraph.ObjectName(callee.Origin())
		}
	}
	args = append(args, x.Args...)
	for i, arg := range args {
		var af flow
		if i == 0 && recvAddr {
			w.place(arg, &af) // &v: the method reads v through its pointer
		} else {
			w.expr(arg, &af)
		}
		c.Args = append(c.Args, dedup(af.uses))
		c.ArgCalls = append(c.ArgCalls, af.calls)
	}
	if allEmpty(c.Args) {
		c.Args = nil
	}
	if allEmpty(c.ArgCalls) {
		c.ArgCalls = nil
	}
	w.st.Calls = append(w.st.Calls, c)
	w.lastCall = x
	f.calls = append(f.calls, int32(len(w.st.Calls)-1))
}

// pointerMethodOfValue reports whether sel, a method selected on x,
// has a pointer receiver while x is not a pointer: the call takes &x.
func pointerMethodOfValue(info *types.Info, sel *types.Selection, x ast.Expr) bool {
	recv := sel.Obj().Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	_, ptrRecv := recv.Type().(*types.Pointer)
	_, isPtr := under(info.TypeOf(x)).(*types.Pointer)
	return ptrRecv && !isPtr && !types.IsInterface(sel.Recv())
}

// builtin records the memory that builtin call x touches: copy moves
// elements, append stores them (and moves them to a new array), delete
// writes a map entry.
func (w *walker) builtin(x *ast.CallExpr) {
	id, ok := ast.Unparen(x.Fun).(*ast.Ident)
	if !ok {
		return
	}
	record := w.a.cfg.Record
	switch id.Name {
	case "copy":
		if record && len(x.Args) == 2 {
			w.a.access(w.stmt, x, profile.WPPCopy)
		} else if len(x.Args) == 2 {
			w.mem(x.Args[1], "elements of ")
		}
	case "append":
		if len(x.Args) == 0 {
			return
		}
		if record && w.a.simple(x.Args[0]) {
			w.a.access(w.stmt, x, profile.WPPStore)
		} else {
			w.mem(x.Args[0], "elements of ")
		}
		if x.Ellipsis.IsValid() && len(x.Args) == 2 {
			w.mem(x.Args[1], "elements of ")
		}
	case "delete":
		if record && len(x.Args) == 2 && w.a.simple(x.Args[0]) {
			w.a.access(w.stmt, x, profile.WPPMapWrite)
		}
	case "new":
		if record {
			w.a.access(w.stmt, x, profile.WPPStore).Alloc = true
		}
	case "make":
		if _, slice := under(w.a.cfg.Info.TypeOf(x)).(*types.Slice); slice && record {
			w.a.access(w.stmt, x, profile.WPPStore).Alloc = true
		}
	}
}

func allEmpty(lists [][]int32) bool {
	for _, l := range lists {
		if len(l) > 0 {
			return false
		}
	}
	return true
}
