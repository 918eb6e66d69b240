package agent

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
)

// plainSim hides every method of a simulator but Step and Deterministic.
type plainSim struct{ env.Simulator }

func (plainSim) Deterministic() bool { return true }

// countingStepper counts the calls of StepReward of the RewardStepper it
// wraps.
type countingStepper struct {
	env.RewardStepper
	calls int
}

func (c *countingStepper) StepReward(s, a, out []float64) float64 {
	c.calls++
	return c.RewardStepper.StepReward(s, a, out)
}
func (c *countingStepper) Deterministic() bool { return true }

// Rollouts under a simulator that scores the task (the pendulum's oracle)
// take the fused loop (stepScored) and give generic's values bit for bit,
// for every horizon from the shortest on. (A RewardStepper is
// deterministic, so Value runs one rollout whatever the rollout count.)
func TestStepScoredIsGeneric(t *testing.T) {
	c, err := config.Load(config.Options{Path: "../../configs/pendulum.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	rs, ok := m.Dynamics.NewMean().(env.RewardStepper)
	if !ok {
		t.Fatal("the pendulum's mean simulator is not a RewardStepper")
	}
	fused := &countingStepper{RewardStepper: rs}
	rng := rand.New(rand.NewPCG(24, 7))
	for _, tau := range []int{1, 2, 3, 16} {
		r := newRollouts(m.Task, tau, 3, false, 3)
		steps := r.Steps()
		act := make([][]float64, steps)
		for i := range act {
			act[i] = []float64{0}
		}
		for range 2000 {
			th := 2 * math.Pi * (2*rng.Float64() - 1)
			s := []float64{math.Cos(th), math.Sin(th), 8 * (2*rng.Float64() - 1)}
			for i := range act {
				act[i][0] = 2.5 * (2*rng.Float64() - 1)
			}
			got := r.Value(fused, s, act, rng)
			want := r.Value(plainSim{rs}, s, act, rng)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("τ %d, s %v, a %v: stepScored %v, generic %v", tau, s, act, got, want)
			}
		}
	}
	if fused.calls == 0 {
		t.Fatal("the fused loop never ran")
	}
}
