package agent

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// ldsEstimator is least squares of a linear-Gaussian model: the lds agents
// (whose model is their own Gaussian with noise lds.sigma, on
// model.lds_features when set) and smrl estimate's lds.
var ldsEstimator = Estimator{Name: "lds", Default: true, Uses: []string{"lds", "model.lds_features"}, GaussianModel: true,
	Keys: []config.KeySet{ldsKeySet}, Spec: ldsSpec,
	Looks: map[string]config.Look{
		"":    {Color: [3]uint8{213, 94, 0}, Marker: "square", Rank: 5},
		"ucb": {Color: [3]uint8{190, 20, 50}, Marker: "box", Dashes: dashUCB, Rank: 6},
		"ps":  {Color: [3]uint8{120, 120, 120}, Marker: "cross", Dashes: dashPS, Rank: 7}},
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

// ldsKeys is the section lds, declared by the lds agents.
type ldsKeys struct {
	Sigma float64 `mapstructure:"sigma" yaml:"sigma" doc:"noise of the LDS agent's model s' = W phi + N(0, sigma² I)"`
}

// ldsKeySet places lds after planner.
var ldsKeySet = config.KeySet{At: "lds", After: "planner", Defaults: &ldsKeys{Sigma: 1},
	Validate: func(c *config.Config, bad config.Bad) {
		if s := LDSSigma(c); !(s > 0 && finite(s)) {
			bad("lds.sigma", "must be a finite number > 0, got %v", s)
		} else {
			config.Between(bad, "lds.sigma", s, 1e-3, 1e3, config.SigmaWhy)
		}
	}}

// LDSSigma is c's lds.sigma.
func LDSSigma(c *config.Config) float64 { return config.Shared[ldsKeys](c, "lds").Sigma }

// ldsSpec sets the lds agents' noise scales lds.sigma·σ_i.
func ldsSpec(c *config.Config, m *env.ModelSpec) {
	m.LDSSigma = make([]float64, len(m.Scales))
	for i, s := range m.Scales {
		m.LDSSigma[i] = LDSSigma(c) * s
	}
}

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
				defer g.Release() // its factor back to e's pool, for the next refit
				f = g
			}
			return e.Sandwich(f, n, data, opt)
		}}, nil
}
