package expfam

import (
	"fmt"
	"math"

	"github.com/smrl-dev/smrl/internal/expr"
)

// ExprFeatures is phi(s, a) written as expressions of s0, …, s{d_s−1} and
// a0, …, a{d_a−1}, one per feature. Phi allocates nothing.
type ExprFeatures struct {
	DS, DA int
	Src    []string
	phi    []*expr.Program
}

// NewExprFeatures compiles the features src for d_s-dimensional states and
// d_a-dimensional actions; an error names the feature (phi[j]).
func NewExprFeatures(ds, da int, src []string) (*ExprFeatures, error) {
	if len(src) == 0 {
		return nil, fmt.Errorf("phi: at least one feature needed")
	}
	vars := make([]string, 0, ds+da)
	for i := range ds {
		vars = append(vars, fmt.Sprintf("s%d", i))
	}
	for i := range da {
		vars = append(vars, fmt.Sprintf("a%d", i))
	}
	f := &ExprFeatures{DS: ds, DA: da, Src: append([]string(nil), src...)}
	for j, s := range src {
		e, err := expr.Parse(s, vars)
		if err != nil {
			return nil, fmt.Errorf("phi[%d]: %w", j, err)
		}
		if e.Bool() {
			return nil, fmt.Errorf("phi[%d]: %q is a condition, want a number", j, s)
		}
		f.phi = append(f.phi, e.Compile())
	}
	return f, nil
}

func (f *ExprFeatures) String() string {
	return "expression(" + quoteJoin(f.Src) + ")"
}
func (f *ExprFeatures) Dim() int       { return len(f.phi) }
func (f *ExprFeatures) StateDim() int  { return f.DS }
func (f *ExprFeatures) ActionDim() int { return f.DA }
func (f *ExprFeatures) Phi(s, a, out []float64) {
	s, a = s[:f.DS], a[:f.DA]
	for j, p := range f.phi {
		out[j] = p.Eval2(s, a)
	}
}

// CheckAt evaluates phi at (s, a) and fails, naming the feature, where it
// is not finite.
func (f *ExprFeatures) CheckAt(s, a []float64) error {
	out := make([]float64, len(f.phi))
	f.Phi(s, a, out)
	for j, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("phi[%d]: %q is %v at s = %v, a = %v", j, f.Src[j], v, s, a)
		}
	}
	return nil
}

// ExprChecker is an expression family that can check itself on an interval.
type ExprChecker interface {
	// CheckOn fails, naming the expression (log_q or psi[k]) and the point,
	// where log q, ψ or their derivatives are not finite on [lo, hi]
	// (intersected with the support, ends excluded), and where a ψ_k is
	// constant there. An interval that misses the support passes.
	CheckOn(lo, hi float64) error
}

// CheckOn checks the family on [lo, hi] (see ExprChecker).
func (s *ExprScalar) CheckOn(lo, hi float64) error { return s.f.checkOn(lo, hi) }

// CheckOn checks the family on [lo, hi] (see ExprChecker).
func (c *ExprScalarCoord) CheckOn(lo, hi float64) error { return c.S.f.checkOn(lo, hi) }

// CheckOn checks the family on [lo, hi] (see ExprChecker).
func (c *ExprCoord) CheckOn(lo, hi float64) error { return c.f.checkOn(lo, hi) }

// checkPoints is the grid of checkOn.
const checkPoints = 2000

// checkOn evaluates every expression with its derivatives on a grid of
// checkPoints points of [lo, hi] ∩ support (ends excluded), and at the
// kinks of log q and ψ, 0 and ±1 when they lie inside, where it also
// checks the one-sided derivatives (checkSides).
func (f *exprFam) checkOn(lo, hi float64) error {
	lo, hi = math.Max(lo, f.spec.Lo), math.Min(hi, f.spec.Hi)
	if !(lo < hi) {
		return nil // [lo, hi] misses the support: nothing to check there
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return fmt.Errorf("%w: cannot check on the unbounded interval [%v, %v]", ErrBadFamily, lo, hi)
	}
	var xs []float64
	for i := 1; i < checkPoints; i++ {
		xs = append(xs, lo+(hi-lo)*float64(i)/checkPoints)
	}
	extra := append([]float64{0, 1, -1}, f.lqKink...)
	for _, e := range f.psiE {
		extra = append(extra, e.Kinks(0)...)
	}
	var sides []float64
	for _, x := range extra {
		if x > lo && x < hi {
			xs = append(xs, x)
			sides = append(sides, x)
		}
	}
	moves := make([]bool, len(f.psi))
	for _, x := range xs {
		in := []float64{x}
		v, d, _ := f.logQ.EvalD(in, 0)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return badExpr("log_q", f.spec.LogQ, "the value", v, x)
		}
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return badExpr("log_q", f.spec.LogQ, "the derivative", d, x)
		}
		for k, p := range f.psi {
			v, d, dd := p.EvalD(in, 0)
			for _, c := range []struct {
				what string
				v    float64
			}{{"the value", v}, {"the derivative", d}, {"the second derivative", dd}} {
				if math.IsNaN(c.v) || math.IsInf(c.v, 0) {
					return badExpr(fmt.Sprintf("psi[%d]", k), f.spec.Psi[k], c.what, c.v, x)
				}
			}
			if d != 0 {
				moves[k] = true
			}
		}
	}
	for _, x := range sides {
		if err := f.checkSides(x); err != nil {
			return err
		}
	}
	for k, m := range moves {
		if !m {
			return fmt.Errorf("psi[%d]: %w: %q is constant on [%g, %g]: a constant statistic has no natural parameter to learn", k, ErrBadFamily, f.spec.Psi[k], lo, hi)
		}
	}
	return nil
}

// badExpr is the error of expression src (key: log_q, psi[k]) whose what is v at x.
func badExpr(key, src, what string, v, x float64) error {
	return fmt.Errorf("%s: %w: %q has %s %v at x = %g", key, ErrBadFamily, src, what, v, x)
}

// checkSides fails where (log q)', ψ' or ψ” from the left or the right of
// x is not finite. At a kink the tape takes each primitive's mean of its
// one-sided derivatives (package expr), which can hide an infinite pair:
// abs(x)^0.5 has derivative 0 at 0 on the tape and ∓Inf from either side,
// where ψ'² is not integrable and no finite value is right.
func (f *exprFam) checkSides(x float64) error {
	in := []float64{x}
	for _, s := range []struct {
		side float64
		name string
	}{{-1, "from the left"}, {1, "from the right"}} {
		if _, d, _ := f.logQ.EvalSide(in, 0, s.side); math.IsNaN(d) || math.IsInf(d, 0) {
			return badExpr("log_q", f.spec.LogQ, "the derivative "+s.name, d, x)
		}
		for k, p := range f.psi {
			_, d, dd := p.EvalSide(in, 0, s.side)
			if math.IsNaN(d) || math.IsInf(d, 0) {
				return badExpr(fmt.Sprintf("psi[%d]", k), f.spec.Psi[k], "the derivative "+s.name, d, x)
			}
			if math.IsNaN(dd) || math.IsInf(dd, 0) {
				return badExpr(fmt.Sprintf("psi[%d]", k), f.spec.Psi[k], "the second derivative "+s.name, dd, x)
			}
		}
	}
	return nil
}
