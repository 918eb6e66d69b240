package expfam

import (
	"fmt"
	"math"

	"github.com/smrl-dev/smrl/internal/vmath"
)

// Scalar is a one-dimensional exponential family: an unnormalised base
// measure q and a statistic ψ on R, with analytic derivatives.
//
// A Scalar must be normalisable for every η in the range it is used with:
// ∫ q(x) exp(η ψ(x)) dx < ∞.
type Scalar interface {
	// LogQ returns log q(x) up to an additive constant.
	LogQ(x float64) float64
	// DLogQ returns d/dx log q(x).
	DLogQ(x float64) float64
	// Psi returns ψ(x).
	Psi(x float64) float64
	// DPsi returns ψ'(x).
	DPsi(x float64) float64
	// D2Psi returns ψ''(x).
	D2Psi(x float64) float64
	// Kink returns a point where log q is not smooth (0 for |x|^α), so that
	// quadrature panels can start there. ok is false when there is none.
	Kink() (x float64, ok bool)
	// String names the family and its parameters.
	String() string
}

// scorer is implemented by scalar families that compute ψ' and
// ξ = (log q)' ψ' + ψ” faster together than apart.
type scorer interface {
	Score(x float64) (dpsi, xi float64)
}

// genNormalBase is q(x) = exp(−|x|^α/α), the generalised normal base measure.
type genNormalBase struct{ alpha float64 }

func (b genNormalBase) LogQ(x float64) float64 {
	ax := math.Abs(x)
	switch b.alpha {
	case 1:
		return -ax
	case 2:
		return -0.5 * x * x
	}
	if ax == 0 {
		return 0
	}
	// exp(α log|x|) is about twice as fast as math.Pow and as accurate here.
	return -math.Exp(b.alpha*math.Log(ax)) / b.alpha
}

// logQs writes dst[i] = LogQ(x[i]), to the bit: for α ∉ {1, 2} the
// exponentials exp(α log|x|) by vmath.Exps (math.Exp's bits, four at a time).
func (b genNormalBase) logQs(x, dst []float64) {
	if b.alpha == 1 || b.alpha == 2 {
		for i, v := range x {
			dst[i] = b.LogQ(v)
		}
		return
	}
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = b.alpha * math.Log(math.Abs(v))
	}
	vmath.Exps(dst, dst)
	for i, v := range x {
		if math.Abs(v) == 0 {
			dst[i] = 0 // LogQ's own case: log 0 = −Inf would give −0
			continue
		}
		dst[i] = -dst[i] / b.alpha
	}
}

// DLogQ is −sign(x)|x|^{α−1}; at x = 0 it is 0 (the subgradient's midpoint
// for α = 1).
func (b genNormalBase) DLogQ(x float64) float64 {
	switch {
	case x == 0:
		return 0
	case b.alpha == 1:
		return -math.Copysign(1, x)
	case b.alpha == 2:
		return -x
	}
	return -math.Copysign(math.Exp((b.alpha-1)*math.Log(math.Abs(x))), x)
}

// logQNonPositive reports that LogQ(x) = −|x|^α/α <= 0 (every branch of
// LogQ returns a non-positive value).
func (b genNormalBase) logQNonPositive() bool { return true }

// dLogQBound is a bound on |DLogQ(x)| = |x|^{α−1} without exp or log:
// 1 for |x| <= 1, else |x|^k with the integer k = ⌈α−1⌉ >= α−1 (+Inf
// when that overflows, which is no bound the caller can use).
func (b genNormalBase) dLogQBound(x float64) float64 {
	ax := math.Abs(x)
	if ax <= 1 {
		return 1
	}
	v := 1.0
	for k := math.Ceil(b.alpha - 1); k > 0 && !math.IsInf(v, 1); k-- {
		v *= ax
	}
	return v
}

func (b genNormalBase) Kink() (float64, bool) { return 0, b.alpha != 2 }

func checkAlpha(alpha float64) error {
	if !(alpha >= 1) || math.IsInf(alpha, 0) {
		return fmt.Errorf("alpha must be a finite number >= 1 (score matching needs q differentiable almost everywhere with integrable score), got %v", alpha)
	}
	return nil
}

// SinFamily is the paper's family: q(x) = exp(−|x|^α/α), ψ(x) = sin(P x).
type SinFamily struct {
	genNormalBase
	P float64
}

// NewSin returns the custom-sin family with frequency p and base exponent
// alpha (the paper's MDP uses p = 4, alpha = 1.7).
func NewSin(p, alpha float64) (*SinFamily, error) {
	if err := checkAlpha(alpha); err != nil {
		return nil, err
	}
	if p == 0 || math.IsNaN(p) || math.IsInf(p, 0) {
		return nil, fmt.Errorf("frequency must be a finite non-zero number, got %v", p)
	}
	return &SinFamily{genNormalBase{alpha}, p}, nil
}

func (f *SinFamily) Psi(x float64) float64 { return math.Sin(f.P * x) }

// BoundedPsi reports that ψ = sin(P x) is bounded (see Table).
func (f *SinFamily) BoundedPsi() bool        { return true }
func (f *SinFamily) DPsi(x float64) float64  { return f.P * math.Cos(f.P*x) }
func (f *SinFamily) D2Psi(x float64) float64 { return -f.P * f.P * math.Sin(f.P*x) }

// Score returns ψ'(x) and ξ(x) = (log q)'(x) ψ'(x) + ψ”(x) with one
// Sincos: the hot path of score matching.
func (f *SinFamily) Score(x float64) (dpsi, xi float64) {
	s, c := math.Sincos(f.P * x)
	dpsi = f.P * c
	return dpsi, f.DLogQ(x)*dpsi - f.P*f.P*s
}

func (f *SinFamily) String() string {
	return fmt.Sprintf("custom-sin(freq=%g, alpha=%g)", f.P, f.alpha)
}

// ExpSinFamily is the appendix density q(x) = exp(−|x|^α/α), ψ(x) = exp(sin x)
// (the paper uses α = 1).
type ExpSinFamily struct{ genNormalBase }

// NewExpSin returns the exp-sin family with base exponent alpha.
func NewExpSin(alpha float64) (*ExpSinFamily, error) {
	if err := checkAlpha(alpha); err != nil {
		return nil, err
	}
	return &ExpSinFamily{genNormalBase{alpha}}, nil
}

func (f *ExpSinFamily) Psi(x float64) float64 { return math.Exp(math.Sin(x)) }

// BoundedPsi reports that ψ = exp(sin x) is bounded (see Table).
func (f *ExpSinFamily) BoundedPsi() bool { return true }
func (f *ExpSinFamily) DPsi(x float64) float64 {
	s, c := math.Sincos(x)
	return c * math.Exp(s)
}
func (f *ExpSinFamily) D2Psi(x float64) float64 {
	s, c := math.Sincos(x)
	return (c*c - s) * math.Exp(s)
}
func (f *ExpSinFamily) String() string { return fmt.Sprintf("exp-sin(alpha=%g)", f.alpha) }

// XSinFamily is the appendix density q(x) = exp(−|x|^α/α), ψ(x) = x sin x
// (the paper uses α = 2). It is normalisable for every η when α > 1.
type XSinFamily struct{ genNormalBase }

// NewXSin returns the x-sin family with base exponent alpha > 1.
func NewXSin(alpha float64) (*XSinFamily, error) {
	if err := checkAlpha(alpha); err != nil {
		return nil, err
	}
	if alpha == 1 {
		return nil, fmt.Errorf("x-sin needs alpha > 1: with alpha = 1, exp(η x sin x − |x|) is not integrable for |η| >= 1")
	}
	return &XSinFamily{genNormalBase{alpha}}, nil
}

func (f *XSinFamily) Psi(x float64) float64 { return x * math.Sin(x) }
func (f *XSinFamily) DPsi(x float64) float64 {
	s, c := math.Sincos(x)
	return s + x*c
}
func (f *XSinFamily) D2Psi(x float64) float64 {
	s, c := math.Sincos(x)
	return 2*c - x*s
}
func (f *XSinFamily) String() string { return fmt.Sprintf("x-sin(alpha=%g)", f.alpha) }
