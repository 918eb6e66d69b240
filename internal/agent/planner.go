package agent

import (
	"fmt"
	"math/rand/v2"
)

// Simulator draws s' ~ P(· | s, a) into out. *expfam.Stepper is one.
type Simulator interface {
	Step(s, a []float64, rng *rand.Rand, out []float64)
}

// Planner is a random sampling shooting planner. It is not safe for
// concurrent use: it owns scratch space so that planning allocates nothing.
type Planner struct {
	Mode       string // "constant" or "random"
	NRollouts  int
	Tau        int // states per rollout, x_0 included
	NSequences int // random mode
	CRN        bool
	Actions    [][]float64
	Reward     func(s []float64) float64

	x, next []float64
	seq     []int
	crn     *rand.PCG
	crnRand *rand.Rand
}

// NewPlanner checks the settings and allocates scratch for d_s-dimensional
// states.
func NewPlanner(mode string, nRollouts, tau, nSequences int, crn bool, actions [][]float64, reward func([]float64) float64, ds int) (*Planner, error) {
	if mode != "constant" && mode != "random" {
		return nil, fmt.Errorf("planner.mode: unknown mode %q", mode)
	}
	if nRollouts < 1 || tau < 1 || nSequences < 1 || len(actions) == 0 {
		return nil, fmt.Errorf("planner: n_rollouts, tau, n_sequences and the action set must be positive")
	}
	pcg := rand.NewPCG(0, 0)
	return &Planner{Mode: mode, NRollouts: nRollouts, Tau: tau, NSequences: nSequences, CRN: crn,
		Actions: actions, Reward: reward, x: make([]float64, ds), next: make([]float64, ds),
		seq: make([]int, max(tau-1, 1)), crn: pcg, crnRand: rand.New(pcg)}, nil
}

// Act returns the index in Actions of the action to play at s.
func (p *Planner) Act(sim Simulator, s []float64, rng *rand.Rand) int {
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
			for t := range p.seq {
				p.seq[t] = i
			}
			v := p.value(sim, s, stream())
			if i == 0 || v > bestValue {
				best, bestValue = i, v
			}
		}
		return best
	}
	for j := 0; j < p.NSequences; j++ {
		for t := range p.seq {
			p.seq[t] = rng.IntN(len(p.Actions))
		}
		first := p.seq[0]
		v := p.value(sim, s, stream())
		if j == 0 || v > bestValue {
			best, bestValue = first, v
		}
	}
	return best
}

// value is the mean over rollouts of Σ_{t<τ} r(x_t) with x_0 = s and
// x_{t+1} ~ sim(x_t, Actions[seq[t]]).
func (p *Planner) value(sim Simulator, s []float64, rng *rand.Rand) float64 {
	r0 := p.Reward(s)
	var total float64
	for r := 0; r < p.NRollouts; r++ {
		copy(p.x, s)
		v := r0
		for t := 1; t < p.Tau; t++ {
			sim.Step(p.x, p.Actions[p.seq[t-1]], rng, p.next)
			p.x, p.next = p.next, p.x
			v += p.Reward(p.x)
		}
		total += v
	}
	return total / float64(p.NRollouts)
}
