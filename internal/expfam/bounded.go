package expfam

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// Families on a half-line or an interval, which plain score matching cannot
// fit (their densities do not vanish at the ends of the support) and
// generalised score matching can (DefaultWeight: the capped distance to the
// boundary, see DistWeight). All have closed-form log-partition functions,
// cumulants and exact samplers.
//
// Natural parameter space. The exponential, gamma and beta families are
// normalisable only for η in an open set (η > 0; η₁ > −1, η₂ > 0;
// η > −1). LogPartition fails with ErrNotNormalisable and Cumulants returns
// ok = false outside it (so fitting by maximum likelihood refuses such η),
// while Sample and Mean, which a planner calls with η = Ŵ phi(s, a) of an
// estimate anywhere, clamp η to the closest point of the set with a margin
// (η ≥ MinRate for a rate, η ≥ −1 + MinShape for a log statistic): the
// rollouts of an estimate that leaves the space are those of the nearest
// valid model, never a NaN. The samplers return draws inside
// [TinyDraw, …] (a draw below TinyDraw, probability below 1e-9 at the
// clamped margins, is moved to TinyDraw), so every draw is valid data.
const (
	// MinRate is the smallest rate of the exponential and gamma families
	// Sample and Mean use: the mean 1/rate stays within 1024, the range of
	// states smrl supports.
	MinRate = 1.0 / 1024
	// MinShape is the margin of a log statistic's parameter above −1: the
	// shape η + 1 of the gamma and beta families is at least 1/16.
	MinShape = 1.0 / 16
	// TinyDraw is the smallest draw of the exponential, gamma and beta
	// samplers (a beta draw is also at most 1 − 2⁻⁵³, see Beta.Sample).
	TinyDraw = 1e-150
)

// Restricted is a Coord whose natural parameters are restricted to
// η_k > EtaLowerBounds()[k] for every k: the exponential, gamma and beta
// families. Maximum likelihood uses it to find an admissible start.
type Restricted interface {
	EtaLowerBounds() []float64
}

// EtaLowerBounds is [0]: the rate is positive.
func (f *Exponential) EtaLowerBounds() []float64 { return []float64{0} }

// EtaLowerBounds is [−1, 0]: shape η₁ + 1 > 0, rate η₂ > 0.
func (f *Gamma) EtaLowerBounds() []float64 { return []float64{-1, 0} }

// EtaLowerBounds is [−1, −1]: α = η₁ + 1 > 0, β = η₂ + 1 > 0.
func (f *Beta) EtaLowerBounds() []float64 { return []float64{-1, -1} }

// capWeight is the capped distance to the boundary, (min(d/c, 1))^p.
func capWeight(lo, hi, c, p float64) Weight {
	return &DistWeight{Lo: lo, Hi: hi, C: c, P: p}
}

// Exponential is p(x) ∝ exp(−η x) on x > 0: ψ(x) = −x, q = 1, η > 0 the
// rate; A(η) = −log η, E[ψ] = −1/η, Var[ψ] = 1/η², mean 1/η.
type Exponential struct {
	// Cap is the cap C of the default weight min(x/C, 1) (units of x).
	Cap float64
}

// NewExponential returns the exponential family with weight cap c > 0.
func NewExponential(c float64) (*Exponential, error) {
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("exponential: the weight cap must be a finite number > 0, got %v", c)
	}
	return &Exponential{Cap: c}, nil
}

func (f *Exponential) String() string             { return "exponential" }
func (f *Exponential) StatDim() int               { return 1 }
func (f *Exponential) LogQ(float64) float64       { return 0 }
func (f *Exponential) Psi(x float64, o []float64) { o[0] = -x }
func (f *Exponential) Score(_ float64, g, xi []float64) {
	g[0], xi[0] = -1, 0
}
func (f *Exponential) Support() (lo, hi float64) { return 0, math.Inf(1) }

// DefaultWeight is min(x/Cap, 1): ψ' = −1 is bounded, so power 1.
func (f *Exponential) DefaultWeight() Weight { return capWeight(0, math.Inf(1), f.Cap, 1) }

func (f *Exponential) rate(eta []float64) float64 { return clampBelow(eta[0], MinRate) }

// clampBelow returns max(x, lo), and lo for a NaN x.
func clampBelow(x, lo float64) float64 {
	if !(x >= lo) {
		return lo
	}
	return x
}

// Sample draws −log(U)/η (η clamped to >= MinRate).
func (f *Exponential) Sample(eta []float64, rng *rand.Rand) float64 {
	return max(rng.ExpFloat64()/f.rate(eta), TinyDraw)
}
func (f *Exponential) Mean(eta []float64) float64 { return 1 / f.rate(eta) }
func (f *Exponential) LogPartition(eta []float64) (float64, error) {
	a, ok := f.Cumulants(eta, make([]float64, 1), make([]float64, 1))
	if !ok {
		return 0, fmt.Errorf("exponential at η = %v (the rate must be > 0): %w", eta[0], ErrNotNormalisable)
	}
	return a, nil
}
func (f *Exponential) Cumulants(eta, grad, hess []float64) (float64, bool) {
	e := eta[0]
	if !(e > 0) || math.IsInf(e, 0) {
		return 0, false
	}
	grad[0], hess[0] = -1/e, 1/(e*e)
	return -math.Log(e), true
}

// Gamma is p(x) ∝ x^η₁ exp(−η₂ x) on x > 0: ψ(x) = [log x, −x], q = 1,
// shape k = η₁ + 1 > 0 and rate r = η₂ > 0; A(η) = log Γ(k) − k log r,
// E[ψ] = [ψ₀(k) − log r, −k/r], Cov[ψ] = [[ψ₁(k), −1/r], [−1/r, k/r²]]
// (ψ₀, ψ₁ the digamma and trigamma functions).
type Gamma struct {
	// Cap is the cap C of the default weight min(x/C, 1)² (units of x).
	Cap float64
}

// NewGamma returns the gamma family with weight cap c > 0.
func NewGamma(c float64) (*Gamma, error) {
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("gamma: the weight cap must be a finite number > 0, got %v", c)
	}
	return &Gamma{Cap: c}, nil
}

func (f *Gamma) String() string       { return "gamma" }
func (f *Gamma) StatDim() int         { return 2 }
func (f *Gamma) LogQ(float64) float64 { return 0 }
func (f *Gamma) Psi(x float64, o []float64) {
	o[0], o[1] = math.Log(x), -x
}

// Score writes ψ' = [1/x, −1] and ξ = ψ” = [−1/x², 0].
func (f *Gamma) Score(x float64, g, xi []float64) {
	g[0], g[1] = 1/x, -1
	xi[0], xi[1] = -1/(x*x), 0
}
func (f *Gamma) Support() (lo, hi float64) { return 0, math.Inf(1) }

// DefaultWeight is min(x/Cap, 1)²: ψ₁' = 1/x grows like 1/d at the
// boundary, so power 2 keeps h ψ'ψ'ᵀ and h ψ” bounded.
func (f *Gamma) DefaultWeight() Weight { return capWeight(0, math.Inf(1), f.Cap, 2) }

func (f *Gamma) params(eta []float64) (k, r float64) {
	return clampBelow(eta[0], -1+MinShape) + 1, clampBelow(eta[1], MinRate)
}

// Sample draws Gamma(k, r) exactly (Marsaglia–Tsang), η clamped.
func (f *Gamma) Sample(eta []float64, rng *rand.Rand) float64 {
	k, r := f.params(eta)
	return max(math.Exp(logGammaDraw(k, rng))/r, TinyDraw)
}
func (f *Gamma) Mean(eta []float64) float64 {
	k, r := f.params(eta)
	return k / r
}
func (f *Gamma) LogPartition(eta []float64) (float64, error) {
	a, ok := f.Cumulants(eta, make([]float64, 2), make([]float64, 4))
	if !ok {
		return 0, fmt.Errorf("gamma at η = %v (η₁ > −1 and η₂ > 0 needed): %w", eta[:2], ErrNotNormalisable)
	}
	return a, nil
}
func (f *Gamma) Cumulants(eta, grad, hess []float64) (float64, bool) {
	k, r := eta[0]+1, eta[1]
	if !(k > 0 && r > 0) || math.IsInf(k, 0) || math.IsInf(r, 0) {
		return 0, false
	}
	lg, _ := math.Lgamma(k)
	grad[0], grad[1] = mathext.Digamma(k)-math.Log(r), -k/r
	hess[0], hess[1], hess[2], hess[3] = trigamma(k), -1/r, -1/r, k/(r*r)
	return lg - k*math.Log(r), true
}

// trigamma is ψ₁(x) = Σ_k 1/(x + k)² for x > 0: the recurrence
// ψ₁(x) = ψ₁(x + 1) + 1/x² up to x >= 10, then the asymptotic series
// 1/x + 1/(2x²) + Σ B_2j/x^{2j+1} to B_14, whose first omitted term is
// below 1e-16 relative there (tested against ζ(2, x) of gonum).
func trigamma(x float64) float64 {
	var s float64
	for x < 10 {
		s += 1 / (x * x)
		x++
	}
	z := 1 / (x * x)
	// B2 = 1/6, B4 = −1/30, B6 = 1/42, B8 = −1/30, B10 = 5/66, B12 = −691/2730, B14 = 7/6
	series := 1.0/6 + z*(-1.0/30+z*(1.0/42+z*(-1.0/30+z*(5.0/66+z*(-691.0/2730+z*7.0/6)))))
	return s + 1/x + z/2 + series*z/x
}

// logGammaDraw returns log G for G ~ Gamma(k, 1), exactly: Marsaglia and
// Tsang's (2000) method for k >= 1, and for k < 1 the boost
// G = G_{k+1} U^{1/k}, kept in logs so that tiny shapes do not underflow.
func logGammaDraw(k float64, rng *rand.Rand) float64 {
	boost := 0.0
	if k < 1 {
		boost = math.Log(1-rng.Float64()) / k
		k++
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			x = rng.NormFloat64()
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := 1 - rng.Float64() // (0, 1]
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return math.Log(d*v) + boost
		}
	}
}

// Beta is p(x) ∝ x^η₁ (1 − x)^η₂ on (0, 1): ψ(x) = [log x, log(1 − x)],
// q = 1, α = η₁ + 1 > 0, β = η₂ + 1 > 0; A(η) = log B(α, β),
// E[ψ] = [ψ₀(α) − ψ₀(α+β), ψ₀(β) − ψ₀(α+β)],
// Cov[ψ] = [[ψ₁(α) − ψ₁(α+β), −ψ₁(α+β)], [−ψ₁(α+β), ψ₁(β) − ψ₁(α+β)]].
type Beta struct {
	// Cap is the cap C of the default weight min(min(x, 1 − x)/C, 1)².
	Cap float64
}

// NewBeta returns the beta family with weight cap c in (0, 1/2].
func NewBeta(c float64) (*Beta, error) {
	if !(c > 0 && c <= 0.5) {
		return nil, fmt.Errorf("beta: the weight cap must lie in (0, 0.5], got %v", c)
	}
	return &Beta{Cap: c}, nil
}

func (f *Beta) String() string       { return "beta" }
func (f *Beta) StatDim() int         { return 2 }
func (f *Beta) LogQ(float64) float64 { return 0 }
func (f *Beta) Psi(x float64, o []float64) {
	o[0], o[1] = math.Log(x), math.Log1p(-x)
}

// Score writes ψ' = [1/x, −1/(1 − x)] and ξ = ψ” = [−1/x², −1/(1 − x)²].
func (f *Beta) Score(x float64, g, xi []float64) {
	y := 1 - x
	g[0], g[1] = 1/x, -1/y
	xi[0], xi[1] = -1/(x*x), -1/(y*y)
}
func (f *Beta) Support() (lo, hi float64) { return 0, 1 }

// DefaultWeight is min(min(x, 1 − x)/Cap, 1)², power 2 as for Gamma.
func (f *Beta) DefaultWeight() Weight { return capWeight(0, 1, f.Cap, 2) }

func (f *Beta) params(eta []float64) (a, b float64) {
	return clampBelow(eta[0], -1+MinShape) + 1, clampBelow(eta[1], -1+MinShape) + 1
}

// Sample draws G_α/(G_α + G_β) from two gamma draws, in logs; η clamped.
// A draw is a float64 in [TinyDraw, 1 − 2⁻⁵³]: draws within 2⁻⁵³ of 1 round
// to 1 − 2⁻⁵³, so the sampler's Kolmogorov distance from the beta law is at
// most P(1 − X < 2⁻⁵³) ≈ 2^{−53β}/(β B(α, β)) (below 1e-8 for β >= 1/2,
// 0.013 for β = 0.1) plus P(X < TinyDraw).
func (f *Beta) Sample(eta []float64, rng *rand.Rand) float64 {
	a, b := f.params(eta)
	la, lb := logGammaDraw(a, rng), logGammaDraw(b, rng)
	x := 1 / (1 + math.Exp(lb-la))
	return min(max(x, TinyDraw), 1-0x1p-53)
}
func (f *Beta) Mean(eta []float64) float64 {
	a, b := f.params(eta)
	return a / (a + b)
}
func (f *Beta) LogPartition(eta []float64) (float64, error) {
	a, ok := f.Cumulants(eta, make([]float64, 2), make([]float64, 4))
	if !ok {
		return 0, fmt.Errorf("beta at η = %v (η > −1 needed): %w", eta[:2], ErrNotNormalisable)
	}
	return a, nil
}
func (f *Beta) Cumulants(eta, grad, hess []float64) (float64, bool) {
	a, b := eta[0]+1, eta[1]+1
	if !(a > 0 && b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return 0, false
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	dab, tab := mathext.Digamma(a+b), trigamma(a+b)
	grad[0], grad[1] = mathext.Digamma(a)-dab, mathext.Digamma(b)-dab
	hess[0], hess[1], hess[2], hess[3] = trigamma(a)-tab, -tab, -tab, trigamma(b)-tab
	return la + lb - lab, true
}

// TruncGauss is the Gaussian coordinate q(x) = exp(−x²/(2σ²)),
// ψ(x) = x/σ² restricted to [Lo, Hi]: N(η, σ²) truncated, for every real η.
// With a = (Lo − η)/σ, b = (Hi − η)/σ and m = Φ(b) − Φ(a),
// A(η) = η²/(2σ²) + log(σ√(2π) m); E[x] = η + σ E[Z], Var[x] = σ² Var[Z]
// for Z a standard normal truncated to [a, b], evaluated without
// cancellation in either tail (through the Mills ratio, see normal.go).
type TruncGauss struct {
	Sigma, Lo, Hi float64
}

// NewTruncGauss returns N(η, σ²) truncated to [lo, hi], lo < hi finite.
func NewTruncGauss(sigma, lo, hi float64) (*TruncGauss, error) {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("truncated-gaussian: sigma must be a finite number > 0, got %v", sigma)
	}
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil, fmt.Errorf("truncated-gaussian: the support [%v, %v] must be a finite non-empty interval", lo, hi)
	}
	return &TruncGauss{Sigma: sigma, Lo: lo, Hi: hi}, nil
}

func (f *TruncGauss) String() string {
	return fmt.Sprintf("truncated-gaussian(sigma=%g, [%g, %g])", f.Sigma, f.Lo, f.Hi)
}
func (f *TruncGauss) StatDim() int               { return 1 }
func (f *TruncGauss) LogQ(x float64) float64     { return -x * x / (2 * f.Sigma * f.Sigma) }
func (f *TruncGauss) Psi(x float64, o []float64) { o[0] = x / (f.Sigma * f.Sigma) }
func (f *TruncGauss) Score(x float64, g, xi []float64) {
	s2 := f.Sigma * f.Sigma
	g[0], xi[0] = 1/s2, -x/(s2*s2)
}
func (f *TruncGauss) Support() (lo, hi float64) { return f.Lo, f.Hi }

// DefaultWeight is min(d/σ, 1), d the distance to the nearer end (Liu,
// Kanamori & Williams's choice; ψ' is constant, so power 1).
func (f *TruncGauss) DefaultWeight() Weight { return capWeight(f.Lo, f.Hi, f.Sigma, 1) }

// std returns the standardised ends a, b for η, mirrored (a, b) → (−b, −a)
// so that a >= 0 unless the interval straddles the mean; flip reports the
// mirror.
func (f *TruncGauss) std(eta float64) (a, b float64, flip bool) {
	a, b = (f.Lo-eta)/f.Sigma, (f.Hi-eta)/f.Sigma
	if b <= 0 {
		return -b, -a, true
	}
	return a, b, false
}

// stdMoments returns log m, E[Z] and Var[Z] of the standard normal
// truncated to [a, b] (a < b, b > 0). For a >= 0 it is the excess Y = Z − a
// over the one-sided truncations at a and b: with r = P(Z ≥ b)/P(Z ≥ a),
// E[Y] = (t_a − r(b − a + t_b))/(1 − r) and likewise the second moment,
// which stays accurate however far in the tail a lies.
func stdMoments(a, b float64) (logm, mean, variance float64) {
	if a < 0 {
		// The interval holds 0: m = (erf(b/√2) + erf(−a/√2))/2, a sum of
		// positives, and φ(a), φ(b) are at most φ(0).
		m := 0.5 * (math.Erf(b/math.Sqrt2) + math.Erf(-a/math.Sqrt2))
		pa, pb := normPDF(a), normPDF(b)
		mean = (pa - pb) / m
		var apa, bpb float64
		if pa > 0 {
			apa = a * pa
		}
		if pb > 0 && !math.IsInf(b, 1) {
			bpb = b * pb
		}
		return math.Log(m), mean, 1 + (apa-bpb)/m - mean*mean
	}
	var ma, mb mills
	ma.set(a)
	ta, va := ma.moments()
	la := ma.logR() - 0.5*a*a - 0.5*math.Log(2*math.Pi) // log P(Z ≥ a)
	r, tb, vb := 0.0, 0.0, 0.0
	if !math.IsInf(b, 1) {
		mb.set(b)
		tb, vb = mb.moments()
		lb := mb.logR() - 0.5*b*b - 0.5*math.Log(2*math.Pi)
		r = math.Exp(lb - la)
	}
	w := b - a
	ey := (ta - r*(w+tb)) / (1 - r)
	ey2 := (va + ta*ta - r*(vb+(w+tb)*(w+tb))) / (1 - r)
	return la + math.Log1p(-r), a + ey, max(ey2-ey*ey, 0)
}

func normPDF(x float64) float64 { return math.Exp(-0.5*x*x) / math.Sqrt(2*math.Pi) }

// Sample draws from the truncated normal (η as finiteEta maps it) exactly by rejection: from
// N(0, 1) when [a, b] holds 0 and is at least 1 wide (acceptance >= 0.34),
// uniformly on [a, b] with acceptance exp((a² − z²)/2) (>= e⁻¹) when the
// interval is narrow, and from the one-sided tail sampler (truncExcess)
// rejecting beyond b otherwise (acceptance >= 1 − e⁻¹).
func (f *TruncGauss) Sample(eta []float64, rng *rand.Rand) float64 {
	e := f.finiteEta(eta[0])
	a, b, flip := f.std(e)
	var z float64
	switch {
	case a < 0 && b-a >= 1:
		for {
			if z = rng.NormFloat64(); z >= a && z <= b {
				break
			}
		}
	case a < 0:
		for {
			z = a + (b-a)*rng.Float64()
			if rng.Float64() <= math.Exp(-0.5*z*z) {
				break
			}
		}
	case (b-a)*(b+a) <= 2:
		for {
			y := (b - a) * rng.Float64()
			z = a + y
			if rng.Float64() <= math.Exp(-0.5*y*(z+a)) {
				break
			}
		}
	default:
		for {
			if y := truncExcess(a, rng); y <= b-a {
				z = a + y
				break
			}
		}
	}
	if flip {
		z = -z
	}
	return min(max(e+f.Sigma*z, f.Lo), f.Hi)
}

// finiteEta maps a NaN η to the midpoint of the support and clamps η to
// within 1e6 σ of it: every real η is valid, but the standardised ends
// must stay finite (beyond, the distribution is a point mass at an end to
// double precision).
func (f *TruncGauss) finiteEta(e float64) float64 {
	mid := 0.5 * (f.Lo + f.Hi)
	if math.IsNaN(e) {
		return mid
	}
	r := 1e6 * f.Sigma
	return min(max(e, mid-r), mid+r)
}

// Mean returns E[x | η] = η + σ E[Z] (η as in Sample).
func (f *TruncGauss) Mean(eta []float64) float64 {
	e := f.finiteEta(eta[0])
	a, b, flip := f.std(e)
	_, m, _ := stdMoments(a, b)
	if flip {
		m = -m
	}
	return min(max(e+f.Sigma*m, f.Lo), f.Hi)
}

func (f *TruncGauss) LogPartition(eta []float64) (float64, error) {
	a, ok := f.Cumulants(eta, make([]float64, 1), make([]float64, 1))
	if !ok {
		return 0, fmt.Errorf("%v at η = %v: %w", f, eta[0], ErrNotNormalisable)
	}
	return a, nil
}

// Cumulants: A(η) as above, E[ψ] = E[x]/σ², Var[ψ] = Var[x]/σ⁴.
func (f *TruncGauss) Cumulants(eta, grad, hess []float64) (float64, bool) {
	e := eta[0]
	if math.IsNaN(e) || math.IsInf(e, 0) {
		return 0, false
	}
	a, b, flip := f.std(e)
	lm, m, v := stdMoments(a, b)
	if flip {
		m = -m
	}
	s, s2 := f.Sigma, f.Sigma*f.Sigma
	grad[0] = (e + s*m) / s2
	hess[0] = v / s2
	z := e*e/(2*s2) + math.Log(s*math.Sqrt(2*math.Pi)) + lm
	if math.IsNaN(z) || math.IsInf(z, 0) {
		return 0, false
	}
	return z, true
}
