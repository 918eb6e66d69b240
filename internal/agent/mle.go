package agent

import (
	"fmt"
	"github.com/smrl-dev/smrl/internal/config"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/mcmc"
)

// mleEstimator is maximum likelihood in a product family: the mle agents
// and smrl estimate's mle.
var mleEstimator = Estimator{Name: "mle", Default: true,
	Looks: map[string]config.Look{
		"":    {Color: [3]uint8{0, 158, 115}, Marker: "triangle", Rank: 8},
		"ucb": {Color: [3]uint8{80, 80, 210}, Marker: "pyramid", Dashes: dashUCB, Rank: 9},
		"ps":  {Color: [3]uint8{100, 60, 20}, Marker: "plus", Dashes: dashPS, Rank: 10}},
	Doc: "maximum likelihood in the family (Newton on the convex log-likelihood)",
	// A factorised (m·d_phi)² Hessian per coordinate plus the working
	// Hessian and its factor.
	Floats: func(nblocks, m, dphi int, _ bool) float64 {
		b := float64(m) * float64(dphi)
		return (float64(nblocks) + 3) * b * b
	},
	New: newMLEFitter,
	Theory: func(dist expfam.Distribution, _ []float64) *estimator.Constants {
		sigmas, gaussian := gaussianScales(dist)
		if !gaussian {
			return nil
		}
		c := estimator.GaussianLS(sigmas[0])
		return &c
	}}

// newMLEFitter: the MLE keeps every transition itself and its Newton
// starts at the current W; its default standard errors are the inverse
// observed information.
func newMLEFitter(s Setup) (*Fitter, error) {
	dist := s.Spec.Family
	b, ok := dist.(expfam.Blocked)
	if j, joint := dist.(expfam.Joint); !ok && joint {
		return newMCMCMLEFitter(s, j)
	}
	if !ok {
		if s.Agent {
			return nil, fmt.Errorf("agent mle: the family %v is not a product family, so its likelihood does not decouple", dist)
		}
		return nil, fmt.Errorf("mle: the family %v is not a product family", dist)
	}
	e := estimator.NewMLE(b, s.Dphi)
	return &Fitter{Dist: dist, Add: e.Add, N: e.N, KeepsData: true, Information: true,
		Fit: e.Fit,
		CrossValidate: func(_ int, _ estimator.Data, folds int, grid []float64, start []float64) (*estimator.CV, error) {
			return e.CrossValidate(folds, grid, start)
		},
		Sandwich: func(f *estimator.Fit, _ int, _ estimator.Data, opt estimator.SEOptions) ([]float64, error) {
			return e.Sandwich(f, opt)
		}}, nil
}

// samplerFamily is a joint family that carries its chains' settings (the
// config's sampler section).
type samplerFamily interface {
	SamplerSettings() mcmc.Settings
}

// newMCMCMLEFitter: a joint family (not a product, so Z does not factor)
// is fitted by stochastic approximation with persistent chains
// (estimator.MCMCMLE), with the family's sampler settings when it has
// them and the defaults otherwise. Its chains' streams are fixed (seed 0,
// one per transition), so the fit is a function of the data; its
// standard errors are the inverse observed information (each transition's
// Cov[psi] from its chain) or the sandwich; it has no cross-validation
// (held-out likelihood would need a log Z per transition).
func newMCMCMLEFitter(s Setup, j expfam.Joint) (*Fitter, error) {
	opt := estimator.MCMCOptions{}
	if sf, ok := j.(samplerFamily); ok {
		opt.Sampler = sf.SamplerSettings()
	}
	e, err := estimator.NewMCMCMLE(j, s.Dphi, opt)
	if err != nil {
		return nil, fmt.Errorf("mle: the family %v: %w", j, err)
	}
	return &Fitter{Dist: s.Spec.Family, Add: e.Add, N: e.N, KeepsData: true, Information: true,
		Fit: e.Fit,
		CrossValidate: func(int, estimator.Data, int, []float64, []float64) (*estimator.CV, error) {
			return nil, fmt.Errorf("mle: cross-validation of λ is not available for the joint family %v (fitted by MCMC): give mle a fixed lambda: %w", j, errs.ErrInvalidInput)
		},
		Sandwich: func(f *estimator.Fit, _ int, _ estimator.Data, opt estimator.SEOptions) ([]float64, error) {
			return e.Sandwich(f, opt)
		}}, nil
}
