package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Catalogs of names accepted in a config.
var (
	FamilyKinds   = familyNames() // env.family.kind: the family registry (Families)
	FeatureKinds  = []string{"linear", "affine", "rff", "per-action", "constant"}
	AgentNames    = []string{"sm", "lds", "mle", "oracle", "sm-ucb", "lds-ucb", "mle-ucb", "sm-ps", "lds-ps", "mle-ps"}
	PlannerModes  = []string{"constant", "random"}
	PlannerKinds  = []string{"rss", "cem", "mppi"}
	EstimateNames = []string{"sm", "lds", "mle", "sm-kernel", "sm-plain"}
	BetaForms     = []string{"practical", "theory"}
	EnvKinds      = []string{"expfam", "cartpole", "pendulum", "mountain-car"}
	ModelFamilies = familyNames() // model.family: the same registry
	RolloutModes  = []string{"sample", "mean"}
	CartPoleNoise = []string{"none", "action_flip", "next_state"}
	NoiseDensity  = []string{"normal", "exp", "custom-sin", "mog", "none"}
	ChoiceModes   = []string{"episode", "step"}
	ValueModes    = []string{"lookahead", "rollout"}
	LambdaModes   = []string{"shared", "theorem"}
	ModelTargets  = []string{"next", "delta"}
	LDSFeatures   = []string{"linear", "affine", "model"}
	PhysicsNoise  = []string{"none", "normal"}
)

// UsesConfidence reports whether an agent plans with the confidence set of
// its estimate: the optimistic (-ucb) and posterior-sampling (-ps) agents.
func UsesConfidence(agent string) bool {
	return strings.HasSuffix(agent, "-ucb") || strings.HasSuffix(agent, "-ps")
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// maxCount bounds the remaining size keys (dimensions).
const maxCount = 10_000

// Numeric ranges smrl supports; see Validate for why.
const (
	// MaxAbsState bounds states, actions, reward centres and the initial
	// range: the samplers normalise the families' densities on |x| <= 1024
	// (expfam's support search), so no state can be drawn beyond.
	MaxAbsState = 1024
	// MaxAbsW0 bounds the entries of env.w0: the sampler tabulates natural
	// parameters η = W0·phi with |η| <= 256; beyond, every draw needs a
	// full quadrature of the density.
	MaxAbsW0 = 256
	// MaxAlpha bounds env.family.alpha: q(x) = exp(−|x|^α/α) steepens at
	// |x| = 1 with α, and the quadrature panels must resolve that edge (α =
	// 100 needs 18 000 panels per natural parameter, α = 200 640 000).
	MaxAlpha = 100
	// MaxTrialFloats bounds the float64s of the largest matrices one trial
	// (or one estimate) holds: 2^25 numbers, 256 MiB. The planner's
	// sampled action sequences are held to it too.
	MaxTrialFloats = 1 << 25
	// MaxColouredSteps bounds the sequence length L = planner.tau − 1 of
	// cem's coloured noise (planner.cem.beta > 0): it tabulates two
	// (L/2+1)×L tables of cosines and sines and draws each coordinate's
	// sequence in O(L²), so at L = 1000 one draw costs about as much as
	// 10 000 model transitions.
	MaxColouredSteps = 1000
)

// nameRE is a results directory name: one file-system-safe path component.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._+-]{0,99}$`)

// Validate checks every value and returns all problems, one per line, each
// naming its key.
func (c *Config) Validate() error { return c.validate(true) }

// validate is Validate; with agents false, the agents and what they alone
// require (lambda > 0 and b_star > 0 for a confidence set, their memory)
// are not checked: smrl estimate runs no agent.
func (c *Config) validate(agents bool) error {
	var problems []error
	bad := func(key, format string, args ...any) {
		problems = append(problems, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}
	// Upper bounds keep allocations and run times finite: each is far
	// beyond any experiment this machine can run, and a typo such as an
	// extra digit block fails here instead of as a crash or an endless run.
	inRange := func(key string, v, hi int) {
		if v < 1 {
			bad(key, "must be >= 1, got %d", v)
		} else if v > hi {
			bad(key, "must be <= %d, got %d", hi, v)
		}
	}
	positive := func(key string, v int) { inRange(key, v, maxCount) }
	// between checks lo <= |x| <= hi (lo = 0: any x with |x| <= hi) and
	// explains a violation with why.
	between := func(key string, x, lo, hi float64, why string) {
		if !finite(x) || math.Abs(x) < lo || math.Abs(x) > hi {
			if lo == 0 {
				bad(key, "must lie in [−%g, %g], got %v: %s", hi, hi, x, why)
			} else {
				bad(key, "must have %g <= |%s| <= %g, got %v: %s", lo, key, hi, x, why)
			}
		}
	}
	if !nameRE.MatchString(c.Name) || c.Name == "." || c.Name == ".." {
		bad("name", "must be a file name of up to 100 letters, digits, '.', '_', '+' and '-', not starting with '.' or '-', got %q: results go to results/<name>/", c.Name)
	}
	inRange("seeds", c.Seeds, 1_000_000)
	inRange("episodes", c.Episodes, 1_000_000)
	inRange("env.horizon", c.Env.Horizon, 1_000_000)
	inRange("planner.n_rollouts", c.Planner.NRollouts, 1_000_000)
	inRange("planner.tau", c.Planner.Tau, 10_000)
	inRange("planner.n_sequences", c.Planner.NSequences, 100_000)
	inRange("env.action_dim", c.Env.ActionDim, 10_000)
	inRange("estimate.n", c.Estimate.N, 100_000_000)
	inRange("estimate.repeats", c.Estimate.Repeats, 100_000)
	if c.Workers < 0 {
		bad("workers", "must be >= 0 (0 = all cores), got %d", c.Workers)
	}
	if !(c.Lambda >= 0) || !finite(c.Lambda) {
		bad("lambda", "must be a finite number >= 0, got %v", c.Lambda)
	} else if c.Lambda > 1e6 {
		bad("lambda", "must be <= 1e6, got %v: a larger ridge shrinks every estimate to 0", c.Lambda)
	}
	if agents && len(c.Agents) == 0 {
		bad("agents", "must list at least one of %v", AgentNames)
	}
	if agents {
		seen := map[string]bool{}
		for _, a := range c.Agents {
			if !slices.Contains(AgentNames, a) {
				bad("agents", "unknown agent %q (known: %v)", a, AgentNames)
			}
			if seen[a] {
				bad("agents", "agent %q listed twice", a)
			}
			seen[a] = true
		}
	}
	c.validatePlanner(bad)
	if !slices.Contains(RolloutModes, c.Planner.Rollout) {
		bad("planner.rollout", "unknown rollout %q (known: %v)", c.Planner.Rollout, RolloutModes)
	}
	e := c.Env
	if !slices.Contains(EnvKinds, e.Kind) {
		bad("env.kind", "unknown environment %q (known: %v)", e.Kind, EnvKinds)
	}
	switch e.Kind {
	case "cartpole":
		c.validateCartPole(bad)
	case "pendulum":
		c.validatePendulum(bad)
	case "mountain-car":
		c.validateMountainCar(bad)
	}
	if e.Kind != "expfam" {
		c.validateModel(bad)
	}
	if !finite(e.InitLow) || !finite(e.InitHigh) || e.InitLow > e.InitHigh {
		bad("env.init_low", "must be finite and <= env.init_high, got [%v, %v]", e.InitLow, e.InitHigh)
	} else {
		between("env.init_low", e.InitLow, 0, MaxAbsState, stateWhy)
		between("env.init_high", e.InitHigh, 0, MaxAbsState, stateWhy)
	}
	f := e.Family
	if !slices.Contains(FamilyKinds, f.Kind) {
		bad("env.family.kind", "unknown family %q (known: %v)", f.Kind, FamilyKinds)
	}
	positive("env.family.dim", f.Dim)
	if f.Kind != "gaussian" && !(f.Alpha >= 1 && finite(f.Alpha)) {
		bad("env.family.alpha", "must be a finite number >= 1, got %v", f.Alpha)
	} else if f.Kind != "gaussian" && f.Alpha > MaxAlpha {
		bad("env.family.alpha", "must be <= %d, got %v: q(x) = exp(−|x|^α/α) steepens with α at |x| = 1 and the quadrature that normalises it would need millions of panels", MaxAlpha, f.Alpha)
	}
	if f.Kind == "x-sin" && f.Alpha == 1 {
		bad("env.family.alpha", "x-sin needs alpha > 1 (not normalisable otherwise)")
	}
	if f.Kind == "custom-sin" && (f.Freq == 0 || !finite(f.Freq)) {
		bad("env.family.freq", "must be a finite non-zero number, got %v", f.Freq)
	} else if f.Kind == "custom-sin" {
		between("env.family.freq", f.Freq, 1e-3, 1e3, "psi(x) = sin(freq·x) enters score matching through freq², which under- or overflows against lambda beyond, and the quadrature must resolve its period 2π/freq")
	}
	if f.Kind == "gaussian" && !(f.Sigma > 0 && finite(f.Sigma)) {
		bad("env.family.sigma", "must be a finite number > 0, got %v", f.Sigma)
	} else if f.Kind == "gaussian" {
		between("env.family.sigma", f.Sigma, 1e-3, 1e3, sigmaWhy)
	}
	c.validateFamilies(bad)
	ft := e.Features
	if !slices.Contains(FeatureKinds, ft.Kind) {
		bad("env.features.kind", "unknown features %q (known: %v)", ft.Kind, FeatureKinds)
	}
	if ft.Kind == "rff" {
		positive("env.features.dim", ft.Dim)
		if !(ft.Length > 0 && finite(ft.Length)) {
			bad("env.features.length", "must be a finite number > 0, got %v", ft.Length)
		} else {
			between("env.features.length", ft.Length, 1e-3, 1e3, "random Fourier features cos(ω·x/length + b) of a shorter length are noise at the states' resolution, of a longer one constant")
		}
	}
	switch e.ActionSpace {
	case "discrete":
		if e.ActionDim >= 1 && (len(e.Actions) == 0 || len(e.Actions)%e.ActionDim != 0) {
			bad("env.actions", "must hold a whole number of actions of env.action_dim = %d numbers, got %d numbers", e.ActionDim, len(e.Actions))
		}
		if c.Planner.Kind == "mppi" {
			bad("planner.kind", "mppi perturbs continuous actions and needs env.action_space: box (with a discrete set use rss or cem)")
		}
	case "box":
		if len(e.ActionLow) != e.ActionDim || len(e.ActionHigh) != e.ActionDim {
			bad("env.action_low", "and env.action_high must hold env.action_dim = %d numbers each, got %d and %d", e.ActionDim, len(e.ActionLow), len(e.ActionHigh))
		} else {
			for i := range e.ActionLow {
				if !finite(e.ActionLow[i]) || !finite(e.ActionHigh[i]) || e.ActionLow[i] > e.ActionHigh[i] {
					bad("env.action_low", "coordinate %d: want finite bounds with action_low <= action_high, got [%v, %v]", i, e.ActionLow[i], e.ActionHigh[i])
				} else {
					between("env.action_low", e.ActionLow[i], 0, MaxAbsState, actionWhy)
					between("env.action_high", e.ActionHigh[i], 0, MaxAbsState, actionWhy)
				}
			}
		}
		if c.Planner.Kind == "rss" && c.Planner.Mode != "random" {
			bad("planner.mode", "must be random for a box of continuous actions (env.action_space: box), got %q", c.Planner.Mode)
		}
		if e.Features.Kind == "per-action" {
			bad("env.features.kind", "per-action features need a discrete action set, not env.action_space: box")
		}
	default:
		bad("env.action_space", "unknown action space %q (known: discrete, box)", e.ActionSpace)
	}
	for _, a := range e.Actions {
		if !finite(a) {
			bad("env.actions", "must be finite, got %v", a)
		} else {
			between("env.actions", a, 0, MaxAbsState, actionWhy)
		}
	}
	if !(e.Reward.Width > 0 && finite(e.Reward.Width)) {
		bad("env.reward.width", "must be a finite number > 0, got %v", e.Reward.Width)
	}
	if f.Dim >= 1 && (len(e.Reward.Centers) == 0 || len(e.Reward.Centers)%f.Dim != 0) {
		bad("env.reward.centers", "must hold a whole number of centres of env.family.dim = %d numbers, got %d numbers", f.Dim, len(e.Reward.Centers))
	}
	for _, x := range e.Reward.Centers {
		between("env.reward.centers", x, 0, MaxAbsState, stateWhy)
	}
	if dpsi, dphi, ok := c.Dims(); ok {
		if len(e.W0) != dpsi {
			bad("env.w0", "has %d rows, want d_psi = %d for family %s with dim %d", len(e.W0), dpsi, f.Kind, f.Dim)
		}
		for i, row := range e.W0 {
			if len(row) != dphi {
				bad("env.w0", "row %d has %d entries, want d_phi = %d for %s features", i, len(row), dphi, ft.Kind)
			}
			for _, w := range row {
				if !finite(w) {
					bad("env.w0", "must be finite, got %v", w)
				} else if f.Kind == "gaussian" {
					between("env.w0", w, 0, MaxAbsW0, "larger entries drive the states of s' = W0·phi + noise out of range within a few steps")
				} else {
					between("env.w0", w, 0, MaxAbsW0, "the sampler tabulates natural parameters η = W0·phi with |η| <= 256; beyond, every draw needs a full quadrature (hours per run) or fails")
				}
			}
		}
	}
	if agents {
		c.checkTrialMemory(bad)
	}
	if !(c.LDS.Sigma > 0 && finite(c.LDS.Sigma)) {
		bad("lds.sigma", "must be a finite number > 0, got %v", c.LDS.Sigma)
	} else {
		between("lds.sigma", c.LDS.Sigma, 1e-3, 1e3, sigmaWhy)
	}
	c.validateConfidence(bad, agents)
	for _, n := range c.Estimate.SweepN {
		if n < 1 {
			bad("estimate.sweep_n", "sizes must be >= 1, got %d", n)
		} else if n > 100_000_000 {
			bad("estimate.sweep_n", "sizes must be <= 100000000, got %d", n)
		}
	}
	return errors.Join(problems...)
}

// Why messages shared by several bounds.
const (
	stateWhy  = "states cannot be drawn beyond ±1024, where the samplers normalise the densities"
	actionWhy = "actions enter phi(s, a) as states do, and states cannot be drawn beyond ±1024"
	sigmaWhy  = "score matching weighs the Gaussian by 1/sigma⁴, which under- or overflows against lambda beyond"
)

// FitFloats returns the float64s of the largest matrices an estimator or
// agent of this kind holds for a family with nblocks blocks of m
// statistics each (a product family: one per state coordinate) and d_phi
// features; constC marks a family with constant C (the Gaussian). Score
// matching keeps one (m·d_phi)² block per coordinate (one d_phi² block in
// all for constant C) and their Cholesky factors; least squares one d_phi²
// block; the MLE a factorised (m·d_phi)² Hessian per coordinate plus the
// working Hessian. The -ucb and -ps agents share their estimator's
// factorisation.
func FitFloats(method string, nblocks, m, dphi int, constC bool) float64 {
	b := float64(m) * float64(dphi)
	n := float64(nblocks)
	switch strings.TrimSuffix(strings.TrimSuffix(method, "-ucb"), "-ps") {
	case "sm", "sm-kernel", "sm-plain":
		if constC {
			return 2 * float64(dphi) * float64(dphi)
		}
		return 2 * n * b * b
	case "lds":
		return 2 * float64(dphi) * float64(dphi)
	case "mle":
		return (n + 2) * b * b
	}
	return 0
}

// physicalStateDims is d_s of the physical environments.
var physicalStateDims = map[string]int{
	"cartpole":     4, // x, ẋ, θ, θ̇
	"pendulum":     3, // cos θ, sin θ, θ̇
	"mountain-car": 2, // position, velocity
}

// learnerShape returns the shape of the agents' model for FitFloats:
// nblocks blocks of m statistics, d_phi features, constant C; key names the
// config key that sets d_phi (or the blocks). ok is false when the shape
// cannot be determined (an invalid kind).
func (c *Config) learnerShape() (nblocks, m, dphi int, constC bool, key string, ok bool) {
	if ds, ok := physicalStateDims[c.Env.Kind]; ok {
		m = 1
		for _, f := range c.Model.Family {
			if info, ok := FamilyByName(f); ok {
				m = max(m, info.Stats)
			}
		}
		da := c.Env.ActionDim
		switch ft := c.Model.Features; ft.Kind {
		case "linear":
			dphi = ds + da
		case "affine":
			dphi = ds + da + 1
		case "rff":
			dphi = ft.Dim
		default:
			return 0, 0, 0, false, "", false
		}
		return ds, m, dphi, false, "model.features.dim", dphi >= 1 && da >= 1
	}
	dpsi, dphi, ok := c.Dims()
	key = "env.family.dim"
	switch c.Env.Features.Kind {
	case "rff":
		key = "env.features.dim"
	case "per-action":
		key = "env.actions"
	}
	m = 1
	if info, known := FamilyByName(c.Env.Family.Kind); known {
		m = info.Stats
	}
	return dpsi / m, m, dphi, c.Env.Family.Kind == "gaussian", key, ok
}

// checkTrialMemory refuses model shapes for which an agent's matrices
// would exceed MaxTrialFloats, naming the key that sets d_phi (or d_psi).
func (c *Config) checkTrialMemory(bad func(key, format string, args ...any)) {
	nblocks, m, dphi, constC, key, ok := c.learnerShape()
	if !ok || dphi > 10*maxCount {
		return
	}
	for _, a := range c.Agents {
		if need := FitFloats(a, nblocks, m, dphi, constC); need > MaxTrialFloats {
			bad(key, "the agents' model has %d × %d statistics and d_phi = %d features, for which agent %s holds %.3g numbers (%s), more than the %s smrl allows per trial", nblocks, m, dphi, a, need, bytesText(need), bytesText(MaxTrialFloats))
			return
		}
	}
}

// CheckFitMemory is checkTrialMemory for one estimation method (smrl
// estimate, whose methods are chosen on its command line).
func (c *Config) CheckFitMemory(method string) error {
	nblocks, m, dphi, constC, _, ok := c.learnerShape()
	if !ok {
		return nil
	}
	if need := FitFloats(method, nblocks, m, dphi, constC); need > MaxTrialFloats {
		return fmt.Errorf("the model has %d × %d statistics and d_phi = %d features, for which method %s holds %.3g numbers (%s), more than the %s smrl allows", nblocks, m, dphi, method, need, bytesText(need), bytesText(MaxTrialFloats))
	}
	return nil
}

// CheckDataMemory refuses a data set of n transitions whose states,
// actions and features (n·(2 d_s + d_a + d_phi) numbers) would exceed
// MaxTrialFloats (smrl estimate).
func (c *Config) CheckDataMemory(n int) error {
	_, dphi, ok := c.Dims()
	if !ok {
		return nil
	}
	need := float64(n) * float64(2*c.Env.Family.Dim+c.Env.ActionDim+dphi)
	if need > MaxTrialFloats {
		return fmt.Errorf("%d transitions with their features take %.3g numbers (%s), more than the %s smrl allows: use fewer transitions", n, need, bytesText(need), bytesText(MaxTrialFloats))
	}
	return nil
}

// bytesText formats a number of float64s as bytes: "256 MiB".
func bytesText(floats float64) string {
	b := floats * 8
	for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB"} {
		if b < 1024 {
			return fmt.Sprintf("%.3g %s", b, u)
		}
		b /= 1024
	}
	return fmt.Sprintf("%.3g PiB", b)
}

// validateConfidence checks the confidence section, and that λ > 0 when an
// agent needs the confidence set (V + λI must be invertible before any
// data, and log det(V/λ + I) must exist).
func (c *Config) validateConfidence(bad func(key, format string, args ...any), agents bool) {
	k := c.Confidence
	if !slices.Contains(BetaForms, k.Beta) {
		bad("confidence.beta", "unknown form %q (known: %v)", k.Beta, BetaForms)
	}
	if !slices.Contains(ChoiceModes, k.Choice) {
		bad("confidence.choice", "unknown choice %q (known: %v)", k.Choice, ChoiceModes)
	}
	// The radius of the confidence set, and so the distance of its draws
	// from Ŵ, is about β/sqrt(λ); the bounds keep it, and the squared norms
	// of the draws, far inside the float range.
	atMost := func(key string, v, hi float64, why string) {
		if !(v >= 0) || !finite(v) {
			bad(key, "must be a finite number >= 0, got %v", v)
		} else if v > hi {
			bad(key, "must be <= %g, got %v: %s", hi, v, why)
		}
	}
	const radiusWhy = "the confidence set's radius would overflow the parameter norms"
	atMost("confidence.scale", k.Scale, 1e3, radiusWhy)
	atMost("confidence.b_star", k.BStar, 1e6, radiusWhy)
	atMost("confidence.posterior_scale", k.PosteriorScale, 1e3, "posterior draws at ν·(V+λI)^{-1/2} would overflow the parameter norms")
	if !(k.Delta > 0 && k.Delta < 1) {
		bad("confidence.delta", "must lie in (0, 1), got %v", k.Delta)
	} else if k.Delta < 1e-300 {
		bad("confidence.delta", "must be >= 1e-300, got %v: β needs log(1/δ), and 1/δ overflows below about 1e-308", k.Delta)
	}
	auto := map[string]bool{}
	for _, x := range []struct {
		key      string
		v        Auto
		positive bool
	}{{"confidence.b_psi", k.BPsi, false}, {"confidence.b_c", k.BC, false}, {"confidence.alpha1", k.Alpha1, true}} {
		v, isAuto, err := x.v.Float()
		switch {
		case err != nil:
			bad(x.key, "%v", err)
		case isAuto:
			auto[x.key] = true
		case x.positive && !(v > 0 && finite(v)):
			bad(x.key, "must be %s or a finite number > 0, got %v", AutoWord, v)
		case !x.positive && !(v >= 0 && finite(v)):
			bad(x.key, "must be %s or a finite number >= 0, got %v", AutoWord, v)
		case x.positive && (v < 1e-6 || v > 1e6):
			bad(x.key, "must lie in [1e-6, 1e6], got %v: the theory β divides by α₁, which under- or overflows beyond", v)
		case !x.positive && v > 1e6:
			bad(x.key, "must be <= 1e+06, got %v: the confidence set's radius would overflow the parameter norms", v)
		}
	}
	if !slices.Contains(ValueModes, k.Value) {
		bad("confidence.value", "unknown value %q (known: %v)", k.Value, ValueModes)
	} else if k.Value == "rollout" && k.Choice == "step" {
		bad("confidence.value", "rollout scores candidates once per episode; it needs confidence.choice: episode, got step")
	}
	if !slices.Contains(LambdaModes, k.Lambda) {
		bad("confidence.lambda", "unknown λ %q (known: %v)", k.Lambda, LambdaModes)
	} else if k.Lambda == "theorem" && k.Beta != "theory" {
		bad("confidence.lambda", "theorem (λ = 1/b_star² for the -ucb agents) belongs to the theory β; it needs confidence.beta: theory, got %s", k.Beta)
	} else if k.Lambda == "theorem" && !(k.BStar > 0) {
		bad("confidence.lambda", "theorem sets λ = 1/b_star², which needs confidence.b_star > 0")
	}
	if k.Beta == "theory" {
		c.validateTheory(auto, bad)
	}
	if k.Candidates < 1 {
		bad("confidence.candidates", "must be >= 1, got %d", k.Candidates)
	}
	var users []string
	for _, a := range c.Agents {
		if agents && UsesConfidence(a) {
			users = append(users, a)
		}
	}
	if len(users) > 0 && c.Lambda == 0 {
		bad("lambda", "must be > 0 for agents %v, whose confidence set |W − Ŵ|_{V+λI} ≤ β needs V + λI invertible, got 0", users)
	} else if len(users) > 0 && c.Lambda < 1e-12 {
		bad("lambda", "must be >= 1e-12 for agents %v, got %v: their β needs log det(V/λ + I) and their draws lie about β/sqrt(λ) from Ŵ, both of which overflow for smaller λ", users, c.Lambda)
	}
	if len(users) > 0 && k.BStar == 0 {
		// Without the ball, early draws (radius ≈ β/√λ) reach natural
		// parameters where sampling needs a full quadrature per draw.
		bad("confidence.b_star", "must be > 0 for agents %v: sampled parameters are kept in the ball |W|_F <= max(b_star, |Ŵ|_F)", users)
	}
	if k.Candidates > maxCount {
		bad("confidence.candidates", "must be <= %d, got %d", maxCount, k.Candidates)
	}
}

// validatePlanner checks the planner section: the kind, RSS's mode, and the
// keys of the selected method (those of the others are not used).
func (c *Config) validatePlanner(bad func(key, format string, args ...any)) {
	p := c.Planner
	if !slices.Contains(PlannerKinds, p.Kind) {
		bad("planner.kind", "unknown planner %q (known: %v)", p.Kind, PlannerKinds)
	}
	if !slices.Contains(PlannerModes, p.Mode) {
		bad("planner.mode", "unknown mode %q (known: %v)", p.Mode, PlannerModes)
	}
	unit := func(key string, v float64, lo, hi float64, open bool) {
		if !finite(v) || v < lo || v > hi || (open && v == lo) {
			lb := "["
			if open {
				lb = "("
			}
			bad(key, "must lie in %s%v, %v], got %v", lb, lo, hi, v)
		}
	}
	switch p.Kind {
	case "cem":
		k := p.CEM
		if k.Population < 1 || k.Population > 100_000 {
			bad("planner.cem.population", "must lie in [1, 100000], got %d", k.Population)
		}
		if k.Elites < 1 || k.Elites > k.Population {
			bad("planner.cem.elites", "must lie in [1, planner.cem.population = %d], got %d", k.Population, k.Elites)
		}
		if k.Iterations < 1 || k.Iterations > 1000 {
			bad("planner.cem.iterations", "must lie in [1, 1000], got %d", k.Iterations)
		}
		unit("planner.cem.alpha", k.Alpha, 0, 1, false)
		unit("planner.cem.init_std", k.InitStd, 0, 1e3, true)
		unit("planner.cem.beta", k.Beta, 0, 10, false)
	case "mppi":
		k := p.MPPI
		if k.Samples < 1 || k.Samples > 100_000 {
			bad("planner.mppi.samples", "must lie in [1, 100000], got %d", k.Samples)
		}
		unit("planner.mppi.temperature", k.Temperature, 0, 1e12, true)
		unit("planner.mppi.noise_std", k.NoiseStd, 0, 1e3, true)
	}
	c.checkPlannerMemory(bad)
}

// checkPlannerMemory refuses planners whose sampled action sequences, N of
// L = max(planner.tau − 1, 1) actions per decision, would hold more than
// MaxTrialFloats numbers (N = planner.cem.population, planner.mppi.samples,
// or 1 for rss; an action is env.action_dim numbers in a box, one index in
// a discrete set), and cem's coloured noise beyond MaxColouredSteps. Keys
// out of their own ranges are reported by those checks and skipped here.
func (c *Config) checkPlannerMemory(bad func(key, format string, args ...any)) {
	p, e := c.Planner, c.Env
	if p.Tau < 1 || p.Tau > 10_000 || e.ActionDim < 1 || e.ActionDim > 10_000 {
		return
	}
	steps := max(p.Tau-1, 1)
	if p.Kind == "cem" && p.CEM.Beta > 0 && e.ActionSpace == "box" && steps > MaxColouredSteps {
		bad("planner.tau", "must be <= %d with planner.cem.beta = %v > 0, got %d: coloured noise over L = tau − 1 steps tabulates (L/2+1)×L cosines and sines and draws each coordinate's sequence in O(L²); use white noise (planner.cem.beta: 0) for longer horizons",
			MaxColouredSteps+1, p.CEM.Beta, p.Tau)
	}
	per, perText := e.ActionDim, fmt.Sprintf("env.action_dim = %d numbers", e.ActionDim)
	if e.ActionSpace != "box" {
		per, perText = 1, "1 number (an index into env.actions)"
	}
	key, n, seqs := "planner.tau", 1, "1 sampled sequence"
	switch p.Kind {
	case "cem":
		key, n = "planner.cem.population", p.CEM.Population
		seqs = fmt.Sprintf("%d sampled sequences", n)
	case "mppi":
		key, n = "planner.mppi.samples", p.MPPI.Samples
		seqs = fmt.Sprintf("%d sampled sequences", n)
	}
	if n < 1 || n > 100_000 {
		return
	}
	if need := float64(n) * float64(steps) * float64(per); need > MaxTrialFloats {
		bad(key, "%s × (planner.tau − 1 = %d) steps × %s per action are %.3g numbers (%s) per decision, more than the %s smrl allows per trial",
			seqs, steps, perText, need, bytesText(need), bytesText(MaxTrialFloats))
	}
}

// validateCartPole checks env.cartpole and the parts of env that apply to
// it (actions of one number each).
func (c *Config) validateCartPole(bad func(key, format string, args ...any)) {
	p := c.Env.CartPole
	pos := func(key string, v float64) {
		if !(v > 0) || !finite(v) {
			bad("env.cartpole."+key, "must be a finite number > 0, got %v", v)
		} else if v < 1e-6 || v > 1e6 {
			// The parameters set the scales of the model's coordinates
			// (env.CartPoleScales), which score matching weighs by 1/σ⁴.
			bad("env.cartpole."+key, "must lie in [1e-6, 1e6], got %v: the dynamics and the model's coordinate scales derived from it under- or overflow beyond", v)
		}
	}
	if p.XThreshold > MaxAbsState {
		bad("env.cartpole.x_threshold", "must be <= %d, got %v: %s", MaxAbsState, p.XThreshold, stateWhy)
	}
	for _, k := range []struct {
		key string
		v   float64
	}{{"gravity", p.Gravity}, {"mass_cart", p.MassCart}, {"mass_pole", p.MassPole}, {"length", p.Length},
		{"force_mag", p.ForceMag}, {"dt", p.DT}, {"x_threshold", p.XThreshold}, {"theta_threshold", p.ThetaThreshold},
		{"noise_scale", p.NoiseScale}} {
		pos(k.key, k.v)
	}
	stepBounds(bad, "env.cartpole", p.DT, p.Gravity)
	if p.ThetaThreshold >= math.Pi/2 {
		bad("env.cartpole.theta_threshold", "must be below π/2 (the pole falls over), got %v", p.ThetaThreshold)
	}
	if !(p.Init >= 0) || !finite(p.Init) || p.Init >= min(p.XThreshold, p.ThetaThreshold) {
		bad("env.cartpole.init", "must be a finite number >= 0 below x_threshold and theta_threshold (s_1 must not be terminal), got %v", p.Init)
	}
	if !slices.Contains(CartPoleNoise, p.Noise) {
		bad("env.cartpole.noise", "unknown noise %q (known: %v)", p.Noise, CartPoleNoise)
	}
	if !slices.Contains(NoiseDensity, p.Density) {
		bad("env.cartpole.density", "unknown density %q (known: %v)", p.Density, NoiseDensity)
	}
	if p.Noise == "next_state" && p.Density == "none" {
		bad("env.cartpole.density", "noise next_state needs a density (normal, exp, custom-sin or mog); for no noise set env.cartpole.noise: none")
	}
	if !(p.FlipProb >= 0 && p.FlipProb <= 1) {
		bad("env.cartpole.flip_prob", "must lie in [0, 1], got %v", p.FlipProb)
	}
	if p.CustomSinBase != "unit" && p.CustomSinBase != "sigma" {
		bad("env.cartpole.custom_sin_base", "unknown base %q (known: unit, sigma)", p.CustomSinBase)
	}
	if !finite(p.MogWidth) || math.Abs(p.MogWidth) > 1e3 {
		bad("env.cartpole.mog_width", "must be a finite number with |width| <= 1000, got %v", p.MogWidth)
	}
	if c.Env.ActionDim != 1 {
		bad("env.action_dim", "cartpole has one action (the force's sign or fraction), got action_dim %d", c.Env.ActionDim)
	}
	if c.Env.ActionSpace == "box" && len(c.Env.ActionLow) == 1 && len(c.Env.ActionHigh) == 1 &&
		(c.Env.ActionLow[0] < -1 || c.Env.ActionHigh[0] > 1) {
		bad("env.action_low", "cartpole's box must lie in [−1, 1] (force = force_mag·a), got [%v, %v]", c.Env.ActionLow[0], c.Env.ActionHigh[0])
	}
}

// validatePendulum checks env.pendulum and that the action is one number
// (the torque).
func (c *Config) validatePendulum(bad func(key, format string, args ...any)) {
	p := c.Env.Pendulum
	for _, k := range []struct {
		key string
		v   float64
	}{{"gravity", p.Gravity}, {"mass", p.Mass}, {"length", p.Length}, {"dt", p.DT},
		{"max_speed", p.MaxSpeed}, {"max_torque", p.MaxTorque}} {
		if !(k.v > 0) || !finite(k.v) || k.v > 1e6 {
			bad("env.pendulum."+k.key, "must be a finite number in (0, 1e6], got %v", k.v)
		}
	}
	stepBounds(bad, "env.pendulum", p.DT, p.Gravity)
	if !(p.InitTheta >= 0) || p.InitTheta > math.Pi {
		bad("env.pendulum.init_theta", "must lie in [0, π], got %v", p.InitTheta)
	}
	if !(p.InitSpeed >= 0) || !(p.InitSpeed <= p.MaxSpeed) {
		bad("env.pendulum.init_speed", "must lie in [0, max_speed = %v], got %v", p.MaxSpeed, p.InitSpeed)
	}
	c.validatePhysicsNoise(bad, "env.pendulum", p.Noise, p.NoiseStd)
	if c.Env.ActionDim != 1 {
		bad("env.action_dim", "pendulum has one action (the torque), got action_dim %d", c.Env.ActionDim)
	}
}

// validateMountainCar checks env.mountain_car and that the action is one
// number (the force).
func (c *Config) validateMountainCar(bad func(key, format string, args ...any)) {
	p := c.Env.MountainCar
	for _, k := range []struct {
		key string
		v   float64
	}{{"power", p.Power}, {"max_speed", p.MaxSpeed}} {
		if !(k.v > 0) || !finite(k.v) || k.v > 1e6 {
			bad("env.mountain_car."+k.key, "must be a finite number in (0, 1e6], got %v", k.v)
		}
	}
	for _, k := range []struct {
		key string
		v   float64
	}{{"min_position", p.MinPosition}, {"max_position", p.MaxPosition}, {"goal_position", p.GoalPosition},
		{"goal_velocity", p.GoalVelocity}, {"goal_reward", p.GoalReward}, {"init_low", p.InitLow}, {"init_high", p.InitHigh}} {
		if !finite(k.v) || math.Abs(k.v) > 1e6 {
			bad("env.mountain_car."+k.key, "must be a finite number with |value| <= 1e6, got %v", k.v)
		}
	}
	if !(p.MinPosition < p.MaxPosition) {
		bad("env.mountain_car.min_position", "must be below max_position = %v, got %v", p.MaxPosition, p.MinPosition)
	}
	if p.GoalPosition > p.MaxPosition {
		bad("env.mountain_car.goal_position", "must be at most max_position = %v (else the goal is never reached), got %v", p.MaxPosition, p.GoalPosition)
	}
	if p.GoalVelocity > p.MaxSpeed {
		bad("env.mountain_car.goal_velocity", "must be at most max_speed = %v (else the goal is never reached), got %v", p.MaxSpeed, p.GoalVelocity)
	}
	if !(p.MinPosition <= p.InitLow && p.InitLow <= p.InitHigh && p.InitHigh < p.GoalPosition) {
		bad("env.mountain_car.init_low", "want min_position <= init_low <= init_high < goal_position (s_1 must not be terminal), got [%v, %v]", p.InitLow, p.InitHigh)
	}
	c.validatePhysicsNoise(bad, "env.mountain_car", p.Noise, p.NoiseStd)
	if c.Env.ActionDim != 1 {
		bad("env.action_dim", "mountain-car has one action (the force), got action_dim %d", c.Env.ActionDim)
	}
}

// stepBounds bounds the Euler step and the gravity of a physical
// environment (checked > 0 with the other constants): a step of more than
// a second, or a gravity beyond 1000, makes the explicit Euler dynamics
// diverge within a few steps, and the learners' fits then fail halfway
// through a run instead of before it.
func stepBounds(bad func(key, format string, args ...any), section string, dt, gravity float64) {
	if dt > 1 {
		bad(section+".dt", "must be at most 1 (s), got %v: longer explicit Euler steps diverge", dt)
	}
	if gravity > 1e3 {
		bad(section+".gravity", "must be at most 1000, got %v: the Euler steps diverge within a few steps", gravity)
	}
}

// validatePhysicsNoise checks the additive next-state noise of a physical
// environment with two state variables.
func (c *Config) validatePhysicsNoise(bad func(key, format string, args ...any), section, noise string, std []float64) {
	if !slices.Contains(PhysicsNoise, noise) {
		bad(section+".noise", "unknown noise %q (known: %v)", noise, PhysicsNoise)
	}
	if len(std) != 2 {
		bad(section+".noise_std", "must hold 2 numbers, got %d", len(std))
	}
	for _, s := range std {
		if !(s >= 0) || !finite(s) || s > 1e3 {
			bad(section+".noise_std", "must lie in [0, 1000], got %v", s)
		}
	}
}

// validateModel checks the learners' model of the physical environments.
func (c *Config) validateModel(bad func(key, format string, args ...any)) {
	m := c.Model
	if len(m.Family) == 0 {
		bad("model.family", "must list a family (or one per state coordinate) of %v", ModelFamilies)
	}
	for _, f := range m.Family {
		if !slices.Contains(ModelFamilies, f) {
			bad("model.family", "unknown family %q (known: %v)", f, ModelFamilies)
		}
	}
	for _, s := range m.Sigma {
		if !(s > 0) || !finite(s) || s > 1e6 || s < 1e-6 {
			bad("model.sigma", "scales must lie in [1e-6, 1e6], got %v", s)
		}
	}
	if ds, ok := physicalStateDims[c.Env.Kind]; ok {
		// One entry for every coordinate, or one per coordinate.
		if n := len(m.Family); n > 1 && n != ds {
			bad("model.family", "%d families for %d state coordinates of %s (give one, or one per coordinate)", n, ds, c.Env.Kind)
		}
		if n := len(m.Sigma); n > 1 && n != ds {
			bad("model.sigma", "%d scales for %d state coordinates of %s (give one, or one per coordinate)", n, ds, c.Env.Kind)
		}
		if n, want := len(m.InputScale), ds+c.Env.ActionDim; n > 0 && n != want {
			bad("model.input_scale", "%d scales for the %d inputs (s, a) of %s", n, want, c.Env.Kind)
		}
	}
	if !(m.Alpha >= 1) || !finite(m.Alpha) || m.Alpha > 16 {
		bad("model.alpha", "must lie in [1, 16], got %v", m.Alpha)
	}
	if !(m.KinkBandwidth >= 0) || !finite(m.KinkBandwidth) || m.KinkBandwidth > 10 {
		bad("model.kink_bandwidth", "must lie in [0, 10] (units of the coordinate's scale), got %v", m.KinkBandwidth)
	}
	if !slices.Contains(ModelTargets, m.Target) {
		bad("model.target", "unknown target %q (known: %v)", m.Target, ModelTargets)
	}
	if !slices.Contains(LDSFeatures, m.LDSFeatures) {
		bad("model.lds_features", "unknown features %q (known: %v)", m.LDSFeatures, LDSFeatures)
	}
	for _, s := range m.InputScale {
		if !(s > 0) || !finite(s) || s > 1e6 || s < 1e-6 {
			bad("model.input_scale", "scales must lie in [1e-6, 1e6], got %v", s)
		}
	}
	ft := m.Features
	switch ft.Kind {
	case "linear", "affine":
	case "rff":
		if ft.Dim < 1 || ft.Dim > maxCount {
			bad("model.features.dim", "must lie in [1, %d], got %d", maxCount, ft.Dim)
		}
		if !(ft.Length > 0) || !finite(ft.Length) {
			bad("model.features.length", "must be a finite number > 0, got %v", ft.Length)
		} else if ft.Length < 1e-3 || ft.Length > 1e3 {
			bad("model.features.length", "must lie in [1e-3, 1e3], got %v: random Fourier features cos(ω·x/length + b) of the scaled inputs (model.input_scale) with a shorter length are noise, with a longer one constant", ft.Length)
		}
	default:
		bad("model.features.kind", "unknown features %q (known: linear, affine, rff)", ft.Kind)
	}
}

// validateTheory checks that every -ucb agent's theory β is finite: the
// constants left "auto" must be derivable from the agent's model. They are
// for Gaussian models (the gaussian family, and the LDS agents' own
// model); the other families have α₁ = inf C(s') = 0 and no derived B_psi.
func (c *Config) validateTheory(auto map[string]bool, bad func(key, format string, args ...any)) {
	f := c.Env.Family
	if c.Env.Kind != "expfam" {
		// The learners' families of model.family: derived constants exist
		// when every coordinate is Gaussian.
		f = Family{Kind: "gaussian"}
		for _, k := range c.Model.Family {
			if k != "gaussian" {
				f = Family{Kind: k}
			}
		}
	}
	if f.Kind == "gaussian" {
		return
	}
	var users []string
	for _, a := range c.Agents {
		if strings.HasSuffix(a, "-ucb") && !strings.HasPrefix(a, "lds-") {
			users = append(users, a)
		}
	}
	if len(users) == 0 {
		return
	}
	if auto["confidence.alpha1"] {
		var cs string
		switch f.Kind {
		case "custom-sin":
			cs = fmt.Sprintf("%g cos²(%g s')", f.Freq*f.Freq, f.Freq)
			if c.Env.Kind != "expfam" {
				cs = "cos²(s'/σ_i)/σ_i²"
			}
		case "exp-sin":
			cs = "cos²(s') exp(2 sin s')"
		case "x-sin":
			cs = "(sin s' + s' cos s')²"
		case "relu", "relu-mog":
			cs = "ψ'(s')ψ'(s')ᵀ, singular for s' < 0"
		default: // the bounded families: score matching weighs C by h
			cs = "h(s')ψ'(s')ψ'(s')ᵀ: its score-matching weight h at the boundary of the support"
		}
		bad("confidence.alpha1", "auto gives α₁ = inf C(s') = 0 for the %s family (C(s') = %s vanishes), so the theory β of %v is infinite; use confidence.beta: practical, or give alpha1, b_psi and b_c as numbers", f.Kind, cs, users)
		return
	}
	for _, key := range []string{"confidence.b_psi", "confidence.b_c"} {
		if auto[key] {
			bad(key, "auto is derived only for Gaussian models (env.family.kind gaussian, or the lds agents' own), not for %s; give a number for %v, or use confidence.beta: practical", f.Kind, users)
		}
	}
}

// Dims returns d_psi and d_phi implied by the family and features; ok is
// false when they cannot be determined (an invalid kind).
func (c *Config) Dims() (dpsi, dphi int, ok bool) {
	e := c.Env
	ds, da := e.Family.Dim, e.ActionDim
	if ds < 1 || da < 1 {
		return 0, 0, false
	}
	dpsi = ds
	if info, known := FamilyByName(e.Family.Kind); known {
		dpsi = ds * info.Stats
	}
	switch e.Features.Kind {
	case "linear":
		dphi = ds + da
	case "affine":
		dphi = ds + da + 1
	case "constant":
		dphi = 1
	case "rff":
		dphi = e.Features.Dim
	case "per-action":
		if len(e.Actions) == 0 || len(e.Actions)%da != 0 {
			return 0, 0, false
		}
		dphi = len(e.Actions) / da * (ds + 1)
	default:
		return 0, 0, false
	}
	return dpsi, dphi, dphi >= 1
}
