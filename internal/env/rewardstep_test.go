package env

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The pendulum's noise-free simulator scores its own task: StepReward gives
// the bits of Task.Reward and of the mean Step, on random states (off the
// unit circle too, as a learner's predictions are) and torques beyond the
// clip. It scores no other task, and mountain car's simulator none.
func TestPendulumStepRewardIsRewardAndStep(t *testing.T) {
	mdp, err := New(physicsConfig(t, "pendulum"))
	if err != nil {
		t.Fatal(err)
	}
	mean := mdp.Dynamics.NewMean()
	rs, ok := mean.(RewardStepper)
	if !ok || !rs.Scores(mdp.Task) {
		t.Fatal("the pendulum's mean simulator does not score its task")
	}
	if rs.Scores(pendulumTask{maxTorque: 3}) || rs.Scores(mountainCarTaskOf(t)) {
		t.Error("the pendulum's simulator scores another task")
	}
	if r, ok := mdp.Dynamics.NewSimulator().(RewardStepper); ok && r.Scores(mdp.Task) {
		t.Error("the noisy simulator claims to score")
	}
	rng := rand.New(rand.NewPCG(24, 6))
	s, a := make([]float64, 3), make([]float64, 1)
	got, want := make([]float64, 3), make([]float64, 3)
	for range 100_000 {
		th, rad := 2*math.Pi*(2*rng.Float64()-1), 0.5+rng.Float64()
		s[0], s[1], s[2] = rad*math.Cos(th), rad*math.Sin(th), 10*(2*rng.Float64()-1)
		a[0] = 3 * (2*rng.Float64() - 1)
		r := rs.StepReward(s, a, got)
		wantR := mdp.Task.Reward(s, a)
		mean.Step(s, a, nil, want)
		if math.Float64bits(r) != math.Float64bits(wantR) {
			t.Fatalf("s %v, a %v: StepReward's reward %v, Reward %v", s, a, r, wantR)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("s %v, a %v: StepReward's s'_%d %v, Step %v", s, a, i, got[i], want[i])
			}
		}
	}
}

// mountainCarTaskOf returns mountain car's task (another task than the
// pendulum's), and checks that its simulator scores none.
func mountainCarTaskOf(t *testing.T) Task {
	t.Helper()
	mc, err := New(physicsConfig(t, "mountain-car"))
	if err != nil {
		t.Fatal(err)
	}
	if rs, ok := mc.Dynamics.NewMean().(RewardStepper); ok && rs.Scores(mc.Task) {
		t.Error("mountain car's simulator claims to score its task")
	}
	return mc.Task
}
