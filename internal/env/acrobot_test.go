package env

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// Expected values from testdata/acrobot_reference.py, an independent Python
// transcription of the book dynamics as Gymnasium's Acrobot-v1 publishes
// them (RK4 over dt = 0.2, angles wrapped, speeds clipped to 4π and 9π),
// stepping the internal state (θ1, θ2, θ̇1, θ̇2); smrl steps the
// observation (cos θ1, sin θ1, cos θ2, sin θ2, θ̇1, θ̇2).
func TestAcrobotMatchesPublishedEquations(t *testing.T) {
	c := physicsConfig(t, "acrobot")
	c.Env.Horizon = 500
	c.Env.ActionLow, c.Env.ActionHigh = []float64{-1}, []float64{1}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	sim := m.Dynamics.NewSimulator()
	obs := func(x []float64) []float64 {
		s := make([]float64, 6)
		acrobotObs([4]float64(x), s)
		return s
	}
	for _, c := range []struct {
		x    []float64
		a    float64
		want []float64
		done bool
	}{
		{[]float64{0.05, -0.03, 0.02, 0.01}, 1.0, []float64{0.9994232696918266, 0.03395773841848709, 0.9999016042257141, 0.014027896023404499, -0.175464650251537, 0.4197156022652691}, false},
		{[]float64{1.0, -0.5, 2.0, -3.0}, -1.0, []float64{0.27765911503023644, 0.9606796634886292, 0.5474592188448262, -0.8368323629627458, 0.8666983673209543, -1.8961094578076934}, false},
		{[]float64{3.0, 0.2, 0.5, 0.0}, 0.0, []float64{-0.9982664301908505, 0.05885689725100831, 0.9734164156816582, 0.2290425324726248, 0.3440465149665331, 0.3022983748409498}, true},
		// Both speed limits bind.
		{[]float64{0.3, 2.0, 12.0, 27.0}, 1.0, []float64{-0.34577580907514927, 0.938317158458922, 0.867419773658779, -0.4975770656549121, 12.566370614359172, 28.274333882308138}, false},
		{[]float64{2.5, 1.0, -1.0, 0.5}, 0.4, []float64{-0.593752449584678, 0.8046477667974941, 0.3327203303834355, 0.9430255467109773, -1.9739646423588555, 1.8020325323327413}, true},
	} {
		s := obs(c.x)
		got := make([]float64, 6)
		sim.Step(s, []float64{c.a}, nil, got)
		for i := range got {
			testutil.AbsClosef(t, got[i], c.want[i], 1e-12, "step(%v, %v)[%d] = %.17g, want %.17g", c.x, c.a, i, got[i], c.want[i])
		}
		if done, bonus := m.Task.Terminal(got); done != c.done || (done && bonus != 1) {
			t.Errorf("step(%v, %v): terminal %v (bonus %v), want %v", c.x, c.a, done, bonus, c.done)
		}
		if r := m.Task.Reward(s, []float64{c.a}); r != -1 {
			t.Errorf("r = %v, want −1", r)
		}
	}
	// 30 steps from rest with torques +1 and −1 alternating every 5 steps.
	s, next := obs([]float64{0, 0, 0, 0}), make([]float64, 6)
	for h := range 30 {
		a := 1.0
		if (h/5)%2 == 1 {
			a = -1
		}
		sim.Step(s, []float64{a}, nil, next)
		s, next = next, s
		if done, _ := m.Task.Terminal(s); done {
			t.Fatalf("terminal at step %d, the reference never is", h+1)
		}
	}
	want := []float64{0.9999596945294884, 0.008978269125631653, 0.9838722851961458, -0.17887237467790817, 2.3572157568880554, -4.227271175443726}
	for i := range s {
		testutil.AbsClosef(t, s[i], want[i], 1e-9, "after 30 steps [%d] = %.17g, want %.17g", i, s[i], want[i])
	}
	// s_1 lies in Unif[−0.1, 0.1]^4, seen as its observation.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		m.Init(rng, s)
		th1, th2 := math.Atan2(s[1], s[0]), math.Atan2(s[3], s[2])
		for _, v := range []float64{th1, th2, s[4], s[5]} {
			if math.Abs(v) > 0.1 {
				t.Fatalf("s_1 = %v outside [−0.1, 0.1]^4", s)
			}
		}
	}
	// The planners' potential is height_potential times the tip's height.
	config.Section[AcrobotConfig](c, "env.acrobot").HeightPotential = 20
	m, err = New(c)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{2.5, 1.0, -1.0, 0.5}
	if p, want := m.Task.(Shaped).Potential(obs(x)), 20*(-math.Cos(x[0])-math.Cos(x[0]+x[1])); !testutil.AbsWithin(p, want, 1e-12) {
		t.Errorf("potential %v, want %v", p, want)
	}
}

// The lq dynamics and reward against their definitions on a 2-D double
// integrator with noise: the mean step is A s + B a, the noisy step adds
// σ·N(0, 1) per coordinate (checked by the sample mean and variance of
// 20 000 draws), and r = −(sᵀQs + aᵀRa).
func TestLQ(t *testing.T) {
	c := physicsConfig(t, "lq")
	c.Env.ActionLow, c.Env.ActionHigh = []float64{-1}, []float64{1}
	*config.Section[LQConfig](c, "env.lq") = LQConfig{A: [][]float64{{1, 0.1}, {0, 1}}, B: [][]float64{{0.005}, {0.1}},
		Q: [][]float64{{1, 0.2}, {0.2, 0.5}}, R: [][]float64{{0.3}}, NoiseStd: 0.2}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	s, a := []float64{0.5, -1}, []float64{0.7}
	mean := []float64{0.5 - 0.1 + 0.005*0.7, -1 + 0.07}
	out := make([]float64, 2)
	m.Dynamics.NewMean().Step(s, a, nil, out)
	for i := range out {
		testutil.AbsClosef(t, out[i], mean[i], 1e-15, "mean step [%d] = %v, want %v", i, out[i], mean[i])
	}
	if r, want := m.Task.Reward(s, a), -(0.25 + 2*0.2*0.5*-1 + 0.5 + 0.3*0.49); !testutil.AbsWithin(r, want, 1e-15) {
		t.Errorf("r = %v, want %v", r, want)
	}
	sim := m.Dynamics.NewSimulator()
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 20000
	var sum, sq [2]float64
	for range n {
		sim.Step(s, a, rng, out)
		for i := range out {
			d := out[i] - mean[i]
			sum[i] += d
			sq[i] += d * d
		}
	}
	for i := range sum {
		// Mean 0 ± 4 standard errors; variance σ² within 5% (its
		// relative standard error is sqrt(2/n) = 1%).
		if m := sum[i] / n; math.Abs(m) > 4*0.2/math.Sqrt(n) {
			t.Errorf("noise mean [%d] = %v", i, m)
		}
		if v := sq[i] / n; !testutil.AbsWithin(v/0.04, 1, 0.05) {
			t.Errorf("noise variance [%d] = %v, want 0.04", i, v)
		}
	}
}
