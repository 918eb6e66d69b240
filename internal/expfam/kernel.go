package expfam

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/mcmc"
	"github.com/smrl-dev/smrl/internal/vmath"
)

// Kernel is the Nyström kernel exponential family (the "kernelization" of
// the paper's closing section: Arbel & Gretton 2018's kernel conditional
// exponential family, with the finite basis of Sutherland, Strathmann,
// Arbel & Gretton 2018). For m centres z_1, …, z_m ∈ R^d (rows of Z,
// m×d, row-major), a bandwidth σ and a base scale b:
//
//	psi_k(x) = k_σ(x, z_k) = exp(−|x − z_k|² / (2σ²))      (d_psi = m)
//	log q(x) = −|x|² / (2b²)                                (a Gaussian base measure)
//	P(x | η) ∝ q(x) exp(<psi(x), η>),  η = W phi(s, a) ∈ R^m, W m×d_phi.
//
// The basis is the kernel evaluations at the centres: f(x) = Σ_k η_k
// k_σ(x, z_k) is the Nyström projection of an RKHS function onto span{k(·, z_k)}.
// Since 0 < psi_k ≤ 1 the tilt exp(<psi, η>) lies in [e^{−|η|₁}, e^{|η|₁}]
// and the family is normalisable for every η: its density is within a factor
// e^{2|η|₁} of N(0, b² I).
//
// Derivatives (r = x − z_k, all exact):
//
//	∂_i psi_k(x)   = −(r_i/σ²) psi_k(x)
//	∂_i² psi_k(x)  = (r_i²/σ⁴ − 1/σ²) psi_k(x)
//	∂_i log q(x)   = −x_i / b²
//	ξ_k(x) = Σ_i ∂_i log q ∂_i psi_k + ∂_i² psi_k
//	       = psi_k(x) · ( <x, r>/(b²σ²) + |r|²/σ⁴ − d/σ² ).
//
// So C(x) = Σ_i g_i g_iᵀ (g_i = ∂_i psi ∈ R^m) has rank at most d, and score
// matching's V = Σ_t C_t ⊗ phi_t phi_tᵀ, of size (m·d_phi)², is applied
// without being formed (estimator.KernelSM).
//
// Normalisation: for d = 1 Z(η) is the existing Gauss–Legendre quadrature
// (NewCDF on the scalar log q + <psi, η>, in units of b so the grid adapts
// to any scale) and sampling is its inverse CDF; for d > 1, Z(η) is
// estimated by importance sampling from the base measure itself
// (ImportanceLogZ: the weights e^{<psi, η>} are bounded, so their variance
// is finite) and sampling uses MCMC through the Joint interface.
type Kernel struct {
	D, M  int
	Z     []float64 // centres, M×D row-major
	Sigma float64   // bandwidth σ
	Base  float64   // base scale b
	inv2s float64   // 1/(2σ²)
}

// ErrKernelCentres marks centres the kernel family refuses: none, not
// finite, or two that coincide (their statistics are equal, so V is
// singular along their difference).
var ErrKernelCentres = errors.New("kernel centres refused")

// ErrKernelFamily marks a kernel family's bandwidth, base scale or
// dimension refused.
var ErrKernelFamily = errors.New("kernel family refused")

// NewKernel checks and returns the kernel family on R^d with the given
// centres (m×d row-major), bandwidth sigma and base scale base. It refuses
// (ErrKernelFamily) a bandwidth or base scale that is not a finite number > 0,
// and (ErrKernelCentres) no centres, non-finite ones, or two centres closer
// than 1e-9·σ.
func NewKernel(d int, centres []float64, sigma, base float64) (*Kernel, error) {
	switch {
	case d < 1:
		return nil, fmt.Errorf("dim: %w: must be >= 1, got %d", ErrKernelFamily, d)
	case !(sigma > 0) || math.IsInf(sigma, 0):
		return nil, fmt.Errorf("bandwidth: %w: must be a finite number > 0, got %v", ErrKernelFamily, sigma)
	case !(base > 0) || math.IsInf(base, 0):
		return nil, fmt.Errorf("base_scale: %w: must be a finite number > 0, got %v", ErrKernelFamily, base)
	case len(centres) == 0 || len(centres)%d != 0:
		return nil, fmt.Errorf("centres: %w: %d numbers for centres of dimension %d", ErrKernelCentres, len(centres), d)
	}
	for i, v := range centres {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("centres: %w: centre %d holds %v", ErrKernelCentres, i/d, v)
		}
	}
	m := len(centres) / d
	tol := 1e-9 * sigma
	for k := range m {
		for j := range k {
			var r2 float64
			for i := range d {
				r := centres[k*d+i] - centres[j*d+i]
				r2 += r * r
			}
			if math.Sqrt(r2) <= tol {
				return nil, fmt.Errorf("centres: %w: centres %d and %d coincide (distance %.3g ≤ %.3g·bandwidth): their statistics are equal and score matching's system is singular", ErrKernelCentres, j, k, math.Sqrt(r2), 1e-9)
			}
		}
	}
	return &Kernel{D: d, M: m, Z: append([]float64(nil), centres...), Sigma: sigma, Base: base,
		inv2s: 1 / (2 * sigma * sigma)}, nil
}

func (f *Kernel) String() string {
	return fmt.Sprintf("kernel(dim=%d, centres=%d, bandwidth=%g, base_scale=%g)", f.D, f.M, f.Sigma, f.Base)
}
func (f *Kernel) StateDim() int { return f.D }
func (f *Kernel) StatDim() int  { return f.M }

// Psi writes psi_k(x) = exp(−|x − z_k|²/(2σ²)): the exponents as the
// scalar expression −r²·(1/(2σ²)), then vmath.Exps, so each psi_k is the
// bits of math.Exp of it.
func (f *Kernel) Psi(x, out []float64) {
	out = out[:f.M]
	for k := range out {
		z := f.Z[k*f.D : (k+1)*f.D]
		var r2 float64
		for i, zi := range z {
			r := x[i] - zi
			r2 += r * r
		}
		out[k] = -r2 * f.inv2s
	}
	vmath.Exps(out, out)
}

// LogBase is −|x|²/(2b²).
func (f *Kernel) LogBase(x []float64) float64 {
	var s float64
	for _, v := range x[:f.D] {
		s += v * v
	}
	return -s / (2 * f.Base * f.Base)
}

// GradLogBase writes ∇ log q = −x/b² and returns log q.
func (f *Kernel) GradLogBase(x, grad []float64) float64 {
	b2 := f.Base * f.Base
	for i, v := range x[:f.D] {
		grad[i] = -v / b2
	}
	return f.LogBase(x)
}

// PsiJac writes psi and jac[i*m+k] = ∂_i psi_k = −(x_i − z_ki)/σ² psi_k.
func (f *Kernel) PsiJac(x, psi, jac []float64) {
	f.Psi(x, psi)
	s2 := f.Sigma * f.Sigma
	for k := range f.M {
		for i := range f.D {
			jac[i*f.M+k] = -(x[i] - f.Z[k*f.D+i]) / s2 * psi[k]
		}
	}
}

// ScoreTerms writes jac[i*m+k] = ∂_i psi_k(x) and
// xi[k] = psi_k (<x, r_k>/(b²σ²) + |r_k|²/σ⁴ − d/σ²), r_k = x − z_k.
func (f *Kernel) ScoreTerms(x, jac, xi []float64) {
	s2 := f.Sigma * f.Sigma
	b2 := f.Base * f.Base
	d := float64(f.D)
	for k := range f.M {
		z := f.Z[k*f.D : (k+1)*f.D]
		var r2, xr float64
		for i, zi := range z {
			r := x[i] - zi
			r2 += r * r
			xr += x[i] * r
		}
		p := math.Exp(-r2 * f.inv2s)
		for i, zi := range z {
			jac[i*f.M+k] = -(x[i] - zi) / s2 * p
		}
		xi[k] = p * (xr/(b2*s2) + r2/(s2*s2) - d/s2)
	}
}

// TiltedGrad returns log q(x) + <psi(x), η> and writes its gradient
// −x/b² + J_ψᵀη: the log density, up to Z, that MCMC samples.
func (f *Kernel) TiltedGrad(x, eta, grad []float64) float64 {
	l := f.GradLogBase(x, grad)
	s2 := f.Sigma * f.Sigma
	for k := range f.M {
		z := f.Z[k*f.D : (k+1)*f.D]
		var r2 float64
		for i, zi := range z {
			r := x[i] - zi
			r2 += r * r
		}
		p := eta[k] * math.Exp(-r2*f.inv2s)
		l += p
		for i, zi := range z {
			grad[i] -= (x[i] - zi) / s2 * p
		}
	}
	return l
}

// kernelLine is the 1-D kernel family at a fixed η in units of b (u = x/b)
// as a Scalar with η = 1: LogQ(u) = −u²/2, Psi(u) = Σ_k η_k psi_k(b u), so
// NewCDF's grid (step 0.04, panels ≤ 0.05) is scale free. Its LogZ is
// log Z(η) − log b. buf (len(eta) long, one per line: a kernelLine is not
// for concurrent use) holds the m exponentials of one point, evaluated by
// vmath.Exps: math.Exp's bits, four at a time.
type kernelLine struct {
	f   *Kernel
	eta []float64
	buf []float64
}

func (l kernelLine) String() string         { return l.f.String() }
func (l kernelLine) LogQ(u float64) float64 { return -0.5 * u * u }
func (l kernelLine) DLogQ(u float64) float64 {
	return -u
}
func (l kernelLine) Kink() (float64, bool) { return 0, false }

// psis returns x = b u and writes psi_k(x) = exp(−r_k²/(2σ²)), r_k = x − z_k,
// into l.buf[k] for k < len(l.eta): the exponent computed as the scalar
// expression −r·r·(1/(2σ²)), then vmath.Exps, so each psi_k is the bits of
// math.Exp(−r*r*inv2s).
func (l kernelLine) psis(u float64) (x float64, psi []float64) {
	x = l.f.Base * u
	psi = l.buf[:len(l.eta)]
	for k := range psi {
		r := x - l.f.Z[k]
		psi[k] = -r * r * l.f.inv2s
	}
	vmath.Exps(psi, psi)
	return x, psi
}

// Psi is Σ_k η_k exp(−(b u − z_k)²/(2σ²)), summed in k's order.
func (l kernelLine) Psi(u float64) float64 {
	_, psi := l.psis(u)
	var s float64
	for k, e := range l.eta {
		s += e * psi[k]
	}
	return s
}

// DPsi is d/du: b Σ_k η_k (−r_k/σ²) psi_k.
func (l kernelLine) DPsi(u float64) float64 {
	x, psi := l.psis(u)
	s2 := l.f.Sigma * l.f.Sigma
	var s float64
	for k, e := range l.eta {
		r := x - l.f.Z[k]
		s -= e * r / s2 * psi[k]
	}
	return l.f.Base * s
}

// D2Psi is d²/du²: b² Σ_k η_k (r_k²/σ⁴ − 1/σ²) psi_k.
func (l kernelLine) D2Psi(u float64) float64 {
	x, psi := l.psis(u)
	s2 := l.f.Sigma * l.f.Sigma
	var s float64
	for k, e := range l.eta {
		r := x - l.f.Z[k]
		s += e * (r*r/(s2*s2) - 1/s2) * psi[k]
	}
	return l.f.Base * l.f.Base * s
}

// ErrKernelDim marks a 1-D operation (quadrature, inverse CDF) asked of a
// kernel family on R^d, d > 1.
var ErrKernelDim = errors.New("kernel family: quadrature needs d = 1")

// LineCDF returns the distribution of the 1-D kernel family at η, by
// quadrature in units of b: X = b·U with U ~ the returned CDF, and
// log Z(η) = cdf.LogZ + log b.
func (f *Kernel) LineCDF(eta []float64) (*CDF, error) {
	if f.D != 1 {
		return nil, fmt.Errorf("%w (d = %d)", ErrKernelDim, f.D)
	}
	return NewCDF(kernelLine{f: f, eta: eta, buf: make([]float64, len(eta))}, 1)
}

// LogPartition returns Z(η) = log ∫ q(x) exp(<psi(x), η>) dx exactly (by
// quadrature) for d = 1; for d > 1 use LogPartitionIS.
func (f *Kernel) LogPartition(eta []float64) (float64, error) {
	c, err := f.LineCDF(eta)
	if err != nil {
		return 0, err
	}
	return c.LogZ + math.Log(f.Base), nil
}

// SampleLine draws x ~ P(· | η) for d = 1 by the inverse CDF.
func (f *Kernel) SampleLine(eta []float64, rng *rand.Rand) (float64, error) {
	c, err := f.LineCDF(eta)
	if err != nil {
		return 0, err
	}
	return f.Base * c.Quantile(rng.Float64()), nil
}

// LogPartitionIS estimates Z(η) by defensive importance sampling with n
// draws: the proposal is the mixture r(x) = ½ N(x; 0, b² I) + ½ Σ_k π_k
// N(x; z_k, σ² I), π_k ∝ max(η_k, 0) (only the base when no η_k > 0), so
// that the bumps the tilt raises are visited, and the weight
// q(x) e^{<psi, η>}/r(x) ≤ 2 (2πb²)^{d/2} e^{Σ max(η_k, 0)} is bounded: the
// estimator has finite variance for every η. It returns the estimate with
// its delta-method standard error and Kish effective sample size, and
// mcmc.ErrDegenerate (wrapped, with the estimate) when the ESS is below
// minESS.
func (f *Kernel) LogPartitionIS(eta []float64, n int, rng *rand.Rand, minESS float64) (mcmc.LogZ, error) {
	if n < 2 {
		return mcmc.LogZ{}, fmt.Errorf("%w: %d importance draws", mcmc.ErrSettings, n)
	}
	d := f.D
	cum := make([]float64, f.M) // cumulative π_k
	var tot float64
	for k, e := range eta[:f.M] {
		tot += max(e, 0)
		cum[k] = tot
	}
	b2, s2 := f.Base*f.Base, f.Sigma*f.Sigma
	lnBase := -0.5 * float64(d) * math.Log(2*math.Pi*b2)
	lnBump := -0.5 * float64(d) * math.Log(2*math.Pi*s2)
	x := make([]float64, d)
	psi := make([]float64, f.M)
	logw := make([]float64, n)
	for t := range logw {
		if tot > 0 && rng.Float64() < 0.5 {
			u := rng.Float64() * tot
			k := 0
			for k < f.M-1 && cum[k] <= u {
				k++
			}
			for i := range x {
				x[i] = f.Z[k*d+i] + f.Sigma*rng.NormFloat64()
			}
		} else {
			for i := range x {
				x[i] = f.Base * rng.NormFloat64()
			}
		}
		f.Psi(x, psi)
		lq := f.LogBase(x)
		lp := lq
		for k, e := range eta[:f.M] {
			lp += e * psi[k]
		}
		// log r(x): the base's term is lnBase + lq (lq = −|x|²/(2b²));
		// a bump's is lnBump + log psi_k(x).
		lr := lnBase + lq
		if tot > 0 {
			var mix float64
			for k, e := range eta[:f.M] {
				if e > 0 {
					mix += e / tot * psi[k]
				}
			}
			lr = logAddExp(math.Log(0.5)+lr, math.Log(0.5)+lnBump+math.Log(mix))
		}
		logw[t] = lp - lr
	}
	return mcmc.FromLogWeights(logw, minESS)
}

// ErrRejection is returned by SampleReject when maxTries proposals were
// all rejected: the tilt is too strong for sampling from the base measure.
var ErrRejection = errors.New("kernel family: rejection sampling gave up")

// SampleReject draws x ~ P(· | η) exactly by rejection from the base
// measure N(0, b² I): since 0 < psi_k ≤ 1, e^{<psi(x), η>} ≤ e^{Σ max(η_k, 0)},
// so a proposal is accepted with probability e^{<psi(x), η> − Σ max(η_k, 0)}.
// The acceptance rate is Z(η)/((2πb²)^{d/2} e^{Σ η_k⁺}); it fails with
// ErrRejection after maxTries proposals. psi is scratch of length m.
func (f *Kernel) SampleReject(eta []float64, rng *rand.Rand, maxTries int, psi, out []float64) error {
	var top float64
	for _, e := range eta[:f.M] {
		top += max(e, 0)
	}
	for range maxTries {
		for i := range f.D {
			out[i] = f.Base * rng.NormFloat64()
		}
		f.Psi(out, psi)
		var l float64
		for k, e := range eta[:f.M] {
			l += e * psi[k]
		}
		if math.Log(rng.Float64()) < l-top {
			return nil
		}
	}
	return fmt.Errorf("%w after %d proposals (Σ max(η_k, 0) = %.3g)", ErrRejection, maxTries, top)
}
