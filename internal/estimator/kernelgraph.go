package estimator

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// KernelGraphFit is a kernel family bound to data and fitted, in one of
// the two graphs of an expfam.KernelSpec.
//
// Joint: one kernel family on ℝ^d (Coords[0], d-dimensional centres),
// P(s' | s, a) ∝ q(s') exp(<psi(s'), W phi(s, a)>).
//
// Autoregressive: the chain rule P(s' | s, a) = Π_i P_i(s'_i | s, a, s'_<i)
// with each conditional a 1-D kernel family (Coords[i]: its own m centres,
// a subsample of coordinate i of the next states, its own σ and b) on the
// features extended by the earlier coordinates appended raw,
//
//	phi_i(s, a, s'_<i) = [phi(s, a); s'_0; …; s'_(i−1)]   (d_phi + i numbers)
//	P_i(x | s, a, s'_<i) ∝ exp(−x²/(2b_i²) + <psi_i(x), W_i phi_i>),  W_i m×(d_phi+i).
//
// Each conditional is an exponential family in x = s'_i given the inputs
// (s, a, s'_<i), exactly as the joint family is given (s, a), so its
// score matching in x alone (the 1-D KernelSM with d_phi + i features) is
// the usual conditional score matching and consistent for W_i; the
// coordinates' fits are independent problems. η_i is then affine in
// s'_<i, so a conditional's location and shape move with the earlier
// coordinates. Z_i is exact (the 1-D quadrature), a draw is the inverse
// CDF of each conditional in turn, and log P = Σ_i log P_i exactly. For
// d = 1 the two graphs are the same model and the same fit.
type KernelGraphFit struct {
	Graph  string
	D      int // d, of s'
	DPhi   int // d_phi of phi(s, a)
	Coords []*KernelFit
}

// FitKernelSpec binds spec to the transitions (phi n×d_phi, next n×d,
// row-major) and fits it: spec gives the centres' count and seed, the
// bandwidth candidates and the base scale (o's are ignored), o the λ
// candidates, folds, workers and tolerance. The autoregressive graph
// fits coordinate i with seed spec.Seed + i. Errors name the setting
// (centres, bandwidth, base_scale, lambda: ErrKernelSettings) and, for the
// autoregressive graph, the coordinate.
func FitKernelSpec(spec *expfam.KernelSpec, phi, next []float64, dphi int, o KernelOptions) (*KernelGraphFit, error) {
	d := spec.D
	o.Centres, o.Bandwidths, o.BaseScale, o.Seed = spec.M, spec.Bandwidths, spec.BaseScale, spec.Seed
	g := &KernelGraphFit{Graph: spec.Graph, D: d, DPhi: dphi}
	if spec.Graph != expfam.KernelAutoregressive || d == 1 {
		f, err := FitKernel(phi, next, dphi, d, o)
		if err != nil {
			return nil, err
		}
		g.Coords = []*KernelFit{f}
		return g, nil
	}
	n := len(next) / d
	for i := range d {
		pi, xi := autoregressiveInputs(phi, next, dphi, d, i, n)
		oi := o
		oi.Seed = spec.Seed + uint64(i)
		f, err := FitKernel(pi, xi, dphi+i, 1, oi)
		if err != nil {
			return nil, fmt.Errorf("%w (s' coordinate %d of the autoregressive graph)", err, i)
		}
		g.Coords = append(g.Coords, f)
	}
	return g, nil
}

// autoregressiveInputs returns the features [phi_t; next_t[:i]] (n rows of
// d_phi + i) and the targets next_t[i] of coordinate i.
func autoregressiveInputs(phi, next []float64, dphi, d, i, n int) (pi, xi []float64) {
	w := dphi + i
	pi, xi = make([]float64, n*w), make([]float64, n)
	for t := range n {
		copy(pi[t*w:], phi[t*dphi:(t+1)*dphi])
		copy(pi[t*w+dphi:], next[t*d:t*d+i])
		xi[t] = next[t*d+i]
	}
	return pi, xi
}

// inputs returns coordinate c's inputs and targets: (phi, next) itself for
// the joint graph.
func (g *KernelGraphFit) inputs(c int, phi, next []float64) (pi, xi []float64) {
	if len(g.Coords) == 1 {
		return phi, next
	}
	return autoregressiveInputs(phi, next, g.DPhi, g.D, c, len(next)/g.D)
}

// LogLik returns the mean log-likelihood per transition of (phi, next),
// its standard error over the transitions and the standard error an
// importance-sampled log Z adds (the joint graph with d > 1 only; see
// KernelFit.LogLik). The autoregressive log-likelihood of a transition is
// Σ_i log P_i, each exact.
func (g *KernelGraphFit) LogLik(phi, next []float64, draws int, rng *rand.Rand, minESS float64) (mean, se, seZ float64, err error) {
	n := len(next) / g.D
	ll := make([]float64, n)
	var isVar float64
	for c, f := range g.Coords {
		pi, xi := g.inputs(c, phi, next)
		v, err := f.pointLogLik(pi, xi, draws, rng, minESS, ll)
		if err != nil {
			if len(g.Coords) > 1 {
				err = fmt.Errorf("s' coordinate %d: %w", c, err)
			}
			return 0, 0, 0, err
		}
		isVar += v
	}
	var s, s2 float64
	for _, l := range ll {
		s += l
		s2 += l * l
	}
	mean = s / float64(n)
	if n < 2 {
		return mean, 0, math.Sqrt(isVar) / float64(n), nil
	}
	v := (s2 - float64(n)*mean*mean) / float64(n-1)
	return mean, math.Sqrt(max(v, 0) / float64(n)), math.Sqrt(isVar) / float64(n), nil
}

// SMLoss returns the score-matching loss per transition of the fit on
// (phi, next), Σ_t ½ vec(W)ᵀ V_t vec(W) + b_tᵀ vec(W) over n, summed over
// the coordinates of the autoregressive graph (each conditional's own
// objective, as it was fitted).
func (g *KernelGraphFit) SMLoss(phi, next []float64) float64 {
	var l float64
	for c, f := range g.Coords {
		pi, xi := g.inputs(c, phi, next)
		e := NewKernelSM(f.Fam, f.DPhi)
		for t := range len(xi) / f.Fam.D {
			e.Add(pi[t*f.DPhi:(t+1)*f.DPhi], xi[t*f.Fam.D:(t+1)*f.Fam.D])
		}
		l += e.Loss(f.W)
	}
	return l / float64(len(next)/g.D)
}

// Sample draws s' ~ P(· | s, a) into out (len d) given phi = phi(s, a):
// the autoregressive graph (and d = 1) by the inverse CDF of each
// conditional in turn, the joint graph with d > 1 exactly by rejection
// from the base measure (expfam.Kernel.SampleReject, at most maxTries
// proposals).
func (g *KernelGraphFit) Sample(phi []float64, rng *rand.Rand, out []float64) error {
	if len(g.Coords) == 1 && g.D > 1 {
		f := g.Coords[0]
		eta, psi := make([]float64, f.Fam.M), make([]float64, f.Fam.M)
		f.eta(phi, eta)
		return f.Fam.SampleReject(eta, rng, 1_000_000, psi, out)
	}
	in := make([]float64, g.DPhi+g.D)
	copy(in, phi[:g.DPhi])
	for c, f := range g.Coords {
		eta := make([]float64, f.Fam.M)
		f.eta(in[:g.DPhi+c], eta)
		x, err := f.Fam.SampleLine(eta, rng)
		if err != nil {
			return err
		}
		out[c], in[g.DPhi+c] = x, x
	}
	return nil
}

// eta writes η = W p.
func (f *KernelFit) eta(p, eta []float64) { linear(f.W, p[:f.DPhi], eta[:f.Fam.M]) }

// pointLogLik adds log P(next_t | phi_t) of every transition to ll and
// returns the summed variance of the importance-sampled log Z (0 for
// d = 1, exact by quadrature).
func (f *KernelFit) pointLogLik(phi, next []float64, draws int, rng *rand.Rand, minESS float64, ll []float64) (isVar float64, err error) {
	d, m := f.Fam.D, f.Fam.M
	eta, psi := make([]float64, m), make([]float64, m)
	for t := range len(next) / d {
		f.eta(phi[t*f.DPhi:(t+1)*f.DPhi], eta)
		x := next[t*d : (t+1)*d]
		var logZ float64
		if d == 1 {
			if logZ, err = f.Fam.LogPartition(eta); err != nil {
				return 0, fmt.Errorf("transition %d: %w", t, err)
			}
		} else {
			lz, err := f.Fam.LogPartitionIS(eta, draws, rng, minESS)
			if err != nil {
				return 0, fmt.Errorf("transition %d: log Z: %w", t, err)
			}
			logZ, isVar = lz.LogZ, isVar+lz.SE*lz.SE
		}
		f.Fam.Psi(x, psi)
		ll[t] += f.Fam.LogBase(x) + expfam.Dot(psi, eta) - logZ
	}
	return isVar, nil
}

// KernelGraphModel is a KernelGraphFit as plain data (a saved model):
// the graph and each coordinate's KernelModel, centres included.
type KernelGraphModel struct {
	Graph  string        `json:"graph"`
	Coords []KernelModel `json:"coords"`
}

// Model returns g as a KernelGraphModel.
func (g *KernelGraphFit) Model() KernelGraphModel {
	m := KernelGraphModel{Graph: g.Graph}
	for _, f := range g.Coords {
		m.Coords = append(m.Coords, f.Model())
	}
	return m
}

// Fit rebuilds the fit of a KernelGraphModel for states of dimension d
// and features of d_phi, refusing (ErrKernelSettings) a graph or a shape
// that does not fit them: the joint graph one coordinate of dim d and W of
// d_phi columns, the autoregressive d coordinates of dim 1, coordinate i
// with W of d_phi + i columns.
func (m KernelGraphModel) Fit(d, dphi int) (*KernelGraphFit, error) {
	g := &KernelGraphFit{Graph: m.Graph, D: d, DPhi: dphi}
	want := 1
	switch {
	case m.Graph == expfam.KernelAutoregressive && d > 1:
		want = d
	case m.Graph != expfam.KernelJoint && m.Graph != expfam.KernelAutoregressive:
		return nil, fmt.Errorf("graph: %w: %q (known: %s, %s)", ErrKernelSettings, m.Graph, expfam.KernelJoint, expfam.KernelAutoregressive)
	}
	if len(m.Coords) != want {
		return nil, fmt.Errorf("coords: %w: %d for the %s graph of d = %d, want %d", ErrKernelSettings, len(m.Coords), m.Graph, d, want)
	}
	for i, c := range m.Coords {
		f, err := c.Fit()
		if err != nil {
			return nil, fmt.Errorf("coordinate %d: %w", i, err)
		}
		wantD, wantPhi := d, dphi
		if want > 1 {
			wantD, wantPhi = 1, dphi+i
		}
		if f.Fam.D != wantD || f.DPhi != wantPhi {
			return nil, fmt.Errorf("coordinate %d: %w: dim %d and W of %d columns, want %d and %d", i, ErrKernelSettings, f.Fam.D, f.DPhi, wantD, wantPhi)
		}
		g.Coords = append(g.Coords, f)
	}
	return g, nil
}

// ErrKernelDensity: the density of a kernel fit's first coordinate is
// not a 1-D function that can be drawn (the joint graph of d > 1).
var ErrKernelDensity = errors.New("no 1-D density to draw")

// FirstDensity writes to out the fitted density of s'_0 given phi(s, a)
// at each point of xs: for d = 1 the whole conditional P(s' | s, a), for
// the autoregressive graph its first factor P_0(s'_0 | s, a), which is
// the marginal of s'_0 (it conditions on no other coordinate). Both are
// exact: q(x) exp(<psi(x), η>) / Z(η), η = W phi, Z by quadrature. The
// joint graph of d > 1 has no such 1-D density in closed form and is
// refused (ErrKernelDensity).
func (g *KernelGraphFit) FirstDensity(phi, xs, out []float64) error {
	f := g.Coords[0]
	if f.Fam.D != 1 {
		return fmt.Errorf("%w: the joint kernel graph of d = %d models s' as a whole (fit graph: autoregressive to draw P(s'_0 | s, a))", ErrKernelDensity, f.Fam.D)
	}
	m := f.Fam.M
	eta, psi := make([]float64, m), make([]float64, m)
	f.eta(phi[:f.DPhi], eta)
	logZ, err := f.Fam.LogPartition(eta)
	if err != nil {
		return err
	}
	x := []float64{0}
	for i, v := range xs {
		x[0] = v
		f.Fam.Psi(x, psi)
		out[i] = math.Exp(f.Fam.LogBase(x) + expfam.Dot(psi, eta) - logZ)
	}
	return nil
}

// Refit fits g's statistics again to the transitions (phi n×d_phi, next
// n×d, row-major), typically g's data and more: every coordinate keeps
// its family (centres, σ, b) and its λ, and its Ŵ is the score-matching
// solution on the new data by KernelSM, conjugate gradients started at
// g's Ŵ (o.Tol, default 1e-8, and o.Workers as FitKernel's; o's other
// fields are ignored). It is the refit of a learner between two draws of
// the centres (agent: model.family kernel), where the statistics stay
// fixed and the solution moves little.
func (g *KernelGraphFit) Refit(phi, next []float64, o KernelOptions) (*KernelGraphFit, error) {
	if o.Tol == 0 {
		o.Tol = 1e-8
	}
	out := &KernelGraphFit{Graph: g.Graph, D: g.D, DPhi: g.DPhi}
	for c, f := range g.Coords {
		pi, xi := g.inputs(c, phi, next)
		e := NewKernelSM(f.Fam, f.DPhi)
		e.Tol, e.Workers = o.Tol, o.Workers
		for t := range len(xi) / f.Fam.D {
			e.Add(pi[t*f.DPhi:(t+1)*f.DPhi], xi[t*f.Fam.D:(t+1)*f.Fam.D])
		}
		w, err := e.Fit(f.Lambda, f.W)
		if err != nil {
			if len(g.Coords) > 1 {
				err = fmt.Errorf("%w (s' coordinate %d of the autoregressive graph)", err, c)
			}
			return nil, err
		}
		nf := &KernelFit{Fam: f.Fam, W: w, DPhi: f.DPhi, Lambda: f.Lambda}
		nf.Iterations, _ = e.Iterations()
		nf.Warning = degenerateStats(f.Fam, xi)
		out.Coords = append(out.Coords, nf)
	}
	return out, nil
}
