package env

import (
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// LearnedDynamics is the transition of a fitted model m used as the truth
// (env.kind model): s' ~ P_Ŵ(· | s, a), or s' = s + Δ with Δ ~ P_Ŵ(· | s, a)
// for a model of the difference (delta), drawn by the same samplers the
// agents' rollouts use.
func LearnedDynamics(m *expfam.Model, delta bool) Dynamics {
	return learnedDynamics{m: m, delta: delta}
}

type learnedDynamics struct {
	m     *expfam.Model
	delta bool
}

func (d learnedDynamics) NewSimulator() Simulator { return d.wrap(expfam.NewStepper(d.m)) }
func (d learnedDynamics) NewMean() Simulator      { return d.wrap(expfam.NewMeanStepper(d.m)) }

func (d learnedDynamics) wrap(s Simulator) Simulator {
	if d.delta {
		return DeltaSim{s}
	}
	return s
}

// DeltaSim turns a simulator of s' − s into one of s' (a model of
// model.target: delta): the learners' rollouts and env.kind model's truth.
type DeltaSim struct{ Simulator }

func (d DeltaSim) Step(s, a []float64, rng *rand.Rand, out []float64) {
	d.Simulator.Step(s, a, rng, out)
	for i, v := range s[:len(out)] {
		out[i] += v
	}
}

// Deterministic reports whether the wrapped simulator draws nothing.
func (d DeltaSim) Deterministic() bool {
	det, ok := d.Simulator.(interface{ Deterministic() bool })
	return ok && det.Deterministic()
}

// NaturalSpaceCheck returns MDP.CheckTransition for a model m used as the
// truth: it fails where η = W phi(s, a) leaves the natural parameter space
// of a restricted coordinate; nil when m has none.
func NaturalSpaceCheck(m *expfam.Model) func(s, a []float64) error {
	return naturalSpaceCheck(m)
}
