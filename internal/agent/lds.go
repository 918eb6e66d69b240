package agent

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// ldsEstimator is least squares of a linear-Gaussian model: the lds agents
// (whose model is their own Gaussian with noise lds.sigma, on
// model.lds_features when set) and smrl estimate's lds.
var ldsEstimator = Estimator{Name: "lds", Default: true, Uses: []string{"lds", "model.lds_features"}, GaussianModel: true,
	Doc: "least squares of a linear-Gaussian model s' = W phi + N(0, lds.sigma² I)",
	// Least squares keeps one d_phi² block and its factor.
	Floats: func(_, _, dphi int, _ bool) float64 { return 2 * float64(dphi) * float64(dphi) },
	New:    newLDSFitter,
	Family: func(spec env.ModelSpec) (expfam.Distribution, error) { return LDSFamily(spec.LDSSigma) },
	// A nil LDSFeatures is a nil Features: the model class's.
	OwnFeatures: func(spec env.ModelSpec) expfam.Features { return spec.LDSFeatures },
	// The model is Gaussian with σ_k = lds.sigma[k]; the likelihood-scale
	// fits have B_psi/α₁ = 1 in every row, so any σ_k gives β.
	Theory: func(_ expfam.Distribution, ldsSigma []float64) *estimator.Constants {
		c := estimator.GaussianLS(ldsSigma[0])
		return &c
	}}

// newLDSFitter: for an agent the fit's precision is (G + λI)/σ², the
// precision of the agent's own model, which its confidence set blocks;
// smrl estimate fits at σ = 1.
func newLDSFitter(s Setup) (*Fitter, error) {
	dist := s.Spec.Family
	var sigma []float64
	if s.Agent {
		g, err := LDSFamily(s.Spec.LDSSigma)
		if err != nil {
			return nil, fmt.Errorf("lds.sigma: %w", err)
		}
		dist, sigma = g, s.Spec.LDSSigma
	}
	e := estimator.NewLDS(dist.StateDim(), s.Dphi)
	return &Fitter{Dist: dist, Add: e.Add, N: e.N,
		Fit: func(l float64, _ []float64) (*estimator.Fit, error) { return e.FitNoise(l, sigma) },
		CrossValidate: func(n int, data estimator.Data, folds int, grid []float64, _ []float64) (*estimator.CV, error) {
			return estimator.CrossValidateLDS(e, n, data, folds, grid, sigma)
		},
		Sandwich: func(f *estimator.Fit, n int, data estimator.Data, opt estimator.SEOptions) ([]float64, error) {
			if sigma != nil { // the sandwich of least squares needs σ = 1
				g, err := e.Fit(f.Lambda)
				if err != nil {
					return nil, err
				}
				f = g
			}
			return e.Sandwich(f, n, data, opt)
		}}, nil
}
