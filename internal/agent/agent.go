package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// Agent is a learner with a planning model.
type Agent struct {
	Name  string
	Model *expfam.Model // the estimate: Model.W is Ŵ, W = 0 before the first fit
	// Sim is what the planner plans with: a stepper of Model for the greedy
	// agents; of this episode's sampled model for -ucb (per-episode choice)
	// and -ps; the whole candidate set (a Candidates) for -ucb with the
	// per-step choice.
	Sim Simulator
	// Beta is β_k, the radius of the confidence set the current episode
	// plans with (set by BeginEpisode); NaN for agents that use none.
	Beta float64
	// Accept is the fraction of the episode's sampled points that fell in
	// the ball |W|_F ≤ max(b_star, |Ŵ|_F) (see BeginEpisode); NaN when the
	// episode drew none.
	Accept  float64
	Last    *estimator.Fit // the latest fit (nil for the oracle; for greedy agents nil before the first)
	lambda  float64
	add     func(phi, next []float64)
	fit     func() (*estimator.Fit, error)
	phi     []float64
	learner bool

	mode     string // "", "ucb" or "ps"
	base     string // "oracle", "sm", "lds" or "mle"
	horizon  int    // H, for value = rollout
	conf     config.Confidence
	theory   estimator.Constants // (B_psi, B_c, α₁) of the theory β (-ucb)
	stepper  *expfam.Stepper     // of Model
	cands    []*expfam.Model     // -ucb: Ŵ and M boundary draws; -ps: the posterior draw
	sims     []Simulator         // steppers of cands
	set      candidateSet        // the per-step candidate set
	z, dir   []float64           // sampler scratch, d = d_psi·d_phi
	rollPCG  *rand.PCG           // value = rollout: the candidates' shared stream
	rollRand *rand.Rand
}

// Config holds what New needs beyond the true model.
type Config struct {
	Lambda     float64
	LDSSigma   float64
	Confidence config.Confidence // for the -ucb and -ps agents
	Horizon    int               // H: the -ucb agents' simulated episodes (confidence.value rollout)
}

// New builds the named agent for an MDP with true model truth. Names are
// oracle, sm, lds, mle, and the estimators' optimistic (-ucb) and
// posterior-sampling (-ps) variants, e.g. sm-ucb, lds-ps.
func New(name string, truth *expfam.Model, c Config) (*Agent, error) {
	base, mode := name, ""
	for _, suf := range []string{"ucb", "ps"} {
		if b, ok := strings.CutSuffix(name, "-"+suf); ok && b != "oracle" {
			base, mode = b, suf
		}
	}
	dist, feat := truth.Dist, truth.Feat
	dphi := feat.Dim()
	lambda := c.Lambda
	if mode == "ucb" && c.Confidence.Lambda == "theorem" {
		lambda = 1 / (c.Confidence.BStar * c.Confidence.BStar) // the regret theorem's λ = 1/B_star²
	}
	a := &Agent{Name: name, lambda: lambda, phi: make([]float64, dphi), learner: true,
		mode: mode, base: base, horizon: c.Horizon, conf: c.Confidence, Beta: math.NaN(), Accept: math.NaN()}
	w := make([]float64, dist.StatDim()*dphi)
	switch base {
	case "oracle":
		copy(w, truth.W)
		a.learner = false
	case "sm":
		e := estimator.NewSM(dist, dphi)
		a.add = e.Add
		a.fit = func() (*estimator.Fit, error) { return e.Fit(lambda) }
	case "lds":
		g, err := expfam.NewGaussian(dist.StateDim(), c.LDSSigma)
		if err != nil {
			return nil, fmt.Errorf("lds.sigma: %w", err)
		}
		dist = g
		w = make([]float64, g.StatDim()*dphi)
		e := estimator.NewLDS(g.StateDim(), dphi)
		sigma := make([]float64, g.StateDim())
		for k := range sigma {
			sigma[k] = c.LDSSigma
		}
		a.add = e.Add
		// Confidence blocks (G + λI)/σ²: the precision of the agent's own model.
		a.fit = func() (*estimator.Fit, error) { return e.FitNoise(lambda, sigma) }
	case "mle":
		e := estimator.NewMLE(dist, dphi)
		a.add = e.Add
		a.fit = func() (*estimator.Fit, error) { return e.Fit(lambda, a.Model.W) }
	default:
		return nil, fmt.Errorf("unknown agent %q", name)
	}
	m, err := expfam.NewModel(dist, feat, w)
	if err != nil {
		return nil, err
	}
	a.Model = m
	a.stepper = expfam.NewStepper(m)
	a.Sim = a.stepper
	if mode != "" {
		if err := a.initConfidence(c.LDSSigma); err != nil {
			return nil, err
		}
	}
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
