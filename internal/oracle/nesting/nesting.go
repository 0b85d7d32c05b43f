package nesting

import (
	"fmt"
	"go/format"
	"strings"
)

// A Kind is a construct that can end a block.
type Kind struct {
	Name string
	// Blocks is the number of its blocks that a nested construct can end,
	// in source order; Choices the number of values of its choice that
	// take all its branches (0 to Choices-1).
	Blocks, Choices int
	// if chains: else ifs, whether they (or, with none, the if) have an
	// init statement, whether the chain ends in an else.
	elseIfs   int
	init, els bool
	// the others
	form string
}

// Kinds are the constructs nested in one another: if chains with 0, 1 and
// 2 else ifs, with and without init statements, with and without a final
// else; expression and type switches with and without default; selects
// with and without default; for loops with a condition and with a break;
// range loops over an int, a slice and a function.
var Kinds = func() []Kind {
	var ks []Kind
	for elseIfs := range 3 {
		for _, init := range []bool{false, true} {
			for _, els := range []bool{false, true} {
				name := [...]string{"if", "elseIf", "elseIf2"}[elseIfs]
				if init {
					name += "Init"
				}
				if els {
					name += "Else"
				}
				blocks := 1 + elseIfs
				if els {
					blocks++
				}
				ks = append(ks, Kind{Name: name, Blocks: blocks, Choices: elseIfs + 2, elseIfs: elseIfs, init: init, els: els})
			}
		}
	}
	return append(ks,
		Kind{Name: "switch", form: "switch", Blocks: 2, Choices: 4},
		Kind{Name: "switchDefault", form: "switch", Blocks: 3, Choices: 4, els: true},
		Kind{Name: "typeSwitch", form: "typeSwitch", Blocks: 2, Choices: 4},
		Kind{Name: "typeSwitchDefault", form: "typeSwitch", Blocks: 3, Choices: 4, els: true},
		Kind{Name: "select", form: "select", Blocks: 2, Choices: 2},
		Kind{Name: "selectDefault", form: "select", Blocks: 2, Choices: 2, els: true},
		Kind{Name: "for", form: "for", Blocks: 1, Choices: 3},
		Kind{Name: "forBreak", form: "forBreak", Blocks: 1, Choices: 3},
		Kind{Name: "rangeInt", form: "rangeInt", Blocks: 1, Choices: 3},
		Kind{Name: "rangeSlice", form: "rangeSlice", Blocks: 1, Choices: 3},
		Kind{Name: "rangeFunc", form: "rangeFunc", Blocks: 1, Choices: 3},
	)
}()

// Core are the kinds nested three deep.
var Core = []string{"if", "elseIf2", "elseIf2InitElse", "switch", "selectDefault", "rangeInt"}

// A Func is one generated function: its constructs from the outside in,
// and the block of each that holds the next.
type Func struct {
	Name   string
	Kinds  []Kind
	Blocks []int // len(Kinds)-1
}

// Funcs returns the functions of the program: each kind alone, each pair
// at every block, each triple of Core kinds at the last block.
func Funcs() []Func {
	var fs []Func
	add := func(ks []Kind, blocks []int) {
		name := "f"
		for i, k := range ks {
			name += "_" + k.Name
			if i < len(blocks) {
				name += fmt.Sprint(blocks[i])
			}
		}
		fs = append(fs, Func{Name: name, Kinds: ks, Blocks: blocks})
	}
	for _, k := range Kinds {
		add([]Kind{k}, nil)
	}
	for _, outer := range Kinds {
		for b := range outer.Blocks {
			for _, inner := range Kinds {
				add([]Kind{outer, inner}, []int{b})
			}
		}
	}
	core := make([]Kind, len(Core))
	for i, name := range Core {
		core[i] = kind(name)
	}
	for _, a := range core {
		for _, b := range core {
			for _, c := range core {
				add([]Kind{a, b, c}, []int{a.Blocks - 1, b.Blocks - 1})
			}
		}
	}
	return fs
}

func kind(name string) Kind {
	for _, k := range Kinds {
		if k.Name == name {
			return k
		}
	}
	panic("no kind " + name)
}

// Program returns the source of package nesting, formatted.
func Program() []byte {
	var w strings.Builder
	w.WriteString(header)
	fs := Funcs()
	w.WriteString("\nvar funcs = []struct {\n\tname    string\n\tf       func([]int, *int)\n\tchoices []int\n}{\n")
	for _, f := range fs {
		choices := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			choices[i] = fmt.Sprint(k.Choices)
		}
		fmt.Fprintf(&w, "\t{%q, %s, []int{%s}},\n", f.Name, f.Name, strings.Join(choices, ", "))
	}
	w.WriteString("}\n")
	for _, f := range fs {
		g := &gen{w: &w, f: f}
		fmt.Fprintf(&w, "\nfunc %s(c []int, out *int) {\n", f.Name)
		g.construct(0, nil)
		w.WriteString("}\n")
	}
	src, err := format.Source([]byte(w.String()))
	if err != nil {
		panic(fmt.Sprintf("generated code does not parse: %v", err))
	}
	return src
}

// A gen writes one function.
type gen struct {
	w *strings.Builder
	f Func
	n int // the last number added to out
}

// construct writes the construct at depth d, inside loops with the given
// index variables.
func (g *gen) construct(d int, loops []string) {
	k := g.f.Kinds[d]
	choice := fmt.Sprintf("c[%d]", d)
	for _, v := range loops {
		choice += " + " + v // each round of a loop takes another branch inside
	}
	// block writes block b's statements: one that says it ran, and the
	// next construct if it goes there.
	block := func(b int, stmt string) {
		g.n++
		if stmt == "" {
			stmt = "*out += %d"
		}
		fmt.Fprintf(g.w, stmt+"\n", g.n)
		if d+1 < len(g.f.Kinds) && g.f.Blocks[d] == b {
			inner := loops
			if strings.HasPrefix(k.form, "for") || strings.HasPrefix(k.form, "range") {
				inner = append(inner[:len(inner):len(inner)], fmt.Sprintf("i%d", d))
			}
			g.construct(d+1, inner)
		}
	}
	w := g.w
	i := fmt.Sprintf("i%d", d) // a loop's index
	switch k.form {
	case "":
		if k.init && k.elseIfs == 0 {
			fmt.Fprintf(w, "if v := %s; v == 0 {\n", choice)
			block(0, "*out += v + %d")
		} else {
			fmt.Fprintf(w, "if %s == 0 {\n", choice)
			block(0, "")
		}
		for e := 1; e <= k.elseIfs; e++ {
			if k.init {
				fmt.Fprintf(w, "} else if ok, v := two(%s, %d); ok {\n", choice, e)
				block(e, "*out += v + %d")
			} else {
				fmt.Fprintf(w, "} else if %s == %d {\n", choice, e)
				block(e, "")
			}
		}
		if k.els {
			w.WriteString("} else {\n")
			block(k.elseIfs+1, "")
		}
		w.WriteString("}\n")
	case "switch":
		if k.els {
			fmt.Fprintf(w, "switch y := %s; y {\n", choice)
		} else {
			fmt.Fprintf(w, "switch %s {\n", choice)
		}
		w.WriteString("case 0:\n")
		block(0, "")
		w.WriteString("case 1, 2:\n")
		block(1, "")
		if k.els {
			w.WriteString("default:\n")
			block(2, "")
		}
		w.WriteString("}\n")
	case "typeSwitch":
		fmt.Fprintf(w, "switch v := pick(%s).(type) {\n", choice)
		w.WriteString("case int:\n")
		block(0, "*out += v + %d")
		w.WriteString("case string, []byte:\n")
		block(1, "")
		if k.els {
			w.WriteString("default:\n")
			block(2, "")
		}
		w.WriteString("}\n")
	case "select":
		w.WriteString("select {\n")
		fmt.Fprintf(w, "case v := <-ready(%s == 0):\n", choice)
		block(0, "*out += v + %d")
		if k.els {
			w.WriteString("default:\n")
		} else {
			fmt.Fprintf(w, "case room(%s != 0) <- 1:\n", choice)
		}
		block(1, "")
		w.WriteString("}\n")
	case "for":
		fmt.Fprintf(w, "for %s := 0; %s < %s; %s++ {\n", i, i, choice, i)
		block(0, "")
		w.WriteString("}\n")
	case "forBreak":
		fmt.Fprintf(w, "for %s := 0; ; %s++ {\nif %s >= %s {\nbreak\n}\n", i, i, i, choice)
		block(0, "")
		w.WriteString("}\n")
	case "rangeInt":
		fmt.Fprintf(w, "for %s := range %s {\n", i, choice)
		block(0, "*out += "+i+" + %d")
		w.WriteString("}\n")
	case "rangeSlice":
		fmt.Fprintf(w, "for %s, v := range make([]int, %s) {\n", i, choice)
		block(0, "*out += "+i+" + v + %d")
		w.WriteString("}\n")
	case "rangeFunc":
		fmt.Fprintf(w, "for %s := range count(%s) {\n", i, choice)
		block(0, "*out += "+i+" + %d")
		w.WriteString("}\n")
	default:
		panic("unknown form " + k.form)
	}
}

const header = `// Code generated by package internal/oracle/nesting. DO NOT EDIT.

package nesting

import "iter"

// Drive calls every function with every combination of choices and
// returns the sum of what they add. With tested set, for the tested run of
// a PPP build, it takes only choices below 2 and leaves out every tenth
// function.
func Drive(tested bool) int {
	sum := 0
	for i, fn := range funcs {
		if tested && i%10 == 9 {
			continue
		}
		c := make([]int, len(fn.choices))
		for {
			run := true
			for _, x := range c {
				run = run && (!tested || x < 2)
			}
			if run {
				fn.f(c, &sum)
			}
			k := 0
			for ; k < len(c); k++ {
				if c[k]++; c[k] < fn.choices[k] {
					break
				}
				c[k] = 0
			}
			if k == len(c) {
				break
			}
		}
	}
	return sum
}

func two(x, k int) (bool, int) { return x == k, x + k }

func pick(x int) any {
	switch x {
	case 0:
		return x
	case 1:
		return "s"
	case 2:
		return []byte("b")
	}
	return nil
}

// ready is a channel with a value to receive if b, else one that never has.
func ready(b bool) chan int {
	if !b {
		return nil
	}
	ch := make(chan int, 1)
	ch <- 1
	return ch
}

// room is a channel with room to send if b, else one that never has.
func room(b bool) chan int {
	if !b {
		return nil
	}
	return make(chan int, 1)
}

func count(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}
`
