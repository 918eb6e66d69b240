package expfam

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ReLU is a one-dimensional family with a Gaussian base measure and a
// statistic with a kink at 0, the "custom_for_exp_relu" (Stats = 2) and
// "custom_for_mog_relu" (Stats = 3) families of the authors' CartPole code:
//
//	q(x) = exp(−x²/(2s²)),  ψ(x) = [x, relu(x)]            (Stats 2)
//	                         ψ(x) = [x, relu(x), relu(−x)]  (Stats 3)
//
// With η = W phi the log-density is −x²/(2s²) + c₊ x on x ≥ 0 and
// −x²/(2s²) + c₋ x on x < 0, c₊ = η₁ + η₂ and c₋ = η₁ (Stats 2) or
// η₁ − η₃ (Stats 3): two Gaussian pieces glued continuously at 0. Each piece
// is a normal truncated to a half-line, so Z, the moments, the mean and the
// sampler are closed forms in the Mills ratio R (see normal.go): with
// α₊ = −s c₊ and α₋ = s c₋ the piece masses are s R(α₊) and s R(α₋),
// log Z = log s + log(R(α₊) + R(α₋)).
//
// In the Stats-3 family ψ is linearly dependent (x = relu(x) − relu(−x)), so
// W is identified only up to the direction (1, −1, 1) in each coordinate's
// rows; the ridge λ of the estimators picks the minimum-norm solution.
//
// ψ' jumps at the kink 0 by J = [0, 1] (Stats 2) or [0, 1, 1] (Stats 3), so
// ψ” contains J·δ(x): plain score matching needs the term E[p(0 | s, a) phi],
// which package estimator can estimate with a kernel (see Kinked); the
// default weight (DefaultWeight) vanishes at 0 instead and removes it.
type ReLU struct {
	S     float64 // scale of the Gaussian base measure
	Stats int     // 2 or 3
}

// NewReLU returns the ReLU family with base scale s and 2 or 3 statistics.
func NewReLU(s float64, stats int) (*ReLU, error) {
	if !(s > 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("relu family: base scale must be a finite number > 0, got %v", s)
	}
	if stats != 2 && stats != 3 {
		return nil, fmt.Errorf("relu family: 2 or 3 statistics, got %d", stats)
	}
	return &ReLU{S: s, Stats: stats}, nil
}

func (f *ReLU) String() string {
	if f.Stats == 2 {
		return fmt.Sprintf("relu(s=%g)", f.S)
	}
	return fmt.Sprintf("relu-mog(s=%g)", f.S)
}

// StatDim is the number of statistics, 2 or 3.
func (f *ReLU) StatDim() int { return f.Stats }

// LogQ is −x²/(2s²).
func (f *ReLU) LogQ(x float64) float64 { return -x * x / (2 * f.S * f.S) }

// Psi writes ψ(x).
func (f *ReLU) Psi(x float64, out []float64) {
	out[0] = x
	out[1] = max(x, 0)
	if f.Stats == 3 {
		out[2] = max(-x, 0)
	}
}

// Score writes g = ψ'(x) and xi = (log q)'(x) ψ'(x), the smooth part of
// ξ = (log q)' ψ' + ψ” (the δ at the kink is in Kinks). At the kink itself
// ψ' takes the mean of its one-sided values.
func (f *ReLU) Score(x float64, g, xi []float64) {
	g[0] = 1
	switch {
	case x > 0:
		g[1] = 1
	case x < 0:
		g[1] = 0
	default:
		g[1] = 0.5
	}
	if f.Stats == 3 {
		switch {
		case x < 0:
			g[2] = -1
		case x > 0:
			g[2] = 0
		default:
			g[2] = -0.5
		}
	}
	dlq := -x / (f.S * f.S)
	for k := range f.Stats {
		xi[k] = dlq * g[k]
	}
}

// Kinks reports the kink of ψ at 0 and the jump of ψ' there.
func (f *ReLU) Kinks() (at []float64, jump [][]float64) {
	if f.Stats == 2 {
		return []float64{0}, [][]float64{{0, 1}}
	}
	return []float64{0}, [][]float64{{0, 1, 1}}
}

// ReLUWeightCap is the cap C of the ReLU families' default score-matching
// weight h(x) = min(|x|/(C s), 1), in units of the base scale s: h vanishes
// at the kink, so the δ of ψ” drops out of the objective and score matching
// is consistent without a kernel (see package estimator and
// TestReLUWeightCapChoice, which measures the choice).
const ReLUWeightCap = 1.0

// DefaultWeight is min(|x|/(ReLUWeightCap·s), 1), vanishing at the kink 0.
func (f *ReLU) DefaultWeight() Weight {
	return &DistWeight{Points: []float64{0}, Lo: math.Inf(-1), Hi: math.Inf(1), C: ReLUWeightCap * f.S, P: 1}
}

// alphas returns the truncation points α₊, α₋ of the two pieces, in units
// of s.
func (f *ReLU) alphas(eta []float64) (aPlus, aMinus float64) {
	cPlus, cMinus := eta[0]+eta[1], eta[0]
	if f.Stats == 3 {
		cMinus = eta[0] - eta[2]
	}
	return -f.S * cPlus, f.S * cMinus
}

// pieces evaluates the Mills ratios at the truncation points α₊, α₋ of the
// two pieces (in units of s) into mp and mm, each once for everything
// derived from it.
func (f *ReLU) pieces(eta []float64, mp, mm *mills) {
	aPlus, aMinus := f.alphas(eta)
	mp.set(aPlus)
	mm.set(aMinus)
}

// plusProbAt returns the probability of the piece x ≥ 0, R(α₊)/(R(α₊) + R(α₋)),
// from the Mills ratios directly where they are finite.
func plusProbAt(mPlus, mMinus *mills) float64 {
	if mPlus.a >= millsDirectMin && mMinus.a >= millsDirectMin {
		rp := mPlus.ratio()
		return rp / (rp + mMinus.ratio())
	}
	return plusProb(mPlus.logR(), mMinus.logR())
}

// checkEta fails for a non-finite η.
func (f *ReLU) checkEta(eta []float64) error {
	for _, e := range eta[:f.Stats] {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return fmt.Errorf("%v at η = %v: %w", f, eta[:f.Stats], ErrNotNormalisable)
		}
	}
	return nil
}

// logZ returns log Z = log s + log(R(α₊) + R(α₋)) from the log masses of
// the pieces, or fails where it overflows.
func (f *ReLU) logZ(eta []float64, lPlus, lMinus float64) (float64, error) {
	z := math.Log(f.S) + logAddExp(lPlus, lMinus)
	if math.IsNaN(z) || math.IsInf(z, 0) {
		return 0, fmt.Errorf("%v at η = %v: log Z overflows: %w", f, eta[:f.Stats], ErrNotNormalisable)
	}
	return z, nil
}

// LogPartition returns log Z(η) = log s + log(R(α₊) + R(α₋)); it fails
// only for a non-finite η (the family is normalisable for every finite η)
// and where log Z itself overflows (|α| beyond about 1e154).
func (f *ReLU) LogPartition(eta []float64) (float64, error) {
	if err := f.checkEta(eta); err != nil {
		return 0, err
	}
	var mp, mm mills
	f.pieces(eta, &mp, &mm)
	return f.logZ(eta, mp.logR(), mm.logR())
}

// plusProb is the probability of the piece x ≥ 0.
func plusProb(lPlus, lMinus float64) float64 { return 1 / (1 + math.Exp(lMinus-lPlus)) }

// Sample draws x ~ P(· | η) exactly: the piece by its probability, then the
// truncated normal of that piece (truncExcess).
func (f *ReLU) Sample(eta []float64, rng *rand.Rand) float64 {
	var mp, mm mills
	f.pieces(eta, &mp, &mm)
	if rng.Float64() < plusProbAt(&mp, &mm) {
		return f.S * truncExcess(mp.a, rng)
	}
	return -f.S * truncExcess(mm.a, rng)
}

// Mean returns E[x | η] = p₊ s t(α₊) − p₋ s t(α₋).
func (f *ReLU) Mean(eta []float64) float64 {
	var mp, mm mills
	f.pieces(eta, &mp, &mm)
	p := plusProbAt(&mp, &mm)
	tp, _ := mp.moments()
	tm, _ := mm.moments()
	return f.S * (p*tp - (1-p)*tm)
}

// Cumulants returns A(η) = log Z(η), its gradient E[ψ] (len Stats) and its
// Hessian Cov[ψ] (Stats×Stats, row-major). On the piece x ≥ 0, ψ = y e₊
// with y = x and e₊ = [1, 1, 0]; on x < 0, ψ = y e₋ with y = −x and
// e₋ = [−1, 0, 1]; so by the law of total variance
//
//	Cov[ψ] = Σ_j p_j Var_j[y] e_j e_jᵀ + p₊ p₋ (m₊ − m₋)(m₊ − m₋)ᵀ,  m_j = E_j[y] e_j,
//
// which has no cancellation even in far tails.
func (f *ReLU) Cumulants(eta, grad, hess []float64) (a float64, ok bool) {
	if f.checkEta(eta) != nil {
		return 0, false
	}
	var mp, mm mills
	f.pieces(eta, &mp, &mm)
	lp, lm := mp.logR(), mm.logR()
	z, err := f.logZ(eta, lp, lm)
	if err != nil {
		return 0, false
	}
	p := plusProb(lp, lm)
	q := 1 - p
	tp, vp := mp.moments()
	tm, vm := mm.moments()
	s := f.S
	ePlus, eMinus := [3]float64{1, 1, 0}, [3]float64{-1, 0, 1}
	n := f.Stats
	var d [3]float64
	for k := range n {
		mp, mm := s*tp*ePlus[k], s*tm*eMinus[k]
		grad[k] = p*mp + q*mm
		d[k] = mp - mm
	}
	for k := range n {
		for l := range n {
			hess[k*n+l] = s*s*(p*vp*ePlus[k]*ePlus[l]+q*vm*eMinus[k]*eMinus[l]) + p*q*d[k]*d[l]
		}
	}
	return z, true
}
