package agent

import (
	"math"
	"math/rand/v2"
	"testing"
)

// driftSim is s' = s + a (no noise): the planner's value is deterministic.
type driftSim struct{}

func (driftSim) Step(s, a []float64, _ *rand.Rand, out []float64) {
	for i := range out {
		out[i] = s[i] + a[i]
	}
}

// stateReward is a Task with a reward of the state alone and no terminal
// states.
type stateReward func(s []float64) float64

func (r stateReward) Reward(s, _ []float64) float64    { return r(s) }
func (stateReward) Terminal([]float64) (bool, float64) { return false, 0 }
func (stateReward) Terminates() bool                   { return false }

// bump's reward peaks at s = (1, −1).
var bump = stateReward(func(s []float64) float64 { return math.Exp(-((s[0]-1)*(s[0]-1) + (s[1]+1)*(s[1]+1))) })

func TestPlannerBoxActions(t *testing.T) {
	box := &Box{Low: []float64{-0.5, -0.5}, High: []float64{0.5, 0.5}}
	pl, err := NewPlanner("random", 1, 2, 256, false, nil, box, bump, 2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ai, v := pl.Best(driftSim{}, []float64{0, 0}, rng)
	a := pl.Action(ai)
	if ai != BoxAction || len(a) != 2 {
		t.Fatalf("Best returned %d, %v", ai, a)
	}
	for i := range a {
		if a[i] < box.Low[i] || a[i] > box.High[i] {
			t.Errorf("action %v outside the box", a)
		}
	}
	// From s = 0 the best one-step move heads for (1, −1): the corner (0.5, −0.5).
	if a[0] < 0.3 || a[1] > -0.3 {
		t.Errorf("chose %v (value %.3f), want near (0.5, −0.5)", a, v)
	}
	if _, err := NewPlanner("constant", 1, 2, 1, false, nil, box, bump, 2); err == nil {
		t.Error("constant mode accepted a box")
	}
	if _, err := NewPlanner("random", 1, 2, 1, false, [][]float64{{1, 1}}, box, bump, 2); err == nil {
		t.Error("both a discrete set and a box accepted")
	}
}
