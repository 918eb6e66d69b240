package main

import (
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
)

// This file adds an environment the way the README says one is added:
// one file (its MDP, its section's struct with defaults, its validation,
// its Kind) plus one registration line, with no change to config. It is
// registered for the cmd tests only (TestTestOnlyEnvironment).

// walkConfig is the section env.walk: s' = s + drift·a + N(0, noise²).
type walkConfig struct {
	Drift float64 `mapstructure:"drift" yaml:"drift" doc:"s' = s + drift·a + noise"`
	Noise float64 `mapstructure:"noise" yaml:"noise" doc:"standard deviation of the noise"`
}

var walkKind = env.Kind{Part: config.Part{Name: "test-walk",
	Doc:     "a test-only random walk s' = s + drift·a + N(0, noise²), reward −s²",
	Section: "env.walk", Uses: []string{"model"}, Dim: 1,
	Defaults: &walkConfig{Drift: 0.5, Noise: 0.1},
	Validate: func(c *config.Config, bad config.Bad) {
		p := config.Section[walkConfig](c, "env.walk")
		if !(p.Noise > 0 && p.Noise <= 10) {
			bad("env.walk.noise", "must lie in (0, 10], got %v", p.Noise)
		}
		if !(p.Drift >= -10 && p.Drift <= 10) {
			bad("env.walk.drift", "must lie in [−10, 10], got %v", p.Drift)
		}
	}},
	Build: newWalk}

func init() { env.Register(walkKind) } // the one registration line

func newWalk(c *config.Config) (*env.MDP, error) {
	p := *config.Section[walkConfig](c, "env.walk")
	spec, err := env.LearnerSpec(c, []float64{p.Noise}, 1, []float64{1, 1})
	if err != nil {
		return nil, err
	}
	return &env.MDP{Dim: 1, Task: walkTask{}, Dynamics: walkDynamics{p}, Model: spec,
		Init: func(rng *rand.Rand, s []float64) { s[0] = 2*rng.Float64() - 1 }}, nil
}

type walkTask struct{}

func (walkTask) Reward(s, _ []float64) float64      { return -s[0] * s[0] }
func (walkTask) Terminal([]float64) (bool, float64) { return false, 0 }
func (walkTask) Terminates() bool                   { return false }

type walkDynamics struct{ p walkConfig }

func (d walkDynamics) NewSimulator() env.Simulator { return walkSim{d.p, true} }
func (d walkDynamics) NewMean() env.Simulator      { return walkSim{d.p, false} }

type walkSim struct {
	p     walkConfig
	noisy bool
}

func (w walkSim) Step(s, a []float64, rng *rand.Rand, out []float64) {
	out[0] = s[0] + w.p.Drift*a[0]
	if w.noisy {
		out[0] += w.p.Noise * rng.NormFloat64()
	}
}
