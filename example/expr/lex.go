package expr

import (
	"fmt"
	"strconv"
	"unicode"
)

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokNum
	tokIdent
	tokOp // + - * / % ^
	tokLParen
	tokRParen
	tokComma
)

type token struct {
	kind tokenKind
	text string
	num  float64
	pos  int
}

// lex splits src into tokens.
func lex(src string) ([]token, error) {
	var toks []token
	for i := 0; i < len(src); {
		c := rune(src[i])
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case unicode.IsDigit(c) || c == '.':
			start := i
			for i < len(src) && (unicode.IsDigit(rune(src[i])) || src[i] == '.') {
				i++
			}
			if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
				i++
				if i < len(src) && (src[i] == '+' || src[i] == '-') {
					i++
				}
				for i < len(src) && unicode.IsDigit(rune(src[i])) {
					i++
				}
			}
			n, err := strconv.ParseFloat(src[start:i], 64)
			if err != nil {
				return nil, fmt.Errorf("bad number %q at %d", src[start:i], start)
			}
			toks = append(toks, token{kind: tokNum, text: src[start:i], num: n, pos: start})
		case unicode.IsLetter(c) || c == '_':
			start := i
			for i < len(src) && (unicode.IsLetter(rune(src[i])) || unicode.IsDigit(rune(src[i])) || src[i] == '_') {
				i++
			}
			toks = append(toks, token{kind: tokIdent, text: src[start:i], pos: start})
		default:
			var kind tokenKind
			switch c {
			case '+', '-', '*', '/', '%', '^':
				kind = tokOp
			case '(':
				kind = tokLParen
			case ')':
				kind = tokRParen
			case ',':
				kind = tokComma
			default:
				return nil, fmt.Errorf("unexpected %q at %d", c, i)
			}
			toks = append(toks, token{kind: kind, text: string(c), pos: i})
			i++
		}
	}
	return append(toks, token{kind: tokEOF, pos: len(src)}), nil
}
