package expr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrSyntax is wrapped by every ParseError.
var ErrSyntax = errors.New("invalid expression")

// ParseError is a syntax or type error at a column of an expression.
type ParseError struct {
	Src    string // the expression
	Column int    // of the offending token, in characters from 1
	Msg    string
}

func (e *ParseError) Error() string {
	src := e.Src
	if len(src) > MaxLen {
		// Too long to parse, too long to quote: its first characters.
		src = strings.ToValidUTF8(src[:quoteLen], "") + "…"
	}
	return fmt.Sprintf("%q column %d: %s", src, e.Column, e.Msg)
}

// quoteLen is how much of an expression longer than MaxLen an error quotes,
// in bytes (cut to whole characters).
const quoteLen = 64

// Unwrap returns ErrSyntax.
func (e *ParseError) Unwrap() error { return ErrSyntax }

// MaxLen bounds the length of an expression in bytes, and MaxDepth the
// nesting of its parentheses and operators: both keep a hostile config
// from exhausting the stack.
const (
	MaxLen   = 4096
	MaxDepth = 64
)

type op uint8

const (
	opConst op = iota
	opVar
	opNeg
	opAdd
	opSub
	opMul
	opDiv
	opPow
	opSin
	opCos
	opTan
	opExp
	opLog
	opLog1p
	opSqrt
	opAbs
	opTanh
	opSigmoid
	opRelu
	opSign
	opMin
	opMax
	opLt
	opLe
	opGt
	opGe
	opEq
	opNe
	opAnd
	opOr
	opNot
	// Compiled forms only (compile.go).
	opAddC // a + c
	opMulC // a · c
	opPowC // a^c, c constant
	opSq   // a²
	opCube // a³
	opQuad // a⁴
	opRecip
)

var funcs1 = map[string]op{
	"sin": opSin, "cos": opCos, "tan": opTan, "exp": opExp, "log": opLog, "log1p": opLog1p,
	"sqrt": opSqrt, "abs": opAbs, "tanh": opTanh, "sigmoid": opSigmoid, "relu": opRelu, "sign": opSign,
}

var funcs2 = map[string]op{"pow": opPow, "min": opMin, "max": opMax}

var opNames = map[op]string{
	opNeg: "-", opAdd: "+", opSub: "-", opMul: "*", opDiv: "/", opPow: "^",
	opLt: "<", opLe: "<=", opGt: ">", opGe: ">=", opEq: "==", opNe: "!=", opAnd: "&&", opOr: "||", opNot: "!",
}

func init() {
	for n, o := range funcs1 {
		opNames[o] = n
	}
	for n, o := range funcs2 {
		opNames[o] = n
	}
}

// node is a parsed expression.
type node struct {
	op   op
	kids []*node
	c    float64 // opConst
	v    int     // opVar: index into the variables
	col  int     // column of the token, from 1
	bool bool    // the node is boolean
}

// Expr is a parsed, type-checked expression.
type Expr struct {
	src  string
	vars []string
	root *node
}

// String returns the source.
func (e *Expr) String() string { return e.src }

// Bool reports whether the expression is boolean (a comparison or a
// combination of them).
func (e *Expr) Bool() bool { return e.root.bool }

// Uses reports whether the expression uses variable i of its variables.
func (e *Expr) Uses(i int) bool {
	var walk func(n *node) bool
	walk = func(n *node) bool {
		if n.op == opVar && n.v == i {
			return true
		}
		for _, k := range n.kids {
			if walk(k) {
				return true
			}
		}
		return false
	}
	return walk(e.root)
}

// Parse parses src, whose names may be vars (a variable's index in vars is
// its index in the slice Eval takes), the constants pi and e, and the
// functions of the grammar (see the package documentation).
func Parse(src string, vars []string) (*Expr, error) {
	p := &parser{src: src, vars: vars}
	if len(src) > MaxLen {
		return nil, p.errAt(1, fmt.Sprintf("longer than %d bytes", MaxLen))
	}
	if !utf8.ValidString(src) {
		return nil, p.errAt(1, "not valid UTF-8")
	}
	if err := p.lex(); err != nil {
		return nil, err
	}
	if p.toks[0].kind == tEOF {
		return nil, p.errAt(1, "empty expression")
	}
	root, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t.col, fmt.Sprintf("unexpected %s after a complete expression", t.describe()))
	}
	return &Expr{src: src, vars: append([]string(nil), vars...), root: root}, nil
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tNum
	tName
	tOp // operators and punctuation, text in s
)

type token struct {
	kind tokKind
	s    string
	num  float64
	col  int
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tNum:
		return "number " + t.s
	case tName:
		return "name " + strconv.Quote(t.s)
	}
	return strconv.Quote(t.s)
}

type parser struct {
	src   string
	vars  []string
	toks  []token
	pos   int
	depth int
}

func (p *parser) errAt(col int, msg string) error {
	return &ParseError{Src: p.src, Column: col, Msg: msg}
}

// numberError describes what is wrong with the number literal text,
// parsed as v with error err, or returns "" when nothing is. A literal out
// of the range of a float64, too large (1e400) or not zero but read as 0
// (1e-400), is refused as a data file's number is (package dataset), in
// the same words.
func numberError(text string, v float64, err error) string {
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && math.IsInf(v, 0):
		return fmt.Sprintf("%q %s", text, TooLarge)
	case err != nil:
		return fmt.Sprintf("malformed number %q", text)
	case Underflows(text, v):
		return fmt.Sprintf("%q %s", text, TooSmall)
	}
	return ""
}

// The words of a number out of float64's range, shared by expressions,
// data files (package dataset) and config values (package config).
const (
	TooLarge = "is out of range: too large for a float64"
	TooSmall = "is out of range: too small for a float64 (it would be 0)"
)

// Underflows reports whether the decimal number text, parsed as v, is not
// zero but was read as 0 (1e-400).
func Underflows(text string, v float64) bool {
	mant, _, _ := strings.Cut(strings.ToLower(text), "e")
	return v == 0 && strings.ContainsAny(mant, "123456789")
}

var twoChar = []string{"<=", ">=", "==", "!=", "&&", "||"}

func (p *parser) lex() error {
	s := p.src
	col := 1
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += w
			col++
			continue
		case r < utf8.RuneSelf && (unicode.IsDigit(r) || r == '.'):
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && s[k] >= '0' && s[k] <= '9' {
					for k < len(s) && s[k] >= '0' && s[k] <= '9' {
						k++
					}
					j = k
				}
			}
			text := s[i:j]
			v, err := strconv.ParseFloat(text, 64)
			if msg := numberError(text, v, err); msg != "" {
				return p.errAt(col, msg)
			}
			p.toks = append(p.toks, token{kind: tNum, s: text, num: v, col: col})
			col += j - i
			i = j
			continue
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || r == '_'):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			p.toks = append(p.toks, token{kind: tName, s: s[i:j], col: col})
			col += j - i
			i = j
			continue
		}
		if i+1 < len(s) {
			two := s[i : i+2]
			for _, t := range twoChar {
				if two == t {
					p.toks = append(p.toks, token{kind: tOp, s: two, col: col})
					i += 2
					col += 2
					goto next
				}
			}
		}
		if strings.ContainsRune("+-*/^(),<>!", r) {
			p.toks = append(p.toks, token{kind: tOp, s: string(r), col: col})
			i += w
			col++
			continue
		}
		return p.errAt(col, fmt.Sprintf("unexpected character %q", r))
	next:
	}
	p.toks = append(p.toks, token{kind: tEOF, col: col})
	return nil
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) isOp(s string) bool {
	t := p.peek()
	return t.kind == tOp && t.s == s
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errAt(p.peek().col, fmt.Sprintf("nested more than %d deep", MaxDepth))
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// wantNum and wantBool check an operand's type for operator o at col.
func (p *parser) wantNum(n *node, what string, col int) error {
	if n.bool {
		return p.errAt(col, fmt.Sprintf("%s needs a number, got a comparison (true/false)", what))
	}
	return nil
}

func (p *parser) wantBool(n *node, what string, col int) error {
	if !n.bool {
		return p.errAt(col, fmt.Sprintf("%s needs a comparison (true/false), got a number", what))
	}
	return nil
}

func (p *parser) binary(next func() (*node, error), ops map[string]op, boolean bool) (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	l, err := next()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		o, ok := ops[t.s]
		if t.kind != tOp || !ok {
			return l, nil
		}
		p.next()
		r, err := next()
		if err != nil {
			return nil, err
		}
		check := p.wantNum
		if boolean {
			check = p.wantBool
		}
		what := fmt.Sprintf("%q", t.s)
		if err := check(l, what, t.col); err != nil {
			return nil, err
		}
		if err := check(r, what, t.col); err != nil {
			return nil, err
		}
		l = &node{op: o, kids: []*node{l, r}, col: t.col, bool: boolean}
	}
}

func (p *parser) or() (*node, error) { return p.binary(p.and, map[string]op{"||": opOr}, true) }
func (p *parser) and() (*node, error) {
	return p.binary(p.cmp, map[string]op{"&&": opAnd}, true)
}

var cmpOps = map[string]op{"<": opLt, "<=": opLe, ">": opGt, ">=": opGe, "==": opEq, "!=": opNe}

func (p *parser) cmp() (*node, error) {
	l, err := p.sum()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	o, ok := cmpOps[t.s]
	if t.kind != tOp || !ok {
		return l, nil
	}
	p.next()
	r, err := p.sum()
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("comparison %q", t.s)
	if err := p.wantNum(l, what, t.col); err != nil {
		return nil, err
	}
	if err := p.wantNum(r, what, t.col); err != nil {
		return nil, err
	}
	if u := p.peek(); u.kind == tOp && cmpOps[u.s] != 0 {
		return nil, p.errAt(u.col, "comparisons do not chain: write a < b && b < c")
	}
	return &node{op: o, kids: []*node{l, r}, col: t.col, bool: true}, nil
}

func (p *parser) sum() (*node, error) {
	return p.binary(p.product, map[string]op{"+": opAdd, "-": opSub}, false)
}

func (p *parser) product() (*node, error) {
	return p.binary(p.unary, map[string]op{"*": opMul, "/": opDiv}, false)
}

func (p *parser) unary() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.peek()
	if t.kind == tOp && (t.s == "-" || t.s == "+" || t.s == "!") {
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		switch t.s {
		case "+":
			return x, p.wantNum(x, `unary "+"`, t.col)
		case "-":
			return &node{op: opNeg, kids: []*node{x}, col: t.col}, p.wantNum(x, `unary "-"`, t.col)
		}
		return &node{op: opNot, kids: []*node{x}, col: t.col, bool: true}, p.wantBool(x, `"!"`, t.col)
	}
	return p.power()
}

func (p *parser) power() (*node, error) {
	b, err := p.primary()
	if err != nil {
		return nil, err
	}
	if !p.isOp("^") {
		return b, nil
	}
	t := p.next()
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	if err := p.wantNum(b, `"^"`, t.col); err != nil {
		return nil, err
	}
	if err := p.wantNum(x, `"^"`, t.col); err != nil {
		return nil, err
	}
	return &node{op: opPow, kids: []*node{b, x}, col: t.col}, nil
}

func (p *parser) primary() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.next()
	switch t.kind {
	case tNum:
		return &node{op: opConst, c: t.num, col: t.col}, nil
	case tName:
		if p.isOp("(") {
			return p.call(t)
		}
		for i, v := range p.vars {
			if v == t.s {
				return &node{op: opVar, v: i, col: t.col}, nil
			}
		}
		switch t.s {
		case "pi":
			return &node{op: opConst, c: math.Pi, col: t.col}, nil
		case "e":
			return &node{op: opConst, c: math.E, col: t.col}, nil
		}
		if _, ok := funcs1[t.s]; ok {
			return nil, p.errAt(t.col, fmt.Sprintf("function %s needs its argument in parentheses: %s(...)", t.s, t.s))
		}
		if _, ok := funcs2[t.s]; ok {
			return nil, p.errAt(t.col, fmt.Sprintf("function %s needs its arguments in parentheses: %s(a, b)", t.s, t.s))
		}
		return nil, p.errAt(t.col, fmt.Sprintf("unknown name %q (%s)", t.s, p.known()))
	case tOp:
		if t.s == "(" {
			x, err := p.or()
			if err != nil {
				return nil, err
			}
			if !p.isOp(")") {
				u := p.peek()
				return nil, p.errAt(u.col, fmt.Sprintf("expected \")\" to close the \"(\" at column %d, got %s", t.col, u.describe()))
			}
			p.next()
			return x, nil
		}
	}
	return nil, p.errAt(t.col, fmt.Sprintf("expected a number, a name or \"(\", got %s", t.describe()))
}

func (p *parser) known() string {
	if len(p.vars) == 0 {
		return "this expression takes no variables"
	}
	return "variables here: " + strings.Join(p.vars, ", ")
}

func (p *parser) call(name token) (*node, error) {
	open := p.next() // "("
	var args []*node
	for {
		a, err := p.or()
		if err != nil {
			return nil, err
		}
		if err := p.wantNum(a, "argument of "+name.s, name.col); err != nil {
			return nil, err
		}
		args = append(args, a)
		if p.isOp(",") {
			p.next()
			continue
		}
		if !p.isOp(")") {
			u := p.peek()
			return nil, p.errAt(u.col, fmt.Sprintf("expected \",\" or \")\" to close the \"(\" at column %d, got %s", open.col, u.describe()))
		}
		p.next()
		break
	}
	if o, ok := funcs1[name.s]; ok {
		if len(args) != 1 {
			return nil, p.errAt(name.col, fmt.Sprintf("%s takes 1 argument, got %d", name.s, len(args)))
		}
		return &node{op: o, kids: args, col: name.col}, nil
	}
	if o, ok := funcs2[name.s]; ok {
		if len(args) != 2 {
			return nil, p.errAt(name.col, fmt.Sprintf("%s takes 2 arguments, got %d", name.s, len(args)))
		}
		return &node{op: o, kids: args, col: name.col}, nil
	}
	return nil, p.errAt(name.col, fmt.Sprintf("unknown function %q (known: sin cos tan exp log log1p sqrt abs tanh sigmoid relu sign pow min max)", name.s))
}
