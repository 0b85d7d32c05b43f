package infeasible

// Terms: the values that conditions compare, named so that two SSA values
// that must be equal get the same term.

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A term is an interned value of the function: its id in terms.info.
type term int

// termInfo is what the solver and the explanations know of a term.
type termInfo struct {
	key  string
	typ  types.Type
	text string // as the source would spell it, for explanations
	// value is the term's constant value, if it is one (nil for the nil
	// constant, which isNil says).
	value constant.Value
	isNil bool
	// nonNil says the value cannot be nil: an allocation, a closure, the
	// address of a field or element (its evaluation would have panicked).
	nonNil bool
	// nonNeg says the value cannot be negative: a length or a capacity.
	nonNeg bool
	// oneOf lists the constants a φ-node can be, when all its edges are
	// constants.
	oneOf []term
}

// terms interns the terms of one function. Two SSA values get the same term
// when they are the same pure computation of the same terms (a field of a
// value, a length of a slice, arithmetic, conversions), so that an
// expression written twice, or a value loaded twice from a local that is
// stored once, is one term; every other value (a call, a load from memory
// that may change, a receive) is a term of its own. Since a path of the
// numbering is acyclic, each SSA instruction runs at most once on it, so
// one term is one value throughout the path (doc.go).
type terms struct {
	fn    *ssa.Function
	info  []termInfo
	ids   map[string]term
	ident map[ssa.Value]int // the identity of an opaque value
	// exprs gives, for each expression of the source that the SSA
	// builder recorded (debug mode), its value.
	exprs map[ast.Expr]ssa.Value
	// stored gives, for a local that is written once, before any read, and
	// whose address goes nowhere, the value written.
	stored map[*ssa.Alloc]ssa.Value
	// text gives a source spelling of SSA values that have one.
	text map[ssa.Value]string
	memo map[memoKey]term
}

// memoKey is a value as seen with some loops' φ-nodes taken from outside
// the loop (first: a set of loop headers, as a bit set of their indexes in
// first's owner; see terms.of).
type memoKey struct {
	v     ssa.Value
	first uint64
}

func newTerms(fn *ssa.Function) *terms {
	t := &terms{
		fn: fn, ids: make(map[string]term), ident: make(map[ssa.Value]int),
		exprs: make(map[ast.Expr]ssa.Value), stored: make(map[*ssa.Alloc]ssa.Value),
		text: make(map[ssa.Value]string), memo: make(map[memoKey]term),
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			ref, ok := instr.(*ssa.DebugRef)
			if !ok || ref.IsAddr {
				continue
			}
			e := ast.Unparen(ref.Expr)
			if _, seen := t.exprs[e]; !seen {
				t.exprs[e] = ref.X
			}
			if _, seen := t.text[ref.X]; !seen {
				t.text[ref.X] = types.ExprString(e)
			}
		}
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if a, ok := instr.(*ssa.Alloc); ok {
				if v := storedOnce(a); v != nil {
					t.stored[a] = v
				}
			}
		}
	}
	return t
}

// storedOnce returns the value stored in local a if a is written by one
// store of the whole variable, which comes before every load of it or of a
// part of it, and its address is used by nothing but loads and the
// addresses of its fields and constant elements. Otherwise nil.
func storedOnce(a *ssa.Alloc) ssa.Value {
	var store *ssa.Store
	var loads []ssa.Instruction
	var walk func(addr ssa.Value) bool
	walk = func(addr ssa.Value) bool {
		for _, r := range *addr.Referrers() {
			switch r := r.(type) {
			case *ssa.DebugRef:
			case *ssa.UnOp:
				if r.Op != token.MUL {
					return false
				}
				loads = append(loads, r)
			case *ssa.FieldAddr:
				if !walk(r) {
					return false
				}
			case *ssa.IndexAddr:
				if _, ok := r.Index.(*ssa.Const); !ok {
					return false
				}
				if _, ok := r.X.Type().Underlying().(*types.Pointer); !ok {
					return false // a slice's element: memory of its own
				}
				if !walk(r) {
					return false
				}
			case *ssa.Store:
				if r.Addr != a || store != nil || r.Val == addr {
					return false
				}
				store = r
			default:
				return false
			}
		}
		return true
	}
	if a.Referrers() == nil || !walk(a) || store == nil {
		return nil
	}
	for _, l := range loads {
		if !before(store, l) {
			return nil
		}
	}
	return store.Val
}

// before reports whether instruction a runs before b whenever b runs.
func before(a, b ssa.Instruction) bool {
	if a.Block() != b.Block() {
		return a.Block().Dominates(b.Block())
	}
	for _, i := range a.Block().Instrs {
		switch i {
		case a:
			return true
		case b:
			return false
		}
	}
	return false
}

// intern returns the term with key, making it with info if it is new.
func (t *terms) intern(info termInfo) term {
	if id, ok := t.ids[info.key]; ok {
		return id
	}
	id := term(len(t.info))
	t.info = append(t.info, info)
	t.ids[info.key] = id
	return id
}

// constant returns the term of a constant value of type typ (nil: the nil
// constant).
func (t *terms) constant(v constant.Value, typ types.Type) term {
	if v == nil {
		return t.intern(termInfo{key: "nil", typ: typ, text: "nil", isNil: true})
	}
	kind := "?"
	switch v.Kind() {
	case constant.Bool:
		kind = "b"
	case constant.String:
		kind = "s"
	case constant.Int:
		kind = "i"
	case constant.Float:
		kind = "f"
	case constant.Complex:
		kind = "c"
	}
	text := v.String()
	if v.Kind() == constant.String {
		text = v.ExactString()
	}
	return t.intern(termInfo{key: "k" + kind + ":" + v.ExactString(), typ: typ, text: text, value: v, nonNeg: v.Kind() == constant.Int && constant.Sign(v) >= 0})
}

// opaque returns a term of its own for v.
func (t *terms) opaque(v ssa.Value) term { return t.opaqueIn(v, view{}) }

// opaqueIn returns a term of its own for v in view vw. A φ-node's is the
// view's own: what the view knows of it (oneOf, from its incoming values
// in the view) holds only on the paths of the view. Any other value is
// one term in every view: what the term says of it holds everywhere.
func (t *terms) opaqueIn(v ssa.Value, vw view) term {
	n, ok := t.ident[v]
	if !ok {
		n = len(t.ident)
		t.ident[v] = n
	}
	text, ok := t.text[v]
	if !ok {
		text = v.Name()
	}
	key := fmt.Sprintf("v%d", n)
	if _, phi := v.(*ssa.Phi); phi && vw.set != 0 {
		key += fmt.Sprintf("@%x", vw.set)
	}
	info := termInfo{key: key, typ: v.Type(), text: text}
	switch v.(type) {
	case *ssa.Alloc, *ssa.MakeClosure, *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice, *ssa.Function, *ssa.Global, *ssa.FieldAddr, *ssa.IndexAddr:
		info.nonNil = true
	}
	return t.intern(info)
}

// derived returns the term for a pure operation, with key made of the
// operation and its operands' keys.
func (t *terms) derived(op string, typ types.Type, text string, args ...term) term {
	var b strings.Builder
	b.WriteString("(" + op)
	for _, a := range args {
		b.WriteString(" " + t.info[a].key)
	}
	b.WriteString(")")
	return t.intern(termInfo{key: b.String(), typ: typ, text: text})
}

// A view says which loops' φ-nodes a term takes from outside the loop: a
// path that entered those loops runs their first round, so their φ-nodes
// hold what flowed in from before the loop.
type view struct {
	headers []*ssa.BasicBlock // with one edge from outside the loop
	set     uint64            // bit i: headers[i] is entered from outside
}

func (vw view) first(b *ssa.BasicBlock) int {
	for i, h := range vw.headers {
		if h == b && vw.set&(1<<i) != 0 {
			return outsideEdge(h)
		}
	}
	return -1
}

// outsideEdge returns the index of the one predecessor of loop header h
// that the loop does not reach (h does not dominate it), or -1.
func outsideEdge(h *ssa.BasicBlock) int {
	found := -1
	for i, p := range h.Preds {
		if h.Dominates(p) {
			continue
		}
		if found >= 0 {
			return -1
		}
		found = i
	}
	return found
}

// of returns the term of SSA value v, in view vw.
func (t *terms) of(v ssa.Value, vw view) term {
	k := memoKey{v, vw.set}
	if id, ok := t.memo[k]; ok {
		return id
	}
	// A cycle of φ-nodes (a loop's variable) is opaque: mark v while its
	// term is made.
	t.memo[k] = t.opaqueIn(v, vw)
	id := t.make(v, vw)
	t.memo[k] = id
	return id
}

func (t *terms) make(v ssa.Value, vw view) term {
	typ := v.Type()
	text := func(def string) string {
		if s, ok := t.text[v]; ok {
			return s
		}
		return def
	}
	switch v := v.(type) {
	case *ssa.Const:
		return t.constant(v.Value, typ)
	case *ssa.Phi:
		if i := vw.first(v.Block()); i >= 0 {
			return t.of(v.Edges[i], vw)
		}
		// A φ whose edges are all one term is that term.
		same, alike := term(-1), true
		consts := true
		var oneOf []term
		for _, e := range v.Edges {
			if e == v {
				continue
			}
			id := t.of(e, vw)
			if same < 0 {
				same = id
			} else if same != id {
				alike = false
			}
			if t.info[id].value == nil {
				consts = false
			} else {
				oneOf = append(oneOf, id)
			}
		}
		if same >= 0 && alike {
			return same
		}
		id := t.opaqueIn(v, vw)
		if consts && len(oneOf) > 0 {
			t.info[id].oneOf = oneOf
		}
		return id
	case *ssa.BinOp:
		x, y := t.of(v.X, vw), t.of(v.Y, vw)
		if cx, cy := t.info[x].value, t.info[y].value; cx != nil && cy != nil && foldable(v.Op, cx, cy) {
			if r := fold(v.Op, cx, cy, typ); r != nil {
				return t.constant(r, typ)
			}
		}
		return t.derived(v.Op.String(), typ, text(t.info[x].text+" "+v.Op.String()+" "+t.info[y].text), x, y)
	case *ssa.UnOp:
		switch v.Op {
		case token.MUL:
			if p, ok := t.project(v.X, vw); ok {
				return p
			}
			return t.opaque(v)
		case token.ARROW:
			return t.opaque(v)
		}
		x := t.of(v.X, vw)
		return t.derived(v.Op.String(), typ, text(v.Op.String()+t.info[x].text), x)
	case *ssa.Field:
		x := t.of(v.X, vw)
		return t.derived(fmt.Sprintf(".%d", v.Field), typ, text(t.info[x].text+"."+fieldName(v.X.Type(), v.Field)), x)
	case *ssa.Index:
		x, i := t.of(v.X, vw), t.of(v.Index, vw)
		return t.derived("[]", typ, text(t.info[x].text+"["+t.info[i].text+"]"), x, i)
	case *ssa.Extract:
		x := t.of(v.Tuple, vw)
		return t.derived(fmt.Sprintf("#%d", v.Index), typ, text(fmt.Sprintf("%s#%d", t.info[x].text, v.Index)), x)
	case *ssa.Convert, *ssa.ChangeType:
		x := t.of(*v.(ssa.Instruction).Operands(nil)[0], vw)
		if types.Identical(typ.Underlying(), t.info[x].typ.Underlying()) {
			return x
		}
		return t.derived("conv "+typ.String(), typ, text(typ.String()+"("+t.info[x].text+")"), x)
	case *ssa.Call:
		if id, ok := t.builtin(v, vw); ok {
			return id
		}
	}
	return t.opaque(v)
}

// builtin returns the term of a call of len or cap whose result is fixed
// by its operand's value: of a slice, string, array or pointer to array
// (not of a map or channel, whose length changes).
func (t *terms) builtin(call *ssa.Call, vw view) (term, bool) {
	b, ok := call.Call.Value.(*ssa.Builtin)
	if !ok || len(call.Call.Args) != 1 || (b.Name() != "len" && b.Name() != "cap") {
		return 0, false
	}
	arg := call.Call.Args[0]
	typ := call.Type()
	switch u := arg.Type().Underlying().(type) {
	case *types.Slice:
		if m, ok := arg.(*ssa.MakeSlice); ok {
			if b.Name() == "len" {
				return t.of(m.Len, vw), true
			}
			return t.of(m.Cap, vw), true
		}
	case *types.Basic:
		if u.Info()&types.IsString == 0 || b.Name() != "len" {
			return 0, false
		}
		if c, ok := arg.(*ssa.Const); ok && c.Value != nil {
			return t.constant(constant.MakeInt64(int64(len(constant.StringVal(c.Value)))), typ), true
		}
	case *types.Array:
		return t.constant(constant.MakeInt64(u.Len()), typ), true
	case *types.Pointer:
		if a, ok := u.Elem().Underlying().(*types.Array); ok {
			return t.constant(constant.MakeInt64(a.Len()), typ), true
		}
		return 0, false
	default:
		return 0, false
	}
	x := t.of(arg, vw)
	id := t.derived(b.Name(), typ, b.Name()+"("+t.info[x].text+")", x)
	t.info[id].nonNeg = true
	return id, true
}

// project returns the term of a load from addr when addr is a local
// stored once (storedOnce), or a field or constant element of one: the
// stored value's part.
func (t *terms) project(addr ssa.Value, vw view) (term, bool) {
	switch a := addr.(type) {
	case *ssa.Alloc:
		v, ok := t.stored[a]
		if !ok {
			return 0, false
		}
		return t.of(v, vw), true
	case *ssa.FieldAddr:
		x, ok := t.project(a.X, vw)
		if !ok {
			return 0, false
		}
		typ := a.Type().Underlying().(*types.Pointer).Elem()
		return t.derived(fmt.Sprintf(".%d", a.Field), typ, t.info[x].text+"."+fieldName(a.X.Type().Underlying().(*types.Pointer).Elem(), a.Field), x), true
	case *ssa.IndexAddr:
		x, ok := t.project(a.X, vw)
		if !ok {
			return 0, false
		}
		i := t.of(a.Index, vw)
		typ := a.Type().Underlying().(*types.Pointer).Elem()
		return t.derived("[]", typ, t.info[x].text+"["+t.info[i].text+"]", x, i), true
	}
	return 0, false
}

func fieldName(struc types.Type, i int) string {
	if s, ok := struc.Underlying().(*types.Struct); ok && i < s.NumFields() {
		return s.Field(i).Name()
	}
	return fmt.Sprint(i)
}

// foldable reports whether op on constants x and y can be folded exactly
// as Go computes it: integer addition, subtraction and multiplication
// wrap, which fold checks by the result's type, so only those and
// comparisons of integers are folded.
func foldable(op token.Token, x, y constant.Value) bool {
	if x.Kind() != constant.Int || y.Kind() != constant.Int {
		return false
	}
	switch op {
	case token.ADD, token.SUB, token.MUL:
		return true
	}
	return false
}

// fold computes x op y in type typ, or returns nil (not a term: the
// caller makes it a derived term) when the exact result does not fit typ.
func fold(op token.Token, x, y constant.Value, typ types.Type) constant.Value {
	r := constant.BinaryOp(x, op, y)
	if !fits(r, typ) {
		return nil
	}
	return r
}

// fits reports whether integer constant v is representable in typ.
func fits(v constant.Value, typ types.Type) bool {
	b, ok := typ.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 {
		return false
	}
	lo, hi := intRange(b, true)
	return lo == nil || (constant.Compare(v, token.GEQ, lo) && constant.Compare(v, token.LEQ, hi))
}

// intRange returns the range of integer type b (nil for an untyped
// integer, which has none). int, uint and uintptr have 32 or 64 bits by
// platform: narrow takes 32, for what must hold on every platform (a
// folded sum fits), and wide 64, for what may not be excluded (a bound).
func intRange(b *types.Basic, narrow bool) (lo, hi constant.Value) {
	word := 64
	if narrow {
		word = 32
	}
	bits := map[types.BasicKind]int{
		types.Int8: 8, types.Int16: 16, types.Int32: 32, types.Int64: 64, types.Int: word,
		types.Uint8: 8, types.Uint16: 16, types.Uint32: 32, types.Uint64: 64, types.Uint: word, types.Uintptr: word,
	}[b.Kind()]
	if bits == 0 {
		return nil, nil
	}
	one := constant.MakeInt64(1)
	if b.Info()&types.IsUnsigned != 0 {
		return constant.MakeInt64(0), constant.BinaryOp(constant.Shift(one, token.SHL, uint(bits)), token.SUB, one)
	}
	h := constant.Shift(one, token.SHL, uint(bits-1))
	return constant.UnaryOp(token.SUB, h, 0), constant.BinaryOp(h, token.SUB, one)
}
