package config

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Catalogs of names accepted in a config.
var (
	FamilyKinds   = []string{"custom-sin", "exp-sin", "x-sin", "gaussian"}
	FeatureKinds  = []string{"linear", "affine", "rff", "per-action", "constant"}
	AgentNames    = []string{"sm", "lds", "mle", "oracle", "sm-ucb", "lds-ucb", "mle-ucb", "sm-ps", "lds-ps", "mle-ps"}
	PlannerModes  = []string{"constant", "random"}
	PlannerKinds  = []string{"rss", "cem", "mppi"}
	EstimateNames = []string{"sm", "lds", "mle"}
	BetaForms     = []string{"practical", "theory"}
	EnvKinds      = []string{"expfam", "cartpole", "pendulum", "mountain-car"}
	ModelFamilies = []string{"gaussian", "relu", "relu-mog", "custom-sin"}
	RolloutModes  = []string{"sample", "mean"}
	CartPoleNoise = []string{"none", "action_flip", "next_state"}
	NoiseDensity  = []string{"normal", "exp", "custom-sin", "mog"}
	ChoiceModes   = []string{"episode", "step"}
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

// Validate checks every value and returns all problems, one per line, each
// naming its key.
func (c *Config) Validate() error {
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
	}
	if len(c.Agents) == 0 {
		bad("agents", "must list at least one of %v", AgentNames)
	}
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
	}
	f := e.Family
	if !slices.Contains(FamilyKinds, f.Kind) {
		bad("env.family.kind", "unknown family %q (known: %v)", f.Kind, FamilyKinds)
	}
	positive("env.family.dim", f.Dim)
	if f.Kind != "gaussian" && !(f.Alpha >= 1 && finite(f.Alpha)) {
		bad("env.family.alpha", "must be a finite number >= 1, got %v", f.Alpha)
	}
	if f.Kind == "x-sin" && f.Alpha == 1 {
		bad("env.family.alpha", "x-sin needs alpha > 1 (not normalisable otherwise)")
	}
	if f.Kind == "custom-sin" && (f.Freq == 0 || !finite(f.Freq)) {
		bad("env.family.freq", "must be a finite non-zero number, got %v", f.Freq)
	}
	if f.Kind == "gaussian" && !(f.Sigma > 0 && finite(f.Sigma)) {
		bad("env.family.sigma", "must be a finite number > 0, got %v", f.Sigma)
	}
	if (f.Kind == "exp-sin" || f.Kind == "x-sin") && f.Dim != 1 {
		bad("env.family.dim", "%s is one-dimensional, got dim %d", f.Kind, f.Dim)
	}
	ft := e.Features
	if !slices.Contains(FeatureKinds, ft.Kind) {
		bad("env.features.kind", "unknown features %q (known: %v)", ft.Kind, FeatureKinds)
	}
	if ft.Kind == "rff" {
		positive("env.features.dim", ft.Dim)
		if !(ft.Length > 0 && finite(ft.Length)) {
			bad("env.features.length", "must be a finite number > 0, got %v", ft.Length)
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
		}
	}
	if !(e.Reward.Width > 0 && finite(e.Reward.Width)) {
		bad("env.reward.width", "must be a finite number > 0, got %v", e.Reward.Width)
	}
	if f.Dim >= 1 && (len(e.Reward.Centers) == 0 || len(e.Reward.Centers)%f.Dim != 0) {
		bad("env.reward.centers", "must hold a whole number of centres of env.family.dim = %d numbers, got %d numbers", f.Dim, len(e.Reward.Centers))
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
				}
			}
		}
	}
	if !(c.LDS.Sigma > 0 && finite(c.LDS.Sigma)) {
		bad("lds.sigma", "must be a finite number > 0, got %v", c.LDS.Sigma)
	}
	c.validateConfidence(bad)
	for _, n := range c.Estimate.SweepN {
		if n < 1 {
			bad("estimate.sweep_n", "sizes must be >= 1, got %d", n)
		} else if n > 100_000_000 {
			bad("estimate.sweep_n", "sizes must be <= 100000000, got %d", n)
		}
	}
	return errors.Join(problems...)
}

// validateConfidence checks the confidence section, and that λ > 0 when an
// agent needs the confidence set (V + λI must be invertible before any
// data, and log det(V/λ + I) must exist).
func (c *Config) validateConfidence(bad func(key, format string, args ...any)) {
	k := c.Confidence
	if !slices.Contains(BetaForms, k.Beta) {
		bad("confidence.beta", "unknown form %q (known: %v)", k.Beta, BetaForms)
	}
	if !slices.Contains(ChoiceModes, k.Choice) {
		bad("confidence.choice", "unknown choice %q (known: %v)", k.Choice, ChoiceModes)
	}
	nonNegative := func(key string, v float64) {
		if !(v >= 0) || !finite(v) {
			bad(key, "must be a finite number >= 0, got %v", v)
		}
	}
	nonNegative("confidence.scale", k.Scale)
	nonNegative("confidence.b_psi", k.BPsi)
	nonNegative("confidence.b_c", k.BC)
	nonNegative("confidence.b_star", k.BStar)
	nonNegative("confidence.posterior_scale", k.PosteriorScale)
	if !(k.Delta > 0 && k.Delta < 1) {
		bad("confidence.delta", "must lie in (0, 1), got %v", k.Delta)
	}
	if !(k.Alpha1 > 0) || !finite(k.Alpha1) {
		bad("confidence.alpha1", "must be a finite number > 0, got %v", k.Alpha1)
	}
	if k.Candidates < 1 {
		bad("confidence.candidates", "must be >= 1, got %d", k.Candidates)
	}
	var users []string
	for _, a := range c.Agents {
		if UsesConfidence(a) {
			users = append(users, a)
		}
	}
	if len(users) > 0 && c.Lambda == 0 {
		bad("lambda", "must be > 0 for agents %v, whose confidence set |W − Ŵ|_{V+λI} ≤ β needs V + λI invertible, got 0", users)
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
}

// validateCartPole checks env.cartpole and the parts of env that apply to
// it (actions of one number each).
func (c *Config) validateCartPole(bad func(key, format string, args ...any)) {
	p := c.Env.CartPole
	pos := func(key string, v float64) {
		if !(v > 0) || !finite(v) {
			bad("env.cartpole."+key, "must be a finite number > 0, got %v", v)
		}
	}
	for _, k := range []struct {
		key string
		v   float64
	}{{"gravity", p.Gravity}, {"mass_cart", p.MassCart}, {"mass_pole", p.MassPole}, {"length", p.Length},
		{"force_mag", p.ForceMag}, {"dt", p.DT}, {"x_threshold", p.XThreshold}, {"theta_threshold", p.ThetaThreshold},
		{"noise_scale", p.NoiseScale}} {
		pos(k.key, k.v)
	}
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
	if !(p.MinPosition <= p.InitLow && p.InitLow <= p.InitHigh && p.InitHigh < p.GoalPosition) {
		bad("env.mountain_car.init_low", "want min_position <= init_low <= init_high < goal_position (s_1 must not be terminal), got [%v, %v]", p.InitLow, p.InitHigh)
	}
	c.validatePhysicsNoise(bad, "env.mountain_car", p.Noise, p.NoiseStd)
	if c.Env.ActionDim != 1 {
		bad("env.action_dim", "mountain-car has one action (the force), got action_dim %d", c.Env.ActionDim)
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
		}
	default:
		bad("model.features.kind", "unknown features %q (known: linear, affine, rff)", ft.Kind)
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
