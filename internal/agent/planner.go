package agent

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/env"
)

// Simulator draws s' ~ P(· | s, a) into out. *expfam.Stepper is one.
type Simulator = env.Simulator

// Planner is a random sampling shooting planner. It is not safe for
// concurrent use: it owns scratch space so that planning allocates nothing.
type Planner struct {
	Mode       string // "constant" or "random"
	NRollouts  int
	Tau        int // states per rollout, x_0 included
	NSequences int // random mode
	CRN        bool
	Actions    [][]float64 // the discrete action set; nil with a box
	Box        *Box        // a box of continuous actions (random mode only)
	Task       env.Task    // reward and terminal states

	x, next []float64
	seq     []int
	act     [][]float64 // the actions of the candidate being valued, per step
	boxSeq  [][]float64 // box mode: the sampled sequence's actions
	chosen  []float64   // box mode: the first action of the best sequence
	optBest []float64   // box mode: Optimistic's best candidate's action
	crn     *rand.PCG
	crnRand *rand.Rand
	opt     *rand.PCG // Optimistic's shared stream
	optRand *rand.Rand
	bad     bool // a rollout's value was not finite
	ends    bool // Task.Terminates()
}

// ErrNonFinite reports that a planning model produced a non-finite state or
// value: its W puts η outside the range the family can be normalised in.
var ErrNonFinite = errors.New("the planning model produced a non-finite state")

// Err returns ErrNonFinite once any rollout value was NaN or infinite (then
// the chosen action means nothing), and clears the flag.
func (p *Planner) Err() error {
	if p.bad {
		p.bad = false
		return ErrNonFinite
	}
	return nil
}

// Box is a box of continuous actions: a_i ∈ [Low_i, High_i].
type Box struct{ Low, High []float64 }

// BoxAction is the action index Best and Act return for a box action
// space; Action(BoxAction) is the chosen action vector.
const BoxAction = -1

// NewPlanner checks the settings and allocates scratch for d_s-dimensional
// states. Exactly one of actions (a discrete set) and box is given; a box
// needs random mode, whose sequences then draw every action uniformly from
// the box.
func NewPlanner(mode string, nRollouts, tau, nSequences int, crn bool, actions [][]float64, box *Box, task env.Task, ds int) (*Planner, error) {
	if mode != "constant" && mode != "random" {
		return nil, fmt.Errorf("planner.mode: unknown mode %q", mode)
	}
	if nRollouts < 1 || tau < 1 || nSequences < 1 || (len(actions) == 0) == (box == nil) {
		return nil, fmt.Errorf("planner: n_rollouts, tau and n_sequences must be positive, with either a discrete action set or a box")
	}
	if box != nil && mode != "random" {
		return nil, fmt.Errorf("planner.mode: a box of continuous actions needs random mode, got %q", mode)
	}
	steps := max(tau-1, 1)
	pcg, opt := rand.NewPCG(0, 0), rand.NewPCG(0, 0)
	p := &Planner{Mode: mode, NRollouts: nRollouts, Tau: tau, NSequences: nSequences, CRN: crn,
		Actions: actions, Box: box, Task: task, ends: task.Terminates(), x: make([]float64, ds), next: make([]float64, ds),
		seq: make([]int, steps), act: make([][]float64, steps),
		crn: pcg, crnRand: rand.New(pcg), opt: opt, optRand: rand.New(opt)}
	if box != nil {
		p.boxSeq = make([][]float64, steps)
		for t := range p.boxSeq {
			p.boxSeq[t] = make([]float64, len(box.Low))
		}
		p.chosen = make([]float64, len(box.Low))
		p.optBest = make([]float64, len(box.Low))
	}
	return p, nil
}

// Action returns the action vector of an index returned by Act or Best.
// For BoxAction it is valid until the next call of Act, Best or Optimistic.
func (p *Planner) Action(i int) []float64 {
	if i == BoxAction {
		return p.chosen
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
// or Optimistic's over the candidates when sim is a Candidates.
func (p *Planner) Act(sim Simulator, s []float64, rng *rand.Rand) int {
	if cs, ok := sim.(Candidates); ok {
		_, a, _ := p.Optimistic(cs.Candidates(), s, rng)
		return a
	}
	a, _ := p.Best(sim, s, rng)
	return a
}

// Best returns the action the planner plays at s under sim and its
// estimated value: in constant mode the action whose rollouts have the
// highest mean value, in random mode the first action of the best random
// sequence; value is that mean, Σ_{t<τ} r(x_t) averaged over n_rollouts.
// Ties go to the candidate listed first.
func (p *Planner) Best(sim Simulator, s []float64, rng *rand.Rand) (action int, value float64) {
	// With common random numbers every candidate replays one noise stream.
	var s1, s2 uint64
	if p.CRN {
		s1, s2 = rng.Uint64(), rng.Uint64()
	}
	stream := func() *rand.Rand {
		if p.CRN {
			p.crn.Seed(s1, s2)
			return p.crnRand
		}
		return rng
	}
	best, bestValue := 0, 0.0
	if p.Mode == "constant" {
		for i := range p.Actions {
			for t := range p.act {
				p.act[t] = p.Actions[i]
			}
			v := p.value(sim, s, stream())
			if i == 0 || v > bestValue {
				best, bestValue = i, v
			}
		}
		return best, bestValue
	}
	if p.Box != nil {
		for j := 0; j < p.NSequences; j++ {
			for t, a := range p.boxSeq {
				for k := range a {
					a[k] = p.Box.Low[k] + (p.Box.High[k]-p.Box.Low[k])*rng.Float64()
				}
				p.act[t] = a
			}
			v := p.value(sim, s, stream())
			if j == 0 || v > bestValue {
				bestValue = v
				copy(p.chosen, p.boxSeq[0])
			}
		}
		return BoxAction, bestValue
	}
	for j := 0; j < p.NSequences; j++ {
		for t := range p.seq {
			p.seq[t] = rng.IntN(len(p.Actions))
			p.act[t] = p.Actions[p.seq[t]]
		}
		first := p.seq[0]
		v := p.value(sim, s, stream())
		if j == 0 || v > bestValue {
			best, bestValue = first, v
		}
	}
	return best, bestValue
}

// Optimistic evaluates every candidate model at s with Best, all of them on
// one noise stream (two seeds drawn from rng replayed for each candidate, so
// that candidates differ by their models only), and returns the candidate
// with the highest value, its action and that value. Ties go to the
// candidate listed first.
func (p *Planner) Optimistic(cands []Simulator, s []float64, rng *rand.Rand) (cand, action int, value float64) {
	s1, s2 := rng.Uint64(), rng.Uint64()
	for j, c := range cands {
		p.opt.Seed(s1, s2)
		a, v := p.Best(c, s, p.optRand)
		if j == 0 || v > value {
			cand, action, value = j, a, v
			if a == BoxAction {
				copy(p.optBest, p.chosen)
			}
		}
	}
	if action == BoxAction {
		copy(p.chosen, p.optBest)
	}
	return cand, action, value
}

// deterministic is a Simulator that draws nothing (mean rollouts).
type deterministic interface{ Deterministic() bool }

// value is the mean over rollouts of the rollout return from x_0 = s under
// the actions act: Σ_{t<τ} r(x_t, a_t) with x_{t+1} ~ sim(x_t, a_t), where a
// rollout that enters a terminal state collects its terminal reward and
// stops, and the last state x_{τ−1} is scored with the last action held
// (act has max(τ−1, 1) entries; with a reward of the state alone, as in the
// paper, that is Σ_{t<τ} r(x_t)). A deterministic simulator needs one
// rollout: its mean is that rollout.
func (p *Planner) value(sim Simulator, s []float64, rng *rand.Rand) float64 {
	last := len(p.act) - 1
	r0 := p.Task.Reward(s, p.act[0])
	n := p.NRollouts
	if d, ok := sim.(deterministic); ok && d.Deterministic() {
		n = 1
	}
	var total float64
	for r := 0; r < n; r++ {
		copy(p.x, s)
		v := r0
		for t := 1; t < p.Tau; t++ {
			sim.Step(p.x, p.act[t-1], rng, p.next)
			p.x, p.next = p.next, p.x
			if p.ends {
				if done, bonus := p.Task.Terminal(p.x); done {
					v += bonus
					break
				}
			}
			v += p.Task.Reward(p.x, p.act[min(t, last)])
		}
		total += v
	}
	if math.IsNaN(total) || math.IsInf(total, 0) {
		p.bad = true
	}
	return total / float64(n)
}
