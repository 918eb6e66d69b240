package env

import "math/rand/v2"

// gaussianStep is the Dynamics of a physical system whose Euler step takes
// two additive noise terms, e0 and e1, each N(0, std[i]²) when noisy and 0
// otherwise. Pendulum and mountain car share it, so their simulators draw
// in the same order: e1 first, then e0.
type gaussianStep struct {
	step  func(s, a []float64, e0, e1 float64, out []float64)
	std   [2]float64
	noisy bool
	// stepReward, when set, is step(s, a, 0, 0, out) returning task's
	// Reward(s, a), the two sharing their work (RewardStepper).
	stepReward func(s, a, out []float64) float64
	// stepRewards, when set, is stepReward for a batch of states
	// (BatchRewardStepper).
	stepRewards func(xs []float64, acts [][]float64, out, rw []float64)
	task        Task
}

func (g *gaussianStep) NewSimulator() Simulator { return gaussianStepSim{g} }

func (g *gaussianStep) NewMean() Simulator {
	if g.stepRewards != nil {
		return gaussianStepMeanBatch{gaussianStepMean{g}}
	}
	return gaussianStepMean{g}
}

type gaussianStepSim struct{ *gaussianStep }

func (g gaussianStepSim) Step(s, a []float64, rng *rand.Rand, out []float64) {
	var e0, e1 float64
	if g.noisy {
		e1 = g.std[1] * rng.NormFloat64()
		e0 = g.std[0] * rng.NormFloat64()
	}
	g.step(s, a, e0, e1, out)
}

// gaussianStepMean is the noise-free step: the mean transition without
// noise, and with noise the mean up to the system's bounds and curvature.
type gaussianStepMean struct{ *gaussianStep }

func (g gaussianStepMean) Step(s, a []float64, _ *rand.Rand, out []float64) { g.step(s, a, 0, 0, out) }

// Deterministic reports that the step draws nothing.
func (gaussianStepMean) Deterministic() bool { return true }

// Scores reports whether StepReward returns t's reward: a system that
// registered its own (the pendulum), under its own task (not a reward
// expression that replaced it).
func (g gaussianStepMean) Scores(t Task) bool { return g.stepReward != nil && t == g.task }

// StepReward is Step and the task's Reward(s, a) in one (see Scores).
func (g gaussianStepMean) StepReward(s, a, out []float64) float64 { return g.stepReward(s, a, out) }

// gaussianStepMeanBatch is the noise-free step of a system that also steps
// batches (BatchRewardStepper).
type gaussianStepMeanBatch struct{ gaussianStepMean }

// StepRewards is StepReward for a batch of states.
func (g gaussianStepMeanBatch) StepRewards(xs []float64, acts [][]float64, out, rw []float64) {
	g.stepRewards(xs, acts, out, rw)
}
