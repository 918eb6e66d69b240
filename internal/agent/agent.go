package agent

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// Agent is a learner with a planning model.
type Agent struct {
	Name string
	// Model is the estimate: Model.W is Ŵ, W = 0 before the first fit; the
	// oracle's is P_W0, or nil when it plans with the true transition.
	Model *expfam.Model
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
	Accept float64
	Last   *estimator.Fit // the latest fit (nil for the oracle; for greedy agents nil before the first)
	// Ctrl, when not nil, chooses the actions instead of a planner (the
	// lqr agent); Sim and Model are then nil.
	Ctrl Controller
	// Random marks the random agent: its actions are RandomAction's, not
	// a planner's; Sim and Model are nil.
	Random bool
	box    *env.Box // the random agent's box of actions, or nil
	lambda float64
	add    func(phi, next []float64)
	fit    func() (*estimator.Fit, error)
	seFn   func(f *estimator.Fit, n int, data estimator.Data) ([]float64, error) // variances of vec(Ŵ), with Config.SaveSE
	// SE holds the standard errors of vec(Ŵ) (row-major like W) after the
	// last EndEpisode when Config.SaveSE is set, else nil.
	SE      []float64
	kept    *transitions // every transition, for a cross-validated λ (sm, lds) or Config.SaveSE; else nil
	cv      *CVConfig    // Config.CV of a learner, else nil
	phi     []float64
	learner bool
	delta   bool      // the model is of s' − s (env.ModelSpec.Delta)
	diff    []float64 // Observe's s' − s

	mode     string     // "", "ucb" or "ps"
	base     string     // the estimator's name, or the name of an agent that fits nothing
	est      *Estimator // nil for an agent that fits nothing
	horizon  int        // H, for value = rollout
	conf     Confidence
	rollout  string
	theory   estimator.Constants // (B_psi, B_c, α₁) of the theory β (-ucb)
	stepper  Simulator           // of Model
	cands    []*expfam.Model     // -ucb: Ŵ and M boundary draws; -ps: the posterior draw
	sims     []Simulator         // steppers of cands
	set      candidateSet        // the per-step candidate set
	z, dir   []float64           // sampler scratch, d = d_psi·d_phi
	rollPCG  *rand.PCG           // value = rollout: the candidates' shared stream
	rollRand *rand.Rand
}

// Config holds what New needs beyond the model class.
type Config struct {
	Lambda     float64
	Confidence Confidence // for the -ucb and -ps agents (ConfidenceOf)
	// Rollout is "sample" (rollouts draw next states from the model) or
	// "mean" (they move to the model's mean next state).
	Rollout string
	Horizon int // H: the -ucb agents' simulated episodes (confidence.value rollout); lqr's horizon
	// Box is the box of continuous actions (the lqr agent clamps to it).
	Box *env.Box
	// CV, when not nil, makes a learning agent (sm, lds, mle and their
	// -ucb and -ps variants) choose λ by cross-validation at every refit
	// (config lambda: cv, cvFit); Lambda is then not used. The oracle and
	// lqr, which fit nothing, ignore it.
	CV *CVConfig
	// SaveSE makes a learning agent keep its transitions and compute the
	// standard errors of vec(Ŵ) at every refit (config stats.save_se): the
	// sandwich for sm and lds (HC0, lds at σ = 1), the inverse observed
	// information for mle, as smrl estimate computes them.
	SaveSE bool
}

// CVConfig is the grid and the number of folds of a cross-validated λ.
type CVConfig struct {
	Grid  []float64
	Folds int
}

// New builds the named agent (a registered AgentKind) for an environment whose
// learners use the model class spec and whose true transition is truth.
// Names are the estimators' (sm, lds, mle, see RegisterEstimator), their
// optimistic (-ucb) and posterior-sampling (-ps) variants, e.g. sm-ucb,
// lds-ps, and the agents that fit nothing: oracle and lqr.
func New(name string, spec env.ModelSpec, truth env.Dynamics, c Config) (*Agent, error) {
	k, ok := Lookup(name)
	switch {
	case !ok:
		return nil, fmt.Errorf("unknown agent %q", name)
	case k.Estimator == nil:
		return k.Build(name, spec, truth, c)
	}
	if _, unbound := spec.Family.(*expfam.KernelSpec); unbound && !k.BindsData {
		// The kernel family bound to data at fit time (model.family:
		// kernel) is bound at the refits of the agents that declare
		// BindsData (sm); config validation refuses the others, this
		// refusal is for callers that skip it.
		return nil, errs.Invalid(fmt.Errorf("model.family: agent %s cannot refit the data-bound kernel family (the greedy sm agent binds it at its refits; docs/kernel-families.md)", name))
	}
	mode := k.Mode
	feat := Features(name, spec)
	dphi := feat.Dim()
	lambda := c.Lambda
	if mode == "ucb" && c.Confidence.Lambda == "theorem" {
		lambda = 1 / (c.Confidence.BStar * c.Confidence.BStar) // the regret theorem's λ = 1/B_star²
	}
	f, err := k.Estimator.New(Setup{Spec: spec, Dphi: dphi, Agent: true, Lambda: lambda, CV: c.CV})
	if err != nil {
		return nil, err
	}
	dist := f.Dist
	a := &Agent{Name: name, lambda: lambda, phi: make([]float64, dphi), learner: true,
		mode: mode, base: k.Estimator.Name, est: k.Estimator, horizon: c.Horizon, conf: c.Confidence, rollout: c.Rollout, Beta: math.NaN(), Accept: math.NaN(),
		delta: spec.Delta}
	if a.delta {
		a.diff = make([]float64, dist.StateDim())
	}
	w := make([]float64, dist.StatDim()*dphi)
	if init, ok := spec.Init[k.Estimator.Name]; ok { // init_model: plan with it until the first refit
		if len(init) != len(w) {
			return nil, fmt.Errorf("agent %s: init_model: its %s model has %d entries, the agent's W %d", name, k.Estimator.Name, len(init), len(w))
		}
		copy(w, init)
	}
	// fitAt fits all transitions so far at a λ (the MLE from the current
	// W); choose, with Config.CV, cross-validates λ on them (only once
	// there are at least cv.Folds).
	a.add = f.Add
	fitAt := func(l float64) (*estimator.Fit, error) { return f.Fit(l, a.Model.W) }
	choose := func(cv CVConfig) (*estimator.CV, error) {
		var n int
		var data estimator.Data
		if a.kept != nil {
			n, data = a.kept.n(), a.kept.row
		}
		return f.CrossValidate(n, data, cv.Folds, cv.Grid, a.Model.W)
	}
	a.seFn = func(fit *estimator.Fit, n int, data estimator.Data) ([]float64, error) {
		if f.Information {
			return fit.InverseDiag()
		}
		return f.Sandwich(fit, n, data, estimator.SEOptions{})
	}
	a.fit = func() (*estimator.Fit, error) { return fitAt(lambda) }
	if c.CV != nil && f.ChoosesLambda {
		a.cv = c.CV // Fit chooses λ among c.CV.Grid itself; CVLambda reports it
	} else if c.CV != nil {
		if mode == "ucb" && c.Confidence.Lambda == "theorem" {
			return nil, fmt.Errorf("agent %s: lambda: cv and confidence.lambda: theorem both set its λ", name)
		}
		cv := *c.CV
		a.cv = &cv
		if !f.KeepsData {
			a.keepTransitions(dphi, dist.StateDim())
		}
		a.fit = cvFit(cv, f.N, choose, fitAt)
	}
	if c.SaveSE {
		if a.kept == nil { // a cross-validating learner keeps them already
			a.keepTransitions(dphi, dist.StateDim())
		}
	} else {
		a.seFn = nil
	}
	m, err := expfam.NewModel(dist, feat, w)
	if err != nil {
		return nil, err
	}
	a.Model = m
	a.stepper = a.newSim(m)
	a.Sim = a.stepper
	if mode != "" {
		if err := a.initConfidence(spec.LDSSigma); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// oracleKind is the regret baseline: it plans with P_W0 when the truth
// lies in the model class (spec.W0 set), otherwise with the true
// transition itself. It fits nothing, so it ignores λ and lambda: cv.
var oracleKind = AgentKind{Part: config.Part{Name: "oracle", LambdaCV: true, Baseline: true,
	Look: &config.Look{Color: [3]uint8{0, 0, 0}, Marker: "cross", Rank: 1},
	Doc:  "plans with the true transition (P_W0 when it lies in the model class)"},
	Build: newOracle}

func newOracle(name string, spec env.ModelSpec, truth env.Dynamics, c Config) (*Agent, error) {
	a := &Agent{Name: name, base: name, horizon: c.Horizon, conf: c.Confidence, rollout: c.Rollout,
		Beta: math.NaN(), Accept: math.NaN(), delta: spec.Delta}
	if spec.W0 == nil {
		// The truth is not in the model class: plan with the true transition.
		if c.Rollout == "mean" {
			a.Sim = truth.NewMean()
		} else {
			a.Sim = truth.NewSimulator()
		}
		return a, nil
	}
	feat := Features(name, spec)
	w := make([]float64, spec.Family.StatDim()*feat.Dim())
	copy(w, spec.W0)
	m, err := expfam.NewModel(spec.Family, feat, w)
	if err != nil {
		return nil, err
	}
	a.Model = m
	a.stepper = a.newSim(m)
	a.Sim = a.stepper
	return a, nil
}

// newSim returns the simulator the planner uses for model m: a Stepper that
// draws next states, or a MeanStepper for mean rollouts; for a model of
// s' − s, wrapped to add s back.
func (a *Agent) newSim(m *expfam.Model) Simulator {
	var sim Simulator
	if a.rollout == "mean" {
		if g := newGaussBatch(m, a.delta); g != nil {
			return g // steps the sequences of a decision together
		}
		sim = expfam.NewMeanStepper(m)
	} else {
		sim = expfam.NewStepper(m)
	}
	if a.delta {
		return deltaSim{Simulator: sim}
	}
	return sim
}

// deltaSim turns a model of s' − s into a simulator of s'.
type deltaSim = env.DeltaSim

// Features returns the features of the named agent's model: its
// estimator's own (Estimator.OwnFeatures: the LDS features of the model
// class for lds and its variants, when set), the model class's otherwise.
func Features(name string, spec env.ModelSpec) expfam.Features {
	if f := ownFeatures(name, spec); f != nil {
		return f
	}
	return spec.Features
}

// OwnFeatures reports whether the named agent's features are not the model
// class's: an LDS agent when the class sets LDSFeatures.
func OwnFeatures(name string, spec env.ModelSpec) bool { return ownFeatures(name, spec) != nil }

// ownFeatures returns the features of the named agent's estimator's own
// model, nil when it uses the model class's.
func ownFeatures(name string, spec env.ModelSpec) expfam.Features {
	if k, ok := Lookup(name); ok && k.Estimator != nil && k.Estimator.OwnFeatures != nil {
		return k.Estimator.OwnFeatures(spec)
	}
	return nil
}

// Family returns the family in which the named agent's W lives: its
// estimator's own (Estimator.Family: the LDS agent's Gaussian for lds and
// its variants), the model class's family otherwise.
func Family(name string, spec env.ModelSpec) (expfam.Distribution, error) {
	if k, ok := Lookup(name); ok && k.Estimator != nil && k.Estimator.Family != nil {
		return k.Estimator.Family(spec)
	}
	return spec.Family, nil
}

// NewSM returns the score-matching accumulator of the model spec for
// family dist and d_phi features under kink mode (env.ModelSpec.SMSetup):
// the estimator of an sm agent and of smrl estimate's score matching. A
// refusal of the weights or the kink bandwidths names the config key they
// come from (model.kink, model.kink_bandwidth). It carries the spec's
// information floor (sm.floor, env.ModelSpec.SMFloor).
func NewSM(spec env.ModelSpec, dist expfam.Family, dphi int, mode string) (*estimator.SM, error) {
	weights, bandwidths := spec.SMSetup(mode)
	e, err := estimator.NewSMFor(dist, dphi, weights, bandwidths)
	switch {
	case errors.Is(err, estimator.ErrWeights):
		return nil, fmt.Errorf("model.kink: %w", err)
	case errors.Is(err, estimator.ErrKinkBandwidths):
		return nil, fmt.Errorf("model.kink_bandwidth: %w", err)
	case err != nil:
		return nil, err
	}
	if err := e.SetFloor(spec.SMFloor); err != nil { // sm.floor, for the agents and smrl estimate alike
		return nil, fmt.Errorf("sm.floor: %w", err)
	}
	return e, nil
}

// LDSFamily is the LDS agent's Gaussian model s' = W phi + N(0, diag(σ²)):
// the Gaussian family when every σ_i is the same, a product otherwise.
func LDSFamily(sigma []float64) (expfam.Distribution, error) {
	same := true
	for _, s := range sigma {
		same = same && s == sigma[0]
	}
	if same {
		return expfam.NewGaussian(len(sigma), sigma[0])
	}
	cs := make([]expfam.Coord, len(sigma))
	for i, s := range sigma {
		g, err := expfam.NewGaussCoord(s)
		if err != nil {
			return nil, err
		}
		cs[i] = g
	}
	return expfam.NewCoords(cs)
}

// Observe records a transition of the real MDP.
func (a *Agent) Observe(s, act, next []float64) {
	if !a.learner {
		return
	}
	a.Model.Feat.Phi(s, act, a.phi)
	if a.delta {
		for i := range a.diff {
			a.diff[i] = next[i] - s[i]
		}
		next = a.diff
	}
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
			if f != a.Last {
				f.Release()
			}
			return fmt.Errorf("agent %s: estimate has non-finite entries", a.Name)
		}
	}
	copy(a.Model.W, f.W)
	if a.Last != f {
		// The replaced fit is nobody's now: the estimator's next refit
		// writes its factor there (32 MB at D = 2000) instead of a new one.
		a.Last.Release()
	}
	a.Last = f
	if a.seFn != nil {
		if err := a.updateSE(f); err != nil {
			return fmt.Errorf("agent %s: standard errors: %w", a.Name, err)
		}
	}
	return nil
}

// transitions keeps every transition an agent observes, n·(d_phi + d_s)
// floats: the rows φ_t and the targets (s' or s' − s).
type transitions struct {
	phi, next []float64
	dphi, ds  int
}

func (k *transitions) add(phi, next []float64) {
	k.phi = append(k.phi, phi[:k.dphi]...)
	k.next = append(k.next, next[:k.ds]...)
}

// n is the number of transitions kept.
func (k *transitions) n() int { return len(k.phi) / k.dphi }

// row returns transition t (an estimator.Data).
func (k *transitions) row(t int) ([]float64, []float64) {
	return k.phi[t*k.dphi : (t+1)*k.dphi], k.next[t*k.ds : (t+1)*k.ds]
}

// keepTransitions wraps a.add to keep every transition in a.kept (for a
// cross-validated λ and the standard errors of Config.SaveSE).
func (a *Agent) keepTransitions(dphi, ds int) {
	a.kept = &transitions{dphi: dphi, ds: ds}
	inner := a.add
	a.add = func(phi, next []float64) {
		a.kept.add(phi, next)
		inner(phi, next)
	}
}

// updateSE sets a.SE to the square roots of a.seFn's variances of the fit f
// of the kept transitions.
func (a *Agent) updateSE(f *estimator.Fit) error {
	v, err := a.seFn(f, a.kept.n(), a.kept.row)
	if err != nil {
		return err
	}
	a.SE = a.SE[:0]
	for _, x := range v {
		a.SE = append(a.SE, math.Sqrt(x))
	}
	return nil
}

// CVLambda returns the λ of the last refit of an agent that chooses λ by
// cross-validation (Config.CV): the grid's λ of the smallest held-out
// loss, or its largest while there were fewer transitions than folds. It
// is 0 for the other agents and before the first refit.
func (a *Agent) CVLambda() float64 {
	if a.cv == nil || a.Last == nil {
		return 0
	}
	return a.Last.Lambda
}

// Method returns the agent's estimator: sm, lds or mle for the learners
// and their -ucb and -ps variants, the agent's name (oracle, lqr) for
// those that fit nothing.
func (a *Agent) Method() string { return a.base }

// Learner reports whether the agent fits its model to the transitions it
// sees (false for the oracle, whose model is the true one, and for lqr).
func (a *Agent) Learner() bool { return a.learner }

// builtinEstimators are the estimators, one line each, in the order smrl
// list and smrl estimate show them (RegisterEstimator adds more).
var builtinEstimators = []*Estimator{
	&smEstimator,
	&ldsEstimator,
	&mleEstimator,
	&smKernelEstimator,
	&smPlainEstimator,
	&ksmEstimator,
}

// The agents (config key agents) in the order smrl list shows them: the
// greedy learners, the oracle, the optimistic (-ucb) and the
// posterior-sampling (-ps) variants; lqr follows (lqr.go).
func init() {
	for _, e := range builtinEstimators {
		addEstimator(e)
		registerLearner(e, "")
	}
	RegisterAgent(oracleKind)
	for _, mode := range []string{"ucb", "ps"} {
		for _, e := range builtinEstimators {
			registerLearner(e, mode)
		}
	}
}

// cvFit returns the fit of an agent whose λ is chosen at every refit by
// cross-validation on all transitions so far: choose scores cv.Grid with
// cv.Folds contiguous folds by the estimator's held-out loss
// (estimator.CrossValidate for sm, CrossValidateLDS for lds,
// MLE.CrossValidate for mle) and fitAt fits every transition at the λ of
// the smallest loss. The fit carries that λ (Fit.Lambda) in its precision
// V + λI, so the -ucb and -ps agents' confidence set and posterior use the
// λ of their refit. With fewer transitions (count) than folds it fits at
// the largest λ of the grid, the strongest ridge: also the prior set of
// the -ucb and -ps agents before any data.
func cvFit(cv CVConfig, count func() int, choose func(CVConfig) (*estimator.CV, error), fitAt func(float64) (*estimator.Fit, error)) func() (*estimator.Fit, error) {
	return func() (*estimator.Fit, error) {
		lambda := slices.Max(cv.Grid)
		if count() >= cv.Folds {
			res, err := choose(cv)
			if err != nil {
				return nil, fmt.Errorf("lambda: cv: %w", err)
			}
			lambda = res.Lambda()
		}
		return fitAt(lambda)
	}
}
