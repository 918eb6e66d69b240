package expfam

import (
	"fmt"
	"math"
)

// CoupledSin is the paper's custom-sin family on a ring of d coordinates
// with a known coupling in its base measure:
//
//	log q(x) = −Σ_i |x_i|^α/α + κ Σ_i cos(x_i − x_{i+1})  (indices mod d),
//	psi(x)   = [sin(freq·x_i)]_i.
//
// For κ ≠ 0 and d ≥ 3 its log-partition Z(η) is a d-dimensional integral
// that does not factor: it is sampled by MCMC (MCMC). Its statistic acts
// coordinate-wise, so it is Separable: ∂_k psi_k = freq cos(freq x_k), and
// score matching keeps one d_phi² block per row of W, while ξ_k carries
// the coupled ∂_k log q.
type CoupledSin struct {
	D                  int
	Alpha, Freq, Kappa float64
}

// NewCoupledSin checks the parameters: d ≥ 1, α ≥ 1 (so that ∇ log q is
// finite), freq ≠ 0, all finite.
func NewCoupledSin(d int, alpha, freq, kappa float64) (*CoupledSin, error) {
	switch {
	case d < 1:
		return nil, fmt.Errorf("dim: must be >= 1, got %d", d)
	case !(alpha >= 1) || math.IsInf(alpha, 0):
		return nil, fmt.Errorf("alpha: must be a finite number >= 1, got %v", alpha)
	case freq == 0 || math.IsNaN(freq) || math.IsInf(freq, 0):
		return nil, fmt.Errorf("freq: must be a finite non-zero number, got %v", freq)
	case math.IsNaN(kappa) || math.IsInf(kappa, 0):
		return nil, fmt.Errorf("coupling: must be finite, got %v", kappa)
	}
	return &CoupledSin{D: d, Alpha: alpha, Freq: freq, Kappa: kappa}, nil
}

func (c *CoupledSin) String() string {
	return fmt.Sprintf("coupled-sin(dim=%d, alpha=%g, freq=%g, coupling=%g)", c.D, c.Alpha, c.Freq, c.Kappa)
}
func (c *CoupledSin) StateDim() int { return c.D }
func (c *CoupledSin) StatDim() int  { return c.D }

func (c *CoupledSin) Psi(x, out []float64) {
	for k, v := range x[:c.D] {
		out[k] = math.Sin(c.Freq * v)
	}
}

// next is the ring's successor of i.
func (c *CoupledSin) next(i int) int {
	if i+1 == c.D {
		return 0
	}
	return i + 1
}

// LogBase is −Σ|x_i|^α/α + κ Σ cos(x_i − x_{i+1}).
func (c *CoupledSin) LogBase(x []float64) float64 {
	var l float64
	for i, v := range x[:c.D] {
		l += -math.Pow(math.Abs(v), c.Alpha)/c.Alpha + c.Kappa*math.Cos(v-x[c.next(i)])
	}
	return l
}

// GradLogBase writes ∂_i log q = −sign(x_i)|x_i|^{α−1} − κ sin(x_i − x_{i+1})
// + κ sin(x_{i−1} − x_i).
func (c *CoupledSin) GradLogBase(x, grad []float64) float64 {
	var l float64
	clear(grad[:c.D])
	for i, v := range x[:c.D] {
		a := math.Abs(v)
		p := math.Pow(a, c.Alpha-1) // |x|^{α−1}; 1 at α = 1 (its kink's mean slope is 0 at x = 0)
		l += -p * a / c.Alpha
		if v > 0 {
			grad[i] -= p
		} else if v < 0 {
			grad[i] += p
		}
		j := c.next(i)
		dx := v - x[j]
		l += c.Kappa * math.Cos(dx)
		s := c.Kappa * math.Sin(dx)
		grad[i] -= s
		grad[j] += s
	}
	return l
}

// PsiJac writes psi and the diagonal Jacobian freq cos(freq x_i).
func (c *CoupledSin) PsiJac(x, psi, jac []float64) {
	clear(jac[:c.D*c.D])
	for k, v := range x[:c.D] {
		s, co := math.Sincos(c.Freq * v)
		psi[k] = s
		jac[k*c.D+k] = c.Freq * co
	}
}

// ScoreDiag writes g_k = freq cos(freq x_k) and ξ_k = ∂_k log q · g_k −
// freq² sin(freq x_k). It allocates nothing but uses xi as scratch for the
// gradient first.
func (c *CoupledSin) ScoreDiag(x, g, xi []float64) {
	c.GradLogBase(x, xi)
	f := c.Freq
	for k, v := range x[:c.D] {
		s, co := math.Sincos(f * v)
		g[k] = f * co
		xi[k] = xi[k]*g[k] - f*f*s
	}
}

// ScoreTerms writes the diagonal Jacobian and ξ (ScoreDiag).
func (c *CoupledSin) ScoreTerms(x, jac, xi []float64) {
	clear(jac[:c.D*c.D])
	g := jac[:c.D] // scratch: the diagonal is written below
	c.ScoreDiag(x, g, xi)
	for k := c.D - 1; k >= 0; k-- {
		v := g[k]
		g[k] = 0
		jac[k*c.D+k] = v
	}
}

// ConstantC: C(x) = diag(freq² cos²(freq x_k)) varies.
func (c *CoupledSin) ConstantC() (float64, bool) { return 0, false }

// TiltedGrad returns log q(x) + <psi(x), η> and writes its gradient
// ∇ log q + J_ψᵀη into grad: the log density, up to Z, that the chains
// sample.
func (c *CoupledSin) TiltedGrad(x, eta, grad []float64) float64 {
	l := c.GradLogBase(x, grad)
	f := c.Freq
	for k, v := range x[:c.D] {
		s, co := math.Sincos(f * v)
		l += eta[k] * s
		grad[k] += eta[k] * f * co
	}
	return l
}
