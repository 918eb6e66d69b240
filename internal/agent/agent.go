package agent

import (
	"fmt"
	"math"

	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// Agent is a learner with a planning model.
type Agent struct {
	Name    string
	Model   *expfam.Model // the planning model; Model.W is the current estimate
	Sim     *expfam.Stepper
	lambda  float64
	add     func(phi, next []float64)
	fit     func() (*estimator.Fit, error)
	phi     []float64
	Last    *estimator.Fit // the latest fit (nil for the oracle and before the first)
	learner bool
}

// Config holds what New needs beyond the true model.
type Config struct {
	Lambda   float64
	LDSSigma float64
}

// New builds the named agent for an MDP with true model truth.
func New(name string, truth *expfam.Model, c Config) (*Agent, error) {
	dist, feat := truth.Dist, truth.Feat
	dphi := feat.Dim()
	a := &Agent{Name: name, lambda: c.Lambda, phi: make([]float64, dphi), learner: true}
	w := make([]float64, dist.StatDim()*dphi)
	switch name {
	case "oracle":
		copy(w, truth.W)
		a.learner = false
	case "sm":
		e := estimator.NewSM(dist, dphi)
		a.add = e.Add
		a.fit = func() (*estimator.Fit, error) { return e.Fit(c.Lambda) }
	case "lds":
		g, err := expfam.NewGaussian(dist.StateDim(), c.LDSSigma)
		if err != nil {
			return nil, fmt.Errorf("lds.sigma: %w", err)
		}
		dist = g
		w = make([]float64, g.StatDim()*dphi)
		e := estimator.NewLDS(g.StateDim(), dphi)
		a.add = e.Add
		a.fit = func() (*estimator.Fit, error) { return e.Fit(c.Lambda) }
	case "mle":
		e := estimator.NewMLE(dist, dphi)
		a.add = e.Add
		a.fit = func() (*estimator.Fit, error) { return e.Fit(c.Lambda, a.Model.W) }
	default:
		return nil, fmt.Errorf("unknown agent %q", name)
	}
	m, err := expfam.NewModel(dist, feat, w)
	if err != nil {
		return nil, err
	}
	a.Model = m
	a.Sim = expfam.NewStepper(m)
	return a, nil
}

// Observe records a transition of the real MDP.
func (a *Agent) Observe(s, act, next []float64) {
	if !a.learner {
		return
	}
	a.Model.Feat.Phi(s, act, a.phi)
	a.add(a.phi, next)
}

// EndEpisode re-estimates W from every transition so far. A failed fit
// (e.g. a singular system with λ = 0) leaves W unchanged and returns the
// error.
func (a *Agent) EndEpisode() error {
	if !a.learner {
		return nil
	}
	f, err := a.fit()
	if err != nil {
		return fmt.Errorf("agent %s: %w", a.Name, err)
	}
	for _, v := range f.W {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("agent %s: estimate has non-finite entries", a.Name)
		}
	}
	copy(a.Model.W, f.W)
	a.Last = f
	return nil
}
