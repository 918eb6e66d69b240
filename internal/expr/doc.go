// Package expr parses scalar expressions of named variables, such as
// "-abs(x)^1.7/1.7" or "s0 > 2 && s1 < 0", and compiles them to a flat tape
// that evaluates without allocating, with exact first and second
// derivatives by forward-mode automatic differentiation. It depends on
// nothing else in smrl: callers name the variables an expression may use.
//
// Grammar (precedence from loosest to tightest; binary operators are left
// associative except ^, which is right associative and binds tighter than
// unary minus, so -x^2 = -(x^2) and 2^-x = 2^(-x)):
//
//	expr    = or
//	or      = and { "||" and }
//	and     = cmp { "&&" cmp }
//	cmp     = sum [ ("<" | "<=" | ">" | ">=" | "==" | "!=") sum ]
//	sum     = product { ("+" | "-") product }
//	product = unary { ("*" | "/") unary }
//	unary   = ("-" | "+" | "!") unary | power
//	power   = primary [ "^" unary ]
//	primary = number | name | name "(" expr { "," expr } ")" | "(" expr ")"
//	number  = digits [ "." digits ] [ ("e" | "E") [ "+" | "-" ] digits ]   (also ".5")
//	name    = letter { letter | digit | "_" }
//
// Names are the caller's variables, the constants pi and e, and the
// functions sin cos tan exp log log1p sqrt abs tanh sigmoid relu sign
// (one argument), pow min max (two). Comparisons yield a boolean, and
// && || ! take booleans; arithmetic takes numbers. An expression is numeric
// or boolean as a whole (Expr.Bool); a boolean evaluates to 1 (true) or
// 0 (false). Errors (ParseError) give the column, counted in characters
// from 1, of the offending token.
//
// Derivatives. EvalD returns f, ∂f/∂x_k and ∂²f/∂x_k² for one variable x_k
// by propagating (value, first, second) triples through the tape:
//
//	(u·v)'' = u''v + 2u'v' + uv'',  (g∘u)'' = g'(u)u'' + g''(u)u'²,
//
// exact up to floating-point rounding (no finite differences). At the
// points where a function is not differentiable each primitive takes, by
// itself, the mean of its own one-sided derivatives, and the chain rule
// combines these values:
//
//	abs'(0) = 0, abs''(0) = 0            (−1 and +1 averaged)
//	relu'(0) = 1/2, relu'' = 0           (0 and 1 averaged)
//	sign' = sign'' = 0                   (the jump is not a derivative)
//	min(u, v), max(u, v) at u = v: the mean of u's and v's derivatives
//	comparisons, &&, ||, !: derivative 0
//
// The result is the mean of the expression's one-sided derivatives for a
// first derivative through one kink with finite one-sided values (abs(x −
// c), x + 2 relu(x)), not in general: slopes enter second derivatives
// squared (relu(x)^2 gets f” = 1/2 at 0, its one-sided values being 0 and
// 2) and nested kinks multiply them (relu(relu(x))' = 1/4), and a mean slope
// of 0 hides infinite one-sided derivatives (abs(x)^0.5 gets f' = 0 at 0,
// ∓Inf from the sides). EvalSide gives the one-sided derivatives. An
// argument stationary at the kink (u = u' = 0: abs(x²), max(x², 0)) does
// not cross it: the primitive takes the side of u” on both sides, so both
// have f” = 2 at 0.
//
// The δ terms of a second derivative at a kink (relu” = δ) are not part
// of the tape: a caller that needs them (score matching's kink term) finds
// the kinks with Kinks and their jumps with EvalSide. u^c for a constant
// c uses (u^c)' = c u^{c−1} u' and skips a term whose other factor is zero,
// so |x|^1.7 has derivatives 0 (not NaN) at 0 (from either side its second
// derivative is +Inf); u^v for a non-constant v is exp(v log u) (u > 0).
//
// Compilation folds constant subexpressions, turns integer powers up to 4
// into products, and keeps one tape slot per node: a tape of n slots
// evaluates with n·3 float64 of scratch on the stack (heap scratch from a
// pool beyond MaxStackSlots), so Eval and EvalD are safe for concurrent
// use and allocate nothing.
package expr
