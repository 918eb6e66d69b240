package env

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
)

// external is env.kind external: a simulator in another process, started
// from env.external.command and spoken to in newline-delimited JSON on its
// stdin and stdout (docs/external.md):
//
//	{"spec": {}}        → {"obs_dim", "action_dim" + "action_low" + "action_high" | "actions", "horizon"[, "can_restore"]}
//	{"reset": SEED}     → {"obs": [...]}
//	{"step": [a...]}    → {"obs": [...], "reward", "terminated", "truncated"}
//	{"get_state": true} → {"state": ANY}   (only when the spec declared can_restore)
//	{"set_state": ANY}  → {}               (likewise)
//	{"close": true}     (no answer; the process exits)
//
// Building the MDP starts the command once to read its spec; every trial
// then runs its own process (one per trial, so at most one per worker at a
// time), reset at each episode with a seed drawn from the trial's
// environment stream: the results depend on the seeds and the actions
// only, never on which process served which trial. The learners plan with
// env.reward.expression (required), the oracle with the process itself
// through get_state/set_state.
type external struct {
	command []string
	timeout time.Duration
	spec    extSpec
}

// extSpec is the answer to {"spec": {}}.
type extSpec struct {
	ObsDim     *int        `json:"obs_dim"`
	ActionDim  *int        `json:"action_dim"`
	Actions    [][]float64 `json:"actions"`
	ActionLow  []float64   `json:"action_low"`
	ActionHigh []float64   `json:"action_high"`
	Horizon    *int        `json:"horizon"`
	CanRestore bool        `json:"can_restore"`
	Error      *string     `json:"error"`
}

// specMessage is the first message every process receives.
const specMessage = `{"spec": {}}`

// ExternalConfig is the section env.external: it configures env.kind
// external, a simulator in another process (docs/external.md).
type ExternalConfig struct {
	Command []string `mapstructure:"command" yaml:"command" doc:"the program and its arguments, e.g. [python3, my_env.py]: started once to read its spec and once per trial; it speaks docs/external.md's protocol on stdin/stdout"`
	Timeout float64  `mapstructure:"timeout" yaml:"timeout" doc:"seconds to wait for each answer (the first includes the program's start-up); then the process is killed and the run stops with exit 2"`
}

// externalKind registers env.kind external (see env.go's registry).
var externalKind = Kind{Part: config.Part{Name: "external",
	Doc:     "a simulator in another process (any language, e.g. a Gymnasium env through examples/external/smrl_gym.py) speaking newline-delimited JSON (docs/external.md)",
	Section: "env.external", Defaults: &ExternalConfig{Timeout: 30},
	Uses: []string{"model", "env.reward.expression", "env.terminal", "env.terminal_reward"},
	Dim:  config.DimFromEnv, Validate: validateExternal},
	Build: newExternal}

// validateExternal checks env.external and what an external environment
// needs of the rest: a reward for the planners' imagined rollouts and the
// learners' noise scale, which the process does not declare.
func validateExternal(c *config.Config, bad config.Bad) {
	x := config.Section[ExternalConfig](c, "env.external")
	if len(x.Command) == 0 || x.Command[0] == "" {
		bad("env.external.command", "must name the program to start and its arguments, e.g. [python3, my_env.py]")
	}
	if !(x.Timeout > 0) || x.Timeout > 86400 {
		bad("env.external.timeout", "must lie in (0, 86400] seconds, got %v", x.Timeout)
	}
	if c.Env.Reward.Expression == "" {
		bad("env.reward.expression", "is required for env.kind external: the planners score their imagined rollouts with it, "+
			"an expression of s0, s1, … and a0, … (docs/expressions.md) equal to the reward the process answers")
	}
	if len(c.Model.Sigma) == 0 {
		bad("model.sigma", "is required for env.kind external, which declares no noise scale: give one σ for every coordinate, or one per coordinate")
	}
}

// newExternal starts the command to read its spec and builds the MDP.
func newExternal(c *config.Config) (*MDP, error) {
	x := config.Section[ExternalConfig](c, "env.external")
	ext := &external{command: x.Command, timeout: time.Duration(x.Timeout * float64(time.Second))}
	p, err := startProc(context.Background(), ext.command, ext.timeout)
	if err != nil {
		return nil, err
	}
	defer p.close()
	if err := readSpec(p, &ext.spec); err != nil {
		return nil, err
	}
	sp := &ext.spec
	ds := *sp.ObsDim
	if err := ext.checkActions(c); err != nil {
		return nil, err
	}
	if !sp.CanRestore {
		for _, a := range c.Agents {
			if config.IsBaseline(a) {
				return nil, fmt.Errorf("agents: %s plans with the true simulator, and env.external.command %s does not declare \"can_restore\": true in its spec "+
					"(answering get_state and set_state, docs/external.md): remove %s from agents, or teach the environment to save and restore its state", a, ext.name(), a)
			}
		}
	}
	task, spec, err := ExternalPlanning(c, ds)
	if err != nil {
		return nil, err
	}
	// The action set or box is the config's (New), which checkActions
	// found equal to the spec's.
	return &MDP{Dim: ds, Horizon: *sp.Horizon, Task: task, Dynamics: unboundDynamics{}, Model: spec, Live: ext,
		Init: func(*rand.Rand, []float64) {
			panic("env: an external environment's states come from its process (MDP.Live), not MDP.Init")
		}}, nil
}

// ExternalPlanning is what the agents of an external environment with
// d_s-dimensional observations plan with: the task of env.reward.expression
// and env.terminal, and the model class of section model with the scales
// model.sigma (required) and unit input scales for random features (unless
// model.input_scale). A built-in written to match an external environment
// uses it too, so that both plan alike.
func ExternalPlanning(c *config.Config, ds int) (Task, ModelSpec, error) {
	da := c.Env.ActionDim
	task, err := NewRewardTask(c.Env, ds, da)
	if err != nil {
		return nil, ModelSpec{}, err
	}
	ones := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 1
		}
		return v
	}
	spec, err := LearnerSpec(c, ones(ds), da, ones(ds+da))
	return task, spec, err
}

// name quotes the command for messages.
func (e *external) name() string { return quoteCommand(e.command) }

// readSpec sends {"spec": {}} to p and checks the answer into sp.
func readSpec(p *proc, sp *extSpec) error {
	p.out = append(p.out[:0], specMessage...)
	line, err := p.request()
	if err != nil {
		return err
	}
	*sp = extSpec{}
	if err := json.Unmarshal(line, sp); err != nil {
		return p.fail(line, "not a JSON object of the protocol (%v)", err)
	}
	if sp.Error != nil {
		return p.fail(line, "the environment reported an error: %s", *sp.Error)
	}
	if why := sp.check(); why != "" {
		return p.fail(line, "%s", why)
	}
	return nil
}

// check returns what is wrong with the spec, "" when nothing.
func (sp *extSpec) check() string {
	finite := func(xs []float64) bool {
		return !slices.ContainsFunc(xs, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
	}
	switch {
	case sp.ObsDim == nil || *sp.ObsDim < 1 || *sp.ObsDim > 10_000:
		return "\"obs_dim\" must be an integer in [1, 10000]"
	case sp.Horizon == nil || *sp.Horizon < 1 || *sp.Horizon > 1_000_000:
		return "\"horizon\" must be an integer in [1, 1000000]"
	case sp.Actions != nil && (sp.ActionDim != nil || sp.ActionLow != nil || sp.ActionHigh != nil):
		return "give either \"actions\" (a discrete set) or \"action_dim\", \"action_low\" and \"action_high\" (a box), not both"
	case sp.Actions != nil:
		if len(sp.Actions) == 0 || len(sp.Actions[0]) == 0 {
			return "\"actions\" must list at least one action of at least one number"
		}
		for i, a := range sp.Actions {
			if len(a) != len(sp.Actions[0]) || !finite(a) {
				return fmt.Sprintf("\"actions\"[%d] must hold %d finite numbers, as the first", i, len(sp.Actions[0]))
			}
		}
	case sp.ActionDim == nil || *sp.ActionDim < 1 || *sp.ActionDim > 10_000:
		return "\"action_dim\" must be an integer in [1, 10000] (or give \"actions\", a discrete set)"
	case len(sp.ActionLow) != *sp.ActionDim || len(sp.ActionHigh) != *sp.ActionDim:
		return fmt.Sprintf("\"action_low\" and \"action_high\" must hold action_dim = %d numbers each", *sp.ActionDim)
	case !finite(sp.ActionLow) || !finite(sp.ActionHigh):
		return "\"action_low\" and \"action_high\" must be finite"
	default:
		for i := range sp.ActionLow {
			if !(sp.ActionLow[i] < sp.ActionHigh[i]) {
				return fmt.Sprintf("\"action_low\"[%d] = %v must be below \"action_high\"[%d] = %v", i, sp.ActionLow[i], i, sp.ActionHigh[i])
			}
		}
	}
	return ""
}

// checkActions fails unless the config's action space (which the planners
// were validated against) is the one the spec declares.
func (e *external) checkActions(c *config.Config) error {
	sp, ev := &e.spec, c.Env
	join := func(a [][]float64) []float64 { return slices.Concat(a...) }
	if sp.Actions != nil {
		if ev.ActionSpace != "discrete" || ev.ActionDim != len(sp.Actions[0]) || !slices.Equal(ev.Actions, join(sp.Actions)) {
			return fmt.Errorf("env.actions: env.external.command %s declares the discrete actions %v; the config must say the same "+
				"(env.action_space: discrete, env.action_dim: %d, env.actions: %v), got env.action_space %s, env.action_dim %d, env.actions %v",
				e.name(), sp.Actions, len(sp.Actions[0]), join(sp.Actions), ev.ActionSpace, ev.ActionDim, ev.Actions)
		}
		return nil
	}
	if ev.ActionSpace != "box" || ev.ActionDim != *sp.ActionDim || !slices.Equal(ev.ActionLow, sp.ActionLow) || !slices.Equal(ev.ActionHigh, sp.ActionHigh) {
		return fmt.Errorf("env.action_low: env.external.command %s declares the box [%v, %v]; the config must say the same "+
			"(env.action_space: box, env.action_dim: %d, env.action_low: %v, env.action_high: %v), got env.action_space %s, env.action_dim %d, [%v, %v]",
			e.name(), sp.ActionLow, sp.ActionHigh, *sp.ActionDim, sp.ActionLow, sp.ActionHigh, ev.ActionSpace, ev.ActionDim, ev.ActionLow, ev.ActionHigh)
	}
	return nil
}

// Open starts the process of one trial and checks that it declares the
// spec the MDP was built from. ctx's end kills it.
func (e *external) Open(ctx context.Context) (Session, error) {
	p, err := startProc(ctx, e.command, e.timeout)
	if err != nil {
		return nil, err
	}
	var sp extSpec
	if err := readSpec(p, &sp); err != nil {
		p.close()
		return nil, err
	}
	a, _ := json.Marshal(sp)
	b, _ := json.Marshal(e.spec)
	if string(a) != string(b) {
		err := p.fail(a, "a spec other than the first process's, %s", b)
		p.close()
		return nil, err
	}
	ds := *sp.ObsDim
	return &extSession{p: p, ds: ds, real: make([]float64, ds), cur: make([]float64, ds), restore: sp.CanRestore}, nil
}

// extSession is one trial's process.
type extSession struct {
	p       *proc
	ds      int
	a       answer
	restore bool // the process can save and restore its state
	planned bool // an agent plans with it (Dynamics was called)
	// For the oracle's rollouts: the real episode's observation and the
	// process's state there, the observation the process is at, and
	// whether a rollout moved it away from the real episode.
	real, cur []float64
	root      json.RawMessage
	dirty     bool
	planErr   error
}

// Reset starts an episode from seed and writes its first observation.
func (s *extSession) Reset(seed uint64, obs []float64) error {
	p := s.p
	p.out = strconv.AppendUint(append(p.out[:0], `{"reset": `...), seed, 10)
	p.out = append(p.out, '}')
	line, err := p.request()
	if err == nil {
		err = p.decode(line, &s.a)
	}
	if err == nil {
		err = p.observation(line, &s.a, s.ds, obs)
	}
	if err != nil {
		return err
	}
	s.dirty = false
	return s.keepRoot(obs)
}

// Step plays a in the real episode (after undoing the oracle's rollouts)
// and writes the next observation.
func (s *extSession) Step(a, obs []float64) (reward float64, terminated, truncated bool, err error) {
	if err := s.backToRoot(); err != nil {
		return 0, false, false, err
	}
	if err := s.step(a, obs); err != nil {
		return 0, false, false, err
	}
	reward, terminated, truncated = *s.a.Reward, *s.a.Terminated, *s.a.Truncated
	if err := s.keepRoot(obs); err != nil { // overwrites s.a
		return 0, false, false, err
	}
	return reward, terminated, truncated, nil
}

// step sends {"step": a} and checks the answer, whose observation it
// writes to obs (s.a holds the rest).
func (s *extSession) step(a, obs []float64) error {
	p := s.p
	p.out = appendFloats(append(p.out[:0], `{"step": `...), a)
	p.out = append(p.out, '}')
	line, err := p.request()
	if err != nil {
		return err
	}
	if err := p.decode(line, &s.a); err != nil {
		return err
	}
	switch {
	case s.a.Reward == nil:
		return p.fail(line, "it has no \"reward\"")
	case !finiteReward(*s.a.Reward):
		return p.fail(line, "\"reward\" is %v", *s.a.Reward)
	case s.a.Terminated == nil || s.a.Truncated == nil:
		return p.fail(line, "it needs \"terminated\" and \"truncated\", true or false")
	}
	return p.observation(line, &s.a, s.ds, obs)
}

// keepRoot records the real episode's observation and, when the oracle
// plans with the process, its state there ({"get_state": true}).
func (s *extSession) keepRoot(obs []float64) error {
	copy(s.real, obs)
	copy(s.cur, obs)
	if !s.planned {
		return nil
	}
	p := s.p
	p.out = append(p.out[:0], `{"get_state": true}`...)
	line, err := p.request()
	if err == nil {
		err = p.decode(line, &s.a)
	}
	if err != nil {
		return err
	}
	if len(s.a.State) == 0 {
		return p.fail(line, "it has no \"state\"")
	}
	s.root = append(s.root[:0], s.a.State...)
	return nil
}

// backToRoot restores the real episode's state if a rollout moved the
// process away from it ({"set_state": root}).
func (s *extSession) backToRoot() error {
	if !s.dirty {
		return nil
	}
	p := s.p
	p.out = append(append(append(p.out[:0], `{"set_state": `...), s.root...), '}')
	line, err := p.request()
	if err == nil {
		err = p.decode(line, &s.a)
	}
	if err != nil {
		return err
	}
	s.dirty = false
	copy(s.cur, s.real)
	return nil
}

// Dynamics returns the process as the oracle's true simulator, nil when
// it cannot restore states.
func (s *extSession) Dynamics() Dynamics {
	if !s.restore {
		return nil
	}
	s.planned = true
	return sessionDynamics{s}
}

// Err is the first failure of the process in a rollout.
func (s *extSession) Err() error { return s.planErr }

// Close ends and reaps the process.
func (s *extSession) Close() { s.p.close() }

// sessionDynamics is the process seen as the true transition of the
// oracle's rollouts. The process is deterministic given its state (its
// seed is part of it), so the mean transition is the transition.
type sessionDynamics struct{ s *extSession }

func (d sessionDynamics) NewSimulator() Simulator { return d }
func (d sessionDynamics) NewMean() Simulator      { return d }

// Step steps the process from the observation x under a: from where it
// is, or from the real episode's state, restored; any other x is a rollout
// branching from a state the process cannot return to. A failure fills
// out with NaN and is kept for Err.
func (d sessionDynamics) Step(x, a []float64, _ *rand.Rand, out []float64) {
	s := d.s
	if s.planErr == nil && !sameBits(x, s.cur) {
		if sameBits(x, s.real) {
			s.dirty = true // set_state below
			s.planErr = s.backToRoot()
			s.dirty = s.planErr == nil
		} else {
			s.planErr = fmt.Errorf("%w: env.kind external: a rollout stepped from %v, neither the real episode's state nor the rollout's last", errs.ErrInternal, x)
		}
	}
	if s.planErr == nil {
		s.dirty = true
		s.planErr = s.step(a, out)
	}
	if s.planErr != nil {
		for i := range out {
			out[i] = math.NaN()
		}
		return
	}
	copy(s.cur, out)
}

// sameBits reports whether x and y hold the same float64 bits.
func sameBits(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// unboundDynamics stands for an external environment's transition
// outside a trial (which opens its own process, Session.Dynamics): it
// builds agents to learn their shapes, and is never stepped.
type unboundDynamics struct{}

func (unboundDynamics) NewSimulator() Simulator { return unboundDynamics{} }
func (unboundDynamics) NewMean() Simulator      { return unboundDynamics{} }
func (unboundDynamics) Step([]float64, []float64, *rand.Rand, []float64) {
	panic("env: an external environment is stepped through a trial's session (MDP.Live), not MDP.Dynamics")
}
