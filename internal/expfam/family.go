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

// Distribution is a family that can also normalise, sample and average:
// everything planning with a model needs.
type Distribution interface {
	Family
	// Sample draws s' ~ P(· | η) into out using rng.
	Sample(eta []float64, rng *rand.Rand, out []float64)
	// LogPartition returns Z(η) = log ∫ q(x) exp(<psi(x), η>) dx.
	LogPartition(eta []float64) (float64, error)
	// Mean writes E[s' | η] into out (len d_s).
	Mean(eta, out []float64)
}

// Blocked is a product family whose coordinates are independent given η,
// with statistic block i (length Blocks()[i], blocks consecutive in psi)
// depending on x_i only. The Jacobian of psi is then block diagonal,
// C(x) = Σ_i ∂_i psi ∂_i psiᵀ is block diagonal with rank-one blocks, and
// Z(η) is the sum of per-block log-partition functions: score matching and
// maximum likelihood decouple into one problem per block.
type Blocked interface {
	Family
	// Blocks returns the block lengths m_i, one per state coordinate.
	Blocks() []int
	// ScoreBlock writes g[k] = ∂_i psi_k(x) for the coordinate i of block
	// k (the non-zero Jacobian entries) and xi[k] as in ScoreTerms.
	ScoreBlock(x, g, xi []float64)
	// BlockCumulants returns A_i(η_i), block i's part of Z, and writes its
	// gradient E[psi_i] (len m_i) and Hessian Cov[psi_i] (m_i×m_i) into grad
	// and hess; ok is false when the family is not normalisable at η_i.
	BlockCumulants(i int, etaI, grad, hess []float64) (a float64, ok bool)
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
// psi_k(x) = ψ(x_k). Sampling uses the family's shared Table.
type Product struct {
	S Scalar
	D int
	T *Table
}

// NewProduct returns the d-fold product of s with the family's shared table.
func NewProduct(s Scalar, d int) (*Product, error) {
	if d < 1 {
		return nil, fmt.Errorf("state dimension must be >= 1, got %d", d)
	}
	return &Product{S: s, D: d, T: SharedTable(s)}, nil
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

// Mean writes E[x_k | η_k] per coordinate, from the table.
func (p *Product) Mean(eta, out []float64) {
	for k, e := range eta[:p.D] {
		out[k] = p.T.MeanX(e)
	}
}

// Blocks is one statistic per coordinate.
func (p *Product) Blocks() []int { return ones(p.D) }

// ScoreBlock is ScoreDiag.
func (p *Product) ScoreBlock(x, g, xi []float64) { p.ScoreDiag(x, g, xi) }

// BlockCumulants returns the tabulated cumulants of coordinate i.
func (p *Product) BlockCumulants(_ int, etaI, grad, hess []float64) (float64, bool) {
	a, da, d2a, ok := p.T.Cumulants(etaI[0])
	grad[0], hess[0] = da, d2a
	return a, ok
}

func ones(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = 1
	}
	return m
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
	var da, d2a [1]float64
	for k := range eta[:g.D] {
		a, _ := g.BlockCumulants(k, eta[k:k+1], da[:], d2a[:])
		z += a
	}
	return z, nil
}

// Mean is η: P(· | η) = N(η, σ² I).
func (g *Gaussian) Mean(eta, out []float64) { copy(out, eta[:g.D]) }

// Blocks is one statistic per coordinate.
func (g *Gaussian) Blocks() []int { return ones(g.D) }

// ScoreBlock is ScoreDiag.
func (g *Gaussian) ScoreBlock(x, d, xi []float64) { g.ScoreDiag(x, d, xi) }

// BlockCumulants returns A(η_i) = η_i²/(2σ²) + log(2πσ²)/2, E[psi_i] = η_i/σ²
// and Var[psi_i] = 1/σ².
func (g *Gaussian) BlockCumulants(_ int, etaI, grad, hess []float64) (float64, bool) {
	s2 := g.Sigma * g.Sigma
	e := etaI[0]
	grad[0], hess[0] = e/s2, 1/s2
	return e*e/(2*s2) + 0.5*math.Log(2*math.Pi*s2), true
}
