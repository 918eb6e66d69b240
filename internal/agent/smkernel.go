package agent

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// The sm agent with model.family: kernel (docs/kernel-families.md, "The
// sm agent with model.family: kernel"): the model class's family is then
// an unbound *expfam.KernelSpec, and the agent binds it to its own
// transitions at its refits with the estimator smrl estimate --data uses
// (estimator.FitKernelSpec: centres a seeded subsample of the distinct
// next states, bandwidth a number or cross-validated from cv.bandwidths,
// base scale a number or the data's standard deviation, the graph), and
// plans with it as an expfam.KernelChain.
//
// Refit (every episode's end, all transitions so far):
//
//   - Draw: at the first refit at which every modelled coordinate (of s',
//     or s' − s with model.target: delta) holds at least m =
//     model.centres distinct values, and again each time the number of
//     transitions has doubled since the last draw (n₁, 2n₁, 4n₁, … as the
//     ksm agent), FitKernelSpec binds the family anew: the centres drawn
//     by the stream of seed spec.Seed + draw·2³² (+ the coordinate, as
//     FitKernelSpec adds it; spec.Seed is the config seed, so the first
//     draw is exactly smrl estimate's on the same transitions), σ and λ
//     chosen when given as cv (cv.bandwidths; λ from cv.grid with lambda:
//     cv, else the top-level lambda).
//   - Between draws: the statistics and λ stay fixed and only Ŵ is
//     solved again on all transitions (KernelGraphFit.Refit: conjugate
//     gradients warm-started at the previous Ŵ).
//   - Before the first draw the model is the base measure alone (W = 0:
//     N(0, b²) per coordinate, so its mean is 0: s' = 0, or s' = s with
//     model.target: delta).
//
// The model's W (d·m×d_phi) holds each coordinate's first d_phi columns
// of W_i; the columns of s'_<i (the autoregressive graph) and the
// statistics live in the chain (expfam.KernelChain), which Mean and Sample
// step coordinate by coordinate by KernelGrid's fixed grid rule. The
// joint graph of d > 1 is refused (config validation; newKernelFitter for
// callers that skip it): its rollouts would need an MCMC chain per step.
type kernelFitter struct {
	spec    *expfam.KernelSpec
	chain   *expfam.KernelChain
	dphi, d int
	lambdas []float64 // λ candidates: the top-level lambda, or cv.grid
	folds   int
	phi     []float64 // every transition's φ (n×d_phi)
	next    []float64 // and its target (n×d)
	fit     *estimator.KernelGraphFit
	drawn   int // transitions at the last draw
	draws   int // draws so far
}

// newKernelFitter returns the sm agent's fitter of the unbound kernel
// family spec (see kernelFitter). lambda is the top-level λ; cv, when
// not nil, its cross-validated candidates.
func newKernelFitter(s Setup, spec *expfam.KernelSpec) (*Fitter, error) {
	if spec.Graph == expfam.KernelJoint && spec.D > 1 {
		return nil, errs.Invalid(fmt.Errorf("model.graph: joint with %d state coordinates: a learner plans with the autoregressive graph (or d = 1) only", spec.D))
	}
	base := make([]float64, spec.D)
	for i := range base {
		base[i] = 1
		if spec.BaseScale > 0 {
			base[i] = spec.BaseScale
		}
	}
	chain, err := expfam.NewKernelChain(spec.M, base)
	if err != nil {
		return nil, fmt.Errorf("model.centres: %w", err)
	}
	f := &kernelFitter{spec: spec, chain: chain, dphi: s.Dphi, d: spec.D, lambdas: []float64{s.Lambda}, folds: 5}
	if s.CV != nil {
		f.lambdas, f.folds = append([]float64(nil), s.CV.Grid...), s.CV.Folds
	}
	return &Fitter{Dist: chain, Add: f.add, N: func() int { return len(f.next) / f.d }, ChoosesLambda: true,
		Fit: func(float64, []float64) (*estimator.Fit, error) { return f.refit() }}, nil
}

func (f *kernelFitter) add(phi, next []float64) {
	f.phi = append(f.phi, phi[:f.dphi]...)
	f.next = append(f.next, next[:f.d]...)
}

// refit binds or refits the family on every transition so far (see
// kernelFitter) and returns the model's W.
func (f *kernelFitter) refit() (*estimator.Fit, error) {
	n := len(f.next) / f.d
	if n == 0 {
		return nil, fmt.Errorf("model.family kernel: no transitions")
	}
	var g *estimator.KernelGraphFit
	var err error
	switch {
	case (f.fit == nil || n >= 2*f.drawn) && distinctAtLeast(f.next, f.d, f.spec.M):
		spec := *f.spec
		spec.Seed += uint64(f.draws) << 32
		g, err = estimator.FitKernelSpec(&spec, f.phi, f.next, f.dphi, estimator.KernelOptions{Lambdas: f.lambdas, Folds: f.folds, Workers: 1})
		if err == nil {
			f.drawn, f.draws = n, f.draws+1
		}
	case f.fit == nil: // too few distinct values to draw the centres: the base measure
		return &estimator.Fit{W: make([]float64, f.d*f.spec.M*f.dphi), DPsi: f.d * f.spec.M, DPhi: f.dphi, Lambda: f.lambdas[0], N: n}, nil
	default:
		g, err = f.fit.Refit(f.phi, f.next, estimator.KernelOptions{Workers: 1})
	}
	if err != nil {
		return nil, kernelSettingError(err)
	}
	if err := f.bind(g); err != nil {
		return nil, err
	}
	f.fit = g
	return f.model(n), nil
}

// bind binds the chain to g: coordinate i's family and the columns of
// s'_<i of its Ŵ_i.
func (f *kernelFitter) bind(g *estimator.KernelGraphFit) error {
	for i, c := range g.Coords {
		a := make([]float64, 0, f.spec.M*i)
		for k := range f.spec.M {
			a = append(a, c.W[k*c.DPhi+f.dphi:(k+1)*c.DPhi]...)
		}
		if err := f.chain.Bind(i, c.Fam, a); err != nil {
			// The grid rule's refusal of the bound scales names base_scale.
			return kernelSettingError(fmt.Errorf("%w (s' coordinate %d)", err, i))
		}
	}
	return nil
}

// model lays out the fit: W's rows i·m … (i+1)·m − 1 are the first d_phi
// columns of Ŵ_i; Lambda is coordinate 0's λ.
func (f *kernelFitter) model(n int) *estimator.Fit {
	out := &estimator.Fit{DPsi: f.d * f.spec.M, DPhi: f.dphi, Lambda: f.fit.Coords[0].Lambda, N: n}
	for _, c := range f.fit.Coords {
		for k := range f.spec.M {
			out.W = append(out.W, c.W[k*c.DPhi:k*c.DPhi+f.dphi]...)
		}
	}
	return out
}

// kernelSettingError names the model key of a refusal of the kernel fit
// (estimator.ErrKernelSettings names it by its last part: centres,
// bandwidth, base_scale; lambda is the top-level key).
// A refusal of the settings is invalid input (exit 2), and so are
// conjugate gradients that do not converge at any λ candidate (a λ too
// small for the data, as smrl estimate reports it); another failure is a
// runtime error.
func kernelSettingError(err error) error {
	if errors.Is(err, estimator.ErrNotConverged) {
		return errs.Invalid(fmt.Errorf("model.family kernel: %w", err))
	}
	if !errors.Is(err, estimator.ErrKernelSettings) && !errors.Is(err, expfam.ErrKernelCentres) && !errors.Is(err, expfam.ErrKernelFamily) {
		return fmt.Errorf("model.family kernel: %w", err)
	}
	for _, k := range []string{"centres", "bandwidth", "base_scale"} {
		if strings.HasPrefix(err.Error(), k+":") {
			return errs.Invalid(fmt.Errorf("model.%w", err))
		}
	}
	return errs.Invalid(fmt.Errorf("model.family kernel: %w", err))
}

// distinctAtLeast reports whether every coordinate of the n×d targets
// holds at least m distinct values (bit for bit, −0 as 0: what
// estimator.SubsampleCentres draws the centres among).
func distinctAtLeast(next []float64, d, m int) bool {
	n := len(next) / d
	if n < m {
		return false
	}
	seen := make(map[uint64]struct{}, m)
	for i := range d {
		clear(seen)
		for t := 0; t < n && len(seen) < m; t++ {
			seen[math.Float64bits(next[t*d+i]+0)] = struct{}{}
		}
		if len(seen) < m {
			return false
		}
	}
	return true
}
