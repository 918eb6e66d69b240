package expfam

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Coord is a one-dimensional exponential family q(x) exp(<ψ(x), η> − A(η))
// with a statistic ψ ∈ R^m that can be normalised, sampled and differentiated:
// one coordinate of a Coords product. m = 1 for the scalar families, 2 or 3
// for the ReLU families.
type Coord interface {
	String() string
	// StatDim is m, the length of ψ and η.
	StatDim() int
	// LogQ returns log q(x) up to an additive constant.
	LogQ(x float64) float64
	// Psi writes ψ(x) (len m).
	Psi(x float64, out []float64)
	// Score writes g = ψ'(x) and xi = (log q)'(x) ψ'(x) + ψ”(x), the part of
	// ψ” that is a function (a Kinked coordinate's δ terms are separate).
	Score(x float64, g, xi []float64)
	// Sample draws x ~ P(· | η).
	Sample(eta []float64, rng *rand.Rand) float64
	// Mean returns E[x | η].
	Mean(eta []float64) float64
	// LogPartition returns A(η) = log ∫ q(x) exp(<ψ(x), η>) dx.
	LogPartition(eta []float64) (float64, error)
	// Cumulants returns A(η), writes its gradient E[ψ] into grad (len m) and
	// its Hessian Cov[ψ] into hess (m×m, row-major); ok is false when the
	// family is not normalisable at η.
	Cumulants(eta, grad, hess []float64) (a float64, ok bool)
}

// Kinked is a Coord whose statistic has kinks: at each point at[j], ψ'
// jumps by jump[j] (ψ'(at+) − ψ'(at−)), so ψ” contains jump[j]·δ(x − at[j]).
// Score matching's b_n then needs E[p(at | s, a) phi(s, a)] per kink.
type Kinked interface {
	Kinks() (at []float64, jump [][]float64)
}

// GaussCoord is the Gaussian coordinate q(x) = exp(−x²/(2σ²)), ψ(x) = x/σ²:
// P(· | η) = N(η, σ²).
type GaussCoord struct{ Sigma float64 }

// NewGaussCoord returns the Gaussian coordinate with noise scale sigma.
func NewGaussCoord(sigma float64) (*GaussCoord, error) {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("gaussian: sigma must be a finite number > 0, got %v", sigma)
	}
	return &GaussCoord{Sigma: sigma}, nil
}

func (g *GaussCoord) String() string             { return fmt.Sprintf("gaussian(sigma=%g)", g.Sigma) }
func (g *GaussCoord) StatDim() int               { return 1 }
func (g *GaussCoord) LogQ(x float64) float64     { return -x * x / (2 * g.Sigma * g.Sigma) }
func (g *GaussCoord) Psi(x float64, o []float64) { o[0] = x / (g.Sigma * g.Sigma) }
func (g *GaussCoord) Score(x float64, d, xi []float64) {
	s2 := g.Sigma * g.Sigma
	d[0] = 1 / s2
	xi[0] = -x / (s2 * s2)
}
func (g *GaussCoord) Sample(eta []float64, rng *rand.Rand) float64 {
	return eta[0] + g.Sigma*rng.NormFloat64()
}
func (g *GaussCoord) Mean(eta []float64) float64 { return eta[0] }
func (g *GaussCoord) LogPartition(eta []float64) (float64, error) {
	a, _ := g.Cumulants(eta, make([]float64, 1), make([]float64, 1))
	return a, nil
}
func (g *GaussCoord) Cumulants(eta, grad, hess []float64) (float64, bool) {
	s2 := g.Sigma * g.Sigma
	grad[0], hess[0] = eta[0]/s2, 1/s2
	return eta[0]*eta[0]/(2*s2) + 0.5*math.Log(2*math.Pi*s2), true
}

// ScalarCoord is a Scalar family (custom-sin and the like) as a coordinate,
// normalised by quadrature and sampled from its Table.
type ScalarCoord struct{ T *Table }

// NewScalarCoord returns s as a coordinate with its shared table.
func NewScalarCoord(s Scalar) *ScalarCoord { return &ScalarCoord{T: SharedTable(s)} }

func (c *ScalarCoord) String() string             { return c.T.f.String() }
func (c *ScalarCoord) StatDim() int               { return 1 }
func (c *ScalarCoord) LogQ(x float64) float64     { return c.T.f.LogQ(x) }
func (c *ScalarCoord) Psi(x float64, o []float64) { o[0] = c.T.f.Psi(x) }
func (c *ScalarCoord) Score(x float64, g, xi []float64) {
	g[0], xi[0] = scalarScore(c.T.f, x)
}
func (c *ScalarCoord) Sample(eta []float64, rng *rand.Rand) float64 {
	return c.T.Quantile(eta[0], rng.Float64())
}
func (c *ScalarCoord) Mean(eta []float64) float64 { return c.T.MeanX(eta[0]) }
func (c *ScalarCoord) LogPartition(eta []float64) (float64, error) {
	cdf, err := NewCDF(c.T.f, eta[0])
	if err != nil {
		return 0, err
	}
	return cdf.LogZ, nil
}
func (c *ScalarCoord) Cumulants(eta, grad, hess []float64) (float64, bool) {
	a, da, d2a, ok := c.T.Cumulants(eta[0])
	grad[0], hess[0] = da, d2a
	return a, ok
}

// scalarScore returns ψ'(x) and ξ(x) = (log q)'(x) ψ'(x) + ψ”(x) of s.
func scalarScore(s Scalar, x float64) (dpsi, xi float64) {
	if sc, ok := s.(scorer); ok {
		return sc.Score(x)
	}
	d := s.DPsi(x)
	return d, s.DLogQ(x)*d + s.D2Psi(x)
}

// Coords is the product of one Coord per state coordinate:
// q(x) = Π q_i(x_i), ψ(x) = [ψ_1(x_1), …, ψ_{d_s}(x_{d_s})], so η splits
// into one block per coordinate (block i has length m_i, at offset
// Σ_{j<i} m_j) and the coordinates of s' are independent given η. It is a
// Distribution and Blocked.
type Coords struct {
	C   []Coord
	off []int // off[i] is block i's offset in ψ; off[d_s] = d_psi
}

// NewCoords returns the product of cs.
func NewCoords(cs []Coord) (*Coords, error) {
	if len(cs) == 0 {
		return nil, fmt.Errorf("a product family needs at least one coordinate")
	}
	p := &Coords{C: cs, off: make([]int, len(cs)+1)}
	for i, c := range cs {
		p.off[i+1] = p.off[i] + c.StatDim()
	}
	return p, nil
}

func (p *Coords) String() string {
	names := make([]string, len(p.C))
	for i, c := range p.C {
		names[i] = c.String()
	}
	return "product(" + strings.Join(names, ", ") + ")"
}
func (p *Coords) StateDim() int { return len(p.C) }
func (p *Coords) StatDim() int  { return p.off[len(p.C)] }

// Blocks returns m_i per coordinate.
func (p *Coords) Blocks() []int {
	m := make([]int, len(p.C))
	for i, c := range p.C {
		m[i] = c.StatDim()
	}
	return m
}

func (p *Coords) block(v []float64, i int) []float64 { return v[p.off[i]:p.off[i+1]] }

func (p *Coords) Psi(x, out []float64) {
	for i, c := range p.C {
		c.Psi(x[i], p.block(out, i))
	}
}
func (p *Coords) LogBase(x []float64) float64 {
	var l float64
	for i, c := range p.C {
		l += c.LogQ(x[i])
	}
	return l
}

// ScoreBlock writes g[k] = ∂_i ψ_k(x) and xi[k] for the coordinate i whose
// block holds k: the only non-zero entries of the Jacobian.
func (p *Coords) ScoreBlock(x, g, xi []float64) {
	for i, c := range p.C {
		c.Score(x[i], p.block(g, i), p.block(xi, i))
	}
}

func (p *Coords) ScoreTerms(x, jac, xi []float64) {
	dpsi := p.StatDim()
	clear(jac[:len(p.C)*dpsi])
	for i, c := range p.C {
		c.Score(x[i], jac[i*dpsi+p.off[i]:i*dpsi+p.off[i+1]], p.block(xi, i))
	}
}

func (p *Coords) Sample(eta []float64, rng *rand.Rand, out []float64) {
	for i, c := range p.C {
		out[i] = c.Sample(p.block(eta, i), rng)
	}
}
func (p *Coords) Mean(eta, out []float64) {
	for i, c := range p.C {
		out[i] = c.Mean(p.block(eta, i))
	}
}
func (p *Coords) LogPartition(eta []float64) (float64, error) {
	var z float64
	for i, c := range p.C {
		a, err := c.LogPartition(p.block(eta, i))
		if err != nil {
			return 0, err
		}
		z += a
	}
	return z, nil
}

// BlockCumulants is coordinate i's Cumulants.
func (p *Coords) BlockCumulants(i int, eta, grad, hess []float64) (float64, bool) {
	return p.C[i].Cumulants(eta, grad, hess)
}

// Kinks returns, per coordinate, its kinks (nil for a smooth coordinate).
func (p *Coords) Kinks(i int) (at []float64, jump [][]float64) {
	if k, ok := p.C[i].(Kinked); ok {
		return k.Kinks()
	}
	return nil, nil
}

// Marginal returns the density of coordinate i of s' under P(· | η) for a
// product family (Product, Gaussian, Coords), normalised exactly; it fails
// for other families and where the coordinate is not normalisable.
func Marginal(d Distribution, eta []float64, i int) (func(x float64) float64, error) {
	var c Coord
	var e []float64
	switch f := d.(type) {
	case *Coords:
		c, e = f.C[i], f.block(eta, i)
	case *Product:
		c, e = &ScalarCoord{T: f.T}, eta[i:i+1]
	case *Gaussian:
		c, e = &GaussCoord{Sigma: f.Sigma}, eta[i:i+1]
	default:
		return nil, fmt.Errorf("%v: marginals need a product family", d)
	}
	z, err := c.LogPartition(e)
	if err != nil {
		return nil, err
	}
	e = append([]float64(nil), e...)
	psi := make([]float64, c.StatDim())
	lo, hi := SupportOf(c)
	bounded := !math.IsInf(lo, -1) || !math.IsInf(hi, 1)
	return func(x float64) float64 {
		if bounded && !(x > lo && x < hi) {
			return 0
		}
		c.Psi(x, psi)
		l := c.LogQ(x) - z
		for k, v := range e {
			l += v * psi[k]
		}
		return math.Exp(l)
	}, nil
}
