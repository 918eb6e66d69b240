package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/testutil"
	"math"
	"math/rand/v2"
	"testing"
)

// Expected values from an independent Python transcription of Gymnasium's
// MountainCarContinuous-v0 step (in float64; Gymnasium stores the state as
// float32): force = clip(a, ±1), v += force·0.0015 − 0.0025 cos(3p),
// v = clip(v, ±0.07), p += v, p = clip(p, [−1.2, 0.6]), v = 0 at the left
// wall when v < 0; terminal when p ≥ 0.45 and v ≥ 0, reward 100·terminal −
// 0.1a².
func TestMountainCarMatchesGymnasium(t *testing.T) {
	m, err := New(physicsConfig(t, "mountain-car"))
	if err != nil {
		t.Fatal(err)
	}
	sim := m.Dynamics.NewSimulator()
	for _, c := range []struct {
		p, v, a, wantP, wantV float64
		done                  bool
		reward                float64
	}{
		{-0.5, 0.0, 1.0, -0.49867684300416926, 0.0013231569958307428, false, -0.1},
		{-0.3, 0.02, -0.4, -0.28215402492067665, 0.01784597507932334, false, -0.016000000000000004},
		// The left wall: p clipped to −1.2 and v reset to 0.
		{-1.19, -0.03, 0.2, -1.2, 0, false, -0.004000000000000001},
		// Reaching the goal.
		{0.44, 0.02, 1.0, 0.46087956137086905, 0.02087956137086907, true, 99.9},
		// a = 1.5: the force is clipped, the reward is not; v at its limit.
		{0.5, 0.069, 1.5, 0.5700000000000001, 0.07, true, 99.775},
		{0.2, -0.069, -1, 0.13, -0.07, false, -0.1},
	} {
		s, a, out := []float64{c.p, c.v}, []float64{c.a}, make([]float64, 2)
		sim.Step(s, a, nil, out)
		if !testutil.AbsWithin(out[0], c.wantP, 1e-15) || !testutil.AbsWithin(out[1], c.wantV, 1e-15) {
			t.Errorf("step(%v, %v) = %.17g, Gymnasium (%.17g, %.17g)", s, c.a, out, c.wantP, c.wantV)
		}
		done, bonus := m.Task.Terminal(out)
		r := m.Task.Reward(s, a) + bonus
		if done != c.done || !testutil.AbsWithin(r, c.reward, 1e-12) {
			t.Errorf("step(%v, %v): terminal %v, reward %v; Gymnasium %v, %v", s, c.a, done, r, c.done, c.reward)
		}
	}
	if done, _ := m.Task.Terminal([]float64{0.45, -0.001}); done {
		t.Error("p = 0.45 moving left is terminal")
	}
	if done, _ := m.Task.Terminal([]float64{0.45, 0}); !done {
		t.Error("p = 0.45, v = 0 is not terminal")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	s := make([]float64, 2)
	for range 1000 {
		m.Init(rng, s)
		if s[0] < -0.6 || s[0] > -0.4 || s[1] != 0 {
			t.Fatalf("s_1 = %v", s)
		}
	}
	// Full throttle from the bottom is not enough: the car stalls below the
	// goal (the reason the task needs planning), and rocking gets there.
	s = []float64{-0.5, 0}
	next := make([]float64, 2)
	top := -1.0
	for range 200 {
		sim.Step(s, []float64{1}, nil, next)
		s, next = next, s
		top = max(top, s[0])
	}
	if top >= 0.45 {
		t.Errorf("full throttle reached %v", top)
	}
	s = []float64{-0.5, 0}
	reached := false
	for h := 0; h < 999 && !reached; h++ {
		a := []float64{1}
		if s[1] < 0 {
			a[0] = -1 // push along the velocity: energy pumping
		}
		sim.Step(s, a, nil, next)
		s, next = next, s
		reached, _ = m.Task.Terminal(s)
	}
	if !reached {
		t.Error("energy pumping did not reach the goal in 999 steps")
	}
}

// noise: normal adds N(0, σ_v²) to the velocity before its clip and
// N(0, σ_p²) to the position: away from the bounds v' − v'_0 has sd σ_v
// and p' − p'_0 sd √(σ_p² + σ_v²) (p' = p + v'), within 5 standard errors;
// the mean simulator is the noise-free step.
func TestMountainCarNoise(t *testing.T) {
	c := physicsConfig(t, "mountain-car")
	(*config.Section[MountainCarConfig](c, "env.mountain_car")).Noise = "normal"
	(*config.Section[MountainCarConfig](c, "env.mountain_car")).NoiseStd = []float64{0.002, 0.001}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	s, a := []float64{-0.3, 0.01}, []float64{0.5}
	base := make([]float64, 2)
	m.Dynamics.NewMean().Step(s, a, nil, base)
	free, _ := New(physicsConfig(t, "mountain-car"))
	want := make([]float64, 2)
	free.Dynamics.NewSimulator().Step(s, a, nil, want)
	if base[0] != want[0] || base[1] != want[1] {
		t.Fatalf("mean step %v, noise-free step %v", base, want)
	}
	sim := m.Dynamics.NewSimulator()
	rng := rand.New(rand.NewPCG(5, 6))
	out := make([]float64, 2)
	const n = 20000
	var sum, sum2 [2]float64
	for range n {
		sim.Step(s, a, rng, out)
		for i := range out {
			d := out[i] - base[i]
			sum[i] += d
			sum2[i] += d * d
		}
	}
	sds := [2]float64{math.Hypot(0.002, 0.001), 0.001}
	for i, sd := range sds {
		mean := sum[i] / n
		got := math.Sqrt(sum2[i]/n - mean*mean)
		if math.Abs(mean) > 5*sd/math.Sqrt(n) || !testutil.AbsWithin(got, sd, 5*sd/math.Sqrt(2*n)) {
			t.Errorf("coordinate %d: noise mean %v, sd %v; want 0, %v", i, mean, got, sd)
		}
	}
}
