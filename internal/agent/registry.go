package agent

import (
	"fmt"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// This file is the registry of estimators and agents. An estimator is
// one Estimator value (sm.go, lds.go, mle.go) and one line in
// builtinEstimators (or a call of RegisterEstimator); from it come its
// agents NAME, NAME-ucb and NAME-ps, the method of smrl estimate, the
// memory bound of config validation and the theory β's constants. The
// agents that fit nothing (oracle, lqr) register an AgentKind with a Build.

// Estimator is the registration of an estimator of W.
type Estimator struct {
	// Name is the method of smrl estimate and the name of its greedy
	// agent ("sm").
	Name string
	// Doc is its agent's line in smrl list agents (the -ucb and -ps
	// variants derive theirs from the name); of an EstimateOnly method,
	// what it varies, for the help of smrl estimate --method.
	Doc string
	// EstimateOnly marks a method of smrl estimate without agents (the
	// score-matching comparisons sm-kernel and sm-plain).
	EstimateOnly bool
	// Default marks a method smrl estimate runs when --method is not
	// given.
	Default bool
	// AgentOnly marks an estimator of a greedy agent only: no method of
	// smrl estimate, no -ucb or -ps agents (ksm, whose centres are drawn
	// during the run and which has no confidence set).
	AgentOnly bool
	// Uses are the config keys its agents read beyond the shared ones.
	Uses []string
	// Keys declares the sections its agents own (sm, lds: a
	// config.KeySet each, with defaults, docs and validation); its -ucb
	// and -ps agents declare confidence besides.
	Keys []config.KeySet
	// Spec, when not nil, fills the fields of every MDP's model class
	// that its keys set (env.RegisterModelHook).
	Spec func(c *config.Config, m *env.ModelSpec)
	// Kink, of a score-matching method, is its kink mode ("kernel",
	// "plain"); empty means model.kink.
	Kink string
	// Floats returns the float64s of its largest matrices for a family of
	// nblocks blocks of m statistics and d_phi features, constC when C(s')
	// is constant (config.Part.FitFloats: the memory bound of a trial or
	// an estimate; the -ucb and -ps agents hold twice as much).
	Floats func(nblocks, m, dphi int, constC bool) float64
	// New returns the estimator of the model class for an agent or for
	// smrl estimate (Setup.Agent).
	New func(s Setup) (*Fitter, error)
	// Family and OwnFeatures, when not nil, give the family W lives in and
	// the features of its agents' model when they are not the model
	// class's (lds: its Gaussian with lds.sigma, on model.lds_features
	// when set; OwnFeatures returns nil when none are set).
	Family      func(spec env.ModelSpec) (expfam.Distribution, error)
	OwnFeatures func(spec env.ModelSpec) expfam.Features
	// Looks are how the figures draw its agents, by mode ("" greedy,
	// "ucb", "ps"): config.Part.Look.
	Looks map[string]config.Look
	// NoModelFile, when not empty, says why its agents' learned models
	// have no model file (smrl run --save-models refuses them, naming the
	// agent, before anything is written): ksm, whose model holds centres,
	// bandwidths and locations that a model file has no field for.
	NoModelFile string
	// BindsData marks an estimator whose greedy agent binds a data-bound
	// family of model.family (config.Part.DataBound: the kernel family)
	// at its refits (sm); its -ucb and -ps agents do not (they need a
	// confidence set of a fixed family). config.Part.BindsData.
	BindsData bool
	// GaussianModel marks an estimator whose agents' model is Gaussian
	// whatever the family (lds; config.Part.GaussianModel).
	GaussianModel bool
	// Theory, when not nil, returns the theory β's constants derived for
	// a model of family dist (nil: none derived, the config must give
	// them); ldsSigma is lds.sigma.
	Theory func(dist expfam.Distribution, ldsSigma []float64) *estimator.Constants
}

// Setup is what an estimator's constructor is given.
type Setup struct {
	Spec env.ModelSpec
	Dphi int
	// Lambda is the agent's λ (the top-level lambda) and CV, when not
	// nil, its cross-validated candidates (lambda: cv): read by a fitter
	// that chooses λ itself (Fitter.ChoosesLambda).
	Lambda float64
	CV     *CVConfig
	// Agent is true for a learning agent, false for smrl estimate: the
	// lds agent fits its own Gaussian model with noise lds.sigma, whose
	// precision its confidence set uses, where smrl estimate fits least
	// squares (σ = 1); the agents' errors name the agent.
	Agent bool
}

// Fitter is one estimator of W accumulating transitions: what an agent,
// its confidence set and smrl estimate fit, cross-validate and take
// standard errors with.
type Fitter struct {
	// Dist is the family W lives in: the model class's, or the lds
	// agent's Gaussian.
	Dist expfam.Distribution
	Add  func(phi, next []float64)
	N    func() int
	// Fit fits every transition so far at λ; start, when not nil, is the
	// current W (the MLE's Newton starts there).
	Fit func(lambda float64, start []float64) (*estimator.Fit, error)
	// CrossValidate scores grid by the held-out loss of folds contiguous
	// folds of the n transitions data (ignored with KeepsData) and
	// returns the outcome (estimator.CV).
	CrossValidate func(n int, data estimator.Data, folds int, grid []float64, start []float64) (*estimator.CV, error)
	// KeepsData marks an estimator that keeps every transition itself
	// (the MLE), so its agent need not.
	KeepsData bool
	// Sandwich returns the sandwich variances of vec(Ŵ) of the fit f of
	// the n transitions data.
	Sandwich func(f *estimator.Fit, n int, data estimator.Data, opt estimator.SEOptions) ([]float64, error)
	// ChoosesLambda marks a fitter that takes λ (or, with lambda: cv, its
	// candidates) from its Setup and chooses it inside Fit (the sm agent's
	// kernel family, whose λ is cross-validated with its bandwidth): the
	// agent then neither wraps Fit in its own cross-validation nor keeps
	// the transitions for it, and Fit's λ argument is not used.
	ChoosesLambda bool
	// Information marks an estimator whose default standard errors are
	// the inverse observed information (Fit.InverseDiag) rather than the
	// sandwich: the MLE.
	Information bool
}

// AgentKind is the registration of an agent name (config key agents).
type AgentKind struct {
	// Part is its config registration (Group "agents"): doc, keys,
	// validation, and Baseline for the regret baseline (the oracle).
	config.Part
	// Estimator is the learner's estimator; nil for an agent that fits
	// nothing (then Build builds it).
	Estimator *Estimator
	// Mode is "" (greedy), "ucb" (optimistic) or "ps" (posterior
	// sampling) for a learner.
	Mode  string
	Build func(name string, spec env.ModelSpec, truth env.Dynamics, c Config) (*Agent, error)
}

var (
	kinds      = map[string]AgentKind{}
	estimators []*Estimator
)

// RegisterAgent adds an agent name. It panics when the name is taken.
func RegisterAgent(k AgentKind) {
	k.Group = "agents"
	config.Register(k.Part)
	kinds[k.Name] = k
}

// RegisterEstimator adds an estimator: the method of smrl estimate and,
// unless EstimateOnly, its agents NAME, NAME-ucb and NAME-ps. It panics
// when a name is taken.
func RegisterEstimator(e *Estimator) {
	addEstimator(e)
	for _, mode := range learnerModes(e) {
		registerLearner(e, mode)
	}
}

func addEstimator(e *Estimator) {
	if _, ok := LookupEstimator(e.Name); ok {
		panic(fmt.Sprintf("agent.RegisterEstimator: %q registered twice", e.Name))
	}
	estimators = append(estimators, e)
	if e.Spec != nil {
		env.RegisterModelHook(e.Spec)
	}
}

// learnerModes are the modes of e's agents: greedy only for AgentOnly.
func learnerModes(e *Estimator) []string {
	if e.AgentOnly {
		return []string{""}
	}
	return []string{"", "ucb", "ps"}
}

// registerLearner registers the agent of e in mode ("", "ucb", "ps").
func registerLearner(e *Estimator, mode string) {
	if e.EstimateOnly || (e.AgentOnly && mode != "") {
		return
	}
	name, doc, uses := e.Name, e.Doc, slices.Clone(e.Uses)
	switch mode {
	case "ucb":
		doc = e.Name + ", optimistic: plans with the best of confidence.candidates parameters on the confidence set's boundary"
	case "ps":
		doc = e.Name + ", posterior sampling: plans each episode with W ~ N(Ŵ, ν²(V+λI)⁻¹) in the ball"
	}
	keys := slices.Clone(e.Keys)
	if mode != "" {
		name += "-" + mode
		uses = append([]string{"confidence"}, uses...)
		keys = append(keys, confidenceKeys)
	}
	floats := e.Floats
	if mode != "" { // the confidence set's matrices beside the estimator's
		floats = func(nblocks, m, dphi int, constC bool) float64 { return 2 * e.Floats(nblocks, m, dphi, constC) }
	}
	// Every learner chooses λ by cross-validation at every refit with
	// lambda: cv (cvFit).
	var look *config.Look
	if l, ok := e.Looks[mode]; ok {
		look = &l
	}
	RegisterAgent(AgentKind{Part: config.Part{Name: name, Doc: doc, Uses: uses, Keys: keys, LambdaCV: true, FitFloats: floats,
		GaussianModel: e.GaussianModel, Look: look, Confidence: mode, BindsData: e.BindsData && mode == ""},
		Estimator: e, Mode: mode})
}

// Lookup returns the registration of the named agent.
func Lookup(name string) (AgentKind, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Learns reports whether the named agent fits a model to the transitions
// it sees: a registered agent with an estimator (not the oracle or lqr).
func Learns(name string) bool {
	k, ok := kinds[name]
	return ok && k.Estimator != nil
}

// LookupEstimator returns the estimator of the method name (of smrl
// estimate: not an AgentOnly one).
func LookupEstimator(name string) (*Estimator, bool) {
	i := slices.IndexFunc(estimators, func(e *Estimator) bool { return e.Name == name && !e.AgentOnly })
	if i < 0 {
		return nil, false
	}
	return estimators[i], true
}

// EstimatorNames returns the methods of smrl estimate in registration
// order.
func EstimatorNames() []string {
	var out []string
	for _, e := range estimators {
		if !e.AgentOnly {
			out = append(out, e.Name)
		}
	}
	return out
}

// DefaultEstimators returns the methods smrl estimate runs when none are
// given (Estimator.Default), in registration order.
func DefaultEstimators() []string {
	var out []string
	for _, e := range estimators {
		if e.Default {
			out = append(out, e.Name)
		}
	}
	return out
}

// The figures' dash patterns of the -ucb and -ps agents (Estimator.Looks),
// in points: the agents of an estimator share their hue family's markers'
// shapes, and the variants are told apart by their lines too.
var (
	dashUCB = []float64{6, 3}
	dashPS  = []float64{2, 2}
)

// NoModelFile returns why the named agent's learned model cannot be saved
// as a model file (Estimator.NoModelFile); empty when it can, or when it
// learns nothing.
func NoModelFile(name string) string {
	if k, ok := Lookup(name); ok && k.Estimator != nil {
		return k.Estimator.NoModelFile
	}
	return ""
}
