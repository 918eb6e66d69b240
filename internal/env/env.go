// Package env builds the environment of an experiment from its config: the
// true transition, the task the agents are told (reward and terminal states),
// the action set, the horizon and the initial states, and the model class
// the learning agents fit.
//
// An episode starts at s_1 drawn by Init and runs at most H steps. At a
// non-terminal state s the agent plays a and collects r(s, a); the
// environment moves to s' ~ P(· | s, a); if s' is terminal the agent also
// collects the terminal reward of s' and the episode ends. So the return of
// an episode is
//
//	Σ_{h < L} r(s_h, a_h) + 1{s_{L+1} terminal}·r_T(s_{L+1}),  L = its length ≤ H.
//
// Kinds (env.kind), each one file registered in kinds:
//
//	expfam    the paper's MDP: P_W0(s'|s,a) = q(s') exp(<psi(s'), W0 phi(s,a)> − Z),
//	          r(s) = Σ_k exp(−width·|s − c_k|²), never terminates; or any
//	          family, features, reward and terminal states written as
//	          expressions (expr.go, docs/expressions.md)
//	cartpole  the Barto–Sutton–Anderson cart-pole with the SMRL authors' noise
//	          variants, r = 1 per step, terminal when the pole or cart leaves
//	          its bounds
//	pendulum  Gymnasium's Pendulum-v1 swing-up, state (cos θ, sin θ, θ̇),
//	          r = −(θ² + 0.1θ̇² + 0.001u²), never terminates
//	mountain-car  Gymnasium's MountainCarContinuous-v0, r = −0.1a² per step
//	          and 100 on reaching the goal, which is terminal
//	lq        linear dynamics s' = A s + B a + σε, r = −(sᵀQs + aᵀRa), box
//	          actions, never terminates (the lqr agent plays its optimum)
//	acrobot   Gymnasium's Acrobot-v1, observation (cos θ1, sin θ1, cos θ2,
//	          sin θ2, θ̇1, θ̇2), r = −1 per step until the tip is above
//	          the bar, which is terminal
//	external  a simulator in another process speaking newline-delimited JSON
//	          (docs/external.md): its spec gives d_s, the actions and H;
//	          the learners plan with env.reward.expression
//
// Adding a kind is one file with a Builder plus one line in kinds (and its
// config section and catalog entry in package config).
package env

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// Task is what the agents are told about the environment: the reward and the
// terminal states. Implementations are safe for concurrent use.
type Task interface {
	// Reward returns r(s, a), the reward of playing a in the non-terminal
	// state s.
	Reward(s, a []float64) float64
	// Terminal reports whether s ends the episode, and the reward collected
	// on entering it. It is never called when Terminates is false. done
	// with a NaN reward means the terminal condition is undefined at s
	// (env.terminal compares a NaN there): callers stop with an error
	// naming env.terminal.
	Terminal(s []float64) (done bool, bonus float64)
	// Terminates reports whether any state can be terminal.
	Terminates() bool
}

// Survival is a Task that describes itself in closed form, so that a
// planner can score the states of its rollouts without a call per state:
//
//	r(s, a) = Reward for every non-terminal s and every a,
//	s terminal ⇔ s_i < Lo or s_i > Hi for some bound (i, Lo, Hi) of Bounds,
//	with the terminal reward Bonus
//
// (a NaN coordinate is inside its bounds, as the comparisons say). Its
// Reward, Terminal and Terminates must agree with the description for
// every state (the cart-pole's task: +1 per step, terminal when the cart or
// the pole leaves its bounds).
type Survival interface {
	Task
	Survival() SurvivalSpec
}

// SurvivalSpec is a Survival task's description.
type SurvivalSpec struct {
	Reward, Bonus float64
	Bounds        []Bound
}

// Ends reports whether s is terminal: some s_I < Lo or s_I > Hi.
func (sp *SurvivalSpec) Ends(s []float64) bool {
	for i := range sp.Bounds {
		b := &sp.Bounds[i]
		if x := s[b.I]; x < b.Lo || x > b.Hi {
			return true
		}
	}
	return false
}

// Score returns what reaching s adds to a rollout's return, and whether the
// rollout stops there: Bonus when s is terminal, Reward otherwise.
func (sp *SurvivalSpec) Score(s []float64) (reward float64, stop bool) {
	if sp.Ends(s) {
		return sp.Bonus, true
	}
	return sp.Reward, false
}

// Bound is one coordinate's bounds, Lo ≤ s_I ≤ Hi, of a Survival task's
// non-terminal states.
type Bound struct {
	I      int
	Lo, Hi float64
}

// Shaped is a Task that also gives its planners a potential Φ(s): a
// planner adds Φ of a rollout's last state to the rollout's return. That
// is potential-based shaping, r + Φ(s') − Φ(s) summed along the rollout
// (Ng, Harada and Russell 1999; the −Φ(s_h) term is the same for every
// sequence of a decision and is dropped), which leaves the optimal policy
// of the infinite problem unchanged and gives a short lookahead a
// terminal value where the reward is flat. Episode returns never include
// it.
type Shaped interface {
	Potential(s []float64) float64
}

// Simulator draws s' ~ P(· | s, a) into out. It is not safe for concurrent
// use: each goroutine makes its own.
type Simulator interface {
	Step(s, a []float64, rng *rand.Rand, out []float64)
}

// ScoredStepper is a true Simulator that scores its own steps: ScoredStep
// is Step and returns the step's reward, which may depend on what the
// observation omits (the MuJoCo tasks' forward progress Δx/dt, x not
// being observed). The runner takes a true step's reward from it instead
// of Task.Reward(s, a); planners still score with the Task.
type ScoredStepper interface {
	Simulator
	ScoredStep(s, a []float64, rng *rand.Rand, out []float64) float64
}

// RewardStepper is a deterministic Simulator that can also score a state:
// StepReward(s, a, out) writes Step(s, a, ·, out) and returns
// Reward(s, a) of the task t for which Scores(t) holds, bit for bit those
// of the two calls, computing what they share once (the pendulum's angle
// of s). Planners' rollouts, which score every state they step from, use
// it when Scores(their task) holds.
type RewardStepper interface {
	Simulator
	Scores(t Task) bool
	StepReward(s, a, out []float64) float64
}

// BatchRewardStepper is a RewardStepper that steps a batch of states
// together, faster than one StepReward call each and to the same bits:
// StepRewards sets
//
//	rw[k] = StepReward(xs[k·d_s : (k+1)·d_s], acts[k], out[k·d_s : (k+1)·d_s])
//
// for k < len(rw), the states laid end to end (out must not alias xs).
// Planners evaluate the sequences of one decision together through it
// (Rollouts.Values) when their simulator draws nothing.
type BatchRewardStepper interface {
	RewardStepper
	StepRewards(xs []float64, acts [][]float64, out, rw []float64)
}

// BatchRewarder is a Task that scores a batch of states together, faster
// than one Reward call each and to the same bits: Rewards sets
//
//	out[t] = Reward(xs[t·d_s : (t+1)·d_s], acts[t])  for t < len(out),
//
// the states laid end to end (xs holds len(out)·d_s numbers, acts
// len(out) actions). Planners' rollouts of a task that does not terminate
// score each rollout's states in one call.
type BatchRewarder interface {
	Task
	Rewards(xs []float64, acts [][]float64, out []float64)
}

// Dynamics is the true transition of an environment.
type Dynamics interface {
	// NewSimulator returns a simulator of the true transition with its own
	// scratch space.
	NewSimulator() Simulator
	// NewMean returns a simulator of the mean transition E[s' | s, a], which
	// draws nothing (the oracle's model for planner.rollout: mean).
	NewMean() Simulator
}

// Box is a box of continuous actions, a_i ∈ [Low_i, High_i].
type Box struct{ Low, High []float64 }

// ModelSpec is the model class of the learning agents: a family for s' with
// features phi(s, a), and the truth where it lies in the class.
type ModelSpec struct {
	Family   expfam.Distribution // the sm and mle agents' family
	Features expfam.Features
	// Scales are the state coordinates' scales σ_i: the learners' base
	// scales (model.sigma or the environment's noise scales), 1 in
	// env.kind expfam.
	Scales []float64
	// LDSSigma is the noise scale of the LDS agent's Gaussian model,
	// s' = W phi + N(0, diag(σ²)), per coordinate: lds.sigma·Scales, set
	// by the lds estimator's hook (RegisterModelHook).
	LDSSigma []float64
	// W0 is the true W when the true transition is in Family (expfam); nil
	// otherwise. The oracle then plans with P_W0, and agents report |Ŵ − W0|.
	W0 []float64
	// KinkBandwidth is, per coordinate, the kernel bandwidth of score
	// matching's kink term (0: ignored), used when Kink is "kernel"; see
	// estimator.SM.EstimateKinks. Set by the relu families' Family.ModelClass
	// hook (model.kink_bandwidth), as Kink is.
	KinkBandwidth []float64
	// Kink is model.kink: how score matching treats the kinks of the relu
	// families (SMSetup gives the weights and bandwidths).
	Kink string
	// LDSFeatures are the LDS agent's features; nil: Features.
	LDSFeatures expfam.Features
	// Delta is true when the learners model s' − s instead of s': they fit
	// W to (phi(s, a), s' − s) and their rollouts add s back.
	Delta bool
	// SMFloor is sm.floor, the information floor of score matching
	// (estimator.SM.SetFloor), for the sm agents and smrl estimate alike,
	// set by the sm estimator's hook (RegisterModelHook).
	SMFloor float64
	// Init maps an estimator's name (sm, lds, mle) to the vec(Ŵ) its
	// learners plan with until their first refit (init_model); a learner
	// whose estimator has none starts from W = 0.
	Init map[string][]float64
	// Own maps an estimator's name to the settings of its own section
	// that its fitter needs (ksm: the section ksm), set by its hook
	// (RegisterModelHook); env reads none of them.
	Own map[string]any
}

// MDP is an episodic environment.
type MDP struct {
	Kind     string
	Dim      int // d_s
	Horizon  int
	Actions  [][]float64 // the discrete action set; nil for a box
	Box      *Box        // a box of continuous actions; nil for a discrete set
	Task     Task
	Dynamics Dynamics
	Model    ModelSpec
	// True is the true model of an expfam environment, nil otherwise.
	True *expfam.Model
	// CheckTransition, when not nil, fails where the true transition from
	// s under a is not defined: η = W0 phi(s, a) outside the natural
	// parameter space of an exponential, gamma or beta coordinate, which
	// the samplers would clamp. The runner calls it before each true step.
	CheckTransition func(s, a []float64) error
	// Init draws s_1 into s.
	Init func(rng *rand.Rand, s []float64)
	// Labels name the state coordinates (for figures).
	Labels []string
	// Query is a representative state for figures of the next-state
	// distribution.
	Query []float64
	// Live, when not nil, is the true environment, which keeps its own
	// state (env.kind external: a process): the runner opens a session per
	// trial and resets and steps it in place of Init, Dynamics and Task's
	// reward and terminal states, which serve the planners only.
	Live Live
}

// Live is a true environment that keeps its own state.
type Live interface {
	// Open starts the environment of one trial; ctx's end stops it.
	Open(ctx context.Context) (Session, error)
}

// Session is one trial's true environment. Its errors are invalid input
// (errs.ErrInvalidInput) naming what went wrong.
type Session interface {
	// Reset starts an episode from seed and writes its first state to s.
	Reset(seed uint64, s []float64) error
	// Step plays a and writes the next state to next; terminated says
	// that next ends the episode, truncated that the environment cut it
	// short (either ends it).
	Step(a, next []float64) (reward float64, terminated, truncated bool, err error)
	// Dynamics is the session as the true transition of the oracle's
	// rollouts, nil when it cannot restore states; Err is then the first
	// failure of those rollouts, which wrote NaN states.
	Dynamics() Dynamics
	Err() error
	// Close ends the environment and releases it (a process is reaped).
	Close()
}

// Builder builds the MDP of a validated config of its kind.
type Builder func(c *config.Config) (*MDP, error)

// Kind is a registered environment kind: its config part (its name,
// Gymnasium aliases, one-line doc, its own section with defaults and
// validation; Part.Group is set by Register) and its builder.
type Kind struct {
	config.Part
	Build Builder
}

// kinds is the registry of environment kinds (env.kind). Adding an
// environment is one file (its MDP, its Kind with its section's struct,
// defaults and validation) plus one line here.
func init() {
	Register(
		expfamKind,
		cartPoleKind,
		pendulumKind,
		mountainCarKind,
		lqKind,
		acrobotKind,
		externalKind,
	)
}

// kinds maps each registered env.kind to its builder.
var kinds = map[string]Builder{}

// Register registers environment kinds with config (env.kind). A test
// registers its own environment with it from a _test.go file.
func Register(ks ...Kind) {
	for _, k := range ks {
		k.Group = "env.kind"
		config.Register(k.Part)
		kinds[k.Name] = k.Build
	}
}

// modelHooks fill the fields of an MDP's ModelSpec that parts outside
// env own (RegisterModelHook).
var modelHooks []func(c *config.Config, m *ModelSpec)

// RegisterModelHook adds a hook that New runs on every MDP's model class:
// an estimator's registration fills there what its keys set (the lds
// agents' noise scales from lds.sigma, score matching's floor from
// sm.floor), so that env reads no key of theirs.
func RegisterModelHook(h func(c *config.Config, m *ModelSpec)) {
	modelHooks = append(modelHooks, h)
}

// Kinds returns the registered kinds.
func Kinds() []string { return config.Names("env.kind") }

// New builds the MDP of a validated config. Errors wrap errs.ErrInvalidInput
// and name the config key.
func New(c *config.Config) (*MDP, error) {
	b, ok := kinds[c.Env.Kind]
	if !ok {
		return nil, errs.Invalid(fmt.Errorf("env.kind: unknown environment %q", c.Env.Kind))
	}
	m, err := b(c)
	if err != nil {
		return nil, errs.Invalid(err)
	}
	m.Kind = c.Env.Kind
	if m.Horizon == 0 || c.Origin("env.horizon") != "default" {
		// An environment that declares its horizon (external) keeps it
		// unless the config sets one.
		m.Horizon = c.Env.Horizon
	}
	for _, h := range modelHooks {
		h(c, &m.Model)
	}
	if m.Labels == nil {
		for i := range m.Dim {
			m.Labels = append(m.Labels, fmt.Sprintf("s%d", i))
		}
	}
	if m.Query == nil {
		m.Query = make([]float64, m.Dim)
	}
	if m.Actions == nil && m.Box == nil {
		if c.Env.ActionSpace == "box" {
			m.Box = &Box{Low: c.Env.ActionLow, High: c.Env.ActionHigh}
		} else {
			m.Actions = group(c.Env.Actions, c.Env.ActionDim)
		}
	}
	return m, nil
}

// StateDim is d_s.
func (m *MDP) StateDim() int { return m.Dim }

// ActionDim is the length of an action vector.
func (m *MDP) ActionDim() int {
	if m.Box != nil {
		return len(m.Box.Low)
	}
	return len(m.Actions[0])
}

// RandomAction draws an action uniformly from the action set or box.
func (m *MDP) RandomAction(rng *rand.Rand, a []float64) {
	if m.Box != nil {
		for i := range a {
			a[i] = m.Box.Low[i] + (m.Box.High[i]-m.Box.Low[i])*rng.Float64()
		}
		return
	}
	copy(a, m.Actions[rng.IntN(len(m.Actions))])
}

// uniformInit draws each coordinate of s_1 from Unif[lo, hi].
func uniformInit(lo, hi float64) func(rng *rand.Rand, s []float64) {
	return func(rng *rand.Rand, s []float64) {
		for i := range s {
			s[i] = lo + (hi-lo)*rng.Float64()
		}
	}
}

func group(flat []float64, n int) [][]float64 {
	var out [][]float64
	for i := 0; i+n <= len(flat); i += n {
		out = append(out, append([]float64(nil), flat[i:i+n]...))
	}
	return out
}

// NewLearnerFeatures builds phi(s, a) of config section model.features for
// d_s-dimensional states and d_a-dimensional actions, from the feature-map
// registry. Random Fourier features see (s, a) divided by scale (d_s + d_a
// numbers; nil: unscaled).
func NewLearnerFeatures(c *config.Config, ds, da int, scale []float64) (expfam.Features, error) {
	f := featureByName(c.Model.Features.Kind)
	if f == nil || f.EnvOnly {
		return nil, fmt.Errorf("model.features.kind: unknown features %q", c.Model.Features.Kind)
	}
	return f.Build(c, "model.features", ds, da, scale)
}

// NewLearnerFamily builds the product family of config section model for
// scales sigma (one per coordinate): model.family lists one kind per
// coordinate, or one for all.
func NewLearnerFamily(c *config.Config, sigma []float64) (*expfam.Coords, error) {
	ds := len(sigma)
	kinds := c.Model.Family
	if len(kinds) == 1 {
		kinds = make([]string, ds)
		for i := range kinds {
			kinds[i] = c.Model.Family[0]
		}
	}
	if len(kinds) != ds {
		return nil, fmt.Errorf("model.family: %d families for %d state coordinates (give one, or one per coordinate)", len(c.Model.Family), ds)
	}
	cs := make([]expfam.Coord, ds)
	nth := map[string]int{} // coordinates of each family so far
	for i, k := range kinds {
		var err error
		cs[i], err = NewCoord(k, c, Site{Learner: true, I: i, Nth: nth[k], Sigma: sigma[i]})
		nth[k]++
		var ke keyError
		if errors.As(err, &ke) {
			return nil, ke.error
		}
		if err != nil {
			return nil, fmt.Errorf("model.family (coordinate %d): %w", i, err)
		}
	}
	return expfam.NewCoords(cs)
}

// learnerFamily is the learners' family: the whole family of
// Family.Learner when model.family names one such family alone, else the
// product of NewLearnerFamily.
func learnerFamily(c *config.Config, sigma []float64) (expfam.Distribution, error) {
	if len(c.Model.Family) == 1 {
		if f := familyByName(c.Model.Family[0]); f != nil && f.Learner != nil {
			fam, err := f.Learner(c, sigma)
			var ke keyError
			if errors.As(err, &ke) {
				return nil, ke.error
			}
			return fam, err
		}
	}
	return NewLearnerFamily(c, sigma)
}

// learnerScales returns model.sigma broadcast to d_s coordinates, or def
// when it is empty.
func learnerScales(c *config.Model, def []float64) ([]float64, error) {
	switch len(c.Sigma) {
	case 0:
		return def, nil
	case 1:
		s := make([]float64, len(def))
		for i := range s {
			s[i] = c.Sigma[0]
		}
		return s, nil
	case len(def):
		return c.Sigma, nil
	}
	return nil, fmt.Errorf("model.sigma: %d scales for %d state coordinates (give one, or one per coordinate)", len(c.Sigma), len(def))
}

// LearnerSpec builds the model class of a physical environment from config
// section model, with default scales def (one per coordinate) and default
// input scales in (d_s + d_a numbers, the typical ranges of (s, a)) for
// random Fourier features.
func LearnerSpec(c *config.Config, def []float64, da int, in []float64) (ModelSpec, error) {
	sigma, err := learnerScales(&c.Model, def)
	if err != nil {
		return ModelSpec{}, err
	}
	fam, err := learnerFamily(c, sigma)
	if err != nil {
		return ModelSpec{}, err
	}
	if len(c.Model.InputScale) > 0 {
		in = c.Model.InputScale
	}
	if len(in) != len(sigma)+da {
		return ModelSpec{}, fmt.Errorf("model.input_scale: %d scales for %d inputs (d_s = %d state and d_a = %d action coordinates)", len(in), len(sigma)+da, len(sigma), da)
	}
	feat, err := NewLearnerFeatures(c, len(sigma), da, in)
	if err != nil {
		return ModelSpec{}, err
	}
	var ldsFeat expfam.Features // nil: the model's features
	switch c.Model.LDSFeatures {
	case c.Model.Features.Kind, "model":
	default:
		if f := featureByName(c.Model.LDSFeatures); f != nil {
			if ldsFeat, err = f.Build(c, "model.features", len(sigma), da, nil); err != nil {
				return ModelSpec{}, fmt.Errorf("model.lds_features: %w", err)
			}
		}
	}
	spec := ModelSpec{Family: fam, Features: feat, Scales: sigma, LDSFeatures: ldsFeat,
		Delta: c.Model.Target == "delta"}
	learnerHooks(c, sigma, &spec)
	return spec, nil
}
