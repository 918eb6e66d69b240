package agent

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
)

// Simulator draws s' ~ P(· | s, a) into out. *expfam.Stepper is one.
type Simulator = env.Simulator

// Method is a planning method: it maps a model, a state and a random stream
// to an action. Plan searches action sequences of Rollouts.Steps() actions
// for a high value under sim from s (every method maximises the same
// objective, Rollouts.Value), starting from the method's warm start, which
// it leaves unchanged. It returns the action to play (an index into the
// discrete action set, or BoxAction: then the first d_a entries of Result)
// and the highest value among the sequences it evaluated, the value
// estimate the optimistic agents compare across candidate models.
//
// Result is the outcome of the last Plan (its plan, e.g. the mean action
// sequence): callers may save and restore it (Planner.Optimistic keeps the
// best candidate's). Commit makes Result, shifted by the step just played,
// the warm start of the next decision; Reset forgets it (a new episode).
//
// A Method owns its scratch space: Plan allocates nothing. It is not safe
// for concurrent use.
type Method interface {
	Plan(sim Simulator, s []float64, rng *rand.Rand) (action int, value float64)
	Result() []float64
	Commit()
	Reset()
}

// MethodBuilder builds a Method of config section planner that evaluates
// sequences with r, for a discrete action set or a box (exactly one is
// set).
type MethodBuilder func(c config.Planner, r *Rollouts, actions [][]float64, box *Box) (Method, error)

// Kind is a registered planner kind: its config part (name, one-line doc,
// its own section planner.<name> with defaults and validation; Part.Group
// is set by RegisterPlanner) and its builder.
type Kind struct {
	config.Part
	Build MethodBuilder
}

// The registry of planner kinds (planner.kind). Adding a planner is one
// file with its Method, its Kind (and section struct) plus one line here.
func init() {
	RegisterPlanner(
		rssKind,
		cemKind,
		mppiKind,
	)
}

// methods maps each registered planner.kind to its builder.
var methods = map[string]MethodBuilder{}

// RegisterPlanner registers planner kinds with config (planner.kind).
func RegisterPlanner(ks ...Kind) {
	for _, k := range ks {
		k.Group = "planner.kind"
		config.Register(k.Part)
		methods[k.Name] = k.Build
	}
}

// PlannerKinds returns the registered planner kinds, sorted.
func PlannerKinds() []string {
	out := make([]string, 0, len(methods))
	for k := range methods {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Planner is what the agents and the runner plan with: a Method, and the
// parts every method shares (the objective, the action set, optimism over
// candidate models). It is not safe for concurrent use: it owns scratch
// space so that planning allocates nothing.
type Planner struct {
	Method   Method
	Rollouts *Rollouts
	Actions  [][]float64 // the discrete action set; nil with a box
	Box      *Box        // a box of continuous actions

	saved   []float64 // Optimistic: the best candidate's Result
	opt     *rand.PCG // Optimistic's shared stream
	optRand *rand.Rand
}

// ErrNonFinite reports that a planning model produced a non-finite state or
// value: its W puts η outside the range the family can be normalised in.
var ErrNonFinite = errors.New("the planning model produced a non-finite state")

// ErrNonFiniteReward reports that the task's reward was NaN or infinite
// at a state a rollout reached (a reward written as an expression outside
// its domain): an input error.
// It is also an ErrNonFinite.
var ErrNonFiniteReward error = nonFiniteReward{}

type nonFiniteReward struct{}

func (nonFiniteReward) Error() string {
	return "the reward (env.reward) is not finite at a state the planner's rollouts reached"
}
func (nonFiniteReward) Unwrap() []error { return []error{ErrNonFinite, errs.ErrInvalidInput} }

// ErrValueOverflow reports that a rollout's value overflowed though every
// reward and state it summed was finite: rewards too large in magnitude
// (env.reward, env.terminal_reward), an input error. It is also an
// ErrNonFinite.
var ErrValueOverflow error = valueOverflow{}

type valueOverflow struct{}

func (valueOverflow) Error() string {
	return "the rewards (env.reward, env.terminal_reward) summed over a planner's rollout overflow float64, though each was finite: rescale the reward"
}
func (valueOverflow) Unwrap() []error { return []error{ErrNonFinite, errs.ErrInvalidInput} }

// ErrUndefinedTerminal reports that env.terminal was undefined (it
// compares a NaN) at a finite state a rollout reached: an input error. It
// is also an ErrNonFinite.
var ErrUndefinedTerminal error = undefinedTerminal{}

type undefinedTerminal struct{}

func (undefinedTerminal) Error() string {
	return "the terminal condition (env.terminal) is undefined (compares a NaN) at a state the planner's rollouts reached"
}
func (undefinedTerminal) Unwrap() []error { return []error{ErrNonFinite, errs.ErrInvalidInput} }

// Err returns ErrUndefinedTerminal or ErrNonFiniteReward once a rollout's
// terminal condition or reward was not finite at a finite state, else
// ErrNonFinite once any rollout value was NaN or infinite (then the chosen
// action means nothing: a state of the planning model was not finite, or
// the values overflowed), and clears the flags.
func (p *Planner) Err() error {
	r := p.Rollouts
	var err error
	switch {
	case r.badTerminal:
		err = fmt.Errorf("%w, s = %v", ErrUndefinedTerminal, r.terminalAt)
	case r.badReward:
		err = fmt.Errorf("%w, s = %v", ErrNonFiniteReward, r.rewardAt)
	case r.overflow:
		err = ErrValueOverflow
	case r.bad:
		err = ErrNonFinite
	}
	r.badTerminal, r.badReward, r.overflow, r.bad = false, false, false, false
	return err
}

// Box is a box of continuous actions: a_i ∈ [Low_i, High_i].
type Box struct{ Low, High []float64 }

// clamp returns v clamped to [Low_i, High_i].
func (b *Box) clamp(i int, v float64) float64 { return min(max(v, b.Low[i]), b.High[i]) }

// halfWidths returns scale·(High − Low)/2 per coordinate: a noise scale in
// half-widths of the box.
func (b *Box) halfWidths(scale float64) []float64 {
	h := make([]float64, len(b.Low))
	for i := range h {
		h[i] = scale * (b.High[i] - b.Low[i]) / 2
	}
	return h
}

// centre returns the box's centre, (Low + High)/2.
func (b *Box) centre() []float64 {
	c := make([]float64, len(b.Low))
	for i := range c {
		c[i] = (b.Low[i] + b.High[i]) / 2
	}
	return c
}

// BoxAction is the action index Best and Act return for a box action
// space; Action(BoxAction) is the chosen action vector.
const BoxAction = -1

// NewPlanner returns a random sampling shooting planner (planner.kind rss)
// for d_s-dimensional states; see NewFromConfig.
func NewPlanner(mode string, nRollouts, tau, nSequences int, crn bool, actions [][]float64, box *Box, task env.Task, ds int) (*Planner, error) {
	return NewFromConfig(config.Planner{Kind: "rss", Mode: mode, NRollouts: nRollouts, Tau: tau, NSequences: nSequences, CRN: crn},
		actions, box, task, ds)
}

// NewFromConfig checks the settings of config section planner and builds
// its planner for d_s-dimensional states, with scratch space. Exactly one of
// actions (a discrete set) and box is given. Errors name the config key.
func NewFromConfig(c config.Planner, actions [][]float64, box *Box, task env.Task, ds int) (*Planner, error) {
	b, ok := methods[c.Kind]
	if !ok {
		return nil, fmt.Errorf("planner.kind: unknown planner %q (known: %v)", c.Kind, PlannerKinds())
	}
	if c.NRollouts < 1 || c.Tau < 1 || (len(actions) == 0) == (box == nil) {
		return nil, fmt.Errorf("planner: n_rollouts and tau must be positive, with either a discrete action set or a box")
	}
	r := newRollouts(task, c.Tau, c.NRollouts, c.CRN, ds)
	m, err := b(c, r, actions, box)
	if err != nil {
		return nil, err
	}
	opt := rand.NewPCG(0, 0)
	p := &Planner{Method: m, Rollouts: r, Actions: actions, Box: box,
		saved: make([]float64, len(m.Result())), opt: opt, optRand: rand.New(opt)}
	r.bind(p.optRand, p.opt)
	return p, nil
}

// BindSource tells the planner that rng draws from pcg (rng =
// rand.New(pcg)). The planner then draws rng's deviates (the Gaussian
// rollouts' normal deviates, RSS's uniform action indices) from pcg
// directly: bit for bit the values of rng's methods, with the stream left
// where they would leave it, but without an interface call per draw. Act
// takes any rng still; an unbound one is drawn from through its methods.
// It panics when rng does not draw from pcg (it checks with one draw
// through rng, which then came from rng's own source).
func (p *Planner) BindSource(rng *rand.Rand, pcg *rand.PCG) {
	if _, ok := p.Rollouts.source(rng); ok {
		return
	}
	if !p.Rollouts.bind(rng, pcg) {
		panic("agent: Planner.BindSource: rng does not draw from pcg")
	}
}

// Action returns the action vector of an index returned by Act or Best.
// For BoxAction it is valid until the next call of Act, Best or Optimistic.
func (p *Planner) Action(i int) []float64 {
	if i == BoxAction {
		return p.Method.Result()[:len(p.Box.Low)]
	}
	return p.Actions[i]
}

// Candidates is a Simulator made of several candidate models (an agent's
// optimistic set in per-step mode). Given one, Act plays the action of the
// best (candidate, action) pair; Step draws from the first candidate.
type Candidates interface {
	Simulator
	Candidates() []Simulator
}

// Act returns the index in Actions of the action to play at s (BoxAction
// for a box; Action maps an index to its vector): Best's action under sim,
// or Optimistic's over the candidates when sim is a Candidates. The plan
// behind it becomes the method's warm start for the next decision.
func (p *Planner) Act(sim Simulator, s []float64, rng *rand.Rand) int {
	var a int
	if cs, ok := sim.(Candidates); ok {
		_, a, _ = p.Optimistic(cs.Candidates(), s, rng)
	} else {
		a, _ = p.Best(sim, s, rng)
	}
	p.Method.Commit()
	return a
}

// Reset starts a new episode: the method forgets its warm start.
func (p *Planner) Reset() { p.Method.Reset() }

// Best returns the action the method plans at s under sim and its value
// estimate, the highest value (Rollouts.Value) among the sequences it
// evaluated. For RSS: in constant mode the action whose rollouts have the
// highest mean return, in random mode the first action of the best random
// sequence; ties go to the candidate listed first. It does not move the
// warm start (Act does).
func (p *Planner) Best(sim Simulator, s []float64, rng *rand.Rand) (action int, value float64) {
	return p.Method.Plan(sim, s, rng)
}

// Optimistic evaluates every candidate model at s with Best, all of them on
// one noise stream (two seeds drawn from rng replayed for each candidate, so
// that candidates differ by their models only), and returns the candidate
// with the highest value, its action and that value. Ties go to the
// candidate listed first. The method's Result is then the best candidate's.
func (p *Planner) Optimistic(cands []Simulator, s []float64, rng *rand.Rand) (cand, action int, value float64) {
	s1, s2 := rng.Uint64(), rng.Uint64()
	for j, c := range cands {
		p.opt.Seed(s1, s2)
		a, v := p.Best(c, s, p.optRand)
		if j == 0 || v > value {
			cand, action, value = j, a, v
			copy(p.saved, p.Method.Result())
		}
	}
	copy(p.Method.Result(), p.saved)
	return cand, action, value
}
