package instrument

import (
	"fmt"
	"go/ast"
	"go/types"
	"go/version"
	"math"

	"github.com/pathcover/pathcover/internal/static/defuse"
	"github.com/pathcover/pathcover/profile"
)

// A -deps build records the memory accesses of each statement (package
// defuse finds them, rt/deps.go records them): each is wrapped in place in
// a call of a helper of the generated file (depsDecls), which records the
// access and gives back what it wraps, so that the access happens where it
// did, once, in Go's order of evaluation. op, in each, is the statement's
// index in its function's Deps.Stmts shifted left by 5, with the access
// kind (profile.WPPAccess) in the low 3 bits.

// Names of the generated file's helpers.
const (
	depsAccess     = "_pathcoverAccess"
	depsMapKey     = "_pathcoverMapKey"
	depsSend       = "_pathcoverSend"
	depsRecv       = "_pathcoverRecv"
	depsChan       = "_pathcoverChan"
	depsCopy       = "_pathcoverCopy"
	depsCopyString = "_pathcoverCopyString"
	depsAppend     = "_pathcoverAppend"
	depsMade       = "_pathcoverMade"
	depsElems      = "_pathcoverElems"
)

// memoryAllowed reports whether a package of language version lang may
// call the generic helpers, with the type inference they need (Go 1.21).
func memoryAllowed(lang string) bool {
	return lang == "" || version.Compare(lang, "go1.21") >= 0
}

// emitMemory wraps the memory accesses of function u.
func (u *function) emitMemory(e *editor, info *types.Info, src []byte) {
	lists := listed(u.Body)
	text := func(x ast.Expr) string {
		return string(src[e.tf.Offset(x.Pos()):e.tf.Offset(x.End())])
	}
	for _, a := range u.accesses {
		op := uint64(a.Stmt)<<5 | uint64(a.Kind)
		// An access recorded after its statement, as a statement of its
		// own (a select case's send or receive, a range's element, a
		// statement the syntax cannot wrap), goes before the code of the
		// edges that leave there: a path's count there makes its record,
		// and an access recorded after that is taken for the path's tail
		// (profile.Func.Tail), which its statement, before the count, is
		// not. Values recorded there come after (valueRecorder.atStart).
		switch {
		case a.Clause != nil:
			e.insertAt(a.Clause.Colon+1, phaseDecl, 0, chanStmt(op, text(a.Expr)))
		case a.After != nil:
			if r, ok := a.After.(*ast.RangeStmt); ok {
				stmt := declaredStmt(op, text(a.Expr)) + "; "
				switch a.Kind {
				case profile.WPPRecv:
					stmt = chanStmt(op, text(a.Expr))
				case profile.WPPMapRead:
					stmt = mapKeyOpen(op, text(a.Map)) + text(a.Expr) + "); "
				}
				e.insertAt(r.Body.Lbrace+1, phaseDecl, 0, stmt)
			} else if lists[a.After] {
				e.insertAt(a.After.End(), phaseDecl, -1, "; "+declaredStmt(op, text(a.Expr)))
			}
		default:
			u.wrap(e, info, a, op, text)
		}
	}
}

// wrap wraps one access in place. Wrappers that meet at an offset nest by
// span: the larger opens first and closes last; at equal spans, the
// helpers that take an operand (a map, a channel, a slice) go outside the
// accesses of the operand itself.
func (u *function) wrap(e *editor, info *types.Info, a defuse.Access, op uint64, text func(ast.Expr) string) {
	open := func(x ast.Expr, outer bool, s, close string) {
		span := int(x.End() - x.Pos())
		rank := 1
		if outer {
			rank = 0
		}
		e.insertAt(x.Pos(), phaseWrapOpen, -2*span+rank, s)
		e.insertAt(x.End(), phaseWrapClose, 2*span-rank, close)
	}
	switch a.Kind {
	case profile.WPPLoad, profile.WPPStore, profile.WPPUpdate:
		if a.Elems {
			open(a.Expr, true, chanOpen(depsElems, op), ")")
			return
		}
		if a.Alloc {
			helper := depsAccess
			if _, slice := info.TypeOf(a.Expr).Underlying().(*types.Slice); slice {
				helper = depsMade
			}
			open(a.Expr, true, chanOpen(helper, op), ")")
			return
		}
		if call, ok := a.Expr.(*ast.CallExpr); ok { // append
			open(call, true, appendOpen(op, text(call.Args[0])), ")")
			return
		}
		open(a.Expr, false, accessOpen(op), "))")
	case profile.WPPMapRead, profile.WPPMapWrite:
		var m, key ast.Expr
		switch x := a.Expr.(type) {
		case *ast.IndexExpr:
			m, key = x.X, x.Index
		case *ast.CallExpr: // delete
			m, key = x.Args[0], x.Args[1]
		}
		open(key, true, mapKeyOpen(op, text(m)), ")")
	case profile.WPPSend:
		open(a.Expr, true, chanOpen(depsSend, op), ")")
	case profile.WPPRecv:
		open(a.Expr, true, chanOpen(depsRecv, op), ")")
	case profile.WPPCopy:
		call := a.Expr.(*ast.CallExpr)
		id, ok := ast.Unparen(call.Fun).(*ast.Ident)
		if !ok {
			return
		}
		name := depsCopy
		if t, ok := info.TypeOf(call.Args[1]).Underlying().(*types.Basic); ok && t.Info()&types.IsString != 0 {
			name = depsCopyString
		}
		e.rename(id, name)
		// Before any wrapper of the first argument, which starts there.
		e.insertAt(call.Lparen+1, phaseWrapOpen, math.MinInt, fmt.Sprintf("%s, %d, ", wppFrame, op))
	}
}

// listed returns the statements of body's statement lists: those that a
// statement can follow.
func listed(body *ast.BlockStmt) map[ast.Stmt]bool {
	in := make(map[ast.Stmt]bool)
	add := func(list []ast.Stmt) {
		for _, s := range list {
			in[s] = true
			for l, ok := s.(*ast.LabeledStmt); ok; l, ok = l.Stmt.(*ast.LabeledStmt) {
				in[l.Stmt] = true
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt:
			add(n.List)
		case *ast.CaseClause:
			add(n.Body)
		case *ast.CommClause:
			add(n.Body)
		}
		return true
	})
	return in
}

// accessOpen starts the wrapper of a load, store or update of x, which
// the wrapper's closing parentheses end:
//
//	(*_pathcoverAccess(_pathcoverF, 97, &x))
func accessOpen(op uint64) string {
	return fmt.Sprintf("(*%s(%s, %d, &", depsAccess, wppFrame, op)
}

// mapKeyOpen starts the wrapper of the key of an access to map m, or, at
// the start of a range loop's body, the record of the entry it reads:
//
//	m[_pathcoverMapKey(_pathcoverF, 100, m).Key(k)]
//	for k, v := range m { _pathcoverMapKey(_pathcoverF, 132, m).Key(k); ...
func mapKeyOpen(op uint64, m string) string {
	return fmt.Sprintf("%s(%s, %d, %s).Key(", depsMapKey, wppFrame, op, m)
}

// chanOpen starts the wrapper of the channel of a send or receive, or of
// new memory:
//
//	_pathcoverSend(_pathcoverF, 102, ch) <- v
//	<-_pathcoverRecv(_pathcoverF, 103, ch)
//	p := _pathcoverAccess(_pathcoverF, 97, &T{x})
//	s := _pathcoverMade(_pathcoverF, 129, make([]T, n))
//	for _, x := range _pathcoverElems(_pathcoverF, 160, xs) {
func chanOpen(helper string, op uint64) string {
	return fmt.Sprintf("%s(%s, %d, ", helper, wppFrame, op)
}

// appendOpen starts the wrapper of an append to s:
//
//	s = _pathcoverAppend(_pathcoverF, 97, s, append(s, x))
func appendOpen(op uint64, s string) string {
	return fmt.Sprintf("%s(%s, %d, %s, ", depsAppend, wppFrame, op, s)
}

// chanStmt records the send or receive of the select case that ran, at
// the start of its body:
//
//	case v := <-ch: _pathcoverChan(_pathcoverF, 103, ch);
func chanStmt(op uint64, ch string) string {
	return fmt.Sprintf(" %s(%s, %d, %s);", depsChan, wppFrame, op, ch)
}

// declaredStmt records the first write of x, a variable declared in
// memory, after its declaration:
//
//	x := f(); _pathcoverAccess(_pathcoverF, 33, &x)
func declaredStmt(op uint64, x string) string {
	return fmt.Sprintf("%s(%s, %d, &%s)", depsAccess, wppFrame, op, x)
}

// depsDecls are the generated file's helpers of a -deps build, which
// record through rt (rt/deps.go).
const depsDecls = `
func _pathcoverAccess[T any](f _pathcoverRT.WPPFrame, op uint64, p *T) *T { return _pathcoverRT.Access(f, op, p) }

func _pathcoverMapKey[M ~map[K]V, K comparable, V any](f _pathcoverRT.WPPFrame, op uint64, m M) _pathcoverRT.MapEntry[K] { return _pathcoverRT.MapOf[M](f, op, m) }

func _pathcoverSend[E any](f _pathcoverRT.WPPFrame, op uint64, c chan<- E) chan<- E { return _pathcoverRT.Send(f, op, c) }

func _pathcoverRecv[E any](f _pathcoverRT.WPPFrame, op uint64, c <-chan E) <-chan E { return _pathcoverRT.Recv(f, op, c) }

func _pathcoverChan[C any](f _pathcoverRT.WPPFrame, op uint64, c C) { _pathcoverRT.Chan(f, op, c) }

func _pathcoverCopy[E any](f _pathcoverRT.WPPFrame, op uint64, dst, src []E) int { return _pathcoverRT.Copy(f, op, dst, src) }

func _pathcoverCopyString(f _pathcoverRT.WPPFrame, op uint64, dst []byte, src string) int { return _pathcoverRT.CopyString(f, op, dst, src) }

func _pathcoverAppend[S ~[]E, E any](f _pathcoverRT.WPPFrame, op uint64, old, s S) S { return _pathcoverRT.Append(f, op, old, s) }

func _pathcoverMade[S ~[]E, E any](f _pathcoverRT.WPPFrame, op uint64, s S) S { return _pathcoverRT.Made(f, op, s) }

func _pathcoverElems[S ~[]E, E any](f _pathcoverRT.WPPFrame, op uint64, s S) S { return _pathcoverRT.Elems(f, op, s) }
`
