package expr

import (
	"math"
	"sync"
)

// instr is one tape slot: the result of op on the slots a and b (earlier
// slots) or on the constant c.
type instr struct {
	op   op
	a, b int32
	c    float64
}

// Program is a compiled expression: a tape whose last slot is the result.
// It is immutable and safe for concurrent use.
type Program struct {
	src  string
	nvar int
	tape []instr
	pool *sync.Pool // scratch for tapes longer than MaxStackSlots
}

// MaxStackSlots is the longest tape evaluated with scratch on the stack.
const MaxStackSlots = 64

// String returns the source of the expression.
func (p *Program) String() string { return p.src }

// Len is the number of tape slots.
func (p *Program) Len() int { return len(p.tape) }

// Const reports whether the program is a constant, and its value.
func (p *Program) Const() (float64, bool) {
	if len(p.tape) == 1 && p.tape[0].op == opConst {
		return p.tape[0].c, true
	}
	return 0, false
}

// Compile folds constants and compiles e to a tape.
func (e *Expr) Compile() *Program {
	c := &compiler{}
	c.emit(fold(e.root))
	p := &Program{src: e.src, nvar: len(e.vars), tape: c.tape}
	if len(p.tape) > MaxStackSlots {
		n := len(p.tape)
		p.pool = &sync.Pool{New: func() any { s := make([]float64, 3*n); return &s }}
	}
	return p
}

// MustCompile parses and compiles src, and panics on an error: for tests
// and fixed expressions.
func MustCompile(src string, vars ...string) *Program {
	e, err := Parse(src, vars)
	if err != nil {
		panic(err)
	}
	return e.Compile()
}

type compiler struct{ tape []instr }

func (c *compiler) push(in instr) int32 {
	c.tape = append(c.tape, in)
	return int32(len(c.tape) - 1)
}

func isConst(n *node) bool { return n.op == opConst }

// fold returns n with every constant subexpression evaluated.
func fold(n *node) *node {
	if len(n.kids) == 0 {
		return n
	}
	m := *n
	m.kids = make([]*node, len(n.kids))
	all := true
	for i, k := range n.kids {
		m.kids[i] = fold(k)
		all = all && isConst(m.kids[i])
	}
	if all {
		var a, b float64
		a = m.kids[0].c
		if len(m.kids) > 1 {
			b = m.kids[1].c
		}
		return &node{op: opConst, c: apply(m.op, a, b), col: n.col, bool: n.bool}
	}
	return &m
}

// emit compiles n and returns its slot, specialising operations with a
// constant operand.
func (c *compiler) emit(n *node) int32 {
	switch n.op {
	case opConst:
		return c.push(instr{op: opConst, c: n.c})
	case opVar:
		return c.push(instr{op: opVar, a: int32(n.v)})
	}
	if len(n.kids) == 2 {
		l, r := n.kids[0], n.kids[1]
		switch {
		case n.op == opAdd && isConst(r):
			return c.push(instr{op: opAddC, a: c.emit(l), c: r.c})
		case n.op == opAdd && isConst(l):
			return c.push(instr{op: opAddC, a: c.emit(r), c: l.c})
		case n.op == opSub && isConst(r):
			return c.push(instr{op: opAddC, a: c.emit(l), c: -r.c})
		case n.op == opMul && isConst(r):
			return c.push(instr{op: opMulC, a: c.emit(l), c: r.c})
		case n.op == opMul && isConst(l):
			return c.push(instr{op: opMulC, a: c.emit(r), c: l.c})
		case n.op == opDiv && isConst(r):
			// a/c is not a·(1/c) to the last bit: keep the division.
			return c.push(instr{op: opDiv, a: c.emit(l), b: c.push(instr{op: opConst, c: r.c})})
		case n.op == opDiv && isConst(l) && l.c == 1:
			return c.push(instr{op: opRecip, a: c.emit(r)})
		case (n.op == opPow) && isConst(r):
			a := c.emit(l)
			switch r.c {
			case 1:
				return a
			case 2:
				return c.push(instr{op: opSq, a: a})
			case 3:
				return c.push(instr{op: opCube, a: a})
			case 4:
				return c.push(instr{op: opQuad, a: a})
			}
			return c.push(instr{op: opPowC, a: a, c: r.c})
		}
		a := c.emit(l)
		b := c.emit(r)
		return c.push(instr{op: n.op, a: a, b: b})
	}
	return c.push(instr{op: n.op, a: c.emit(n.kids[0])})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	z := math.Exp(x)
	return z / (1 + z)
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x // NaN
}

// apply evaluates the value of op on a (and b).
func apply(o op, a, b float64) float64 {
	switch o {
	case opNeg:
		return -a
	case opAdd:
		return a + b
	case opSub:
		return a - b
	case opMul:
		return a * b
	case opDiv:
		return a / b
	case opPow:
		return math.Pow(a, b)
	case opSin:
		return math.Sin(a)
	case opCos:
		return math.Cos(a)
	case opTan:
		return math.Tan(a)
	case opExp:
		return math.Exp(a)
	case opLog:
		return math.Log(a)
	case opLog1p:
		return math.Log1p(a)
	case opSqrt:
		return math.Sqrt(a)
	case opAbs:
		return math.Abs(a)
	case opTanh:
		return math.Tanh(a)
	case opSigmoid:
		return sigmoid(a)
	case opRelu:
		if a > 0 {
			return a
		}
		if a <= 0 {
			return 0
		}
		return a
	case opSign:
		return sign(a)
	case opMin:
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN()
		}
		return math.Min(a, b)
	case opMax:
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN()
		}
		return math.Max(a, b)
	case opLt:
		return b2f(a < b)
	case opLe:
		return b2f(a <= b)
	case opGt:
		return b2f(a > b)
	case opGe:
		return b2f(a >= b)
	case opEq:
		return b2f(a == b)
	case opNe:
		return b2f(a != b)
	case opAnd:
		return b2f(a != 0 && b != 0)
	case opOr:
		return b2f(a != 0 || b != 0)
	case opNot:
		return b2f(a == 0)
	}
	panic("expr: unknown operation")
}

// Eval returns the value of the program at the variables x (len ≥ the
// number of variables it was parsed with).
func (p *Program) Eval(x []float64) float64 { return p.Eval2(x, nil) }

// Eval2 is Eval at the variables [x, y] (x's len(x) values first), without
// copying them into one slice: features and rewards of (s, a).
func (p *Program) Eval2(x, y []float64) float64 {
	// Scratch on the stack in three sizes: zeroing 64 slots would cost
	// more than evaluating a short tape.
	switch n := len(p.tape); {
	case n <= 8:
		var s [8]float64
		return p.evalXY(x, y, s[:n])
	case n <= 24:
		var s [24]float64
		return p.evalXY(x, y, s[:n])
	case n <= MaxStackSlots:
		var s [MaxStackSlots]float64
		return p.evalXY(x, y, s[:n])
	}
	buf := p.pool.Get().(*[]float64)
	v := p.evalXY(x, y, (*buf)[:len(p.tape)])
	p.pool.Put(buf)
	return v
}

// Cond evaluates p as a condition at the variables x: whether it holds,
// and whether it is defined there. A comparison with a NaN operand is
// undefined (NaN compares false under < but true under !=, so its 0 or 1
// would mean nothing): a caller that reads p as a condition, such as
// env.terminal, refuses such a state rather than take the 0 or 1.
func (p *Program) Cond(x []float64) (holds, defined bool) {
	// Scratch as Eval2 sizes it.
	switch n := len(p.tape); {
	case n <= 8:
		var s [8]float64
		return p.cond(x, s[:n])
	case n <= 24:
		var s [24]float64
		return p.cond(x, s[:n])
	case n <= MaxStackSlots:
		var s [MaxStackSlots]float64
		return p.cond(x, s[:n])
	}
	buf := p.pool.Get().(*[]float64)
	defer p.pool.Put(buf)
	return p.cond(x, (*buf)[:len(p.tape)])
}

// cond is Cond with the scratch s (len(p.tape) slots).
func (p *Program) cond(x, s []float64) (holds, defined bool) {
	v := p.evalXY(x, nil, s)
	for _, in := range p.tape {
		switch in.op {
		case opLt, opLe, opGt, opGe, opEq, opNe:
			if math.IsNaN(s[in.a]) || math.IsNaN(s[in.b]) {
				return false, false
			}
		}
	}
	return v != 0, !math.IsNaN(v)
}

func (p *Program) evalXY(x, y, s []float64) float64 {
	nx := int32(len(x))
	for i, in := range p.tape {
		var v float64
		switch in.op {
		case opConst:
			v = in.c
		case opVar:
			if in.a < nx {
				v = x[in.a]
			} else {
				v = y[in.a-nx]
			}
		case opAddC:
			v = s[in.a] + in.c
		case opMulC:
			v = s[in.a] * in.c
		case opPowC:
			v = powc(s[in.a], in.c)
		case opSq:
			a := s[in.a]
			v = a * a
		case opCube:
			a := s[in.a]
			v = a * a * a
		case opQuad:
			a := s[in.a]
			a2 := a * a
			v = a2 * a2
		case opRecip:
			v = 1 / s[in.a]
		default:
			v = apply(in.op, s[in.a], s[in.b])
		}
		s[i] = v
	}
	return s[len(s)-1]
}

// powc is a^c for a constant c: exp(c log a) for a > 0 (as fast as a
// table-free pow gets, within a few ulp of math.Pow), 0 at a = 0 for
// c > 0, and math.Pow elsewhere (a < 0, integer c).
func powc(a, c float64) float64 {
	if a > 0 && !math.IsInf(a, 0) {
		return math.Exp(c * math.Log(a))
	}
	return math.Pow(a, c)
}

// EvalD returns f(x), ∂f/∂x_k and ∂²f/∂x_k² (see the package documentation
// for the values at kinks).
func (p *Program) EvalD(x []float64, k int) (v, d, dd float64) {
	return p.EvalSide(x, k, 0)
}

// EvalSide is EvalD with the kinks resolved to one side: side −1 takes
// every derivative of abs, relu, min and max at its kink from the left
// (x_k slightly smaller), +1 from the right, 0 their mean (EvalD). The
// jump of ∂f/∂x_k at a kink c is EvalSide(c, k, +1) − EvalSide(c, k, −1).
func (p *Program) EvalSide(x []float64, k int, side float64) (v, d, dd float64) {
	n := len(p.tape)
	switch {
	case n <= 8:
		var s, s1, s2 [8]float64
		return p.evalD(x, k, side, s[:n], s1[:n], s2[:n])
	case n <= 24:
		var s, s1, s2 [24]float64
		return p.evalD(x, k, side, s[:n], s1[:n], s2[:n])
	case n <= MaxStackSlots:
		var s, s1, s2 [MaxStackSlots]float64
		return p.evalD(x, k, side, s[:n], s1[:n], s2[:n])
	}
	buf := p.pool.Get().(*[]float64)
	b := *buf
	v, d, dd = p.evalD(x, k, side, b[:n], b[n:2*n], b[2*n:3*n])
	p.pool.Put(buf)
	return v, d, dd
}

// powDerivs returns g' = c a^{c−1} and g” = c(c−1) a^{c−2} of g(a) = a^c
// by math.Pow, each only where the chain rule multiplies it by a nonzero
// derivative of the argument (a1 for g', and a1² for g”; g'·a2 needs g'
// when a2 ≠ 0): so |x|^1.7 at 0 has derivatives 0, not 0·Inf = NaN.
func powDerivs(a, c, a1, a2 float64) (g1, g2 float64) {
	if a1 != 0 || a2 != 0 {
		g1 = c * math.Pow(a, c-1)
		if a1 != 0 {
			g2 = c * (c - 1) * math.Pow(a, c-2)
		}
	}
	return g1, g2
}

// mulNZ returns a·b, and 0 when b is 0 whatever a (an infinite a times a
// zero derivative is a term that is not there).
func mulNZ(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a * b
}

// evalD runs the tape on (value, first, second derivative) triples: s, s1,
// s2. For a unary g at u: (g∘u)' = g'u', (g∘u)” = g'u” + g”u'².
func (p *Program) evalD(x []float64, k int, side float64, s, s1, s2 []float64) (float64, float64, float64) {
	n := len(s)
	s1, s2 = s1[:n], s2[:n]
	for i, in := range p.tape {
		// A unary g sets v, g1 = g'(a), g2 = g”(a) and leaves chain set;
		// everything else sets v, d, dd itself.
		var v, d, dd, g1, g2 float64
		chain := true
		a, a1, a2 := 0.0, 0.0, 0.0
		if in.op != opConst && in.op != opVar {
			a, a1, a2 = s[in.a], s1[in.a], s2[in.a]
		}
		switch in.op {
		case opConst:
			v, chain = in.c, false
		case opVar:
			v, chain = x[in.a], false
			if int(in.a) == k {
				d = 1
			}
		case opAddC:
			v, d, dd, chain = a+in.c, a1, a2, false
		case opMulC:
			v, d, dd, chain = a*in.c, a1*in.c, a2*in.c, false
		case opNeg:
			v, d, dd, chain = -a, -a1, -a2, false
		case opAdd:
			v, d, dd, chain = a+s[in.b], a1+s1[in.b], a2+s2[in.b], false
		case opSub:
			v, d, dd, chain = a-s[in.b], a1-s1[in.b], a2-s2[in.b], false
		case opMul:
			b, b1, b2 := s[in.b], s1[in.b], s2[in.b]
			v = a * b
			d = a1*b + a*b1
			dd = a2*b + 2*a1*b1 + a*b2
			chain = false
		case opDiv:
			// q = a/b: q' = (a' − q b')/b, q” = (a” − 2q'b' − q b”)/b.
			b, b1, b2 := s[in.b], s1[in.b], s2[in.b]
			v = a / b
			d = (a1 - mulNZ(v, b1)) / b
			dd = (a2 - 2*d*b1 - mulNZ(v, b2)) / b
			chain = false
		case opRecip:
			v = 1 / a
			g1 = -v * v
			g2 = -2 * g1 * v
		case opSq:
			v, g1, g2 = a*a, 2*a, 2
		case opCube:
			v, g1, g2 = a*a*a, 3*a*a, 6*a
		case opQuad:
			sq := a * a
			v, g1, g2 = sq*sq, 4*sq*a, 12*sq
		case opPowC:
			c := in.c
			if a > 0 && a <= math.MaxFloat64 {
				// One exp and one log: a^{c−1} = a^c/a.
				v = math.Exp(c * math.Log(a))
				g1 = c * v / a
				g2 = (c - 1) * g1 / a
			} else {
				v = math.Pow(a, c)
				g1, g2 = powDerivs(a, c, a1, a2)
			}
		case opSin:
			sn, cs := math.Sincos(a)
			v, g1, g2 = sn, cs, -sn
		case opCos:
			sn, cs := math.Sincos(a)
			v, g1, g2 = cs, -sn, -cs
		case opTan:
			v = math.Tan(a)
			g1 = 1 + v*v
			g2 = 2 * v * g1
		case opExp:
			v = math.Exp(a)
			g1, g2 = v, v
		case opLog:
			v = math.Log(a)
			g1 = 1 / a
			g2 = -g1 * g1
		case opLog1p:
			v = math.Log1p(a)
			g1 = 1 / (1 + a)
			g2 = -g1 * g1
		case opSqrt:
			v = math.Sqrt(a)
			g1 = 0.5 / v
			g2 = -0.5 * g1 / a
		case opAbs:
			v = math.Abs(a)
			switch {
			case a > 0:
				g1 = 1
			case a < 0:
				g1 = -1
			case a == 0 && a1 == 0:
				// u stationary at 0 keeps the sign of u” on both sides:
				// abs(x²) = x² near 0.
				g1 = sign(a2)
			case a == 0:
				g1 = side * sign(a1)
			default:
				g1 = a
			}
		case opTanh:
			v = math.Tanh(a)
			g1 = 1 - v*v
			g2 = -2 * v * g1
		case opSigmoid:
			v = sigmoid(a)
			g1 = v * (1 - v)
			g2 = g1 * (1 - 2*v)
		case opRelu:
			switch {
			case a > 0:
				v, g1 = a, 1
			case a < 0:
				v, g1 = 0, 0
			case a == 0 && a1 == 0:
				v, g1 = 0, b2f(a2 > 0) // as for abs: relu(x²) = x², relu(−x²) = 0
			case a == 0:
				v, g1 = 0, 0.5*(1+side*sign(a1))
			default:
				v, g1 = a, a
			}
		case opSign:
			v, chain = sign(a), false
		case opNot:
			v, chain = b2f(a == 0), false
		case opMin, opMax:
			b, b1, b2 := s[in.b], s1[in.b], s2[in.b]
			v = apply(in.op, a, b)
			// pick = 1: a, 0: b, 1/2: the mean at a tie.
			var pick float64
			switch {
			case a == b:
				// Right of the kink the larger slope wins for max (the
				// smaller for min), left of it the other.
				// With equal slopes the larger curvature wins on both
				// sides: max(x², 0) = x².
				pick = 0.5
				if bigger := (side > 0) == (a1 > b1); side != 0 && a1 != b1 {
					pick = b2f(bigger != (in.op == opMin))
				} else if a1 == b1 && a2 != b2 {
					pick = b2f((a2 > b2) != (in.op == opMin))
				}
			case (a < b) == (in.op == opMin):
				pick = 1
			}
			if math.IsNaN(v) {
				d, dd = v, v
			} else {
				d = pick*a1 + (1-pick)*b1
				dd = pick*a2 + (1-pick)*b2
			}
			chain = false
		case opPow:
			b, b1, b2 := s[in.b], s1[in.b], s2[in.b]
			v = math.Pow(a, b)
			chain = false
			if b1 == 0 && b2 == 0 {
				// A constant exponent: u^c's rule, valid for a ≤ 0.
				g1, g2 = powDerivs(a, b, a1, a2)
				chain = true
				break
			}
			// a^b = exp(b log a): (b log a)' = b' log a + b a'/a.
			la := math.Log(a)
			l1 := b1*la + mulNZ(b/a, a1)
			l2 := b2*la + 2*mulNZ(b1/a, a1) + mulNZ(b/a, a2) - mulNZ(b/(a*a), a1*a1)
			d = v * l1
			dd = v * (l2 + l1*l1)
		default: // comparisons, && and ||: derivative 0
			v, chain = apply(in.op, a, s[in.b]), false
		}
		if chain {
			d = mulNZ(g1, a1)
			dd = mulNZ(g1, a2) + mulNZ(g2, a1*a1)
		}
		s[i], s1[i], s2[i] = v, d, dd
	}
	return s[n-1], s1[n-1], s2[n-1]
}
