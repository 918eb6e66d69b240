package expfam

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/vmath"
)

// KernelGridNodes bounds the nodes of a KernelGrid's rule.
const KernelGridNodes = 160

// KernelGrid is the 1-D kernel family (Kernel with d = 1) as a Coord of a
// learner's product family, whose centres, bandwidth and base scale are
// bound from data at fit time (Bind) while m, and so the shape of W, is
// fixed from the start. A planner's rollouts need E[x | η] and draws of x
// at every simulated step, so both use a fixed rule bound with the family
// instead of Kernel's adaptive quadrature (LineCDF, about a millisecond):
// G ≤ KernelGridNodes equally spaced nodes x_g with step h = min(σ, b)/2
// (coarser when that needs more nodes, but never above σ: Bind refuses a
// family that would need it) on [min(z) − 5σ, max(z) + 5σ] ∪ [−6b, 6b],
// outside which the tilt is
// below e^{−12.5}·|η|₁ and the base's mass below 2·10⁻⁹, and the table
// T_gk = psi_k(x_g) (G×m). With l_g = log q(x_g) + Σ_k T_gk η_k and p_g ∝
// e^{l_g} (trapezoid weights),
//
//	E[x | η] ≈ Σ_g p_g x_g / Σ_g p_g          (≤ G·m multiply-adds, G exps)
//
// and a draw takes a cell of the trapezoid rule by its mass and inverts
// the linear interpolant of the density inside it (so a draw is exact
// only up to that interpolation). The density is smooth on the scale σ =
// 2h (a bump e^{η psi_k} of height η narrows to about σ/√η): the
// trapezoid rule on a uniform grid integrates a Gaussian of width σ with
// an error of order e^{−2π²σ²/h²} = e^{−79}, far below the
// model's own error (TestKernelGridAgainstQuadrature: 1e-3 of σ against
// Kernel's Gauss–Legendre quadrature). LogPartition is the exact
// quadrature (Kernel.LogPartition), for held-out log-likelihoods.
//
// Before the first Bind the family has m centres evenly spread over
// [−2b, 2b] with σ = b (any valid family: W = 0 makes it N(0, b²)).
// Bind changes the family in place: the owner (one agent) rebinds only
// between episodes, never while a rollout runs.
type KernelGrid struct {
	Fam   *Kernel
	m     int
	nodes []float64 // x_g
	logq  []float64 // log q(x_g) + log of the trapezoid weight
	// cols is the table T_gk = psi_k(x_g) by centre (m×G), and band[2k],
	// band[2k+1] the nodes [lo, hi) where psi_k(x_g) ≥ KernelGridCut: the
	// terms weights adds.
	cols []float64
	band []int
}

// KernelGridCut is the smallest kernel value psi_k(x_g) = e^{−(x_g −
// z_k)²/(2σ²)} the grid rule's weights add (|x_g − z_k| ≤ 9.1σ): a term
// left out changes l_g = log q(x_g) + Σ_k psi_k(x_g) η_k by less than
// KernelGridCut·|η_k|. With the step h = σ/2 a centre reaches 37 of the
// ≤ 160 nodes, so the G·m multiply-adds of a mean fall about fourfold.
const KernelGridCut = 0x1p-60

// NewKernelGrid returns the family of m centres before any data, of base
// scale b.
func NewKernelGrid(m int, b float64) (*KernelGrid, error) {
	if m < 1 {
		return nil, fmt.Errorf("centres: %w: must be >= 1, got %d", ErrKernelFamily, m)
	}
	z := make([]float64, m)
	for k := range z {
		if m > 1 {
			z[k] = b * (-2 + 4*float64(k)/float64(m-1))
		}
	}
	g := &KernelGrid{m: m}
	return g, g.Bind(z, b, b)
}

// Bind sets the centres (m of them), bandwidth σ and base scale b, and
// rebuilds the rule; on a refusal (NewKernel's) the family is unchanged.
func (g *KernelGrid) Bind(centres []float64, sigma, base float64) error {
	if len(centres) != g.m {
		return fmt.Errorf("centres: %w: %d centres for a family of %d", ErrKernelCentres, len(centres), g.m)
	}
	f, err := NewKernel(1, centres, sigma, base)
	if err != nil {
		return err
	}
	lo, hi := -6*base, 6*base
	for _, z := range centres {
		lo, hi = min(lo, z-5*sigma), max(hi, z+5*sigma)
	}
	h := min(sigma, base) / 2
	n := int(math.Ceil((hi-lo)/h)) + 1
	if n > KernelGridNodes { // centres spread over more than 80 bandwidths: a coarser step
		n = KernelGridNodes
	}
	h = (hi - lo) / float64(n-1)
	if h > sigma {
		// Coarser than σ the rule no longer resolves the kernels (its
		// error bound e^{−2π²σ²/h²} is e^{−19.7} at h = σ, 7e-3 at 2σ): the
		// learned tilt would vanish between the nodes, in silence.
		return fmt.Errorf("base_scale: %w: the grid rule's %d nodes over [%.4g, %.4g] (the centres ± 5σ and ±6 base scales b = %.4g) are %.3g apart, more than the bandwidth σ = %.4g: a base scale or a spread of the centres over %d bandwidths is more than the rule resolves",
			ErrKernelFamily, n, lo, hi, base, h, sigma, KernelGridNodes)
	}
	g.Fam = f
	g.nodes, g.logq = g.nodes[:0], g.logq[:0]
	g.cols = make([]float64, g.m*n)
	psi := make([]float64, g.m)
	var xs [1]float64
	for i := range n {
		x := lo + float64(i)*h
		w := h
		if i == 0 || i == n-1 {
			w = h / 2
		}
		g.nodes = append(g.nodes, x)
		g.logq = append(g.logq, -x*x/(2*base*base)+math.Log(w))
		xs[0] = x
		f.Psi(xs[:], psi)
		for k, t := range psi {
			g.cols[k*n+i] = t
		}
	}
	g.band = make([]int, 2*g.m)
	for k := range g.m {
		lo, hi := n, 0
		for i := range n {
			if g.cols[k*n+i] >= KernelGridCut {
				lo, hi = min(lo, i), i+1
			}
		}
		if hi == 0 {
			lo = 0
		}
		g.band[2*k], g.band[2*k+1] = lo, hi
	}
	return nil
}

func (g *KernelGrid) String() string { return g.Fam.String() }
func (g *KernelGrid) StatDim() int   { return g.m }

// LogQ is −x²/(2b²).
func (g *KernelGrid) LogQ(x float64) float64 { return -x * x / (2 * g.Fam.Base * g.Fam.Base) }

// Psi writes psi_k(x) = exp(−(x − z_k)²/(2σ²)).
func (g *KernelGrid) Psi(x float64, out []float64) {
	xs := [1]float64{x}
	g.Fam.Psi(xs[:], out)
}

// Score writes ψ'(x) and ξ(x) (Kernel.ScoreTerms with d = 1).
func (g *KernelGrid) Score(x float64, d, xi []float64) {
	xs := [1]float64{x}
	g.Fam.ScoreTerms(xs[:], d, xi)
}

// weights writes p_g = e^{l_g − max l} into p and returns Σ p_g, l_g =
// log q(x_g) + Σ_k T_gk η_k summed over k in order, leaving out the terms
// whose T_gk < KernelGridCut (band): each l_g within KernelGridCut·|η|₁ of
// the full sum (TestKernelGridWeightsBand). Centre by centre over its band
// of nodes (independent sums, no chain of dependent adds), and the exps
// by vmath.Exps (math.Exp's bits): the rollouts' cost per coordinate and
// step (BenchmarkKernelGridMean, BenchmarkKSMDecision).
func (g *KernelGrid) weights(eta []float64, p []float64) float64 {
	return g.weightsGiven(eta, nil, nil, p)
}

// weightsGiven is weights at the natural parameter η_k + Σ_j A_kj x_j,
// A m×len(x) row-major (the autoregressive graph's dependence on the
// earlier coordinates x = s'_<i, KernelChain); with x empty it is weights
// bit for bit (the tilt's sum is then η_k itself).
func (g *KernelGrid) weightsGiven(eta, a, x []float64, p []float64) float64 {
	m, n, nx := g.m, len(g.nodes), len(x)
	eta, p = eta[:m], p[:n]
	copy(p, g.logq)
	for k, e := range eta {
		if nx > 0 {
			for j, v := range a[k*nx : (k+1)*nx] {
				e += v * x[j]
			}
		}
		lo, hi := g.band[2*k], g.band[2*k+1]
		col := g.cols[k*n+lo : k*n+hi]
		q := p[lo:hi]
		q = q[:len(col)]
		for j, t := range col {
			q[j] += t * e
		}
	}
	top := math.Inf(-1)
	for _, l := range p {
		top = max(top, l)
	}
	for i := range p {
		p[i] -= top
	}
	vmath.Exps(p, p)
	var sum float64
	for _, v := range p {
		sum += v
	}
	return sum
}

// Mean returns E[x | η] by the grid rule.
func (g *KernelGrid) Mean(eta []float64) float64 { return g.MeanGiven(eta, nil, nil) }

// MeanGiven returns E[x | η + A x_prev] by the grid rule: the natural
// parameter η_k + Σ_j A_kj x_prev_j, A m×len(x_prev) row-major (see
// weightsGiven), without forming it.
func (g *KernelGrid) MeanGiven(eta, a, xPrev []float64) float64 {
	var p [KernelGridNodes]float64
	s := g.weightsGiven(eta, a, xPrev, p[:])
	var sx float64
	for i, x := range g.nodes {
		sx += p[i] * x
	}
	return sx / s
}

// Sample draws x ~ P(· | η) from the grid rule: a cell [x_g, x_{g+1}] with
// probability ∝ (p_g/w_g + p_{g+1}/w_{g+1})/2 (the density's trapezoid on
// it), then the inverse CDF of the density's linear interpolant in it.
// Two uniforms per draw.
func (g *KernelGrid) Sample(eta []float64, rng *rand.Rand) float64 {
	return g.SampleGiven(eta, nil, nil, rng)
}

// SampleGiven is Sample at the natural parameter η + A x_prev (see
// MeanGiven).
func (g *KernelGrid) SampleGiven(eta, prev, xPrev []float64, rng *rand.Rand) float64 {
	var p [KernelGridNodes]float64
	g.weightsGiven(eta, prev, xPrev, p[:])
	n := len(g.nodes)
	// Undo the trapezoid weights: p_g/w_g ∝ the density at x_g.
	p[0] *= 2
	p[n-1] *= 2
	var tot float64
	for i := range n - 1 {
		tot += p[i] + p[i+1]
	}
	u := rng.Float64() * tot
	i := 0
	for ; i < n-2; i++ {
		c := p[i] + p[i+1]
		if u < c {
			break
		}
		u -= c
	}
	a, b := p[i], p[i+1]
	v := rng.Float64() * (a + b) / 2 // the mass below t of a + (b − a)t on [0, 1] is a t + (b − a)t²/2
	var t float64
	if d := b - a; math.Abs(d) <= 1e-12*(a+b) {
		t = v / ((a + b) / 2)
	} else {
		t = 2 * v / (a + math.Sqrt(a*a+2*d*v)) // the root of (d/2)t² + a t − v in [0, 1], without cancellation
	}
	h := g.nodes[1] - g.nodes[0]
	return g.nodes[i] + min(max(t, 0), 1)*h
}

// LogPartition returns log Z(η) by Kernel's adaptive quadrature (exact).
func (g *KernelGrid) LogPartition(eta []float64) (float64, error) {
	return g.Fam.LogPartition(eta)
}

// Cumulants returns log Z(η) (exact), E[ψ] and Cov[ψ] by the grid rule.
func (g *KernelGrid) Cumulants(eta, grad, hess []float64) (float64, bool) {
	a, err := g.Fam.LogPartition(eta)
	if err != nil {
		return 0, false
	}
	var p [KernelGridNodes]float64
	s := g.weights(eta, p[:])
	m := g.m
	clear(grad[:m])
	clear(hess[:m*m])
	n := len(g.nodes)
	for i := range n {
		w := p[i] / s
		for k := range m {
			t := g.cols[k*n+i]
			grad[k] += w * t
			for j := range m {
				hess[k*m+j] += w * t * g.cols[j*n+i]
			}
		}
	}
	for k := range m {
		for j := range m {
			hess[k*m+j] -= grad[k] * grad[j]
		}
	}
	return a, true
}
