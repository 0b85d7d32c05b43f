package profile

// The static half of dynamic slicing: what a -deps build (pppexec -deps)
// writes into each function's metadata (Func.Deps) so that the slicer can
// rebuild the run's dependences from its whole program paths without
// loading the source again. The slicer walks a call's Ball-Larus paths
// block by block; each block's statements (Deps.Blocks) say which
// variables they define and use and which calls they make, in the order
// they run.
//
// Variables are symbolic: a local variable of one call, named by its index
// in Deps.Vars, whatever its address (goroutine stacks move). Only locals
// whose every access the syntax shows are symbolic: not those whose
// address is taken or that a function literal captures, whose accesses go
// through memory (Stmt.Memory).

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/pathcover/pathcover/numbering"
)

// Deps is one function's statements and variables, for slicing.
type Deps struct {
	// Vars are the function's symbolic variables: its receiver, parameters
	// and results first (Params, Results), then its other locals.
	Vars []DepVar
	// Params are the variables that the call's arguments bind, receiver
	// first; Results those that its return statements set, in order.
	Params, Results []int32
	// Stmts are the statements, conditions and other evaluated nodes of
	// the function's blocks. Stmts[0] is the function's entry: it defines
	// the parameters (from the arguments) and the named results (zero).
	Stmts []DepStmt
	// Blocks lists, for each block of the function's graph, the indexes in
	// Stmts of its nodes, in the order they run.
	Blocks [][]int32
	// Values are, in a -wet build, the places where the function records
	// its variables' values: a value record names one.
	Values []DepValue `json:",omitempty"`
}

// A DepValue is a place where a -wet build records a variable's value:
// when statement Stmt runs (before it, or After it), the value that the
// definition of Var reaching there gave it. A statement runs at most once
// in a Ball-Larus path, so the record's path gives the statement's
// execution.
type DepValue struct {
	Var, Stmt int32
	After     bool `json:",omitempty"`
}

// A DepVar is a symbolic variable.
type DepVar struct {
	Name string
	Line int // of its declaration
	Col  int
	// Kind, in a -wet build, says how the variable's values are recorded
	// (profile/wpp.go's value records), if they are.
	Kind ValueKind `json:",omitempty"`
}

// A ValueKind is how a -wet build records a variable's values: which
// words, and how each reads.
type ValueKind string

const (
	ValueNone    ValueKind = ""        // not recorded (a struct, an array, a type parameter)
	ValueInt     ValueKind = "int"     // a signed integer, zigzag-coded
	ValueUint    ValueKind = "uint"    // an unsigned integer
	ValueFloat   ValueKind = "float"   // a float64's bits (a float32 converted)
	ValueComplex ValueKind = "complex" // a complex128's parts, as floats
	ValueBool    ValueKind = "bool"    // 0 or 1
	ValueString  ValueKind = "string"  // its data's address and its length (builds before ValueText)
	ValueSlice   ValueKind = "slice"   // its array's address, length and capacity
	// ValueText is a string's data address, its length and its first
	// PrefixBytes bytes, little-endian in PrefixWords words (zero past its
	// end); ValueBytes a byte slice's array, length, capacity and first
	// bytes so. What a program read or built is what a slice or a
	// diff of it shows, to a bounded prefix.
	ValueText  ValueKind = "text"
	ValueBytes ValueKind = "bytes"
	ValueWord  ValueKind = "word"  // a pointer, channel, map, function or unsafe.Pointer: its word
	ValueIface ValueKind = "iface" // an interface's type word and data word
)

// MaxValueWords is the most words a value of any kind is recorded as
// (ValueBytes's).
const MaxValueWords = 3 + PrefixWords

// PrefixWords is how many words of a string's or a byte slice's content
// a ValueText or ValueBytes value records, PrefixBytes how many bytes.
const (
	PrefixWords = 3
	PrefixBytes = 8 * PrefixWords
)

// Words returns how many words a value of kind k is recorded as.
func (k ValueKind) Words() int {
	switch k {
	case ValueNone:
		return 0
	case ValueComplex, ValueString, ValueIface:
		return 2
	case ValueSlice:
		return 3
	case ValueText:
		return 2 + PrefixWords
	case ValueBytes:
		return 3 + PrefixWords
	}
	return 1
}

// Prefix returns the bytes of a string's or a byte slice's content that
// its value's words hold: words are the PrefixWords words of the prefix,
// n the value's length.
func Prefix(words []uint64, n uint64) []byte {
	b := make([]byte, 0, min(n, PrefixBytes))
	for i := range uint64(cap(b)) {
		b = append(b, byte(words[i/8]>>(8*(i%8))))
	}
	return b
}

// quotePrefix writes content as Go quotes it, with "…" and the whole
// length if it is a prefix of n bytes.
func quotePrefix(content []byte, n uint64) string {
	q := strconv.Quote(string(content))
	if uint64(len(content)) < n {
		return fmt.Sprintf("%s… (%d bytes)", q, n)
	}
	return q
}

// Format reads a value's words as kind k says: a number or a boolean as
// Go writes it, a string or byte slice of a ValueText or ValueBytes by
// its content as Go quotes it (its first PrefixBytes bytes), another
// slice (and a string of an older build) by its header, a pointer-like
// word and an interface by their words.
func (k ValueKind) Format(w []uint64) string {
	if len(w) < k.Words() {
		return fmt.Sprint(w)
	}
	switch k {
	case ValueInt:
		return strconv.FormatInt(int64(w[0]>>1)^-int64(w[0]&1), 10)
	case ValueUint:
		return strconv.FormatUint(w[0], 10)
	case ValueFloat:
		return strconv.FormatFloat(math.Float64frombits(w[0]), 'g', -1, 64)
	case ValueComplex:
		return fmt.Sprint(complex(math.Float64frombits(w[0]), math.Float64frombits(w[1])))
	case ValueBool:
		return strconv.FormatBool(w[0] != 0)
	case ValueString:
		return fmt.Sprintf("string of %d bytes at %#x", w[1], w[0])
	case ValueSlice:
		return fmt.Sprintf("slice of len %d, cap %d at %#x", w[1], w[2], w[0])
	case ValueText:
		return quotePrefix(Prefix(w[2:], w[1]), w[1])
	case ValueBytes:
		if w[0] == 0 && w[1] == 0 {
			return "nil"
		}
		return fmt.Sprintf("[]byte(%s) cap %d", quotePrefix(Prefix(w[3:], w[1]), w[1]), w[2])
	case ValueWord:
		return fmt.Sprintf("%#x", w[0])
	case ValueIface:
		if w[0] == 0 {
			return "nil"
		}
		return fmt.Sprintf("type %#x, data %#x", w[0], w[1])
	}
	return fmt.Sprint(w)
}

func (k ValueKind) known() bool {
	switch k {
	case ValueNone, ValueInt, ValueUint, ValueFloat, ValueComplex, ValueBool, ValueString, ValueSlice, ValueWord, ValueIface, ValueText, ValueBytes:
		return true
	}
	return false
}

// A DepStmt is one node of a block: a simple statement, a condition, a
// switch tag or case list, a range clause, a return.
type DepStmt struct {
	Line, Col, EndLine, EndCol int
	// Defs are the variables the statement sets; Uses those it reads,
	// outside the arguments of its calls (a write to part of a variable, as
	// v.f = x or v[i] = x on an array, reads it too). A return statement
	// defines the function's results.
	Defs, Uses []int32 `json:",omitempty"`
	// Calls are the calls the statement makes, in the order they run; the
	// statement depends on their results.
	Calls []DepCall `json:",omitempty"`
	// Memory describes the reads the statement makes through memory,
	// whose writers a -deps build does not record yet: a pointer's target,
	// a field through a pointer, an element of a slice or map, a global, a
	// variable that is captured or whose address is taken. A slice stops
	// there and says so.
	Memory []string `json:",omitempty"`
	// Return says the statement returns (its Defs are the results).
	Return bool `json:",omitempty"`
	// Defer says that the statement's last call is deferred: it runs at
	// the function's exit, after every path, in last-in first-out order.
	Defer bool `json:",omitempty"`
	// Go says that the statement starts a goroutine, whose first call's
	// arguments are the statement's uses.
	Go bool `json:",omitempty"`
}

// A DepCall is a call a statement makes.
type DepCall struct {
	Line, Col int
	// Package and Func name the callee if it is known statically (a
	// function, or a method of a concrete type), as Func.Name spells it;
	// Method is the method's name for a call through an interface; all
	// are empty for a call of a function value.
	Package string `json:",omitempty"`
	Func    string `json:",omitempty"`
	Method  string `json:",omitempty"`
	// Args are, per argument (the receiver first for a method call), the
	// variables it reads, outside calls of its own.
	Args [][]int32 `json:",omitempty"`
	// ArgCalls are, per argument, the indexes in the statement's Calls of
	// the calls it makes whose results it passes on (f(g(x))).
	ArgCalls [][]int32 `json:",omitempty"`
}

// check checks that d's indexes are in range for a graph of blocks blocks.
func (d *Deps) check(blocks int) error {
	if len(d.Blocks) != blocks {
		return fmt.Errorf("statements for %d blocks, the graph has %d", len(d.Blocks), blocks)
	}
	if len(d.Stmts) == 0 {
		return errors.New("no entry statement")
	}
	vars := func(what string, ids []int32) error {
		for _, v := range ids {
			if v < 0 || int(v) >= len(d.Vars) {
				return fmt.Errorf("%s: variable %d out of range", what, v)
			}
		}
		return nil
	}
	for i, v := range d.Vars {
		if !v.Kind.known() {
			return fmt.Errorf("variable %d: unknown value kind %q", i, v.Kind)
		}
	}
	for i, v := range d.Values {
		if v.Var < 0 || int(v.Var) >= len(d.Vars) || v.Stmt < 0 || int(v.Stmt) >= len(d.Stmts) {
			return fmt.Errorf("value site %d: variable %d, statement %d out of range", i, v.Var, v.Stmt)
		}
	}
	if err := vars("params", d.Params); err != nil {
		return err
	}
	if err := vars("results", d.Results); err != nil {
		return err
	}
	for i, s := range d.Stmts {
		if err := vars("defs", s.Defs); err != nil {
			return fmt.Errorf("statement %d: %v", i, err)
		}
		if err := vars("uses", s.Uses); err != nil {
			return fmt.Errorf("statement %d: %v", i, err)
		}
		for _, c := range s.Calls {
			for _, a := range c.Args {
				if err := vars("arguments", a); err != nil {
					return fmt.Errorf("statement %d: %v", i, err)
				}
			}
			for _, a := range c.ArgCalls {
				for _, k := range a {
					if k < 0 || int(k) >= len(s.Calls) {
						return fmt.Errorf("statement %d: argument call %d out of range", i, k)
					}
				}
			}
		}
	}
	for b, list := range d.Blocks {
		for _, s := range list {
			if s <= 0 || int(s) >= len(d.Stmts) {
				return fmt.Errorf("block %d: statement %d out of range", b, s)
			}
		}
	}
	return nil
}

// Tail returns the statements of f's path id that run after the path is
// counted, where a -wpp build records it: those of the blocks the path
// enters on the edge of its count and after, and, for a count on an edge
// into the exit, the return statement or the call that never returns that
// ends the edge's block, before which the count goes. A record that such
// a statement makes after the path's record is that path execution's, not
// the next one's. It is empty for a function without Deps.
func (f *Func) Tail(id uint64) (map[int32]bool, error) {
	t := make(map[int32]bool)
	if f.Deps == nil {
		return t, nil
	}
	pl, err := f.Placement()
	if err != nil {
		return nil, err
	}
	edges, err := pl.Decode(id)
	if err != nil {
		return nil, err
	}
	add := func(b numbering.BlockID) {
		if int(b) < len(f.Deps.Blocks) {
			for _, st := range f.Deps.Blocks[b] {
				t[st] = true
			}
		}
	}
	counted := false
	for _, e := range edges {
		if op, ok := pl.Op(e); ok && (op.Kind == numbering.OpCount || op.Kind == numbering.OpCountConst) {
			counted = true
			de := pl.Edge(e)
			if de.Kind == numbering.RealEdge && de.Dst == pl.Graph().Exit && int(de.Src) < len(f.Deps.Blocks) {
				if list := f.Deps.Blocks[de.Src]; len(list) > 0 {
					last := list[len(list)-1]
					if f.Deps.Stmts[last].Return || int(e) < len(f.Edges) && f.Edges[e].Kind == "no return" {
						t[last] = true
					}
				}
			}
		}
		if counted {
			for _, b := range pl.Blocks([]numbering.EdgeID{e}) {
				add(b)
			}
		}
	}
	return t, nil
}

// InTail returns how many of the records a call made after its path
// execution's record, n of them in order with stmt(i) the statement of the
// i-th, belong to that execution: those at the start whose statements are
// in tail (the path's Tail), each statement's records once. A statement's
// records in one execution are consecutive, so one seen again after
// another statement's is a second execution, of the next path; the records
// from there on are the next path execution's.
func InTail(tail map[int32]bool, n int, stmt func(i int) int32) int {
	var buf [16]int32 // the statements seen: a few (it runs for every path)
	seen := buf[:0]
	for i := range n {
		st := stmt(i)
		if !tail[st] {
			return i
		}
		if i == 0 || stmt(i-1) != st {
			if slices.Contains(seen, st) {
				return i
			}
			seen = append(seen, st)
		}
	}
	return n
}
