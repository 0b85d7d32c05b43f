package infeasible_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
	"github.com/pathcover/pathcover/internal/report"
)

var (
	soundSeed  = flag.Uint64("sound.seed", 1, "seed of TestSoundOnRandomPrograms's functions")
	soundFuncs = flag.Int("sound.funcs", 80, "functions TestSoundOnRandomPrograms generates")
	soundKeep  = flag.String("sound.keep", "", "write TestSoundOnRandomPrograms's functions into `dir`, to read them")
)

// TestSoundOnRandomPrograms is the soundness oracle on code nobody chose:
// random functions of correlated branches (comparisons of parameters,
// locals, lengths and constants; switches; loops; early returns), built
// under pppexec and called with every input of a small domain. The
// profile's check (cmdtest.LoadProfile) fails the test if a path ran that
// the build proved infeasible; with every input run, the paths left
// untested and not proved are the analysis's misses within the domain,
// which it logs.
func TestSoundOnRandomPrograms(t *testing.T) {
	pppexec := cmdtest.PPPExec(t, "../../../cmd/pppexec")
	dir := t.TempDir()
	g := &generator{r: rand.New(rand.NewPCG(*soundSeed, 7))}
	var src strings.Builder
	src.WriteString("package gen\n\n")
	for i := range *soundFuncs {
		g.function(&src, i)
	}
	cmdtest.WriteFiles(t, dir, map[string]string{
		"go.mod":      "module example.com/gen\n\ngo 1.25\n",
		"gen.go":      src.String(),
		"gen_test.go": driver(*soundFuncs),
	})
	if d := *soundKeep; d != "" {
		cmdtest.WriteFiles(t, d, map[string]string{"gen.go": src.String()})
	}
	prof := t.TempDir()
	out, code := cmdtest.Run(t, dir, []string{"PATHCOVERDIR=" + prof}, "go", "test", "-count=1", "-vet=off", "-toolexec="+pppexec+" -strict", ".")
	if code != 0 {
		t.Fatalf("go test: exit %d\n%s", code, out)
	}
	r, errs := report.Build(cmdtest.LoadProfile(t, prof), nil) // which checks the proofs
	for _, err := range errs {
		if _, ok := err.(*report.ProofError); !ok {
			t.Errorf("report: %v", err)
		}
	}
	var analyzed, paths, ran, proved int
	for _, pkg := range r.Packages {
		for _, f := range pkg.Funcs {
			if f.Infeasible.Analyzed {
				analyzed++
			}
			paths += int(f.Paths.Total)
			ran += int(f.Paths.Covered)
			proved += int(f.Infeasible.Paths)
		}
	}
	if analyzed < *soundFuncs || proved == 0 {
		t.Fatalf("%d of %d functions analysed, %d paths proved infeasible: the check would hold of anything", analyzed, *soundFuncs, proved)
	}
	t.Logf("%d functions, %d paths: %d ran on every input of the domain, %d proved infeasible, %d neither", *soundFuncs, paths, ran, proved, paths-ran-proved)
}

// driver calls every generated function with every input of the domain.
func driver(funcs int) string {
	var b strings.Builder
	b.WriteString(`package gen

import "testing"

func TestAll(t *testing.T) {
	one := 1
	for x := -2; x <= 2; x++ {
		for y := -2; y <= 2; y++ {
			for z := -2; z <= 2; z++ {
				for _, s := range [][]int{nil, {1}, {2, -1}} {
					for _, str := range []string{"", "a", "b"} {
						for _, p := range []*int{nil, &one} {
`)
	for i := range funcs {
		fmt.Fprintf(&b, "\t\t\t\t\t\t\tF%d(x, y, z, s, str, p)\n", i)
	}
	b.WriteString("\t\t\t\t\t\t}\n\t\t\t\t\t}\n\t\t\t\t}\n\t\t\t}\n\t\t}\n\t}\n}\n")
	return b.String()
}

// generator writes random functions F<i>(x, y, z int, s []int, str string,
// p *int) int whose branches test related values.
type generator struct {
	r     *rand.Rand
	depth int
	loops int // loop variables in scope
}

func (g *generator) function(b *strings.Builder, i int) {
	fmt.Fprintf(b, "func F%d(x, y, z int, s []int, str string, p *int) (r int) {\n", i)
	b.WriteString("\tv0, v1 := x, 0\n\tt := make([]int, len(s))\n")
	g.depth, g.loops = 0, 0
	for range 2 + g.r.IntN(4) {
		g.stmt(b, "\t")
	}
	b.WriteString("\treturn r + v0 + v1 + len(t)\n}\n\n")
}

func (g *generator) stmt(b *strings.Builder, indent string) {
	if g.depth >= 3 {
		g.simple(b, indent)
		return
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.IntN(9) {
	case 0, 1:
		fmt.Fprintf(b, "%sif %s {\n", indent, g.cond())
		g.block(b, indent)
		if g.r.IntN(2) == 0 {
			fmt.Fprintf(b, "%s} else {\n", indent)
			g.block(b, indent)
		}
		fmt.Fprintf(b, "%s}\n", indent)
	case 2:
		fmt.Fprintf(b, "%sif %s {\n%s\treturn r\n%s}\n", indent, g.cond(), indent, indent)
	case 3:
		tag, ks := g.tag()
		fmt.Fprintf(b, "%sswitch %s {\n", indent, tag)
		for i, k := range ks {
			fmt.Fprintf(b, "%scase %s:\n", indent, k)
			g.clause(b, indent, i)
		}
		if g.r.IntN(2) == 0 {
			fmt.Fprintf(b, "%sdefault:\n", indent)
			g.clause(b, indent, len(ks))
		}
		fmt.Fprintf(b, "%s}\n", indent)
	case 4:
		fmt.Fprintf(b, "%sswitch {\n", indent)
		for i := range 1 + g.r.IntN(3) {
			fmt.Fprintf(b, "%scase %s:\n", indent, g.cond())
			g.clause(b, indent, i)
		}
		fmt.Fprintf(b, "%s}\n", indent)
	case 5:
		if g.loops < 2 {
			v := fmt.Sprintf("i%d", g.loops)
			bound := []string{"x", "2", "len(s)", "len(t)"}[g.r.IntN(4)] // none the body changes but by shrinking
			fmt.Fprintf(b, "%sfor %s := 0; %s < %s; %s++ {\n%s\tr += %s\n", indent, v, v, bound, v, indent, v)
			g.loops++
			g.block(b, indent)
			g.loops--
			fmt.Fprintf(b, "%s}\n", indent)
			return
		}
		g.simple(b, indent)
	case 6:
		xs := []string{"s", "t", "s[:len(s)/2]"}[g.r.IntN(3)]
		fmt.Fprintf(b, "%sfor _, e := range %s {\n%s\tr += e\n", indent, xs, indent)
		g.block(b, indent)
		fmt.Fprintf(b, "%s}\n", indent)
	default:
		g.simple(b, indent)
	}
}

func (g *generator) block(b *strings.Builder, indent string) {
	for range 1 + g.r.IntN(2) {
		g.stmt(b, indent+"\t")
	}
}

func (g *generator) clause(b *strings.Builder, indent string, i int) {
	fmt.Fprintf(b, "%s\tr += %d\n", indent, i+1)
	if g.r.IntN(2) == 0 {
		g.stmt(b, indent+"\t")
	}
}

func (g *generator) simple(b *strings.Builder, indent string) {
	switch g.r.IntN(5) {
	case 0:
		fmt.Fprintf(b, "%sv0 = %s\n", indent, g.operand())
	case 1:
		fmt.Fprintf(b, "%sv1 = %d\n", indent, g.r.IntN(5)-2)
	case 2:
		fmt.Fprintf(b, "%sv0++\n", indent)
	case 3:
		fmt.Fprintf(b, "%st = t[:len(t)/2]\n", indent)
	default:
		fmt.Fprintf(b, "%sr += %s\n", indent, g.operand())
	}
}

// tag returns a switch's tag and its cases' expressions: constants of the
// tag's type, distinct.
func (g *generator) tag() (string, []string) {
	if g.r.IntN(4) == 0 {
		return "str", []string{`"a"`, `"b", "c"`}[:1+g.r.IntN(2)]
	}
	tag := []string{"x", "y", "v0", "v1", "len(s)", "len(t)"}[g.r.IntN(6)]
	ks := g.r.Perm(5)[:1+g.r.IntN(4)] // distinct values, -2 to 2
	var cases []string
	for len(ks) > 0 {
		n := 1 + g.r.IntN(min(2, len(ks)))
		var list []string
		for _, k := range ks[:n] {
			list = append(list, fmt.Sprint(k-2))
		}
		cases = append(cases, strings.Join(list, ", "))
		ks = ks[n:]
	}
	return tag, cases
}

func (g *generator) cond() string {
	switch g.r.IntN(8) {
	case 0:
		return g.atom() + " && " + g.atom()
	case 1:
		return g.atom() + " || " + g.atom()
	case 2:
		return "!(" + g.atom() + ")"
	}
	return g.atom()
}

func (g *generator) atom() string {
	switch g.r.IntN(10) {
	case 0:
		return []string{"p == nil", "p != nil"}[g.r.IntN(2)]
	case 1:
		return []string{`str == "a"`, `str != "b"`, `str == ""`}[g.r.IntN(3)]
	}
	ops := []string{"==", "!=", "<", "<=", ">", ">="}
	return g.operand() + " " + ops[g.r.IntN(len(ops))] + " " + g.operand()
}

func (g *generator) operand() string {
	ops := []string{"x", "y", "z", "v0", "v1", "len(s)", "len(t)", "x + 1", "-1", "0", "1", "2"}
	if g.loops > 0 {
		ops = append(ops, fmt.Sprintf("i%d", g.r.IntN(g.loops)))
	}
	return ops[g.r.IntN(len(ops))]
}
