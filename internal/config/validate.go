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
	RolloutModes = []string{"sample", "mean"}
	ModelTargets = []string{"next", "delta"}
)

// LDSFeatureNames returns the values model.lds_features accepts: the
// feature maps that declare Part.LDSUsable, in registration order, and
// "model" (the model class's own features).
func LDSFeatureNames() []string {
	var out []string
	for _, p := range Parts("model.features.kind") {
		if p.LDSUsable {
			out = append(out, p.Name)
		}
	}
	return append(out, "model")
}

// UsesConfidence reports whether an agent plans with the confidence set of
// its estimate (Part.Confidence: the optimistic and posterior-sampling
// agents); false for an unknown name.
func UsesConfidence(agent string) bool {
	p, ok := lookup("agents", agent)
	return ok && p.Confidence != ""
}

// Optimistic reports whether an agent plans optimistically on the boundary
// of its confidence set (Part.Confidence "ucb"); false for an unknown name.
func Optimistic(agent string) bool {
	p, ok := lookup("agents", agent)
	return ok && p.Confidence == "ucb"
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
	// MinSupportWidth is the narrowest support of a family (an expression
	// family's support, truncated-gaussian's [low, high]): on a support of
	// width w the natural parameters that shape a density, and so the
	// learners' estimates, are of order 1/w, and below 1e-6 they leave what
	// the samplers and the quadrature resolve (a support 1e-12 wide drew
	// NaN states from Ŵ ≈ 2e13 within two episodes).
	MinSupportWidth = 1e-6
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
// are not checked: smrl estimate runs no agent. The steps run in this
// order, so the problems are reported in the order of the keys.
func (c *Config) validate(agents bool) error {
	var problems []error
	bad := func(key, format string, args ...any) {
		problems = append(problems, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}
	c.validateCore(bad)
	c.validateStats(bad, agents)
	c.validatePlot(bad)
	if agents && len(c.Agents) == 0 {
		bad("agents", "must list at least one of %v", Names("agents"))
	}
	if agents {
		c.validateAgentList(bad)
	}
	c.validateParts(bad, agents)
	dataBound := agents && c.validateDataBound(bad)
	if !slices.Contains(RolloutModes, c.Planner.Rollout) {
		bad("planner.rollout", "unknown rollout %q (known: %v)", c.Planner.Rollout, RolloutModes)
	}
	c.validateLearnerModel(bad)
	c.validateEnvRanges(bad)
	c.validateActions(bad)
	c.validateReward(bad)
	c.validateW0(bad)
	c.validateSnapshot(bad)
	if c.Uses("sampler") {
		c.validateSampler(bad)
	}
	if agents && !dataBound { // the bound of a refused family would count statistics no agent holds
		c.checkTrialMemory(bad)
	}
	c.checkAgents = agents
	c.validateShared(bad)
	c.validateExpr(bad)
	c.validateSweepN(bad)
	return errors.Join(problems...)
}

// inRange reports key unless 1 <= v <= hi. Upper bounds keep allocations
// and run times finite: each is far beyond any experiment this machine can
// run, and a typo such as an extra digit block fails here instead of as a
// crash or an endless run.
func inRange(bad Bad, key string, v, hi int) {
	if v < 1 {
		bad(key, "must be >= 1, got %d", v)
	} else if v > hi {
		bad(key, "must be <= %d, got %d", hi, v)
	}
}

// validateCore checks the keys every run reads: the name, the sizes, the
// workers and the ridge λ.
func (c *Config) validateCore(bad Bad) {
	if !nameRE.MatchString(c.Name) || c.Name == "." || c.Name == ".." {
		bad("name", "must be a file name of up to 100 letters, digits, '.', '_', '+' and '-', not starting with '.' or '-', got %q: results go to results/<name>/", c.Name)
	}
	inRange(bad, "seeds", c.Seeds, 1_000_000)
	inRange(bad, "episodes", c.Episodes, 1_000_000)
	inRange(bad, "env.horizon", c.Env.Horizon, 1_000_000)
	inRange(bad, "planner.n_rollouts", c.Planner.NRollouts, 1_000_000)
	inRange(bad, "planner.tau", c.Planner.Tau, 10_000)
	inRange(bad, "planner.n_sequences", c.Planner.NSequences, 100_000)
	inRange(bad, "env.action_dim", c.Env.ActionDim, 10_000)
	inRange(bad, "estimate.n", c.Estimate.N, 100_000_000)
	inRange(bad, "estimate.repeats", c.Estimate.Repeats, 100_000)
	if c.Workers < 0 {
		bad("workers", "must be >= 0 (0 = all cores), got %d", c.Workers)
	}
	if !(c.Lambda >= 0) || !finite(c.Lambda) {
		bad("lambda", "must be a finite number >= 0, got %v", c.Lambda)
	} else if c.Lambda > 1e6 {
		bad("lambda", "must be <= 1e6, got %v: a larger ridge shrinks every estimate to 0", c.Lambda)
	}
}

// validateLearnerModel checks the learners' model section when the
// environment uses it (the keys the families declare there are checked by
// the families' parts).
func (c *Config) validateLearnerModel(bad Bad) {
	if c.Uses("model") {
		c.validateModel(bad)
	}
}

// validateEnvRanges checks the initial range of the states and the
// dimension of the family.
func (c *Config) validateEnvRanges(bad Bad) {
	e := c.Env
	if !finite(e.InitLow) || !finite(e.InitHigh) || e.InitLow > e.InitHigh {
		bad("env.init_low", "must be finite and <= env.init_high, got [%v, %v]", e.InitLow, e.InitHigh)
	} else {
		Between(bad, "env.init_low", e.InitLow, 0, MaxAbsState, StateWhy)
		Between(bad, "env.init_high", e.InitHigh, 0, MaxAbsState, StateWhy)
	}
	inRange(bad, "env.family.dim", e.Family.Dim, maxCount)
}

// validateActions checks the action set of env.action_space: a discrete
// set holds whole actions, a box finite bounds with low <= high, and every
// number lies where states may.
func (c *Config) validateActions(bad Bad) {
	e := c.Env
	switch e.ActionSpace {
	case "discrete":
		if e.ActionDim >= 1 && (len(e.Actions) == 0 || len(e.Actions)%e.ActionDim != 0) {
			bad("env.actions", "must hold a whole number of actions of env.action_dim = %d numbers, got %d numbers", e.ActionDim, len(e.Actions))
		}
	case "box":
		if len(e.ActionLow) != e.ActionDim || len(e.ActionHigh) != e.ActionDim {
			bad("env.action_low", "and env.action_high must hold env.action_dim = %d numbers each, got %d and %d", e.ActionDim, len(e.ActionLow), len(e.ActionHigh))
			break
		}
		for i := range e.ActionLow {
			if !finite(e.ActionLow[i]) || !finite(e.ActionHigh[i]) || e.ActionLow[i] > e.ActionHigh[i] {
				bad("env.action_low", "coordinate %d: want finite bounds with action_low <= action_high, got [%v, %v]", i, e.ActionLow[i], e.ActionHigh[i])
			} else {
				Between(bad, "env.action_low", e.ActionLow[i], 0, MaxAbsState, actionWhy)
				Between(bad, "env.action_high", e.ActionHigh[i], 0, MaxAbsState, actionWhy)
			}
		}
	}
	for _, a := range e.Actions {
		if !finite(a) {
			bad("env.actions", "must be finite, got %v", a)
		} else {
			Between(bad, "env.actions", a, 0, MaxAbsState, actionWhy)
		}
	}
}

// validateReward checks the bumps of env.reward; an expression replaces
// them (validate_expr.go checks it), and their width then goes unread.
func (c *Config) validateReward(bad Bad) {
	r, dim := c.Env.Reward, c.Env.Family.Dim
	if r.Expression == "" && !(r.Width > 0 && finite(r.Width)) {
		bad("env.reward.width", "must be a finite number > 0, got %v", r.Width)
	}
	if r.Expression == "" && dim >= 1 && (len(r.Centers) == 0 || len(r.Centers)%dim != 0) {
		bad("env.reward.centers", "must hold a whole number of centres of env.family.dim = %d numbers, got %d numbers", dim, len(r.Centers))
	}
	for _, x := range r.Centers {
		Between(bad, "env.reward.centers", x, 0, MaxAbsState, StateWhy)
	}
}

// validateW0 checks the shape of the true W against the family and the
// features (when both are known), and the size of its entries.
func (c *Config) validateW0(bad Bad) {
	dpsi, dphi, ok := c.Dims()
	if !ok || !c.Uses("env.w0") {
		return
	}
	e := c.Env
	f, ft := e.Family, e.Features
	if len(e.W0) == 0 && c.noTrueW {
		return // no true W: the transitions come from --data
	}
	if len(e.W0) == 0 {
		bad("env.w0", "is empty: the true W of the environment is needed here (d_psi = %d rows of d_phi = %d); only smrl estimate --data and a saved model's config go without one", dpsi, dphi)
		return
	}
	if len(e.W0) != dpsi && len(e.W0) > 0 && c.Origin("env.w0") == "default" {
		bad("env.w0", "is not set, and the embedded default (the paper's W0, %d × %d) does not fit this family and features: they need d_psi = %d rows of d_phi = %d numbers; set env.w0 (smrl estimate --data needs none: docs/models.md)", len(e.W0), len(e.W0[0]), dpsi, dphi)
		return
	}
	if len(e.W0) != dpsi {
		bad("env.w0", "has %d rows, want d_psi = %d for family %s with dim %d", len(e.W0), dpsi, f.Kind, f.Dim)
	}
	// The bound is the same for every family; why differs with the sampler.
	why := "the sampler tabulates natural parameters η = W0·phi with |η| <= 256; beyond, every draw needs a full quadrature (hours per run) or fails"
	if fam, _ := lookup("env.family.kind", f.Kind); fam.ConstantC {
		why = "larger entries drive the states of s' = W0·phi + noise out of range within a few steps"
	}
	for i, row := range e.W0 {
		if len(row) != dphi {
			bad("env.w0", "row %d has %d entries, want d_phi = %d for %s features", i, len(row), dphi, ft.Kind)
		}
		for _, w := range row {
			if !finite(w) {
				bad("env.w0", "must be finite, got %v", w)
			} else {
				Between(bad, "env.w0", w, 0, MaxAbsW0, why)
			}
		}
	}
}

// validateSweepN checks the sizes of smrl estimate's sweep.
func (c *Config) validateSweepN(bad Bad) {
	for _, n := range c.Estimate.SweepN {
		if n < 1 {
			bad("estimate.sweep_n", "sizes must be >= 1, got %d", n)
		} else if n > 100_000_000 {
			bad("estimate.sweep_n", "sizes must be <= 100000000, got %d", n)
		}
	}
}

// Why messages shared by several bounds.
const (
	// StateWhy says why states are bounded by MaxAbsState.
	StateWhy  = "states cannot be drawn beyond ±1024, where the samplers normalise the densities"
	actionWhy = "actions enter phi(s, a) as states do, and states cannot be drawn beyond ±1024"
	sigmaWhy  = "score matching weighs the Gaussian by 1/sigma⁴, which under- or overflows against lambda beyond"
)

// learnerShape returns the shape of the agents' model for Part.FitFloats:
// nblocks blocks of m statistics, d_phi features, constant C; key names the
// config key that sets d_phi (or the blocks). ok is false when the shape
// cannot be determined (an invalid kind).
func (c *Config) learnerShape() (nblocks, m, dphi int, constC bool, key string, ok bool) {
	if c.EnvDim() == DimFromEnv {
		return 0, 0, 0, false, "", false // known once the environment is built
	}
	if ds := c.EnvDim(); ds > 0 {
		m = 1
		for _, f := range c.Model.Family {
			if p, ok := lookup("model.family", f); ok {
				m = max(m, familyStats(c, p, 1))
			}
		}
		da := c.Env.ActionDim
		p, found := lookup("model.features.kind", c.Model.Features.Kind)
		if !found || p.PhiDim == nil {
			return 0, 0, 0, false, "", false
		}
		dphi, ok = p.PhiDim(c, "model.features", ds, da)
		return ds, m, dphi, false, "model.features.dim", ok && dphi >= 1 && da >= 1
	}
	dpsi, dphi, ok := c.Dims()
	key = "env.family.dim"
	if p, found := lookup("env.features.kind", c.Env.Features.Kind); found && p.SizeKey != "" {
		key = p.SizeKey
		if !strings.Contains(key, ".") {
			key = "env.features." + key
		}
	}
	m = 1
	if p, known := lookup("env.family.kind", c.Env.Family.Kind); known && p.StatsOf == nil {
		m = max(p.Stats, 1)
	}
	fam, _ := lookup("env.family.kind", c.Env.Family.Kind)
	return dpsi / m, m, dphi, fam.ConstantC, key, ok
}

// checkTrialMemory refuses model shapes for which an agent's matrices
// would exceed MaxTrialFloats, naming the key that sets d_phi (or d_psi).
func (c *Config) checkTrialMemory(bad func(key, format string, args ...any)) {
	nblocks, m, dphi, constC, key, ok := c.learnerShape()
	if !ok || dphi > 10*maxCount {
		return
	}
	for _, a := range c.Agents {
		p, _ := lookup("agents", a)
		if p.FitFloats == nil {
			continue // an agent that fits nothing
		}
		if need := p.FitFloats(nblocks, m, dphi, constC); need > MaxTrialFloats {
			bad(key, "the agents' model has %d × %d statistics and d_phi = %d features, for which agent %s holds %.3g numbers (%s), more than the %s smrl allows per trial", nblocks, m, dphi, a, need, bytesText(need), bytesText(MaxTrialFloats))
			return
		}
	}
}

// CheckFitMemory is checkTrialMemory for one estimation method (smrl
// estimate, whose methods are chosen on its command line) whose matrices
// hold floats(nblocks, m, dphi, constC) numbers (Part.FitFloats).
func (c *Config) CheckFitMemory(method string, floats func(nblocks, m, dphi int, constC bool) float64) error {
	nblocks, m, dphi, constC, _, ok := c.learnerShape()
	if !ok {
		return nil
	}
	if need := floats(nblocks, m, dphi, constC); need > MaxTrialFloats {
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

// CheckSequenceMemory refuses a planner whose n sampled action sequences
// (set by key), of L = max(planner.tau − 1, 1) actions per decision, would
// hold more than MaxTrialFloats numbers (an action is env.action_dim
// numbers in a box, one index in a discrete set). Keys out of their own
// ranges are reported by those checks and skipped here. Planner parts
// call it from their Validate.
func (c *Config) CheckSequenceMemory(bad Bad, key string, n int) {
	p, e := c.Planner, c.Env
	if p.Tau < 1 || p.Tau > 10_000 || e.ActionDim < 1 || e.ActionDim > 10_000 || n < 1 || n > 100_000 {
		return
	}
	steps := max(p.Tau-1, 1)
	per, perText := e.ActionDim, fmt.Sprintf("env.action_dim = %d numbers", e.ActionDim)
	if e.ActionSpace != "box" {
		per, perText = 1, "1 number (an index into env.actions)"
	}
	seqs := "1 sampled sequence"
	if n > 1 || key != "planner.tau" {
		seqs = fmt.Sprintf("%d sampled sequences", n)
	}
	if need := float64(n) * float64(steps) * float64(per); need > MaxTrialFloats {
		bad(key, "%s × (planner.tau − 1 = %d) steps × %s per action are %.3g numbers (%s) per decision, more than the %s smrl allows per trial",
			seqs, steps, perText, need, bytesText(need), bytesText(MaxTrialFloats))
	}
}

// validateModel checks the learners' model of the physical environments.
func (c *Config) validateModel(bad func(key, format string, args ...any)) {
	m := c.Model
	if len(m.Family) == 0 {
		bad("model.family", "must list a family (or one per state coordinate) of %v", Names("model.family"))
	}
	for _, s := range m.Sigma {
		if !(s > 0) || !finite(s) || s > 1e6 || s < 1e-6 {
			bad("model.sigma", "scales must lie in [1e-6, 1e6], got %v", s)
		}
	}
	if ds := c.EnvDim(); ds > 0 {
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
	if !slices.Contains(ModelTargets, m.Target) {
		bad("model.target", "unknown target %q (known: %v)", m.Target, ModelTargets)
	}
	if known := LDSFeatureNames(); !slices.Contains(known, m.LDSFeatures) {
		bad("model.lds_features", "unknown features %q (known: %v)", m.LDSFeatures, known)
	}
	for _, s := range m.InputScale {
		if !(s > 0) || !finite(s) || s > 1e6 || s < 1e-6 {
			bad("model.input_scale", "scales must lie in [1e-6, 1e6], got %v", s)
		}
	}
}

// ChecksAgents reports whether the validation under way checks the
// agents (not for smrl estimate, which runs none): a shared section's
// Validate asks it.
func (c *Config) ChecksAgents() bool { return c.checkAgents }

// ValidateTheory checks that every -ucb agent's theory β is finite: the
// constants left "auto" must be derivable from the agent's model. They are
// for Gaussian models (the gaussian family, and the LDS agents' own
// model); the other families have α₁ = inf C(s') = 0 and no derived B_psi.
func (c *Config) ValidateTheory(auto map[string]bool, bad Bad) {
	// The family whose C(s') is not constant, if any: the env's, or
	// one of the learners' model.family (derived constants exist when
	// every coordinate is Gaussian).
	var name, cs string
	if c.Uses("env.family") {
		if p, ok := lookup("env.family.kind", c.Env.Family.Kind); ok && !p.ConstantC {
			name, cs = p.Name, "?"
			if p.C != nil {
				cs = p.C(c)
			}
		}
	} else {
		for _, k := range c.Model.Family {
			if p, ok := lookup("model.family", k); ok && !p.ConstantC {
				name, cs = p.Name, "?"
				if p.C != nil {
					cs = p.C(c)
				}
			}
		}
	}
	if name == "" {
		return
	}
	var users []string
	for _, a := range c.Agents {
		if p, _ := lookup("agents", a); p.Confidence == "ucb" && !p.GaussianModel {
			users = append(users, a)
		}
	}
	if len(users) == 0 {
		return
	}
	if auto["confidence.alpha1"] {
		bad("confidence.alpha1", "auto gives α₁ = inf C(s') = 0 for the %s family (C(s') = %s vanishes), so the theory β of %v is infinite; use confidence.beta: practical, or give alpha1, b_psi and b_c as numbers", name, cs, users)
		return
	}
	for _, key := range []string{"confidence.b_psi", "confidence.b_c"} {
		if auto[key] {
			bad(key, "auto is derived only for Gaussian models (env.family.kind gaussian, or the lds agents' own), not for %s; give a number for %v, or use confidence.beta: practical", name, users)
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
	if p, known := lookup("env.family.kind", e.Family.Kind); known {
		dpsi = familyStats(c, p, ds)
	}
	p, found := lookup("env.features.kind", e.Features.Kind)
	if !found || p.PhiDim == nil {
		return 0, 0, false
	}
	dphi, ok = p.PhiDim(c, "env.features", ds, da)
	return dpsi, dphi, ok && dphi >= 1
}

// Between reports key unless lo <= |x| <= hi (lo = 0: any x with |x| <=
// hi), explaining a violation with why. Parts use it in their Validate.
func Between(bad Bad, key string, x, lo, hi float64, why string) {
	if !finite(x) || math.Abs(x) < lo || math.Abs(x) > hi {
		if lo == 0 {
			bad(key, "must lie in [−%g, %g], got %v: %s", hi, hi, x, why)
		} else {
			bad(key, "must have %g <= |%s| <= %g, got %v: %s", lo, key, hi, x, why)
		}
	}
}

// SupportWhy says why a support must be MinSupportWidth wide.
const SupportWhy = "a degenerate support: the natural parameters that shape a density on a support of width w are of order 1/w, beyond what the samplers and the quadrature resolve"

// SigmaWhy says why Gaussian scales are bounded to [1e-3, 1e3].
const SigmaWhy = sigmaWhy

// MaxCount bounds sizes such as feature dimensions.
const MaxCount = maxCount

// validateDataBound refuses a data-bound model.family (Part.DataBound) in
// a run with a learning agent (Part.FitFloats) that does not bind it
// (Part.BindsData): agent.New would refuse it at the first trial's start,
// after the results directory exists. With an agent that binds it, the
// family's BoundValidate checks the rest. It reports whether the family
// is data-bound with learners, for which checkTrialMemory's bound (a
// fixed family's blocks) does not hold.
func (c *Config) validateDataBound(bad Bad) bool {
	if !c.Uses("model.family") {
		return false
	}
	var refused, binders []string
	for _, a := range c.Agents {
		p, ok := lookup("agents", a)
		switch {
		case !ok || p.FitFloats == nil || slices.Contains(refused, a) || slices.Contains(binders, a):
		case p.BindsData:
			binders = append(binders, a)
		default:
			refused = append(refused, a)
		}
	}
	if len(refused)+len(binders) == 0 {
		return false
	}
	for _, name := range c.Model.Family {
		p, ok := lookup("model.family", name)
		if !ok || p.DataBound == "" {
			continue
		}
		if len(refused) > 0 {
			bad("model.family", "%s is bound to the data at each refit, which agent%s %s cannot do (of the learners, %s can): %s",
				name, plural(len(refused)), strings.Join(refused, ", "), strings.Join(dataBinders(), ", "), p.DataBound)
		} else if p.BoundValidate != nil {
			p.BoundValidate(c, bad)
		}
		return true
	}
	return false
}

// DataBoundFamily returns the data-bound family of c's model.family
// (Part.DataBound), "" when it has none or c's agents use no model.
func DataBoundFamily(c *Config) string {
	if !c.Uses("model.family") {
		return ""
	}
	for _, name := range c.Model.Family {
		if p, ok := lookup("model.family", name); ok && p.DataBound != "" {
			return name
		}
	}
	return ""
}

// dataBinders are the registered agents that bind a data-bound family
// (Part.BindsData), in registration order.
func dataBinders() []string {
	var out []string
	for _, n := range Names("agents") {
		if p, ok := lookup("agents", n); ok && p.BindsData {
			out = append(out, n)
		}
	}
	return out
}

// plural is "s" for n ≠ 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// validateSnapshot refuses a value that the run's config.yaml could not
// hold, before any directory is claimed: yaml's encoder refuses some
// strings (a tab in a multi-line string of a list), and a run that failed
// only when it wrote its snapshot left a claimed, empty directory.
func (c *Config) validateSnapshot(bad func(key, format string, args ...any)) {
	root, err := encodeNode(c)
	if err == nil {
		err = c.mergeSharedNodes(root) // the parts' sections
	}
	if err == nil {
		return
	}
	key, cause := "config", err
	var se *snapshotError
	if errors.As(err, &se) {
		key, cause = se.key, se.err
	}
	bad(key, "cannot be written to the snapshot config.yaml (the YAML encoder says: %v); write the value without tabs or characters YAML cannot hold", cause)
}
