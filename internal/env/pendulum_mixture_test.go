package env

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/stats"
)

// mixturePendulum is the pendulum with noise: mixture of the given
// components.
func mixturePendulum(t *testing.T, w, mu, sd []float64) *config.Config {
	t.Helper()
	c := physicsConfig(t, "pendulum")
	p := config.Section[PendulumConfig](c, "env.pendulum")
	p.Noise, p.MixtureWeights, p.MixtureMeans, p.MixtureStds = "mixture", w, mu, sd
	return c
}

// The torque noise of noise: mixture follows its law: the noise ν
// recovered from the true step's θ̇' at a fixed (s, a) (θ̇' − θ̇'_0 =
// 3/(m l²)·dt·ν, θ' − θ'_0 = dt·(θ̇' − θ̇'_0)) passes a Kolmogorov–Smirnov
// test at 1% (n = 4000, seeded) against the mixture's CDF, itself checked
// against the trapezoid integral of its density; a two-component law with
// the weights swapped is rejected by the same test.
func TestPendulumMixtureNoiseLaw(t *testing.T) {
	w, mu, sd := []float64{0.3, 0.7}, []float64{-1, 0.8}, []float64{0.15, 0.3}
	c := mixturePendulum(t, w, mu, sd)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	mix := NewMixture(w, mu, sd)
	// The CDF against the integrated density (trapezoid, step 1e-3 from −6).
	var integral float64
	h := 1e-3
	prev := math.Exp(mix.LogPDF(-6))
	for k := 1; k <= 8000; k++ {
		x := -6 + float64(k)*h
		cur := math.Exp(mix.LogPDF(x))
		integral += h * (prev + cur) / 2
		prev = cur
		if k%1000 == 0 && math.Abs(integral-mix.CDF(x)) > 1e-6 {
			t.Fatalf("CDF(%v) = %v, integrated density %v", x, mix.CDF(x), integral)
		}
	}
	s, a := []float64{math.Cos(2), math.Sin(2), 1}, []float64{0.5}
	base := make([]float64, 3)
	m.Dynamics.NewMean().Step(s, a, nil, base) // E[ν] = 0.26: the mean torque applied
	noMean := make([]float64, 3)
	free, _ := New(physicsConfig(t, "pendulum"))
	free.Dynamics.NewMean().Step(s, a, nil, noMean)
	gain := 3.0 * 0.05 // 3/(m l²)·dt at m = l = 1
	if got := (base[2] - noMean[2]) / gain; math.Abs(got-mix.Mean()) > 1e-12 {
		t.Fatalf("the mean step applies a torque offset %v, want E[ν] = %v", got, mix.Mean())
	}
	sim := m.Dynamics.NewSimulator()
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 4000
	nu := make([]float64, n)
	out := make([]float64, 3)
	th0 := math.Atan2(noMean[1], noMean[0])
	for i := range nu {
		sim.Step(s, a, rng, out)
		nu[i] = (out[2] - noMean[2]) / gain
		dth := math.Remainder(math.Atan2(out[1], out[0])-th0, 2*math.Pi)
		if math.Abs(dth-0.05*(out[2]-noMean[2])) > 1e-9 {
			t.Fatalf("θ' moved by %v, want dt·(θ̇' − θ̇'_0) = %v", dth, 0.05*(out[2]-noMean[2]))
		}
	}
	crit := 1.628 / math.Sqrt(n)
	if d := stats.KS(nu, mix.CDF); d > crit {
		t.Errorf("KS statistic %.4f of the torque noise against its mixture, 1%% critical value %.4f", d, crit)
	}
	swapped := NewMixture([]float64{0.7, 0.3}, mu, sd)
	if d := stats.KS(nu, swapped.CDF); d < crit {
		t.Errorf("KS statistic %.4f against the swapped mixture: the test cannot tell them apart (critical %.4f)", d, crit)
	}
}

// Malformed mixture keys are refused naming the key.
func TestPendulumMixtureRefusals(t *testing.T) {
	for _, tc := range []struct {
		w, mu, sd []float64
		key       string
	}{
		{[]float64{0.5, 0.5}, []float64{0}, []float64{1, 1}, "mixture_weights"},
		{[]float64{0.5, 0.6}, []float64{0, 1}, []float64{1, 1}, "mixture_weights"},
		{[]float64{1, 0}, []float64{0, 1}, []float64{1, 1}, "mixture_weights"},
		{[]float64{0.5, 0.5}, []float64{0, math.NaN()}, []float64{1, 1}, "mixture_means"},
		{[]float64{0.5, 0.5}, []float64{0, 1}, []float64{1, 0}, "mixture_stds"},
	} {
		err := mixturePendulum(t, tc.w, tc.mu, tc.sd).Validate()
		if err == nil || !strings.Contains(err.Error(), "env.pendulum."+tc.key) {
			t.Errorf("weights %v means %v sds %v: error %v, want one naming env.pendulum.%s", tc.w, tc.mu, tc.sd, err, tc.key)
		}
	}
}
