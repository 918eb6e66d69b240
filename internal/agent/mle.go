package agent

import (
	"fmt"
	"github.com/smrl-dev/smrl/internal/config"

	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
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
