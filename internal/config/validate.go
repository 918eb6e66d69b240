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
	EstimateNames = []string{"sm", "lds", "mle"}
	BetaForms     = []string{"practical", "theory"}
	ChoiceModes   = []string{"episode", "step"}
	ValueModes    = []string{"lookahead", "rollout"}
	LambdaModes   = []string{"shared", "theorem"}
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
	if !slices.Contains(PlannerModes, c.Planner.Mode) {
		bad("planner.mode", "unknown mode %q (known: %v)", c.Planner.Mode, PlannerModes)
	}
	e := c.Env
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
		if c.Planner.Mode != "random" {
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
	nonNegative("confidence.b_star", k.BStar)
	nonNegative("confidence.posterior_scale", k.PosteriorScale)
	if !(k.Delta > 0 && k.Delta < 1) {
		bad("confidence.delta", "must lie in (0, 1), got %v", k.Delta)
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

// validateTheory checks that every -ucb agent's theory β is finite: the
// constants left "auto" must be derivable from the agent's model. They are
// for Gaussian models (the gaussian family, and the LDS agents' own
// model); the other families have α₁ = inf C(s') = 0 and no derived B_psi.
func (c *Config) validateTheory(auto map[string]bool, bad func(key, format string, args ...any)) {
	f := c.Env.Family
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
		case "exp-sin":
			cs = "cos²(s') exp(2 sin s')"
		case "x-sin":
			cs = "(sin s' + s' cos s')²"
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
