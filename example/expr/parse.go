package expr

import (
	"fmt"
	"math"
)

// A node is a parsed expression.
type node interface {
	eval(env map[string]float64) (float64, error)
}

type (
	numNode float64
	varNode string
	unary   struct{ x node }
	binary  struct {
		op   byte
		x, y node
	}
	callNode struct {
		fn   string
		args []node
	}
)

// Parse parses an expression.
func Parse(src string) (node, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	n, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, fmt.Errorf("unexpected %q at %d", t.text, t.pos)
	}
	return n, nil
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// precedence gives binary operators their binding power; ^ binds to the
// right.
func precedence(op string) (prec int, right bool) {
	switch op {
	case "+", "-":
		return 1, false
	case "*", "/", "%":
		return 2, false
	case "^":
		return 3, true
	}
	return 0, false
}

// expr parses operators of at least precedence min (precedence climbing).
func (p *parser) expr(min int) (node, error) {
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tokOp {
			return x, nil
		}
		prec, right := precedence(t.text)
		if prec < min {
			return x, nil
		}
		p.next()
		next := prec + 1
		if right {
			next = prec
		}
		y, err := p.expr(next)
		if err != nil {
			return nil, err
		}
		x = binary{op: t.text[0], x: x, y: y}
	}
}

func (p *parser) unary() (node, error) {
	t := p.peek()
	if t.kind == tokOp && t.text == "-" {
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return unary{x}, nil
	}
	return p.primary()
}

func (p *parser) primary() (node, error) {
	t := p.next()
	switch t.kind {
	case tokNum:
		return numNode(t.num), nil
	case tokIdent:
		if p.peek().kind != tokLParen {
			return varNode(t.text), nil
		}
		p.next()
		var args []node
		if p.peek().kind != tokRParen {
			for {
				a, err := p.expr(0)
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				if p.peek().kind != tokComma {
					break
				}
				p.next()
			}
		}
		if r := p.next(); r.kind != tokRParen {
			return nil, fmt.Errorf("missing ) at %d", r.pos)
		}
		return callNode{t.text, args}, nil
	case tokLParen:
		x, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if r := p.next(); r.kind != tokRParen {
			return nil, fmt.Errorf("missing ) at %d", r.pos)
		}
		return x, nil
	case tokEOF:
		return nil, fmt.Errorf("unexpected end of expression")
	}
	return nil, fmt.Errorf("unexpected %q at %d", t.text, t.pos)
}

func (n numNode) eval(map[string]float64) (float64, error) { return float64(n), nil }

func (n varNode) eval(env map[string]float64) (float64, error) {
	v, ok := env[string(n)]
	if !ok {
		if c, ok := constants[string(n)]; ok {
			return c, nil
		}
		return 0, fmt.Errorf("undefined: %s", string(n))
	}
	return v, nil
}

var constants = map[string]float64{"pi": math.Pi, "e": math.E}

func (n unary) eval(env map[string]float64) (float64, error) {
	x, err := n.x.eval(env)
	return -x, err
}

func (n binary) eval(env map[string]float64) (float64, error) {
	x, err := n.x.eval(env)
	if err != nil {
		return 0, err
	}
	y, err := n.y.eval(env)
	if err != nil {
		return 0, err
	}
	switch n.op {
	case '+':
		return x + y, nil
	case '-':
		return x - y, nil
	case '*':
		return x * y, nil
	case '/':
		if y == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		return x / y, nil
	case '%':
		if y == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		return math.Mod(x, y), nil
	default:
		return math.Pow(x, y), nil
	}
}

func (n callNode) eval(env map[string]float64) (float64, error) {
	args := make([]float64, len(n.args))
	for i, a := range n.args {
		v, err := a.eval(env)
		if err != nil {
			return 0, err
		}
		args[i] = v
	}
	switch n.fn {
	case "abs", "sqrt":
		if len(args) != 1 {
			return 0, fmt.Errorf("%s takes 1 argument, not %d", n.fn, len(args))
		}
		if n.fn == "abs" {
			return math.Abs(args[0]), nil
		}
		if args[0] < 0 {
			return 0, fmt.Errorf("sqrt of a negative number")
		}
		return math.Sqrt(args[0]), nil
	case "min", "max":
		if len(args) == 0 {
			return 0, fmt.Errorf("%s needs arguments", n.fn)
		}
		r := args[0]
		for _, a := range args[1:] {
			if (n.fn == "min" && a < r) || (n.fn == "max" && a > r) {
				r = a
			}
		}
		return r, nil
	}
	return 0, fmt.Errorf("unknown function %s", n.fn)
}

// Eval parses and evaluates an expression with the given variables.
func Eval(src string, env map[string]float64) (float64, error) {
	n, err := Parse(src)
	if err != nil {
		return 0, err
	}
	return n.eval(env)
}
