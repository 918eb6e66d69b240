package agent

import (
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
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

// walkTask: r(s, a) = 1 + a_0 per step (action-dependent), terminal once
// s_0 ≥ 3 with a bonus of 10.
type walkTask struct{}

func (walkTask) Reward(_, a []float64) float64 { return 1 + a[0] }
func (walkTask) Terminal(s []float64) (bool, float64) {
	return s[0] >= 3, 10
}
func (walkTask) Terminates() bool { return true }

// countingSim is driftSim that counts its steps and declares itself
// deterministic.
type countingSim struct{ n *int }

func (c countingSim) Step(s, a []float64, _ *rand.Rand, out []float64) {
	*c.n++
	driftSim{}.Step(s, a, nil, out)
}
func (countingSim) Deterministic() bool { return true }

// The rollout return: Σ_{t<τ} r(x_t, a_t), the last state scored with the
// last action held, a terminal state's bonus collected and the rollout
// stopped there; a deterministic simulator is rolled out once.
func TestPlannerValueWithTermination(t *testing.T) {
	for _, c := range []struct {
		s    float64
		a    float64
		tau  int
		want float64
		sims int // simulated transitions
	}{
		// From 0 with a = 1: x = 0, 1, 2 (τ = 3): rewards 2 + 2 + 2.
		{0, 1, 3, 6, 2},
		// From 0, τ = 6: x = 0, 1, 2, then 3 is terminal: 2 + 2 + 2 + bonus 10.
		{0, 1, 6, 16, 3},
		// From 0.5 with a = 0.5: x = 0.5 … 2.5 (5 states), then 3 terminal.
		{0.5, 0.5, 8, 1.5*5 + 10, 5},
		// τ = 1: only r(s, a).
		{0, 1, 1, 2, 0},
	} {
		n := 0
		pl, err := NewPlanner("constant", 7, c.tau, 1, false, [][]float64{{c.a, 0}}, nil, walkTask{}, 2)
		if err != nil {
			t.Fatal(err)
		}
		_, v := pl.Best(countingSim{&n}, []float64{c.s, 0}, rand.New(rand.NewPCG(1, 1)))
		if v != c.want || n != c.sims {
			t.Errorf("s = %g, a = %g, τ = %d: value %g after %d transitions, want %g after %d", c.s, c.a, c.tau, v, n, c.want, c.sims)
		}
	}
}

// The specialised rollout loop (fastModel: a tabulated product family,
// features [s, a], a bumps reward) is the generic loop's arithmetic: the
// same values to the bit, for several states, actions, W and dimensions,
// d_φ = d_s + 1 on both sides of expfam.LongRow (where Model.Eta changes
// its summation order).
func TestFastRolloutsEqualGeneric(t *testing.T) {
	sin, _ := expfam.NewSin(4, 1.7)
	for _, ds := range []int{1, 3, 15, 20} {
		prod, _ := expfam.NewProduct(sin, ds)
		feat := expfam.Linear{DS: ds, DA: 1}
		w := make([]float64, ds*feat.Dim())
		for i := range w {
			w[i] = 0.3 + 0.1*float64(i%5) - 0.05*float64(i%3)
		}
		m, _ := expfam.NewModel(prod, feat, w)
		centers := make([][]float64, 2)
		for k := range centers {
			centers[k] = make([]float64, ds)
			for i := range centers[k] {
				centers[k][i] = 0.4 - 1.2*float64(k) + 0.1*float64(i)
			}
		}
		// Narrow bumps in many dimensions reward nothing any summation
		// order could change; wider ones keep the returns sensitive.
		width := 10.0
		if ds > 3 {
			width = 1
		}
		task := &env.Bumps{Width: width, Centers: centers}
		fast := newRollouts(task, 5, 30, false, ds)
		slow := newRollouts(task, 5, 30, false, ds)
		// A Simulator the fast path does not recognise, stepping the same
		// model: the generic loop.
		generic := struct{ Simulator }{expfam.NewStepper(m)}
		st := expfam.NewStepper(m)
		if _, ok := fast.fastPath(st); !ok {
			t.Fatal("the fast path does not take the paper's kind of model")
		}
		s := make([]float64, ds)
		for trial := range 20 {
			for i := range s {
				s[i] = -1.5 + 0.17*float64(trial+i)
			}
			act := [][]float64{{1}, {-1}, {1}, {1}}
			a := fast.Value(st, s, act, rand.New(rand.NewPCG(uint64(trial), 9)))
			b := slow.Value(generic, s, act, rand.New(rand.NewPCG(uint64(trial), 9)))
			if a != b {
				t.Fatalf("d_s = %d, trial %d: fast value %v, generic %v", ds, trial, a, b)
			}
		}
	}
}
