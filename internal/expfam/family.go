package expfam

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Family is an exponential family on R^{d_s} with statistic psi ∈ R^{d_psi}:
// everything score matching needs, which is everything but the normaliser.
type Family interface {
	String() string
	// StateDim is d_s.
	StateDim() int
	// StatDim is d_psi.
	StatDim() int
	// Psi writes psi(x) into out (len d_psi).
	Psi(x, out []float64)
	// LogBase returns log q(x) up to an additive constant.
	LogBase(x []float64) float64
	// ScoreTerms writes jac[i*d_psi+k] = ∂_i psi_k(x) (len d_s·d_psi) and
	// xi[k] = Σ_i ∂_i log q(x) ∂_i psi_k(x) + ∂_i² psi_k(x) (len d_psi).
	ScoreTerms(x, jac, xi []float64)
}

// Separable is a family whose statistic acts coordinate-wise:
// d_psi = d_s and psi_k depends on x_k only, so the Jacobian is diagonal and
// C(x) = Σ_i ∂_i psi ∂_i psiᵀ = diag(g_k(x)²).
type Separable interface {
	Family
	// ScoreDiag writes g[k] = ∂_k psi_k(x) and xi[k] as in ScoreTerms.
	ScoreDiag(x, g, xi []float64)
	// ConstantC reports whether C(x) = c·I for every x, and c.
	ConstantC() (c float64, ok bool)
}

// Distribution is a separable family that can also normalise and sample:
// given η ∈ R^{d_psi} the coordinates of s' are independent.
type Distribution interface {
	Separable
	// Sample draws s' ~ P(· | η) into out using rng.
	Sample(eta []float64, rng *rand.Rand, out []float64)
	// LogPartition returns Z(η) = log ∫ q(x) exp(<psi(x), η>) dx.
	LogPartition(eta []float64) (float64, error)
	// Cumulants returns, for coordinate k, A(η_k) (its part of Z) and its first
	// two derivatives E[psi_k] and Var[psi_k]; ok is false when the family is
	// not normalisable at η_k.
	Cumulants(k int, etaK float64) (a, da, d2a float64, ok bool)
}

// LogDensity returns log P(x | η) = log q(x) + <psi(x), η> − Z(η) for a
// distribution d, given Z(η) = logZ from d.LogPartition. buf has length d_psi.
func LogDensity(d Distribution, eta, x []float64, logZ float64, buf []float64) float64 {
	d.Psi(x, buf)
	l := d.LogBase(x) - logZ
	for k, e := range eta {
		l += e * buf[k]
	}
	return l
}

// Product is the d-fold product of a scalar family: q(x) = Π q1(x_k),
// psi_k(x) = ψ(x_k). Sampling uses a shared Table.
type Product struct {
	S Scalar
	D int
	T *Table
}

// NewProduct returns the d-fold product of s with a fresh table.
func NewProduct(s Scalar, d int) (*Product, error) {
	if d < 1 {
		return nil, fmt.Errorf("state dimension must be >= 1, got %d", d)
	}
	return &Product{S: s, D: d, T: NewTable(s)}, nil
}

func (p *Product) String() string {
	if p.D == 1 {
		return p.S.String()
	}
	return fmt.Sprintf("%v^%d", p.S, p.D)
}
func (p *Product) StateDim() int { return p.D }
func (p *Product) StatDim() int  { return p.D }
func (p *Product) Psi(x, out []float64) {
	for k, v := range x[:p.D] {
		out[k] = p.S.Psi(v)
	}
}
func (p *Product) LogBase(x []float64) float64 {
	var l float64
	for _, v := range x[:p.D] {
		l += p.S.LogQ(v)
	}
	return l
}
func (p *Product) ScoreTerms(x, jac, xi []float64) {
	for i := range jac[:p.D*p.D] {
		jac[i] = 0
	}
	for k, v := range x[:p.D] {
		g := p.S.DPsi(v)
		jac[k*p.D+k] = g
		xi[k] = p.S.DLogQ(v)*g + p.S.D2Psi(v)
	}
}
func (p *Product) ScoreDiag(x, g, xi []float64) {
	if sc, ok := p.S.(scorer); ok {
		for k, v := range x[:p.D] {
			g[k], xi[k] = sc.Score(v)
		}
		return
	}
	for k, v := range x[:p.D] {
		d := p.S.DPsi(v)
		g[k] = d
		xi[k] = p.S.DLogQ(v)*d + p.S.D2Psi(v)
	}
}
func (p *Product) ConstantC() (float64, bool) { return 0, false }

// Sample draws each coordinate by the tabulated inverse CDF.
func (p *Product) Sample(eta []float64, rng *rand.Rand, out []float64) {
	for k, e := range eta[:p.D] {
		out[k] = p.T.Quantile(e, rng.Float64())
	}
}

// LogPartition integrates each coordinate exactly (no table).
func (p *Product) LogPartition(eta []float64) (float64, error) {
	var z float64
	for _, e := range eta[:p.D] {
		c, err := NewCDF(p.S, e)
		if err != nil {
			return 0, err
		}
		z += c.LogZ
	}
	return z, nil
}

func (p *Product) Cumulants(_ int, etaK float64) (a, da, d2a float64, ok bool) {
	return p.T.Cumulants(etaK)
}

// Gaussian is the nonLDS family: q(x) ∝ exp(−|x|²/(2σ²)), psi(x) = x/σ², so
// that P(· | η) = N(η, σ² I) and Z(η) = |η|²/(2σ²) + (d/2) log(2πσ²).
type Gaussian struct {
	D     int
	Sigma float64
}

// NewGaussian returns the d-dimensional Gaussian family with noise scale sigma.
func NewGaussian(d int, sigma float64) (*Gaussian, error) {
	if d < 1 {
		return nil, fmt.Errorf("state dimension must be >= 1, got %d", d)
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("sigma must be a finite number > 0, got %v", sigma)
	}
	return &Gaussian{D: d, Sigma: sigma}, nil
}

func (g *Gaussian) String() string { return fmt.Sprintf("gaussian(dim=%d, sigma=%g)", g.D, g.Sigma) }
func (g *Gaussian) StateDim() int  { return g.D }
func (g *Gaussian) StatDim() int   { return g.D }
func (g *Gaussian) Psi(x, out []float64) {
	s2 := g.Sigma * g.Sigma
	for k, v := range x[:g.D] {
		out[k] = v / s2
	}
}
func (g *Gaussian) LogBase(x []float64) float64 {
	var l float64
	for _, v := range x[:g.D] {
		l += v * v
	}
	return -l / (2 * g.Sigma * g.Sigma)
}
func (g *Gaussian) ScoreTerms(x, jac, xi []float64) {
	for i := range jac[:g.D*g.D] {
		jac[i] = 0
	}
	s2 := g.Sigma * g.Sigma
	for k, v := range x[:g.D] {
		jac[k*g.D+k] = 1 / s2
		xi[k] = -v / (s2 * s2)
	}
}
func (g *Gaussian) ScoreDiag(x, d, xi []float64) {
	s2 := g.Sigma * g.Sigma
	for k, v := range x[:g.D] {
		d[k] = 1 / s2
		xi[k] = -v / (s2 * s2)
	}
}
func (g *Gaussian) ConstantC() (float64, bool) {
	s2 := g.Sigma * g.Sigma
	return 1 / (s2 * s2), true
}
func (g *Gaussian) Sample(eta []float64, rng *rand.Rand, out []float64) {
	for k, e := range eta[:g.D] {
		out[k] = e + g.Sigma*rng.NormFloat64()
	}
}
func (g *Gaussian) LogPartition(eta []float64) (float64, error) {
	var z float64
	for k := range eta[:g.D] {
		a, _, _, _ := g.Cumulants(k, eta[k])
		z += a
	}
	return z, nil
}
func (g *Gaussian) Cumulants(_ int, etaK float64) (a, da, d2a float64, ok bool) {
	s2 := g.Sigma * g.Sigma
	return etaK*etaK/(2*s2) + 0.5*math.Log(2*math.Pi*s2), etaK / s2, 1 / s2, true
}
