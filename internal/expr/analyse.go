package expr

import (
	"math"
	"slices"
)

// Bounded reports whether the expression is bounded for every real value of
// its variables by a sufficient syntactic rule: constants, sin, cos, tanh,
// sigmoid, sign and booleans are bounded; exp, abs, relu, −, +, −, ·, min,
// max and whole powers u^n (n ≥ 0) of bounded operands are bounded;
// anything else (a variable, a division, log, …) is not. False is "not
// known to be bounded".
func (e *Expr) Bounded() bool { return bounded(fold(e.root)) }

func bounded(n *node) bool {
	if n.bool {
		return true
	}
	switch n.op {
	case opConst:
		return !math.IsInf(n.c, 0) && !math.IsNaN(n.c)
	case opSin, opCos, opTanh, opSigmoid, opSign:
		return true
	case opExp, opAbs, opRelu, opNeg:
		return bounded(n.kids[0])
	case opAdd, opSub, opMul, opMin, opMax:
		return bounded(n.kids[0]) && bounded(n.kids[1])
	case opPow:
		r := n.kids[1]
		return r.op == opConst && r.c >= 0 && r.c == math.Trunc(r.c) && bounded(n.kids[0])
	}
	return false
}

// affine returns (a, b) with n = a·x_k + b when n is affine in x_k and uses
// no other variable.
func affine(n *node, k int) (a, b float64, ok bool) {
	switch n.op {
	case opConst:
		return 0, n.c, true
	case opVar:
		return 1, 0, n.v == k
	case opNeg:
		a, b, ok = affine(n.kids[0], k)
		return -a, -b, ok
	case opAdd, opSub, opMul, opDiv:
		a1, b1, ok1 := affine(n.kids[0], k)
		a2, b2, ok2 := affine(n.kids[1], k)
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		switch n.op {
		case opAdd:
			return a1 + a2, b1 + b2, true
		case opSub:
			return a1 - a2, b1 - b2, true
		case opMul:
			if a1 != 0 && a2 != 0 {
				return 0, 0, false
			}
			return a1*b2 + a2*b1, b1 * b2, true
		default:
			if a2 != 0 || b2 == 0 {
				return 0, 0, false
			}
			return a1 / b2, b1 / b2, true
		}
	}
	return 0, 0, false
}

// Kinks returns, sorted and without repeats, the points x_k where a
// function of the expression is not smooth and its argument is affine in
// x_k alone: abs(u), relu(u) and sign(u) at u = 0, min(u, v) and max(u, v)
// at u = v. Kinks of other arguments (abs(x²−1)) are not found.
func (e *Expr) Kinks(k int) []float64 {
	var out []float64
	var walk func(n *node)
	walk = func(n *node) {
		for _, c := range n.kids {
			walk(c)
		}
		var a, b float64
		var ok bool
		switch n.op {
		case opAbs, opRelu, opSign:
			a, b, ok = affine(n.kids[0], k)
		case opMin, opMax:
			var a2, b2 float64
			var ok2 bool
			a, b, ok = affine(n.kids[0], k)
			a2, b2, ok2 = affine(n.kids[1], k)
			a, b, ok = a-a2, b-b2, ok && ok2
		}
		if ok && a != 0 {
			if x := -b / a; !math.IsInf(x, 0) && !math.IsNaN(x) {
				out = append(out, x+0) // +0, not −0
			}
		}
	}
	walk(fold(e.root))
	slices.Sort(out)
	return slices.Compact(out)
}
