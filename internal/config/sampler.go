package config

import (
	"math"
	"strings"
)

// Sampler configures the Markov chains of the joint families (sampler:
// section): the true transition, the learners' rollouts and smrl sample.
type Sampler struct {
	Kind   string `mapstructure:"kind" yaml:"kind"`
	Warmup int    `mapstructure:"warmup" yaml:"warmup"`
	Steps  int    `mapstructure:"steps" yaml:"steps"`
	// RolloutSteps is the length of the planners' chains (0: Steps).
	RolloutSteps int `mapstructure:"rollout_steps" yaml:"rollout_steps"`
	Leapfrog     int `mapstructure:"leapfrog" yaml:"leapfrog"`
	// StepSize is a number > 0 or "auto" (adapted in warm-up); see
	// StepSizeValue.
	StepSize Auto `mapstructure:"step_size" yaml:"step_size"`
}

// SamplerKinds are the values of sampler.kind.
var SamplerKinds = []string{"hmc", "mala"}

// MaxSamplerSteps bounds sampler.warmup and sampler.steps.
const MaxSamplerSteps = 1_000_000

// StepSizeValue returns sampler.step_size as a number, 0 for auto; ok is
// false for anything else.
func (s Sampler) StepSizeValue() (float64, bool) {
	v, auto, err := s.StepSize.Float()
	if auto {
		return 0, true
	}
	if err != nil || !decimal(strings.TrimSpace(string(s.StepSize))) || !(v > 0) || math.IsInf(v, 0) {
		return 0, false // decimal: not 0x1p-2, which ParseFloat would take
	}
	return v, true
}

// validateSampler checks the sampler: section (run only when a joint
// family reads it).
func (c *Config) validateSampler(bad Bad) {
	s := c.Sampler
	if s.Kind != "hmc" && s.Kind != "mala" {
		bad("sampler.kind", "unknown sampler %q (known: %v)", s.Kind, SamplerKinds)
	}
	if s.Warmup < 1 || s.Warmup > MaxSamplerSteps {
		bad("sampler.warmup", "must lie in [1, %d], got %d", MaxSamplerSteps, s.Warmup)
	}
	if s.Steps < 1 || s.Steps > MaxSamplerSteps {
		bad("sampler.steps", "must lie in [1, %d], got %d", MaxSamplerSteps, s.Steps)
	}
	if s.RolloutSteps < 0 || s.RolloutSteps > MaxSamplerSteps {
		bad("sampler.rollout_steps", "must lie in [0, %d] (0: sampler.steps), got %d", MaxSamplerSteps, s.RolloutSteps)
	}
	if s.Leapfrog < 1 || s.Leapfrog > 1000 {
		bad("sampler.leapfrog", "must lie in [1, 1000], got %d", s.Leapfrog)
	}
	if v, ok := s.StepSizeValue(); !ok || v > 100 {
		bad("sampler.step_size", "must be auto or a number in (0, 100], got %q", string(s.StepSize))
	}
}
